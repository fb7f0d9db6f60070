//! Cumulative-text normalisation (docs/behaviour.md §3.2.1, `normalizeStreamingTextDelta`):
//! providers that resend the whole accumulated text (DashScope) become
//! suffix streams. Lengths are JavaScript lengths (UTF-16 code units).

use crate::foundations::js_text::{utf16_len, utf16_to_byte};

const EXACT_REPEAT_MIN_LENGTH: usize = 64;
const DETECTION_WINDOW: usize = 1024;

/// A stream's two channels of deltas, each normalised on its own.
#[derive(Default, Debug)]
pub(super) struct TextDeltas {
    /// `textDeltaState`: the content channel.
    pub(super) text: TextDeltaState,
    /// `reasoningDeltaState`: the reasoning channel, whose token units the
    /// usage mapping estimates reasoning tokens from.
    pub(super) reasoning: TextDeltaState,
}

/// One channel's state (`textDeltaState` / `reasoningDeltaState`).
#[derive(Default, Debug)]
pub struct TextDeltaState {
    /// The baseline (`emittedText`).
    baseline: String,
    /// `emittedText.length`, kept to avoid recounting UTF-16 units.
    baseline_units: usize,
    /// `emittedLength`: units emitted so far.
    emitted_units: usize,
    cumulative: bool,
    /// The baseline is a value that is not a string (a reasoning delta of
    /// another type came first): it has no `length`, so every later delta
    /// passes as it is.
    foreign: bool,
    /// The baseline is an array (a reasoning delta that is one came first):
    /// `baseline` holds its `String(value)`, `baseline_units` its `length`
    /// (the element count), and it equals no later delta (`===`).
    baseline_array: bool,
    /// `emittedLength` is `NaN` (a value without `length` was counted).
    emitted_nan: bool,
    /// `emittedTokenUnits` of the reasoning channel (token estimate).
    pub token_units: f64,
}

/// What `normalizeStreamingTextDelta` does with a truthy delta that is
/// not a string.
#[derive(Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Returned as it is.
    Passes,
    /// It reads `rawDelta.startsWith`, which the value lacks: V8's TypeError.
    Throws,
}

/// A truthy reasoning delta that is not a string, as
/// `normalizeStreamingTextDelta` reads it: its `length` and `String(value)`.
#[derive(Clone, Copy, Debug)]
pub enum ForeignDelta<'a> {
    /// An array: `length` is its element count.
    Array { len: usize, text: &'a str },
    /// A number, boolean or object: `length` is `undefined`, so no length
    /// test matches it.
    Other { text: &'a str },
}

impl TextDeltaState {
    fn set_baseline(&mut self, text: &str, units: usize) {
        self.baseline.clear();
        self.baseline.push_str(text);
        self.baseline_units = units;
    }

    /// `emittedText === raw || (raw.length === emittedLength &&
    /// raw.startsWith(emittedText))`: `raw` resends what was emitted.
    pub fn is_snapshot(&self, raw: &str) -> bool {
        if self.foreign {
            return false;
        }
        self.baseline == raw
            || (utf16_len(raw) == self.emitted_units && raw.starts_with(self.baseline.as_str()))
    }

    /// A resent snapshot becomes the baseline, in cumulative mode.
    pub fn take_snapshot(&mut self, raw: &str) {
        let units = utf16_len(raw);
        self.set_baseline(raw, units);
        self.emitted_units = units;
        self.cumulative = true;
    }

    /// `normalizeStreamingTextDelta(value, state)` for a truthy delta that
    /// is not a string, step by step as JS runs it on a value whose
    /// `length` is [`ForeignDelta`]'s and which has no `startsWith`; `Passes`
    /// means it returns the value as it is (an empty array returns `""`:
    /// the caller skips it).
    pub fn normalize_foreign(&mut self, delta: ForeignDelta<'_>) -> Foreign {
        let (len, text) = match delta {
            ForeignDelta::Array { len, text } => (Some(len), text),
            ForeignDelta::Other { text } => (None, text),
        };
        // `state.emittedText.length === 0`: the value becomes the baseline.
        if !self.foreign && self.baseline_units == 0 {
            match len {
                Some(n) => {
                    self.set_baseline(text, n);
                    self.baseline_array = true;
                    self.emitted_units = n;
                }
                None => self.foreign = true,
            }
            return Foreign::Passes;
        }
        if self.foreign {
            // `undefined < window` is false: the baseline stays; an array's
            // length still counts.
            match len {
                Some(n) => self.emitted_units += n,
                None => self.emitted_nan = true,
            }
            return Foreign::Passes;
        }
        // `rawDelta.startsWith(…)`: in cumulative mode, and where
        // `rawDelta.length > emittedText.length` (an array) reads it.
        if self.cumulative || len.is_some_and(|n| n > self.baseline_units) {
            return Foreign::Throws;
        }
        // `emittedText += rawDelta` (string concatenation) below the window.
        if self.baseline_units < DETECTION_WINDOW {
            self.append_to_baseline(text);
        }
        match len {
            Some(n) => self.emitted_units += n,
            None => self.emitted_nan = true,
        }
        Foreign::Passes
    }

    /// `emittedText += text`: the baseline becomes a string (an array's
    /// `String(value)` first).
    fn append_to_baseline(&mut self, text: &str) {
        if self.baseline_array {
            self.baseline_array = false;
            self.baseline_units = utf16_len(&self.baseline);
        }
        self.baseline.push_str(text);
        self.baseline_units += utf16_len(text);
    }

    /// Returns the part of `raw` that is new.
    pub fn normalize<'a>(&mut self, raw: &'a str) -> &'a str {
        if raw.is_empty() {
            return "";
        }
        if self.foreign {
            return raw;
        }
        let raw_units = utf16_len(raw);
        if self.baseline_units == 0 {
            self.set_baseline(raw, raw_units);
            self.baseline_array = false;
            self.emitted_units = raw_units;
            return raw;
        }
        if self.cumulative {
            if raw.starts_with(self.baseline.as_str()) {
                let suffix = &raw[self.baseline.len()..];
                self.set_baseline(raw, raw_units);
                self.emitted_units = raw_units;
                return suffix;
            }
            if self.baseline.starts_with(raw) {
                // A rewind: the provider resent a shorter accumulated text.
                return "";
            }
            self.cumulative = false;
            self.set_baseline(raw, raw_units);
            self.emitted_units += raw_units;
            return raw;
        }
        // An array baseline is matched by its `String(value)` and sliced at
        // its `length`, as `startsWith` and `slice` coerce it.
        if raw_units > self.baseline_units && raw.starts_with(self.baseline.as_str()) {
            let frozen = self.baseline_units >= DETECTION_WINDOW
                && !self.emitted_nan
                && self.emitted_units > self.baseline_units;
            let slice_from = if frozen {
                self.emitted_units
            } else {
                self.baseline_units
            };
            if raw_units > slice_from {
                let suffix = &raw[utf16_to_byte(raw, slice_from)..];
                self.set_baseline(raw, raw_units);
                self.baseline_array = false;
                self.emitted_units = raw_units;
                self.cumulative = true;
                return suffix;
            }
        }
        if !self.baseline_array && raw == self.baseline {
            if raw_units >= EXACT_REPEAT_MIN_LENGTH {
                self.cumulative = true;
                return "";
            }
            self.emitted_units += raw_units;
            return raw;
        }
        if self.baseline_units < DETECTION_WINDOW {
            self.append_to_baseline(raw);
        }
        self.emitted_units += raw_units;
        raw
    }
}

/// `estimateTextTokenUnits`: 5 units per ASCII code unit, 22 per other
/// (text in the text form of [`crate::foundations::json::text`]: a lone surrogate is one
/// unit).
pub fn estimate_token_units(text: &str) -> f64 {
    let mut units = 0f64;
    for c in text.chars() {
        units += if (c as u32) < 0x80 {
            5.0
        } else {
            22.0 * crate::foundations::json::text::js_units(c) as f64
        };
    }
    units
}

/// `estimateTextTokenUnits(array)`: 5 units an element when
/// `NON_ASCII_RE` (`/[\u0080-\uffff]/`) finds nothing in `String(array)`;
/// otherwise its `countNonAsciiChars` calls `text.charCodeAt`, which an
/// array lacks (`None`: V8's TypeError).
pub fn estimate_array_token_units(len: usize, text: &str) -> Option<f64> {
    text.is_ascii().then_some(5.0 * len as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(deltas: &[&str]) -> Vec<String> {
        let mut s = TextDeltaState::default();
        deltas.iter().map(|d| s.normalize(d).to_owned()).collect()
    }

    #[test]
    fn cumulative_streams_become_suffixes() {
        assert_eq!(
            run(&["Hello", "Hello world", "Hello world!", " Bye"]),
            ["Hello", " world", "!", " Bye"]
        );
        assert_eq!(
            run(&["Hello", "Hello World", "Hello", "Hello World!"]),
            ["Hello", " World", "", "!"]
        );
    }

    #[test]
    fn short_repeats_pass_and_long_repeats_enter_cumulative_mode() {
        assert_eq!(run(&["ha", "ha"]), ["ha", "ha"]);
        let long = "x".repeat(64);
        assert_eq!(run(&[&long, &long]), [long.clone(), String::new()]);
    }

    #[test]
    fn incremental_text_past_the_window_is_verbatim() {
        let a = "a".repeat(1500);
        let b = "b".repeat(10);
        assert_eq!(run(&[&a, &b, &b]), [a.clone(), b.clone(), b.clone()]);
    }

    #[test]
    fn an_array_has_a_length_and_its_string() {
        // `[1, "a"]` first: the baseline, length 2, text "1,a".
        let mut s = TextDeltaState::default();
        let array = ForeignDelta::Array {
            len: 2,
            text: "1,a",
        };
        assert_eq!(s.normalize_foreign(array), Foreign::Passes);
        // Matched as its String(), sliced at its length: cumulative mode.
        assert_eq!(s.normalize("1,a and more"), "a and more");
        let one = ForeignDelta::Array { len: 1, text: "x" };
        assert_eq!(s.normalize_foreign(one), Foreign::Throws);
        // Longer than a string baseline: `rawDelta.startsWith` is read.
        let mut s = TextDeltaState::default();
        assert_eq!(s.normalize("r"), "r");
        let two = ForeignDelta::Array { len: 2, text: ",1" };
        assert_eq!(s.normalize_foreign(two), Foreign::Throws);
        // Not longer: appended as its String(), counted by its length.
        assert_eq!(s.normalize_foreign(one), Foreign::Passes);
        assert_eq!(s.baseline, "rx");
        assert_eq!(s.emitted_units, 2);
        assert_eq!(estimate_array_token_units(3, "1,2,3"), Some(15.0));
        assert_eq!(estimate_array_token_units(1, "é"), None);
    }

    #[test]
    fn token_units_follow_the_reference_estimate() {
        assert_eq!(estimate_token_units("abcd"), 20.0);
        assert_eq!(estimate_token_units("é"), 22.0);
    }
}
