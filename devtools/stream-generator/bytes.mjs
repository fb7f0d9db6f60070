// A generated case as the bytes a server writes: its frames (text, or
// `{latin1}` for bytes that are not UTF-8) joined, then cut into the write
// pieces at its byte offsets.

export const frameBytes = (frame) =>
  typeof frame === 'string' ? Buffer.from(frame, 'utf8') : Buffer.from(frame.latin1, 'latin1');

export const caseBody = (kase) => Buffer.concat(kase.frames.map(frameBytes));

/** The body cut at `kase.cuts` (offsets outside the body are ignored): the pieces written one by one. */
export function casePieces(kase) {
  const body = caseBody(kase);
  const cuts = [...new Set(kase.cuts)].filter((x) => x > 0 && x < body.length).sort((a, b) => a - b);
  const pieces = [];
  let at = 0;
  for (const cut of cuts) {
    pieces.push(body.subarray(at, cut));
    at = cut;
  }
  pieces.push(body.subarray(at));
  return pieces.filter((p) => p.length > 0);
}

/** The frames cut after `keep` bytes of the body (a connection that ends mid-frame). */
export function truncateFrames(frames, keep) {
  const out = [];
  let left = keep;
  for (const f of frames) {
    if (left <= 0) break;
    const bytes = frameBytes(f);
    if (bytes.length <= left) out.push(f);
    else out.push({ latin1: bytes.subarray(0, left).toString('latin1') });
    left -= bytes.length;
  }
  return out;
}
