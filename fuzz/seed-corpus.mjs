#!/usr/bin/env node
// Seeds fuzz/corpus/<target>/ (gitignored) from the stream fixtures: the
// conformance corpus, our extra cases and the quirk streams, and every
// provider's fixture folder (__test__/fixtures/providers, through its
// corpus.json). Byte targets get a header and the SSE body (LF and CRLF),
// event/chunk targets one JSON text per line.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerFolders, readFixture } from '../devtools/provider-fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', '__test__', 'fixtures');
const sources = ['conformance', 'extra', 'quirks'].map((d) => path.join(fixtures, d, 'streams'));
const corpus = path.join(here, 'corpus');

const anthropicSse = (events) =>
  events.map((e) => `event: ${e.type ?? 'message'}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const openaiSse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

function write(target, name, bytes) {
  const dir = path.join(corpus, target);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), bytes);
}

let n = 0;
for (const dir of sources) {
  if (!fs.existsSync(dir)) continue;
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.json')) continue;
    const name = file.replace(/\.json$/, '');
    const raw = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const items = (Array.isArray(raw) ? raw : (raw.events ?? raw.chunks ?? [])).filter((e) => !e?.__throw__);
    const anthropic = name.startsWith('anthropic-');
    const sse = anthropic ? anthropicSse(items) : openaiSse(items);
    const seed = Buffer.from([n % 251, (n * 7) % 253]);
    for (const [suffix, body] of [
      ['', sse],
      ['-crlf', sse.replaceAll('\n', '\r\n')],
    ]) {
      const bytes = Buffer.concat([seed, Buffer.from(body)]);
      write('sse_decoder', `${name}${suffix}`, bytes);
    }
    write(anthropic ? 'anthropic_events' : 'openai_chunks', name, items.map((e) => JSON.stringify(e)).join('\n'));
    // json_repair: `<depth byte><arguments>`, each call's whole argument text.
    const args = new Map();
    for (const e of items) {
      const piece = anthropic
        ? e?.delta?.partial_json
        : e?.choices?.[0]?.delta?.tool_calls?.map((t) => t?.function?.arguments).join('');
      const key = anthropic ? e?.index : 0;
      if (typeof piece === 'string') args.set(key, (args.get(key) ?? '') + piece);
    }
    for (const [k, text] of args) if (text) write('json_repair', `${name}-${k}`, Buffer.concat([Buffer.from([n % 64]), Buffer.from(text)]));
    n++;
  }
}
// provider_bytes: every provider folder's streams as the oracle served
// them (its manifest's framing, LF and CRLF), `<row byte><options
// byte><2 split-seed bytes><body>`: the row by its place among the folders'
// names (the order fuzz/src/providers.rs takes the rows in), the options
// byte cycling through the releases and flags.
providerFolders().forEach((provider, row) => {
  for (const stream of readFixture(provider).streams) {
    // json_fields: each `data:` line of the body, as the field reader is given it.
    const lines = stream.body.toString('utf8').split('\n');
    lines.filter((l) => l.startsWith('data:')).forEach((l, i) => {
      write('json_fields', `${provider}-${stream.name}-${i}`, Buffer.from(l.slice(5).trim()));
    });
    const header = Buffer.from([row, n % 256, n % 251, (n * 7) % 253]);
    const text = stream.body.toString('latin1');
    for (const [suffix, body] of [
      ['', stream.body],
      ['-crlf', Buffer.from(text.replaceAll('\n', '\r\n'), 'latin1')],
    ]) {
      write('provider_bytes', `${provider}-${stream.name}${suffix}`, Buffer.concat([header, body]));
    }
    n++;
  }
});
for (let i = 0; i < 8; i++) {
  write('acp_cards', `ops-${i}`, Buffer.from(Array.from({ length: 64 }, (_, k) => (k * 31 + i * 17) % 256)));
}
console.log(`seeded ${n} streams into ${path.relative(process.cwd(), corpus)}`);
