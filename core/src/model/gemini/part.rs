//! One part of a candidate's content, and how it is written.

use std::rc::Rc;

use crate::foundations::json::write_text;

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

    pub(super) fn write(&self, out: &mut String) {
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
    /// The object as `JSON.stringify` showed it when the part was made
    /// (shared by the message's parts made before it next changed).
    pub json: Rc<str>,
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
