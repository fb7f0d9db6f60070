//! A response's `usageMetadata`.

use crate::model::usage_provenance::UsageProvenance;

/// A response's `usageMetadata`: its JSON text and its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct Usage {
    /// The `usageMetadata` object as JSON text, keys in the reference's
    /// order (docs/behaviour.md §2.5, §3.2.6).
    pub json: String,
    /// Where its numbers came from (out of band, not part of `json`).
    pub provenance: UsageProvenance,
}
