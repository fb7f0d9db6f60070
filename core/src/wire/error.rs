//! The error encoding (`crate::wire`): one JSON object, a batch's error
//! item and the message of the `GenericFailure` the calls that return no
//! batch throw.

use crate::foundations::error::Error;
use crate::foundations::json::{write_str, write_text};

/// The error as one JSON object: the batch's error item, and the message of
/// the `GenericFailure` thrown by the calls that return no batch.
pub fn write_error(e: &Error, out: &mut String) {
    out.push_str("{\"code\":");
    write_str(out, e.code.as_str());
    out.push_str(",\"name\":");
    write_str(out, e.name);
    out.push_str(",\"message\":");
    if e.text_message {
        write_text(out, &e.message);
    } else {
        write_str(out, &e.message);
    }
    if let Some(kind) = e.kind() {
        out.push_str(",\"type\":");
        write_str(out, kind);
    }
    if let Some(offset) = e.offset {
        out.push_str(",\"offset\":");
        out.push_str(&offset.to_string());
    }
    if let Some(p) = &e.provider_error {
        out.push_str(",\"providerError\":");
        out.push_str(p);
    }
    if let Some(p) = &e.provider_event {
        out.push_str(",\"providerEvent\":");
        write_str(out, p);
    }
    if let Some(f) = &e.sse_frame {
        out.push_str(",\"sseFrame\":");
        write_str(out, f);
    }
    if let Some(h) = &e.host_error {
        out.push_str(",\"hostError\":{\"name\":");
        write_str(out, h.name);
        out.push_str(",\"message\":");
        write_str(out, &h.message);
        out.push('}');
    }
    out.push_str(",\"fatal\":");
    out.push_str(if e.fatal { "true" } else { "false" });
    out.push('}');
}

/// The error object alone (the thrown form).
pub fn error_text(e: &Error) -> String {
    let mut out = String::with_capacity(e.message.len() + 64);
    write_error(e, &mut out);
    out
}
