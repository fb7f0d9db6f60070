//! Large string arguments handed to JS beside the batch text, not inside it:
//! a `write_file` call's `content` crossed as JSON text inside
//! the batch costs V8 a string the size of the call for the batch, then
//! `JSON.parse` a second one for the value; lifted, the value is decoded
//! here and becomes a JS string once.
//!
//! A call whose arguments are at least [`LIFT_MIN`] bytes of JSON text has
//! each top-level string member of at least [`LIFT_MIN`] bytes (escaped)
//! replaced by `0` in its text; the item lists the members (`"x": [[part
//! index, key], …]`) and the batch carries the values after its text, in
//! that order. `lib/wire.js` puts each value back where `JSON.parse` of the
//! original text would have put it: the key keeps its place (it is in the
//! text), and the value is the same JS string.
//!
//! Only members whose value is exactly what `JSON.parse` gives are lifted:
//! not a value holding a lone surrogate (a Rust string cannot hold it), not
//! a key that occurs twice (`JSON.parse` keeps the last value, at the first
//! key's place), not `__proto__`. Anything else stays in the text.
//!
//! This module is the lifting itself, part of the output model (a call's
//! [`crate::model::gemini::Part`] carries its [`Lifted`] form); writing it into a
//! batch is the wire's (`crate::wire::lift`).
//!
//! The converters lift when they make the call's part, and validate large
//! arguments in the same pass ([`lift_checked`]: Anthropic's block stop in
//! both profiles, the OpenAI parser's completed calls) instead of
//! validating them first.

use crate::foundations::json::validate::{skip_ws, validate_value};
use crate::foundations::json::{scan_string, scan_value_into, JStr, JsString};

/// The size, in bytes of JSON text, from which a call's arguments and a
/// string member of them are lifted. Below it a separate JS string costs
/// more than the copy it saves.
pub const LIFT_MIN: usize = 8 * 1024;

/// Top-level members looked at: lifting is for calls with a few large
/// values (files, edits); an object with more members stays in the text.
const MAX_MEMBERS: usize = 64;

/// A call's arguments with their large string members taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lifted {
    /// The arguments' JSON text with `0` for each lifted value.
    pub text: String,
    /// The lifted members in text order: each key as JSON string content
    /// (as it appears in the arguments) and the value.
    pub members: Vec<(String, String)>,
}

/// Whether `args` is one valid JSON object (`JSON.parse` accepts it),
/// decided in the pass that lifts its large string members: `Some` when it
/// is, holding what was lifted (`None` when no member was large); `None`
/// when this pass does not decide (text under [`LIFT_MIN`], not an object,
/// more than 64 members, not valid): the caller validates as usual.
pub fn lift_checked(args: &str) -> Option<Option<Lifted>> {
    if args.len() < LIFT_MIN {
        return None;
    }
    let b = args.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    // Every member's key; the large string values with their spans
    // (opening quote to closing quote, inclusive).
    let mut keys: Vec<JStr<'_>> = Vec::new();
    let mut large: Vec<(usize, usize, usize, String)> = Vec::new();
    if b.get(i) != Some(&b'}') {
        loop {
            if keys.len() == MAX_MEMBERS || b.get(i) != Some(&b'"') {
                return None;
            }
            let (key_end, escaped) = scan_string(b, i + 1)?;
            keys.push(JStr::from_scanned(&args[i + 1..key_end], escaped));
            i = skip_ws(b, key_end + 1);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws(b, i + 1);
            i = if b.get(i) == Some(&b'"') {
                let mut value = String::new();
                let end = match scan_value_into(args, i + 1, &mut value) {
                    Some(end) => {
                        if end - (i + 1) >= LIFT_MIN {
                            large.push((keys.len() - 1, i, end, value));
                        }
                        end
                    }
                    // Not valid, or a lone surrogate (valid, not lifted).
                    None => scan_string(b, i + 1)?.0,
                };
                skip_ws(b, end + 1)
            } else {
                validate_value(b, i)?.0
            };
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b'}') => break,
                _ => return None,
            }
        }
    }
    if skip_ws(b, i + 1) != b.len() {
        return None;
    }
    let exact: Vec<JsString> = keys.iter().map(|k| JsString::from_jstr(*k)).collect();
    large.retain(|(k, ..)| {
        let key = &exact[*k];
        key.escaped() != "__proto__" && exact.iter().filter(|other| *other == key).count() == 1
    });
    if large.is_empty() {
        return Some(None);
    }
    let mut text =
        String::with_capacity(args.len() - large.iter().map(|l| l.2 - l.1).sum::<usize>());
    let mut from = 0;
    let mut members = Vec::with_capacity(large.len());
    for (k, open, close, value) in large {
        text.push_str(&args[from..open]);
        text.push('0');
        from = close + 1;
        members.push((keys[k].raw().to_owned(), value));
    }
    text.push_str(&args[from..]);
    Some(Some(Lifted { text, members }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundations::json::{parse, write_str, Value};

    /// What is lifted from `args`, valid or not.
    fn lift_args(args: &str) -> Option<Lifted> {
        lift_checked(args).flatten()
    }

    fn big(c: char) -> String {
        std::iter::repeat_n(c, LIFT_MIN).collect()
    }

    /// `JSON.stringify(JSON.parse(original))`, from the lifted text and
    /// members as the JS side puts them back.
    fn put_back(l: &Lifted) -> String {
        let quoted: Vec<String> = l.members.iter().map(|(_, v)| stringified(v)).collect();
        let mut v = parse(&l.text).unwrap();
        let Value::Obj(entries) = &mut v else {
            panic!("not an object")
        };
        for ((key, _), text) in l.members.iter().zip(&quoted) {
            let slot = entries
                .iter_mut()
                .find(|(k, _)| k.raw() == key)
                .map(|(_, v)| v)
                .unwrap();
            assert!(matches!(slot, Value::Num("0")), "placeholder");
            *slot = Value::Str(JStr::from_scanned(text, true));
        }
        crate::foundations::json::to_json_string(&v)
    }

    /// `JSON.stringify(value)` without the quotes.
    fn stringified(value: &str) -> String {
        let mut s = String::new();
        write_str(&mut s, value);
        s[1..s.len() - 1].to_owned()
    }

    fn same_as_parse(args: &str) -> Lifted {
        let l = lift_args(args).expect("lifted");
        assert_eq!(
            put_back(&l),
            crate::foundations::json::to_json_string(&parse(args).unwrap())
        );
        l
    }

    #[test]
    fn lifts_large_top_level_strings_in_place() {
        let content = format!("line \\\"one\\\"\\n{}\\u00e9\\ud83d\\ude00", big('x'));
        let args = format!(
            "{{\"file_path\":\"/a\",\"content\":\"{content}\",\"n\":[1,{{\"k\":\"}}\"}}]}}"
        );
        let l = same_as_parse(&args);
        assert_eq!(
            l.text,
            "{\"file_path\":\"/a\",\"content\":0,\"n\":[1,{\"k\":\"}\"}]}"
        );
        assert_eq!(l.members.len(), 1);
        assert_eq!(l.members[0].0, "content");
        assert_eq!(l.members[0].1, format!("line \"one\"\n{}é😀", big('x')));
    }

    #[test]
    fn lifts_several_with_whitespace_and_escaped_keys() {
        let args = format!(
            " {{ \"old\\u005fstring\" : \"{}\" ,\n\"b\":true, \"new\":\"{}\" }} ",
            big('a'),
            big('b')
        );
        let l = same_as_parse(&args);
        assert_eq!(
            l.text,
            " { \"old\\u005fstring\" : 0 ,\n\"b\":true, \"new\":0 } "
        );
        assert_eq!(l.members[0].0, "old\\u005fstring");
        assert_eq!(l.members[1].1, big('b'));
    }

    #[test]
    fn leaves_what_is_not_exactly_a_js_string_or_is_not_unique() {
        let x = big('x');
        for args in [
            // Too small in total, or the large part is not a string.
            "{\"content\":\"short\"}".to_owned(),
            format!("{{\"content\":[\"{x}\"]}}"),
            format!("[\"{x}\"]"),
            // A lone surrogate, which a Rust string cannot hold.
            format!("{{\"content\":\"{x}\\ud800\"}}"),
            // A duplicate key (JSON.parse keeps the last value at the first place).
            format!("{{\"content\":\"{x}\",\"content\":\"y\"}}"),
            format!("{{\"content\":\"{x}\",\"c\\u006fntent\":\"y\"}}"),
            // __proto__ is a plain own key in JSON.parse's result.
            format!("{{\"__proto__\":\"{x}\"}}"),
            format!("{{\"__pro\\u0074o__\":\"{x}\"}}"),
        ] {
            assert_eq!(lift_args(&args), None, "{args}");
        }
        // A member over the limit of members: nothing lifted.
        let many: Vec<String> = (0..MAX_MEMBERS).map(|n| format!("\"k{n}\":{n}")).collect();
        assert_eq!(
            lift_args(&format!("{{{},\"content\":\"{x}\"}}", many.join(","))),
            None
        );
        // Only the member that is not a duplicate is lifted.
        let l = same_as_parse(&format!("{{\"a\":\"{x}\",\"b\":\"{x}\",\"a\":1}}"));
        assert_eq!(l.members.len(), 1);
        assert_eq!(l.members[0].0, "b");
    }

    #[test]
    fn skips_every_kind_of_value() {
        let x = big('x');
        let args = format!(
            "{{\"n\":-1.5e3,\"t\":true,\"f\":false,\"z\":null,\"s\":\"\\\"]}}\",\"o\":{{\"a\":[{{}},[]]}},\"e\":[],\"content\":\"{x}\"}}"
        );
        let l = same_as_parse(&args);
        assert_eq!(l.members[0].0, "content");
    }

    /// What the walk decides is what `validate` decides: every text it
    /// accepts is a valid JSON object, and a valid object of up to 64
    /// members is always accepted (with its large, exact, unique members
    /// lifted and put back to the same value).
    #[test]
    fn decides_validity_as_validate_does() {
        let x = big('x');
        let valid = [
            format!("{{\"content\":\"{x}\"}}"),
            format!(" {{\"a\" : [1, {{\"b\": \"}}\"}}], \"c\":\"{x}\\ud800\"}} \n"),
            format!("{{\"a\":{{}},\"b\":[],\"c\":-0.5e3,\"d\":\"{x}\"}}"),
            format!("{{\"a\":\"{x}\",\"a\":\"{x}\"}}"),
            format!(
                "{{\"deep\":{}{}}}",
                "[".repeat(LIFT_MIN),
                "]".repeat(LIFT_MIN)
            ),
        ];
        for text in &valid {
            assert_eq!(
                crate::foundations::json::validate(text),
                Some(crate::foundations::json::Kind::Object)
            );
            assert!(lift_checked(text).is_some(), "{}", &text[..40]);
        }
        let invalid = [
            format!("{{\"content\":\"{x}\",}}"),
            format!("{{\"content\" \"{x}\"}}"),
            format!("{{\"content\":\"{x}\"}} x"),
            format!("{{\"content\":\"{x}\\q\"}}"),
            format!("{{\"content\":\"{x}\t\"}}"),
            format!("{{\"a\":[1,],\"content\":\"{x}\"}}"),
            format!("{{\"content\":\"{x}\""),
            format!("{{\"content\":\"{x}"),
            format!("{{\"n\":01,\"content\":\"{x}\"}}"),
            format!("{{content:\"{x}\"}}"),
        ];
        for text in &invalid {
            assert_eq!(
                crate::foundations::json::validate(text),
                None,
                "{}",
                &text[..20]
            );
            assert_eq!(lift_checked(text), None, "{}", &text[..20]);
        }
    }

    proptest::proptest! {
        /// Random objects with one byte changed: accepted exactly when
        /// `validate` accepts them (all have few members), and what is
        /// lifted puts back to `JSON.parse`'s value.
        #[test]
        fn accepts_exactly_what_validate_accepts(
            members in proptest::collection::vec((0usize..4, 0usize..6), 1..5),
            edit in proptest::option::of((0usize..1_000_000, 0usize..8)),
        ) {
            let key = ["\"content\"", "\"a\"", "\"__proto__\"", "\"c\\u006fntent\""];
            let value = [
                format!("\"{}\"", "ab\\n\\\"é😀\\ud83d\\ude00".repeat(LIFT_MIN / 8)),
                format!("\"{}\\ud800\"", big('y')),
                "[1,{\"k\":\"v\"}]".to_owned(),
                "\"short\"".to_owned(),
                "-1.5e3".to_owned(),
                " null ".to_owned(),
            ];
            let body: Vec<String> = members
                .iter()
                .map(|&(k, v)| format!("{}:{}", key[k], value[v]))
                .collect();
            let mut text = format!("{{{}}}", body.join(","));
            if let Some((at, byte)) = edit {
                let at = at % text.len();
                if text.is_char_boundary(at) {
                    let with = ["", ",", "\"", "\\", "}", "x", " ", "\t"][byte];
                    let end = at + text[at..].chars().next().map_or(0, char::len_utf8);
                    text.replace_range(at..end, with);
                }
            }
            let valid = crate::foundations::json::validate(&text) == Some(crate::foundations::json::Kind::Object);
            let checked = lift_checked(&text);
            proptest::prop_assert_eq!(checked.is_some(), valid && text.len() >= LIFT_MIN);
            if let Some(Some(l)) = checked {
                proptest::prop_assert_eq!(
                    put_back(&l),
                    crate::foundations::json::to_json_string(&parse(&text).unwrap())
                );
            }
        }
    }
}
