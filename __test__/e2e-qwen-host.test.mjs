// End to end inside the real host: the published Qwen Code CLI (0.21.2 and
// 0.24.4, fetched into ~/.cache/qwen-oracle) in ACP mode, as a child process
// over real pipes, against the loopback provider (Anthropic and OpenAI), driven
// by the official ACP SDK client. The suite is in helpers/qwen-host-suite.mjs.
//
// Stock Qwen always; with TOOLCALL_STREAM_QWEN_TEST_NODE_OPTIONS set (e.g.
// `--import=toolcall-stream/qwen`), the same suite again with those Node options.
import { describeQwenHost } from './helpers/qwen-host-suite.mjs';

describeQwenHost({ label: 'stock' });

const nodeOptions = process.env.TOOLCALL_STREAM_QWEN_TEST_NODE_OPTIONS;
if (nodeOptions) describeQwenHost({ label: `NODE_OPTIONS=${nodeOptions}`, nodeOptions });
