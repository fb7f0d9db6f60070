//! The response model the converters produce: Gemini
//! `GenerateContentResponse` chunks with their preparations beside them,
//! lifted argument strings, usage metadata, and how far an open call's
//! arguments have come. It knows nothing of providers or of the wire.

pub mod argument_progress;
pub mod clock;
pub mod gemini;
pub mod key_order;
pub mod lifted;
pub(crate) mod usage_metadata;
pub mod usage_provenance;
