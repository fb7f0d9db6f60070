// What Qwen Code's callers see of one stream: each response as JSON and
// through Qwen's own getters, and the error the stream ends with. Shared by
// the differential runners (qwen-run.mjs, qwen-telemetry-run.mjs).

const plain = (v) => JSON.parse(JSON.stringify(v));

/** `{response(r), error(err)}` for the hook points `q` of one Qwen Code release. */
export function qwenObserver(q) {
  // Qwen's private marker of OpenAI reasoning thoughts (thoughtUtils.ts,
  // OPENAI_REASONING_THOUGHT_MARKER), as its own factory attaches it.
  const [REASONING_MARKER] = Object.getOwnPropertySymbols(q.createOpenAIReasoningThoughtPart(''));
  /** Qwen's usage provenance of the response: its keys (one may hold undefined) and values. */
  const provenance = (r) => {
    const p = r.usageMetadata ? q.getGenAiUsageProvenance(r.usageMetadata) : undefined;
    return p === undefined ? null : { keys: Object.keys(p), value: plain(p) };
  };
  /** Per part of the response: whether it carries Qwen's reasoning marker (non-enumerable). */
  const reasoningMarks = (r) =>
    (r.candidates?.[0]?.content?.parts ?? []).map((p) => {
      const d = Object.getOwnPropertyDescriptor(p, REASONING_MARKER);
      return d ? { value: d.value, enumerable: d.enumerable } : false;
    });
  return {
    response: (r) => ({
      json: plain(r),
      preparations: plain(q.getToolCallPreparations(r)),
      // Qwen's own getters: its telemetry's usage provenance, its thought summary.
      usageProvenance: provenance(r),
      thoughtSummary: q.getThoughtSummary(r),
      reasoningMarks: reasoningMarks(r),
      qwenClass: r instanceof q.GenerateContentResponse,
      functionCalls: plain(r.functionCalls ?? null),
      text: r.text ?? null,
    }),
    error: (err) => ({
      name: err?.name,
      message: err?.message,
      type: err?.type,
      invalidStream: err instanceof q.InvalidStreamError,
      status: err?.status,
    }),
  };
}
