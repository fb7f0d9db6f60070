//! A response as a batch item: the response as the reference's
//! `JSON.stringify` shows it, beside its out-of-band metadata (preparations,
//! the sanitization record, usage provenance, reasoning parts). The output
//! model (`crate::model::gemini`) knows nothing of this encoding.

use super::key::{self, next_key, open_item};
use crate::foundations::json::write_str;
use crate::model::gemini::{LiteralKind, Part, Response};
use crate::model::usage_provenance::{CacheCreation, UsageProvenance};

/// `{"callId":…,"toolName":…` of a preparation (or of a call's progress,
/// `progress.rs`), left open for the caller's keys: an id that is not a
/// string is written as its JSON.
pub(super) fn write_call_identity(
    out: &mut String,
    call_id: &str,
    call_id_json: Option<&str>,
    tool_name: &str,
) {
    out.push_str("{\"callId\":");
    match call_id_json {
        Some(json) => out.push_str(json),
        None => write_str(out, call_id),
    }
    out.push_str(",\"toolName\":");
    write_str(out, tool_name);
}

impl Response {
    /// Writes `{"r": <response>, "p": [<preparations>], "u": <usage
    /// provenance>, "t": [<indexes of reasoning parts>]}`: the response as
    /// the reference's `JSON.stringify` shows it, and its out-of-band metadata.
    pub fn write_item(&self, out: &mut String) {
        self.write_item_open(out);
        out.push('}');
    }

    /// [`Response::write_item`] without the closing brace, for a caller that
    /// adds a key.
    pub(crate) fn write_item_open(&self, out: &mut String) {
        open_item(out, key::RESPONSE);
        self.write_response(out);
        if !self.preparations.is_empty() {
            next_key(out, key::PREPARATIONS);
            out.push('[');
            for (i, p) in self.preparations.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_call_identity(out, &p.call_id, p.call_id_json.as_deref(), &p.tool_name);
                out.push('}');
            }
            out.push(']');
        }
        if let Some((tag, count)) = self.sanitized {
            next_key(out, key::SANITIZED);
            out.push_str("{\"tagName\":\"");
            out.push_str(tag);
            out.push_str("\",\"toolCallCount\":");
            out.push_str(&count.to_string());
            out.push('}');
        }
        let reasoning = self
            .parts()
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                matches!(
                    p,
                    Part::Reasoning(_)
                        | Part::Literal {
                            kind: LiteralKind::Reasoning,
                            ..
                        }
                        | Part::Value {
                            kind: LiteralKind::Reasoning,
                            ..
                        }
                )
            })
            .map(|(i, _)| i);
        super::write_annotations(self.usage.as_ref().map(|u| &u.provenance), reasoning, out);
        let mut messages = self
            .parts()
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match p {
                Part::Value {
                    message: Some(m), ..
                } => Some((i, m.serial)),
                _ => None,
            });
        if let Some((i, serial)) = messages.next() {
            next_key(out, key::MESSAGE_PARTS);
            out.push_str(&format!("[[{i},{serial}]"));
            for (i, serial) in messages {
                out.push_str(&format!(",[{i},{serial}]"));
            }
            out.push(']');
        }
    }
}

impl UsageProvenance {
    /// `[cachedInputTokensReported]`, or
    /// `[cachedInputTokensReported, cacheCreationInputTokens | null]` where
    /// the builder sets the second key (`null` = the key holds `undefined`).
    pub fn write_item(&self, out: &mut String) {
        let reported = self.cached_input_tokens_reported;
        let creation = match self.cache_creation {
            CacheCreation::NotTracked => None,
            CacheCreation::Unreported => Some(None),
            CacheCreation::Tokens(n) => Some(Some(n)),
        };
        out.push('[');
        out.push_str(if reported { "true" } else { "false" });
        match creation {
            None => {}
            Some(None) => out.push_str(",null"),
            Some(Some(n)) => {
                out.push(',');
                crate::foundations::json::write_number(out, n);
            }
        }
        out.push(']');
    }
}
