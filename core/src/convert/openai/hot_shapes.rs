//! The hot OpenAI chunks ([`crate::convert::hot_shape`]): the content-only
//! and argument-only chunks the template path converts from a kept chunk's
//! bytes (`super::template`, `keep_template`), which the JS object path
//! converts without serialising while the state word allows. Each field is
//! read as `convertOpenAIChunkToGemini` reads it (Qwen Code
//! packages/core/src/core/openaiContentGenerator/converter.ts:
//! `choices?.[0]`, `reasoning_content ?? reasoning`, `index ?? 0`).

use crate::convert::hot_shape::{field, Capture, HotShape, Step, Test};

const CHOICE: Step = Step::First;
const DELTA: Step = Step::Key("delta");
const CALL: Step = Step::Only;

/// A chunk whose first choice's delta carries a string `content` and nothing
/// else that converts: no usage, no finish, no reasoning, no tool calls.
pub const CONTENT_ONLY: HotShape = HotShape {
    name: "OPENAI_CONTENT_ONLY",
    fields: &[
        field(&[Step::Key("usage")], Test::Falsy),
        field(&[Step::Key("choices"), CHOICE], Test::Object),
        field(
            &[Step::Key("choices"), CHOICE, Step::Key("finish_reason")],
            Test::Falsy,
        ),
        field(&[Step::Key("choices"), CHOICE, DELTA], Test::Object),
        field(
            &[Step::Key("choices"), CHOICE, DELTA, Step::Key("content")],
            Test::Text(Capture::Text),
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("reasoning_content"),
            ],
            Test::FalsyWith("reasoning"),
        ),
        field(
            &[Step::Key("choices"), CHOICE, DELTA, Step::Key("tool_calls")],
            Test::Nullish,
        ),
    ],
    example: r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}"#,
};

/// A chunk whose first choice's delta appends to one call's arguments and
/// does nothing else: no usage, finish, content or reasoning; one call, with
/// no id and no name, a non-empty string `arguments`; `index ?? 0` the call.
pub const ARGUMENTS_ONLY: HotShape = HotShape {
    name: "OPENAI_ARGUMENTS_ONLY",
    fields: &[
        field(&[Step::Key("usage")], Test::Falsy),
        field(&[Step::Key("choices"), CHOICE], Test::Object),
        field(
            &[Step::Key("choices"), CHOICE, Step::Key("finish_reason")],
            Test::Falsy,
        ),
        field(&[Step::Key("choices"), CHOICE, DELTA], Test::Object),
        field(
            &[Step::Key("choices"), CHOICE, DELTA, Step::Key("content")],
            Test::Nullish,
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("reasoning_content"),
            ],
            Test::FalsyWith("reasoning"),
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
            ],
            Test::Object,
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
                Step::Key("id"),
            ],
            Test::NullishOrEmpty,
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
                Step::Key("function"),
            ],
            Test::Object,
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
                Step::Key("function"),
                Step::Key("name"),
            ],
            Test::NullishOrEmpty,
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
                Step::Key("function"),
                Step::Key("arguments"),
            ],
            Test::NonEmptyText(Capture::Text),
        ),
        field(
            &[
                Step::Key("choices"),
                CHOICE,
                DELTA,
                Step::Key("tool_calls"),
                CALL,
                Step::Key("index"),
            ],
            Test::NumberOrZero(Capture::Index),
        ),
    ],
    example: r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},"finish_reason":null}]}"#,
};

/// The hot chunks, in the order they are tried.
pub const HOT_SHAPES: [HotShape; 2] = [CONTENT_ONLY, ARGUMENTS_ONLY];

#[cfg(all(test, feature = "path-counters"))]
mod tests {
    use super::*;
    use crate::convert::openai::{OpenAIOptions, OpenAIStream};
    use crate::convert::path_counters::{self, Path};

    /// Each example, given twice, takes the template path the second time:
    /// the shape declared is one the template path keeps.
    #[test]
    fn each_example_takes_the_template_path_once_kept() {
        for shape in HOT_SHAPES {
            let mut s = OpenAIStream::new(OpenAIOptions::default());
            let open = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}"#;
            if shape == ARGUMENTS_ONLY {
                s.push_chunk_text(open).unwrap();
            }
            s.push_chunk_text(shape.example).unwrap();
            path_counters::reset();
            s.push_chunk_text(shape.example).unwrap();
            assert_eq!(path_counters::count(Path::Template), 1, "{}", shape.name);
        }
    }
}
