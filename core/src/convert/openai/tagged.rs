//! Tagged thinking: `<think>…</think>` (or `<thinking>…</thinking>`) inside
//! `content` becomes thought parts, as `TaggedThinkingParser` does
//! (`packages/core/src/core/openaiContentGenerator/taggedThinkingParser.ts`).
//!
//! The reference matches tags in `buffer.toLowerCase()` at the offsets of
//! `buffer` and copies `buffer` one UTF-16 code unit at a time, so this
//! works in UTF-16 code units too: where lower-casing changes a string's
//! length (`İ` becomes two units) the offsets shift exactly as they do
//! there.

use crate::model::gemini::Part;

const OPEN_TAGS: [&str; 2] = ["<think>", "<thinking>"];
const CLOSE_TAGS: [&str; 2] = ["</think>", "</thinking>"];
/// `Math.max` of the tag lengths.
const MAX_TAG_LENGTH: usize = 11;

/// A stream's tagged thinking (`convertOpenAITextToParts` and the request
/// context's buffers): on when the provider enables tagged thinking, or from
/// the first tagged content after structured reasoning (0.24.4).
#[derive(Debug, Default)]
pub(super) struct TaggedThinking {
    /// `taggedThinkingParser`: present when tagged thinking is on.
    pub(super) parser: Option<TaggedThinkingParser>,
    /// `hasTaggedThinkingThought`: the content carried a tagged thought, so
    /// structured reasoning is dropped from then on.
    pub(super) has_thought: bool,
    /// `pendingReasoningText`: reasoning buffered in a tagged stream until it
    /// is known whether the content carries tagged thinking.
    pub(super) pending_reasoning: String,
    /// `pendingContentParts`: content buffered behind pending reasoning.
    pub(super) pending_content: Vec<Part>,
}

impl TaggedThinking {
    /// A stream's tagged thinking, its parser made at the start when
    /// `on` (`taggedThinkingTags`).
    pub(super) fn new(on: bool) -> Self {
        TaggedThinking {
            parser: on.then(TaggedThinkingParser::default),
            ..TaggedThinking::default()
        }
    }

    /// `convertOpenAITextToParts(text, ctx, final)` of a streaming request.
    pub(super) fn text_to_parts(&mut self, text: &str, last: bool) -> Vec<Part> {
        match self.parser.as_mut() {
            Some(parser) => parser.parse(text, last),
            None if text.is_empty() => Vec::new(),
            None => vec![Part::text(text)],
        }
    }

    /// `taggedThinkingParser?.hasUnclosedThought()`.
    pub(super) fn unclosed_thought(&self) -> bool {
        self.parser
            .as_ref()
            .is_some_and(TaggedThinkingParser::has_unclosed_thought)
    }
}

/// One stream's `TaggedThinkingParser`: whether it is inside a thought,
/// and the text that may still be a split tag.
#[derive(Debug, Default)]
pub struct TaggedThinkingParser {
    /// `mode === "thought"`.
    thought: bool,
    /// Text held back because it may be the start of a tag.
    buffer: Vec<u16>,
}

fn starts_with_at(lower: &[u16], offset: usize, tag: &str) -> bool {
    lower.get(offset..).is_some_and(|rest| {
        rest.len() >= tag.len() && tag.bytes().zip(rest).all(|(t, &u)| u == t as u16)
    })
}

/// `isPrefixOfAnyTag`: could the rest of `lower` from `offset` grow into a tag?
fn is_prefix_of_any_tag(lower: &[u16], offset: usize, tags: &[&str]) -> bool {
    let Some(rest) = lower.get(offset..).filter(|r| !r.is_empty()) else {
        return false;
    };
    if rest.len() > MAX_TAG_LENGTH {
        return false;
    }
    tags.iter()
        .any(|tag| tag.len() >= rest.len() && tag.bytes().zip(rest).all(|(t, &u)| u == t as u16))
}

impl TaggedThinkingParser {
    /// `parse(chunk, final)`: the parts of the text complete so far; with
    /// `last`, everything held back is flushed in the current mode.
    pub fn parse(&mut self, chunk: &str, last: bool) -> Vec<Part> {
        self.buffer.extend(chunk.encode_utf16());
        let lower: Vec<u16> = String::from_utf16_lossy(&self.buffer)
            .to_lowercase()
            .encode_utf16()
            .collect();
        let mut parts = Vec::new();
        let mut segment: Vec<u16> = Vec::new();
        let mut index = 0;
        while index < self.buffer.len() {
            let tags: &[&str] = if self.thought {
                &CLOSE_TAGS
            } else {
                &OPEN_TAGS
            };
            if let Some(tag) = tags.iter().find(|t| starts_with_at(&lower, index, t)) {
                self.append(&mut parts, &mut segment);
                self.thought = !self.thought;
                index += tag.len();
                continue;
            }
            if !last && is_prefix_of_any_tag(&lower, index, tags) {
                break;
            }
            segment.push(self.buffer[index]);
            index += 1;
        }
        if index < self.buffer.len() {
            self.append(&mut parts, &mut segment);
            self.buffer.drain(..index);
            return parts;
        }
        self.buffer.clear();
        self.append(&mut parts, &mut segment);
        parts
    }

    /// `hasUnclosedThought()`: inside a thought.
    pub fn has_unclosed_thought(&self) -> bool {
        self.thought
    }

    /// `appendPart`: a non-empty segment as a part of the current mode.
    fn append(&self, parts: &mut Vec<Part>, segment: &mut Vec<u16>) {
        if segment.is_empty() {
            return;
        }
        let text = String::from_utf16_lossy(segment);
        segment.clear();
        parts.push(if self.thought {
            Part::thought(text)
        } else {
            Part::text(text)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(parts: &[Part]) -> Vec<(String, bool)> {
        parts
            .iter()
            .map(|p| match p {
                Part::Text { text, thought } => (text.clone(), *thought),
                other => panic!("unexpected part {other:?}"),
            })
            .collect()
    }

    #[test]
    fn tags_split_across_chunks() {
        let mut p = TaggedThinkingParser::default();
        assert_eq!(texts(&p.parse("a<th", false)), [("a".into(), false)]);
        assert_eq!(texts(&p.parse("ink>b</THI", false)), [("b".into(), true)]);
        assert_eq!(texts(&p.parse("NK>c", false)), [("c".into(), false)]);
        assert!(p.parse("<", false).is_empty());
        assert_eq!(texts(&p.parse("", true)), [("<".into(), false)]);
    }

    #[test]
    fn unclosed_thought_is_flushed_as_thought() {
        let mut p = TaggedThinkingParser::default();
        assert_eq!(texts(&p.parse("<thinking>x", false)), [("x".into(), true)]);
        assert_eq!(texts(&p.parse("y</thin", true)), [("y</thin".into(), true)]);
    }
}
