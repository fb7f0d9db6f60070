//! Property reads as the reference's JavaScript makes them on a parsed
//! event: `value.key` throws V8's `TypeError` on `null` and `undefined`,
//! `value?.key` does not, and a read on any other non-object is `undefined`.

use crate::foundations::error::Error;
use crate::foundations::json::{to_json_string, Value};

/// `value.key` (`value`: `None` is `undefined`).
pub(super) fn read<'v, 'a>(
    value: Option<&'v Value<'a>>,
    key: &str,
    event: &str,
) -> Result<Option<&'v Value<'a>>, Error> {
    match value {
        None => Err(Error::null_read(unreadable(event), false, key)),
        Some(Value::Null) => Err(Error::null_read(unreadable(event), true, key)),
        Some(v) => Ok(v.get(key)),
    }
}

/// `value?.key`.
pub(super) fn read_opt<'v, 'a>(value: Option<&'v Value<'a>>, key: &str) -> Option<&'v Value<'a>> {
    value.and_then(|v| v.get(key))
}

/// `a ?? b`.
pub(super) fn nullish_or<'v, 'a>(
    a: Option<&'v Value<'a>>,
    b: Option<&'v Value<'a>>,
) -> Option<&'v Value<'a>> {
    match a {
        None | Some(Value::Null) => b,
        some => some,
    }
}

/// The value is truthy (`undefined` is not).
pub(super) fn truthy(value: Option<&Value<'_>>) -> bool {
    value.is_some_and(Value::truthy)
}

/// The value's `JSON.stringify` text; `None` for `undefined`.
pub(super) fn json(value: Option<&Value<'_>>) -> Option<String> {
    value.map(to_json_string)
}

/// `value === "text"`.
pub(super) fn is_str(value: Option<&Value<'_>>, text: &str) -> bool {
    value.and_then(Value::as_str).is_some_and(|s| s == text)
}

/// The message of the error our API gives where the reference's code
/// throws a `TypeError` on an event.
pub(super) fn unreadable(event: &str) -> String {
    format!("a {event:?} event Qwen Code cannot read (its converter throws a TypeError)")
}

/// `${value}` (a template literal's `String(value)`, `undefined` included).
pub(super) fn js_string(value: Option<&Value<'_>>) -> String {
    value.map_or_else(
        || "undefined".to_owned(),
        crate::foundations::js_text::js_to_string,
    )
}
