//! Resource limits of one converter. Past a limit the stream fails with
//! `LIMIT_EXCEEDED` (and the ACP layer discards every open card).

/// The three limits of one converter (JS `options.limits`: `maxCallBytes`,
/// `maxBufferedBytes`, `maxRepairDepth`). The reference has none: they are
/// ours, so that hostile input fails with `LIMIT_EXCEEDED` instead of
/// exhausting memory. The default is 64 MiB per call, 256 MiB buffered and
/// no repair depth limit (the repair does not recurse: no depth is a risk
/// to the stack). The Qwen preload sets none of them
/// (`lib/qwen/openai.mjs`, `lib/qwen/anthropic.mjs`; RELIABILITY.md, Known
/// limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of accumulated arguments for one tool call.
    pub max_call_bytes: usize,
    /// Bytes buffered by one converter in all: open arguments, partial SSE
    /// lines and events.
    pub max_buffered_bytes: usize,
    /// Nesting of objects, arrays and function calls that JSON repair takes
    /// on (`usize::MAX`: any).
    pub max_repair_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_call_bytes: 64 << 20,
            max_buffered_bytes: 256 << 20,
            max_repair_depth: usize::MAX,
        }
    }
}
