//! A JSON value as JavaScript's operators see it, for the arithmetic the
//! reference does on provider values without checking their type: token
//! counts (`inputTokens + cacheReadTokens`, `cacheReadTokens > 0`) that a
//! provider may send as strings, where `+` concatenates.

use crate::foundations::js_text::{js_to_number, js_to_string};
use crate::foundations::json::{self, Value};

/// The JS type of a value, as far as the operators care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A number.
    Number,
    /// A string, or an object or array (their primitive is a string).
    Text,
    /// `null` or a boolean (their primitive is not a string).
    Other,
}

/// One value: its JSON text (`JSON.stringify`), its `String(v)`, its
/// `Number(v)` and its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct JsValue {
    kind: Kind,
    json: String,
    text: String,
    number: f64,
}

impl JsValue {
    /// A number.
    pub fn number(n: f64) -> JsValue {
        let mut text = String::new();
        json::write_number(&mut text, n);
        JsValue {
            kind: Kind::Number,
            // `String(NaN)` is `NaN`, its JSON `null`.
            json: text.clone(),
            text: if n.is_nan() {
                "NaN".to_owned()
            } else if n.is_infinite() {
                if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
            } else {
                text
            },
            number: n,
        }
    }

    /// A parsed JSON value.
    pub fn of(v: &Value<'_>) -> JsValue {
        if let Value::Num(_) = v {
            return JsValue::number(js_to_number(v));
        }
        let kind = match v {
            Value::Str(_) | Value::Arr(_) | Value::Obj(_) => Kind::Text,
            _ => Kind::Other,
        };
        JsValue {
            kind,
            json: json::to_json_string(v),
            text: js_to_string(v),
            number: js_to_number(v),
        }
    }

    /// `Number(v)`.
    pub fn as_number(&self) -> f64 {
        self.number
    }

    /// Whether the value is a number (`typeof v === "number"`).
    pub fn is_number(&self) -> bool {
        self.kind == Kind::Number
    }

    /// `a + b`: string concatenation when either primitive is a string.
    pub fn add(&self, other: &JsValue) -> JsValue {
        if self.kind == Kind::Text || other.kind == Kind::Text {
            let text = format!("{}{}", self.text, other.text);
            let mut json = String::with_capacity(text.len() + 2);
            json::write_str(&mut json, &text);
            JsValue {
                kind: Kind::Text,
                json,
                number: f64::NAN,
                text,
            }
        } else {
            JsValue::number(self.number + other.number)
        }
    }

    /// `a === 0`.
    pub fn is_zero(&self) -> bool {
        self.kind == Kind::Number && self.number == 0.0
    }

    /// `a > 0`.
    pub fn is_positive(&self) -> bool {
        self.number > 0.0
    }

    /// `a >= b`: by text when both primitives are strings, else by number.
    pub fn at_least(&self, other: &JsValue) -> bool {
        if self.kind == Kind::Text && other.kind == Kind::Text {
            // UTF-16 order equals code point order but for astral characters
            // against U+E000..U+FFFF, which no count holds.
            self.text >= other.text
        } else {
            self.number >= other.number
        }
    }

    /// The value as `JSON.stringify` writes it.
    pub fn json(&self) -> &str {
        &self.json
    }
}

impl Default for JsValue {
    fn default() -> Self {
        JsValue::number(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> JsValue {
        JsValue::of(&json::parse(text).unwrap())
    }

    #[test]
    fn plus_concatenates_when_a_side_is_text() {
        assert_eq!(v(r#""10""#).add(&v("2")).add(&v("0")).json(), r#""1020""#);
        assert_eq!(v("1").add(&v("2")).json(), "3");
        assert_eq!(v("null").add(&v("2")).json(), "2");
        assert_eq!(v("true").add(&v(r#""x""#)).json(), r#""truex""#);
        assert_eq!(v("[1]").add(&v("1")).json(), r#""11""#);
        assert_eq!(v("{}").add(&v("1")).json(), r#""[object Object]1""#);
        assert_eq!(JsValue::number(f64::NAN).json(), "null");
    }

    #[test]
    fn comparisons_follow_javascript() {
        assert!(v(r#""2""#).is_positive());
        assert!(!v(r#""2""#).is_zero());
        assert!(v("0").is_zero());
        assert!(v(r#""9""#).at_least(&v(r#""10""#)), "text order");
        assert!(!v("9").at_least(&v(r#""10""#)), "number order");
        assert!(!v("{}").at_least(&v("0")));
    }
}
