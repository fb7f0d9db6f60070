//! `JSON.stringify` output, byte for byte: integer-like keys first, shortest
//! round-trip numbers, minimal escapes.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::dom::{parse_number, JStr, Value};
use super::escape::{decode_escape, Lone};
use super::simd::find_stop;

/// Writes `s` as a JSON string literal exactly as `JSON.stringify` does. The
/// bytes it escapes (`"`, `\\`, controls) are the stop bytes of the string
/// scan, so runs between them are found a block at a time.
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    write_str_content(out, s);
    out.push('"');
}

/// [`write_str`] without the quotes: the escaped content alone.
pub fn write_str_content(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut start = 0;
    while let Some(k) = find_stop(&b[start..]) {
        let i = start + k;
        // `b[i]` is ASCII, so both ends are character boundaries.
        out.push_str(&s[start..i]);
        let c = b[i];
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{:04x}", c);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// Writes validated string content (escapes included) as `JSON.stringify`
/// writes the string it stands for: every escape decoded and written again
/// with `JSON.stringify`'s minimal escapes, a lone UTF-16 surrogate kept as
/// its lowercase `\uXXXX` escape (`JSON.stringify('\uD800')` is
/// `"\ud800"`). Plain runs are already in that form: valid content holds no
/// raw `"`, `\\` or control character.
pub(super) fn write_canonical(raw: &str, out: &mut String) {
    let b = raw.as_bytes();
    let mut one = Vec::with_capacity(8);
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&raw[i..i + rel]);
        one.clear();
        // Validated content: every escape decodes.
        i = decode_escape(b, i + rel, &mut one, Lone::Escape).unwrap_or(b.len());
        // One character (1 to 4 bytes), or a lone surrogate kept as the six
        // ASCII bytes of its escape.
        let text = std::str::from_utf8(&one).unwrap_or("\u{FFFD}");
        if one.len() == 6 {
            out.push_str(text);
        } else {
            write_str_content(out, text);
        }
    }
    out.push_str(&raw[i.min(b.len())..]);
}

/// Writes a number value as `JSON.stringify` would (non-finite → `null`).
pub fn write_number(out: &mut String, v: f64) {
    if v.is_finite() {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format(v));
    } else {
        out.push_str("null");
    }
}

/// `JSON.stringify(JSON.parse(text))` for a parsed value: key order as JS
/// objects keep it (array-index keys ascending first, then insertion order;
/// a duplicate key keeps its first position and its last value), and a lone
/// UTF-16 surrogate, in a value or a key, written as its `\uXXXX` escape
/// (as `JSON.stringify` writes the lone surrogate `JSON.parse` kept).
pub fn stringify(v: &Value<'_>, out: &mut String) {
    // Without recursion: the arrays and objects being written are on a heap
    // stack, each with its members still to write, so any depth fits.
    let mut open: Vec<Members<'_, '_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Arr(items) => {
                    out.push('[');
                    open.push(Members::Arr(items.iter(), true));
                }
                Value::Obj(entries) => {
                    out.push('{');
                    open.push(Members::Obj(in_key_order(entries), 0));
                }
                scalar => write_scalar(scalar, out),
            }
        }
        match open.last_mut() {
            None => return,
            Some(Members::Arr(items, first)) => match items.next() {
                Some(item) => {
                    if !std::mem::take(first) {
                        out.push(',');
                    }
                    next = Some(item);
                }
                None => {
                    out.push(']');
                    open.pop();
                }
            },
            Some(Members::Obj(keys, at)) => match keys.get(*at) {
                Some((key, item)) => {
                    if *at > 0 {
                        out.push(',');
                    }
                    *at += 1;
                    out.push('"');
                    out.push_str(key);
                    out.push_str("\":");
                    next = Some(*item);
                }
                None => {
                    out.push('}');
                    open.pop();
                }
            },
        }
    }
}

/// An array or object [`stringify`] is writing: the members left (an
/// array's items; an object's keys in `JSON.stringify`'s order, and how
/// many are written).
enum Members<'v, 'a> {
    Arr(std::slice::Iter<'v, Value<'a>>, bool),
    Obj(Vec<(Cow<'a, str>, &'v Value<'a>)>, usize),
}

/// A value that is neither an array nor an object.
fn write_scalar(v: &Value<'_>, out: &mut String) {
    match v {
        Value::Null | Value::Arr(_) | Value::Obj(_) => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Num(n) => write_number(out, parse_number(n)),
        // Unescaped source text is exactly what JSON.stringify writes.
        Value::Str(s) if !s.escaped => {
            out.reserve(s.raw.len() + 2);
            out.push('"');
            out.push_str(s.raw);
            out.push('"');
        }
        Value::Str(s) => {
            out.push('"');
            write_canonical(s.raw, out);
            out.push('"');
        }
    }
}

/// An object's members in the order `JSON.stringify` writes them: array
/// index keys ascending, then the others in insertion order; a duplicate
/// key keeps its first position and its last value.
fn in_key_order<'v, 'a>(
    entries: &'v [(JStr<'a>, Value<'a>)],
) -> Vec<(Cow<'a, str>, &'v Value<'a>)> {
    let mut keys: Vec<(Cow<'a, str>, &'v Value<'a>)> = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let k = escaped_key(k);
        if let Some(slot) = keys.iter_mut().find(|(existing, _)| *existing == k) {
            slot.1 = val;
        } else {
            keys.push((k, val));
        }
    }
    let mut indexed: Vec<(u32, usize)> = keys
        .iter()
        .enumerate()
        .filter_map(|(pos, (k, _))| array_index(k).map(|n| (n, pos)))
        .collect();
    if indexed.is_empty() {
        return keys;
    }
    indexed.sort_unstable();
    let order: Vec<usize> = indexed
        .iter()
        .map(|&(_, pos)| pos)
        .chain((0..keys.len()).filter(|pos| array_index(&keys[*pos].0).is_none()))
        .collect();
    let mut slots: Vec<Option<(Cow<'a, str>, &'v Value<'a>)>> =
        keys.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|pos| slots[pos].take())
        .collect()
}

/// A key as `JSON.stringify` writes it, without the quotes: one text per JS
/// string, so equal keys compare equal.
fn escaped_key<'a>(k: &JStr<'a>) -> Cow<'a, str> {
    if !k.escaped {
        return Cow::Borrowed(k.raw);
    }
    let mut out = String::with_capacity(k.raw.len());
    write_canonical(k.raw, &mut out);
    Cow::Owned(out)
}

/// `JSON.stringify(value)` of a parsed value, as a new string.
pub fn to_json_string(v: &Value<'_>) -> String {
    let mut s = String::new();
    stringify(v, &mut s);
    s
}

/// A canonical array index (`"0"`, `"17"`, up to 2^32 − 2), which JS orders
/// before every other property key.
pub(super) fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || (k.len() > 1 && k.starts_with('0')) {
        return None;
    }
    if !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = k.parse().ok()?;
    (n < u64::from(u32::MAX)).then_some(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::parse;

    fn roundtrip(src: &str) -> String {
        to_json_string(&parse(src).unwrap())
    }

    #[test]
    fn stringify_matches_js_key_order_and_numbers() {
        assert_eq!(
            roundtrip(r#"{"b":1,"2":2,"a":3,"1":4}"#),
            r#"{"1":4,"2":2,"b":1,"a":3}"#
        );
        assert_eq!(roundtrip(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
        assert_eq!(
            roundtrip("[1.0, -0, 1e21, 1E-7, 123456789012345678901234567890]"),
            "[1,0,1e+21,1e-7,1.2345678901234568e+29]"
        );
        assert_eq!(roundtrip("1e400"), "null");
        // Lone surrogates stay (values and keys, two keys that differ only
        // in one stay two); escapes JSON.stringify does not write go.
        assert_eq!(
            roundtrip(
                r#"{"p":"a\ud800b","q\uDC00":["\ud83d","\u0078"],"r\ud800":1,"r\ud801":2,"r\ud800":3}"#
            ),
            r#"{"p":"a\ud800b","q\udc00":["\ud83d","x"],"r\ud800":3,"r\ud801":2}"#
        );
        assert_eq!(
            roundtrip(r#""\u0041\u00e9\ud83d\ude00\n\u001f/""#),
            "\"Aé😀\\n\\u001f/\""
        );
        assert_eq!(
            roundtrip(r#"{"01":1,"10":2,"4294967295":3,"4294967294":4}"#),
            r#"{"10":2,"4294967294":4,"01":1,"4294967295":3}"#
        );
    }

    proptest::proptest! {
        /// JSON.stringify's escapes, as serde_json writes them too.
        #[test]
        fn write_str_is_serde_json(s in "(?s).{0,80}") {
            let mut out = String::new();
            write_str(&mut out, &s);
            proptest::prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }
    }

    #[test]
    fn write_str_escapes_like_json_stringify() {
        let mut out = String::new();
        write_str(&mut out, "a\"b\\c\u{1}\u{8}\u{2028}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\u0001\\b\u{2028}é\"");
    }
}
