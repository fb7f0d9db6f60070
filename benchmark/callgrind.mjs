// Where the time goes, Rust side: instruction counts (valgrind callgrind) of
// the core converting one write_file stream from 16 KiB reads and writing
// each batch as JSON text, stream generation excluded. Self cost is summed
// per function (inlined code folded into its caller's name) and per area.
//   node benchmark/callgrind.mjs [contentKB=100] [streams=5] [anthropic|openai]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [kb = '100', n = '5', provider = 'anthropic'] = process.argv.slice(2);
if (provider !== 'anthropic' && provider !== 'openai') throw new Error(`callgrind: unknown provider ${provider}`);
const manifest = path.join(here, 'rust', 'Cargo.toml');

const build = execFileSync('cargo', ['bench', '--manifest-path', manifest, '--no-run', '--message-format=json'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const exe = build
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'core' && m.executable)?.executable;
if (!exe) throw new Error('callgrind: no bench executable from cargo');

const out = path.join(os.tmpdir(), `toolcall-stream-callgrind-${process.pid}.out`);
execFileSync(
  'valgrind',
  [
    '--tool=callgrind',
    `--toggle-collect=core::${provider === 'openai' ? 'convert_openai' : 'convert'}`,
    `--callgrind-out-file=${out}`,
    exe,
    'profile',
    kb,
    n,
    provider,
  ],
  { stdio: ['ignore', 'ignore', 'ignore'] },
);
const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--auto=no', '--threshold=100', out], {
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
fs.rmSync(out, { force: true });

const byFn = new Map();
let total = 0;
for (const line of text.split('\n')) {
  const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?):(.+?)(?: \[[^\]]*\])?$/.exec(line);
  if (!m || m[2] === 'PROGRAM TOTALS' || line.includes('PROGRAM TOTALS')) continue;
  const ir = Number(m[1].replaceAll(',', ''));
  // json/dom.rs, json/scan_decode.rs, …: one `json::` area name per job.
  const fn = m[3].replace(/'\d+/g, '');
  total += ir;
  byFn.set(fn, (byFn.get(fn) ?? 0) + ir);
}

const areas = [
  ['JSON parse of each event (json::Parser, Value, drop)', /json::dom::|drop_in_place<.*json::dom::Value/],
  [
    'string scanning / unescaping (scan_string, scan_json_text_into, decode_*, UTF-8 checks)',
    /json::(scan|scan_decode|simd|escape)::|from_utf8|validate_utf8|memchr::.*Three|memchr3/,
  ],
  [
    'SSE framing (SseDecoder: line memchr, field split)',
    /sse::|SseDecoder|CharSearcher|memchr::.*(One|memchr_raw)|slice::memchr/,
  ],
  ['final arguments: validate + repair', /repair::|json::validate::|jsonrepair/],
  ['tool-call parser (routing, depth scan, ids)', /tool_call_parser|OpenAIStream::feed|hash|Hasher|hashbrown/],
  ['event dispatch and state (anthropic:: / openai::)', /anthropic::|openai::|js_text::/],
  [
    'response building and JSON text output (gemini::, write_*)',
    /gemini::|json::stringify::|write_item|write_response|ryu/,
  ],
  ['allocation (malloc/free/realloc, Vec growth)', /malloc|free|realloc|raw_vec|alloc::/],
  ['memcpy / memcmp', /memcpy|memmove|memcmp|memset/],
];
const byArea = new Map(areas.map(([name]) => [name, 0]));
byArea.set('other', 0);
for (const [fn, ir] of byFn) {
  const area = areas.find(([, re]) => re.test(fn))?.[0] ?? 'other';
  byArea.set(area, byArea.get(area) + ir);
}
const per = (ir) => `${(ir / Number(n) / 1e6).toFixed(2).padStart(6)} M`;
const pct = (ir) => `${((100 * ir) / total).toFixed(1).padStart(5)}%`;
console.log(
  `core: ${provider === 'openai' ? 'OpenAI' : 'Anthropic'} write_file ${kb} KB from 16 KiB reads, ${per(total).trim()} instructions per stream (callgrind)\n`,
);
console.log('| area | instructions / stream | share |\n|---|---:|---:|');
for (const [a, ir] of [...byArea].sort((x, y) => y[1] - x[1])) console.log(`| ${a} | ${per(ir)} | ${pct(ir)} |`);
console.log('\n| function (self, inlined callees folded in) | instructions / stream | share |\n|---|---:|---:|');
for (const [f, ir] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, 15))
  console.log(`| \`${f}\` | ${per(ir)} | ${pct(ir)} |`);
