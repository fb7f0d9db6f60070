//! The progress frame of a preparing card: while the model is still
//! writing a call's arguments, its card counts them up, in numbers an ACP
//! client can parse (`_meta.progress`) and in a title any client renders,
//! and never shows a byte of them.
//!
//! The title's wording: the card's own title, a middle dot, then what is
//! happening now, in the plain words of a progress line:
//! `Write file · receiving 12.4 KB, 310 lines` while bytes arrive,
//! `Write file · waiting for the model, 15 s` when the connection is alive
//! but this call's arguments stopped growing, and
//! `Write file · no data from the provider, 15 s` when nothing at all
//! arrives. Sizes use the units editors show for files (B, KB, MB in powers
//! of 1024, one decimal), and the line count is left out until the first
//! line break, so a one-line value never reads "0 lines". The waiting
//! seconds count up, so a stalled card still changes once a second and never
//! looks frozen.

use super::frames::{JsString, OwnedValue, SessionUpdate};

/// Why a card's arguments stopped growing, once they have not grown for
/// the stall time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// The connection still delivers bytes (pings, keep-alive comments,
    /// other blocks), but not this call's arguments.
    Model,
    /// No byte at all arrived for the stall time.
    Connection,
}

impl Stall {
    /// The `_meta.progress.stalled` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Stall::Model => "model",
            Stall::Connection => "connection",
        }
    }

    /// Reads a `stalled` value from JS.
    pub fn parse(value: &str) -> Option<Stall> {
        match value {
            "model" => Some(Stall::Model),
            "connection" => Some(Stall::Connection),
            _ => None,
        }
    }
}

/// What a progress frame reports of one preparing card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardProgress {
    /// UTF-8 bytes of the call's argument text received so far.
    pub argument_bytes: u64,
    /// Line breaks inside the argument's string values so far.
    pub argument_lines: u64,
    /// Milliseconds since the card opened.
    pub elapsed_ms: u64,
    /// Milliseconds since the last argument byte (since the card opened,
    /// before the first).
    pub idle_ms: u64,
    /// Present only while stalled.
    pub stalled: Option<Stall>,
}

/// A size as editors show a file's: `812 B`, `12.4 KB`, `3.1 MB`.
pub fn format_size(bytes: u64) -> String {
    const KB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KB * KB {
        format!("{:.1} KB", b / KB)
    } else {
        format!("{:.1} MB", b / (KB * KB))
    }
}

/// The card's title while it prepares: `base`, then what is happening now
/// (see the module doc for the wording).
pub fn progress_title(base: &JsString, progress: &CardProgress) -> JsString {
    let mut title = base.clone();
    title.push_str(" · ");
    let seconds = progress.idle_ms / 1000;
    match progress.stalled {
        Some(Stall::Model) => title.push_str(&format!("waiting for the model, {seconds} s")),
        Some(Stall::Connection) => {
            title.push_str(&format!("no data from the provider, {seconds} s"))
        }
        None => {
            title.push_str("receiving ");
            title.push_str(&format_size(progress.argument_bytes));
            match progress.argument_lines {
                0 => {}
                1 => title.push_str(", 1 line"),
                n => title.push_str(&format!(", {n} lines")),
            }
        }
    }
    title
}

/// `_meta.progress`: the counts, then `stalled` only while stalled.
fn progress_meta(progress: &CardProgress) -> OwnedValue {
    let number = |n: u64| OwnedValue::from(n as f64);
    let mut fields = vec![
        ("argumentBytes", number(progress.argument_bytes)),
        ("argumentLines", number(progress.argument_lines)),
        ("elapsedMs", number(progress.elapsed_ms)),
        ("idleMs", number(progress.idle_ms)),
    ];
    if let Some(stall) = progress.stalled {
        fields.push(("stalled", stall.as_str().into()));
    }
    OwnedValue::object(fields)
}

/// The progress `tool_call_update` of a preparing card: no `status`,
/// `rawInput` or `content` (what the card shows of the call stays as the
/// preparing frame left it), a `title` in words, and the numbers in
/// `_meta.progress` beside `phase: 'preparing'`. Nothing the card already
/// has is sent again: an ACP update carries only the fields that change
/// (the tool name, kind and provenance stay as the preparing `tool_call`
/// gave them). `base_title` is the card's title as
/// [`super::bounded_text::card_title`] bounds it.
pub(super) fn progress_frame(
    call_id: &JsString,
    base_title: &JsString,
    progress: &CardProgress,
) -> SessionUpdate {
    OwnedValue::object([
        ("sessionUpdate", "tool_call_update".into()),
        ("toolCallId", call_id.into()),
        ("title", progress_title(base_title, progress).into()),
        (
            "_meta",
            OwnedValue::object([
                ("phase", "preparing".into()),
                ("progress", progress_meta(progress)),
            ]),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(bytes: u64, lines: u64, idle_ms: u64, stalled: Option<Stall>) -> CardProgress {
        CardProgress {
            argument_bytes: bytes,
            argument_lines: lines,
            elapsed_ms: 20_000,
            idle_ms,
            stalled,
        }
    }

    #[test]
    fn the_title_says_what_is_happening_in_words() {
        let base = JsString::from("WriteFile");
        let title = |p: CardProgress| progress_title(&base, &p).to_string();
        assert_eq!(title(at(0, 0, 0, None)), "WriteFile · receiving 0 B");
        assert_eq!(
            title(at(812, 1, 0, None)),
            "WriteFile · receiving 812 B, 1 line"
        );
        assert_eq!(
            title(at(12_698, 310, 0, None)),
            "WriteFile · receiving 12.4 KB, 310 lines"
        );
        assert_eq!(
            title(at(3_250_000, 0, 0, None)),
            "WriteFile · receiving 3.1 MB"
        );
        assert_eq!(
            title(at(9, 0, 15_400, Some(Stall::Model))),
            "WriteFile · waiting for the model, 15 s"
        );
        assert_eq!(
            title(at(9, 0, 6_000, Some(Stall::Connection))),
            "WriteFile · no data from the provider, 6 s"
        );
    }

    #[test]
    fn the_frame_carries_numbers_and_nothing_the_card_already_has() {
        let frame = progress_frame(
            &"call_1".into(),
            &"write_file".into(),
            &at(2048, 3, 1200, Some(Stall::Model)),
        );
        assert_eq!(
            frame.to_json(),
            r#"{"sessionUpdate":"tool_call_update","toolCallId":"call_1","title":"write_file · waiting for the model, 1 s","_meta":{"phase":"preparing","progress":{"argumentBytes":2048,"argumentLines":3,"elapsedMs":20000,"idleMs":1200,"stalled":"model"}}}"#
        );
    }
}
