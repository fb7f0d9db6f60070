//! A full item's out-of-band annotations (usage provenance, reasoning part
//! indexes), and a non-streaming body's response as a full item.

use super::key::{self, next_key, open_item};
use crate::convert::nonstream::BodyResponse;
use crate::model::usage_provenance::UsageProvenance;

/// Writes a full item's `,"u": [reported(, creation | null)?]` (the
/// provenance of its `usageMetadata`, when it has one) and `,"t": [i, …]`
/// (the indexes of its OpenAI reasoning thought parts, when there are any):
/// streams ([`Response::write_item`]) and bodies ([`write_body_item`]) alike.
pub fn write_annotations(
    usage: Option<&UsageProvenance>,
    reasoning_parts: impl IntoIterator<Item = usize>,
    out: &mut String,
) {
    if let Some(u) = usage {
        next_key(out, key::USAGE_PROVENANCE);
        u.write_item(out);
    }
    let mut reasoning = reasoning_parts.into_iter().peekable();
    if reasoning.peek().is_some() {
        next_key(out, key::REASONING_PARTS);
        out.push('[');
        for (n, i) in reasoning.enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str(&i.to_string());
        }
        out.push(']');
    }
}

/// A converted non-streaming body as a full item, `{"r": response, "u"?,
/// "t"?}` (no preparations on this path).
pub fn write_body_item(body: &BodyResponse, out: &mut String) {
    open_item(out, key::RESPONSE);
    out.push_str(&body.json);
    write_annotations(
        body.usage_provenance.as_ref(),
        body.reasoning_parts.iter().copied(),
        out,
    );
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_item_carries_the_annotations_as_a_stream_item_does() {
        let body = |usage_provenance, reasoning_parts| BodyResponse {
            json: "{}".into(),
            usage_provenance,
            reasoning_parts,
        };
        let mut out = String::new();
        write_body_item(&body(None, Vec::new()), &mut out);
        assert_eq!(out, r#"{"r":{}}"#);
        out.clear();
        let openai = UsageProvenance::cached(true);
        write_body_item(&body(Some(openai), vec![0]), &mut out);
        assert_eq!(out, r#"{"r":{},"u":[true],"t":[0]}"#);
        out.clear();
        let anthropic = UsageProvenance::with_cache_creation(false, Some(7.0));
        write_body_item(&body(Some(anthropic), Vec::new()), &mut out);
        assert_eq!(out, r#"{"r":{},"u":[false,7]}"#);
    }
}
