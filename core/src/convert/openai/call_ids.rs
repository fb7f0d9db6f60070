//! Tool-call ids as the parser keys them (`StreamingToolCallParser`'s
//! `idToIndexMap` and `!==` tests, and the converter's `preparedToolCallIds`
//! set).
//!
//! By default an id is a string, or a number taken by its JS text; ids of
//! other types are ignored, so every id the package hands out is a string.
//! With JS ids ([`super::OpenAIOptions::js_tool_call_ids`], the Qwen
//! preload's setting) every truthy value is an id, as in the reference, and
//! compares as `Map` and `===` compare it: a string by its value, a number
//! and `true` by value and type, an object or array by identity (each
//! occurrence is another id). Its key is then the string itself, or for a
//! value of another type [`MARK`] followed by a type letter and what tells
//! it apart; a string id that starts with [`MARK`] is kept behind one more.

use crate::foundations::js_text::js_to_string;
use crate::foundations::json::{self, Value};

/// Begins the key of a JS id that is not a plain string (a noncharacter).
const MARK: char = '\u{10FFFF}';

/// One stream's id keys.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    js: bool,
    /// Objects and arrays seen as ids: each one is another id.
    objects: u64,
}

/// What an id is written as.
pub(super) enum CallId<'k> {
    /// A string id.
    Str(&'k str),
    /// The JSON text of an id of another type (JS ids only).
    Json(&'k str),
}

impl CallIds {
    pub(super) fn new(js: bool) -> Self {
        CallIds { js, objects: 0 }
    }

    /// The key of `toolCall.id`, or `None` where `if (id)` is false (or,
    /// by default, where the id is not a string or a number).
    pub(super) fn key(&mut self, v: &Value<'_>) -> Option<String> {
        if self.js && matches!(v, Value::Obj(_) | Value::Arr(_)) {
            self.objects += 1;
            return Some(format!(
                "{MARK}o{}:{}",
                self.objects,
                json::to_json_string(v)
            ));
        }
        self.value_key(v)
    }

    /// [`CallIds::key`] of an id that is not an object or array (these
    /// take no key here: each occurrence is another id).
    pub(super) fn value_key(&self, v: &Value<'_>) -> Option<String> {
        match v {
            Value::Str(s) => {
                let s = s.value();
                match s.chars().next() {
                    None => None,
                    Some(MARK) if self.js => Some(format!("{MARK}{s}")),
                    Some(_) => Some(s.into_owned()),
                }
            }
            Value::Num(_) if v.truthy() => Some(if self.js {
                format!("{MARK}n{}", js_to_string(v))
            } else {
                js_to_string(v)
            }),
            Value::Bool(true) if self.js => Some(format!("{MARK}btrue")),
            _ => None,
        }
    }

    /// Whether `v` is an id that only its occurrence identifies.
    pub(super) fn is_identity(&self, v: &Value<'_>) -> bool {
        self.js && matches!(v, Value::Obj(_) | Value::Arr(_))
    }

    /// What the id of `key` is written as.
    pub(super) fn id<'k>(&self, key: &'k str) -> CallId<'k> {
        let Some(rest) = key.strip_prefix(MARK).filter(|_| self.js) else {
            return CallId::Str(key);
        };
        match rest.chars().next() {
            Some(MARK) => CallId::Str(rest),
            Some('n') => CallId::Json(&rest[1..]),
            Some('b') => CallId::Json(&rest[1..]),
            Some('o') => CallId::Json(rest.split_once(':').map_or(rest, |(_, json)| json)),
            _ => CallId::Str(key),
        }
    }

    /// The id of `key` as JSON text.
    pub(super) fn json(&self, key: &str) -> String {
        match self.id(key) {
            CallId::Json(json) => json.to_owned(),
            CallId::Str(s) => {
                let mut out = String::with_capacity(s.len() + 2);
                json::write_str(&mut out, s);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(js: bool, ids: &[&str]) -> Vec<Option<String>> {
        let mut c = CallIds::new(js);
        ids.iter()
            .map(|t| c.key(&json::parse(t).unwrap()).map(|k| c.json(&k)))
            .collect()
    }

    #[test]
    fn by_default_strings_and_numbers_are_ids() {
        let got = keys(false, &[r#""a""#, "5", "true", r#"{"x":1}"#, "0", r#""""#]);
        let want = [Some(r#""a""#), Some(r#""5""#), None, None, None, None];
        assert_eq!(got, want.map(|w| w.map(str::to_owned)));
    }

    #[test]
    fn js_ids_keep_their_values_and_compare_as_js_does() {
        let got = keys(true, &["5", "true", r#"["a",1]"#, "false", r#""a""#]);
        let want = [
            Some("5"),
            Some("true"),
            Some(r#"["a",1]"#),
            None,
            Some(r#""a""#),
        ];
        assert_eq!(got, want.map(|w| w.map(str::to_owned)));
        let mut c = CallIds::new(true);
        let five = c.key(&json::parse("5").unwrap());
        assert_ne!(five, c.key(&json::parse(r#""5""#).unwrap()));
        let object = json::parse(r#"{"t":1}"#).unwrap();
        assert_ne!(c.key(&object), c.key(&object), "each object is another id");
        let marked = format!("\"{MARK}x\"");
        let key = c.key(&json::parse(&marked).unwrap()).unwrap();
        assert_eq!(c.json(&key), marked);
    }
}
