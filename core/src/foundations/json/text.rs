//! The text form: response text (Anthropic `text` / `thinking` /
//! `signature`, OpenAI `content` / `reasoning`) held as Rust text with the
//! lone UTF-16 surrogates a JS string can hold and a Rust string cannot.
//!
//! The reference keeps a lone surrogate escape (`"\ud835"`) in a part's text
//! as the one UTF-16 unit, and a surrogate pair split between two deltas
//! concatenates to its character (plain JS string concatenation). The
//! converters work on text (normalising, trimming, tag matching), so the
//! text is Rust text in which a lone surrogate `u` stands as the private-use
//! character U+F0000 + (u − 0xD800) (plane 15, U+F0000..=U+F07FF), which no
//! JS text test treats otherwise (not whitespace, not a tag character). A
//! real character of that range, or U+F0800 itself, is kept behind the
//! escape character U+F0800, so every JS string has exactly one text form.
//! [`write_text`] writes the form back as `JSON.stringify` writes the JS
//! string: a stand-in as its `\uXXXX` escape, which `JSON.parse` in the JS
//! layer turns into the lone unit.
//!
//! The form costs nothing on text without plane-15/16 characters (their
//! UTF-8 lead byte 0xF3): one `memchr` decides.

use std::borrow::Cow;

use super::dom::JStr;
use super::escape::{decode_into, decode_one, Lone, LONE_ESCAPE_LEN};
use super::lone_escapes::LoneEscapes;
use super::stand_in::{is_reserved, stand_in, BASE, ESCAPE, LEAD};
use super::stringify::{write_str, write_str_content};

/// UTF-16 units the character stands for in the text form: a stand-in one,
/// the escape character one and the reserved character after it one (a
/// real plane-15 character is two units), anything else its own.
pub fn js_units(c: char) -> usize {
    if is_reserved(c) {
        1
    } else {
        c.len_utf16()
    }
}

impl<'a> JStr<'a> {
    /// The string's text form (see the module documentation): a lone
    /// surrogate escape kept as its stand-in.
    pub fn text(&self) -> Cow<'a, str> {
        if !self.escaped {
            return from_str(self.raw);
        }
        let mut out = String::with_capacity(self.raw.len());
        if memchr::memchr(LEAD, self.raw.as_bytes()).is_none() {
            decode_into(self.raw, &mut out, Lone::Private);
            return Cow::Owned(out);
        }
        // Real reserved characters in the unescaped runs are escaped too.
        let b = self.raw.as_bytes();
        let mut i = 0;
        while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
            push_escaping(&mut out, &self.raw[i..i + rel]);
            i = decode_one(self.raw, i + rel, &mut out, Lone::Private);
        }
        push_escaping(&mut out, &self.raw[i..]);
        Cow::Owned(out)
    }
}

/// Rust text (which holds no lone surrogate) in the text form: unchanged
/// unless it holds a reserved character.
pub fn from_str(s: &str) -> Cow<'_, str> {
    if memchr::memchr(LEAD, s.as_bytes()).is_none() || !s.chars().any(is_reserved) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    push_escaping(&mut out, s);
    Cow::Owned(out)
}

/// Text-form text that holds no stand-in (it came from well-formed text) as
/// plain Rust text: the escapes dropped. A stand-in, which has no Rust
/// text, becomes U+FFFD.
pub fn to_plain(text: &str) -> Cow<'_, str> {
    if memchr::memchr(LEAD, text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ESCAPE => out.push(chars.next().unwrap_or(ESCAPE)),
            c if is_reserved(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Appends Rust text in the text form: a reserved character behind the
/// escape character.
fn push_escaping(out: &mut String, s: &str) {
    if memchr::memchr(LEAD, s.as_bytes()).is_none() {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        if is_reserved(c) {
            out.push(ESCAPE);
        }
        out.push(c);
    }
}

/// Argument text (JSON text, [`LoneEscapes`]) as the reference's string,
/// in the text form: each noted escape as the unit it stands for (a high
/// and a low one side by side, from two fragments, as their character),
/// everything else as it is. What the repair reads.
pub fn from_argument_text<'a>(text: &'a str, lone: &LoneEscapes) -> Cow<'a, str> {
    if lone.is_empty() {
        return from_str(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    let mut marks = lone.offsets().iter().copied().peekable();
    while let Some(at) = marks.next() {
        let Some(unit) = unit_at(text, at) else {
            // Not an escape after all (cannot happen for offsets the
            // decoders noted): left as the text it is.
            continue;
        };
        push_escaping(&mut out, &text[from..at]);
        from = at + LONE_ESCAPE_LEN;
        let low = (0xD800..0xDC00)
            .contains(&unit)
            .then(|| {
                marks
                    .peek()
                    .filter(|&&next| next == from)
                    .and_then(|&next| unit_at(text, next))
            })
            .flatten()
            .filter(|lo| (0xDC00..0xE000).contains(lo));
        match low {
            Some(lo) => {
                marks.next();
                from += LONE_ESCAPE_LEN;
                let c = 0x10000 + ((unit - 0xD800) << 10) + (lo - 0xDC00);
                let c = char::from_u32(c).unwrap_or('\u{FFFD}');
                push_escaping(&mut out, c.encode_utf8(&mut [0; 4]));
            }
            None => out.push(stand_in(unit)),
        }
    }
    push_escaping(&mut out, &text[from..]);
    Cow::Owned(out)
}

/// The surrogate unit of the `\uXXXX` escape at `at`.
fn unit_at(text: &str, at: usize) -> Option<u32> {
    let b = text.as_bytes().get(at..at + LONE_ESCAPE_LEN)?;
    if b[0] != b'\\' || b[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&b[2..]).ok()?;
    u32::from_str_radix(hex, 16)
        .ok()
        .filter(|u| (0xD800..0xE000).contains(u))
}

/// JSON text written in the text form ([`from_argument_text`], then
/// repaired) as plain JSON text: a stand-in as its `\uXXXX` escape, which
/// inside a string literal `JSON.parse` reads as the lone unit (elsewhere
/// the text is invalid, as the unit makes the reference's text invalid);
/// an escaped reserved character as itself.
pub fn to_json_text(text: &str) -> Cow<'_, str> {
    if memchr::memchr(LEAD, text.as_bytes()).is_none() {
        return Cow::Borrowed(text);
    }
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ESCAPE => out.push(chars.next().unwrap_or(ESCAPE)),
            c if is_reserved(c) => {
                let _ = write!(out, "\\u{:04x}", 0xD800 + (c as u32 - BASE));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Writes text in the text form as the JSON string literal
/// `JSON.stringify` writes for the JS string it stands for.
pub fn write_text(out: &mut String, text: &str) {
    if memchr::memchr(LEAD, text.as_bytes()).is_none() {
        write_str(out, text);
        return;
    }
    use std::fmt::Write as _;
    out.push('"');
    let mut run = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if !is_reserved(c) {
            run.push(c);
            continue;
        }
        if c == ESCAPE {
            // An escape at the very end (text cut after it) is itself.
            run.push(chars.next().unwrap_or(ESCAPE));
            continue;
        }
        flush(out, &mut run);
        let _ = write!(out, "\\u{:04x}", 0xD800 + (c as u32 - BASE));
    }
    flush(out, &mut run);
    out.push('"');
}

fn flush(out: &mut String, run: &mut String) {
    if !run.is_empty() {
        write_str_content(out, run);
        run.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::parse;

    fn text_of(json: &str) -> String {
        parse(json).unwrap().as_jstr().unwrap().text().into_owned()
    }

    fn written(text: &str) -> String {
        let mut out = String::new();
        write_text(&mut out, text);
        out
    }

    #[test]
    fn lone_surrogates_survive_the_text_form() {
        for json in [
            r#""\ud835""#,
            r#""a\udfffb""#,
            r#""\udc00\ud800""#,
            r#""x\ud83d\ude00y""#,
            r#""plain""#,
            r#""q\"\n\u0001""#,
        ] {
            let parsed = parse(json).unwrap();
            let mut want = String::new();
            crate::foundations::json::stringify(&parsed, &mut want);
            assert_eq!(written(&text_of(json)), want, "{json}");
        }
        // A pair split between two strings joins when the texts are joined.
        let joined = text_of(r#""\ud835""#) + &text_of(r#""\udc00""#);
        assert_eq!(written(&joined), r#""\ud835\udc00""#);
    }

    #[test]
    fn real_reserved_characters_stay_themselves() {
        let real = "a\u{F0000}b\u{F0800}c\u{F07FF}";
        let json = format!("\"{real}\"");
        assert_eq!(written(&text_of(&json)), json);
        assert_eq!(written(&from_str(real)), json);
        // Escaped as a pair of escapes, and mixed with a lone one.
        assert_eq!(
            written(&text_of(r#""\udb80\udc00\ud800""#)),
            "\"\u{F0000}\\ud800\""
        );
        assert_eq!(
            written(&text_of("\"\\n\u{F0001}\\udfff\"")),
            "\"\\n\u{F0001}\\udfff\""
        );
        assert!(matches!(from_str("plain é 😀"), Cow::Borrowed(_)));
        assert_eq!(to_plain(&from_str(real)), real);
    }

    #[test]
    fn units_are_javascript_lengths() {
        let units = |json: &str| text_of(json).chars().map(js_units).sum::<usize>();
        assert_eq!(units(r#""a\ud835""#), 2);
        assert_eq!(units("\"\u{F0000}\""), 2);
        assert_eq!(units("\"😀\""), 2);
    }
}
