//! What the core offers the object path (the JS layer's own conversion of
//! SDK objects, `lib/object-path.js`): argument fragments gathered in JS,
//! and content-only deltas as plain text, with exactly the state changes
//! the full conversion makes.

use super::chunk::provider_index;
use super::tool_call_parser::ArgumentChunk;
use super::OpenAIStream;
use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::js_text::has_non_whitespace;
use crate::foundations::json::{self, Value};

impl OpenAIStream {
    /// Argument-only deltas gathered by the JS layer, as the JSON text
    /// `[index, arguments, …]`: fed in order, exactly as the chunks that
    /// carried them would have been (they yield no parts and no
    /// preparations while the stream is quiet).
    pub fn push_fragments_text(&mut self, text: &str) -> Result<(), Error> {
        self.lifecycle.input.check_open()?;
        let result = json::parse(text).and_then(|list| {
            let Value::Arr(items) = list else {
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
    /// returns the normalised text (empty = no part), with exactly the state
    /// changes the full conversion makes. `content` is well-formed text (a
    /// JS string with a lone surrogate takes the JSON text path); it is
    /// normalised in the text form ([`crate::foundations::json::text`]) the other paths
    /// keep, and handed back as plain text.
    pub fn push_plain_text(&mut self, content: &str) -> Result<String, Error> {
        self.lifecycle.input.check_open()?;
        if !self.is_text_ready() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the converter is not ready for a plain text delta",
            ));
        }
        let text = self.plain_text(&crate::foundations::json::text::from_str(content));
        Ok(crate::foundations::json::text::to_plain(&text).into_owned())
    }

    /// A content-only delta's text while ready for plain text: normalised,
    /// and noted as visible content (the state change the full conversion
    /// makes for it).
    pub(super) fn plain_text(&mut self, content: &str) -> String {
        let normalized = self.deltas.text.normalize(content).to_owned();
        if !self.guard.has_visible_content && has_non_whitespace(&normalized) {
            self.guard.has_visible_content = true;
        }
        normalized
    }
}
