//! Why a preparing card ended without running, in the one set of words the
//! library, the reference agent and the Qwen preload share. A discarded
//! preparation keeps its lifecycle (`status: "failed"`, `content: []`,
//! `_meta.preparationDiscarded: true`, docs/behaviour.md §6.2), and also
//! says in its `title` that the call did not run and why, because an editor
//! that reads no `_meta` (Zed, `crates/acp_thread/src/acp_thread.rs`,
//! `ToolCall::update_fields`) shows the status and the title alone:
//! `WriteFile · not run: the request is being retried`, or a neutral
//! `WriteFile · not run` where the host did not say why. The cause, when
//! known, is `_meta.discardReason`.

use super::bounded_text::printable_title;
use super::frames::JsString;

/// Why a preparation was discarded: the stream events and outcomes of
/// docs/behaviour.md §5.5 that end a card before its call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiscardReason {
    /// The attempt is abandoned and the request is sent again (RETRY).
    Retry,
    /// The request moves to another model (MODEL_FALLBACK).
    Fallback,
    /// The user cancelled the turn.
    Cancel,
    /// The stream failed with an error that ends the turn.
    StreamError,
    /// The host's idle limit passed with no data, and it abandoned the stream.
    IdleTimeout,
}

impl DiscardReason {
    /// Every reason, in the order the docs list them.
    pub const ALL: [DiscardReason; 5] = [
        DiscardReason::Retry,
        DiscardReason::Fallback,
        DiscardReason::Cancel,
        DiscardReason::StreamError,
        DiscardReason::IdleTimeout,
    ];

    /// The `_meta.discardReason` value.
    pub fn as_str(self) -> &'static str {
        match self {
            DiscardReason::Retry => "retry",
            DiscardReason::Fallback => "fallback",
            DiscardReason::Cancel => "cancel",
            DiscardReason::StreamError => "stream-error",
            DiscardReason::IdleTimeout => "idle-timeout",
        }
    }

    /// Reads a `discardReason` value from JS.
    pub fn parse(value: &str) -> Option<DiscardReason> {
        DiscardReason::ALL.into_iter().find(|r| r.as_str() == value)
    }
}

/// A discard's cause: its reason and, for an idle timeout, the host's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiscardCause {
    /// Why the card ended.
    pub reason: DiscardReason,
    /// The idle limit that passed, in milliseconds (only for
    /// [`DiscardReason::IdleTimeout`]; ignored otherwise).
    pub idle_limit_ms: Option<u64>,
}

impl DiscardCause {
    /// A cause with no limit.
    pub fn new(reason: DiscardReason) -> Self {
        DiscardCause {
            reason,
            idle_limit_ms: None,
        }
    }

    /// The limit, where it belongs to the reason.
    pub fn idle_limit(&self) -> Option<u64> {
        match self.reason {
            DiscardReason::IdleTimeout => self.idle_limit_ms,
            _ => None,
        }
    }

    /// What the title says after `not run: `.
    fn words(&self) -> String {
        match self.reason {
            DiscardReason::Retry => "the request is being retried".into(),
            DiscardReason::Fallback => "switched to another model".into(),
            DiscardReason::Cancel => "cancelled".into(),
            DiscardReason::StreamError => "the stream failed".into(),
            DiscardReason::IdleTimeout => match self.idle_limit() {
                Some(ms) => format!("no data for {}", format_seconds(ms)),
                None => "no data from the provider".into(),
            },
        }
    }
}

/// A duration of whole or tenth seconds as a title says it: `240 s`, `1.5 s`.
pub fn format_seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) || ms >= 100_000 {
        format!("{} s", ms / 1000)
    } else {
        let tenths = ms.div_ceil(100);
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    }
}

/// At most this many characters of a host's name in a title ("Qwen", "the agent").
pub const HOST_CHARS: usize = 40;

/// A host's name as a title carries it: printable, at most [`HOST_CHARS`].
pub fn host_name(name: &JsString) -> JsString {
    printable_title(name, HOST_CHARS)
}

/// The title of a discarded card: `base` (the card's title, bounded as
/// [`super::bounded_text::card_title`] bounds it), then `· not run`, and the
/// cause in words when there is one.
pub fn discarded_title(base: &JsString, cause: Option<&DiscardCause>) -> JsString {
    let mut title = base.clone();
    title.push_str(" · not run");
    if let Some(cause) = cause {
        title.push_str(": ");
        title.push_str(&cause.words());
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title(cause: Option<DiscardCause>) -> String {
        discarded_title(&"WriteFile".into(), cause.as_ref()).to_string()
    }

    #[test]
    fn each_cause_reads_in_words_and_an_unknown_one_is_neutral() {
        let words = |r| title(Some(DiscardCause::new(r)));
        assert_eq!(
            words(DiscardReason::Retry),
            "WriteFile · not run: the request is being retried"
        );
        assert_eq!(
            words(DiscardReason::Fallback),
            "WriteFile · not run: switched to another model"
        );
        assert_eq!(
            words(DiscardReason::Cancel),
            "WriteFile · not run: cancelled"
        );
        assert_eq!(
            words(DiscardReason::StreamError),
            "WriteFile · not run: the stream failed"
        );
        assert_eq!(
            words(DiscardReason::IdleTimeout),
            "WriteFile · not run: no data from the provider"
        );
        assert_eq!(
            title(Some(DiscardCause {
                reason: DiscardReason::IdleTimeout,
                idle_limit_ms: Some(240_000)
            })),
            "WriteFile · not run: no data for 240 s"
        );
        assert_eq!(title(None), "WriteFile · not run");
    }

    #[test]
    fn a_limit_belongs_to_an_idle_timeout_only() {
        let retry = DiscardCause {
            reason: DiscardReason::Retry,
            idle_limit_ms: Some(5000),
        };
        assert_eq!(retry.idle_limit(), None);
    }

    #[test]
    fn reasons_round_trip_and_nothing_else_parses() {
        for r in DiscardReason::ALL {
            assert_eq!(DiscardReason::parse(r.as_str()), Some(r));
        }
        assert_eq!(DiscardReason::parse("timeout"), None);
        assert_eq!(DiscardReason::parse(""), None);
    }

    #[test]
    fn seconds_read_as_a_person_would_say_them() {
        assert_eq!(format_seconds(240_000), "240 s");
        assert_eq!(format_seconds(1500), "1.5 s");
        assert_eq!(format_seconds(3000), "3 s");
        assert_eq!(format_seconds(2950), "3 s");
        assert_eq!(format_seconds(50), "0.1 s");
        assert_eq!(format_seconds(120_500), "120 s");
    }
}
