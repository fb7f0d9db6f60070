//! What a host asks of any provider's converter, in its own file so that
//! each provider can read it without importing the table of providers
//! (`provider.rs`), which imports every provider.

use crate::foundations::limits::Limits;
use crate::foundations::profile::Profile;

/// What a host asks of a converter: what every provider takes, and the
/// provider's own settings, which only it reads
/// (`crate::convert::settings`; the keys are listed where each provider
/// reads them).
#[derive(Clone, Debug, Default)]
pub struct ConverterOptions {
    /// The Qwen Code release followed where releases differ: one of the
    /// provider's own (its `PROVIDERS` row), which `Provider::stream`
    /// checks.
    pub profile: Profile,
    /// Past a limit the stream fails with `LIMIT_EXCEEDED`.
    pub limits: Limits,
    /// The provider's own settings as one JSON object text (`None`: all
    /// absent).
    pub settings: Option<String>,
}
