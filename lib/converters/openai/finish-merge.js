'use strict';
// FinishMerge: the OpenAI pipeline stage after the converter (Qwen Code
// pipeline.ts `handleChunkMerging`): the empty filter, the thinking-tag
// continuation check, and finish/usage merging.

const { getToolCallPreparations, setToolCallPreparations } = require('../../preparations.js');
const { newResponse, ToolCallStreamError } = require('../../responses.js');
const { sanitizationOf } = require('./converter.js');

function protocolTagLeak(message) {
  return new ToolCallStreamError(message, {
    code: 'PROTOCOL_TAG_LEAK',
    type: 'PROTOCOL_TAG_LEAK',
    name: 'InvalidStreamError',
    fatal: true,
  });
}

const partCount = (candidate) => candidate?.content?.parts?.length ?? 0;

/**
 * The pipeline stage after the converter (Qwen Code
 * `packages/core/src/core/openaiContentGenerator/pipeline.ts`,
 * `processStreamWithLogging` and `handleChunkMerging`): the empty filter, the
 * thinking-tag continuation check, and finish/usage merging. One deliberate
 * improvement: a merged finish response keeps the preparations of both chunks.
 */
class FinishMerge {
  #host;
  #pendingFinish = null;
  #finishYielded = false;
  #pendingSanitized;
  /** 0.24.4's `contentYielded`: a yielded response had a non-thought part. */
  #contentYielded = false;

  constructor(host) {
    this.#host = host;
  }

  /** A converted response → the response to yield now, or undefined. */
  take(response) {
    const sanitization = sanitizationOf(response);
    const candidate = response.candidates?.[0];
    if (
      partCount(candidate) === 0 &&
      !candidate?.finishReason &&
      !response.usageMetadata &&
      getToolCallPreparations(response).length === 0
    ) {
      return undefined;
    }
    const pendingFinish = this.#pendingFinish;
    if (
      this.#pendingSanitized &&
      pendingFinish &&
      !candidate?.finishReason &&
      response.candidates?.some((c) => partCount(c) > 0)
    ) {
      throw protocolTagLeak('Model response continued after a finish reason.');
    }
    if (this.#finishYielded) {
      // The reference writes later usage into the finish it already yielded.
      if (response.usageMetadata && pendingFinish) pendingFinish.usageMetadata = response.usageMetadata;
      return undefined;
    }
    if (!pendingFinish && candidate?.finishReason && sanitization) this.#pendingSanitized = sanitization;
    if (candidate?.finishReason) {
      if (pendingFinish) {
        if (response.usageMetadata) pendingFinish.usageMetadata = response.usageMetadata;
        if (response.modelVersion) pendingFinish.modelVersion = response.modelVersion;
        keepPreparations(pendingFinish, pendingFinish, response);
      } else {
        this.#pendingFinish = response;
      }
      return undefined;
    }
    if (!pendingFinish) {
      this.#contentYielded ||= hasNonThoughtParts(response);
      return response;
    }
    const merged = newResponse(this.#host);
    merged.candidates = pendingFinish.candidates;
    merged.usageMetadata = response.usageMetadata ? response.usageMetadata : pendingFinish.usageMetadata;
    merged.responseId = response.responseId || pendingFinish.responseId;
    merged.createTime = response.createTime || pendingFinish.createTime;
    merged.modelVersion = response.modelVersion || pendingFinish.modelVersion;
    merged.promptFeedback = response.promptFeedback || pendingFinish.promptFeedback;
    keepPreparations(merged, pendingFinish, response);
    this.#pendingFinish = merged;
    this.#finishYielded = true;
    return merged;
  }

  /** The held finish at the end of the stream, if it was never yielded. */
  finish() {
    return this.#pendingFinish && !this.#finishYielded ? this.#pendingFinish : undefined;
  }

  /** Parts flushed at the end of the stream (a whitespace-only tag candidate's). */
  flushed(response) {
    this.#contentYielded ||= hasNonThoughtParts(response);
    return response;
  }

  /**
   * 0.24.4's catch: the held finish to yield before the error is rethrown,
   * unless the request was aborted, or it holds a call and no content was
   * yielded before it.
   */
  parkedOnError(aborted) {
    const parked = this.finish();
    if (parked === undefined || aborted) return undefined;
    const hasCall = parked.candidates?.some((c) => c.content?.parts?.some((p) => p.functionCall));
    if (hasCall && !this.#contentYielded) return undefined;
    this.#finishYielded = true;
    return parked;
  }
}

/** `hasNonThoughtCandidateParts` (0.24.4 pipeline.ts). */
const hasNonThoughtParts = (response) =>
  Boolean(response.candidates?.some((c) => c.content?.parts?.some((p) => !p.thought)));

function keepPreparations(target, ...sources) {
  const all = sources.flatMap((s) => getToolCallPreparations(s));
  const seen = new Set();
  const unique = all.filter((p) => !seen.has(p.callId) && seen.add(p.callId));
  if (unique.length) setToolCallPreparations(target, unique);
}

module.exports = { FinishMerge, protocolTagLeak };
