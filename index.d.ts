// Public types of `toolcall-stream` (hand-written; the generated lib/generated/binding.d.ts
// describes the internal native layer only). The ACP tool-card types live in
// lib/acp.d.ts and are re-exported from here.
//
// Responses are typed as `GenerateContentResponse` from `@google/genai`, an
// optional peer dependency. With it installed, the converters return real
// instances (so `response.text` and `response.functionCalls` work). Without it
// they return plain objects with the same JSON, and TypeScript cannot resolve
// the type: install `@google/genai` for the types (a dev dependency is enough),
// or set `skipLibCheck`, under which the responses are typed `any`.

import type { GenerateContentResponse } from '@google/genai';

export type { GenerateContentResponse };
export * from './lib/acp.js';

/**
 * A tool call announced before its arguments stream in (docs/behaviour.md §5.1). Frozen. `callId`
 * is a string, except under a host's `jsToolCallIds`, where it is the id as it came.
 */
export interface ToolCallPreparation {
  readonly callId: string;
  readonly toolName: string;
}

/** The preparations attached to a response, out of band; `[]` when none. */
export declare function getToolCallPreparations(response: object): readonly ToolCallPreparation[];

/** Attaches preparations to a response, overwriting any; `[]` clears. */
export declare function setToolCallPreparations(response: object, preparations: readonly ToolCallPreparation[]): void;

/** One open call's argument progress: counts only, never content. */
export interface ArgumentProgress {
  /** As the call's preparation named it. */
  readonly callId: string;
  readonly toolName: string;
  /** UTF-8 bytes of the call's argument text received so far. */
  readonly argumentBytes: number;
  /** Line breaks (`\n` escapes) inside the argument's string values so far. */
  readonly argumentLines: number;
}

/** What a converter reports of its open calls, read at the moment of asking. */
export interface ArgumentProgressSnapshot {
  /** Grows with every input the converter took (events, chunks, reads; pings and keep-alive reads too). */
  readonly received: number;
  /** Whether `received` counts keep-alives: once the converter took raw bytes (the SDKs drop them before any object exists). */
  readonly keepAlivesVisible: boolean;
  /** Each open call whose preparation the converter yielded; none once it is finished. */
  readonly calls: readonly ArgumentProgress[];
}

/**
 * The argument progress of the converter that made `response` (a response
 * with preparations), read now; `null` for a response no converter of this
 * package made with preparations.
 */
export declare function getToolCallProgress(response: object): ArgumentProgressSnapshot | null;

/**
 * Where a response's usage numbers came from, as Qwen Code records it for its
 * telemetry (`setGenAiUsageProvenance`). Attached out of band to the
 * `usageMetadata` object (so it follows that object), never serialised. Frozen.
 */
export interface UsageProvenance {
  /** The provider reported a cached-input count (Anthropic `cache_read_input_tokens`; OpenAI `prompt_tokens_details.cached_tokens` or `cached_tokens`). */
  readonly cachedInputTokensReported: boolean;
  /** Anthropic only (the key is always there): the cache-creation count when the provider reported `cache_creation_input_tokens`, else `undefined`. */
  readonly cacheCreationInputTokens?: number | undefined;
}

/** The usage provenance of a response (of its `usageMetadata`), or of a `usageMetadata` object itself; undefined when none. */
export declare function getUsageProvenance(responseOrUsage: object): UsageProvenance | undefined;

/**
 * Whether `part` is an OpenAI reasoning thought: a `{text, thought: true}` part
 * made from `reasoning_content` / `reasoning` (Qwen Code marks these with a
 * non-enumerable symbol; its thought summary then skips `**subject**` parsing).
 * False for tagged (`<think>`) thoughts and Anthropic thinking.
 */
export declare function isReasoningPart(part: unknown): boolean;

/** Safety limits of one converter; absent keys keep the defaults. Each must be a number >= 1. */
export interface ConverterLimits {
  /** Bytes of one tool call's accumulated arguments. */
  maxCallBytes?: number;
  /** Bytes buffered for an incomplete SSE event or JSON text. */
  maxBufferedBytes?: number;
  /**
   * Nesting depth (objects, arrays, `f(` calls) that JSON repair of broken arguments accepts;
   * deeper is `LIMIT_EXCEEDED`. Default: no limit (the repair does not recurse; past the
   * reference's own JS stack it gives the reference's fallback `{}`).
   */
  maxRepairDepth?: number;
}

/**
 * Which published Qwen Code release the converter behaves as. `'qwen-0.21'`
 * (the default): 0.21.2. `'qwen-0.24'`: 0.24.4, whose Anthropic path holds
 * tool calls until `message_delta` carries a stop reason, takes arguments
 * only when `JSON.parse` gives an object, throws `MALFORMED_TOOL_CALL` for a
 * call it cannot confirm complete and drops truncated calls on `max_tokens`.
 * The OpenAI path differs only under `responseParsing.contentOnlyThinkingTagLeaks`
 * (0.24.4 never releases a whole opening tag and fails on an unclosed one).
 */
export type Profile = 'qwen-0.21' | 'qwen-0.24';

/**
 * The embedding API: a host application's own classes, so what the converters
 * return is what the host's own converters would have returned. Every field
 * is optional.
 */
export interface ConverterHost {
  /** Responses are `new GenerateContentResponse()` of the host's copy of @google/genai. */
  GenerateContentResponse?: new () => object;
  /** The host's preparation store: `set` receives each response that carries preparations (this package's store has them too). */
  preparations?: { set(response: object, preparations: readonly ToolCallPreparation[]): void };
  /** The host's usage-provenance store: `set` receives each `usageMetadata` object and its provenance (this package's store has them too). */
  usageProvenance?: { set(usageMetadata: object, provenance: UsageProvenance): void };
  /** Builds an OpenAI reasoning thought part (`{text, thought: true}` with the host's own marker, e.g. Qwen's `createOpenAIReasoningThoughtPart`); `isReasoningPart` is true for it too. */
  createReasoningPart?: (text: string) => object;
  /** Maps this package's error to the host's (e.g. its `InvalidStreamError`); any other return value keeps the original. */
  createError?: (error: ToolCallStreamError) => Error;
  /** Called with every SDK event / chunk object, and every response body object, before it is converted (telemetry); not for text or raw bytes. */
  onEvent?: (event: unknown) => void;
  /**
   * `'qwen-0.24'` Anthropic generator: whether a failed source (or the
   * `STREAM_ERROR` of an in-band `error` event, the SDK's error in the
   * reference) is one after which 0.24.4 yields the held calls confirmed
   * complete (Qwen: `isRetryableStreamTransportError(classifyRetryError(e)) ||
   * isRetryableStatuslessUpstreamError(…)`). Default: a retryable transport code.
   */
  isRetryableUpstreamError?: (error: unknown) => boolean | Promise<boolean>;
  /**
   * OpenAI tool-call ids of any type, as the host's own JS parser takes them: every truthy `id`
   * (`true`, a number, an object) is the call's id, compared as `Map` and `===` compare it, and
   * preparations and function calls carry it as it came. Off (the default): ids are strings,
   * a number by its text, and ids of other types are ignored. The Qwen preload turns it on.
   */
  jsToolCallIds?: boolean;
}

/**
 * Qwen Code's `responseParsingOptions` (what an OpenAI-compatible provider's
 * `getResponseParsingOptions(model)` returns), for the OpenAI converter. An
 * option that is on and not listed here is INVALID_ARGUMENT; options that are
 * off are ignored whatever their name.
 */
export interface ResponseParsingOptions {
  /** The content-only thinking-tag leak guard (DashScope; every model of the default provider in 0.24.4). */
  contentOnlyThinkingTagLeaks?: boolean;
  /** `<think>…</think>` in content becomes thought parts; reasoning is buffered (MiniMax). */
  taggedThinkingTags?: boolean;
  /** After structured reasoning, content opening with a thinking tag is parsed for thoughts; an unclosed one is a leak (0.24.4, qwen3 models). */
  taggedThinkingTagsAfterReasoning?: boolean;
  /** Any other option: must be off. */
  [option: string]: unknown;
}

export interface ConverterOptions {
  /**
   * @deprecated Ignored: neither Qwen Code release puts a configured model in
   * a response (Anthropic `modelVersion` comes from `message_start` only,
   * OpenAI's from each chunk). Still checked to be a string.
   */
  model?: string;
  limits?: ConverterLimits;
  /** Default `'qwen-0.21'`; any other value throws `INVALID_ARGUMENT`. */
  profile?: Profile;
  host?: ConverterHost;
  /** OpenAI converter only: the provider's response parsing (ignored by the Anthropic converter). */
  responseParsing?: ResponseParsingOptions;
  /**
   * OpenAI converter only. Qwen's pipeline check before its converter: a
   * chunk whose `finish_reason` is `'error_finish'` throws a
   * `StreamContentError` (code `STREAM_ERROR`, fatal; message: the delta's
   * trimmed content or `'Unknown stream error'`) before it is converted, in
   * every input form. Default `false`: the converter converts it, as Qwen's
   * converter does. `convertOpenAIStream` always turns it on.
   */
  throwOnErrorFinish?: boolean;
  /**
   * OpenAI converter only. The SSE paths (`pushBytes`, `end`) leave out the
   * responses Qwen's pipeline drops unseen (`processStreamWithLogging`'s
   * empty filter: no part, no finish reason, no usage, no tool-call
   * preparation); they are never built, so the per-argument chunks of a
   * streamed tool call cost almost nothing. `pushChunk` still returns exactly
   * one response. Default `false`. `convertOpenAIStream` always turns it on
   * (its pipeline stage drops the same responses).
   */
  dropEmptyResponses?: boolean;
}

export interface OpenAIStreamOptions extends ConverterOptions {
  /**
   * The request's AbortSignal (Qwen's `request.config.abortSignal`), read when
   * something fails: aborted, the source's error is rethrown as it is (and
   * under `'qwen-0.24'` a held finish is not yielded); otherwise a source
   * error while a closing thinking-tag candidate is pending becomes
   * `PROTOCOL_TAG_LEAK`. The generator does not abort the source itself.
   */
  signal?: AbortSignal | { readonly aborted: boolean };
}

/** Raw bytes of a provider's SSE body, in any split. */
export type StreamBytes = Uint8Array | ArrayBuffer | string;

/** One Anthropic Messages request: Qwen Code's `processStream` state. */
export declare class AnthropicConverter {
  constructor(options?: ConverterOptions);
  /** One SDK stream event (object or its JSON text) → the chunks it yields, in order. */
  pushEvent(event: object | string): GenerateContentResponse[];
  /** Raw SSE bytes of the HTTP body, split anywhere. */
  pushBytes(data: StreamBytes): GenerateContentResponse[];
  /** End of input; the converter is finished afterwards. */
  end(): GenerateContentResponse[];
  /** Releases the native state now (an abandoned stream); later calls throw `FINISHED`. */
  free(): void;
  /**
   * How far each open call whose preparation this converter yielded has
   * come, read now (counts only). Meant for a timer's pace, not per input.
   */
  argumentProgress(): ArgumentProgressSnapshot;
  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished(): boolean;
  /**
   * The event source (SDK iterator or HTTP body) threw `error`: the responses
   * to yield before rethrowing it. Under `'qwen-0.24'` these are the held
   * calls, when `error` is a retryable stream transport error (a code such as
   * `ECONNRESET` on it or its causes, no HTTP status below 500) and each call
   * was confirmed complete; otherwise none. The converter is finished
   * afterwards. `classification.retryable` is the host's own answer (an
   * in-band `error` event's `STREAM_ERROR` is classified only that way).
   * `convertAnthropicStream` does this itself (asking `host.isRetryableUpstreamError`).
   */
  upstreamFailed(error: unknown, classification?: { retryable: boolean }): GenerateContentResponse[];
  /**
   * True once `end()` has returned for a stream none of whose chunks carried a
   * finish reason or a part with text, a thought, a thought signature or a
   * function call (preparation-only and usage-only chunks do not count). Qwen
   * Code then sends the request again without streaming
   * (`processStreamWithEmptyFallback`); convert that answer with
   * `convertAnthropicResponse`. False before `end()` and after a failed stream.
   */
  get emptyStream(): boolean;
}

/** One OpenAI-compatible request: Qwen Code's request context and StreamingToolCallParser. */
export declare class OpenAIConverter {
  /** `profile` matters only under `responseParsing.contentOnlyThinkingTagLeaks`, whose rules differ between releases. */
  constructor(options?: ConverterOptions);
  /** One `chat.completion.chunk` (object or its JSON text) → exactly one response (`convertOpenAIChunkToGemini`). */
  pushChunk(chunk: object | string): GenerateContentResponse;
  /**
   * Raw SSE bytes: one response per `data:` event, as `pushChunk` converts it;
   * `[DONE]` ends. An in-band `{"error": …}` payload is `STREAM_ERROR` (the
   * OpenAI SDK throws it).
   */
  pushBytes(data: StreamBytes): GenerateContentResponse[];
  /** End of input; the converter is finished afterwards. */
  end(): GenerateContentResponse[];
  /** Releases the native state now (an abandoned stream); later calls throw `FINISHED`. */
  free(): void;
  /**
   * How far each open call whose preparation this converter yielded has
   * come, read now (counts only). Meant for a timer's pace, not per input.
   */
  argumentProgress(): ArgumentProgressSnapshot;
  /** True after `end()`, after a fatal error, or after `free()`. */
  get finished(): boolean;
}

export interface OpenAIResponsesConverterOptions {
  /** Qwen's configured model (`this.config.model`): every chunk's `modelVersion`. */
  model?: string;
  /** `'qwen-0.24'` (default: Qwen Code 0.23.4 to 0.24.4) or `'qwen-0.23.3'` (text parts without `responsesMessage`). */
  profile?: 'qwen-0.23.3' | 'qwen-0.24';
  /**
   * A preparation-only chunk as each function call opens
   * (`response.output_item.added` with a non-empty `call_id` and `name`), once
   * per call id. Default `false`: stock Qwen yields none, and the output is
   * stock's byte for byte.
   */
  preparations?: boolean;
  limits?: ConverterLimits;
  host?: ConverterHost;
}

/**
 * One OpenAI Responses API request, as Qwen Code's `openai-responses`
 * generator converts it (`ResponsesPipeline.iterateBody` and
 * `convertResponsesEventToGemini`).
 */
export declare class OpenAIResponsesConverter {
  constructor(options?: OpenAIResponsesConverterOptions);
  /** Raw SSE bytes of the body, split anywhere, read with Qwen's own line parser. */
  pushBytes(data: StreamBytes): GenerateContentResponse[];
  /** One event object (`{type, …}`) or its JSON text → the responses it converts to (often none). */
  pushEvent(event: object | string): GenerateContentResponse[];
  /** End of input: the last unterminated `data:` line and an open frame are converted; finished afterwards. */
  end(): GenerateContentResponse[];
  /** The body failed: Qwen yields nothing more. Finished afterwards. */
  upstreamFailed(error: unknown, classification?: { retryable: boolean }): GenerateContentResponse[];
  /** Releases the native state now (an abandoned stream); later calls throw `FINISHED`. */
  free(): void;
  /** How far each open call whose preparation this converter yielded has come (counts only). */
  argumentProgress(): ArgumentProgressSnapshot;
  /** True after `end()`, after a fatal error, after `upstreamFailed()` or after `free()`. */
  get finished(): boolean;
}

/** A non-streaming response body: the parsed object, its JSON text, or the HTTP body's bytes. */
export type ResponseBody = object | string | Uint8Array | ArrayBuffer;

export interface AnthropicStreamOptions extends ConverterOptions {
  /**
   * Called once when the stream ended empty (see `AnthropicConverter.emptyStream`):
   * returns (or resolves to) the body of the same request sent without
   * streaming, which is converted with `convertAnthropicResponse` and yielded,
   * as Qwen Code's `processStreamWithEmptyFallback` does. What it throws is
   * rethrown as it is.
   */
  emptyFallback?: () => ResponseBody | Promise<ResponseBody>;
}

/**
 * Drop-in for Qwen Code's `AnthropicContentGenerator.processStream(stream)`
 * (with `emptyFallback`, `processStreamWithEmptyFallback`). When the source
 * throws, the error is rethrown unchanged, after the responses of
 * `AnthropicConverter.upstreamFailed` (`'qwen-0.24'` only).
 */
export declare function convertAnthropicStream(
  events: AsyncIterable<object | string | Uint8Array> | Iterable<object | string | Uint8Array>,
  options?: AnthropicStreamOptions,
): AsyncGenerator<GenerateContentResponse, void, undefined>;

/**
 * An Anthropic Messages API response (non-streaming `messages.create`) → one
 * response, as Qwen Code's `convertAnthropicResponseToGemini` builds it
 * (`'qwen-0.24'`: 0.24.4's `convertAnthropicResponseToLlm`, which maps
 * `refusal` to `SAFETY`). No preparations; the usage provenance is attached
 * as Qwen attaches it (`getUsageProvenance`). The object, its JSON text and
 * its bytes give the same response. A body the reference cannot convert is
 * `INVALID_RESPONSE`.
 */
export declare function convertAnthropicResponse(
  body: ResponseBody,
  options?: ConverterOptions,
): GenerateContentResponse;

/**
 * An OpenAI-compatible `chat.completion` (non-streaming) → one response, as
 * Qwen Code's `convertOpenAIResponseToGemini` builds it (docs/behaviour.md §3.4).
 * `responseParsing.taggedThinkingTags` parses `<think>` tags in the content;
 * the other parsing options apply to streams only. The thought made from the
 * message's `reasoning_content` / `reasoning` is a reasoning part
 * (`isReasoningPart`), and the usage provenance is attached
 * (`getUsageProvenance`), as in Qwen Code.
 */
export declare function convertOpenAIResponse(body: ResponseBody, options?: ConverterOptions): GenerateContentResponse;

/**
 * The OpenAI converter plus the pipeline stage of docs/behaviour.md §3.1 (the
 * `error_finish` check, empty filter, finish/usage merge) and its error
 * path: when the source, the converter or the stage fails, `InvalidStreamError`
 * and `StreamContentError` are rethrown as they are; under `'qwen-0.24'` a held
 * finish is yielded first (not after an abort, nor one holding a call before
 * any content was yielded); any other error while a closing thinking-tag
 * candidate is pending is `PROTOCOL_TAG_LEAK` unless `options.signal` is
 * aborted; else the error is rethrown unchanged. A merged finish response
 * keeps the preparations of both chunks (docs/behaviour.md §6.9.4, a deliberate
 * improvement over the reference).
 */
export declare function convertOpenAIStream(
  chunks: AsyncIterable<object | string | Uint8Array> | Iterable<object | string | Uint8Array>,
  options?: OpenAIStreamOptions,
): AsyncGenerator<GenerateContentResponse, void, undefined>;

/** The stable error codes; `code` is part of the public contract. */
export type ToolCallStreamErrorCode =
  | 'INVALID_JSON'
  | 'INVALID_UTF8'
  | 'INVALID_EVENT'
  | 'MALFORMED_TOOL_CALL'
  | 'PROTOCOL_TAG_LEAK'
  | 'STREAM_ERROR'
  | 'LIMIT_EXCEEDED'
  | 'FINISHED'
  | 'INVALID_ARGUMENT'
  | 'INVALID_RESPONSE'
  | 'INTERNAL';

/** An error of the host's own code: its constructor's name and V8's message. */
export interface HostError {
  name: 'TypeError';
  message: string;
}

export interface ToolCallStreamErrorInit {
  code: ToolCallStreamErrorCode;
  type?: string;
  /** `'InvalidStreamError'` / `'StreamContentError'` as the reference names them; default `'ToolCallStreamError'`. */
  name?: string;
  offset?: number;
  providerError?: unknown;
  providerEvent?: string;
  sseFrame?: string;
  hostError?: HostError;
  fatal?: boolean;
  responses?: GenerateContentResponse[];
}

/**
 * What the converters throw. `name` is the reference's error class name where
 * it has one (`InvalidStreamError`, `StreamContentError`), else
 * `'ToolCallStreamError'`.
 */
export declare class ToolCallStreamError extends Error {
  constructor(message: string, init?: ToolCallStreamErrorInit);
  code: ToolCallStreamErrorCode;
  /** The reference's `InvalidStreamError.type` (`MALFORMED_TOOL_CALL`, `PROTOCOL_TAG_LEAK`), when it has one. */
  type?: string;
  /** Byte offset into the caller's input, where it helps. */
  offset?: number;
  /** The provider's own error object (in-band `STREAM_ERROR`). */
  providerError?: unknown;
  /** The in-band error event's whole payload text as it arrived (non-enumerable), for handing to an SDK decoder. */
  readonly providerEvent?: string;
  /**
   * The SSE frame the SDK's decoder would have rejected or turned into an error, as that decoder
   * reads it (its `event:` line and one `data:` line per line of data; non-enumerable): replayed
   * through the SDK's own `Stream.fromSSEResponse`, it throws what the SDK throws.
   */
  readonly sseFrame?: string;
  /**
   * Where Qwen Code's own converter code fails on a value it reads unguarded (a property of
   * `null`, a method a number lacks), the error it throws: `{name: 'TypeError', message}` with
   * V8's message word for word. The Qwen preload throws exactly that; `code` and `message` stay
   * the package's own.
   */
  hostError?: HostError;
  /** The converter is finished: further calls throw `FINISHED`. */
  fatal: boolean;
  /** What the same call converted before the error (never lost). */
  responses: GenerateContentResponse[];
}

/** A plain response object → a `GenerateContentResponse` instance when `@google/genai` is installed (else the object itself). */
export declare function toResponse(plain: object): GenerateContentResponse;

/**
 * Diagnostic: native states (converters, card ledgers, preparation trackers, id tables) alive in
 * this process, on every thread, whose JS objects have not been collected and whose worker has
 * not exited.
 */
export declare function liveHandles(): number;
