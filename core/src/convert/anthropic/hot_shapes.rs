//! The hot Anthropic SDK events ([`crate::convert::hot_shape`]): the
//! `content_block_delta` events the byte path takes from the bytes
//! (`super::byte_path`), and the stop of a block, which the JS object path
//! converts without serialising while the state word allows.

use crate::convert::hot_shape::{field, Capture, HotShape, Step, Step::Key, Test};

const DELTA: Step = Key("delta");

/// `content_block_delta` with an `input_json_delta`: `partial_json` is the
/// text, `index ?? 0` the block (`content_block_delta` in Qwen Code
/// packages/core/src/core/anthropicContentGenerator/anthropicContentGenerator.ts).
pub const INPUT_JSON_DELTA: HotShape = HotShape {
    name: "ANTHROPIC_INPUT_JSON_DELTA",
    fields: &[
        field(&[Key("type")], Test::Is("content_block_delta")),
        field(&[DELTA], Test::Object),
        field(&[DELTA, Key("type")], Test::Is("input_json_delta")),
        field(&[DELTA, Key("partial_json")], Test::Text(Capture::Text)),
        field(&[Key("index")], Test::NumberOrZero(Capture::Index)),
    ],
    example: r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}"#,
};

/// `content_block_delta` with a `text_delta`: `text`, `''` when absent.
pub const TEXT_DELTA: HotShape = HotShape {
    name: "ANTHROPIC_TEXT_DELTA",
    fields: &[
        field(&[Key("type")], Test::Is("content_block_delta")),
        field(&[DELTA], Test::Object),
        field(&[DELTA, Key("type")], Test::Is("text_delta")),
        field(&[DELTA, Key("text")], Test::TextOrAbsent(Capture::Text)),
    ],
    example: r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
};

/// `content_block_delta` with a `thinking_delta`: `thinking`.
pub const THINKING_DELTA: HotShape = HotShape {
    name: "ANTHROPIC_THINKING_DELTA",
    fields: &[
        field(&[Key("type")], Test::Is("content_block_delta")),
        field(&[DELTA], Test::Object),
        field(&[DELTA, Key("type")], Test::Is("thinking_delta")),
        field(&[DELTA, Key("thinking")], Test::Text(Capture::Text)),
    ],
    example: r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm"}}"#,
};

/// `content_block_stop`: `index ?? 0` the block.
pub const BLOCK_STOP: HotShape = HotShape {
    name: "ANTHROPIC_BLOCK_STOP",
    fields: &[
        field(&[Key("type")], Test::Is("content_block_stop")),
        field(&[Key("index")], Test::NumberOrZero(Capture::Index)),
    ],
    example: r#"{"type":"content_block_stop","index":1}"#,
};

/// The hot events, in the order they are tried.
pub const HOT_SHAPES: [HotShape; 4] = [INPUT_JSON_DELTA, TEXT_DELTA, THINKING_DELTA, BLOCK_STOP];

#[cfg(all(test, feature = "path-counters"))]
mod tests {
    use super::*;
    use crate::convert::anthropic::{AnthropicOptions, AnthropicStream};
    use crate::convert::path_counters::{self, Path};

    /// Each delta's example, in a stream where its block is open, is taken
    /// by the byte path: the shape declared is one the byte path knows.
    #[test]
    fn each_delta_example_is_taken_by_the_byte_path() {
        for shape in [INPUT_JSON_DELTA, TEXT_DELTA, THINKING_DELTA] {
            let mut s = AnthropicStream::new(AnthropicOptions::default());
            let mut out = Vec::new();
            let start = concat!(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\",\"usage\":{}}}\n\n",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,",
                "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n",
            );
            s.push_bytes(start.as_bytes(), &mut out).unwrap();
            path_counters::reset();
            let event = format!("event: content_block_delta\ndata: {}\n\n", shape.example);
            s.push_bytes(event.as_bytes(), &mut out).unwrap();
            assert_eq!(path_counters::count(Path::Byte), 1, "{}", shape.name);
        }
    }
}
