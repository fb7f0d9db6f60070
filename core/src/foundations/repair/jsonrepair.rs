//! A port of `jsonrepair` 3.13.1 (`src/regular/jsonrepair.ts` of
//! <https://github.com/josdejong/jsonrepair>), the version Qwen Code 0.21.2
//! and 0.24.4 both bundle (`node_modules/jsonrepair/lib/esm/regular/jsonrepair.js`
//! inside one of their `chunks/`), called by `safeJsonParse`
//! (`packages/core/src/utils/safeJsonParse.ts`). The bundled copy equals the
//! npm release 3.13.1 up to esbuild's renaming; 3.13.0 and 3.13.2 differ.
//!
//! jsonrepair's licence (ISC), which applies to this port:
//!
//! > Copyright (c) 2020-2025 by Jos de Jong
//! >
//! > Permission to use, copy, modify, and/or distribute this software for any
//! > purpose with or without fee is hereby granted, provided that the above
//! > copyright notice and this permission notice appear in all copies.
//! >
//! > THE SOFTWARE IS PROVIDED "AS IS" AND ISC DISCLAIMS ALL WARRANTIES WITH
//! > REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
//! > MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL ISC BE LIABLE FOR ANY
//! > SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
//! > WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
//! > ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR
//! > IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
//!
//! The port follows the JS function by function, with the same names, so it
//! can be read side by side; its quirks are kept on purpose, because tool
//! arguments must come out exactly as Qwen Code's do (a backslash before a
//! non-string value is skipped and lost, `NaN` becomes the string `"NaN"`,
//! `.5` stays `.5` (which then fails to parse), `'it's'` becomes `"it\"s"`,
//! …).
//!
//! Differences, none visible in the output:
//! - Positions are UTF-8 byte offsets, not UTF-16 units. jsonrepair tests a
//!   position against ASCII characters, or (quotes, special whitespace)
//!   decodes a BMP character there; its scans stop only at such characters
//!   or at the end; where it takes a surrogate pair in two steps, no test
//!   between them can match either half, so consuming the character whole
//!   is the same. The one offset taken across a character, `iBefore + 1`
//!   after a multi-byte opening quote, is the quote's length here.
//! - The output string is built as in JS, except that a quoted string is
//!   inserted into the output only once it is known to end there (JS appends
//!   it and cuts it off again), which keeps long strings with inner quotes
//!   linear.
//! - No recursion: where JS calls `parseValue` inside `parseObject`,
//!   `parseArray` or a function call, and `parseString` inside
//!   `parseConcatenatedString` or itself, the port keeps what the caller
//!   does next on a heap stack ([`Cont`]), so any depth fits. JS recurses
//!   until its stack overflows and throws a `RangeError`; the port counts
//!   the stack those frames would take ([`frame_cost`]) and fails the same way
//!   ([`Failure::Invalid`]) once it passes the given budget, which for the
//!   reference is [`REFERENCE_STACK`].

use super::text::*;

/// Why jsonrepair gave up.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// jsonrepair throws: a `JSONRepairError`, or the `RangeError` of a JS
    /// stack overflow (`safeJsonParse` then returns its fallback).
    Invalid,
    /// Nesting past the caller's depth limit (`maxRepairDepth`).
    TooDeep,
}

type Step<T> = Result<T, Failure>;

/// The share of the reference's JS stack that each of jsonrepair's
/// recursive functions takes in V8, in billionths of what the reference has
/// left when `safeJsonParse` calls jsonrepair ([`REFERENCE_STACK`]).
/// Measured in the published Qwen Code 0.21.10 (Node 20, its own
/// `AnthropicContentGenerator` and OpenAI pipeline on loopback streams,
/// after a few deep repairs) from the deepest broken input each repairs
/// before its `RangeError`: about 6,400 levels of `[`, 3,300 of `{"a":`,
/// 5,350 of `f(` and 4,000 of `"a"+`; each cost is the largest that fits
/// that many levels and the innermost value's `parseValue`. V8's frames
/// change size as it optimises the functions, so the reference's own edge
/// moves from one call to the next (`[`: from 5,000 in a cold process to
/// 6,500; `{"a":`: 3,200 to 3,330 warm, past 4,000 cold): near the edge,
/// within about a fifth of it, stock itself may go either way.
pub mod frame_cost {
    /// `parseValue`.
    pub const VALUE: usize = 72_000;
    /// `parseArray`; with its `parseValue`, one level of `[`.
    pub const ARRAY: usize = 156_238 - VALUE;
    /// `parseObject`; with its `parseValue`, one level of `{"a":`.
    pub const OBJECT: usize = 303_008 - VALUE;
    /// `parseUnquotedString` in a function call; with its `parseValue`,
    /// one level of `f(`.
    pub const CALL: usize = 186_902 - VALUE;
    /// `parseString` and `parseConcatenatedString`: one `"a"+`.
    pub const CONCAT: usize = 249_982;
    /// `parseString` calling itself to read the string another way: not
    /// measured (such chains are a few calls long), taken as about
    /// `parseValue`'s and a half.
    pub const RETRY: usize = 110_000;
}

/// The stack the reference's jsonrepair has before its `RangeError`, in
/// the units of [`frame_cost`].
pub const REFERENCE_STACK: usize = 1_000_000_000;

/// `jsonrepair(text)`: the repaired JSON text. `stack` is the JS stack the
/// recursion may take ([`REFERENCE_STACK`] for the reference's,
/// `usize::MAX` for none), `max_depth` the nesting of objects, arrays and
/// function calls past which it stops with [`Failure::TooDeep`].
pub fn jsonrepair(text: &str, stack: usize, max_depth: usize) -> Result<String, Failure> {
    let mut r = Repair {
        s: text,
        t: text.as_bytes(),
        i: 0,
        output: String::with_capacity(text.len() + 8),
        conts: Vec::new(),
        frames: Frames {
            used: 0,
            stack,
            depth: 0,
            max_depth,
        },
    };
    r.run()?;
    Ok(r.output)
}

/// The stack jsonrepair's JS recursion would use at this point, and the
/// nesting, each against its bound.
struct Frames {
    used: usize,
    stack: usize,
    depth: usize,
    max_depth: usize,
}

impl Frames {
    /// A JS call that takes `bytes` of the stack ([`frame_cost`]): the
    /// `RangeError` when it does not fit.
    fn call(&mut self, bytes: usize) -> Step<()> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.stack {
            return Err(Failure::Invalid);
        }
        Ok(())
    }

    fn ret(&mut self, bytes: usize) {
        self.used -= bytes;
    }

    /// One more level of nesting, and its frames.
    fn enter(&mut self, bytes: usize) -> Step<()> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Failure::TooDeep);
        }
        self.call(bytes)
    }

    fn leave(&mut self, bytes: usize) {
        self.depth -= 1;
        self.ret(bytes);
    }
}

/// What a JS caller of `parseValue` does once the value is parsed: the
/// recursion's return addresses, kept on the heap.
enum Cont {
    /// `parseValue` itself: the whitespace after the value.
    ValueEnd,
    /// `parseObject`, once a key that was a function call is parsed.
    ObjectKey,
    /// `parseObject`, once a member's value is parsed.
    ObjectValue {
        processed_colon: bool,
        truncated_text: bool,
    },
    /// `parseArray`, once an item is parsed.
    ArrayItem,
    /// `parseUnquotedString`, once the value inside `f(` is parsed.
    Call,
}

/// The next step of the value machine ([`Repair::parse_value`]).
enum Next {
    /// Parse a value (JS: call `parseValue`).
    Value,
    /// A value was parsed, or not (JS: `parseValue` returns).
    Return(bool),
}

/// What `parseUnquotedString` found.
enum Unquoted {
    /// Its result when it did not open a function call.
    Done(bool),
    /// `name(`: the value inside is to be parsed, then [`Cont::Call`].
    Call,
}

/// How `parseString`'s one pass ended.
enum StringEnd {
    /// No string here (`false`).
    None,
    /// A string, and JS returns `true` there.
    Done,
    /// A string, and JS then calls `parseConcatenatedString`.
    Concat,
    /// JS calls `parseString` again with these arguments.
    Retry(bool, Option<usize>),
}

struct Repair<'a> {
    s: &'a str,
    t: &'a [u8],
    i: usize,
    output: String,
    conts: Vec<Cont>,
    frames: Frames,
}

impl Repair<'_> {
    /// `text[i]`: a byte, `None` past the end.
    fn at(&self, i: usize) -> Option<u8> {
        self.t.get(i).copied()
    }

    /// The character at byte `i`, `None` past the end (or off a boundary,
    /// which the scans never leave `i` on).
    fn ch(&self, i: usize) -> Option<char> {
        self.s.get(i..).and_then(|r| r.chars().next())
    }

    fn len(&self) -> usize {
        self.t.len()
    }

    /// `text.slice(a, b)` as bytes, clamped as JS clamps.
    fn slice(&self, a: usize, b: usize) -> &[u8] {
        let b = b.min(self.t.len());
        self.t.get(a..b).unwrap_or(&[])
    }

    /// The body of `jsonrepair(text)`.
    fn run(&mut self) -> Step<()> {
        self.parse_markdown_code_block(&[b"```", b"[```", b"{```"]);
        let processed = self.parse_value()?;
        if !processed {
            // throwUnexpectedEnd
            return Err(Failure::Invalid);
        }
        self.parse_markdown_code_block(&[b"```", b"```]", b"```}"]);
        let processed_comma = self.parse_character(b',');
        if processed_comma {
            self.parse_whitespace_and_skip_comments(true);
        }
        if is_start_of_value(self.ch(self.i)) && ends_with_comma_or_newline(&self.output) {
            if !processed_comma {
                insert_before_last_whitespace(&mut self.output, ",");
            }
            self.parse_newline_delimited_json()?;
        } else if processed_comma {
            strip_last_occurrence(&mut self.output, b',', false);
        }
        while matches!(self.at(self.i), Some(b'}' | b']')) {
            self.i += 1;
            self.parse_whitespace_and_skip_comments(true);
        }
        if self.i >= self.len() {
            return Ok(());
        }
        // throwUnexpectedCharacter
        Err(Failure::Invalid)
    }

    /// `parseValue()`, and every `parseValue` it leads to, as a loop over
    /// [`Next`] with the callers' continuations on `self.conts`.
    fn parse_value(&mut self) -> Step<bool> {
        let base = self.conts.len();
        let mut next = Next::Value;
        loop {
            next = match next {
                Next::Value => self.value_start()?,
                Next::Return(processed) => {
                    if self.conts.len() == base {
                        return Ok(processed);
                    }
                    match self.conts.pop() {
                        Some(cont) => self.resume(cont, processed)?,
                        None => return Ok(processed),
                    }
                }
            };
        }
    }

    /// `parseValue` up to its first recursive call, if any.
    fn value_start(&mut self) -> Step<Next> {
        self.frames.call(frame_cost::VALUE)?;
        self.conts.push(Cont::ValueEnd);
        self.parse_whitespace_and_skip_comments(true);
        match self.at(self.i) {
            Some(b'{') => return self.object_start(),
            Some(b'[') => return self.array_start(),
            _ => {}
        }
        if self.parse_string(false, None)? || self.parse_number() || self.parse_keywords() {
            return Ok(Next::Return(true));
        }
        match self.parse_unquoted_string(false)? {
            Unquoted::Call => self.call_start(),
            Unquoted::Done(true) => Ok(Next::Return(true)),
            Unquoted::Done(false) => Ok(Next::Return(self.parse_regex())),
        }
    }

    /// Where a caller of `parseValue` goes on once the value is parsed.
    fn resume(&mut self, cont: Cont, processed: bool) -> Step<Next> {
        match cont {
            Cont::ValueEnd => {
                self.parse_whitespace_and_skip_comments(true);
                self.frames.ret(frame_cost::VALUE);
                Ok(Next::Return(processed))
            }
            Cont::Call => {
                self.frames.leave(frame_cost::CALL);
                if self.at(self.i) == Some(b')') {
                    self.i += 1;
                    if self.at(self.i) == Some(b';') {
                        self.i += 1;
                    }
                }
                Ok(Next::Return(true))
            }
            Cont::ObjectKey => self.object_key(processed),
            Cont::ObjectValue {
                processed_colon,
                truncated_text,
            } => {
                if !processed {
                    if processed_colon || truncated_text {
                        self.output.push_str("null");
                    } else {
                        // throwColonExpected
                        return Err(Failure::Invalid);
                    }
                }
                self.object_member(false)
            }
            Cont::ArrayItem => {
                if !processed {
                    strip_last_occurrence(&mut self.output, b',', false);
                    return Ok(self.array_end());
                }
                self.array_item(false)
            }
        }
    }

    /// `parseUnquotedString`'s function call: the value inside `name(`.
    fn call_start(&mut self) -> Step<Next> {
        self.frames.enter(frame_cost::CALL)?;
        self.conts.push(Cont::Call);
        Ok(Next::Value)
    }

    fn parse_whitespace_and_skip_comments(&mut self, skip_newline: bool) -> bool {
        let start = self.i;
        self.parse_whitespace(skip_newline);
        loop {
            let mut changed = self.parse_comment();
            if changed {
                changed = self.parse_whitespace(skip_newline);
            }
            if !changed {
                break;
            }
        }
        self.i > start
    }

    fn parse_whitespace(&mut self, skip_newline: bool) -> bool {
        let mut found = false;
        loop {
            let b = self.at(self.i);
            let plain = if skip_newline {
                is_whitespace(b)
            } else {
                is_whitespace_except_newline(b)
            };
            if let (true, Some(b)) = (plain, b) {
                self.output.push(char::from(b));
                self.i += 1;
            } else if b.is_some_and(|b| b >= 0x80) && is_special_whitespace(self.ch(self.i)) {
                self.output.push(' ');
                self.i += self.ch(self.i).map_or(1, char::len_utf8);
            } else {
                break;
            }
            found = true;
        }
        found
    }

    fn parse_comment(&mut self) -> bool {
        let len = self.len();
        if self.at(self.i) == Some(b'/') && self.at(self.i + 1) == Some(b'*') {
            while self.i < len
                && !(self.at(self.i) == Some(b'*') && self.at(self.i + 1) == Some(b'/'))
            {
                self.i += 1;
            }
            self.i += 2;
            return true;
        }
        if self.at(self.i) == Some(b'/') && self.at(self.i + 1) == Some(b'/') {
            while self.i < len && self.at(self.i) != Some(b'\n') {
                self.i += 1;
            }
            return true;
        }
        false
    }

    fn parse_markdown_code_block(&mut self, blocks: &[&[u8]]) -> bool {
        if self.skip_markdown_code_block(blocks) {
            if is_function_name_char_start(self.at(self.i)) {
                while self.i < self.len() && is_function_name_char(self.at(self.i)) {
                    self.i += 1;
                }
            }
            self.parse_whitespace_and_skip_comments(true);
            return true;
        }
        false
    }

    fn skip_markdown_code_block(&mut self, blocks: &[&[u8]]) -> bool {
        self.parse_whitespace(true);
        for block in blocks {
            let end = self.i + block.len();
            if self.slice(self.i, end) == *block {
                self.i = end;
                return true;
            }
        }
        false
    }

    fn parse_character(&mut self, c: u8) -> bool {
        if self.at(self.i) == Some(c) {
            self.output.push(char::from(c));
            self.i += 1;
            return true;
        }
        false
    }

    fn skip_character(&mut self, c: u8) -> bool {
        if self.at(self.i) == Some(c) {
            self.i += 1;
            return true;
        }
        false
    }

    fn skip_ellipsis(&mut self) -> bool {
        self.parse_whitespace_and_skip_comments(true);
        if self.slice(self.i, self.i + 3) == b"..." {
            self.i += 3;
            self.parse_whitespace_and_skip_comments(true);
            self.skip_character(b',');
            return true;
        }
        false
    }

    /// `parseObject()` from its `{` to its first member.
    fn object_start(&mut self) -> Step<Next> {
        self.frames.enter(frame_cost::OBJECT)?;
        self.output.push('{');
        self.i += 1;
        self.parse_whitespace_and_skip_comments(true);
        if self.skip_character(b',') {
            self.parse_whitespace_and_skip_comments(true);
        }
        self.object_member(true)
    }

    /// One turn of `parseObject`'s loop, up to its key.
    fn object_member(&mut self, initial: bool) -> Step<Next> {
        if !(self.i < self.len() && self.at(self.i) != Some(b'}')) {
            return Ok(self.object_end());
        }
        if !initial {
            if !self.parse_character(b',') {
                insert_before_last_whitespace(&mut self.output, ",");
            }
            self.parse_whitespace_and_skip_comments(true);
        }
        self.skip_ellipsis();
        if self.parse_string(false, None)? {
            return self.object_key(true);
        }
        match self.parse_unquoted_string(true)? {
            Unquoted::Done(processed_key) => self.object_key(processed_key),
            Unquoted::Call => {
                self.conts.push(Cont::ObjectKey);
                self.call_start()
            }
        }
    }

    /// `parseObject`'s loop once the key is parsed, up to the member's value.
    fn object_key(&mut self, processed_key: bool) -> Step<Next> {
        if !processed_key {
            if matches!(self.at(self.i), Some(b'}' | b'{' | b']' | b'[') | None) {
                strip_last_occurrence(&mut self.output, b',', false);
            } else {
                // throwObjectKeyExpected
                return Err(Failure::Invalid);
            }
            return Ok(self.object_end());
        }
        self.parse_whitespace_and_skip_comments(true);
        let processed_colon = self.parse_character(b':');
        let truncated_text = self.i >= self.len();
        if !processed_colon {
            if is_start_of_value(self.ch(self.i)) || truncated_text {
                insert_before_last_whitespace(&mut self.output, ":");
            } else {
                // throwColonExpected
                return Err(Failure::Invalid);
            }
        }
        self.conts.push(Cont::ObjectValue {
            processed_colon,
            truncated_text,
        });
        Ok(Next::Value)
    }

    /// `parseObject` after its loop: the closing brace.
    fn object_end(&mut self) -> Next {
        if self.at(self.i) == Some(b'}') {
            self.output.push('}');
            self.i += 1;
        } else {
            insert_before_last_whitespace(&mut self.output, "}");
        }
        self.frames.leave(frame_cost::OBJECT);
        Next::Return(true)
    }

    /// `parseArray()` from its `[` to its first item.
    fn array_start(&mut self) -> Step<Next> {
        self.frames.enter(frame_cost::ARRAY)?;
        self.output.push('[');
        self.i += 1;
        self.parse_whitespace_and_skip_comments(true);
        if self.skip_character(b',') {
            self.parse_whitespace_and_skip_comments(true);
        }
        self.array_item(true)
    }

    /// One turn of `parseArray`'s loop, up to its item.
    fn array_item(&mut self, initial: bool) -> Step<Next> {
        if !(self.i < self.len() && self.at(self.i) != Some(b']')) {
            return Ok(self.array_end());
        }
        if !initial && !self.parse_character(b',') {
            insert_before_last_whitespace(&mut self.output, ",");
        }
        self.skip_ellipsis();
        self.conts.push(Cont::ArrayItem);
        Ok(Next::Value)
    }

    /// `parseArray` after its loop: the closing bracket.
    fn array_end(&mut self) -> Next {
        if self.at(self.i) == Some(b']') {
            self.output.push(']');
            self.i += 1;
        } else {
            insert_before_last_whitespace(&mut self.output, "]");
        }
        self.frames.leave(frame_cost::ARRAY);
        Next::Return(true)
    }

    fn parse_newline_delimited_json(&mut self) -> Step<()> {
        let mut initial = true;
        let mut processed_value = true;
        while processed_value {
            if !initial {
                if !self.parse_character(b',') {
                    insert_before_last_whitespace(&mut self.output, ",");
                }
            } else {
                initial = false;
            }
            processed_value = self.parse_value()?;
        }
        // The loop only ends on a value that was not processed.
        strip_last_occurrence(&mut self.output, b',', false);
        self.output = format!("[\n{}\n]", self.output);
        Ok(())
    }

    /// `parseString(stopAtDelimiter = false, stopAtIndex = -1)`.
    ///
    /// Longer than the core's other functions on purpose: it is one state
    /// machine over the string's characters, ported statement for statement
    /// from jsonrepair's `parseString` (src/regular/jsonrepair.ts) so that
    /// the two can be compared side by side; split, it would no longer read
    /// as the original.
    fn parse_string(
        &mut self,
        stop_at_delimiter: bool,
        stop_at_index: Option<usize>,
    ) -> Step<bool> {
        Ok(
            match self.string_passes(stop_at_delimiter, stop_at_index)? {
                StringEnd::None => false,
                StringEnd::Concat => {
                    self.parse_concatenated_string()?;
                    true
                }
                _ => true,
            },
        )
    }

    /// `parseString`'s passes: where JS calls `parseString` again to read
    /// the string another way, and returns what that call returns, the
    /// port loops.
    fn string_passes(
        &mut self,
        mut stop_at_delimiter: bool,
        mut stop_at_index: Option<usize>,
    ) -> Step<StringEnd> {
        let mut retries = 0;
        loop {
            match self.string_pass(stop_at_delimiter, stop_at_index)? {
                StringEnd::Retry(stop, index) => {
                    self.frames.call(frame_cost::RETRY)?;
                    retries += 1;
                    stop_at_delimiter = stop;
                    stop_at_index = index;
                }
                end => {
                    self.frames.ret(retries * frame_cost::RETRY);
                    return Ok(end);
                }
            }
        }
    }

    /// One pass of `parseString` (see [`Self::parse_string`]).
    fn string_pass(
        &mut self,
        stop_at_delimiter: bool,
        stop_at_index: Option<usize>,
    ) -> Step<StringEnd> {
        let skip_escape_chars = self.at(self.i) == Some(b'\\');
        if skip_escape_chars {
            // The backslash stays consumed even when no string follows.
            self.i += 1;
        }
        let quote = self.ch(self.i);
        if !is_quote(quote) {
            return Ok(StringEnd::None);
        }
        let is_end_quote: fn(Option<char>) -> bool = match quote {
            Some('"') => |c| c == Some('"'),
            Some('\'') => |c| c == Some('\''),
            c if is_single_quote_like(c) => is_single_quote_like,
            _ => is_double_quote_like,
        };
        let i_before = self.i;
        let o_before = self.output.len();
        let mut s = String::from("\"");
        // JS's `iBefore + 1`: just after the opening quote.
        let i_content = i_before + quote.map_or(1, char::len_utf8);
        self.i = i_content;
        loop {
            let len = self.len();
            if self.i >= len {
                let i_prev = self.prev_non_whitespace_index(self.i - 1);
                if !stop_at_delimiter && is_delimiter_at(self.t, i_prev) {
                    self.i = i_before;
                    self.output.truncate(o_before);
                    return Ok(StringEnd::Retry(true, None));
                }
                insert_before_last_whitespace(&mut s, "\"");
                self.output.push_str(&s);
                return Ok(StringEnd::Done);
            }
            if Some(self.i) == stop_at_index {
                insert_before_last_whitespace(&mut s, "\"");
                self.output.push_str(&s);
                return Ok(StringEnd::Done);
            }
            let c = self.ch(self.i);
            if is_end_quote(c) {
                let i_quote = self.i;
                let o_quote = s.len();
                s.push('"');
                self.i += c.map_or(1, char::len_utf8);
                // JS appends `str` to the output here and cuts it off again
                // below when the quote turns out not to end the string; the
                // whitespace parsed next goes after it.
                self.parse_whitespace_and_skip_comments(false);
                let next = self.at(self.i);
                if stop_at_delimiter
                    || self.i >= len
                    || is_delimiter(next)
                    || is_quote(self.ch(self.i))
                    || is_digit(next)
                {
                    self.output.insert_str(o_before, &s);
                    return Ok(StringEnd::Concat);
                }
                let i_prev_char = self.prev_non_whitespace_index(i_quote - 1);
                if self.at(i_prev_char) == Some(b',') {
                    if stop_at_index == Some(i_prev_char) {
                        // An escape (`\,`) stepped over the stop index, so
                        // JS would come back here with the same arguments
                        // until its stack overflows; safeJsonParse catches
                        // the RangeError.
                        return Err(Failure::Invalid);
                    }
                    self.i = i_before;
                    self.output.truncate(o_before);
                    return Ok(StringEnd::Retry(false, Some(i_prev_char)));
                }
                if is_delimiter_at(self.t, i_prev_char) {
                    self.i = i_before;
                    self.output.truncate(o_before);
                    return Ok(StringEnd::Retry(true, None));
                }
                self.output.truncate(o_before);
                self.i = i_quote + c.map_or(1, char::len_utf8);
                s.insert(o_quote, '\\');
            } else if stop_at_delimiter && is_unquoted_string_delimiter(self.at(self.i)) {
                if self.i > 0
                    && self.at(self.i - 1) == Some(b':')
                    && is_url_start(self.slice(i_content, self.i + 2))
                {
                    while self.i < len && is_url_char(self.at(self.i)) {
                        s.push(char::from(self.t[self.i]));
                        self.i += 1;
                    }
                }
                insert_before_last_whitespace(&mut s, "\"");
                self.output.push_str(&s);
                return Ok(StringEnd::Concat);
            } else if self.at(self.i) == Some(b'\\') {
                let next = self.at(self.i + 1);
                if is_escape_character(next) {
                    s.push('\\');
                    s.push(char::from(self.t[self.i + 1]));
                    self.i += 2;
                } else if next == Some(b'u') {
                    let mut j = 2;
                    while j < 6 && is_hex(self.at(self.i + j)) {
                        j += 1;
                    }
                    if j == 6 {
                        s.push_str(&self.s[self.i..self.i + 6]);
                        self.i += 6;
                    } else if self.i + j >= len {
                        self.i = len;
                    } else {
                        // throwInvalidUnicodeCharacter
                        return Err(Failure::Invalid);
                    }
                } else {
                    // An unknown escape keeps the character and drops the
                    // backslash (`charAt` past the end is "").
                    match self.ch(self.i + 1) {
                        Some(c) => {
                            s.push(c);
                            self.i += 1 + c.len_utf8();
                        }
                        None => self.i += 2,
                    }
                }
            } else {
                let Some(c) = c else {
                    return Err(Failure::Invalid);
                };
                if c == '"' && self.at(self.i - 1) != Some(b'\\') {
                    s.push_str("\\\"");
                } else if let Some(escape) = control_character_escape(c) {
                    s.push_str(escape);
                } else {
                    if c < ' ' {
                        // throwInvalidCharacter
                        return Err(Failure::Invalid);
                    }
                    s.push(c);
                }
                self.i += c.len_utf8();
            }
            if skip_escape_chars {
                self.skip_character(b'\\');
            }
        }
    }

    /// `parseConcatenatedString()`. In JS each `+` and string recurses:
    /// the string's own `parseString` calls `parseConcatenatedString` for the
    /// `+` after it, and each call removes its string's opening quote on the
    /// way back, innermost first. The port takes the whole chain in one loop
    /// and keeps those removals until it ends.
    fn parse_concatenated_string(&mut self) -> Step<bool> {
        let mut processed = false;
        let mut opening_quotes: Vec<usize> = Vec::new();
        self.parse_whitespace_and_skip_comments(true);
        while self.at(self.i) == Some(b'+') {
            processed = true;
            self.i += 1;
            self.parse_whitespace_and_skip_comments(true);
            strip_last_occurrence(&mut self.output, b'"', true);
            let start = self.output.len();
            match self.string_passes(false, None)? {
                StringEnd::None => insert_before_last_whitespace(&mut self.output, "\""),
                StringEnd::Concat => {
                    // The inner parseConcatenatedString's frames.
                    self.frames.call(frame_cost::CONCAT)?;
                    opening_quotes.push(start);
                    self.parse_whitespace_and_skip_comments(true);
                }
                _ => remove_opening_quote(&mut self.output, start),
            }
        }
        self.frames.ret(opening_quotes.len() * frame_cost::CONCAT);
        while let Some(start) = opening_quotes.pop() {
            remove_opening_quote(&mut self.output, start);
        }
        Ok(processed)
    }

    fn parse_number(&mut self) -> bool {
        let start = self.i;
        if self.at(self.i) == Some(b'-') {
            self.i += 1;
            if self.at_end_of_number() {
                self.repair_number_ending_with_numeric_symbol(start);
                return true;
            }
            if !is_digit(self.at(self.i)) {
                self.i = start;
                return false;
            }
        }
        while is_digit(self.at(self.i)) {
            self.i += 1;
        }
        if self.at(self.i) == Some(b'.') {
            self.i += 1;
            if self.at_end_of_number() {
                self.repair_number_ending_with_numeric_symbol(start);
                return true;
            }
            if !is_digit(self.at(self.i)) {
                self.i = start;
                return false;
            }
            while is_digit(self.at(self.i)) {
                self.i += 1;
            }
        }
        if matches!(self.at(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.at(self.i), Some(b'-' | b'+')) {
                self.i += 1;
            }
            if self.at_end_of_number() {
                self.repair_number_ending_with_numeric_symbol(start);
                return true;
            }
            if !is_digit(self.at(self.i)) {
                self.i = start;
                return false;
            }
            while is_digit(self.at(self.i)) {
                self.i += 1;
            }
        }
        if !self.at_end_of_number() {
            self.i = start;
            return false;
        }
        if self.i > start {
            let num = &self.s[start..self.i];
            let b = num.as_bytes();
            // /^0\d/: a leading zero makes it a string.
            if b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit() {
                self.output.push('"');
                self.output.push_str(num);
                self.output.push('"');
            } else {
                self.output.push_str(num);
            }
            return true;
        }
        false
    }

    fn parse_keywords(&mut self) -> bool {
        // Python's True, False and None are repaired too.
        self.parse_keyword("true", "true")
            || self.parse_keyword("false", "false")
            || self.parse_keyword("null", "null")
            || self.parse_keyword("True", "true")
            || self.parse_keyword("False", "false")
            || self.parse_keyword("None", "null")
    }

    fn parse_keyword(&mut self, name: &str, value: &str) -> bool {
        if self.slice(self.i, self.i + name.len()) == name.as_bytes() {
            self.output.push_str(value);
            self.i += name.len();
            return true;
        }
        false
    }

    /// `parseUnquotedString(isKey)`, up to the value inside a function call.
    fn parse_unquoted_string(&mut self, is_key: bool) -> Step<Unquoted> {
        let start = self.i;
        let len = self.len();
        if is_function_name_char_start(self.at(self.i)) {
            while self.i < len && is_function_name_char(self.at(self.i)) {
                self.i += 1;
            }
            let mut j = self.i;
            while is_whitespace(self.at(j)) {
                j += 1;
            }
            if self.at(j) == Some(b'(') {
                // A function call such as JSONP's `callback({...});`: the
                // value inside is kept.
                self.i = j + 1;
                return Ok(Unquoted::Call);
            }
        }
        while self.i < len {
            let b = self.at(self.i);
            if is_unquoted_string_delimiter(b) || (is_key && b == Some(b':')) {
                break;
            }
            let c = self.ch(self.i);
            if is_quote(c) {
                break;
            }
            self.i += c.map_or(1, char::len_utf8);
        }
        if self.i > 0
            && self.at(self.i - 1) == Some(b':')
            && is_url_start(self.slice(start, self.i + 2))
        {
            while self.i < len && is_url_char(self.at(self.i)) {
                self.i += 1;
            }
        }
        if self.i > start {
            while self.i > 0 && is_whitespace(self.at(self.i - 1)) {
                self.i -= 1;
            }
            let symbol = self.s.get(start..self.i.max(start)).unwrap_or("");
            if symbol == "undefined" {
                self.output.push_str("null");
            } else {
                crate::foundations::json::write_str(&mut self.output, symbol);
            }
            if self.at(self.i) == Some(b'"') {
                self.i += 1;
            }
            return Ok(Unquoted::Done(true));
        }
        Ok(Unquoted::Done(false))
    }

    fn parse_regex(&mut self) -> bool {
        if self.at(self.i) != Some(b'/') {
            return false;
        }
        let start = self.i;
        self.i += 1;
        while self.i < self.len()
            && (self.at(self.i) != Some(b'/') || self.at(self.i - 1) == Some(b'\\'))
        {
            self.i += 1;
        }
        self.i += 1;
        // The regex goes into the output as it stands, unescaped.
        self.output.push('"');
        let end = self.i.min(self.len());
        self.output.push_str(self.s.get(start..end).unwrap_or(""));
        self.output.push('"');
        true
    }

    fn prev_non_whitespace_index(&self, start: usize) -> usize {
        let mut prev = start;
        while prev > 0 && is_whitespace(self.at(prev)) {
            prev -= 1;
        }
        prev
    }

    fn at_end_of_number(&self) -> bool {
        let b = self.at(self.i);
        self.i >= self.len() || is_delimiter(b) || is_whitespace(b)
    }

    fn repair_number_ending_with_numeric_symbol(&mut self, start: usize) {
        // The number so far is ASCII (sign, digits, dot, exponent).
        self.output
            .push_str(self.s.get(start..self.i).unwrap_or(""));
        self.output.push('0');
    }
}

/// `removeAtIndex(output, start, 1)`: a string's opening quote.
fn remove_opening_quote(output: &mut String, start: usize) {
    if output.is_char_boundary(start) && start < output.len() {
        output.remove(start);
    }
}
