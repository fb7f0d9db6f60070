//! One response chunk, written as JSON text in its key order.

use std::rc::Rc;

use super::{Candidate, Part, Preparation, Usage};
use crate::foundations::json::write_str;
use crate::model::key_order::{KeyOrder, ResponseKey};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::usage_provenance::UsageProvenance;

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
