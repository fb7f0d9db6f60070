//! [`OwnedValue`]: an owned JSON value with JavaScript's semantics, for
//! values the core builds and hands to JS (the ACP frames), written by
//! [`OwnedValue::write`] as `JSON.stringify` writes the same JS value.

use std::fmt;
use std::ops::Index;

use super::dom::{parse, parse_number, Value};
use super::js_string::JsString;
use super::stringify::{array_index, write_number};
use crate::foundations::error::{Error, ErrorCode};

/// The nesting [`OwnedValue::parse`] takes (the ACP frames' values: tool
/// arguments, plans), as the event parser took before it stopped
/// recursing; an owned value is still recursive.
pub const MAX_OWNED_DEPTH: usize = 512;

/// An owned JSON value: what `JSON.parse` gives, or what the core builds.
///
/// Strings are [`JsString`]s, so a lone UTF-16 surrogate survives both
/// ways. Object entries keep insertion order with unique keys; as in JS,
/// array-index keys (`"0"`, `"17"`) are written first, ascending. Numbers
/// are `f64`s written as `JSON.stringify` writes them (`-0` as `0`, `1e21`
/// as `1e+21`, non-finite as `null`). Nesting is bounded only by the
/// parser's limit ([`parse`]'s 512 levels) for parsed values.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedValue {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string.
    Str(JsString),
    /// An array.
    Arr(Vec<OwnedValue>),
    /// An object's entries, in insertion order, keys unique.
    Obj(Vec<(JsString, OwnedValue)>),
}

static NULL: OwnedValue = OwnedValue::Null;

impl OwnedValue {
    /// `JSON.parse(text)` (the core's parser, [`parse`]): the last duplicate
    /// key wins, in the first one's place; a number beyond `f64` (`1e400`)
    /// is `null`, as `JSON.stringify` would write it.
    /// Nested at most [`MAX_OWNED_DEPTH`] levels: an owned value is built,
    /// written and dropped recursively.
    pub fn parse(text: &str) -> Result<OwnedValue, Error> {
        let dom = parse(text)?;
        if super::dom::nests_deeper_than(&dom, MAX_OWNED_DEPTH) {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("JSON nesting deeper than {MAX_OWNED_DEPTH} levels"),
            ));
        }
        Ok(OwnedValue::from_dom(&dom))
    }

    /// An owned copy of a parsed value, with [`OwnedValue::parse`]'s rules.
    pub fn from_dom(v: &Value<'_>) -> OwnedValue {
        match v {
            Value::Null => OwnedValue::Null,
            Value::Bool(b) => OwnedValue::Bool(*b),
            Value::Num(n) => {
                let n = parse_number(n);
                if n.is_finite() {
                    OwnedValue::Num(n)
                } else {
                    OwnedValue::Null
                }
            }
            Value::Str(s) => OwnedValue::Str(JsString::from_jstr(*s)),
            Value::Arr(items) => OwnedValue::Arr(items.iter().map(OwnedValue::from_dom).collect()),
            Value::Obj(entries) => {
                let mut obj = OwnedValue::Obj(Vec::with_capacity(entries.len()));
                for (k, item) in entries {
                    obj.insert(JsString::from_jstr(*k), OwnedValue::from_dom(item));
                }
                obj
            }
        }
    }

    /// An object from `(key, value)` entries, keys given as Rust text
    /// (a later duplicate replaces the earlier value in its place).
    pub fn object<K: Into<JsString>>(entries: impl IntoIterator<Item = (K, OwnedValue)>) -> Self {
        let mut obj = OwnedValue::Obj(Vec::new());
        for (k, v) in entries {
            obj.insert(k, v);
        }
        obj
    }

    /// Sets `key` on an object: an existing key keeps its place (as a JS
    /// assignment does), a new one goes last. No-op on anything else.
    pub fn insert(&mut self, key: impl Into<JsString>, value: OwnedValue) {
        let OwnedValue::Obj(entries) = self else {
            return;
        };
        let key = key.into();
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => entries.push((key, value)),
        }
    }

    /// The value of `key` when this is an object holding it (`undefined`
    /// otherwise).
    pub fn get(&self, key: &str) -> Option<&OwnedValue> {
        match self {
            OwnedValue::Obj(entries) => entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&JsString> {
        match self {
            OwnedValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items, when this is an array.
    pub fn as_array(&self) -> Option<&[OwnedValue]> {
        match self {
            OwnedValue::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// The number, when this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            OwnedValue::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, OwnedValue::Null)
    }

    /// Whether this is an object (not an array).
    pub fn is_object(&self) -> bool {
        matches!(self, OwnedValue::Obj(_))
    }

    /// Appends `JSON.stringify(value)` to `out`.
    pub fn write(&self, out: &mut String) {
        match self {
            OwnedValue::Null => out.push_str("null"),
            OwnedValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            OwnedValue::Num(n) => write_number(out, *n),
            OwnedValue::Str(s) => s.write_json(out),
            OwnedValue::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            OwnedValue::Obj(entries) => {
                let entry = |out: &mut String, i: usize, (k, v): &(JsString, OwnedValue)| {
                    if i > 0 {
                        out.push(',');
                    }
                    k.write_json(out);
                    out.push(':');
                    v.write(out);
                };
                out.push('{');
                let is_index = |k: &JsString| array_index(k.escaped()).is_some();
                if entries.iter().any(|(k, _)| is_index(k)) {
                    let mut indexed: Vec<(u32, usize)> = entries
                        .iter()
                        .enumerate()
                        .filter_map(|(pos, (k, _))| array_index(k.escaped()).map(|n| (n, pos)))
                        .collect();
                    indexed.sort_unstable();
                    let order = indexed
                        .iter()
                        .map(|&(_, pos)| pos)
                        .chain((0..entries.len()).filter(|&pos| !is_index(&entries[pos].0)));
                    for (i, pos) in order.enumerate() {
                        entry(out, i, &entries[pos]);
                    }
                } else {
                    for (i, e) in entries.iter().enumerate() {
                        entry(out, i, e);
                    }
                }
                out.push('}');
            }
        }
    }

    /// `JSON.stringify(value)` as a new string.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// `JSON.stringify(value)`.
impl fmt::Display for OwnedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// `value[key]`: `null` when absent or not an object.
impl Index<&str> for OwnedValue {
    type Output = OwnedValue;
    fn index(&self, key: &str) -> &OwnedValue {
        self.get(key).unwrap_or(&NULL)
    }
}

/// `value[i]`: `null` when absent or not an array.
impl Index<usize> for OwnedValue {
    type Output = OwnedValue;
    fn index(&self, i: usize) -> &OwnedValue {
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
    }
}

/// Whether this is the string `other`.
impl PartialEq<&str> for OwnedValue {
    fn eq(&self, other: &&str) -> bool {
        self.as_str().is_some_and(|s| s == other)
    }
}

/// Whether this is the boolean `other`.
impl PartialEq<bool> for OwnedValue {
    fn eq(&self, other: &bool) -> bool {
        matches!(self, OwnedValue::Bool(b) if b == other)
    }
}

impl From<&str> for OwnedValue {
    fn from(s: &str) -> Self {
        OwnedValue::Str(s.into())
    }
}

impl From<JsString> for OwnedValue {
    fn from(s: JsString) -> Self {
        OwnedValue::Str(s)
    }
}

impl From<&JsString> for OwnedValue {
    fn from(s: &JsString) -> Self {
        OwnedValue::Str(s.clone())
    }
}

impl From<bool> for OwnedValue {
    fn from(b: bool) -> Self {
        OwnedValue::Bool(b)
    }
}

impl From<f64> for OwnedValue {
    fn from(n: f64) -> Self {
        OwnedValue::Num(n)
    }
}

impl From<u32> for OwnedValue {
    fn from(n: u32) -> Self {
        OwnedValue::Num(f64::from(n))
    }
}

impl From<Vec<OwnedValue>> for OwnedValue {
    fn from(items: Vec<OwnedValue>) -> Self {
        OwnedValue::Arr(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_json_stringify_writes() {
        let v = OwnedValue::object([
            ("z", OwnedValue::from("a\"b")),
            ("2", OwnedValue::Num(-0.0)),
            ("a", OwnedValue::Num(1e21)),
            ("1", OwnedValue::Num(1e-7)),
            ("n", OwnedValue::Num(f64::NAN)),
            ("i", OwnedValue::Num(f64::INFINITY)),
            ("f", OwnedValue::Num(0.1 + 0.2)),
            ("big", OwnedValue::Num(123456789012345680000.0)),
            ("t", OwnedValue::Arr(vec![true.into(), OwnedValue::Null])),
        ]);
        // Index keys first, ascending; then insertion order.
        assert_eq!(
            v.to_json(),
            r#"{"1":1e-7,"2":0,"z":"a\"b","a":1e+21,"n":null,"i":null,"f":0.30000000000000004,"big":123456789012345680000,"t":[true,null]}"#
        );
        assert_eq!(v.to_string(), v.to_json());
        assert_eq!(v["z"], "a\"b");
        assert!(v["missing"]["deeper"].is_null());
        assert_eq!(v["t"][0], true);
    }

    #[test]
    fn keeps_lone_surrogates_and_reads_like_json_parse() {
        let text =
            r#"{"b":1,"a":2,"b":3,"s\ud800":"x\uDC00y\ud83d\ude00","n":[1.0,-0,1e400,0.5,1E-7]}"#;
        let v = OwnedValue::parse(text).unwrap();
        // The last duplicate wins in the first one's place; a lone surrogate
        // stays an escape, in keys too.
        assert_eq!(
            v.to_json(),
            r#"{"b":3,"a":2,"s\ud800":"x\udc00y😀","n":[1,0,null,0.5,1e-7]}"#
        );
        let deep = format!("{}{}", "[".repeat(400), "]".repeat(400));
        assert_eq!(OwnedValue::parse(&deep).unwrap().to_json(), deep);
        let mut obj = OwnedValue::parse(r#"{"k":1,"j":2}"#).unwrap();
        obj.insert("k", OwnedValue::Null);
        obj.insert("l", 3u32.into());
        assert_eq!(obj.to_json(), r#"{"k":null,"j":2,"l":3}"#);
    }

    /// JSON texts with what the two writers must agree on: lone surrogates,
    /// escapes JSON.stringify does not write, duplicate and index keys,
    /// numbers JS writes its own way.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "a",
            r"\ud800",
            r"\udc00",
            r"\ud83d\ude00",
            r"\ude00\ud83d",
            r"\u0041",
            r"\n",
            "é",
            r#"\""#,
            r"\u001f",
            r"\/",
            "0",
            "1",
            "01",
        ]);
        let string = prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
        let number = prop::sample::select(vec![
            "-0",
            "1e21",
            "1E-7",
            "0.1",
            "123456789012345678901234567890",
            "1e400",
            "-5",
            "4294967295",
        ])
        .prop_map(String::from);
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            number,
            string.clone(),
        ];
        leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((string.clone(), inner), 0..4).prop_map(|v| {
                    let entries: Vec<String> =
                        v.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
                    format!("{{{}}}", entries.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        /// One JSON stack: the owned value writes what the converters'
        /// stringify writes for the same text, and its output read back is
        /// written the same again.
        #[test]
        fn owned_values_write_what_the_converters_write(text in json_text()) {
            let written = OwnedValue::parse(&text).unwrap().to_json();
            proptest::prop_assert_eq!(&written, &crate::foundations::json::to_json_string(&parse(&text).unwrap()));
            proptest::prop_assert_eq!(OwnedValue::parse(&written).unwrap().to_json(), written);
        }
    }
}
