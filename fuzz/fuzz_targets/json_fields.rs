//! The field reader (`flat_fields`, the short way of a provider's hot
//! events) against the parser, on any text: where it answers, `parse`
//! accepts the text and reads each key as it does (`Value::get`, written
//! as `JSON.stringify` writes it); never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_core::foundations::json::{flat_fields, parse, to_json_string};

const KEYS: [&str; 4] = ["output_index", "item_id", "delta", "type"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(fields) = flat_fields(text, &KEYS) else {
        return;
    };
    let tree = parse(text).expect("the field reader answered on text the parser refuses");
    for (key, field) in KEYS.iter().zip(&fields) {
        assert_eq!(
            field.as_ref().map(to_json_string),
            tree.get(key).map(to_json_string),
            "{key}"
        );
    }
});
