//! The borrowed DOM of provider events: [`parse`] gives a [`Value`] whose
//! strings stay escaped slices of the input ([`JStr`]) until somebody asks
//! for their value; lookups follow `JSON.parse` (the last duplicate key wins).

use std::borrow::Cow;

use super::escape::{decode_into, Lone};
use super::lone_escapes::{decode_into_noting, LoneEscapes};
use super::scan::{scan_number, scan_string};
use crate::foundations::error::{Error, ErrorCode};

/// Nesting limit of [`parse`]. Provider events are shallow; the limit only
/// keeps hostile input from exhausting the stack.
const MAX_EVENT_DEPTH: usize = 512;

/// A JSON string as it appears in the source, still escaped.
#[derive(Clone, Copy, Debug)]
pub struct JStr<'a> {
    pub(super) raw: &'a str,
    pub(super) escaped: bool,
}

impl<'a> JStr<'a> {
    /// String content already validated by [`super::scan_string`],
    /// with its `escaped` flag.
    pub(crate) fn from_scanned(raw: &'a str, escaped: bool) -> Self {
        JStr { raw, escaped }
    }

    /// The escaped source text between the quotes: valid JSON string content.
    pub fn raw(&self) -> &'a str {
        self.raw
    }

    /// The decoded value. A lone UTF-16 surrogate escape (which JS strings can
    /// hold but Rust strings cannot) becomes U+FFFD.
    pub fn value(&self) -> Cow<'a, str> {
        if !self.escaped {
            return Cow::Borrowed(self.raw);
        }
        let mut out = String::with_capacity(self.raw.len());
        decode_into(self.raw, &mut out, Lone::Replace);
        Cow::Owned(out)
    }

    /// Appends the decoded value to `out`, which holds JSON text being
    /// accumulated (tool arguments): a lone UTF-16 surrogate stays a `\uXXXX`
    /// escape, so a pair split across two fragments rejoins when JS parses
    /// the whole text, as it does in the reference; `lone` notes where
    /// ([`LoneEscapes`]).
    pub fn append_json_text_to(&self, out: &mut String, lone: &mut LoneEscapes) {
        if self.escaped {
            decode_into_noting(self.raw, out, lone);
        } else {
            out.push_str(self.raw);
        }
    }

    /// The decoded value as JSON text being accumulated (tool arguments), see
    /// [`JStr::append_json_text_to`], with where it holds lone surrogates.
    pub fn json_text(&self) -> (String, LoneEscapes) {
        let mut out = String::with_capacity(self.raw.len());
        let mut lone = LoneEscapes::new();
        self.append_json_text_to(&mut out, &mut lone);
        (out, lone)
    }

    /// Whether the string is `""`.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    fn eq_key(&self, key: &str) -> bool {
        if self.escaped {
            self.value() == key
        } else {
            self.raw == key
        }
    }
}

/// A parsed JSON value borrowing from its source text.
#[derive(Clone, Debug)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// The number's source text (already validated).
    Num(&'a str),
    /// A string, still escaped.
    Str(JStr<'a>),
    /// An array.
    Arr(Vec<Value<'a>>),
    /// An object's entries in source order, duplicates included.
    Obj(Vec<(JStr<'a>, Value<'a>)>),
}

static NULL: Value<'static> = Value::Null;

impl<'a> Value<'a> {
    /// Property lookup with `JSON.parse` semantics: the last duplicate wins.
    /// Missing keys and non-objects give `None` (JS `undefined`).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Obj(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k.eq_key(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// `a?.b` chains without `Option` noise: a missing value reads as `null`.
    pub fn at(&self, key: &str) -> &Value<'a> {
        self.get(key).unwrap_or(&NULL)
    }

    /// The string, still escaped, when the value is one.
    pub fn as_jstr(&self) -> Option<JStr<'a>> {
        match self {
            Value::Str(s) => Some(*s),
            _ => None,
        }
    }

    /// The decoded string, when the value is one.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        self.as_jstr().map(|s| s.value())
    }

    /// The string's text form ([`JStr::text`]), when the value is one.
    pub fn as_text(&self) -> Option<Cow<'a, str>> {
        self.as_jstr().map(|s| s.text())
    }

    /// The value as an `f64` when it is a JSON number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(parse_number(n)),
            _ => None,
        }
    }

    /// Whether the value is `null` (or a missing key read with [`Value::at`]).
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Obj(_))
    }

    /// JavaScript truthiness (`0`, `-0`, `NaN`, `""`, `false`, `null` are falsy).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Num(n) => {
                let v = parse_number(n);
                v != 0.0 && !v.is_nan()
            }
            Value::Str(s) => !s.is_empty(),
            Value::Arr(_) | Value::Obj(_) => true,
        }
    }
}

/// `Number(text)` for a validated JSON number literal.
pub fn parse_number(text: &str) -> f64 {
    text.parse::<f64>().unwrap_or(f64::NAN)
}

/// Optional-value helper: `v?.key` where `v` may be absent.
pub fn get<'v, 'a>(v: Option<&'v Value<'a>>, key: &str) -> Option<&'v Value<'a>> {
    v.and_then(|v| v.get(key))
}

/// Parses one JSON text (the `data:` of an SSE event, or a JS value sent as
/// text) into a borrowed DOM.
pub fn parse(src: &str) -> Result<Value<'_>, Error> {
    let mut p = Parser {
        s: src.as_bytes(),
        src,
        i: 0,
    };
    p.ws();
    let v = p.value(0).map_err(|e| *e)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, what: &str) -> Error {
        Error::new(
            ErrorCode::InvalidJson,
            format!("invalid JSON: {what} at offset {}", self.i),
        )
        .with_offset(self.i)
    }

    fn ws(&mut self) {
        while let Some(&c) = self.s.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// Errors are boxed and built out of line: the recursion's frames hold
    /// no error, so the nesting limit fits a thread's stack in a debug build.
    fn value(&mut self, depth: usize) -> Result<Value<'a>, Box<Error>> {
        if depth > MAX_EVENT_DEPTH {
            return Err(too_deep());
        }
        match self.s.get(self.i) {
            None => Err(self.fail("unexpected end")),
            Some(b'{') => {
                self.i += 1;
                let mut entries = Vec::with_capacity(6);
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Value::Obj(entries));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return Err(self.fail("expected a string key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return Err(self.fail("expected ':'"));
                    }
                    self.i += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    entries.push((k, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Obj(entries));
                        }
                        _ => return Err(self.fail("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::with_capacity(2);
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Value::Arr(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Arr(items));
                        }
                        _ => return Err(self.fail("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(_) => {
                let start = self.i;
                match scan_number(self.s, self.i) {
                    Some(end) => {
                        self.i = end;
                        Ok(Value::Num(&self.src[start..end]))
                    }
                    None => Err(self.fail("unexpected character")),
                }
            }
        }
    }

    fn literal(&mut self, word: &str, v: Value<'a>) -> Result<Value<'a>, Box<Error>> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.fail("unexpected literal"))
        }
    }

    fn string(&mut self) -> Result<JStr<'a>, Box<Error>> {
        let start = self.i + 1;
        match scan_string(self.s, start) {
            Some((end, escaped)) => {
                self.i = end + 1;
                Ok(JStr {
                    raw: &self.src[start..end],
                    escaped,
                })
            }
            None => {
                self.i = start;
                Err(self.fail("invalid string"))
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, what: &str) -> Box<Error> {
        Box::new(self.err(what))
    }
}

#[cold]
#[inline(never)]
fn too_deep() -> Box<Error> {
    Box::new(Error::new(
        ErrorCode::LimitExceeded,
        format!("JSON nesting deeper than {MAX_EVENT_DEPTH} levels"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dom_lookup_is_lenient_and_last_key_wins() {
        let v = parse(r#"{"a":{"b":"x\ty"},"a":{"b":"z"},"n":0}"#).unwrap();
        assert_eq!(v.at("a").at("b").as_str().unwrap(), "z");
        assert!(v.at("missing").at("deeper").is_null());
        assert!(!v.at("n").truthy());
        assert!(parse("{\"a\":1} x").is_err());
        let lone = parse(r#""\ud800x""#).unwrap();
        assert_eq!(lone.as_str().unwrap(), "\u{FFFD}x");
    }

    #[test]
    fn lone_surrogates_stay_escapes_in_json_text() {
        let (hi, lo) = (
            parse(r#""a\ud83d""#).unwrap(),
            parse(r#""\ude00b""#).unwrap(),
        );
        let mut args = String::from("\"");
        let mut lone = LoneEscapes::new();
        hi.as_jstr()
            .unwrap()
            .append_json_text_to(&mut args, &mut lone);
        lo.as_jstr()
            .unwrap()
            .append_json_text_to(&mut args, &mut lone);
        args.push('"');
        assert_eq!(args, r#""a\ud83d\ude00b""#);
        // Both halves are noted, and read together they are the character.
        assert_eq!(lone.offsets(), &[2, 8]);
        assert_eq!(
            super::super::text::from_argument_text(&args, &lone),
            "\"a😀b\""
        );
        assert_eq!(parse(&args).unwrap().as_str().unwrap(), "a😀b");
    }
}
