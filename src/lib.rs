#![deny(clippy::all)]
use napi_derive::napi;

#[napi]
pub fn core_version() -> String {
    toolcall_stream_core::version().to_string()
}
