// Where the SDKs that Qwen Code bundles let the bytes of a body through to
// their SSE decoder (@anthropic-ai/sdk and openai, internal/decoders:
// iterSSEChunks, findDoubleNewlineIndex and LineDecoder), so the raw-body
// path holds back the same bytes and the native converter sees exactly the
// frames the SDK would have decoded when a connection drops.
//
// - iterSSEChunks cuts the bytes it has at the first blank line (`\n\n`,
//   `\r\r` or `\r\n\r\n`), again and again, and keeps the rest until the
//   next read; only at the body's normal end does the rest go through. The
//   Anthropic SDK finds a blank line only with at least one more byte after
//   it (`i < length - 2`, the decoder variant's `lastFrameNeedsMoreBytes`),
//   so a frame whose blank line ends a read waits for the next read.
// - LineDecoder holds a chunk's trailing `\r` until the next chunk (it may
//   be the first half of `\r\n`): the blank line a `\r\r` ends is not a line
//   yet, and its event is not dispatched until the next cut or the normal end.
//
// Either way, an event held back is lost when the connection drops there.
// Held bytes have still reached the process: a preparing card counts their
// argument fragments (`held()`, read with the card's progress), without
// their being converted early.

const LF = 10;
const CR = 13;
const HELD_CR = Uint8Array.of(CR);
const NO_BYTES = new Uint8Array(0);

/** One body's bytes, cut where the SDK cuts them. */
export class SdkFrameCutter {
  /** @type {Uint8Array | undefined} bytes after the last cut */
  #rest;
  /** The `\r` that ended the last cut, held as LineDecoder holds it. */
  #heldCr = false;
  /** How many bytes after a blank line's first byte the search needs (2: one more byte). */
  #lookahead;

  /** @param {{ lastFrameNeedsMoreBytes?: boolean }} [decoder] the SDK decoder's variant */
  constructor({ lastFrameNeedsMoreBytes = false } = {}) {
    this.#lookahead = lastFrameNeedsMoreBytes ? 2 : 1;
  }

  /** The bytes of this read the SDK would decode now (possibly none). */
  push(bytes) {
    const data = this.#rest ? concat(this.#rest, bytes) : bytes;
    const cut = lastCut(data, this.#lookahead);
    this.#rest = cut < data.length ? data.subarray(cut) : undefined;
    if (cut === 0) return data.subarray(0, 0);
    let out = data.subarray(0, cut);
    if (this.#heldCr) out = concat(HELD_CR, out);
    this.#heldCr = out[out.length - 1] === CR;
    return this.#heldCr ? out.subarray(0, out.length - 1) : out;
  }

  /**
   * The bytes held back now, as `end()` would give them, left held: for
   * counting what has reached the process (lib/converters/argument-progress.js),
   * never for converting.
   */
  held() {
    if (!this.#heldCr) return this.#rest ?? NO_BYTES;
    return this.#rest ? concat(HELD_CR, this.#rest) : HELD_CR;
  }

  /** At the body's normal end: the bytes held back (LineDecoder's flush ends a held `\r`'s line). */
  end() {
    const held = this.#heldCr ? HELD_CR : undefined;
    const rest = this.#rest;
    this.#heldCr = false;
    this.#rest = undefined;
    if (held && rest) return concat(held, rest);
    return held ?? rest;
  }
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Where the SDK's repeated findDoubleNewlineIndex leaves off in `data`: the
 * end of the last blank line it finds, each search starting at the previous
 * cut, `i < length - lookahead` for a blank line starting at `i`.
 */
function lastCut(data, lookahead) {
  const limit = data.length - lookahead;
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
