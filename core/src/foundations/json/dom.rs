//! The borrowed DOM of provider events: [`parse`] gives a [`Value`] whose
//! strings stay escaped slices of the input ([`JStr`]) until somebody asks
//! for their value; lookups follow `JSON.parse` (the last duplicate key wins).

use std::borrow::Cow;

use super::escape::{decode_into, Lone};
use super::lone_escapes::{decode_into_noting, LoneEscapes};
use super::scan::{scan_number, scan_string};
use crate::foundations::error::{Error, ErrorCode};

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

/// Dropped without recursion, as [`parse`] builds: a value nested a million
/// levels deep (the SDKs' `JSON.parse` takes any depth) must not exhaust
/// the stack on its way out either.
impl Drop for Value<'_> {
    fn drop(&mut self) {
        // A scalar holds nothing to walk (most values dropped).
        if !matches!(self, Value::Arr(_) | Value::Obj(_)) {
            return;
        }
        let mut nested = Vec::new();
        take_nested(self, &mut nested);
        while let Some(mut v) = nested.pop() {
            take_nested(&mut v, &mut nested);
        }
    }
}

/// Moves the arrays and objects that `v` holds, if any are not empty, to
/// `nested`, so that dropping `v` recurses no further.
fn take_nested<'a>(v: &mut Value<'a>, nested: &mut Vec<Value<'a>>) {
    let deep = |x: &Value<'_>| match x {
        Value::Arr(items) => !items.is_empty(),
        Value::Obj(entries) => !entries.is_empty(),
        _ => false,
    };
    match v {
        Value::Arr(items) if items.iter().any(deep) => {
            nested.extend(std::mem::take(items).into_iter().filter(deep));
        }
        Value::Obj(entries) if entries.iter().any(|(_, x)| deep(x)) => {
            nested.extend(
                std::mem::take(entries)
                    .into_iter()
                    .map(|(_, x)| x)
                    .filter(deep),
            );
        }
        _ => {}
    }
}

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

/// Whether `v` nests arrays and objects more than `levels` deep (`[]` is
/// one level), found without recursion.
pub fn nests_deeper_than(v: &Value<'_>, levels: usize) -> bool {
    let mut pending = vec![(v, 0usize)];
    while let Some((v, above)) = pending.pop() {
        let here = above + 1;
        match v {
            Value::Arr(items) => {
                if here > levels {
                    return true;
                }
                pending.extend(items.iter().map(|x| (x, here)));
            }
            Value::Obj(entries) => {
                if here > levels {
                    return true;
                }
                pending.extend(entries.iter().map(|(_, x)| (x, here)));
            }
            _ => {}
        }
    }
    false
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
    let v = p.value().map_err(|e| *e)?;
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

    /// One value, without recursion: the arrays and objects still open
    /// are on a heap stack, so any depth parses, as `JSON.parse` parses it.
    /// Errors are boxed and built out of line, off the hot path.
    fn value(&mut self) -> Result<Value<'a>, Box<Error>> {
        let mut open: Vec<Open<'a>> = Vec::new();
        loop {
            let mut v = match self.s.get(self.i) {
                None => return Err(self.fail("unexpected end")),
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        Value::Obj(Vec::new())
                    } else {
                        let key = self.key()?;
                        open.push(Open::Obj(Vec::with_capacity(6), key));
                        continue;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        Value::Arr(Vec::new())
                    } else {
                        open.push(Open::Arr(Vec::with_capacity(2)));
                        continue;
                    }
                }
                Some(b'"') => Value::Str(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(_) => {
                    let start = self.i;
                    match scan_number(self.s, self.i) {
                        Some(end) => {
                            self.i = end;
                            Value::Num(&self.src[start..end])
                        }
                        None => return Err(self.fail("unexpected character")),
                    }
                }
            };
            // The value completes members of the open containers, and
            // maybe the containers themselves.
            loop {
                self.ws();
                match open.last_mut() {
                    None => return Ok(v),
                    Some(Open::Arr(items)) => {
                        items.push(v);
                        match self.s.get(self.i) {
                            Some(b',') => {
                                self.i += 1;
                                self.ws();
                                break;
                            }
                            Some(b']') => {
                                self.i += 1;
                                let Some(Open::Arr(items)) = open.pop() else {
                                    unreachable!()
                                };
                                v = Value::Arr(items);
                            }
                            _ => return Err(self.fail("expected ',' or ']'")),
                        }
                    }
                    Some(Open::Obj(entries, key)) => {
                        entries.push((*key, v));
                        match self.s.get(self.i) {
                            Some(b',') => {
                                self.i += 1;
                                *key = self.key()?;
                                break;
                            }
                            Some(b'}') => {
                                self.i += 1;
                                let Some(Open::Obj(entries, _)) = open.pop() else {
                                    unreachable!()
                                };
                                v = Value::Obj(entries);
                            }
                            _ => return Err(self.fail("expected ',' or '}'")),
                        }
                    }
                }
            }
        }
    }

    /// An object's key and its colon, and the whitespace around them.
    fn key(&mut self) -> Result<JStr<'a>, Box<Error>> {
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
        Ok(k)
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

/// An array or object [`Parser::value`] has opened and not yet closed:
/// its members so far, and an object's key awaiting its value.
enum Open<'a> {
    Arr(Vec<Value<'a>>),
    Obj(Vec<(JStr<'a>, Value<'a>)>, JStr<'a>),
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
