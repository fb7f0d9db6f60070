// Lines as the oracle records them (a response's JSON view and its
// out-of-band preparations, or a typed error), and their comparison with the
// oracle's: parsed JSON, clock values and generated ids by shape.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mask, isTransportError } from './corpus.mjs';

const require = createRequire(import.meta.url);
const { getToolCallPreparations, getUsageProvenance } = require('../../index.js');
const { GenerateContentResponse } = require('@google/genai');

/** A response as the corpus records it (JSON view + out-of-band preparations and usage provenance). */
export function record(tagKey, tag, response) {
  assert.ok(response instanceof GenerateContentResponse, 'a real GenerateContentResponse');
  const json = JSON.stringify(response);
  assert.ok(!json.includes('toolCallPreparations') && !json.includes('callId'), 'preparations never serialised');
  assert.ok(!json.includes('InputTokensReported') && !json.includes('cacheCreation'), 'provenance never serialised');
  const line = { [tagKey]: tag, response: JSON.parse(json) };
  const preps = getToolCallPreparations(response);
  if (preps.length) line.toolCallPreparations = preps.map((p) => ({ ...p }));
  // As the oracle prints Qwen's getGenAiUsageProvenance(usageMetadata): JSON (an undefined count is absent).
  const provenance = getUsageProvenance(response);
  if (provenance) line.usageProvenance = JSON.parse(JSON.stringify(provenance));
  return line;
}

export function errorLine(tagKey, tag, err) {
  assert.equal(typeof err.code, 'string', `a typed error: ${err.stack}`);
  const line = { [tagKey]: tag, error: { type: err.type ?? err.code }, name: err.name, message: err.message };
  if (err.hostError) line.hostError = err.hostError;
  return line;
}

export function compare(name, how, got, want) {
  want = want.filter((l) => !isTransportError(l));
  const gotIds = new Map();
  const wantIds = new Map();
  assert.equal(got.length, want.length, `${name} (${how}): line count\n${JSON.stringify(got, null, 1)}`);
  got.forEach((g, i) => {
    const w = want[i];
    if (w.error?.name === 'TypeError') {
      // The reference's own code failed on a value: the converter's error
      // carries that TypeError as `hostError`, word for word.
      assert.deepEqual(g.hostError, { name: w.error.name, message: w.error.message }, `${name} (${how}) line ${i}`);
    } else if (w.error?.name === 'StreamContentError') {
      // The pipeline's `error_finish` error: its class and message (the
      // finish chunk's trimmed content, lone surrogates kept).
      assert.deepEqual([g.error.type, g.name, g.message], ['STREAM_ERROR', w.error.name, w.error.message]);
    } else if (w.error) {
      assert.deepEqual(g.error, { type: w.error.type ?? w.error.code }, `${name} (${how}) line ${i}`);
      if (name.startsWith('anthropic-')) {
        // The Anthropic path's own errors: 0.24.4's exact name and message.
        assert.deepEqual([g.name, g.message], [w.error.name, w.error.message], `${name} (${how}) line ${i}`);
      }
    } else {
      assert.equal(g.error, undefined, `${name} (${how}) line ${i}: unexpected ${JSON.stringify(g.error)}`);
      assert.deepEqual(mask(g.response, gotIds), mask(w.response, wantIds), `${name} (${how}) line ${i}`);
      assert.deepEqual(
        g.toolCallPreparations ?? [],
        w.toolCallPreparations ?? [],
        `${name} (${how}) line ${i}: preparations`,
      );
      assert.deepEqual(g.usageProvenance, w.usageProvenance, `${name} (${how}) line ${i}: usage provenance`);
    }
    const tagKey = 'event' in w ? 'event' : 'chunk';
    if (g[tagKey] !== undefined) assert.equal(g[tagKey], w[tagKey], `${name} (${how}) line ${i}: tag`);
  });
}

/**
 * The pipeline's lines, with our one deliberate improvement (README,
 * "Deliberate differences"): a
 * finish response merged with the chunks after it keeps their preparations,
 * where the reference's merged object loses them.
 */
export function pipelineWithPreparations(converted, pipeline) {
  return pipeline.map((line) => {
    if (!line.response?.candidates?.[0]?.finishReason) return line;
    const sources = converted.filter(
      (c) => c.response && (c.response.candidates?.[0]?.finishReason || c.chunk === line.chunk),
    );
    const seen = new Set();
    const preps = sources
      .flatMap((c) => c.toolCallPreparations ?? [])
      .filter((p) => !seen.has(p.callId) && seen.add(p.callId));
    return preps.length ? { ...line, toolCallPreparations: preps } : line;
  });
}

/** Everything but the tag, for comparing byte-split runs with whole runs. */
export const flat = (lines) => lines.map(({ event, chunk, ...rest }) => JSON.stringify(mask(rest)));
