//! Prints the wire constants the JS layer reads (the state word's bits, the
//! compact chunk kinds, the batch item keys) as one JSON object, taken from
//! the core's own constants. `node scripts/generate.mjs` runs it and writes
//! `lib/generated/wire-constants.js`.
//!
//!     cargo run -q -p toolcall-stream-core --example wire_constants

use toolcall_stream_core::wire::{compact_kind, key, word};

fn main() {
    let numbers: [(&str, u64); 13] = [
        ("FINISHED", word::FINISHED),
        ("QUIET", word::QUIET),
        ("TEXT_READY", word::TEXT_READY),
        ("HEADER", word::HEADER),
        ("PAYLOAD", word::PAYLOAD),
        ("GATHER_SHIFT", u64::from(word::GATHER_SHIFT)),
        ("GATHER_BITS", u64::from(word::GATHER_BITS)),
        ("TAG_CLOSING", word::TAG_CLOSING),
        ("BUDGET_SHIFT", u64::from(word::BUDGET_SHIFT)),
        ("KIND_TEXT", u64::from(compact_kind::TEXT)),
        ("KIND_THOUGHT", u64::from(compact_kind::THOUGHT)),
        ("KIND_EMPTY", u64::from(compact_kind::EMPTY)),
        ("KIND_REASONING", u64::from(compact_kind::REASONING)),
    ];
    let keys = [
        ("KEY_HEADER", key::HEADER),
        ("KEY_RESPONSE", key::RESPONSE),
        ("KEY_PREPARATIONS", key::PREPARATIONS),
        ("KEY_SANITIZED", key::SANITIZED),
        ("KEY_USAGE_PROVENANCE", key::USAGE_PROVENANCE),
        ("KEY_REASONING_PARTS", key::REASONING_PARTS),
        ("KEY_LIFTED", key::LIFTED),
        ("KEY_ERROR", key::ERROR),
    ];
    let mut fields: Vec<String> = numbers
        .iter()
        .map(|(name, value)| format!("  \"{name}\": {value}"))
        .collect();
    // The keys are plain ASCII letters: no escaping needed.
    fields.extend(
        keys.iter()
            .map(|(name, value)| format!("  \"{name}\": \"{value}\"")),
    );
    println!("{{\n{}\n}}", fields.join(",\n"));
}
