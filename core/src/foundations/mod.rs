//! What every layer above stands on and that knows nothing of providers or
//! responses: errors and limits, the release profile, JSON (scanning,
//! decoding, the reference's `JSON.stringify`), the SSE decoder, the
//! reference's JSON repair, and JavaScript's string and value semantics.

pub mod error;
pub mod js_text;
pub mod js_value;
pub mod json;
pub mod limits;
pub mod profile;
pub mod repair;
pub mod sse;
