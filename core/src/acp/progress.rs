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
//! looks frozen. When the host gives up on a stream after a known idle time
//! ([`IdleDeadline`]), a stalled card names it:
//! `Write file · no data from the provider, 45 s (Qwen gives up at 240 s)`.
//! The host's idle time counts from the last byte of any kind, which came no
//! earlier than the card's last argument byte (what the seconds count from),
//! so the deadline a reader works out from the title is never later than the
//! host's real one; once the seconds pass the limit the host evidently saw
//! other data, and the deadline is left out rather than shown wrong.

use super::discard::{format_seconds, host_name};
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
pub struct ProgressReport {
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

/// The host's idle limit: it abandons a stream after this long without data
/// (Qwen Code: `resolveStreamIdleTimeoutMs`, packages/core/src/core/stream-guards.ts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleDeadline {
    /// Milliseconds without data before the host gives up (positive).
    pub limit_ms: u64,
    /// Who gives up, as the title names it ("Qwen", "the agent"); printable
    /// and bounded by [`host_name`].
    pub host: JsString,
}

impl IdleDeadline {
    /// A deadline whose host name is bounded for a title.
    pub fn new(limit_ms: u64, host: &JsString) -> Self {
        IdleDeadline {
            limit_ms,
            host: host_name(host),
        }
    }

    /// Whether a stalled card at `progress` shows it: stalled, and not past it.
    fn shown(&self, progress: &ProgressReport) -> bool {
        progress.stalled.is_some() && self.limit_ms > 0 && progress.idle_ms < self.limit_ms
    }
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
/// (see the module doc for the wording), with the host's deadline while
/// stalled.
pub fn progress_title(
    base: &JsString,
    progress: &ProgressReport,
    deadline: Option<&IdleDeadline>,
) -> JsString {
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
    if let Some(deadline) = deadline.filter(|d| d.shown(progress)) {
        title.push_str(" (");
        title.push_str(&deadline.host.to_string_lossy());
        title.push_str(" gives up at ");
        title.push_str(&format_seconds(deadline.limit_ms));
        title.push_str(")");
    }
    title
}

/// `_meta.progress`: the counts, then `stalled` only while stalled, and
/// `idleLimitMs` while the title names the deadline.
fn progress_meta(progress: &ProgressReport, deadline: Option<&IdleDeadline>) -> OwnedValue {
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
    if let Some(deadline) = deadline.filter(|d| d.shown(progress)) {
        fields.push(("idleLimitMs", number(deadline.limit_ms)));
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
    progress: &ProgressReport,
    deadline: Option<&IdleDeadline>,
) -> SessionUpdate {
    OwnedValue::object([
        ("sessionUpdate", "tool_call_update".into()),
        ("toolCallId", call_id.into()),
        (
            "title",
            progress_title(base_title, progress, deadline).into(),
        ),
        (
            "_meta",
            OwnedValue::object([
                ("phase", "preparing".into()),
                ("progress", progress_meta(progress, deadline)),
            ]),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(bytes: u64, lines: u64, idle_ms: u64, stalled: Option<Stall>) -> ProgressReport {
        ProgressReport {
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
        let title = |p: ProgressReport| progress_title(&base, &p, None).to_string();
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
            None,
        );
        assert_eq!(
            frame.to_json(),
            r#"{"sessionUpdate":"tool_call_update","toolCallId":"call_1","title":"write_file · waiting for the model, 1 s","_meta":{"phase":"preparing","progress":{"argumentBytes":2048,"argumentLines":3,"elapsedMs":20000,"idleMs":1200,"stalled":"model"}}}"#
        );
    }

    #[test]
    fn a_stalled_card_names_the_hosts_deadline_until_it_passes() {
        let base = JsString::from("WriteFile");
        let qwen = IdleDeadline::new(240_000, &"Qwen".into());
        let title = |p: ProgressReport| progress_title(&base, &p, Some(&qwen)).to_string();
        assert_eq!(
            title(at(9, 0, 45_000, Some(Stall::Connection))),
            "WriteFile · no data from the provider, 45 s (Qwen gives up at 240 s)"
        );
        assert_eq!(
            title(at(9, 0, 6_000, Some(Stall::Model))),
            "WriteFile · waiting for the model, 6 s (Qwen gives up at 240 s)"
        );
        // While bytes arrive, and once past the limit, no deadline.
        assert_eq!(title(at(812, 0, 0, None)), "WriteFile · receiving 812 B");
        assert_eq!(
            title(at(9, 0, 250_000, Some(Stall::Connection))),
            "WriteFile · no data from the provider, 250 s"
        );
        let frame = progress_frame(
            &"c".into(),
            &base,
            &at(9, 0, 45_000, Some(Stall::Connection)),
            Some(&qwen),
        );
        assert_eq!(
            frame.to_json(),
            r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","title":"WriteFile · no data from the provider, 45 s (Qwen gives up at 240 s)","_meta":{"phase":"preparing","progress":{"argumentBytes":9,"argumentLines":0,"elapsedMs":20000,"idleMs":45000,"stalled":"connection","idleLimitMs":240000}}}"#
        );
    }

    #[test]
    fn a_hosts_name_is_printable_and_bounded() {
        let long = JsString::from(format!("Q\n{}", "w".repeat(500)).as_str());
        let d = IdleDeadline::new(1000, &long);
        assert!(!d.host.to_string().contains('\n'));
        assert!(d.host.to_string().chars().count() <= super::super::discard::HOST_CHARS);
    }
}
