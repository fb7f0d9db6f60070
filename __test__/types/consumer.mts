// A TypeScript consumer that uses every public API of `toolcall-stream`
// through `import`. Type-checked (never run) by __test__/package-types.test.mjs
// with `tsc --strict --noEmit`. The `@ts-expect-error` lines check that
// wrong uses are rejected, not only that right ones are accepted.
import {
  AnthropicConverter,
  OpenAIConverter,
  OpenAIResponsesConverter,
  PreparationTracker,
  ToolCallCards,
  ToolCallIds,
  ToolCallStreamError,
  consumeModelStream,
  convertAnthropicResponse,
  convertAnthropicStream,
  convertOpenAIResponse,
  convertOpenAIStream,
  getProviderToolCallId,
  getToolCallPreparations,
  getToolCallProgress,
  getUsageProvenance,
  isReasoningPart,
  liveHandles,
  setToolCallPreparations,
  toResponse,
} from 'toolcall-stream';
import type {
  ToolCallProgressFrame,
  DiscardReason,
  AnthropicStreamOptions,
  ArgumentProgressSnapshot,
  ResponseBody,
  ConsumeModelStreamOptions,
  ConsumeModelStreamResult,
  ConverterLimits,
  ConverterOptions,
  OpenAIStreamOptions,
  Profile,
  GenerateContentResponse,
  PlanFrame,
  PreparationEmitter,
  PreparationStartParams,
  SessionUpdate,
  StreamBytes,
  StreamEvent,
  ToolCallCardsOptions,
  ToolCallFrame,
  ToolCallLocation,
  ToolCallMeta,
  ToolCallPreparation,
  ToolCallResult,
  ToolCallStart,
  ToolCallStreamErrorCode,
  ToolCallStreamErrorInit,
  ToolCallUpdateFrame,
  ToolKind,
  UsageProvenance,
  ConverterHost,
} from 'toolcall-stream';
import toolcallStream from 'toolcall-stream';
import { GenerateContentResponse as GenAIResponse } from '@google/genai';

type IsAny<T> = 0 extends 1 & T ? true : false;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T => true as T;

// The responses are @google/genai's class, not `any` (an unresolved import would make them `any`).
assertType<Equal<IsAny<GenerateContentResponse>, false>>();
assertType<Equal<GenerateContentResponse, GenAIResponse>>();

// Preparations.
const limits: ConverterLimits = { maxCallBytes: 1 << 20, maxBufferedBytes: 1 << 22, maxRepairDepth: 64 };
const options: ConverterOptions = { model: 'claude-x', limits };
const anthropic = new AnthropicConverter(options);
new AnthropicConverter();
new AnthropicConverter({ model: 'm' });
const strict: Profile = 'qwen-0.24';
const strictConverter = new AnthropicConverter({ profile: strict, limits });
new OpenAIConverter({ profile: 'qwen-0.21' });
const held: GenerateContentResponse[] = strictConverter.upstreamFailed(new Error('socket hang up'));
// @ts-expect-error only the two profiles
new AnthropicConverter({ profile: 'qwen-0.22' });
const fromEvent: GenerateContentResponse[] = anthropic.pushEvent({ type: 'message_start', message: {} });
anthropic.pushEvent('{"type":"ping"}');
const bytes: StreamBytes = new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n');
anthropic.pushBytes(bytes);
anthropic.pushBytes(Buffer.from(''));
anthropic.pushBytes(new ArrayBuffer(0));
anthropic.pushBytes('data: {}\n\n');
const ended: GenerateContentResponse[] = anthropic.end();
const finished: boolean = anthropic.finished;
// @ts-expect-error finished is read-only
anthropic.finished = true;
// @ts-expect-error pushEvent takes an object or its JSON text
anthropic.pushEvent(42);
// @ts-expect-error unknown option
new AnthropicConverter({ modle: 'typo' });
// @ts-expect-error limits are numbers
new OpenAIConverter({ limits: { maxCallBytes: '1' } });

const openai = new OpenAIConverter({ limits: { maxCallBytes: 1024 } });
new OpenAIConverter({
  profile: 'qwen-0.24',
  responseParsing: { contentOnlyThinkingTagLeaks: true, taggedThinkingTags: false },
});
// @ts-expect-error response parsing options are booleans
new OpenAIConverter({ responseParsing: { taggedThinkingTags: 'yes' } });
// @ts-expect-error profiles are named
new OpenAIConverter({ profile: 'qwen-9' });
const one: GenerateContentResponse = openai.pushChunk({ choices: [] });
openai.pushChunk('{"choices":[]}');
const many: GenerateContentResponse[] = openai.pushBytes('data: [DONE]\n\n');
openai.end();
const openaiFinished: boolean = openai.finished;

const responses = new OpenAIResponsesConverter({ model: 'gpt-5', profile: 'qwen-0.23.3', preparations: true });
const fromResponses: GenerateContentResponse[] = responses.pushBytes('event: response.created\ndata: {}\n\n');
responses.pushEvent({ type: 'response.output_text.delta', delta: 'hi', output_index: 0 });
responses.pushEvent('{"type":"response.in_progress"}');
const responsesEnded: GenerateContentResponse[] = responses.end();
const responsesFinished: boolean = responses.finished;
void [fromResponses, responsesEnded, responsesFinished, responses.argumentProgress().received];
// @ts-expect-error the Responses profiles are its own
new OpenAIResponsesConverter({ profile: 'qwen-0.21' });
// @ts-expect-error preparations is a boolean
new OpenAIResponsesConverter({ preparations: 'yes' });

// The real class's getters are typed.
const text: string | undefined = one.text;
const calls = one.functionCalls;
if (calls) for (const call of calls) void call.name;

const preparations: readonly ToolCallPreparation[] = getToolCallPreparations(one);
const progress: ArgumentProgressSnapshot | null = getToolCallProgress(one);
if (progress) for (const c of progress.calls) void [c.callId, c.toolName, c.argumentBytes, c.argumentLines];
const received: number = openai.argumentProgress().received;
void received;
for (const p of preparations) {
  const id: string = p.callId;
  const name: string = p.toolName;
  void [id, name];
}
setToolCallPreparations(one, [{ callId: 'toolu_1', toolName: 'read_file' }]);
setToolCallPreparations(one, preparations);
setToolCallPreparations(one, []);
// @ts-expect-error a preparation needs a toolName
setToolCallPreparations(one, [{ callId: 'x' }]);
// @ts-expect-error preparations are frozen
preparations[0] = { callId: 'a', toolName: 'b' };

// Usage provenance and reasoning parts (out of band, like preparations).
const provenance: UsageProvenance | undefined = getUsageProvenance(one);
if (provenance) {
  const reported: boolean = provenance.cachedInputTokensReported;
  const creation: number | undefined = provenance.cacheCreationInputTokens;
  void [reported, creation];
  // @ts-expect-error provenance is read-only
  provenance.cachedInputTokensReported = true;
}
if (one.usageMetadata) void getUsageProvenance(one.usageMetadata);
const reasoning: boolean = isReasoningPart(one.candidates?.[0]?.content?.parts?.[0]);
const host: ConverterHost = {
  usageProvenance: { set: (usage: object, p: UsageProvenance) => void [usage, p] },
  createReasoningPart: (t: string) => ({ text: t, thought: true }),
};
new OpenAIConverter({ host });
// @ts-expect-error usageProvenance needs a set method
new OpenAIConverter({ host: { usageProvenance: {} } });
void reasoning;

const plain: GenerateContentResponse = toResponse({ candidates: [] });
const live: number = liveHandles();

async function streams(): Promise<void> {
  async function* events(): AsyncGenerator<object> {
    yield { type: 'message_start', message: { model: 'm' } };
  }
  const gen: AsyncGenerator<GenerateContentResponse, void, undefined> = convertAnthropicStream(events(), options);
  for await (const r of gen) void r.candidates;
  for await (const r of convertAnthropicStream([{ type: 'message_stop' }])) void r;
  // The empty-stream fallback: the converter's flag and the generator's option.
  const converter = new AnthropicConverter();
  converter.end();
  const empty: boolean = converter.emptyStream;
  // @ts-expect-error read-only
  converter.emptyStream = true;
  const fallback: AnthropicStreamOptions = { profile: 'qwen-0.24', emptyFallback: async () => ({ content: [] }) };
  for await (const r of convertAnthropicStream(events(), fallback)) void r;
  // @ts-expect-error emptyFallback is a function
  convertAnthropicStream(events(), { emptyFallback: {} });
  void empty;
  for await (const r of convertOpenAIStream([{ choices: [] }], { model: 'gpt' })) {
    void getToolCallPreparations(r);
  }
  const abort = new AbortController();
  const streamOptions: OpenAIStreamOptions = { profile: 'qwen-0.24', signal: abort.signal };
  for await (const r of convertOpenAIStream([new Uint8Array(0)], streamOptions)) void r;
  void new OpenAIConverter({ throwOnErrorFinish: true });
  const pipelineBytes: GenerateContentResponse[] = new OpenAIConverter({ dropEmptyResponses: true }).pushBytes('');
  void pipelineBytes;
  // @ts-expect-error dropEmptyResponses is a boolean
  void new OpenAIConverter({ dropEmptyResponses: 'yes' });
  const held: GenerateContentResponse[] = new AnthropicConverter({ profile: 'qwen-0.24' }).upstreamFailed(
    new Error('x'),
    {
      retryable: true,
    },
  );
  void held;
  for await (const r of convertAnthropicStream([], { host: { isRetryableUpstreamError: async () => true } })) void r;
}

// Non-streaming bodies: object, JSON text or bytes.
function bodies(): void {
  const forms: ResponseBody[] = [{ content: [] }, '{"content":[]}', new Uint8Array(2), new ArrayBuffer(2)];
  for (const body of forms) {
    const a: GenerateContentResponse = convertAnthropicResponse(body, { profile: 'qwen-0.24' });
    const o: GenerateContentResponse = convertOpenAIResponse(body, { responseParsing: { taggedThinkingTags: true } });
    void [a, o];
  }
  // @ts-expect-error a body is not a number
  convertOpenAIResponse(5);
  try {
    convertAnthropicResponse('null');
  } catch (e) {
    if (e instanceof ToolCallStreamError) {
      const code: ToolCallStreamErrorCode = 'INVALID_RESPONSE';
      void [code, e.message];
    }
  }
}

// Errors.
try {
  anthropic.pushEvent('{');
} catch (e) {
  if (e instanceof ToolCallStreamError) {
    const code: ToolCallStreamErrorCode = e.code;
    const fatal: boolean = e.fatal;
    const before: GenerateContentResponse[] = e.responses;
    const type: string | undefined = e.type;
    const offset: number | undefined = e.offset;
    const provider: unknown = e.providerError;
    const message: string = e.message;
    const asError: Error = e;
    switch (code) {
      case 'INVALID_JSON':
      case 'INVALID_UTF8':
      case 'INVALID_EVENT':
      case 'MALFORMED_TOOL_CALL':
      case 'PROTOCOL_TAG_LEAK':
      case 'STREAM_ERROR':
      case 'LIMIT_EXCEEDED':
      case 'FINISHED':
      case 'INVALID_ARGUMENT':
      case 'INVALID_RESPONSE':
      case 'INTERNAL':
        break;
      default: {
        const never: never = code;
        void never;
      }
    }
    void [fatal, before, type, offset, provider, message, asError];
  }
}
const init: ToolCallStreamErrorInit = { code: 'STREAM_ERROR', fatal: true, providerError: { message: 'x' } };
const made = new ToolCallStreamError('boom', init);
// @ts-expect-error not a stable code
new ToolCallStreamError('boom', { code: 'NOPE' });
void made;

// ACP tool cards.
const cardOptions: ToolCallCardsOptions = {
  suppressedTools: ['todo_write'],
  describe: (toolName) => ({ title: toolName, kind: 'read' }),
};
const cards = new ToolCallCards(cardOptions);
new ToolCallCards();
const preparing: ToolCallFrame | null = cards.preparing('call_1', 'read_file');
const start: ToolCallStart = {
  callId: 'call_1',
  toolName: 'read_file',
  rawInput: { path: '/a' },
  locations: [{ path: '/a', line: 3 }],
  status: 'in_progress',
};
const started: ToolCallFrame | ToolCallUpdateFrame | null = cards.started(start);
const result: ToolCallResult = { status: 'completed', content: [], rawOutput: 'ok' };
const done: ToolCallUpdateFrame | null = cards.finished('call_1', 'read_file', result);
const failed: ToolCallUpdateFrame | null = cards.failed('call_2', 'edit', 'no');
const discarded: ToolCallUpdateFrame | null = cards.discarded('call_3', 'edit');
const closed: ToolCallUpdateFrame[] = cards.closeAll('cancelled');
const plan: PlanFrame | null = cards.plan({ todos: [] }, undefined);
const open: boolean = cards.isOpen('call_1');
const ids: string[] = cards.openIds();
if (preparing) {
  const meta: ToolCallMeta = preparing._meta;
  const kind: ToolKind = preparing.kind;
  const locations: ToolCallLocation[] = preparing.locations;
  void [meta, kind, locations];
}

const tracker = new PreparationTracker(cards);
const observed: ToolCallFrame[] = tracker.observe(one);
tracker.resolve(one.functionCalls);
tracker.resolve(null);
const dropped: ToolCallUpdateFrame[] = tracker.discard(true);
// Why a card did not run: a reason, or an idle timeout with its limit.
const retried: ToolCallUpdateFrame[] = tracker.discard(true, 'retry');
const idled: ToolCallUpdateFrame | null = cards.discarded('call_4', 'edit', {
  reason: 'idle-timeout',
  idleLimitMs: 240000,
});
const reason: DiscardReason | undefined = idled?._meta.discardReason;
const cancelledAll: ToolCallUpdateFrame[] = cards.closeAll(undefined, 'cancel');
// @ts-expect-error: not a discard reason
tracker.discard(true, 'timeout');
void [retried, reason, cancelledAll];

// With a host emitter (Qwen's ToolCallEmitter shape), observe and discard are async.
// It calls them as Qwen's tracker does; the package's frame is `tracker.frame` meanwhile.
const hostEmitter: PreparationEmitter = {
  async emitStart(params: PreparationStartParams): Promise<boolean> {
    const frame: ToolCallFrame | ToolCallUpdateFrame | ToolCallProgressFrame | undefined = emitting.frame;
    return params.toolName !== 'todo_write' && frame !== undefined && 'status' in frame && frame.status === 'pending';
  },
  emitPreparationDiscarded(callId: string, toolName: string): void {
    void [callId, toolName, emitting.frame];
  },
};
const emitting = new PreparationTracker(cards, { emitter: hostEmitter });
const counting = new PreparationTracker(cards, {
  progress: {
    idleLimitMs: 240000,
    hostName: 'Qwen',
    send: (frame: ToolCallProgressFrame) => void [frame.title, frame._meta.progress.idleLimitMs],
  },
});
// A host emitter that hears the cause, as a third argument.
const causeEmitter: PreparationEmitter = {
  emitStart: () => true,
  emitPreparationDiscarded(callId: string, toolName: string, cause?: { reason: DiscardReason; idleLimitMs?: number }) {
    void [callId, toolName, cause?.reason];
  },
};
void causeEmitter;
for (const frame of counting.observe(one)) counting.sent(frame);
const running: boolean = counting.progressRunning;
void running;
const observedThrough: Promise<void> = emitting.observe(one);
emitting.resolve(one.functionCalls);
const droppedThrough: Promise<void> = emitting.discard();
// @ts-expect-error: with an emitter, observe returns no frames
const notFrames: ToolCallFrame[] = emitting.observe(one);
// @ts-expect-error: an emitter needs emitPreparationDiscarded
new PreparationTracker(cards, { emitter: { emitStart: () => true } });
const framesWithoutEmitter: ToolCallFrame[] = new PreparationTracker(cards, {}).observe(one);
void [observedThrough, droppedThrough, notFrames, framesWithoutEmitter];

const idMap = new ToolCallIds(['call_old']);
new ToolCallIds();
idMap.apply(one);
const providerId: string | undefined = getProviderToolCallId({ id: 'x', name: 'y' });

async function session(signal: AbortSignal): Promise<ConsumeModelStreamResult> {
  const sent: SessionUpdate[] = [];
  const events: StreamEvent[] = [
    { type: 'chunk', value: one },
    { type: 'retry', isContinuation: false },
    { type: 'model_fallback' },
    { type: 'compressed' },
  ];
  const opts: ConsumeModelStreamOptions = {
    cards,
    send: (update) => {
      sent.push(update);
    },
    signal,
    historyIds: new Set(['call_old']),
    onDiscardError: (error) => void error,
    progress: { intervalMs: 250, stallMs: 5000, onError: (error) => void error },
  };
  const out = await consumeModelStream(events, opts);
  const calls: object[] = out.functionCalls;
  const usage: object | undefined = out.usage;
  const cancelled: true | undefined = out.cancelled;
  void [calls, usage, cancelled];
  return out;
}

// The default export is the CommonJS module object.
const sameClass: typeof AnthropicConverter = toolcallStream.AnthropicConverter;

void [fromEvent, ended, finished, many, openaiFinished, text, plain, live, streams, bodies, started, done, failed];
void [discarded, closed, plan, open, ids, observed, dropped, providerId, session, sameClass];
