//! The token counts of a stream and its `usageMetadata`
//! (`buildAnthropicUsageMetadata`, docs/behaviour.md §2.5).

use crate::foundations::js_value::JsValue;
use crate::foundations::json::{self, Value};
use crate::model::usage_metadata;
use crate::model::usage_provenance::UsageProvenance;

/// The token counts as the reference holds them: whatever value the
/// provider sent where it does not check the type (`message_start`'s
/// counts, `message_delta`'s `output_tokens`: a string, `null`, …), added
/// and compared with JS operators in `buildAnthropicUsageMetadata`; and
/// whether `message_start`'s usage still waits for a chunk to ride on.
#[derive(Default)]
pub(super) struct TokenCounts {
    /// `message_start` reported usage that no chunk has carried yet: the
    /// next chunk yielded carries it (`takePendingMessageStartUsage`), unless
    /// a finish chunk, which carries the usage anyway, comes first.
    pub(super) message_start_pending: bool,
    cached: JsValue,
    cache_creation: JsValue,
    prompt: JsValue,
    completion: JsValue,
    cached_reported: bool,
    cache_creation_reported: bool,
    prompt_reported: bool,
    completion_reported: bool,
}

impl TokenCounts {
    /// `message_start`'s `message.usage`: `usage?.x ?? previous` for each
    /// count, any value but null, as it is; pending for the next chunk when
    /// some count was reported.
    pub(super) fn read_message_start(&mut self, usage: &Value<'_>) {
        self.prompt_reported |= is_number(usage.get("input_tokens"));
        self.completion_reported |= is_number(usage.get("output_tokens"));
        self.cached_reported |= is_number(usage.get("cache_read_input_tokens"));
        self.cache_creation_reported |= is_number(usage.get("cache_creation_input_tokens"));
        let given = |key| present(usage.get(key)).map(JsValue::of);
        if let Some(v) = given("cache_read_input_tokens") {
            self.cached = v;
        }
        if let Some(v) = given("cache_creation_input_tokens") {
            self.cache_creation = v;
        }
        if let Some(v) = given("input_tokens") {
            self.prompt = v;
        }
        if let Some(v) = given("output_tokens") {
            self.completion = v;
        }
        self.message_start_pending = self.any_reported();
    }

    /// `takePendingMessageStartUsage()`: the usage `message_start` left for
    /// the next chunk, taken.
    pub(super) fn take_message_start(&mut self) -> Option<crate::model::gemini::Usage> {
        std::mem::take(&mut self.message_start_pending).then(|| self.metadata())
    }

    /// `message_delta`'s `usage`: `output_tokens` whatever its value
    /// (`!== undefined`), the others only as numbers.
    pub(super) fn read_message_delta(&mut self, usage: Option<&Value<'_>>) {
        if let Some(out_tokens) = json::get(usage, "output_tokens") {
            self.completion = JsValue::of(out_tokens);
            self.completion_reported = true;
        }
        if let Some(v) = json::get(usage, "input_tokens").and_then(Value::as_f64) {
            self.prompt = JsValue::number(v);
            self.prompt_reported = true;
        }
        if let Some(v) = json::get(usage, "cache_read_input_tokens").and_then(Value::as_f64) {
            self.cached = JsValue::number(v);
            self.cached_reported = true;
        }
        if let Some(v) = json::get(usage, "cache_creation_input_tokens").and_then(Value::as_f64) {
            self.cache_creation = JsValue::number(v);
            self.cache_creation_reported = true;
        }
    }

    /// Some count was reported: `message_stop` yields a finish chunk.
    pub(super) fn any_reported(&self) -> bool {
        self.prompt_reported
            || self.completion_reported
            || self.cached_reported
            || self.cache_creation_reported
    }

    /// `buildAnthropicUsageMetadata` (docs/behaviour.md §2.5): the JSON text and the
    /// provenance it attaches.
    pub(super) fn metadata(&self) -> crate::model::gemini::Usage {
        crate::model::gemini::Usage {
            json: self.metadata_json(),
            provenance: UsageProvenance::with_cache_creation(
                self.cached_reported,
                self.cache_creation_reported
                    .then(|| self.cache_creation.as_number()),
            ),
        }
    }

    fn metadata_json(&self) -> String {
        usage_metadata::anthropic(
            &self.prompt,
            &self.cached,
            &self.cache_creation,
            self.cache_creation_reported,
            self.completion_reported.then_some(&self.completion),
        )
    }
}

/// `x ?? fallback` reads: present and not null.
fn present<'v, 'a>(v: Option<&'v Value<'a>>) -> Option<&'v Value<'a>> {
    v.filter(|v| !v.is_null())
}

fn is_number(v: Option<&Value<'_>>) -> bool {
    matches!(v, Some(Value::Num(_)))
}
