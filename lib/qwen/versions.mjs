// The Qwen Code releases the preload knows, each with its behaviour profile
// and the hook points it needs. A release not listed here runs stock.
export const VERSIONS = {
  '0.21.2': {
    profile: 'qwen-0.21',
    // packages/core/src/core/openaiContentGenerator/converter.ts
    openaiConvert: 'convertOpenAIChunkToGemini',
    // pipeline.ts, processStreamWithLogging(stream, context, request, userPromptId, telemetryAttempt)
    pipelineTelemetryArg: 4,
  },
  '0.24.4': {
    profile: 'qwen-0.24',
    openaiConvert: 'convertOpenAIChunkToLlm',
    // processStreamWithLogging(stream, context, request, openaiRequest, userPromptId, telemetryAttempt)
    pipelineTelemetryArg: 5,
    // anthropicContentGenerator.ts, processStream: how a failed source is
    // classified before the held calls are yielded (utils/retryErrorClassification.ts,
    // core/stream-transport-retry.ts).
    extraHookPoints: ['classifyRetryError', 'isRetryableStreamTransportError', 'isRetryableStatuslessUpstreamError'],
  },
};

/** The exported names every supported release must have. */
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
