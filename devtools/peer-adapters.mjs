// How Qwen Code's own code consumes each native provider's body: one adapter
// per row of the core's table (lib/generated/wire-constants.js `PROVIDERS`),
// keyed by its name. The benchmark feeds every peer through these (its P1 and
// P2 rows, and P0, which runs every provider's fixture folder with no code of
// its own per provider), so this is the one per-provider file a new provider
// adds to the benchmark (ARCHITECTURE.md, "Adding a provider").
import { createRequire } from 'node:module';
import { loadPeer, loadResponsesPeer } from './peer.mjs';

const require = createRequire(import.meta.url);
const { Stream: AnthropicSdkStream } = require('@anthropic-ai/sdk/core/streaming');
const { Stream: OpenAISdkStream } = require('openai/core/streaming');

/**
 * The peer's fastest setup: a Response-shaped object whose body is an async
 * iterable of the reads. The SDKs' `ReadableStreamToAsyncIterable` takes an
 * async-iterable body as it is, so no web stream (and no pull promise per
 * read) sits between the reads and the SDK decoder (BENCHMARKS.md, "How the
 * peer is fed").
 */
export function iterableResponseOf(reads) {
  return {
    headers: new Headers({ 'content-type': 'text/event-stream' }),
    body: (async function* () {
      for (const read of reads) yield read;
    })(),
  };
}

/**
 * Each provider's adapter: `load({model, qwen})` (`qwen`: the release, the
 * loader's own by default) resolves to `{version, consume(reads, onResponse)}`,
 * where `consume` runs one body of `Uint8Array` reads through that release's
 * own code and calls `onResponse` on every response it yields, rejecting
 * where Qwen's code throws.
 */
export const PEER_ADAPTERS = Object.freeze({
  /** The SDK's SSE decoder, then AnthropicContentGenerator.processStream (devtools/peer.mjs, loadPeer). */
  async anthropic(options) {
    const peer = await loadPeer(options);
    return {
      version: peer.version,
      consume: (reads, onResponse) =>
        peer.anthropic(
          AnthropicSdkStream.fromSSEResponse(iterableResponseOf(reads), new AbortController()),
          onResponse,
        ),
    };
  },
  /** The SDK's SSE decoder, then ContentGenerationPipeline.processStreamWithLogging (devtools/peer.mjs, loadPeer). */
  async openai(options) {
    const peer = await loadPeer(options);
    return {
      version: peer.version,
      consume: (reads, onResponse) =>
        peer.openai(OpenAISdkStream.fromSSEResponse(iterableResponseOf(reads), new AbortController()), onResponse),
    };
  },
  /** No SDK: ResponsesPipeline.connectStream reads the body itself (devtools/peer.mjs, loadResponsesPeer). */
  async 'openai-responses'(options) {
    const peer = await loadResponsesPeer(options);
    return { version: peer.version, consume: (reads, onResponse) => peer.responses(reads, onResponse) };
  },
});

/** Loads provider `name`'s adapter; throws naming this file where the provider has none. */
export function loadPeerAdapter(name, options = {}) {
  if (!Object.hasOwn(PEER_ADAPTERS, name)) {
    throw new Error(
      `the native provider ${JSON.stringify(name)} has no peer adapter: add how Qwen Code consumes its body to devtools/peer-adapters.mjs`,
    );
  }
  return PEER_ADAPTERS[name](options);
}
