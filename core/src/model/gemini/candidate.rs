//! A response's only candidate.

use super::part::Part;

/// `candidates[0]`, the only candidate the reference writes:
/// `{content: {parts, role: 'model'}, index: 0, safetyRatings: [],
/// finishReason?}` (docs/behaviour.md §1).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// `content.parts`, in the order the reference pushes them.
    pub parts: Vec<Part>,
    /// `finishReason`, already mapped to Gemini's name (`STOP`,
    /// `MAX_TOKENS`, `SAFETY`, `FINISH_REASON_UNSPECIFIED`; docs/behaviour.md
    /// §2.4, §3.2.5); `None` omits the key.
    pub finish_reason: Option<&'static str>,
}
