//! JavaScript's string semantics the reference relies on, beyond JSON:
//! `String(value)`, the `\s` / `trim` whitespace set, and UTF-16 lengths
//! and offsets (JavaScript's `length` and `slice`).
#![warn(missing_docs)]

use crate::foundations::json::text::js_units;
use crate::foundations::json::{self, LoneEscapes, Value};

/// `String(value)` appended to argument text (`inputJson += value`, an
/// array's `String(array)` appended as a chunk): as [`js_to_string`], but a
/// string's lone surrogate stays its escape, noted in `lone`
/// ([`LoneEscapes`]), where `js_to_string` gives U+FFFD.
pub fn append_js_string_to_arguments(v: &Value<'_>, out: &mut String, lone: &mut LoneEscapes) {
    match v {
        Value::Str(s) => s.append_json_text_to(out, lone),
        Value::Arr(items) => {
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                if !item.is_null() {
                    append_js_string_to_arguments(item, out, lone);
                }
            }
        }
        other => out.push_str(&js_to_string(other)),
    }
}

/// `String(value)` for the values the reference coerces.
pub fn js_to_string(v: &Value<'_>) -> String {
    match v {
        // A plain integer literal is its own shortest form (JS `String(n)`).
        Value::Num(n)
            if n.len() <= 15
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n.len() == 1 || !n.starts_with('0')) =>
        {
            (*n).to_owned()
        }
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Num(n) => {
            let mut s = String::new();
            json::write_number(&mut s, json::parse_number(n));
            s
        }
        Value::Str(s) => s.value().into_owned(),
        Value::Arr(items) => items
            .iter()
            .map(|i| {
                if i.is_null() {
                    String::new()
                } else {
                    js_to_string(i)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Obj(_) => "[object Object]".to_owned(),
    }
}

/// `Number(value)` (ToNumber) for the values the reference compares or
/// passes to `Math.min`: a string read as JS reads numeric text, an array
/// through its `String`, an object `NaN`.
pub fn js_to_number(v: &Value<'_>) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Num(n) => json::parse_number(n),
        Value::Str(s) => string_to_number(&s.value()),
        Value::Arr(_) => string_to_number(&js_to_string(v)),
        Value::Obj(_) => f64::NAN,
    }
}

/// JS `Number(text)`: trimmed; empty is 0; `0x`/`0o`/`0b` integers,
/// `Infinity` with an optional sign, or a decimal literal; else `NaN`.
fn string_to_number(text: &str) -> f64 {
    let t = js_trim(text);
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        return digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    // A decimal literal: digits, one point, an exponent (Rust's parser
    // also takes `inf` and `nan`, which JS does not).
    let decimal = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && unsigned.bytes().any(|b| b.is_ascii_digit());
    if !decimal {
        return f64::NAN;
    }
    t.parse().unwrap_or(f64::NAN)
}

/// JavaScript's `String.prototype.trim` whitespace test for `/\S/`-style
/// checks (`\s` in JS regexps is the same set).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// `s.trim()` with JavaScript's whitespace set.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `!s.trim()`: true when `s` is empty or all JS whitespace.
pub fn is_blank(s: &str) -> bool {
    // The common case is ASCII; avoid char decoding for it.
    s.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        || js_trim(s).is_empty()
}

/// `text.trimStart()` with JavaScript's whitespace set.
pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// `/\S/.test(s)`.
pub fn has_non_whitespace(s: &str) -> bool {
    s.chars().any(|c| !is_js_whitespace(c))
}

/// Number of UTF-16 code units in `s` (JavaScript's `length`), `s` in the
/// text form of [`crate::foundations::json::text`] (a lone surrogate's stand-in is one).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(js_units).sum()
}

/// Byte offset of UTF-16 offset `units` in `s` (clamped to a char
/// boundary), `s` in the text form as for [`utf16_len`].
pub fn utf16_to_byte(s: &str, units: usize) -> usize {
    if s.is_ascii() {
        return units.min(s.len());
    }
    let mut n = 0;
    for (i, c) in s.char_indices() {
        if n >= units {
            return i;
        }
        n += js_units(c);
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_from_values_as_javascript_reads_them() {
        let n = |text: &str| js_to_number(&json::parse(text).unwrap());
        assert_eq!(n(r#""10""#), 10.0);
        assert_eq!(n(r#"" 2.5e1 ""#), 25.0);
        assert_eq!(n(r#""0x1f""#), 31.0);
        assert_eq!(n(r#""""#), 0.0);
        assert_eq!(n("[4]"), 4.0);
        assert_eq!(n("[]"), 0.0);
        assert_eq!(n("true"), 1.0);
        assert_eq!(n("null"), 0.0);
        assert_eq!(n(r#""-Infinity""#), f64::NEG_INFINITY);
        for nan in [
            r#""inf""#,
            r#""nan""#,
            r#""1x""#,
            "{}",
            "[1,2]",
            r#""-0x1""#,
        ] {
            assert!(n(nan).is_nan(), "{nan}");
        }
    }

    #[test]
    fn utf16_offsets() {
        assert_eq!(utf16_len("a😀é"), 4);
        assert_eq!(utf16_to_byte("a😀é", 3), 5);
    }
}
