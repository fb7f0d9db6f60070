//! JavaScript's string semantics the reference relies on, beyond JSON:
//! `String(value)`, the `\s` / `trim` whitespace set, and UTF-16 lengths
//! and offsets (JavaScript's `length` and `slice`).
#![warn(missing_docs)]

use crate::json::{self, Value};

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

/// Number of UTF-16 code units in `s` (JavaScript's `length`).
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

/// Byte offset of UTF-16 offset `units` in `s` (clamped to a char boundary).
pub fn utf16_to_byte(s: &str, units: usize) -> usize {
    if s.is_ascii() {
        return units.min(s.len());
    }
    let mut n = 0;
    for (i, c) in s.char_indices() {
        if n >= units {
            return i;
        }
        n += c.len_utf16();
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_offsets() {
        assert_eq!(utf16_len("a😀é"), 4);
        assert_eq!(utf16_to_byte("a😀é", 3), 5);
    }
}
