//! Resource limits of one converter. Past a limit the stream fails with
//! `LIMIT_EXCEEDED` (and the ACP layer discards every open card).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of accumulated arguments for one tool call.
    pub max_call_bytes: usize,
    /// Bytes buffered by one converter in all: open arguments, partial SSE
    /// lines and events.
    pub max_buffered_bytes: usize,
    /// Bracket nesting handed to JSON repair.
    pub max_repair_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_call_bytes: 64 << 20,
            max_buffered_bytes: 256 << 20,
            max_repair_depth: 512,
        }
    }
}
