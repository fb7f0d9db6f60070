//! The output: Gemini `GenerateContentResponse` chunks (docs/behaviour.md §1), written as
//! JSON text in the reference's key order, with their preparations beside
//! them (never inside).

use std::rc::Rc;

use crate::foundations::json::{write_str, write_text};
use crate::model::key_order::{KeyOrder, ResponseKey};
use crate::model::usage_provenance::UsageProvenance;

/// A tool-call preparation (docs/behaviour.md §5.1): the stable id and name of a call
/// whose arguments are still streaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preparation {
    /// The provider's own id of the call, as it arrived (OpenAI
    /// `tool_calls[].id`, Anthropic `content_block.id`), never empty; the
    /// per-attempt id that GeminiChat derives from it (docs/behaviour.md
    /// §4.1) is the host's business.
    pub call_id: String,
    /// The function name of the call, never empty (OpenAI: trimmed, as
    /// `StreamingToolCallParser.addChunk` stores it).
    pub tool_name: String,
    /// The id's JSON where it is not a string (an OpenAI stream's JS ids,
    /// `openai/call_ids.rs`): written in place of `call_id`.
    pub call_id_json: Option<String>,
}

/// One Part of the candidate's content.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// `{text}` or `{text, thought: true}`.
    Text {
        /// The text itself (not JSON text).
        text: String,
        /// Written as `thought: true` (a thinking delta, or tagged thinking
        /// inside OpenAI `content`); `false` omits the key.
        thought: bool,
    },
    /// `{text, thought: true}` made from an OpenAI `reasoning_content` /
    /// `reasoning` delta: the reference builds it with
    /// `createOpenAIReasoningThoughtPart` (Qwen Code
    /// packages/core/src/utils/thoughtUtils.ts), which marks it with a
    /// non-enumerable symbol. Written like a thought; the batch item lists it
    /// (`"t"`), so JS can mark it too.
    Reasoning(String),
    /// Anthropic's `{thought: true, thoughtSignature}`.
    ThoughtSignature(String),
    /// An Anthropic text, thinking or signature delta whose value is not a
    /// string but truthy (`processStream` builds the part from it as it is:
    /// `{text: 42}`): the value's JSON text in the place of the string.
    Literal {
        /// Which part the value stands in.
        kind: LiteralKind,
        /// The value as `JSON.stringify` writes it.
        json: String,
    },
    /// `{text: value}`, `{text: value, thought: true}` or `{text: value,
    /// responsesMessage}` where the value is any JSON value or `undefined`
    /// (an OpenAI Responses delta, set as it came): `json` is its JSON text,
    /// `None` for `undefined` (the key is there and `JSON.stringify` leaves
    /// it out). `kind` is `Text`, `Thought` or `Reasoning` (listed as
    /// [`Part::Reasoning`] is).
    Value {
        /// Which part the value stands in.
        kind: LiteralKind,
        /// The value's JSON text; `None`: `undefined`.
        json: Option<String>,
        /// The message the part belongs to (`responsesMessage`).
        message: Option<PartMessage>,
    },
    /// `{functionCall: {id, name, args}}`. `id` / `name` / `args` hold JSON
    /// text (`None` = the key is absent, as JS `undefined` is); `args` is
    /// text that `JSON.parse` accepts, handed to JS verbatim; shared, so
    /// the OpenAI parser's buffer of a large call is not copied for it.
    FunctionCall {
        /// `functionCall.id` as JSON text: Anthropic `content_block.id`
        /// whatever JSON value it held (`None` when the block had no `id`
        /// key); OpenAI the provider's id or a generated
        /// `call_<ms>_<7 base36 chars>`, always present.
        id: Option<String>,
        /// `functionCall.name` as JSON text, the same way (Anthropic
        /// `content_block.name`; OpenAI the trimmed function name).
        name: Option<String>,
        /// `functionCall.args`: the text of a JSON object, shared (the
        /// OpenAI parser's buffer of a large call is not copied for it).
        args: Rc<String>,
        /// The same arguments with their large string members lifted out,
        /// for the batch ([`crate::model::lifted`]); `None` when none are.
        lifted: Option<Rc<crate::model::lifted::Lifted>>,
    },
}

impl Part {
    /// About how many bytes the part takes in a batch (its payload; escapes
    /// and keys aside).
    pub fn size_hint(&self) -> usize {
        32 + match self {
            Part::Text { text, .. } | Part::Reasoning(text) | Part::ThoughtSignature(text) => {
                text.len()
            }
            Part::Literal { json, .. } => json.len(),
            Part::Value { json, message, .. } => {
                json.as_ref().map_or(0, String::len) + message.as_ref().map_or(0, |m| m.json.len())
            }
            Part::FunctionCall { id, name, args, .. } => {
                args.len()
                    + id.as_ref().map_or(0, String::len)
                    + name.as_ref().map_or(0, String::len)
            }
        }
    }

    /// A visible text part, `{text}`.
    pub(crate) fn text(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: false,
        }
    }

    /// A thought part, `{text, thought: true}`.
    pub(crate) fn thought(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: true,
        }
    }

    /// An OpenAI reasoning thought (see `Part::Reasoning`).
    pub(crate) fn reasoning(text: impl Into<String>) -> Part {
        Part::Reasoning(text.into())
    }

    /// `part.thought === true`.
    pub fn is_thought(&self) -> bool {
        matches!(
            self,
            Part::Text { thought: true, .. }
                | Part::ThoughtSignature(_)
                | Part::Reasoning(_)
                | Part::Literal {
                    kind: LiteralKind::Thought | LiteralKind::Signature | LiteralKind::Reasoning,
                    ..
                }
                | Part::Value {
                    kind: LiteralKind::Thought | LiteralKind::Signature | LiteralKind::Reasoning,
                    ..
                }
        )
    }

    /// The visible (non-thought) text of this part, if any.
    pub fn visible_text(&self) -> Option<&str> {
        match self {
            Part::Text {
                text,
                thought: false,
            } => Some(text),
            _ => None,
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Part::Text { text, thought } => {
                out.push_str("{\"text\":");
                write_text(out, text);
                if *thought {
                    out.push_str(",\"thought\":true");
                }
                out.push('}');
            }
            Part::Reasoning(text) => {
                out.push_str("{\"text\":");
                write_text(out, text);
                out.push_str(",\"thought\":true}");
            }
            Part::ThoughtSignature(sig) => {
                out.push_str("{\"thought\":true,\"thoughtSignature\":");
                write_text(out, sig);
                out.push('}');
            }
            Part::Literal { kind, json } => {
                out.push_str(match kind {
                    LiteralKind::Text | LiteralKind::Thought | LiteralKind::Reasoning => {
                        "{\"text\":"
                    }
                    LiteralKind::Signature => "{\"thought\":true,\"thoughtSignature\":",
                });
                out.push_str(json);
                if matches!(kind, LiteralKind::Thought | LiteralKind::Reasoning) {
                    out.push_str(",\"thought\":true");
                }
                out.push('}');
            }
            Part::FunctionCall { id, name, args, .. } => {
                write_function_call(out, id.as_deref(), name.as_deref(), args)
            }
            Part::Value {
                kind,
                json,
                message,
            } => {
                out.push('{');
                let mut first = true;
                let mut key = |out: &mut String, name: &str| {
                    if !std::mem::take(&mut first) {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(name);
                    out.push_str("\":");
                };
                if let Some(json) = json {
                    key(out, "text");
                    out.push_str(json);
                }
                if matches!(kind, LiteralKind::Thought | LiteralKind::Reasoning) {
                    key(out, "thought");
                    out.push_str("true");
                }
                if let Some(m) = message {
                    key(out, "responsesMessage");
                    out.push_str(&m.json);
                }
                out.push('}');
            }
        }
    }
}

/// The message a text part belongs to, as the part holds it
/// (`responsesMessage`): the reference gives every part of one message the
/// same object and adds to it later, so the JS layer shares one object per
/// `serial` (`lib/wire.js`).
#[derive(Clone, Debug, PartialEq)]
pub struct PartMessage {
    /// The message's number within its stream, from 1.
    pub serial: u32,
    /// The object as `JSON.stringify` showed it when the part was made.
    pub json: String,
}

/// The part a [`Part::Literal`] value stands in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiteralKind {
    /// `{text}` (a `text_delta`).
    Text,
    /// `{text, thought: true}` (a `thinking_delta`).
    Thought,
    /// `{thought: true, thoughtSignature}` (a `signature_delta`).
    Signature,
    /// `{text, thought: true}` made by `createOpenAIReasoningThoughtPart`
    /// from an OpenAI reasoning delta (listed as [`Part::Reasoning`] is).
    Reasoning,
}

/// `candidates[0]`, the only candidate the reference writes:
/// `{content: {parts, role: 'model'}, index: 0, safetyRatings: [],
/// finishReason?}` (docs/behaviour.md §1).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// `content.parts`, in the order the reference pushes them.
    pub parts: Vec<Part>,
    /// `finishReason`, already mapped to Gemini's name (`STOP`,
    /// `MAX_TOKENS`, `SAFETY`, `FINISH_REASON_UNSPECIFIED`; docs/behaviour.md
    /// §2.4, §3.2.5); `None` omits the key.
    pub finish_reason: Option<&'static str>,
}

/// A response's `usageMetadata`: its JSON text and its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage {
    /// The `usageMetadata` object as JSON text, keys in the reference's
    /// order (docs/behaviour.md §2.5, §3.2.6).
    pub json: String,
    /// Where its numbers came from (out of band, not part of `json`).
    pub provenance: UsageProvenance,
}

/// One response chunk. Text-valued fields hold JSON text (`None` = absent).
/// The header fields are shared: the chunks of a stream repeat them. Shared
/// with `Rc`, not `Arc`: a converter and what it yields stay on one thread
/// (the binding keeps converters in a per-thread table), and the atomic
/// count updates of `Arc`, three clones and three drops per chunk, were
/// ~18% of the core's time on text-heavy streams.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The key order the response is written in, declared by the provider
    /// that built it.
    pub key_order: &'static KeyOrder,
    /// `responseId` as JSON text (OpenAI `chunk.id`, Anthropic
    /// `message_start`'s `message.id`, any JSON value); `None` omits it.
    pub response_id: Option<Rc<str>>,
    /// `createTime`, the string itself (not JSON text): OpenAI
    /// `String(chunk.created)` (seconds) or, like every Anthropic chunk,
    /// `String(Date.now())` (milliseconds, [`crate::model::clock::now_ms_string`]); empty for
    /// a response whose key order has no `createTime`.
    pub create_time: Rc<str>,
    /// `modelVersion` as JSON text (OpenAI `chunk.model`, Anthropic
    /// `message_start`'s `message.model`), `None` when absent or falsy.
    pub model_version: Option<Rc<str>>,
    /// `None` writes `candidates: []` (OpenAI chunk without `choices[0]`).
    pub candidate: Option<Candidate>,
    /// The `usageMetadata` object (JSON text) and its provenance.
    pub usage: Option<Usage>,
    /// The tool-call preparations attached to this response
    /// (`setToolCallPreparations`, docs/behaviour.md §5.1), in the order
    /// the calls were announced; empty when it has none.
    pub preparations: Vec<Preparation>,
    /// Set on the OpenAI finish chunk whose standalone closing thinking tag
    /// was sanitised (the reference's `protocolTagSanitized`): `(tagName,
    /// toolCallCount)`. The pipeline needs it; it is not part of the response.
    pub sanitized: Option<(&'static str, usize)>,
}

impl Response {
    /// The candidate's parts; none when there is no candidate.
    pub fn parts(&self) -> &[Part] {
        self.candidate.as_ref().map_or(&[], |c| &c.parts)
    }

    /// The candidate's `finishReason`, if it has one.
    pub fn finish_reason(&self) -> Option<&'static str> {
        self.candidate.as_ref().and_then(|c| c.finish_reason)
    }

    /// What Qwen's OpenAI pipeline drops unseen (Qwen Code `pipeline.ts`,
    /// `processStreamWithLogging`'s empty filter): no part, no finish reason,
    /// no usage and no tool-call preparation. (A sanitisation note on such a
    /// response is dropped with it there too.)
    pub fn is_dropped_by_pipeline(&self) -> bool {
        self.parts().is_empty()
            && self.finish_reason().is_none()
            && self.usage.is_none()
            && self.preparations.is_empty()
    }

    /// The response alone, as JSON text, its keys in its key order.
    pub fn write_response(&self, out: &mut String) {
        out.push('{');
        let mut first = true;
        for &key in self.key_order.keys {
            self.write_key(key, out, &mut first);
        }
        out.push('}');
    }

    /// One top-level key and its value (nothing for an absent one).
    #[inline]
    fn write_key(&self, key: ResponseKey, out: &mut String, first: &mut bool) {
        match key {
            ResponseKey::ResponseId => {
                if let Some(id) = &self.response_id {
                    open_key(out, first, key);
                    out.push_str(id);
                }
            }
            ResponseKey::CreateTime => {
                open_key(out, first, key);
                write_str(out, &self.create_time);
            }
            ResponseKey::ModelVersion => {
                if let Some(m) = &self.model_version {
                    open_key(out, first, key);
                    out.push_str(m);
                }
            }
            ResponseKey::PromptFeedback => {
                open_key(out, first, key);
                out.push_str("{\"safetyRatings\":[]}");
            }
            ResponseKey::Candidates => {
                open_key(out, first, key);
                self.write_candidates(out);
            }
            ResponseKey::UsageMetadata => {
                if let Some(u) = &self.usage {
                    open_key(out, first, key);
                    out.push_str(&u.json);
                }
            }
        }
    }

    /// The value of `candidates`.
    fn write_candidates(&self, out: &mut String) {
        out.push('[');
        if let Some(c) = &self.candidate {
            out.push_str("{\"content\":{\"parts\":[");
            for (i, p) in c.parts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                p.write(out);
            }
            out.push_str("],\"role\":\"model\"},\"index\":0");
            if self.key_order.safety_ratings {
                out.push_str(",\"safetyRatings\":[]");
            }
            if let Some(f) = c.finish_reason {
                out.push_str(",\"finishReason\":\"");
                out.push_str(f);
                out.push('"');
            }
            out.push('}');
        }
        out.push(']');
    }
}

/// `"key":`, after a comma unless it is the object's `first` key.
#[inline]
fn open_key(out: &mut String, first: &mut bool, key: ResponseKey) {
    if !*first {
        out.push(',');
    }
    *first = false;
    out.push('"');
    out.push_str(key.name());
    out.push_str("\":");
}

/// A `functionCall` part, `{"functionCall":{"id"?,"name"?,"args"}}`, from
/// JSON texts (`id` and `name` already JSON strings, `args` an object).
pub fn write_function_call(out: &mut String, id: Option<&str>, name: Option<&str>, args: &str) {
    out.push_str("{\"functionCall\":{");
    let mut first = true;
    for (key, value) in [("id", id), ("name", name), ("args", Some(args))] {
        if let Some(v) = value {
            if !first {
                out.push(',');
            }
            first = false;
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            out.push_str(v);
        }
    }
    out.push_str("}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(parts: Vec<Part>, usage: Option<Usage>) -> Response {
        Response {
            key_order: &crate::convert::openai::key_order::KEY_ORDER,
            response_id: None,
            create_time: "1".into(),
            model_version: None,
            candidate: Some(Candidate {
                parts,
                finish_reason: None,
            }),
            usage,
            preparations: Vec::new(),
            sanitized: None,
        }
    }

    fn batch(responses: &[Response]) -> String {
        let mut out = String::new();
        crate::wire::write_batch(
            &mut responses.to_vec(),
            None,
            crate::wire::StateWord::OPEN,
            None,
            &mut out,
            &mut Vec::new(),
        );
        out
    }

    /// The top-level keys of a written response, in the order written.
    fn keys_written(response: &Response) -> Vec<String> {
        let mut out = String::new();
        response.write_response(&mut out);
        let parsed = crate::foundations::json::parse(&out).unwrap();
        let keys = match &parsed {
            crate::foundations::json::Value::Obj(entries) => entries
                .iter()
                .map(|(k, _)| k.value().into_owned())
                .collect(),
            other => panic!("not an object: {other:?}"),
        };
        keys
    }

    #[test]
    fn every_key_order_writes_its_keys_in_its_order() {
        let usage = Some(Usage {
            json: "{}".into(),
            provenance: UsageProvenance::cached(false),
        });
        for key_order in crate::convert::provider::key_orders() {
            let full = Response {
                key_order,
                response_id: Some("\"id\"".into()),
                model_version: Some("\"m\"".into()),
                ..response(Vec::new(), usage.clone())
            };
            let names: Vec<&str> = key_order.keys.iter().map(|k| k.name()).collect();
            assert_eq!(keys_written(&full), names, "{}", key_order.name);
            // An absent key is skipped, the others keep their order.
            let sparse = Response {
                key_order,
                ..response(Vec::new(), None)
            };
            let present: Vec<&str> = names
                .iter()
                .copied()
                .filter(|k| !matches!(*k, "responseId" | "modelVersion" | "usageMetadata"))
                .collect();
            assert_eq!(keys_written(&sparse), present, "{}", key_order.name);
        }
    }

    #[test]
    fn reasoning_parts_are_written_as_thoughts_and_listed_beside_the_response() {
        assert_eq!(
            batch(&[response(vec![Part::reasoning("r")], None)]),
            r#"[{"h":{"f":1,"createTime":"1"}},[3,"r"],0]"#
        );
        let two = response(vec![Part::reasoning("r"), Part::text("t")], None);
        assert_eq!(
            batch(&[two]),
            r#"[{"r":{"candidates":[{"content":{"parts":[{"text":"r","thought":true},{"text":"t"}],"role":"model"},"index":0,"safetyRatings":[]}],"createTime":"1","promptFeedback":{"safetyRatings":[]}},"t":[0]},0]"#
        );
    }

    #[test]
    fn usage_provenance_is_beside_the_response_never_inside() {
        let usage = |provenance| {
            Some(Usage {
                json: "{}".into(),
                provenance,
            })
        };
        let openai = UsageProvenance::cached(true);
        let anthropic = |creation| UsageProvenance::with_cache_creation(false, creation);
        let written = [openai, anthropic(None), anthropic(Some(7.0))]
            .map(|p| batch(&[response(Vec::new(), usage(p))]));
        for (text, u) in written.iter().zip([
            r#""u":[true]}"#,
            r#""u":[false,null]}"#,
            r#""u":[false,7]}"#,
        ]) {
            assert!(text.ends_with(&format!("{u},0]")), "{text}");
            assert!(!text[..text.find(",\"u\"").unwrap()].contains("Reported"));
        }
    }
}
