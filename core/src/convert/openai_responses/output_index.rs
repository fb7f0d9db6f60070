//! An `output_index` as a key of the reference's `Map`s
//! (`ResponsesStreamState.funcCallArgs` and `messages`): any JSON value, or
//! `undefined`, compared as `Map` compares keys (SameValueZero). A number is
//! its value (`1` and `1.0` are one key), a string its text, and an object
//! or array is a new object on every `JSON.parse`, equal to no other key.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::foundations::json::Value;

/// One `Map` key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum OutputIndex {
    Undefined,
    Null,
    Bool(bool),
    /// The number's bits, `-0` as `0` (JSON has no `NaN`).
    Number(u64),
    String(String),
    /// An object or array: unique.
    Object(u64),
}

static OBJECTS: AtomicU64 = AtomicU64::new(0);

impl OutputIndex {
    /// The key `value` (`None`: `undefined`) is.
    pub(super) fn of(value: Option<&Value<'_>>) -> OutputIndex {
        match value {
            None => OutputIndex::Undefined,
            Some(Value::Null) => OutputIndex::Null,
            Some(Value::Bool(b)) => OutputIndex::Bool(*b),
            // The common index, a small integer, without a float parse.
            Some(Value::Num(text))
                if text.len() < 16 && text.bytes().all(|b| b.is_ascii_digit()) =>
            {
                let n = text.bytes().fold(0u64, |n, b| n * 10 + u64::from(b - b'0')) as f64;
                OutputIndex::Number(if n == 0.0 { 0 } else { n.to_bits() })
            }
            Some(v @ Value::Num(_)) => {
                let n = v.as_f64().unwrap_or(0.0);
                OutputIndex::Number(if n == 0.0 { 0 } else { n.to_bits() })
            }
            Some(Value::Str(s)) => OutputIndex::String(s.text().into_owned()),
            Some(Value::Arr(_) | Value::Obj(_)) => {
                OutputIndex::Object(OBJECTS.fetch_add(1, Ordering::Relaxed))
            }
        }
    }

    /// The index of an item of `response.output` (`forEach`'s `index`).
    pub(super) fn position(i: usize) -> OutputIndex {
        let n = i as f64;
        OutputIndex::Number(if n == 0.0 { 0 } else { n.to_bits() })
    }
}
