//! The open content blocks and their argument buffers against the limits
//! (`maxCallBytes`, `maxBufferedBytes`).

use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::LoneEscapes;
use crate::foundations::limits::Limits;
use crate::model::argument_progress::{ArgumentProgress, LineCount};

/// One open content block (docs/behaviour.md §2.2 `blocks`).
pub(super) struct Block {
    /// The block's `index` as JSON text: JS Map keys compare by value.
    pub(super) key: String,
    /// The block's `type` as `String(value)`, `text` when falsy.
    pub(super) kind: String,
    /// `id` as JSON text when the key exists on the block.
    pub(super) id: Option<String>,
    /// `name` as JSON text when the key exists on the block.
    pub(super) name: Option<String>,
    /// `inputJson`: the arguments gathered so far (a `tool_use` block's
    /// `input` first, unless it is `{}`), as JSON text.
    pub(super) input_json: String,
    /// Where `input_json` holds a lone surrogate as its escape.
    pub(super) lone: LoneEscapes,
    /// The preparation a `tool_use` block yielded (its id and name), for
    /// [`super::AnthropicStream::argument_progress`].
    pub(super) prepared: Option<(String, String)>,
    /// The line breaks of `input_json` counted so far.
    pub(super) lines: LineCount,
}

/// The open content blocks (`blocks`, a `Map` by index) and the argument
/// bytes buffered. The limits are the stream's; `input_bytes` is what its
/// input holds besides, counted with the arguments against
/// `max_buffered_bytes`.
#[derive(Default)]
pub(super) struct Blocks {
    /// The open blocks, in the order they opened.
    pub(super) open: Vec<Block>,
    /// Argument bytes buffered: the open blocks' and those of the calls held
    /// for the stop reason ([`super::held_calls::HeldCalls`]).
    pub(super) buffered_args: usize,
}

impl Blocks {
    /// Appends to block `pos`'s arguments, enforcing the limits.
    pub(super) fn append_at(
        &mut self,
        pos: usize,
        append: impl FnOnce(&mut String, &mut LoneEscapes),
        limits: &Limits,
        input_bytes: usize,
    ) -> Result<(), Error> {
        let block = &mut self.open[pos];
        let before = block.input_json.len();
        append(&mut block.input_json, &mut block.lone);
        self.check_limits(pos, before, limits, input_bytes)
    }

    /// The limits after block `pos`'s arguments grew from `before` bytes.
    pub(super) fn check_limits(
        &mut self,
        pos: usize,
        before: usize,
        limits: &Limits,
        input_bytes: usize,
    ) -> Result<(), Error> {
        let block_len = self.open[pos].input_json.len();
        self.add(block_len - before, limits, input_bytes)?;
        if block_len > limits.max_call_bytes {
            return Err(limit_error("tool call arguments", limits.max_call_bytes));
        }
        Ok(())
    }

    /// `added` more bytes of arguments buffered.
    pub(super) fn add(
        &mut self,
        added: usize,
        limits: &Limits,
        input_bytes: usize,
    ) -> Result<(), Error> {
        self.buffered_args += added;
        if self.buffered_args + input_bytes > limits.max_buffered_bytes {
            return Err(limit_error(
                "buffered stream data",
                limits.max_buffered_bytes,
            ));
        }
        Ok(())
    }

    /// A `tool_use` block is open.
    pub(super) fn has_open_tool_block(&self) -> bool {
        self.open.iter().any(|b| b.kind == "tool_use")
    }

    /// The progress of each open `tool_use` block that yielded a
    /// preparation, in block order; `more[i]`, where given, is argument
    /// text of open block `i` that has reached the process but not the
    /// converter, counted after the block's own.
    pub(super) fn progress(&mut self, more: &[String]) -> Vec<ArgumentProgress> {
        self.open
            .iter_mut()
            .enumerate()
            .filter_map(|(i, block)| {
                let (call_id, tool_name) = block.prepared.as_ref()?;
                let more = more.get(i).map_or("", String::as_str);
                block.lines.update(block.input_json.as_bytes());
                Some(ArgumentProgress {
                    call_id: call_id.clone(),
                    call_id_json: None,
                    tool_name: tool_name.clone(),
                    argument_bytes: block.input_json.len() + more.len(),
                    argument_lines: block.lines.with_more(more.as_bytes()),
                })
            })
            .collect()
    }
}

pub(super) fn limit_error(what: &str, limit: usize) -> Error {
    Error::new(
        ErrorCode::LimitExceeded,
        format!("{what} exceed the limit of {limit} bytes"),
    )
}
