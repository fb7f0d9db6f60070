//! The output: Gemini `GenerateContentResponse` chunks (docs/behaviour.md §1), written as
//! JSON text in the reference's key order, with their preparations beside
//! them (never inside).

use std::sync::Arc;

use crate::json::write_str;

/// A tool-call preparation (docs/behaviour.md §5.1): the stable id and name of a call
/// whose arguments are still streaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preparation {
    pub call_id: String,
    pub tool_name: String,
}

/// One Part of the candidate's content.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// `{text}` or `{text, thought: true}`.
    Text { text: String, thought: bool },
    /// Anthropic's `{thought: true, thoughtSignature}`.
    ThoughtSignature(String),
    /// `{functionCall: {id, name, args}}`. `id` / `name` / `args` hold JSON
    /// text (`None` = the key is absent, as JS `undefined` is); `args` is
    /// text that `JSON.parse` accepts, handed to JS verbatim.
    FunctionCall {
        id: Option<String>,
        name: Option<String>,
        args: String,
    },
}

impl Part {
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: false,
        }
    }

    pub fn thought(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            thought: true,
        }
    }

    /// `part.thought === true`.
    pub fn is_thought(&self) -> bool {
        matches!(
            self,
            Part::Text { thought: true, .. } | Part::ThoughtSignature(_)
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
                write_str(out, text);
                if *thought {
                    out.push_str(",\"thought\":true");
                }
                out.push('}');
            }
            Part::ThoughtSignature(sig) => {
                out.push_str("{\"thought\":true,\"thoughtSignature\":");
                write_str(out, sig);
                out.push('}');
            }
            Part::FunctionCall { id, name, args } => {
                out.push_str("{\"functionCall\":{");
                let mut first = true;
                for (key, value) in [
                    ("id", id.as_deref()),
                    ("name", name.as_deref()),
                    ("args", Some(args.as_str())),
                ] {
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
        }
    }
}

/// Which reference produced the chunk: it decides the key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Anthropic,
    OpenAI,
    /// The pipeline's end-of-stream flush of held parts: a bare
    /// `new GenerateContentResponse()` with only `candidates`.
    Bare,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub parts: Vec<Part>,
    pub finish_reason: Option<&'static str>,
}

/// One response chunk. Text-valued fields hold JSON text (`None` = absent).
/// The header fields are shared: the chunks of a stream repeat them.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub flavor: Flavor,
    pub response_id: Option<Arc<str>>,
    pub create_time: Arc<str>,
    pub model_version: Option<Arc<str>>,
    /// `None` writes `candidates: []` (OpenAI chunk without `choices[0]`).
    pub candidate: Option<Candidate>,
    /// The `usageMetadata` object as JSON text.
    pub usage: Option<String>,
    pub preparations: Vec<Preparation>,
    /// Set on the OpenAI finish chunk whose standalone closing thinking tag
    /// was sanitised (the reference's `protocolTagSanitized`): `(tagName,
    /// toolCallCount)`. The pipeline needs it; it is not part of the response.
    pub sanitized: Option<(&'static str, usize)>,
}

impl Response {
    pub fn parts(&self) -> &[Part] {
        self.candidate.as_ref().map_or(&[], |c| &c.parts)
    }

    pub fn finish_reason(&self) -> Option<&'static str> {
        self.candidate.as_ref().and_then(|c| c.finish_reason)
    }

    /// Writes `{"r": <response>, "p": [<preparations>]}`: the response as the
    /// reference's `JSON.stringify` shows it, and its out-of-band metadata.
    pub fn write_item(&self, out: &mut String) {
        out.push_str("{\"r\":");
        self.write_response(out);
        if !self.preparations.is_empty() {
            out.push_str(",\"p\":[");
            for (i, p) in self.preparations.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"callId\":");
                write_str(out, &p.call_id);
                out.push_str(",\"toolName\":");
                write_str(out, &p.tool_name);
                out.push('}');
            }
            out.push(']');
        }
        if let Some((tag, count)) = self.sanitized {
            out.push_str(",\"s\":{\"tagName\":\"");
            out.push_str(tag);
            out.push_str("\",\"toolCallCount\":");
            out.push_str(&count.to_string());
            out.push('}');
        }
        out.push('}');
    }

    /// The response alone, as JSON text.
    pub fn write_response(&self, out: &mut String) {
        out.push('{');
        match self.flavor {
            Flavor::Anthropic => {
                let mut first = self.write_header(out, true);
                comma(out, &mut first);
                self.write_candidates(out);
                self.write_usage(out);
            }
            Flavor::OpenAI => {
                self.write_candidates(out);
                self.write_header(out, false);
                self.write_usage(out);
            }
            Flavor::Bare => self.write_candidates(out),
        }
        out.push('}');
    }

    /// responseId, createTime, modelVersion, promptFeedback. Returns whether
    /// nothing was written yet.
    fn write_header(&self, out: &mut String, mut first: bool) -> bool {
        if let Some(id) = &self.response_id {
            comma(out, &mut first);
            out.push_str("\"responseId\":");
            out.push_str(id);
        }
        comma(out, &mut first);
        out.push_str("\"createTime\":");
        write_str(out, &self.create_time);
        if let Some(m) = &self.model_version {
            out.push_str(",\"modelVersion\":");
            out.push_str(m);
        }
        out.push_str(",\"promptFeedback\":{\"safetyRatings\":[]}");
        false
    }

    fn write_candidates(&self, out: &mut String) {
        out.push_str("\"candidates\":[");
        if let Some(c) = &self.candidate {
            out.push_str("{\"content\":{\"parts\":[");
            for (i, p) in c.parts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                p.write(out);
            }
            out.push_str("],\"role\":\"model\"},\"index\":0");
            if self.flavor != Flavor::Bare {
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

    fn write_usage(&self, out: &mut String) {
        if let Some(u) = &self.usage {
            out.push_str(",\"usageMetadata\":");
            out.push_str(u);
        }
    }
}

fn comma(out: &mut String, first: &mut bool) {
    if !*first {
        out.push(',');
    }
    *first = false;
}

/// Milliseconds since the epoch as JS `String(Date.now())` shows them.
pub fn now_ms_string() -> String {
    now_ms().to_string()
}

/// [`now_ms_string`] as a shared string: the chunks made in one millisecond
/// share one allocation (the last one is kept per thread).
pub fn now_ms_shared() -> Arc<str> {
    thread_local! {
        static LAST: std::cell::RefCell<(u64, Option<Arc<str>>)> =
            const { std::cell::RefCell::new((0, None)) };
    }
    let now = now_ms();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &last.1 {
            Some(s) if last.0 == now => s.clone(),
            _ => {
                let s: Arc<str> = now.to_string().into();
                *last = (now, Some(s.clone()));
                s
            }
        }
    })
}

/// Milliseconds since the epoch (`Date.now()`).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
