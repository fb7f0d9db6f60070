//! JSON with JavaScript's semantics, without `serde_json::Value`.
//!
//! Three tools, each for one job on the hot path:
//! - [`parse`]: a borrowed, lenient DOM for provider events. Strings stay
//!   escaped slices of the input until somebody asks for their value, and
//!   property lookup follows `JSON.parse` (the last duplicate key wins), so a
//!   converter reads events the way the TypeScript reference reads objects.
//! - [`validate`]: is this text something `JSON.parse` accepts, and what is
//!   its top-level kind? Iterative (no recursion limit, like V8), used on
//!   accumulated tool arguments, whose text is then handed to JS verbatim.
//! - [`stringify`] / [`write_str`]: `JSON.stringify` output, byte for byte
//!   (integer-like keys first, shortest round-trip numbers, minimal escapes).

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::error::{Error, ErrorCode};

/// Nesting limit of [`parse`]. Provider events are shallow; the limit only
/// keeps hostile input from exhausting the stack.
pub const MAX_EVENT_DEPTH: usize = 512;

/// A JSON string as it appears in the source, still escaped.
#[derive(Clone, Copy, Debug)]
pub struct JStr<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> JStr<'a> {
    /// String content already validated by [`scan_string`].
    pub fn from_scanned(raw: &'a str, escaped: bool) -> Self {
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
        decode_into(self.raw, &mut out, false);
        Cow::Owned(out)
    }

    /// Appends the decoded value to `out`, which holds JSON text being
    /// accumulated (tool arguments): a lone UTF-16 surrogate stays a `\uXXXX`
    /// escape, so a pair split across two fragments rejoins when JS parses
    /// the whole text, as it does in the reference.
    pub fn append_json_text_to(&self, out: &mut String) {
        if self.escaped {
            decode_into(self.raw, out, true);
        } else {
            out.push_str(self.raw);
        }
    }

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
    Null,
    Bool(bool),
    /// The number's source text (already validated).
    Num(&'a str),
    Str(JStr<'a>),
    Arr(Vec<Value<'a>>),
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

    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn as_jstr(&self) -> Option<JStr<'a>> {
        match self {
            Value::Str(s) => Some(*s),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        self.as_jstr().map(|s| s.value())
    }

    /// The value as an `f64` when it is a JSON number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(parse_number(n)),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

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
    let v = p.value(0)?;
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

    fn value(&mut self, depth: usize) -> Result<Value<'a>, Error> {
        if depth > MAX_EVENT_DEPTH {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("JSON nesting deeper than {MAX_EVENT_DEPTH} levels"),
            ));
        }
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
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
                        return Err(self.err("expected a string key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return Err(self.err("expected ':'"));
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
                        _ => return Err(self.err("expected ',' or '}'")),
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
                        _ => return Err(self.err("expected ',' or ']'")),
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
                    None => Err(self.err("unexpected character")),
                }
            }
        }
    }

    fn literal(&mut self, word: &str, v: Value<'a>) -> Result<Value<'a>, Error> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected literal"))
        }
    }

    fn string(&mut self) -> Result<JStr<'a>, Error> {
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
                Err(self.err("invalid string"))
            }
        }
    }
}

/// Scans JSON string content starting after the opening quote. Returns the
/// index of the closing quote and whether any escape occurred; `None` when
/// the content is not a valid JSON string.
pub fn scan_string(s: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        let stop = i + find_stop(&s[i..])?;
        match s[stop] {
            b'"' => return Some((stop, escaped)),
            b'\\' => {
                escaped = true;
                match s.get(stop + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = stop + 2,
                    b'u' => {
                        let hex = s.get(stop + 2..stop + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i = stop + 6;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

/// The first byte that ends a run of plain string content: `"`, `\\` or a
/// control character a JSON string may not hold raw. Eight bytes at a time
/// (SWAR: a byte is flagged when it is zero after XOR with `"` or `\\`, or
/// below 0x20; the lowest flag is always exact, as the borrow of a
/// subtraction only runs upwards), then a table lookup a byte for the tail.
#[inline]
pub(crate) fn find_stop(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let flags = (zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if flags != 0 {
            return Some(at + (flags.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter()
        .position(|&c| STOP[usize::from(c)])
        .map(|p| at + p)
}

/// Bytes that end a run of plain string content.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Scans a JSON number at `i`; returns its end.
fn scan_number(s: &[u8], mut i: usize) -> Option<usize> {
    if s.get(i) == Some(&b'-') {
        i += 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !matches!(s.get(i), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(s.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !matches!(s.get(i), Some(b'0'..=b'9')) {
            return None;
        }
        while matches!(s.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    Some(i)
}

/// The value of four hex digits; `None` unless all four are hex digits.
fn hex4(b: &[u8]) -> Option<u32> {
    let b: &[u8; 4] = b.try_into().ok()?;
    b.iter().try_fold(0u32, |acc, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        Some(acc * 16 + u32::from(d))
    })
}

/// Decodes the escape whose backslash is `b[at]` into `out` and returns
/// where the content goes on; `None` when it is not a valid JSON escape. A
/// surrogate pair of escapes becomes its character; a lone surrogate
/// becomes U+FFFD, or stays an escape with `keep_lone`.
fn decode_escape(b: &[u8], at: usize, out: &mut String, keep_lone: bool) -> Option<usize> {
    let c = match *b.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = hex4(b.get(at + 2..at + 6)?)?;
            let next = at + 6;
            if (0xD800..0xDC00).contains(&hi) && b.get(next..next + 2) == Some(b"\\u") {
                if let Some(lo) = b.get(next + 2..next + 6).and_then(hex4) {
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        return Some(next + 6);
                    }
                }
            }
            match char::from_u32(hi) {
                Some(c) => out.push(c),
                None if keep_lone => {
                    let _ = write!(out, "\\u{hi:04x}");
                }
                None => out.push('\u{FFFD}'),
            }
            return Some(next);
        }
        _ => return None,
    };
    out.push(c);
    Some(at + 2)
}

/// Decodes validated string content (escapes included) into `out`. A lone
/// surrogate escape becomes U+FFFD, or stays an escape with `keep_lone`.
fn decode_into(raw: &str, out: &mut String, keep_lone: bool) {
    let b = raw.as_bytes();
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&raw[i..i + rel]);
        // Validated content: every escape decodes.
        i = decode_escape(b, i + rel, out, keep_lone).unwrap_or(b.len());
    }
    out.push_str(&raw[i.min(b.len())..]);
}

/// [`scan_string`] and [`JStr::append_json_text_to`] in one pass: scans the
/// string content of `s` from `i` (after the opening quote) and appends its
/// value to `out`, lone surrogates kept as escapes. Returns the index of the
/// closing quote; `None`, with `out` unchanged, when the content is not a
/// valid JSON string.
pub fn scan_json_text_into(s: &str, i: usize, out: &mut String) -> Option<usize> {
    let mark = out.len();
    let end = scan_into(s, i, out);
    if end.is_none() {
        out.truncate(mark);
    }
    end
}

fn scan_into(s: &str, mut i: usize, out: &mut String) -> Option<usize> {
    let b = s.as_bytes();
    loop {
        let stop = i + find_stop(b.get(i..)?)?;
        // `stop` is an ASCII byte, so both ends are character boundaries.
        out.push_str(&s[i..stop]);
        match b[stop] {
            b'"' => return Some(stop),
            b'\\' => i = decode_escape(b, stop, out, true)?,
            _ => return None,
        }
    }
}

/// The top-level kind of a JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

/// `JSON.parse` acceptance, iteratively: `Some(kind)` when the whole text is
/// one valid JSON value (surrounding JSON whitespace allowed).
pub fn validate(text: &str) -> Option<Kind> {
    let s = text.as_bytes();
    let mut i = skip_ws(s, 0);
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
                    // Expect a key.
                    if s.get(i) != Some(&b'"') {
                        return None;
                    }
                    let (end, _) = scan_string(s, i + 1)?;
                    i = skip_ws(s, end + 1);
                    if s.get(i) != Some(&b':') {
                        return None;
                    }
                    i = skip_ws(s, i + 1);
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
                None => return if i == s.len() { top } else { None },
                Some(&is_obj) => match s.get(i)? {
                    b',' => {
                        i = skip_ws(s, i + 1);
                        if is_obj {
                            if s.get(i) != Some(&b'"') {
                                return None;
                            }
                            let (end, _) = scan_string(s, i + 1)?;
                            i = skip_ws(s, end + 1);
                            if s.get(i) != Some(&b':') {
                                return None;
                            }
                            i = skip_ws(s, i + 1);
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

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
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

/// Writes `s` as a JSON string literal exactly as `JSON.stringify` does.
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &str = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04x}", c);
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
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
/// a duplicate key keeps its first position and its last value).
pub fn stringify(v: &Value<'_>, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Num(n) => write_number(out, parse_number(n)),
        // Unescaped source text is exactly what JSON.stringify writes.
        Value::Str(s) if !s.escaped => {
            out.reserve(s.raw.len() + 2);
            out.push('"');
            out.push_str(s.raw);
            out.push('"');
        }
        Value::Str(s) => write_str(out, &s.value()),
        Value::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                stringify(item, out);
            }
            out.push(']');
        }
        Value::Obj(entries) => {
            let mut keys: Vec<(Cow<'_, str>, &Value<'_>)> = Vec::with_capacity(entries.len());
            for (k, val) in entries {
                let k = k.value();
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
            indexed.sort_unstable();
            let order = indexed
                .iter()
                .map(|&(_, pos)| pos)
                .chain((0..keys.len()).filter(|pos| array_index(&keys[*pos].0).is_none()));
            out.push('{');
            for (i, pos) in order.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, &keys[pos].0);
                out.push(':');
                stringify(keys[pos].1, out);
            }
            out.push('}');
        }
    }
}

/// A canonical array index (`"0"`, `"17"`, up to 2^32 − 2), which JS orders
/// before every other property key.
fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || (k.len() > 1 && k.starts_with('0')) {
        return None;
    }
    if !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = k.parse().ok()?;
    (n < u64::from(u32::MAX)).then_some(n as u32)
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
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time search finds exactly the first stop byte, at
        /// every alignment and with several candidates in one word.
        #[test]
        fn find_stop_is_the_first_stop_byte(
            bytes in prop::collection::vec(prop_oneof![
                6 => 0x20u8..0x7f,
                1 => Just(b'"'),
                1 => Just(b'\\'),
                1 => 0u8..0x20,
                1 => 0x80u8..=0xff,
            ], 0..40),
        ) {
            for from in 0..=bytes.len() {
                let want = bytes[from..].iter().position(|&c| STOP[usize::from(c)]);
                prop_assert_eq!(find_stop(&bytes[from..]), want);
            }
        }

        /// The one-pass scan + decode agrees with scan_string followed by
        /// append_json_text_to, on valid and invalid content alike.
        #[test]
        fn scan_json_text_into_is_scan_then_append(
            pieces in prop::collection::vec(prop_oneof![
                Just("a"), Just("é"), Just("😀"), Just("\\\""), Just("\\\\"), Just("\\/"),
                Just("\\n"), Just("\\t"), Just("\\b"), Just("\\u0041"), Just("\\u00E9"),
                Just("\\ud83d"), Just("\\uDE00"), Just("\\ud83d\\ude00"), Just("\\u12"),
                Just("\\x"), Just("\\"), Just("\""), Just("\u{1}"), Just("tail"),
            ], 0..12),
        ) {
            let s: String = pieces.concat();
            let mut got = String::from("prefix");
            let end = scan_json_text_into(&s, 0, &mut got);
            let mut want = String::from("prefix");
            let scanned = scan_string(s.as_bytes(), 0);
            if let Some((end, escaped)) = scanned {
                JStr::from_scanned(&s[..end], escaped).append_json_text_to(&mut want);
            }
            prop_assert_eq!(end, scanned.map(|(end, _)| end));
            prop_assert_eq!(got, want);
        }
    }

    fn roundtrip(src: &str) -> String {
        let v = parse(src).unwrap();
        let mut out = String::new();
        stringify(&v, &mut out);
        out
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
        assert_eq!(
            roundtrip(r#""\u0041\u00e9\ud83d\ude00\n\u001f/""#),
            "\"Aé😀\\n\\u001f/\""
        );
        assert_eq!(
            roundtrip(r#"{"01":1,"10":2,"4294967295":3,"4294967294":4}"#),
            r#"{"10":2,"4294967294":4,"01":1,"4294967295":3}"#
        );
    }

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
        hi.as_jstr().unwrap().append_json_text_to(&mut args);
        lo.as_jstr().unwrap().append_json_text_to(&mut args);
        args.push('"');
        assert_eq!(args, r#""a\ud83d\ude00b""#);
        assert_eq!(parse(&args).unwrap().as_str().unwrap(), "a😀b");
    }

    #[test]
    fn write_str_escapes_like_json_stringify() {
        let mut out = String::new();
        write_str(&mut out, "a\"b\\c\u{1}\u{8}\u{2028}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\u0001\\b\u{2028}é\"");
    }

    #[test]
    fn utf16_offsets() {
        assert_eq!(utf16_len("a😀é"), 4);
        assert_eq!(utf16_to_byte("a😀é", 3), 5);
    }
}
