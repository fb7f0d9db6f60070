//! Reading a chunk's fields as the reference reads them: `choices?.[0]`,
//! a tool call's `index ?? 0` and its id.

use super::tool_call_parser::ProviderIndex;
use crate::foundations::json::Value;

/// `toolCall.index ?? 0`, checked as the parser does (`Number.isSafeInteger`
/// and non-negative).
pub(super) fn provider_index(v: Option<&Value<'_>>) -> ProviderIndex {
    match v.filter(|v| !v.is_null()) {
        None => ProviderIndex::Valid(0),
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
                ProviderIndex::Valid(n as u64)
            }
            _ => ProviderIndex::Invalid,
        },
    }
}

/// `v?.[0]`: an array's first item, an object's `"0"` member, and for a
/// non-empty string its first character, which stands here as the string
/// itself (every property the converter reads of either is undefined).
pub(super) fn first<'v, 'a>(v: &'v Value<'a>) -> Option<&'v Value<'a>> {
    match v {
        Value::Arr(items) => items.first(),
        Value::Obj(_) => v.get("0"),
        Value::Str(s) if !s.is_empty() => Some(v),
        _ => None,
    }
}

pub(super) trait FirstOrNull<'a> {
    fn as_first(&self) -> &Value<'a>;
}

impl<'a> FirstOrNull<'a> for Value<'a> {
    /// `v?.[0]`, reading as `null` when absent.
    fn as_first(&self) -> &Value<'a> {
        static NULL: Value<'static> = Value::Null;
        first(self).unwrap_or(&NULL)
    }
}
