//! The thinking-tag protocol-leak guard of the conversion
//! (docs/behaviour.md §3.2.4 step 1, Qwen Code `converter.ts`): visible
//! text that may be a leaked thinking tag is held as a candidate, released,
//! or fails the stream with `PROTOCOL_TAG_LEAK`.

use super::tags::*;
use crate::foundations::error::Error;
use crate::foundations::js_text::{has_non_whitespace, js_trim_start};
use crate::foundations::profile::Profile;
use crate::model::gemini::Part;

/// The longest candidate, in UTF-16 units after leading whitespace, held
/// before it is judged (`MAX_TAG_CANDIDATE_LENGTH` of the reference).
const MAX_TAG_CANDIDATE_LENGTH: usize = 128;

/// A visible-text candidate that may be a leaked thinking tag
/// (`pendingThinkingTagCandidate`).
#[derive(Debug)]
pub(super) struct TagCandidate {
    /// The candidate's text so far.
    pub(super) text: String,
    /// The tag's name when the candidate is a whole standalone closing tag.
    pub(super) closing: Option<&'static str>,
}

/// What the guard has seen of a stream, and what it holds back while the
/// visible text is untrusted.
#[derive(Debug)]
pub(super) struct TagGuard {
    /// The release whose rules apply (0.24.4 never releases a whole opening
    /// tag as text, and classifies content-only prefixes its own way).
    profile: Profile,
    /// `contentOnlyThinkingTagLeaks`: the content-only guard is on
    /// ([`super::ResponseParsing::content_only_tag_leaks`]).
    content_only_tag_leaks: bool,
    /// `hasStructuredReasoning`: reasoning came in its own field; a thinking
    /// tag in the visible text is then a leak.
    pub(super) has_structured_reasoning: bool,
    /// `hasThinkingTagInReasoning`: the reasoning held a thinking tag, so
    /// visible parts are held back and closing tags in them are leaks.
    pub(super) has_thinking_tag_in_reasoning: bool,
    /// `hasVisibleContent`: non-whitespace visible text was seen.
    pub(super) has_visible_content: bool,
    /// `atVisibleLineStart`: the visible text so far ends at the start of a
    /// line (whitespace after a line break), where a closing tag is a leak.
    pub(super) at_visible_line_start: bool,
    /// `pendingThinkingTagCandidate`.
    pub(super) candidate: Option<TagCandidate>,
    /// `pendingUntrustedResponseParts`: parts held back while a call is
    /// nameless, the reasoning held a thinking tag, or a candidate is
    /// pending; prepended to the next response that is not held.
    pub(super) held_parts: Option<Vec<Part>>,
    /// `protocolTagSanitized`: a closing tag dropped before complete tool
    /// calls (its name, the calls' count), taken by the next response.
    pub(super) sanitized: Option<(&'static str, usize)>,
}

impl TagGuard {
    /// A guard that has seen nothing, with the rules of `profile` and the
    /// content-only guard on when `content_only_tag_leaks`.
    pub(super) fn new(profile: Profile, content_only_tag_leaks: bool) -> Self {
        TagGuard {
            profile,
            content_only_tag_leaks,
            has_structured_reasoning: false,
            has_thinking_tag_in_reasoning: false,
            has_visible_content: false,
            at_visible_line_start: false,
            candidate: None,
            held_parts: None,
            sanitized: None,
        }
    }

    /// The guard over one choice's `parts`. It can only act once structured
    /// reasoning was seen, a tag candidate is pending, or the content-only
    /// guard is on and no visible content was seen yet; otherwise all it
    /// does is note visible content.
    pub(super) fn check(&mut self, parts: &mut Vec<Part>, finish: bool) -> Result<(), Error> {
        if self.candidate.is_none() && !self.has_structured_reasoning && !self.content_only_armed()
        {
            if !self.has_visible_content {
                self.has_visible_content = parts
                    .iter()
                    .filter_map(Part::visible_text)
                    .any(has_non_whitespace);
            }
            return Ok(());
        }
        let mut visible: String = parts.iter().filter_map(Part::visible_text).collect();
        let pending = self.candidate.take();
        let replayed_prefix = pending.as_ref().is_some_and(|p| {
            p.closing.is_none() && has_non_whitespace(&p.text) && p.text == visible
        });
        let replayed_closing = standalone_closing_tag(&visible);
        if replayed_prefix
            || pending
                .as_ref()
                .is_some_and(|p| p.closing.is_some() && p.closing == replayed_closing)
        {
            drop_visible(parts);
            visible.clear();
        }
        let combined = format!(
            "{}{}",
            pending.as_ref().map_or("", |p| p.text.as_str()),
            visible
        );
        // `classifyContentOnlyThinkingTagPrefix`, where it applies.
        let content_only = if self.content_only_armed() {
            classify_content_only(&combined, finish, self.profile == Profile::Qwen024)
        } else {
            ContentOnlyTags::Clean
        };
        let can_start = !self.has_visible_content
            && !visible.is_empty()
            && ((self.has_structured_reasoning && can_be_standalone_tag_prefix(&combined))
                || content_only != ContentOnlyTags::Clean);
        if pending.is_some() || can_start {
            if let Some(now_visible) =
                self.judge_candidate(parts, pending.as_ref(), combined, content_only, finish)?
            {
                visible = now_visible;
            }
        }
        self.note_visible(&visible)
    }

    /// A closing thinking-tag candidate is pending.
    pub(super) fn closing_pending(&self) -> bool {
        self.candidate.as_ref().is_some_and(|c| c.closing.is_some())
    }

    /// Nothing is held and no candidate is pending.
    #[inline]
    pub(super) fn holds_nothing(&self) -> bool {
        self.candidate.is_none() && self.held_parts.as_ref().is_none_or(Vec::is_empty)
    }

    /// A pending candidate, or text that may start one, `combined` with
    /// it: released as text, held as the candidate, or a leak. The visible
    /// text of the choice when that changed.
    fn judge_candidate(
        &mut self,
        parts: &mut Vec<Part>,
        pending: Option<&TagCandidate>,
        combined: String,
        content_only: ContentOnlyTags,
        finish: bool,
    ) -> Result<Option<String>, Error> {
        let closing = standalone_closing_tag(&combined);
        let opening = standalone_opening_tag(&combined);
        let possible = can_be_standalone_tag_prefix(&combined)
            || matches!(
                content_only,
                ContentOnlyTags::Pending | ContentOnlyTags::Suspicious
            );
        let finished_whitespace = finish && closing.is_none() && !has_non_whitespace(&combined);
        let trimmed = js_trim_start(&combined);
        let too_long = crate::foundations::js_text::utf16_len(trimmed) > MAX_TAG_CANDIDATE_LENGTH;
        // 0.24.4: a whole opening tag is never released as text.
        let confirmed_opening = self.profile == Profile::Qwen024
            && leading_thinking_tag(&combined)
            && !trimmed.starts_with("</");
        let release =
            content_only == ContentOnlyTags::Pending && !confirmed_opening && (finish || too_long);
        if content_only == ContentOnlyTags::Leaked {
            return Err(Error::protocol_tag_leak());
        }
        if opening && self.has_structured_reasoning {
            return Err(Error::protocol_tag_leak());
        }
        if pending.is_some_and(|p| p.closing.is_some()) && closing.is_none() {
            return Err(Error::protocol_tag_leak());
        }
        if finished_whitespace || release {
            drop_visible(parts);
            if !combined.is_empty() {
                parts.push(Part::text(combined.clone()));
            }
            Ok(Some(combined))
        } else if possible {
            if !confirmed_opening && closing.is_none() && too_long {
                return Err(Error::protocol_tag_leak());
            }
            self.candidate = Some(match closing {
                Some(name) => TagCandidate {
                    text: format!("</{name}>"),
                    closing: Some(name),
                },
                None => TagCandidate {
                    text: combined,
                    closing: None,
                },
            });
            drop_visible(parts);
            if finish && closing.is_none() {
                return Err(Error::protocol_tag_leak());
            }
            Ok(Some(String::new()))
        } else if pending.is_some() {
            drop_visible(parts);
            parts.push(Part::text(combined.clone()));
            Ok(Some(combined))
        } else {
            Ok(None)
        }
    }

    /// The choice's visible text after the guard: a leaked tag fails the
    /// stream; visible content and the line start are noted.
    fn note_visible(&mut self, visible: &str) -> Result<(), Error> {
        let leaked = self.has_structured_reasoning
            && ((!self.has_visible_content && leading_thinking_tag(visible))
                || (self.has_thinking_tag_in_reasoning
                    && (contains_closing_tag_after_newline(visible)
                        || (self.at_visible_line_start && leading_closing_tag(visible)))));
        if has_non_whitespace(visible) {
            self.has_visible_content = true;
        }
        if !visible.is_empty() && self.has_thinking_tag_in_reasoning {
            let (had_break, suffix) = match visible.rfind('\n') {
                Some(i) => (true, &visible[i + 1..]),
                None => (false, visible),
            };
            self.at_visible_line_start = (had_break || self.at_visible_line_start)
                && suffix.chars().all(|c| {
                    crate::foundations::js_text::is_js_whitespace(c) && c != '\r' && c != '\n'
                });
        }
        if leaked {
            return Err(Error::protocol_tag_leak());
        }
        Ok(())
    }

    /// The content-only leak guard classifies this chunk's text: it is on,
    /// and neither structured reasoning nor visible content was seen.
    pub(super) fn content_only_armed(&self) -> bool {
        self.content_only_tag_leaks && !self.has_structured_reasoning && !self.has_visible_content
    }
}

/// Removes the parts that carry visible text (`parts.filter(p => !visible(p))`).
fn drop_visible(parts: &mut Vec<Part>) {
    parts.retain(|p| p.visible_text().is_none_or(str::is_empty));
}
