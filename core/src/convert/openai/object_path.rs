//! The OpenAI object path (the JS layer's own conversion of SDK objects,
//! `lib/object-path.js`), as this provider offers it
//! (`crate::convert::object_path`): its state word bits, the chunk header,
//! argument fragments gathered in JS, and content-only deltas as plain
//! text, with exactly the state changes the full conversion makes.

use std::borrow::Cow;

use super::chunk::provider_index;
use super::chunk_header::write_chunk_header_item;
use super::tool_call_parser::{ArgumentChunk, ToolCallParser};
use super::OpenAIStream;
use crate::convert::object_path::{ObjectPath, PlainText};
use crate::convert::state::StateWord;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::{has_non_whitespace, utf16_len};
use crate::foundations::json::{self, Value};
use crate::model::gemini::Response;

/// This provider's bits of the state word (`crate::convert::state`), which
/// `lib/object-path.js` and the pipeline's error path read
/// (`lib/generated/wire-constants.js`, written from these by
/// `core/examples/wire_constants.rs`):
///
/// | bit | field |
/// |-----|-------|
/// | 1   | `quiet`: an argument-only delta converts to an empty response; the word's `budget` is then for any call |
/// | 2   | `text_ready`: a content-only delta may take the text path |
/// | 21  | `tag_closing`: a closing thinking-tag candidate is pending (`context.pendingThinkingTagCandidate?.closingTagName`); the pipeline's error path turns a source error into `PROTOCOL_TAG_LEAK` then. Kept in a finished word too (after a fatal error the candidate is still there), never after `free()` |
pub mod word {
    /// `quiet`.
    pub const QUIET: u64 = 1 << 1;
    /// `text_ready`.
    pub const TEXT_READY: u64 = 1 << 2;
    /// `tag_closing`.
    pub const TAG_CLOSING: u64 = 1 << 21;
}

impl ObjectPath for OpenAIStream {
    fn state_word(&mut self, _yielded: &[Response]) -> StateWord {
        OpenAIStream::state_word(self)
    }

    fn write_header_item(&mut self, out: &mut String) -> bool {
        match self.take_chunk_header() {
            Some(h) => {
                write_chunk_header_item(&h, out);
                true
            }
            None => false,
        }
    }

    fn push_gathered(&mut self, fragments: &str) -> Result<(), Error> {
        self.push_fragments_text(fragments)
    }

    fn push_text_delta(&mut self, content: &str) -> Result<PlainText, Error> {
        self.push_plain_text(content)
    }
}

impl OpenAIStream {
    /// The state word: `quiet`, `text_ready`, `tag_closing`, and the
    /// `budget` of argument bytes that can be gathered before a limit could
    /// fail: no call holds more than all of them together, so
    /// `max_call_bytes` less the parser's buffered bytes is a lower bound
    /// for every call. A finished converter first lets go of what only more
    /// input could use (the argument buffers and templates), so a converter
    /// that is done holds no large buffer until it is collected; what its
    /// state word says is kept.
    pub fn state_word(&mut self) -> StateWord {
        let tag_closing = if self.closing_tag_pending() {
            word::TAG_CLOSING
        } else {
            0
        };
        if self.lifecycle.input.is_finished() {
            if self.calls.parser.buffered() > 0 || !self.templates.is_empty() {
                self.calls.parser = ToolCallParser::default();
                self.templates.release();
            }
            return StateWord::finished_with(tag_closing);
        }
        let held = self.calls.parser.buffered();
        let budget = (self.config.limits.max_call_bytes.saturating_sub(held)).min(
            self.config
                .limits
                .max_buffered_bytes
                .saturating_sub(held + self.lifecycle.input.buffered()),
        );
        let bit = |on: bool, bit: u64| if on { bit } else { 0 };
        StateWord::open(
            bit(self.is_quiet(), word::QUIET)
                | bit(self.is_text_ready(), word::TEXT_READY)
                | tag_closing,
            budget,
        )
    }

    /// Argument-only deltas gathered by the JS layer, as the JSON text
    /// `[index, arguments, …]`: fed in order, exactly as the chunks that
    /// carried them would have been (they yield no parts and no
    /// preparations while the stream is quiet).
    pub fn push_fragments_text(&mut self, text: &str) -> Result<(), Error> {
        self.lifecycle.input.check_open()?;
        let result = json::parse(text).and_then(|list| {
            let Value::Arr(items) = &list else {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "fragments must be a JSON array",
                ));
            };
            let mut preparations = Vec::new();
            for pair in items.chunks(2) {
                let [index, fragment] = pair else { break };
                // A lone surrogate stays an escape, as `tool_call_delta`
                // keeps it: a pair split between two chunks rejoins in the
                // arguments' text, as the reference's string concatenation
                // joins it (U+FFFD here lost both halves).
                let (fragment, lone) = fragment
                    .as_jstr()
                    .map(|s| s.json_text())
                    .unwrap_or_default();
                self.feed(
                    provider_index(Some(index)),
                    ArgumentChunk::string(&fragment, &lone),
                    None,
                    None,
                    &mut preparations,
                )?;
            }
            Ok(())
        });
        self.lifecycle.input.settle(result)
    }

    /// A content-only delta would convert to at most one text part, decided
    /// by the cumulative-text normaliser alone: nothing is held, no candidate
    /// or nameless call is pending, tagged thinking is off, and the
    /// thinking-tag guards cannot act (no reasoning seen, or visible content
    /// already seen and no tag in the reasoning; the content-only guard off
    /// or visible content already seen).
    pub fn is_text_ready(&self) -> bool {
        self.is_quiet()
            && self.tagged.parser.is_none()
            && !self.config.parsing.tagged_thinking_after_reasoning
            && !self.guard.content_only_armed()
            && !self.calls.parser.has_nameless_tool_call()
            && !self.guard.has_thinking_tag_in_reasoning
            && (!self.guard.has_structured_reasoning || self.guard.has_visible_content)
    }

    /// The content of a content-only delta while [`Self::is_text_ready`]:
    /// its normalised text (empty = no part), with exactly the state
    /// changes the full conversion makes. `content` is well-formed text (a
    /// JS string with a lone surrogate takes the JSON text path); it is
    /// normalised in the text form ([`crate::foundations::json::text`]) the
    /// other paths keep. The normalised text is nearly always `content`
    /// itself or its end (the cumulative-text normaliser drops a prefix it
    /// has seen): that is handed back as where it starts
    /// ([`PlainText::Suffix`]), so no copy of it is made, here or in JS.
    pub fn push_plain_text(&mut self, content: &str) -> Result<PlainText, Error> {
        self.lifecycle.input.check_open()?;
        if !self.is_text_ready() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the converter is not ready for a plain text delta",
            ));
        }
        let text = json::text::from_str(content);
        let normalized = self.note_plain_text(&text);
        if let Cow::Borrowed(_) = text {
            // `content` holds no reserved character, so it is its own text
            // form, and its plain text too: a slice of it that ends where it
            // ends is its suffix from that byte on (a char boundary).
            let base = content.as_ptr() as usize;
            let at = normalized.as_ptr() as usize;
            if !normalized.is_empty() && at >= base && at + normalized.len() == base + content.len()
            {
                return Ok(PlainText::Suffix(utf16_len(&content[..at - base])));
            }
        }
        Ok(PlainText::Text(
            json::text::to_plain(normalized).into_owned(),
        ))
    }

    /// A content-only delta's text while ready for plain text: normalised,
    /// and noted as visible content (the state change the full conversion
    /// makes for it).
    pub(super) fn plain_text(&mut self, content: &str) -> String {
        self.note_plain_text(content).to_owned()
    }

    /// [`Self::plain_text`], as the part of `content` it keeps.
    fn note_plain_text<'a>(&mut self, content: &'a str) -> &'a str {
        let normalized = self.deltas.text.normalize(content);
        if !self.guard.has_visible_content && has_non_whitespace(normalized) {
            self.guard.has_visible_content = true;
        }
        normalized
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::openai::OpenAIOptions;

    fn ready() -> OpenAIStream {
        let s = OpenAIStream::new(OpenAIOptions::default());
        assert!(s.is_text_ready());
        s
    }

    #[test]
    fn a_delta_kept_whole_or_cut_comes_back_as_where_its_text_starts() {
        let mut s = ready();
        assert_eq!(s.push_plain_text("é😀 ab").unwrap(), PlainText::Suffix(0));
        // The provider resends the text so far: the new text starts after
        // the 6 UTF-16 units seen (é 1, 😀 2, space, a, b).
        assert_eq!(
            s.push_plain_text("é😀 ab, cd").unwrap(),
            PlainText::Suffix(6)
        );
    }

    #[test]
    fn a_delta_with_no_new_text_or_a_reserved_character_comes_back_as_text() {
        let mut s = ready();
        assert_eq!(
            s.push_plain_text("").unwrap(),
            PlainText::Text(String::new())
        );
        assert_eq!(s.push_plain_text("abc").unwrap(), PlainText::Suffix(0));
        assert_eq!(s.push_plain_text("abcd").unwrap(), PlainText::Suffix(3));
        // A rewind: the cumulative text resent shorter yields nothing.
        assert_eq!(
            s.push_plain_text("ab").unwrap(),
            PlainText::Text(String::new())
        );
        // A character of the text form's reserved range is escaped there, so
        // the normalised text is a copy.
        let mut s = ready();
        assert_eq!(
            s.push_plain_text("x\u{F0000}y").unwrap(),
            PlainText::Text("x\u{F0000}y".to_owned())
        );
    }

    #[test]
    fn a_plain_text_delta_is_refused_unless_ready() {
        let mut s = ready();
        // Reasoning before any visible content arms the thinking-tag guard.
        s.push_chunk_text(r#"{"choices":[{"delta":{"reasoning_content":"hm"}}]}"#)
            .unwrap();
        assert!(!s.is_text_ready());
        assert_eq!(
            s.push_plain_text("a").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
    }
}
