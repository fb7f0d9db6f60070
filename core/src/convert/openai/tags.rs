//! The thinking-tag patterns of the reference's protocol-leak guard (Qwen
//! Code `openaiContentGenerator/converter.ts`, docs/behaviour.md §3.2),
//! written out by hand: `\s` is JavaScript's whitespace set
//! and matching is ASCII-case-insensitive, as with the `/i` flag.

use crate::foundations::js_text::{has_non_whitespace, is_js_whitespace};

fn skip_ws(s: &str, not_crlf: bool) -> &str {
    s.trim_start_matches(|c: char| is_js_whitespace(c) && !(not_crlf && (c == '\r' || c == '\n')))
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Matches `<\/?think(?:ing)?\s*>` (or the closing-only / line-local
/// variants) at the start of `s`; returns the tag name and the rest.
fn tag_at(s: &str, closing: Closing, not_crlf: bool) -> Option<(&'static str, &str)> {
    let s = s.strip_prefix('<')?;
    let s = match (closing, s.strip_prefix('/')) {
        (Closing::Required, None) | (Closing::Forbidden, Some(_)) => return None,
        (_, Some(rest)) => rest,
        (_, None) => s,
    };
    let s = strip_prefix_ci(s, "think")?;
    if let Some(rest) = strip_prefix_ci(s, "ing") {
        if let Some(rest) = skip_ws(rest, not_crlf).strip_prefix('>') {
            return Some(("thinking", rest));
        }
    }
    skip_ws(s, not_crlf)
        .strip_prefix('>')
        .map(|rest| ("think", rest))
}

#[derive(Clone, Copy, PartialEq)]
enum Closing {
    Optional,
    Required,
    Forbidden,
}

/// `THINKING_TAG_PATTERN.test(s)`: `/<\/?think(?:ing)?\s*>/i` anywhere.
pub fn contains_thinking_tag(s: &str) -> bool {
    s.match_indices('<')
        .any(|(i, _)| tag_at(&s[i..], Closing::Optional, false).is_some())
}

/// `CLOSING_THINKING_TAG_PATTERN.test(s)`:
/// `/\n[^\S\r\n]*<\/think(?:ing)?[^\S\r\n]*>/i` anywhere.
pub fn contains_closing_tag_after_newline(s: &str) -> bool {
    s.match_indices('\n')
        .any(|(i, _)| tag_at(skip_ws(&s[i + 1..], true), Closing::Required, true).is_some())
}

/// `LEADING_CLOSING_THINKING_TAG_PATTERN`: `/^[^\S\r\n]*<\/think(?:ing)?[^\S\r\n]*>/i`.
pub fn leading_closing_tag(s: &str) -> bool {
    tag_at(skip_ws(s, true), Closing::Required, true).is_some()
}

/// `LEADING_THINKING_TAG_PATTERN`: `/^\s*<\/?think(?:ing)?\s*>/i`.
pub fn leading_thinking_tag(s: &str) -> bool {
    tag_at(skip_ws(s, false), Closing::Optional, false).is_some()
}

/// `STANDALONE_CLOSING_THINKING_TAG_PATTERN.exec(s)?.[1]?.toLowerCase()`:
/// `/^\s*<\/(think|thinking)\s*>\s*$/i`.
pub fn standalone_closing_tag(s: &str) -> Option<&'static str> {
    let (name, rest) = tag_at(skip_ws(s, false), Closing::Required, false)?;
    skip_ws(rest, false).is_empty().then_some(name)
}

/// `STANDALONE_OPENING_THINKING_TAG_PATTERN.test(s)`: `/^\s*<(think|thinking)\s*>\s*$/i`.
pub fn standalone_opening_tag(s: &str) -> bool {
    tag_at(skip_ws(s, false), Closing::Forbidden, false)
        .is_some_and(|(_, rest)| skip_ws(rest, false).is_empty())
}

/// `canBeStandaloneThinkingTagPrefix`: could `text` still grow into a lone
/// thinking tag?
pub fn can_be_standalone_tag_prefix(text: &str) -> bool {
    let candidate = skip_ws(text, false).to_lowercase();
    if candidate.is_empty() {
        return true;
    }
    ["<think", "<thinking", "</think", "</thinking"]
        .iter()
        .any(|tag| {
            if tag.starts_with(candidate.as_str()) {
                return true;
            }
            let Some(rest) = candidate.strip_prefix(tag) else {
                return false;
            };
            let rest = skip_ws(rest, false);
            let rest = rest.strip_prefix('>').map_or(rest, |r| skip_ws(r, false));
            rest.is_empty()
        })
}

/// `/<\/?think(?:ing)?\s*>/i.exec(s)`: the first thinking tag as its byte
/// range and whether it closes.
fn find_thinking_tag(s: &str) -> Option<(usize, usize, bool)> {
    s.match_indices('<').find_map(|(i, _)| {
        let (_, rest) = tag_at(&s[i..], Closing::Optional, false)?;
        Some((i, s.len() - rest.len(), s[i + 1..].starts_with('/')))
    })
}

/// `/<\/think(?:ing)?\s*>/i.test(s)`: a closing thinking tag anywhere.
fn contains_closing_tag(s: &str) -> bool {
    s.match_indices('<')
        .any(|(i, _)| tag_at(&s[i..], Closing::Required, false).is_some())
}

/// The length of `LEADING_THINKING_TAG_PATTERN.exec(s)?.[0]`.
fn leading_thinking_tag_len(s: &str) -> Option<usize> {
    tag_at(skip_ws(s, false), Closing::Optional, false).map(|(_, rest)| s.len() - rest.len())
}

/// What `classifyContentOnlyThinkingTagPrefix` makes of the visible text
/// of a stream without structured reasoning
/// (`packages/core/src/core/openaiContentGenerator/converter.ts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContentOnlyTags {
    /// `"clean"`: not a leaked thinking block.
    Clean,
    /// `"pending"`: could still become one. The converter holds the text as
    /// a tag candidate and releases it as text at the finish or once it is
    /// longer than `MAX_TAG_CANDIDATE_LENGTH` (128).
    Pending,
    /// `"suspicious"`: looks like a leaked block (a nested opening tag in a
    /// block left open), but the chunk has no finish reason yet; still held.
    Suspicious,
    /// `"leaked"`: a leaked block at the finish: `PROTOCOL_TAG_LEAK`.
    Leaked,
}

/// One step of the classifier's `consumeTag`.
enum Consumed {
    /// A whole tag of the wanted kind, this many bytes.
    Tag(usize),
    /// Could still grow into the wanted tag (`null`).
    Pending,
    /// Not the wanted tag (`undefined`).
    No,
}

fn consume_tag(value: &str, closing: bool) -> Consumed {
    if let Some(len) = leading_thinking_tag_len(value) {
        let is_closing = skip_ws(&value[..len], false).starts_with("</");
        return if is_closing == closing {
            Consumed::Tag(len)
        } else {
            Consumed::No
        };
    }
    if !can_be_standalone_tag_prefix(value) {
        return Consumed::No;
    }
    if value.is_empty() || value == "<" {
        return Consumed::Pending;
    }
    if closing == value.starts_with("</") {
        Consumed::Pending
    } else {
        Consumed::No
    }
}

/// `classifyContentOnlyThinkingTagPrefix(text, streamFinished)`: does the
/// start of a content-only stream look like a leaked `<think>…</think>`
/// block? `later` selects 0.24.4's rules (an opening tag followed by text
/// and no closing tag stays pending, and is a leak at the finish; an
/// opening-closing pair with nothing after it is clean) over 0.21.2's.
pub fn classify_content_only(text: &str, finished: bool, later: bool) -> ContentOnlyTags {
    let candidate = skip_ws(text, false).to_lowercase();
    if candidate.is_empty() {
        return ContentOnlyTags::Clean;
    }
    let mut rest = candidate.as_str();
    for closing in [false, true, false] {
        match consume_tag(rest, closing) {
            Consumed::Pending => return ContentOnlyTags::Pending,
            Consumed::No if !later || !closing => return ContentOnlyTags::Clean,
            Consumed::No => break,
            Consumed::Tag(len) => {
                rest = skip_ws(&rest[len..], false);
                if later {
                    if closing && rest.is_empty() {
                        return ContentOnlyTags::Clean;
                    }
                    if !closing && has_non_whitespace(rest) && !contains_closing_tag(rest) {
                        return if finished {
                            ContentOnlyTags::Leaked
                        } else {
                            ContentOnlyTags::Pending
                        };
                    }
                }
            }
        }
    }
    let mut depth = 1i64;
    let mut nested_opening = false;
    while let Some((_, end, closing)) = find_thinking_tag(rest) {
        depth += if closing { -1 } else { 1 };
        if depth == 0 {
            return ContentOnlyTags::Clean;
        }
        nested_opening |= !closing;
        rest = &rest[end..];
    }
    if !nested_opening {
        ContentOnlyTags::Pending
    } else if finished {
        ContentOnlyTags::Leaked
    } else {
        ContentOnlyTags::Suspicious
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_like_the_reference_regexps() {
        assert!(contains_thinking_tag("Let me check<think>"));
        assert!(contains_thinking_tag("x </THINKING >"));
        assert!(!contains_thinking_tag("<thinkin>"));
        assert!(contains_closing_tag_after_newline("the result\n</think>\n"));
        assert!(!contains_closing_tag_after_newline("the result </think>"));
        assert!(leading_closing_tag(" \t</think>"));
        assert!(!leading_closing_tag("\n</think>"));
        assert!(leading_thinking_tag("\n <think>"));
        assert_eq!(standalone_closing_tag("\n</think>\n\n"), Some("think"));
        assert_eq!(standalone_closing_tag(" </Thinking> "), Some("thinking"));
        assert_eq!(standalone_closing_tag("</think> x"), None);
        assert!(standalone_opening_tag(" <think> "));
        assert!(!standalone_opening_tag("</think>"));
    }

    #[test]
    fn standalone_prefixes() {
        for yes in [
            "",
            "  ",
            "<",
            "</thi",
            "<thinking",
            "</think >",
            "</think> \n",
        ] {
            assert!(can_be_standalone_tag_prefix(yes), "{yes:?}");
        }
        for no in ["a", "<b", "</think> x", "</thing"] {
            assert!(!can_be_standalone_tag_prefix(no), "{no:?}");
        }
    }
}
