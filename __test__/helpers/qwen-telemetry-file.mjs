// Reading what Qwen Code's file exporters (packages/core/src/telemetry/file-exporters.ts)
// wrote: one pretty-printed JSON object per span, per log record and per
// metrics export, one after the other. Records are reduced to what two runs of
// the same streams must share: names, kinds, the parent structure, attributes,
// span events, status, log bodies and metric values. What varies by run is
// masked, keeping its presence and type: clock readings and everything measured
// on the clock (durations, time to first chunk), trace and span ids and Qwen's
// generated tool-call ids (`call_<ms>_<random>`, numbered in order of
// appearance, so the parent structure and the ids' reuse still count), and the
// loopback provider's port. What exists only when the clock moved is left out.
import fs from 'node:fs';

/** Every record in the file, in the order written. */
export function readTelemetryFile(file) {
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!text) return [];
  // Pretty-printed with two-space indents: only a top-level object closes at column 0.
  return JSON.parse(`[${text.replace(/\n}\n{/g, '\n},\n{')}]`);
}

/** Attribute keys whose values are read off the clock. */
const TIMED_KEY = /(^|[._])(timestamp|duration|time_to_first_chunk)$|_ms$/;
/**
 * Attributes and metric data points that exist only when the clock moved
 * between the first chunk and the end of the stream (sampling time > 0):
 * packages/core/src/telemetry/session-tracing.ts, endLLMRequestSpan
 * (`output_tokens_per_second`, the `response_processing` phase of
 * `api.request.breakdown`).
 */
const CLOCK_CONDITIONAL_KEY = new Set(['output_tokens_per_second']);
const isClockConditionalPoint = (metric, attributes) =>
  metric.endsWith('.api.request.breakdown') && attributes?.phase === 'response_processing';
/** Attribute keys whose values are the loopback provider's port. */
const PORT_KEY = /(^|\.)port$/;
/** Metrics whose values are read off the clock. */
const TIMED_METRIC = /latency|duration|breakdown|time/;

const masked = (value) => `<${Array.isArray(value) ? 'array' : typeof value}>`;

/** Numbers ids in order of appearance. */
function idNumbering() {
  const seen = new Map();
  return (id) => {
    if (id === undefined || id === null) return null;
    if (!seen.has(id)) seen.set(id, seen.size);
    return seen.get(id);
  };
}

// The OpenTelemetry SDK Qwen bundles names some fields with an underscore in
// one release and without in another (LogRecord `_hrTime` / `hrTime`).
const own = (r, name) => r[`_${name}`] ?? r[name];
const isSpan = (r) => r.name !== undefined && own(r, 'spanContext') && r.startTime !== undefined;
const isLog = (r) => own(r, 'hrTime') !== undefined && 'attributes' in r && !isSpan(r);
const isMetrics = (r) => Array.isArray(r.scopeMetrics);

/** Nanoseconds of an OpenTelemetry HrTime (`[seconds, nanoseconds]`). */
const nanos = (t) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);

/**
 * `{spans, logs, metrics}` of the file's records, masked. Spans are exported
 * as they end, and spans ending together (a request's HTTP client span and
 * its llm_request span) end in either order; the span and log processors
 * write their batches in either order too. So spans are taken in the order
 * they started (parents before children), log records in the order they were
 * emitted, and ids numbered in that order. Metrics are cumulative, exported
 * every 10 s and at shutdown: only the last export counts, each data point
 * by its attributes.
 */
export function normalizeTelemetry(records) {
  const spanRecords = [];
  const logRecords = [];
  let lastMetrics;
  const unknown = [];
  for (const r of records) {
    if (isSpan(r)) spanRecords.push(r);
    else if (isLog(r)) logRecords.push(r);
    else if (isMetrics(r)) lastMetrics = r;
    else unknown.push(Object.keys(r).sort().join(','));
  }
  if (unknown.length)
    throw new Error(`records of no known kind in the telemetry file: ${[...new Set(unknown)].join(' | ')}`);
  const parentOf = (r) => r.parentSpanContext?.spanId ?? r.parentSpanId;
  const byId = new Map(spanRecords.map((r) => [own(r, 'spanContext').spanId, r]));
  const depth = (r) => (byId.has(parentOf(r)) ? 1 + depth(byId.get(parentOf(r))) : 0);
  spanRecords.sort((a, b) => {
    const d = nanos(a.startTime) - nanos(b.startTime);
    return d !== 0n ? (d < 0n ? -1 : 1) : depth(a) - depth(b);
  });

  const trace = idNumbering();
  const span = idNumbering();
  const callId = idNumbering();
  const maskText = (text) =>
    text
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
      .replace(/localhost:\d+/g, 'localhost:<port>')
      .replace(/\bcall_\d+_[a-z0-9]+/g, (id) => `<generated ${callId(id)}>`)
      .replace(/\b\d+(\.\d+)?ms\b/g, '<n>ms');
  const maskAttributes = (attributes = {}) => {
    const out = {};
    for (const [key, value] of Object.entries(attributes)) {
      if (CLOCK_CONDITIONAL_KEY.has(key)) continue;
      if (TIMED_KEY.test(key) || PORT_KEY.test(key)) out[key] = masked(value);
      else out[key] = typeof value === 'string' ? maskText(value) : value;
    }
    return out;
  };

  const spans = spanRecords.map((r) => {
    const context = own(r, 'spanContext');
    return {
      name: r.name,
      kind: r.kind,
      scope: r.instrumentationScope?.name,
      trace: trace(context.traceId),
      span: span(context.spanId),
      parent: span(parentOf(r)),
      attributes: maskAttributes(r.attributes),
      events: (r.events ?? []).map((e) => ({ name: e.name, attributes: maskAttributes(e.attributes) })),
      status: { code: r.status?.code, message: r.status?.message ? maskText(r.status.message) : undefined },
      links: (r.links ?? []).length,
    };
  });
  const logs = logRecords.map((r) => {
    const context = own(r, 'spanContext');
    const body = own(r, 'body');
    return {
      event: r.attributes?.['event.name'],
      scope: r.instrumentationScope?.name,
      body: typeof body === 'string' ? maskText(body) : body,
      severity: own(r, 'severityNumber'),
      trace: context ? trace(context.traceId) : null,
      span: context ? span(context.spanId) : null,
      attributes: maskAttributes(r.attributes),
    };
  });
  const metrics = [];
  for (const scope of lastMetrics?.scopeMetrics ?? [])
    for (const m of scope.metrics) {
      const name = m.descriptor.name;
      const points = m.dataPoints
        .filter((p) => !isClockConditionalPoint(name, p.attributes))
        .map((p) => ({
          attributes: maskAttributes(p.attributes),
          // Histograms (of sizes or of times): how many were recorded.
          value:
            typeof p.value === 'object'
              ? { count: p.value.count }
              : TIMED_METRIC.test(name)
                ? masked(p.value)
                : p.value,
        }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      metrics.push({ scope: scope.scope.name, name, type: m.descriptor.type, points });
    }
  return { spans, logs, metrics };
}
