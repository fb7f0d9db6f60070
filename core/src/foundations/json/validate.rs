//! `JSON.parse` acceptance without building anything: [`validate`] says
//! whether a text is one JSON value and of which kind.

use super::scan::{scan_number, scan_string};

/// The top-level kind of a JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number.
    Number,
    /// `true` / `false`.
    Bool,
    /// `null`.
    Null,
}

/// `JSON.parse` acceptance, iteratively: `Some(kind)` when the whole text is
/// one valid JSON value (surrounding JSON whitespace allowed).
pub fn validate(text: &str) -> Option<Kind> {
    let s = text.as_bytes();
    let (end, kind) = validate_value(s, skip_ws(s, 0))?;
    (end == s.len()).then_some(kind)
}

/// One valid JSON value at `i` of `s`: where the JSON whitespace after it
/// ends, and its kind; `None` when there is no valid value at `i`.
pub(crate) fn validate_value(s: &[u8], mut i: usize) -> Option<(usize, Kind)> {
    // Container stack: true = object, false = array.
    let mut stack: Vec<bool> = Vec::new();
    let mut top: Option<Kind> = None;
    'value: loop {
        // Parse one value at `i`.
        let kind = match s.get(i)? {
            b'{' => {
                i = skip_ws(s, i + 1);
                if s.get(i) == Some(&b'}') {
                    i += 1;
                    Kind::Object
                } else {
                    stack.push(true);
                    top.get_or_insert(Kind::Object);
                    i = after_key(s, i)?;
                    continue 'value;
                }
            }
            b'[' => {
                i = skip_ws(s, i + 1);
                if s.get(i) == Some(&b']') {
                    i += 1;
                    Kind::Array
                } else {
                    stack.push(false);
                    top.get_or_insert(Kind::Array);
                    continue 'value;
                }
            }
            b'"' => {
                let (end, _) = scan_string(s, i + 1)?;
                i = end + 1;
                Kind::String
            }
            b't' if s[i..].starts_with(b"true") => {
                i += 4;
                Kind::Bool
            }
            b'f' if s[i..].starts_with(b"false") => {
                i += 5;
                Kind::Bool
            }
            b'n' if s[i..].starts_with(b"null") => {
                i += 4;
                Kind::Null
            }
            _ => {
                i = scan_number(s, i)?;
                Kind::Number
            }
        };
        top.get_or_insert(kind);
        // After a value: close containers or continue with the next element.
        loop {
            i = skip_ws(s, i);
            match stack.last() {
                None => return Some((i, top?)),
                Some(&is_obj) => match s.get(i)? {
                    b',' => {
                        i = skip_ws(s, i + 1);
                        if is_obj {
                            i = after_key(s, i)?;
                        }
                        continue 'value;
                    }
                    b'}' if is_obj => {
                        stack.pop();
                        i += 1;
                    }
                    b']' if !is_obj => {
                        stack.pop();
                        i += 1;
                    }
                    _ => return None,
                },
            }
        }
    }
}

/// An object key at `i` (a string, then `:`): the index of the value after
/// it, whitespace skipped; `None` when there is no such key.
#[inline]
fn after_key(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let (end, _) = scan_string(s, i + 1)?;
    let i = skip_ws(s, end + 1);
    if s.get(i) != Some(&b':') {
        return None;
    }
    Some(skip_ws(s, i + 1))
}

/// Where the JSON whitespace at `i` of `s` ends.
pub(crate) fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_follows_json_parse() {
        for ok in [
            "{}",
            " [ ] ",
            "0",
            "-0.5e+3",
            "\"\\u00e9\"",
            "{\"a\":[1,{\"b\":null}],\"c\":true}",
            "null",
        ] {
            assert!(validate(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            " ",
            "{",
            "{\"a\":}",
            "[1,]",
            "01",
            "1.",
            "'a'",
            "{\"a\" 1}",
            "\"\t\"",
            "nul",
            "{} {}",
            "\"\\x\"",
        ] {
            assert!(validate(bad).is_none(), "{bad}");
        }
        assert_eq!(validate("[1]"), Some(Kind::Array));
        assert_eq!(validate("\"s\""), Some(Kind::String));
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(validate(&deep), Some(Kind::Array));
    }
}
