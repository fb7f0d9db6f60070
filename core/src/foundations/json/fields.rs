//! The named fields of a JSON object, read in one pass without a tree. A
//! provider's hot events (a text or an argument delta) are objects whose
//! fields of interest are strings and numbers; building [`super::parse`]'s
//! tree for each cost more than reading the few fields a converter looks
//! at. [`flat_fields`] answers only where it gives what `parse` and then
//! [`Value::get`] would: for anything else (an array or object in a field
//! it is asked for, an escaped key, text that is not JSON) it gives `None`,
//! and the caller parses the long way, which decides.

use super::dom::{JStr, Value};
use super::scan::{scan_number, scan_string};
use super::simd::{first_stop_in_block, BLOCK};
use super::validate::{skip_ws as ws, validate_value};

/// The values of `keys` in `JSON.parse(src)`, when `src` is an object whose
/// keys hold no escape and whose members named by `keys` hold strings,
/// numbers, booleans or `null` (any other member may hold any value): for
/// each of `keys`, its last value (`JSON.parse` keeps the last of duplicate
/// keys) or `None` where it does not occur, as [`Value::get`] reads them on
/// the whole tree. Everything is checked as `parse` checks it; `None` for
/// any other text.
pub fn flat_fields<'a, const N: usize>(
    src: &'a str,
    keys: &[&str; N],
) -> Option<[Option<Value<'a>>; N]> {
    let s = src.as_bytes();
    let mut fields: [Option<Value<'a>>; N] = std::array::from_fn(|_| None);
    let mut i = ws(s, 0);
    if s.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(s, i + 1);
    if s.get(i) == Some(&b'}') {
        return (ws(s, i + 1) == s.len()).then_some(fields);
    }
    loop {
        if s.get(i) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(s, i + 1)?;
        if escaped {
            return None;
        }
        let key = &src[i + 1..end];
        i = ws(s, end + 1);
        if s.get(i) != Some(&b':') {
            return None;
        }
        // Lengths first, then bytes: shorter than a `memcmp` call for keys.
        let wanted = |k: &&str| k.len() == key.len() && k.bytes().eq(key.bytes());
        let at = ws(s, i + 1);
        let next = match (keys.iter().position(wanted), s.get(at)) {
            // A member nobody reads may hold any value (the API's
            // `"logprobs": []`): checked as the parser checks it, and skipped.
            (None, Some(b'[' | b'{')) => validate_value(s, at)?.0,
            (None, _) => scalar(src, at, &mut None)?,
            (Some(k), _) => scalar(src, at, &mut fields[k])?,
        };
        i = ws(s, next);
        match s.get(i) {
            Some(b',') => i = ws(s, i + 1),
            Some(b'}') => return (ws(s, i + 1) == s.len()).then_some(fields),
            _ => return None,
        }
    }
}

/// The string, number or literal at `i`, into `slot` (written in place: a
/// value returned through the stack stalled the loop on store forwarding),
/// and where it ends; `None` for an array, an object or anything that is
/// not a JSON value.
fn scalar<'a>(src: &'a str, i: usize, slot: &mut Option<Value<'a>>) -> Option<usize> {
    let s = src.as_bytes();
    let (value, end) = match *s.get(i)? {
        b'"' => {
            let (end, escaped) = string_end(s, i + 1)?;
            let raw = JStr::from_scanned(&src[i + 1..end], escaped);
            (Value::Str(raw), end + 1)
        }
        b't' if s[i..].starts_with(b"true") => (Value::Bool(true), i + 4),
        b'f' if s[i..].starts_with(b"false") => (Value::Bool(false), i + 5),
        b'n' if s[i..].starts_with(b"null") => (Value::Null, i + 4),
        b'-' | b'0'..=b'9' => {
            let end = scan_number(s, i)?;
            (Value::Num(&src[i..end]), end)
        }
        _ => return None,
    };
    *slot = Some(value);
    Some(end)
}

/// [`scan_string`] from `i`, sooner for a short string (a key, the type, an
/// id): its first block is searched on its own, before the window search
/// sets up a window of 64 bytes.
fn string_end(s: &[u8], i: usize) -> Option<(usize, bool)> {
    let Some(block) = s.get(i..i + BLOCK) else {
        return scan_string(s, i);
    };
    let block: &[u8; BLOCK] = block.try_into().ok()?;
    match first_stop_in_block(block) {
        BLOCK => scan_string(s, i + BLOCK),
        at if s[i + at] == b'"' => Some((i + at, false)),
        // An escape or a control character: the whole search decides.
        _ => scan_string(s, i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::{parse, to_json_string};
    use proptest::prelude::*;

    const KEYS: [&str; 3] = ["type", "output_index", "delta"];

    /// What `parse` then `get` read of `KEYS`, as JSON text per key.
    fn through_tree(src: &str) -> Option<Vec<Option<String>>> {
        let v = parse(src).ok()?;
        Some(KEYS.iter().map(|k| v.get(k).map(to_json_string)).collect())
    }

    fn through_fields(src: &str) -> Option<Vec<Option<String>>> {
        let fields = flat_fields(src, &KEYS)?;
        Some(
            fields
                .iter()
                .map(|v| v.as_ref().map(to_json_string))
                .collect(),
        )
    }

    #[test]
    fn reads_the_last_of_duplicates_and_skips_what_it_is_not_asked_for() {
        let [kind, index, delta] = flat_fields(
            r#" { "delta" : "a\nb", "x": [1, {"y": [null]}], "type":"t","delta":"c", "n":-1.5e3, "z": {} } "#,
            &KEYS,
        )
        .unwrap();
        assert_eq!(delta.unwrap().as_str().unwrap(), "c");
        assert_eq!(kind.unwrap().as_str().unwrap(), "t");
        assert!(index.is_none());
        assert!(flat_fields("{}", &KEYS)
            .unwrap()
            .iter()
            .all(Option::is_none));
        // The API's text delta, `logprobs` and `obfuscation` included.
        let [kind, index, delta] = flat_fields(
            r#"{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"x9Q"}"#,
            &KEYS,
        )
        .unwrap();
        assert_eq!(
            kind.unwrap().as_str().unwrap(),
            "response.output_text.delta"
        );
        assert_eq!(index.unwrap().as_f64(), Some(0.0));
        assert_eq!(delta.unwrap().as_str().unwrap(), "Hi");
    }

    #[test]
    fn declines_what_it_cannot_read_exactly() {
        for src in [
            r#"{"typ\u0065":"t"}"#,
            r#"{"delta":{}}"#,
            r#"{"type":["t"]}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":{"b"}}"#,
            r#"{"a":1,}"#,
            r#"{"a":01}"#,
            r#"{"a":"\x"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1} 2"#,
            r#"[1]"#,
            r#""s""#,
            r#"{"a":tru}"#,
            r#"{"a" 1}"#,
            "",
        ] {
            assert!(flat_fields(src, &KEYS).is_none(), "{src}");
        }
    }

    proptest! {
        /// Where it answers, it answers what the tree does; on an object
        /// without escaped keys whose asked-for members are scalars it
        /// always answers.
        #[test]
        fn is_the_tree_where_it_answers(
            pieces in prop::collection::vec(prop_oneof![
                Just("{"), Just("}"), Just(","), Just(":"), Just(" "), Just("\n"),
                Just("\"type\""), Just("\"delta\""), Just("\"output_index\""), Just("\"x\""),
                Just("\"a\\\"b\""), Just("\"\\u00e9\""), Just("0"), Just("-2.5e1"), Just("01"),
                Just("true"), Just("null"), Just("[]"), Just("{}"), Just("\"typ\\u0065\""),
                Just("["), Just("]"), Just("[1,{\"y\":[]}]"),
            ], 0..16),
        ) {
            let src: String = pieces.concat();
            if let Some(fields) = through_fields(&src) {
                prop_assert_eq!(Some(fields), through_tree(&src));
            }
        }

        #[test]
        fn answers_every_flat_object(
            entries in prop::collection::vec((
                prop::sample::select(vec!["type", "delta", "output_index", "x", "é"]),
                prop_oneof![
                    Just("\"t\""), Just("\"a\\nb\\u0041\""), Just("7"), Just("-0.5E+2"),
                    Just("false"), Just("null"), Just("\"\""),
                ],
            ), 0..8),
            nested in prop::collection::vec(prop::sample::select(vec![
                "[]", "{}", "[1, \"a\\\"\", {\"b\": [null]}]", "{\"delta\": {\"x\": 1}}",
            ]), 0..3),
        ) {
            let mut body: Vec<String> = entries.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
            body.extend(nested.iter().map(|v| format!("\"logprobs\":{v}")));
            let src = format!("{{ {} }}", body.join(" ,\t"));
            prop_assert!(through_fields(&src).is_some(), "{}", src);
            prop_assert_eq!(through_fields(&src), through_tree(&src));
        }
    }
}
