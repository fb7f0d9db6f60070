//! Argument parsing with the reference's repair semantics: `JSON.parse`,
//! else `jsonrepair` then `JSON.parse`, else the fallback
//! (`safeJsonParse`, packages/core/src/utils/safeJsonParse.ts). Results are
//! JSON text for JS to parse once, never re-encoded.
//!
//! `jsonrepair.rs` is a port of the jsonrepair version Qwen Code bundles,
//! `text.rs` its character classes and output edits.

mod jsonrepair;
mod text;

use std::borrow::Cow;

use crate::foundations::error::{Error, ErrorCode};
use crate::foundations::json::text::{from_argument_text, to_json_text};
use crate::foundations::json::{validate, Kind, LoneEscapes};

pub use jsonrepair::{frame_cost, jsonrepair, Failure, REFERENCE_STACK};

/// The outcome of [`safe_json_parse`]: valid JSON text and its kind, or
/// `None` where the reference returns its fallback `{}`.
pub type Parsed<'a> = Option<(Cow<'a, str>, Kind)>;

/// `safeJsonParse(text, {})` (utils/safeJsonParse.ts) of argument text
/// whose lone surrogates `lone` notes. The repair takes no native stack
/// (it does not recurse), so any depth is repaired as the reference
/// repairs it, up to where the reference's own recursion overflows the JS
/// stack and `safeJsonParse` returns its fallback ([`REFERENCE_STACK`]).
/// `max_depth` (`maxRepairDepth`, no limit by default) is the caller's own
/// bound on the nesting repaired: past it, a `LIMIT_EXCEEDED` error.
///
/// `JSON.parse` accepts the text exactly when it accepts the reference's
/// string (a lone surrogate's escape is valid where the unit is: in a
/// string literal). The repair reads the reference's string: the text
/// form, each noted escape as its unit ([`from_argument_text`]), and
/// its output is written back as JSON text, a unit as its escape.
pub fn safe_json_parse<'a>(
    text: &'a str,
    lone: &LoneEscapes,
    max_depth: usize,
) -> Result<Parsed<'a>, Error> {
    if text.is_empty() {
        return Ok(None);
    }
    if let Some(kind) = validate(text) {
        return Ok(Some((Cow::Borrowed(text), kind)));
    }
    let repaired = if lone.is_empty() {
        jsonrepair(text, REFERENCE_STACK, max_depth)
    } else {
        jsonrepair(&from_argument_text(text, lone), REFERENCE_STACK, max_depth)
            .map(|f| to_json_text(&f).into_owned())
    };
    match repaired {
        Ok(fixed) => Ok(validate(&fixed).map(|kind| (Cow::Owned(fixed), kind))),
        // A `JSONRepairError` or the stack's `RangeError`: safeJsonParse
        // returns its fallback.
        Err(Failure::Invalid) => Ok(None),
        Err(Failure::TooDeep) => Err(Error::new(
            ErrorCode::LimitExceeded,
            format!("tool arguments nest deeper than the repair limit of {max_depth} levels"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(text: &str) -> Option<String> {
        safe_json_parse(text, &LoneEscapes::new(), usize::MAX)
            .unwrap()
            .map(|(t, _)| t.into_owned())
    }

    #[test]
    fn valid_json_passes_through_verbatim() {
        assert_eq!(repaired(r#"{"a": 1}"#).as_deref(), Some(r#"{"a": 1}"#));
        assert_eq!(repaired("5").as_deref(), Some("5"));
        assert_eq!(repaired(""), None);
    }

    /// Input, then the text `safeJsonParse` parses (`None`: its fallback,
    /// because jsonrepair throws or its output does not parse). The
    /// expectations are the output of the jsonrepair bundled in Qwen Code
    /// 0.21.2, run on each input.
    #[test]
    fn repairs_equal_the_bundled_jsonrepair() {
        let table: &[(&str, Option<&str>)] = &[
            ("{\"a\": NaN}", Some("{\"a\": \"NaN\"}")),
            ("{\"a\": Infinity}", Some("{\"a\": \"Infinity\"}")),
            ("{\"a\": -Infinity}", Some("{\"a\": \"-Infinity\"}")),
            ("{\"a\": nan}", Some("{\"a\": \"nan\"}")),
            ("NaN", Some("\"NaN\"")),
            ("{\"a\": .5}", None),
            (".5", None),
            ("{\"a\": +1}", None),
            ("+1", None),
            ("{'a': 'it's'}", Some("{\"a\": \"it\\\"s\"}")),
            ("'it's'", Some("\"it\\\"s\"")),
            ("{\"a\":\"x", Some("{\"a\":\"x\"}")),
            (
                "{\"valid\":\"data\",\"invalid\": }",
                Some("{\"valid\":\"data\",\"invalid\": null}"),
            ),
            (
                "{'old': 'a', new: 'b',}",
                Some("{\"old\": \"a\", \"new\": \"b\"}"),
            ),
            (
                "{\"a\": True, \"b\": None, \"c\": False}",
                Some("{\"a\": true, \"b\": null, \"c\": false}"),
            ),
            ("{\"a\": 01}", Some("{\"a\": \"01\"}")),
            ("{\"a\": 1.}", Some("{\"a\": 1.0}")),
            ("{\"a\": 2e}", Some("{\"a\": 2e0}")),
            ("{\"a\": -}", Some("{\"a\": -0}")),
            ("{\"a\": undefined}", Some("{\"a\": null}")),
            ("{\"a\": \"x\" + \"y\"}", Some("{\"a\": \"xy\"}")),
            ("{\"a\": /re+/g}", None),
            ("callback({\"a\": 1});", Some("{\"a\": 1}")),
            ("```json\n{\"a\": 1}\n```", Some("\n{\"a\": 1}\n")),
            ("{\"a\": 1} // note", Some("{\"a\": 1} ")),
            ("{/* c */\"a\": [1, 2, ...]}", Some("{\"a\": [1, 2 ]}")),
            ("{\"a\": \"\\x41\"}", Some("{\"a\": \"x41\"}")),
            ("{\"a\": \"\\u12\"}", None),
            ("{\"a\": \"\\u12G4\"}", None),
            ("{\"a\": \"“hi”\"}", Some("{\"a\": \"“hi”\"}")),
            ("{\"a\":1}\n{\"b\":2}", Some("[\n{\"a\":1},\n{\"b\":2}\n]")),
            ("[1 2 3", Some("[1, 2, 3]")),
            ("{\"a\" 1}", Some("{\"a\": 1}")),
            ("{\"a\": \"b\\\"\"}", Some("{\"a\": \"b\\\"\"}")),
            (
                "{\"u\": \"http://x.y/z?q=1, \"}",
                Some("{\"u\": \"http://x.y/z?q=1, \"}"),
            ),
            ("{\u{a0}\"a\":\u{3000}1}", Some("{ \"a\": 1}")),
            (
                "{\"a\": \"line\nbreak\"}",
                Some("{\"a\": \"line\\nbreak\"}"),
            ),
            ("{\"a\": \"\u{1}\"}", None),
            ("{\"a\": 1}}", Some("{\"a\": 1}")),
            ("{\"a\"", Some("{\"a\":null}")),
            ("{\"a\":", Some("{\"a\":null}")),
            ("{\"a\": [", Some("{\"a\": []}")),
            ("{\"a\": \"\\", Some("{\"a\": \"\"}")),
            ("\\\"a\\\"", Some("\"a\"")),
            ("{a:b}", Some("{\"a\":\"b\"}")),
            ("{\"a\": b c}", Some("{\"a\": \"b c\"}")),
            (
                "{\"p\": \"C:\\\\dir\\\\f\"}",
                Some("{\"p\": \"C:\\\\dir\\\\f\"}"),
            ),
            ("{\"p\": \"a\"b\"}", Some("{\"p\": \"a\\\"b\"}")),
            // jsonrepair recurses until the JS stack overflows.
            ("{\"content\": \"a\\, \"n\": 1:, \"b\": 1#", None),
            ("\"a\\, \"n\": 1:", None),
        ];
        for (input, expected) in table {
            assert_eq!(repaired(input).as_deref(), *expected, "input {input:?}");
        }
    }

    /// Each kind of nesting jsonrepair recurses on: the unit, what closes
    /// one level in the repaired output, and the innermost value.
    const NESTINGS: [(&str, &str, &str, &str); 4] = [
        ("[", "]", "1", "1"),
        ("{\"a\":", "}", "1", "1"),
        ("f(", "", "1", "1"),
        ("\"a\"+", "", "\"b\"", "b"),
    ];

    /// The repaired text of `levels` levels of `unit`: what the recursive
    /// jsonrepair writes (a concatenation joins its strings into one).
    fn expected(unit: &str, close: &str, last: &str, levels: usize) -> String {
        match unit {
            "\"a\"+" => format!("\"{}b\"", "a".repeat(levels)),
            "f(" => last.to_owned(),
            _ => format!("{}{last}{}", unit.repeat(levels), close.repeat(levels)),
        }
    }

    #[test]
    fn the_repair_takes_no_native_stack_at_100_000_levels() {
        // Run on a thread with a small stack: a recursive repair would
        // overflow it within a few thousand levels.
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                for (unit, close, last, _) in NESTINGS {
                    let text = format!("{}{last}", unit.repeat(100_000));
                    let out = jsonrepair(&text, usize::MAX, usize::MAX).unwrap();
                    assert!(out == expected(unit, close, last, 100_000), "{unit}");
                    assert!(validate(&out).is_some());
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn past_the_reference_stack_the_repair_gives_the_fallback() {
        // The deepest each kind of nesting that the reference repairs
        // (jsonrepair.rs, `frame_cost`), and one level more.
        for ((unit, close, last, _), deepest) in NESTINGS.into_iter().zip([6400, 3300, 5350, 4000])
        {
            let within = format!("{}{last}", unit.repeat(deepest));
            assert_eq!(
                repaired(&within).as_deref(),
                Some(expected(unit, close, last, deepest).as_str()),
                "{unit} {deepest}"
            );
            let past = format!("{}{last}", unit.repeat(deepest + 1));
            assert_eq!(repaired(&past), None, "{unit} {}", deepest + 1);
            // Deep *valid* JSON is not repaired: JSON.parse takes any depth.
            if !close.is_empty() {
                let valid = expected(unit, close, last, 100_000);
                assert_eq!(repaired(&valid).as_deref(), Some(valid.as_str()));
            }
        }
        // The unbounded repair is the same text, where it fits.
        for (unit, close, last, _) in NESTINGS {
            let text = format!("{}{last}", unit.repeat(513));
            assert_eq!(
                jsonrepair(&text, usize::MAX, usize::MAX).ok(),
                repaired(&text)
            );
            assert_eq!(repaired(&text), Some(expected(unit, close, last, 513)));
        }
    }

    #[test]
    fn the_callers_depth_limit_is_a_limit_error() {
        for unit in ["[", "{\"a\":", "f("] {
            let deep = unit.repeat(100_000);
            let err = safe_json_parse(&deep, &LoneEscapes::new(), 512).unwrap_err();
            assert_eq!(err.code, ErrorCode::LimitExceeded);
            assert!(err.message.contains("512"), "{}", err.message);
        }
        // A concatenation is not nesting.
        let plus = format!("{}\"b\"", "\"a\"+".repeat(1000));
        assert!(repaired_at(&plus, 8).is_some());
    }

    #[test]
    fn nesting_up_to_the_limit_is_repaired() {
        let text = format!("{}1", "[".repeat(8));
        assert_eq!(
            repaired_at(&text, 8),
            Some(format!("{}1{}", "[".repeat(8), "]".repeat(8)))
        );
        assert!(safe_json_parse(&format!("{}1", "[".repeat(9)), &LoneEscapes::new(), 8).is_err());
        // Brackets inside a quoted string are not nesting.
        let quoted = format!("['{}'", "[".repeat(100));
        assert_eq!(
            repaired_at(&quoted, 8),
            Some(format!("[\"{}\"]", "[".repeat(100)))
        );
    }

    fn repaired_at(text: &str, depth: usize) -> Option<String> {
        safe_json_parse(text, &LoneEscapes::new(), depth)
            .unwrap()
            .map(|(t, _)| t.into_owned())
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        /// Pieces that steer the repairer into each of its branches.
        fn piece() -> impl Strategy<Value = String> {
            let fixed = [
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "\"",
                "'",
                "`",
                "\u{201c}",
                "\u{2019}",
                "\u{b4}",
                "\\",
                "/",
                "*",
                "+",
                "-",
                ".",
                " ",
                "\n",
                "\t",
                "\u{a0}",
                "\u{3000}",
                "a",
                "1",
                "0",
                "e",
                "E",
                "true",
                "True",
                "None",
                "undefined",
                "NaN",
                "//",
                "/*",
                "*/",
                "...",
                "```",
                "json",
                "(",
                ")",
                ";",
                "\\u",
                "\\u12",
                "\\ud83d",
                "\\x",
                "http://",
                "https://a.b/c?d",
                "\u{e9}",
                "\u{1f600}",
                "\u{0}",
                "\u{7}",
            ];
            prop_oneof![
                3 => proptest::sample::select(fixed.to_vec()).prop_map(str::to_owned),
                1 => "\\PC{0,3}",
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]

            /// Never a panic; what comes out is JSON that `JSON.parse`
            /// takes; the only error is the caller's depth limit.
            #[test]
            fn any_text_repairs_to_json_or_the_fallback(
                pieces in proptest::collection::vec(piece(), 0..48),
                depth in 1usize..16,
            ) {
                let text = pieces.concat();
                match safe_json_parse(&text, &LoneEscapes::new(), depth) {
                    Ok(Some((out, kind))) => prop_assert_eq!(validate(&out), Some(kind)),
                    Ok(None) => {}
                    Err(e) => prop_assert_eq!(e.code, ErrorCode::LimitExceeded),
                }
            }
        }
    }
}
