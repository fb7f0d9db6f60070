//! Cumulative-text normalisation (docs/behaviour.md §3.2.1, `normalizeStreamingTextDelta`):
//! providers that resend the whole accumulated text (DashScope) become
//! suffix streams. Lengths are JavaScript lengths (UTF-16 code units).

use crate::js_text::{utf16_len, utf16_to_byte};

const EXACT_REPEAT_MIN_LENGTH: usize = 64;
const DETECTION_WINDOW: usize = 1024;

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
    /// `emittedLength` is `NaN` (a value without `length` was counted).
    emitted_nan: bool,
    /// `emittedTokenUnits` of the reasoning channel (token estimate).
    pub token_units: f64,
}

/// What `normalizeStreamingTextDelta` does with a truthy delta that is
/// not a string.
#[derive(Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Returned as it is (it has no `length`, so no check matches it).
    Passes,
    /// In cumulative mode it reads `rawDelta.startsWith`: V8's TypeError.
    Throws,
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

    /// A truthy delta that is not a string (nor an array), `as_text` its
    /// `String(value)`: the first one becomes the baseline; after a string
    /// baseline it is appended to it (below the window) and the emitted
    /// length becomes `NaN`.
    pub fn normalize_foreign(&mut self, as_text: &str) -> Foreign {
        if self.foreign || self.baseline.is_empty() {
            self.foreign = true;
            return Foreign::Passes;
        }
        if self.cumulative {
            return Foreign::Throws;
        }
        if self.baseline_units < DETECTION_WINDOW {
            self.baseline.push_str(as_text);
            self.baseline_units += utf16_len(as_text);
        }
        self.emitted_nan = true;
        Foreign::Passes
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
        if self.baseline.is_empty() {
            self.set_baseline(raw, raw_units);
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
                self.emitted_units = raw_units;
                self.cumulative = true;
                return suffix;
            }
        }
        if raw == self.baseline {
            if raw_units >= EXACT_REPEAT_MIN_LENGTH {
                self.cumulative = true;
                return "";
            }
            self.emitted_units += raw_units;
            return raw;
        }
        if self.baseline_units < DETECTION_WINDOW {
            self.baseline.push_str(raw);
            self.baseline_units += raw_units;
        }
        self.emitted_units += raw_units;
        raw
    }
}

/// `estimateTextTokenUnits`: 5 units per ASCII code unit, 22 per other
/// (text in the text form of [`crate::json::text`]: a lone surrogate is one
/// unit).
pub fn estimate_token_units(text: &str) -> f64 {
    let mut units = 0f64;
    for c in text.chars() {
        units += if (c as u32) < 0x80 {
            5.0
        } else {
            22.0 * crate::json::text::js_units(c) as f64
        };
    }
    units
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
    fn token_units_follow_the_reference_estimate() {
        assert_eq!(estimate_token_units("abcd"), 20.0);
        assert_eq!(estimate_token_units("é"), 22.0);
    }
}
