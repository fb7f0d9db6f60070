//! How far an open tool call's arguments have come: the counts a preparing
//! card shows while the model is still writing them, never their content.
//!
//! Both converters keep every argument byte of an open call in its buffer
//! until the call closes (the reference parses them whole then: Anthropic
//! `processStream` at `content_block_stop`, OpenAI `StreamingToolCallParser`
//! at the finish). So the byte count is the buffer's length, and the line
//! count is taken from the buffer only when someone asks
//! ([`LineCount::update`]), from where the last count stopped: the hot paths
//! that append fragments do no extra work, and a call's count costs three
//! words however long its arguments grow.

/// The `\n` escapes in a call's argument text, counted up to `scanned`.
///
/// Argument text is JSON text: a line break inside a string value is the
/// two-byte escape `\n` (a raw line feed is not allowed in a JSON string,
/// and outside strings it is only whitespace). A backslash starts an escape
/// and the byte after it is the escape's letter, so `\\n` is an escaped
/// backslash and a letter `n`, not a line break.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCount {
    /// Bytes of the text already counted.
    scanned: usize,
    lines: u64,
    /// The counted text ends inside an escape: its backslash was the last
    /// byte counted.
    in_escape: bool,
}

impl LineCount {
    /// Counts the bytes of `text` past those counted before, and returns the
    /// line breaks so far. `text` is the same buffer as at the last call,
    /// grown at its end: a buffer only shrinks inside one converter call
    /// (the template path's `take_back`), never between two counts. Were it
    /// shorter all the same, counting goes on from its new end, and the
    /// count never decreases.
    pub fn update(&mut self, text: &[u8]) -> u64 {
        if text.len() < self.scanned {
            self.scanned = text.len();
            self.in_escape = false;
        }
        let mut at = self.scanned;
        if self.in_escape && at < text.len() {
            if text[at] == b'n' {
                self.lines += 1;
            }
            self.in_escape = false;
            at += 1;
        }
        while let Some(found) = memchr::memchr(b'\\', &text[at..]) {
            let backslash = at + found;
            match text.get(backslash + 1) {
                Some(&letter) => {
                    if letter == b'n' {
                        self.lines += 1;
                    }
                    at = backslash + 2;
                }
                None => {
                    self.in_escape = true;
                    break;
                }
            }
        }
        self.scanned = text.len();
        self.lines
    }

    /// The line breaks counted so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The line breaks there would be with `more` appended to the text
    /// counted so far, the count itself unchanged: for argument bytes that
    /// have reached the process but not the converter (held where the SDK
    /// holds them). An escape split between the two is counted once.
    pub fn with_more(&self, more: &[u8]) -> u64 {
        let mut count = LineCount {
            scanned: 0,
            ..*self
        };
        count.update(more)
    }
}

/// One open call's progress: which call (as its preparation named it), and
/// how much of its argument text has arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentProgress {
    /// The preparation's `callId` ([`crate::model::gemini::Preparation::call_id`]).
    pub call_id: String,
    /// The id's JSON where it is not a string, as in the preparation.
    pub call_id_json: Option<String>,
    /// The preparation's `toolName`.
    pub tool_name: String,
    /// UTF-8 bytes of argument text received so far.
    pub argument_bytes: usize,
    /// Line breaks (`\n` escapes) inside the argument's string values so far.
    pub argument_lines: u64,
}

#[cfg(test)]
mod tests {
    use super::LineCount;

    fn count_once(text: &str) -> u64 {
        LineCount::default().update(text.as_bytes())
    }

    #[test]
    fn counts_newline_escapes_and_nothing_else() {
        assert_eq!(count_once(r#"{"content":"a\nb\nc"}"#), 2);
        assert_eq!(
            count_once(r#"{"content":"a\\nb"}"#),
            0,
            "an escaped backslash, then n"
        );
        assert_eq!(count_once(r#"{"content":"a\\\nb"}"#), 1);
        assert_eq!(count_once(r#"{"content":"\t\r\"n\u000a"}"#), 0);
        assert_eq!(
            count_once("{\"n\":1}\n"),
            0,
            "whitespace outside strings is no line"
        );
    }

    #[test]
    fn counting_in_pieces_equals_counting_once_at_every_split() {
        let text = r#"{"a":"x\ny\\n\\\nz\n","b":"\\\\n\n"}"#.as_bytes();
        let whole = LineCount::default().update(text);
        for split in 0..=text.len() {
            for second in split..=text.len() {
                let mut count = LineCount::default();
                count.update(&text[..split]);
                count.update(&text[..second]);
                assert_eq!(count.update(text), whole, "splits at {split} and {second}");
            }
        }
    }

    #[test]
    fn counting_more_equals_counting_the_whole_and_changes_nothing() {
        let text = r#"{"a":"x\ny\\n\\\nz\n","b":"\\\\n\n"}"#.as_bytes();
        let whole = LineCount::default().update(text);
        for split in 0..=text.len() {
            let mut count = LineCount::default();
            count.update(&text[..split]);
            let before = count;
            assert_eq!(count.with_more(&text[split..]), whole, "split at {split}");
            assert_eq!(count, before);
        }
    }

    #[test]
    fn a_shorter_text_never_lowers_the_count() {
        let mut count = LineCount::default();
        assert_eq!(count.update(br#""a\nb\n"#), 2);
        assert_eq!(count.update(br#""a\nb"#), 2);
        assert_eq!(
            count.update(br#""a\nb\nc"#),
            3,
            "counting goes on from the shorter end"
        );
        assert_eq!(count.lines(), 3);
    }
}
