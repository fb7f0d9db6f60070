// Where the Anthropic SDK that Qwen Code bundles lets a frame of the body
// through to its SSE decoder (@anthropic-ai/sdk, internal/decoders:
// iterSSEChunks and findDoubleNewlineIndex). It cuts the bytes it has at the
// first blank line (`\n\n`, `\r\r` or `\r\n\r\n`) that has at least one more
// byte after it, again and again, and keeps the rest until the next read;
// only at the body's normal end does the rest go through. So a frame whose
// blank line ends a read waits for the next read, and is lost when the
// connection drops there. The raw-body path holds back the same bytes, so
// the native converter sees exactly the frames the SDK would have decoded.

const LF = 10;
const CR = 13;

/** One body's bytes, cut where the SDK cuts them. */
export class SdkFrameCutter {
  /** @type {Uint8Array | undefined} bytes after the last cut */
  #rest;

  /** The bytes of this read the SDK would decode now (possibly none). */
  push(bytes) {
    let data = bytes;
    if (this.#rest) {
      data = new Uint8Array(this.#rest.length + bytes.length);
      data.set(this.#rest);
      data.set(bytes, this.#rest.length);
    }
    const cut = lastCut(data);
    this.#rest = cut < data.length ? data.subarray(cut) : undefined;
    return data.subarray(0, cut);
  }

  /** At the body's normal end: the bytes held back. */
  end() {
    const rest = this.#rest;
    this.#rest = undefined;
    return rest;
  }
}

/**
 * Where the SDK's repeated findDoubleNewlineIndex leaves off in `data`: the
 * end of the last blank line it finds, each search starting at the previous
 * cut, `i < length - 2` for a blank line starting at `i`.
 */
function lastCut(data) {
  const limit = data.length - 2;
  let cut = 0;
  let i = 0;
  let nextCr = data.indexOf(CR);
  while (i < limit) {
    if (nextCr !== -1 && nextCr < i) nextCr = data.indexOf(CR, i);
    const nextLf = data.indexOf(LF, i);
    const j = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
    if (j === -1 || j >= limit) break;
    const b = data[j];
    if (data[j + 1] === b) {
      cut = i = j + 2;
    } else if (b === CR && data[j + 1] === LF && j + 3 < data.length && data[j + 2] === CR && data[j + 3] === LF) {
      cut = i = j + 4;
    } else {
      i = j + 1;
    }
  }
  return cut;
}
