//! The open calls' argument progress as the binding hands it to JS: one JSON
//! array, `[{"callId", "toolName", "argumentBytes", "argumentLines"}]`, the
//! keys `lib/progress.js` hands on, so that one
//! `JSON.parse` gives the objects. An id that is not a string is written as
//! its JSON, as in a batch's preparations (`item.rs`).

use super::item::write_call_identity;
use crate::model::argument_progress::ArgumentProgress;

/// Writes `progress` as a JSON array.
pub fn write_argument_progress(progress: &[ArgumentProgress], out: &mut String) {
    out.push('[');
    for (i, p) in progress.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_call_identity(out, &p.call_id, p.call_id_json.as_deref(), &p.tool_name);
        out.push_str(",\"argumentBytes\":");
        out.push_str(&p.argument_bytes.to_string());
        out.push_str(",\"argumentLines\":");
        out.push_str(&p.argument_lines.to_string());
        out.push('}');
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::write_argument_progress;
    use crate::model::argument_progress::ArgumentProgress;

    #[test]
    fn writes_one_object_per_call_with_json_ids_as_given() {
        let mut out = String::new();
        write_argument_progress(
            &[
                ArgumentProgress {
                    call_id: "toolu_\"1".into(),
                    call_id_json: None,
                    tool_name: "write_file".into(),
                    argument_bytes: 12,
                    argument_lines: 3,
                },
                ArgumentProgress {
                    call_id: "7".into(),
                    call_id_json: Some("7".into()),
                    tool_name: "t".into(),
                    argument_bytes: 0,
                    argument_lines: 0,
                },
            ],
            &mut out,
        );
        assert_eq!(
            out,
            r#"[{"callId":"toolu_\"1","toolName":"write_file","argumentBytes":12,"argumentLines":3},{"callId":7,"toolName":"t","argumentBytes":0,"argumentLines":0}]"#
        );
    }
}
