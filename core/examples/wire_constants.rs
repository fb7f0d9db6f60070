//! Prints what the JS layer takes from the core's own constants, as one JSON
//! object: under `"wire"`, the wire constants (the state word's bits, the
//! compact chunk kinds, the batch item keys); under `"keyOrders"`, every
//! key order a provider declares with a header id (a header item's `f`),
//! with its keys;
//! under `"hotShapes"`, each provider's hot SDK object shapes
//! (`toolcall_stream_core::convert::hot_shape`); under `"providers"`, every
//! provider's name, in `PROVIDERS` order; under `"providerProfiles"`, each
//! provider's profiles as its row lists them (its default first).
//! `node scripts/generate.mjs` runs it and writes
//! `lib/generated/wire-constants.js`, `lib/generated/simple-response.js` and
//! `lib/generated/hot-shapes.js`.
//!
//!     cargo run -q -p toolcall-stream-core --example wire_constants

use toolcall_stream_core::convert::anthropic::{event_header, object_path as anthropic_path};
use toolcall_stream_core::convert::hot_shape::{Capture, HotShape, Step, Test};
use toolcall_stream_core::convert::openai::{chunk_header, object_path as openai_path};
use toolcall_stream_core::convert::openai_responses::message_item;
use toolcall_stream_core::convert::provider::{key_orders, PROVIDERS};
use toolcall_stream_core::convert::{anthropic, openai};
use toolcall_stream_core::foundations::json::write_str;
use toolcall_stream_core::wire::{compact_kind, key, word};

/// A string as JSON text.
fn json(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

/// A shape as JSON: `{name, example, fields: [{at: [key | 0 (first) | 1
/// (only)], test: [kind, argument?]}]}`.
fn shape(s: &HotShape) -> String {
    let fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| {
            let at: Vec<String> =
                f.at.iter()
                    .map(|step| match step {
                        Step::Key(k) => json(k),
                        Step::First => "0".to_owned(),
                        Step::Only => "1".to_owned(),
                    })
                    .collect();
            let capture = |c: &Capture| json(&format!("{c:?}").to_lowercase());
            let test = match &f.test {
                Test::Object => "[\"object\"]".to_owned(),
                Test::Is(t) => format!("[\"is\",{}]", json(t)),
                Test::Falsy => "[\"falsy\"]".to_owned(),
                Test::Nullish => "[\"nullish\"]".to_owned(),
                Test::NullishOrEmpty => "[\"nullishOrEmpty\"]".to_owned(),
                Test::Text(c) => format!("[\"text\",{}]", capture(c)),
                Test::NonEmptyText(c) => format!("[\"nonEmptyText\",{}]", capture(c)),
                Test::TextOrAbsent(c) => format!("[\"textOrAbsent\",{}]", capture(c)),
                Test::NumberOrZero(c) => format!("[\"numberOrZero\",{}]", capture(c)),
                Test::FalsyWith(k) => format!("[\"falsyWith\",{}]", json(k)),
            };
            format!("{{ \"at\": [{}], \"test\": {test} }}", at.join(", "))
        })
        .collect();
    format!(
        "      {{\n        \"name\": {},\n        \"example\": {},\n        \"fields\": [\n          {}\n        ]\n      }}",
        json(s.name),
        json(s.example),
        fields.join(",\n          ")
    )
}

fn main() {
    let numbers: [(&str, u64); 15] = [
        // The shared bits, then each provider's own (its object path's).
        ("FINISHED", word::FINISHED),
        ("QUIET", openai_path::word::QUIET),
        ("TEXT_READY", openai_path::word::TEXT_READY),
        ("HEADER", anthropic_path::word::HEADER),
        ("PAYLOAD", anthropic_path::word::PAYLOAD),
        (
            "GATHER_SHIFT",
            u64::from(anthropic_path::word::GATHER_SHIFT),
        ),
        ("GATHER_BITS", u64::from(anthropic_path::word::GATHER_BITS)),
        ("TAG_CLOSING", openai_path::word::TAG_CLOSING),
        ("STOP_GATHERED", anthropic_path::word::STOP_GATHERED),
        ("BUDGET_SHIFT", u64::from(word::BUDGET_SHIFT)),
        ("KIND_TEXT", u64::from(compact_kind::TEXT)),
        ("KIND_THOUGHT", u64::from(compact_kind::THOUGHT)),
        ("KIND_EMPTY", u64::from(compact_kind::EMPTY)),
        ("KIND_REASONING", u64::from(compact_kind::REASONING)),
        ("KIND_MESSAGE_TEXT", u64::from(compact_kind::MESSAGE_TEXT)),
    ];
    let keys = [
        ("KEY_HEADER", key::HEADER),
        ("KEY_CHUNK_HEADER", chunk_header::ITEM_KEY),
        ("KEY_EVENT_HEADER", event_header::ITEM_KEY),
        ("KEY_RESPONSE", key::RESPONSE),
        ("KEY_PREPARATIONS", key::PREPARATIONS),
        ("KEY_SANITIZED", key::SANITIZED),
        ("KEY_USAGE_PROVENANCE", key::USAGE_PROVENANCE),
        ("KEY_REASONING_PARTS", key::REASONING_PARTS),
        ("KEY_MESSAGES", message_item::ITEM_KEY),
        ("KEY_MESSAGE_PARTS", key::MESSAGE_PARTS),
        ("KEY_LIFTED", key::LIFTED),
        ("KEY_ERROR", key::ERROR),
    ];
    let mut fields: Vec<String> = numbers
        .iter()
        .map(|(name, value)| format!("    \"{name}\": {value}"))
        .collect();
    // The keys and names are plain ASCII letters: no escaping needed.
    fields.extend(
        keys.iter()
            .map(|(name, value)| format!("    \"{name}\": \"{value}\"")),
    );
    // Only the orders sent as headers: the JS layer builds those responses
    // itself; the others always travel whole.
    let orders: Vec<String> = key_orders()
        .filter_map(|order| {
            let f = order.wire_id?;
            let keys: Vec<String> = order
                .keys
                .iter()
                .map(|k| format!("\"{}\"", k.name()))
                .collect();
            Some(format!(
                "    {{ \"name\": {}, \"f\": {f}, \"safetyRatings\": {}, \"keys\": [{}] }}",
                json(order.name),
                order.safety_ratings,
                keys.join(", ")
            ))
        })
        .collect();
    let shapes = |list: &[HotShape]| list.iter().map(shape).collect::<Vec<_>>().join(",\n");
    let providers: Vec<String> = PROVIDERS.iter().map(|p| json(p.name)).collect();
    let profiles: Vec<String> = PROVIDERS
        .iter()
        .map(|p| {
            let listed: Vec<String> = p.profiles.iter().map(|r| json(r.as_str())).collect();
            format!("    {}: [{}]", json(p.name), listed.join(", "))
        })
        .collect();
    println!(
        "{{\n  \"wire\": {{\n{}\n  }},\n  \"keyOrders\": [\n{}\n  ],\n  \"hotShapes\": {{\n    \"anthropic\": [\n{}\n    ],\n    \"openai\": [\n{}\n    ]\n  }},\n  \"providers\": [{}],\n  \"providerProfiles\": {{\n{}\n  }}\n}}",
        fields.join(",\n"),
        orders.join(",\n"),
        shapes(&anthropic::hot_shapes::HOT_SHAPES),
        shapes(&openai::hot_shapes::HOT_SHAPES),
        providers.join(", "),
        profiles.join(",\n")
    );
}
