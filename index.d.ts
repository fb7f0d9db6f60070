// Public types of `toolcall-stream` (hand-written; the generated binding.d.ts
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

/** A tool call announced before its arguments stream in (spec §5.1). Frozen. */
export interface ToolCallPreparation {
  readonly callId: string;
  readonly toolName: string;
}

/** The preparations attached to a response, out of band; `[]` when none. */
export declare function getToolCallPreparations(response: object): readonly ToolCallPreparation[];

/** Attaches preparations to a response, overwriting any; `[]` clears. */
export declare function setToolCallPreparations(response: object, preparations: readonly ToolCallPreparation[]): void;

/** Safety limits of one converter; absent keys keep the defaults. Each must be a number >= 1. */
export interface ConverterLimits {
  /** Bytes of one tool call's accumulated arguments. */
  maxCallBytes?: number;
  /** Bytes buffered for an incomplete SSE event or JSON text. */
  maxBufferedBytes?: number;
  /**
   * Nesting depth (objects, arrays, `f(` calls, `+` concatenations) that JSON repair of broken
   * arguments accepts; deeper is `LIMIT_EXCEEDED`. Default 512, at most 2048 (native stack).
   */
  maxRepairDepth?: number;
}

export interface ConverterOptions {
  /** The model name used until the stream names one (Anthropic `message_start`). */
  model?: string;
  limits?: ConverterLimits;
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
  /** True after `end()` or after a fatal error. */
  get finished(): boolean;
}

/** One OpenAI-compatible request: Qwen Code's request context and StreamingToolCallParser. */
export declare class OpenAIConverter {
  /** `model` is accepted for symmetry; OpenAI chunks name their model themselves. */
  constructor(options?: ConverterOptions);
  /** One `chat.completion.chunk` (object or its JSON text) → exactly one response (`convertOpenAIChunkToGemini`). */
  pushChunk(chunk: object | string): GenerateContentResponse;
  /** Raw SSE bytes: one response per `data:` event; `[DONE]` ends. */
  pushBytes(data: StreamBytes): GenerateContentResponse[];
  /** End of input; the converter is finished afterwards. */
  end(): GenerateContentResponse[];
  /** True after `end()` or after a fatal error. */
  get finished(): boolean;
}

/** Drop-in for Qwen Code's `AnthropicContentGenerator.processStream(stream)`. */
export declare function convertAnthropicStream(
  events: AsyncIterable<object> | Iterable<object>,
  options?: ConverterOptions,
): AsyncGenerator<GenerateContentResponse, void, undefined>;

/**
 * The OpenAI converter plus the pipeline stage of spec §3.1 (empty filter,
 * finish/usage merge). A merged finish response keeps the preparations of
 * both chunks (spec §6.9.4, a deliberate improvement over the reference).
 */
export declare function convertOpenAIStream(
  chunks: AsyncIterable<object> | Iterable<object>,
  options?: ConverterOptions,
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
  | 'INTERNAL';

export interface ToolCallStreamErrorInit {
  code: ToolCallStreamErrorCode;
  type?: string;
  /** `'InvalidStreamError'` / `'StreamContentError'` as the reference names them; default `'ToolCallStreamError'`. */
  name?: string;
  offset?: number;
  providerError?: unknown;
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
  /** The converter is finished: further calls throw `FINISHED`. */
  fatal: boolean;
  /** What the same call converted before the error (never lost). */
  responses: GenerateContentResponse[];
}

/** A plain response object → a `GenerateContentResponse` instance when `@google/genai` is installed (else the object itself). */
export declare function toResponse(plain: object): GenerateContentResponse;

/** Diagnostic: native states whose JS handle objects have not been collected yet. */
export declare function liveHandles(): number;
