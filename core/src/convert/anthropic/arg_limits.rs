//! The open blocks' argument buffers against the limits
//! (`maxCallBytes`, `maxBufferedBytes`).

use super::AnthropicStream;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::LoneEscapes;

impl AnthropicStream {
    /// Appends to block `pos`'s arguments, enforcing the limits.
    pub(super) fn append_at(
        &mut self,
        pos: usize,
        append: impl FnOnce(&mut String, &mut LoneEscapes),
    ) -> Result<(), Error> {
        let block = &mut self.blocks[pos];
        let before = block.input_json.len();
        append(&mut block.input_json, &mut block.lone);
        self.check_block_limits(pos, before)
    }

    /// The limits after block `pos`'s arguments grew from `before` bytes.
    pub(super) fn check_block_limits(&mut self, pos: usize, before: usize) -> Result<(), Error> {
        let block_len = self.blocks[pos].input_json.len();
        self.add_args(block_len - before)?;
        if block_len > self.options.limits.max_call_bytes {
            return Err(limit_error(
                "tool call arguments",
                self.options.limits.max_call_bytes,
            ));
        }
        Ok(())
    }

    pub(super) fn add_args(&mut self, added: usize) -> Result<(), Error> {
        self.buffered_args += added;
        if self.buffered_args + self.input.buffered() > self.options.limits.max_buffered_bytes {
            return Err(limit_error(
                "buffered stream data",
                self.options.limits.max_buffered_bytes,
            ));
        }
        Ok(())
    }
}

pub(super) fn limit_error(what: &str, limit: usize) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!("{what} exceed the limit of {limit} bytes"),
    )
}
