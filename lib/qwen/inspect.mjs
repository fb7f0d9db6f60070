// Deciding what to serve from what a Qwen Code bundle's code is, not from its
// version number. For each provider the preload replaces one of Qwen's
// functions (with everything it reaches) and keeps the rest of Qwen's
// pipeline around it:
//
//   anthropic  replaces AnthropicContentGenerator.processStream
//              (packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts);
//              keeps generateContentStream, which it wraps to get the raw body.
//   openai     replaces the per-chunk converter the pipeline calls
//              (OpenAIContentConverter.convertOpenAIChunkToGemini, renamed
//              convertOpenAIChunkToLlm; openaiContentGenerator/converter.ts) and the
//              StreamingToolCallParser the pipeline gives it
//              (openaiContentGenerator/streamingToolCallParser.ts); keeps
//              ContentGenerationPipeline.processStreamWithLogging and
//              executeStream (pipeline.ts), which it wraps.
//   openaiResponses  replaces the SSE parsing and per-event conversion of
//              ResponsesPipeline.iterateBody
//              (openaiResponsesContentGenerator/responses-pipeline.ts:
//              convertResponsesEventToGemini and ResponsesStreamState, in
//              responses-converter.ts), from
//              0.23.3 on; keeps iterateBody's reads (readChunk's idle and
//              lifetime guards, the reader's cancel) and the rest of the
//              pipeline (connect, retries, mergeStreamResponses).
//
// A replaced function is served only when its fingerprint (fingerprint.mjs)
// is one whose behaviour the native converters reproduce (lib/generated/qwen-known-code.mjs, written by scripts/qwen-known-code.mjs);
// a kept function only when its contract — the parameters and names the
// wrapper relies on — is as the wrapper expects. Each provider is decided on
// its own: one whose code changed runs stock while the other is served.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Bundle, linesShared, methodParams } from './fingerprint.mjs';
import { KNOWN_CODE } from '../generated/qwen-known-code.mjs';
import { readCache, writeCache } from './cache.mjs';

/**
 * The names the preload takes from Qwen's bundle: its own classes, stores
 * and factories, which the native path calls instead of re-implementing.
 * They are where a fingerprint stops.
 */
export const HOOK_POINTS = [
  'AnthropicContentGenerator',
  'ContentGenerationPipeline',
  'OpenAIContentConverter',
  'GenerateContentResponse',
  'setToolCallPreparations',
  'getToolCallPreparations',
  'setGenAiUsageProvenance',
  'createOpenAIReasoningThoughtPart',
  'InvalidStreamError',
  'reportAnthropicEvent',
  'reportOpenAiChunk',
];

/**
 * Qwen's retry classifier (utils/retryErrorClassification.ts,
 * core/stream-transport-retry.ts), which the Anthropic processStream of
 * 0.23.0 onward calls before it releases held calls after a failed source;
 * the preload calls the same functions.
 */
export const CLASSIFIER_HOOK_POINTS = [
  'classifyRetryError',
  'isRetryableStreamTransportError',
  'isRetryableStatuslessUpstreamError',
];

/**
 * Qwen's OpenAI Responses generator (from 0.23.3): the class whose pipeline
 * the preload serves (openai-responses.mjs), and the error redaction its
 * pipeline throws conversion errors through (redactProxyError,
 * packages/core/src/utils/runtimeFetchOptions.ts), located from the
 * generator's own import of it. A release without the generator has neither
 * to serve.
 */
export const RESPONSES_HOOK_POINTS = ['OpenAIResponsesContentGenerator', 'redactProxyError'];

/** Names a fingerprint does not follow: the host functions the native path calls as Qwen's own. */
const KEPT = new Set([...HOOK_POINTS, ...CLASSIFIER_HOOK_POINTS, ...RESPONSES_HOOK_POINTS, 'StreamingToolCallParser']);

/**
 * Qwen's ACP card emitter (packages/cli/src/acp-integration/session/emitters/ToolCallEmitter.ts),
 * which live progress wraps (acp-progress.mjs), and the function that
 * computes Qwen's stream idle limit (packages/core/src/core/stream-guards.ts,
 * exported from 0.23; idle-limit.mjs), which a stalled card names; located
 * here with the rest.
 */
export const ACP_HOOK_POINTS = ['ToolCallEmitter', 'resolveStreamIdleTimeoutMs'];

/** Which table of known code a cached decision was made with. */
const KNOWN_CODE_HASH = createHash('sha256')
  .update(JSON.stringify([KNOWN_CODE, HOOK_POINTS, CLASSIFIER_HOOK_POINTS, ACP_HOOK_POINTS, RESPONSES_HOOK_POINTS]))
  .digest('hex')
  .slice(0, 16);

/** Every name looked up in the bundle's exports. */
const WANTED = [
  ...HOOK_POINTS,
  ...CLASSIFIER_HOOK_POINTS,
  'StreamingToolCallParser',
  ...ACP_HOOK_POINTS,
  'OpenAIResponsesContentGenerator',
];

/** Text that marks a chunk worth parsing for its `export { … }` block. */
const EXPORT_BLOCK = /\nexport \{([^}]*)\};?/g;

/** The names a chunk's `export { … }` blocks export (`a as b` exports b). */
function exportedNames(text) {
  const names = [];
  for (const m of text.matchAll(EXPORT_BLOCK)) {
    for (const item of m[1].split(',')) {
      const name = item
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.push(name);
    }
  }
  return names;
}

/**
 * Where each provider SDK's SSE decoder (its `Stream.fromSSEResponse` and
 * what that reaches) is bundled: esbuild marks each bundled module with a
 * comment naming its path.
 */
const SDK_STREAMING = {
  anthropic: /\/\/ node_modules\/\S*@anthropic-ai\/sdk\/(?:core\/)?streaming\.mjs\n/,
  openai: /\/\/ node_modules\/\S*\bopenai\/(?:core\/)?streaming\.mjs\n/,
};

/**
 * `{name: chunk file}` for each wanted name some chunk of the bundle exports,
 * and `{provider: {file, at}}` for each SDK's streaming module.
 */
export function findExporters(packageDir, wanted) {
  return scanBundle(packageDir, wanted).files;
}

/**
 * What findExporters finds (`files`, `sdk`), the number of `.js` chunks
 * (`scripts`), and whether a chunk read names the preparing seam (`seam`;
 * one that exports every wanted name does).
 */
function scanBundle(packageDir, wanted) {
  const chunksDir = path.join(packageDir, 'chunks');
  const files = {};
  const sdk = {};
  const rest = new Set(wanted);
  let scripts = 0;
  let seam = false;
  for (const f of fs.readdirSync(chunksDir).sort()) {
    if (!f.endsWith('.js')) continue;
    scripts++;
    if (rest.size === 0 && Object.keys(sdk).length === Object.keys(SDK_STREAMING).length) continue;
    const full = path.join(chunksDir, f);
    const text = fs.readFileSync(full, 'utf8');
    seam ||= text.includes(SEAM);
    for (const name of exportedNames(text)) if (rest.delete(name)) files[name] = full;
    for (const [provider, marker] of Object.entries(SDK_STREAMING)) {
      const m = sdk[provider] ? undefined : marker.exec(text);
      if (m) sdk[provider] = { file: full, at: m.index };
    }
  }
  return { files, sdk, scripts, seam };
}

/**
 * The tool-call preparing seam: Qwen's store of the preparations of the tool
 * calls a stream is still sending (setToolCallPreparations /
 * getToolCallPreparations), which the native converters fill. A bundle
 * without the name has nothing for them to serve.
 */
const SEAM = 'setToolCallPreparations';

/** The oldest release of the known code: the first published one with the seam. */
const FIRST_WITH_SEAM = Object.values(KNOWN_CODE)
  .flatMap((variants) => variants.flatMap((v) => v.seenIn.split(', ')))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];

const NO_SEAM = `this release has no tool-call preparing seam (Qwen Code has one from ${FIRST_WITH_SEAM} on)`;

/**
 * Why the bundle at `packageDir` is not one the preload can read, or
 * undefined when it is laid out as Qwen's from 0.21 on: cli.js importing its
 * code from `.js` files in chunks/ beside it (esbuild's code splitting).
 * Older releases are one cli.js without the seam; anything else says what was
 * expected and what was found.
 */
function layoutProblem(packageDir) {
  const chunksDir = path.join(packageDir, 'chunks');
  let found;
  try {
    if (fs.statSync(chunksDir).isDirectory()) return undefined;
    found = 'a file named chunks, not a folder,';
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    found = 'no chunks folder';
  }
  const cli = fs.readFileSync(path.join(packageDir, 'cli.js'), 'utf8');
  if (/["']\.\/chunks\//.test(cli))
    return `the bundle is incomplete: its cli.js imports its code from ./chunks/, and there is ${found} beside it`;
  if (!cli.includes(SEAM)) return NO_SEAM;
  return `the bundle is not laid out as Qwen Code's: expected cli.js beside a chunks folder of the code it imports, found ${found} beside a cli.js that holds all of its code`;
}

/**
 * The fingerprint of an SDK's SSE decoder: the first `Stream` class declared
 * after its streaming module's marker, from `fromSSEResponse`.
 */
function sdkDecoderFingerprint(bundle, where) {
  if (!where) return undefined;
  const chunk = bundle.chunk(where.file);
  for (const [name, d] of chunk.declarations) {
    if (d.start < where.at || !/^Stream\d*$/.test(name)) continue;
    if (!chunk.classBody(name)) continue;
    return bundle.fingerprint({ file: where.file, className: name, name: 'fromSSEResponse' }, { stop: KEPT });
  }
  return undefined;
}

/** The local name a chunk exports as `exported`. */
const localOf = (bundle, file, exported) => bundle.chunk(file).exports.get(exported) ?? exported;

/** Walks an AST node, calling `f` on every node. */
function walk(node, f) {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((n) => walk(n, f));
  if (typeof node.type === 'string') f(node);
  for (const key of Object.keys(node)) if (key !== 'type') walk(node[key], f);
}

/** The members of `objectName` a class method reads, as `objectName.member`. */
function membersRead(bundle, file, className, method, objectName) {
  const cls = bundle.chunk(file).classBody(className);
  const m = cls?.body.body.find((d) => d.type === 'MethodDefinition' && d.key.name === method);
  const names = new Set();
  walk(m, (n) => {
    if (
      n.type === 'MemberExpression' &&
      !n.computed &&
      n.object.type === 'Identifier' &&
      n.object.name.replace(/\d+$/, '') === objectName
    )
      names.add(n.property.name);
  });
  return [...names];
}

/** Where the function stored under `property` of an exported object literal is declared. */
function propertyFunction(bundle, file, objectName, property) {
  const chunk = bundle.chunk(file);
  const d = chunk.declarations.get(objectName);
  const init = d?.type === 'VariableDeclarator' ? d.init : undefined;
  if (init?.type !== 'ObjectExpression') return undefined;
  const prop = init.properties.find(
    (p) => p.type === 'Property' && !p.computed && (p.key.name ?? p.key.value) === property,
  );
  return prop?.value.type === 'Identifier' ? prop.value.name : undefined;
}

/**
 * The known variants closest to the fingerprint `fp` (the most of their lines
 * shared: linesShared), more than one when they tie, with the share and the
 * functions that differ from them. Ranked by lines, not by how many functions
 * differ: a change to the replaced function itself makes it differ from every
 * variant, and the lines of what changed still tell them apart.
 */
function closestVariants(variants, fp) {
  const lines = fp.lines();
  let best = [];
  let bestShare = -1;
  for (const variant of variants) {
    const known = Object.fromEntries(Object.entries(variant.lines).map(([name, l]) => [name, l ? l.split(' ') : []]));
    const share = linesShared(lines, known);
    if (share > bestShare) [best, bestShare] = [[variant], share];
    else if (share === bestShare) best.push(variant);
  }
  const names = new Set(Object.keys(fp.functions));
  for (const variant of best) for (const name of Object.keys(variant.functions)) names.add(name);
  const changed = [...names].filter((n) => best.some((variant) => variant.functions[n] !== fp.functions[n]));
  return { closest: best, share: bestShare, changed };
}

/**
 * One line naming what changed: the replaced function, the closest known
 * code, and the functions of it that differ. `known` is the table of known
 * code (its `kind` variants are compared).
 */
export function changedReason(target, kind, fp, known = KNOWN_CODE) {
  const { closest, share, changed } = closestVariants(known[kind] ?? [], fp);
  const shown = changed.slice(0, 3).join(', ') + (changed.length > 3 ? `, +${changed.length - 3} more` : '');
  // Rounded down, so code that differs never reads as 100%.
  const percent = `${Math.floor(share * 1000) / 10}%`;
  const releases = closest.map((v) => `Qwen Code ${v.seenIn}`);
  const near =
    closest.length === 0
      ? ''
      : closest.length === 1
        ? ` (closest known code: ${releases[0]}, ${percent} of its lines; differs in ${shown})`
        : ` (closest known code: a tie between ${releases.join(' and ')}, ${percent} of the lines of each; differs in ${shown})`;
  return `${target} is code this package does not know${near}`;
}

/** The served variant of `kind` with this fingerprint, or undefined. */
const knownVariant = (kind, hash) => (KNOWN_CODE[kind] ?? []).find((v) => v.hash === hash);

/**
 * The Anthropic side's code: the kept contract it needs, and the fingerprint
 * of what it replaces. Throws when the bundle is not shaped as expected.
 */
function readAnthropic(bundle, files, sdk) {
  const file = files.AnthropicContentGenerator;
  const className = localOf(bundle, file, 'AnthropicContentGenerator');
  const params = methodParams(bundle, file, className, 'processStream');
  if (!params) return { contract: 'AnthropicContentGenerator.processStream is missing' };
  // Kept: generateContentStream asks this.client.messages for the stream.
  if (!methodParams(bundle, file, className, 'generateContentStream'))
    return { contract: 'AnthropicContentGenerator.generateContentStream is missing' };
  // processStream(stream, telemetryAttempt): the wrapper reads the attempt.
  if (params[1] !== 'telemetryAttempt')
    return { contract: `AnthropicContentGenerator.processStream's parameters moved: (${params.join(', ')})` };
  return {
    fingerprint: bundle.fingerprint({ file, className, name: 'processStream' }, { stop: KEPT }),
    decoder: sdkDecoderFingerprint(bundle, sdk.anthropic),
  };
}

/** The OpenAI side's code: its kept contract, and the fingerprints of what it replaces. */
function readOpenAI(bundle, files, sdk) {
  const pipelineFile = files.ContentGenerationPipeline;
  const pipeline = localOf(bundle, pipelineFile, 'ContentGenerationPipeline');
  const params = methodParams(bundle, pipelineFile, pipeline, 'processStreamWithLogging');
  if (!params) return { contract: 'ContentGenerationPipeline.processStreamWithLogging is missing' };
  if (!methodParams(bundle, pipelineFile, pipeline, 'executeStream'))
    return { contract: 'ContentGenerationPipeline.executeStream is missing' };
  // (stream, context, …, telemetryAttempt): the telemetry attempt moved from
  // the 5th to the 6th parameter in 0.24.0; the wrapper reads it by position.
  const telemetryArg = params.indexOf('telemetryAttempt');
  if (params[0] !== 'stream' || params[1] !== 'context' || telemetryArg < 0)
    return {
      contract: `ContentGenerationPipeline.processStreamWithLogging's parameters moved: (${params.join(', ')})`,
    };
  // Which converter the pipeline calls, and so which one is replaced.
  const converters = localOf(bundle, files.OpenAIContentConverter, 'OpenAIContentConverter');
  const called = membersRead(
    bundle,
    pipelineFile,
    pipeline,
    'processStreamWithLogging',
    converters.replace(/\d+$/, ''),
  );
  if (called.length !== 1)
    return {
      contract: `ContentGenerationPipeline.processStreamWithLogging calls ${called.length ? called.map((c) => `OpenAIContentConverter.${c}`).join(' and ') : 'no OpenAIContentConverter function'}`,
    };
  const convertName = called[0];
  const local = propertyFunction(bundle, files.OpenAIContentConverter, converters, convertName);
  if (!local) return { contract: `OpenAIContentConverter.${convertName} is not a function of the converter module` };
  const parserFile = files.StreamingToolCallParser ?? pipelineFile;
  return {
    convertName,
    telemetryArg,
    fingerprint: bundle.fingerprint({ file: files.OpenAIContentConverter, name: local }, { stop: KEPT }),
    parserFingerprint: bundle.fingerprint(
      { file: parserFile, name: localOf(bundle, parserFile, 'StreamingToolCallParser') },
      { stop: KEPT },
    ),
    decoder: sdkDecoderFingerprint(bundle, sdk.openai),
  };
}

/** The first `new X()` assigned to `this.<field>` in a class's constructor: X's name. */
function constructedField(bundle, file, className, field) {
  const ctor = bundle
    .chunk(file)
    .classBody(className)
    ?.body.body.find((d) => d.type === 'MethodDefinition' && d.kind === 'constructor');
  let found;
  walk(ctor, (n) => {
    if (
      found === undefined &&
      n.type === 'AssignmentExpression' &&
      n.left.type === 'MemberExpression' &&
      n.left.object.type === 'ThisExpression' &&
      n.left.property.name === field &&
      n.right.type === 'NewExpression' &&
      n.right.callee.type === 'Identifier'
    )
      found = n.right.callee.name;
  });
  return found;
}

/** The arguments of the first `this.<method>(…)` call in a class method, or undefined. */
function callArguments(bundle, file, className, method, callee) {
  const cls = bundle.chunk(file).classBody(className);
  const m = cls?.body.body.find((d) => d.type === 'MethodDefinition' && d.key.name === method);
  let found;
  walk(m, (n) => {
    if (
      found === undefined &&
      n.type === 'CallExpression' &&
      n.callee.type === 'MemberExpression' &&
      n.callee.object.type === 'ThisExpression' &&
      n.callee.property.name === callee
    )
      found = n.arguments;
  });
  return found;
}

/** The chunk file a chunk imports `name` from (its `import { name } from "./…"`), or undefined. */
function importedFrom(bundle, file, name) {
  for (const imp of bundle.chunk(file).imports.values())
    if (imp.imported === name && imp.source.startsWith('.')) return path.resolve(path.dirname(file), imp.source);
  return undefined;
}

/**
 * The OpenAI Responses side's code (Qwen Code 0.23.3 on): `{absent: true}`
 * in a release without the generator; else its kept contract — the
 * generator's pipeline (`this.pipeline = new ResponsesPipeline(…)`), whose
 * connectStream hands iterateBody(reader, streamState, signal) a fresh
 * stream state, and the redactProxyError the generator imports — and the
 * fingerprints of what it replaces: iterateBody with what it reaches
 * (convertResponsesEventToGemini and the rest), and the stream state class,
 * whose methods the conversion calls.
 */
function readResponses(bundle, files) {
  const file = files.OpenAIResponsesContentGenerator;
  if (file === undefined) return { absent: true };
  const generator = localOf(bundle, file, 'OpenAIResponsesContentGenerator');
  if (!methodParams(bundle, file, generator, 'generateContentStream'))
    return { contract: 'OpenAIResponsesContentGenerator.generateContentStream is missing' };
  const pipeline = constructedField(bundle, file, generator, 'pipeline');
  if (!pipeline) return { contract: "OpenAIResponsesContentGenerator's constructor builds no pipeline" };
  const params = methodParams(bundle, file, pipeline, 'iterateBody');
  if (!params) return { contract: `${pipeline}.iterateBody is missing` };
  if (params.join(', ') !== 'reader, streamState, signal')
    return { contract: `${pipeline}.iterateBody's parameters moved: (${params.join(', ')})` };
  const args = callArguments(bundle, file, pipeline, 'connectStream', 'iterateBody');
  const state = args?.[1]?.type === 'NewExpression' ? args[1].callee.name : undefined;
  if (args?.length !== 3 || !state)
    return { contract: `${pipeline}.connectStream does not call iterateBody(reader, new …StreamState(), signal)` };
  const redact = importedFrom(bundle, file, 'redactProxyError');
  if (!redact) return { contract: 'the OpenAI Responses generator does not import redactProxyError' };
  return {
    pipeline: pipeline.replace(/\d+$/, ''),
    redactProxyError: redact,
    fingerprint: bundle.fingerprint({ file, className: pipeline, name: 'iterateBody' }, { stop: KEPT }),
    stateFingerprint: bundle.fingerprint({ file, name: state }, { stop: KEPT }),
  };
}

/**
 * The raw-body path replaces the SDK's SSE decoding too: a known decoder, or
 * a reason. What the SDK's decoder does that the native one must follow is
 * in its variant (`lastFrameNeedsMoreBytes`).
 */
function decoderVariant(kind, fp, sdkName) {
  if (!fp) return { reason: `the ${sdkName} SDK's SSE decoder (Stream.fromSSEResponse) was not found in the bundle` };
  const variant = knownVariant(kind, fp.hash);
  return variant ?? { reason: changedReason(`the ${sdkName} SDK's Stream.fromSSEResponse`, kind, fp) };
}

function decideAnthropic(bundle, files, sdk) {
  const code = readAnthropic(bundle, files, sdk);
  if (code.contract) return { served: false, reason: code.contract };
  const fp = code.fingerprint;
  const variant = knownVariant('anthropic', fp.hash);
  if (!variant)
    return {
      served: false,
      fingerprint: fp.hash,
      reason: changedReason('AnthropicContentGenerator.processStream', 'anthropic', fp),
    };
  const decoder = decoderVariant('anthropicDecoder', code.decoder, 'Anthropic');
  if (decoder.reason) return { served: false, fingerprint: fp.hash, reason: decoder.reason };
  return {
    served: true,
    fingerprint: fp.hash,
    profile: variant.profile,
    heldCallRelease: variant.heldCallRelease,
    lastFrameNeedsMoreBytes: decoder.lastFrameNeedsMoreBytes,
    seenIn: variant.seenIn,
  };
}

function decideOpenAI(bundle, files, sdk) {
  const code = readOpenAI(bundle, files, sdk);
  if (code.contract) return { served: false, reason: code.contract };
  const fingerprint = `${code.fingerprint.hash}/${code.parserFingerprint.hash}`;
  const convert = knownVariant('openai', code.fingerprint.hash);
  const parser = knownVariant('openaiParser', code.parserFingerprint.hash);
  if (!convert)
    return {
      served: false,
      fingerprint,
      reason: changedReason(`OpenAIContentConverter.${code.convertName}`, 'openai', code.fingerprint),
    };
  if (!parser || parser.profile !== convert.profile)
    return {
      served: false,
      fingerprint,
      reason: changedReason('StreamingToolCallParser', 'openaiParser', code.parserFingerprint),
    };
  const decoder = decoderVariant('openaiDecoder', code.decoder, 'OpenAI');
  if (decoder.reason) return { served: false, fingerprint, reason: decoder.reason };
  if (decoder.lastFrameNeedsMoreBytes)
    return { served: false, fingerprint, reason: "the OpenAI SDK's SSE decoder holds a frame back" };
  return {
    served: true,
    fingerprint,
    profile: convert.profile,
    convertName: code.convertName,
    telemetryArg: code.telemetryArg,
    seenIn: convert.seenIn,
  };
}

/** A release without the Responses generator: nothing to serve, and nothing to say. */
const NO_RESPONSES = {
  served: false,
  absent: true,
  reason: 'this release has no OpenAI Responses generator (Qwen Code has one from 0.23.3 on)',
};

function decideResponses(bundle, files) {
  const code = readResponses(bundle, files);
  if (code.absent) return NO_RESPONSES;
  if (code.contract) return { served: false, reason: code.contract };
  const fingerprint = `${code.fingerprint.hash}/${code.stateFingerprint.hash}`;
  const convert = knownVariant('openaiResponses', code.fingerprint.hash);
  const state = knownVariant('openaiResponsesState', code.stateFingerprint.hash);
  if (!convert)
    return {
      served: false,
      fingerprint,
      reason: changedReason(`${code.pipeline}.iterateBody`, 'openaiResponses', code.fingerprint),
    };
  if (!state || state.profile !== convert.profile)
    return {
      served: false,
      fingerprint,
      reason: changedReason('ResponsesStreamState', 'openaiResponsesState', code.stateFingerprint),
    };
  return {
    served: true,
    fingerprint,
    profile: convert.profile,
    redactProxyError: code.redactProxyError,
    seenIn: convert.seenIn,
  };
}

/**
 * The fingerprints of what the preload replaces in the bundle at `pkg.dir`:
 * `{anthropic, openai, openaiParser, …}`, each `{hash, functions}` (the
 * Responses generator's only where the release has it). Throws when
 * the bundle lacks them (scripts/qwen-known-code.mjs records them).
 */
export function fingerprintsOf(pkg) {
  const { files, sdk } = scanBundle(pkg.dir, WANTED);
  const bundle = new Bundle(pkg.dir);
  const a = readAnthropic(bundle, files, sdk);
  const o = readOpenAI(bundle, files, sdk);
  const r = readResponses(bundle, files);
  if (a.contract || o.contract || r.contract) throw new Error(a.contract ?? o.contract ?? r.contract);
  if (!a.decoder || !o.decoder) throw new Error("a provider SDK's SSE decoder was not found");
  return {
    anthropic: a.fingerprint,
    anthropicDecoder: a.decoder,
    openai: o.fingerprint,
    openaiParser: o.parserFingerprint,
    openaiDecoder: o.decoder,
    ...(r.absent ? {} : { openaiResponses: r.fingerprint, openaiResponsesState: r.stateFingerprint }),
  };
}

/** Runs `decide`, turning an unexpected shape of the bundle into a stock decision. */
function guarded(decide, bundle, files, sdk) {
  try {
    return decide(bundle, files, sdk);
  } catch (err) {
    return { served: false, reason: `the bundle could not be read: ${err.message}` };
  }
}

/**
 * What to serve in the Qwen Code at `packageDir` (`{dir, version}` of its
 * package): `{hookPoints: {name: file}, anthropic, openai, openaiResponses}`, where each
 * provider is `{served: true, profile, …}` or `{served: false, reason}`.
 * Read from the cache when this bundle was inspected before by this version
 * of the package. Never throws: an unreadable bundle serves nothing.
 */
export function inspectQwen(pkg, { cache = true } = {}) {
  if (cache) {
    const hit = readCache(pkg.dir, KNOWN_CODE_HASH);
    if (hit) return hit;
  }
  let decision;
  // The chunks whose code the decision reads (the hook points' and those its
  // fingerprints were taken from): the cache is keyed on them.
  const read = [];
  let bundle;
  const stock = (reason, hookPoints = {}) => ({
    hookPoints,
    anthropic: { served: false, reason },
    openai: { served: false, reason },
    // A bundle read through that has no Responses generator: nothing there to run stock.
    openaiResponses: scanned && !files.OpenAIResponsesContentGenerator ? NO_RESPONSES : { served: false, reason },
  });
  let files = {};
  let scanned = false;
  try {
    const layout = layoutProblem(pkg.dir);
    const scan = layout ? undefined : scanBundle(pkg.dir, WANTED);
    files = scan?.files ?? {};
    scanned = scan !== undefined;
    const sdk = scan?.sdk;
    read.push(...Object.values(files));
    const missing = HOOK_POINTS.filter((n) => !files[n]);
    if (layout) decision = stock(layout);
    else if (scan.scripts === 0)
      decision = stock(
        "the bundle is not laid out as Qwen Code's: expected its code in .js files in chunks beside cli.js, found none",
      );
    else if (!scan.seam) decision = stock(NO_SEAM, files);
    else if (missing.length) decision = stock(`the bundle does not export ${missing.join(', ')}`, files);
    else {
      bundle = new Bundle(pkg.dir);
      decision = {
        hookPoints: files,
        anthropic: guarded(decideAnthropic, bundle, files, sdk),
        openai: guarded(decideOpenAI, bundle, files, sdk),
        openaiResponses: guarded(decideResponses, bundle, files, sdk),
      };
      // The Responses generator's redactProxyError is imported from where the generator imports it.
      if (decision.openaiResponses.redactProxyError) {
        decision.hookPoints = { ...files, redactProxyError: decision.openaiResponses.redactProxyError };
        read.push(decision.openaiResponses.redactProxyError);
      }
    }
  } catch (err) {
    decision = stock(`the bundle could not be read: ${err.message}`);
  }
  if (cache) writeCache(pkg.dir, KNOWN_CODE_HASH, decision, [...read, ...(bundle?.files ?? [])]);
  return decision;
}
