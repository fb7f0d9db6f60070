//! The first number of a compact chunk item (`[kind, text?]`).

/// `[0, text]`: one text part.
pub const TEXT: u8 = 0;
/// `[1, text]`: one thought part.
pub const THOUGHT: u8 = 1;
/// `[2]` or `[2, n]`: no parts (a run of n).
pub const EMPTY: u8 = 2;
/// `[3, text]`: one OpenAI reasoning thought part.
pub const REASONING: u8 = 3;
/// `[4, text, serial]`: one OpenAI Responses text part holding the message
/// object of that serial.
pub const MESSAGE_TEXT: u8 = 4;
