//! [`JsString`]: a JavaScript string owned on the Rust side, lone UTF-16
//! surrogates included, held as the text `JSON.stringify` writes for it.

use std::borrow::Cow;
use std::fmt;

use super::dom::JStr;
use super::simd::find_stop;
use super::stringify::{write_canonical, write_str_content};

/// A JavaScript string, held as the content `JSON.stringify` writes for it
/// between the quotes: minimal escapes (`"`, `\\`, controls) and a lone
/// UTF-16 surrogate, which a Rust `String` cannot hold, as its lowercase
/// `\uXXXX` escape. That text is unique per JS string, so equality,
/// ordering and hashing are the JS string's (by escaped text), writing the
/// string into JSON is a copy, and `JSON.parse` gives the caller back
/// exactly the string it passed: `'a\ud800b'` stays `'a\ud800b'` where a
/// Rust `String` would have made it `'a\ufffdb'`.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JsString(String);

impl JsString {
    /// The empty string.
    pub fn new() -> Self {
        JsString(String::new())
    }

    /// A string given as UTF-16 code units (a JS string as Node-API reads
    /// it), unpaired surrogates kept.
    pub fn from_utf16(units: &[u16]) -> Self {
        let mut out = String::with_capacity(units.len());
        let mut buf = [0u8; 4];
        for unit in char::decode_utf16(units.iter().copied()) {
            match unit {
                Ok(c) => write_str_content(&mut out, c.encode_utf8(&mut buf)),
                Err(e) => push_lone(&mut out, e.unpaired_surrogate()),
            }
        }
        JsString(out)
    }

    /// The string a parsed JSON string stands for, lone surrogate escapes
    /// kept (where [`JStr::value`] makes them U+FFFD).
    pub fn from_jstr(s: JStr<'_>) -> Self {
        if !s.escaped {
            // Unescaped valid content holds nothing JSON.stringify escapes.
            return JsString(s.raw.to_owned());
        }
        let mut out = String::with_capacity(s.raw.len());
        write_canonical(s.raw, &mut out);
        JsString(out)
    }

    /// Wraps text that is already in this type's form (a slice of one cut
    /// at an ASCII character that no escape contains, such as `_`).
    pub(crate) fn from_escaped_unchecked(escaped: &str) -> Self {
        JsString(escaped.to_owned())
    }

    /// The text `JSON.stringify` writes for the string, without the quotes.
    pub fn escaped(&self) -> &str {
        &self.0
    }

    /// The string as Rust text: a lone surrogate becomes U+FFFD. For
    /// messages and comparisons with Rust text, never for output to JS.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        JStr::from_scanned(&self.0, self.0.contains('\\')).value()
    }

    /// The string read as JSON text (for `JSON.parse(s)`): a lone surrogate
    /// becomes its `\uXXXX` escape, so inside a string literal it parses
    /// back to itself, as `JSON.parse` keeps it; anywhere else the text is
    /// invalid JSON, as it is for `JSON.parse`.
    pub fn json_text(&self) -> Cow<'_, str> {
        if !self.0.contains('\\') {
            return Cow::Borrowed(&self.0);
        }
        Cow::Owned(JStr::from_scanned(&self.0, true).json_text().0)
    }

    /// Whether the string is `""`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends Rust text. The result stays in this type's form: Rust text
    /// holds no lone surrogate, so it cannot complete a pair that ends this
    /// string.
    pub fn push_str(&mut self, s: &str) {
        write_str_content(&mut self.0, s);
    }

    /// Writes the string as a JSON string literal (`JSON.stringify(s)`).
    pub fn write_json(&self, out: &mut String) {
        out.reserve(self.0.len() + 2);
        out.push('"');
        out.push_str(&self.0);
        out.push('"');
    }

    /// Whether this is the JS string of Rust text `s`.
    fn is(&self, s: &str) -> bool {
        if find_stop(s.as_bytes()).is_none() {
            // Nothing in `s` is escaped: its text is its escaped form.
            return self.0 == s;
        }
        let mut escaped = String::with_capacity(s.len() + 8);
        write_str_content(&mut escaped, s);
        self.0 == escaped
    }
}

/// A lone surrogate as `JSON.stringify` writes it.
fn push_lone(out: &mut String, unit: u16) {
    use std::fmt::Write as _;
    let _ = write!(out, "\\u{unit:04x}");
}

impl From<&str> for JsString {
    fn from(s: &str) -> Self {
        let mut out = String::with_capacity(s.len());
        write_str_content(&mut out, s);
        JsString(out)
    }
}

impl From<String> for JsString {
    fn from(s: String) -> Self {
        if find_stop(s.as_bytes()).is_none() {
            return JsString(s);
        }
        JsString::from(s.as_str())
    }
}

impl From<&String> for JsString {
    fn from(s: &String) -> Self {
        JsString::from(s.as_str())
    }
}

impl From<&JsString> for JsString {
    fn from(s: &JsString) -> Self {
        s.clone()
    }
}

impl PartialEq<str> for JsString {
    fn eq(&self, other: &str) -> bool {
        self.is(other)
    }
}

impl PartialEq<&str> for JsString {
    fn eq(&self, other: &&str) -> bool {
        self.is(other)
    }
}

impl PartialEq<String> for JsString {
    fn eq(&self, other: &String) -> bool {
        self.is(other)
    }
}

/// The string itself, lossily (see [`JsString::to_string_lossy`]).
impl fmt::Display for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// The JSON string literal, so a lone surrogate shows as its escape.
impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::parse;

    fn parsed(text: &str) -> JsString {
        JsString::from_jstr(parse(text).unwrap().as_jstr().unwrap())
    }

    #[test]
    fn every_js_string_has_one_form_and_lone_surrogates_survive() {
        // Escapes JSON.stringify does not write are decoded; the ones it
        // writes are written its way (lowercase, short forms).
        assert_eq!(
            parsed(r#""\u0041\/\u00e9\ud83d\ude00\u0022\u001F\u000a\uD800x\uDC00""#).escaped(),
            r#"A/é😀\"\u001f\n\ud800x\udc00"#
        );
        // A reversed pair is two lone surrogates; a high one followed by a
        // non-surrogate escape stays lone.
        assert_eq!(
            parsed(r#""\udc00\ud800\ud800\u0041""#).escaped(),
            r#"\udc00\ud800\ud800A"#
        );
        let units: Vec<u16> = "a".encode_utf16().chain([0xD800, 0x62, 0xDE00]).collect();
        assert_eq!(JsString::from_utf16(&units).escaped(), r#"a\ud800b\ude00"#);
        let pair: Vec<u16> = "\"😀\n".encode_utf16().collect();
        assert_eq!(JsString::from_utf16(&pair), parsed(r#""\"\ud83d\ude00\n""#));
        assert_eq!(JsString::from("x\"\u{1}"), parsed(r#""x\"\u0001""#));
        assert_eq!(JsString::from("tab\t"), "tab\t");
        assert_ne!(JsString::from_utf16(&[0xD800]), "\u{FFFD}");
        assert_eq!(
            JsString::from_utf16(&[0xD800]).to_string_lossy(),
            "\u{FFFD}"
        );
        let mut s = JsString::from_utf16(&[0x61, 0xD83D]);
        s.push_str("__qwen_dup_2");
        assert_eq!(s.escaped(), r#"a\ud83d__qwen_dup_2"#);
        assert_eq!(format!("{s:?}"), r#""a\ud83d__qwen_dup_2""#);
    }
}
