//! The order of a response's top-level keys. Each provider declares the
//! order(s) its reference builds responses in (`KEY_ORDER` in its folder
//! under `crate::convert`, listed in its `PROVIDERS` row); a [`Response`]
//! carries a reference to the one it was built in, and the wire hands the
//! JS layer that order's [`KeyOrder::wire_id`], never a provider name.
//!
//! [`Response`]: crate::model::gemini::Response

/// A response's top-level key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseKey {
    /// `responseId` (absent when the source had none).
    ResponseId,
    /// `createTime`.
    CreateTime,
    /// `modelVersion` (absent when the source's model was absent or falsy).
    ModelVersion,
    /// `promptFeedback`, always `{safetyRatings: []}`.
    PromptFeedback,
    /// `candidates`.
    Candidates,
    /// `usageMetadata` (absent without usage).
    UsageMetadata,
}

impl ResponseKey {
    /// The key as JSON and JS name it.
    pub const fn name(self) -> &'static str {
        match self {
            ResponseKey::ResponseId => "responseId",
            ResponseKey::CreateTime => "createTime",
            ResponseKey::ModelVersion => "modelVersion",
            ResponseKey::PromptFeedback => "promptFeedback",
            ResponseKey::Candidates => "candidates",
            ResponseKey::UsageMetadata => "usageMetadata",
        }
    }
}

/// How one reference builds a response: the order of its keys and whether
/// its candidate carries `safetyRatings: []`.
#[derive(Debug, PartialEq, Eq)]
pub struct KeyOrder {
    /// What the order is called where it is listed (the generated JS names
    /// each branch with it).
    pub name: &'static str,
    /// The `f` of a header item (`crate::wire`) whose responses take this
    /// order: the JS layer builds compact chunks from it by table
    /// (`lib/generated/simple-response.js`). Stable, unique among every
    /// provider's orders; `None` for an order never sent as a header (its
    /// responses always travel whole).
    pub wire_id: Option<u8>,
    /// The keys, in the order [`Response::write_response`] writes them (an
    /// absent one is skipped).
    ///
    /// [`Response::write_response`]: crate::model::gemini::Response::write_response
    pub keys: &'static [ResponseKey],
    /// The candidate carries `safetyRatings: []` after `index`.
    pub safety_ratings: bool,
}
