//! The wire protocol between the native converters and the JS layer: what
//! one call hands back. The binding (`src/wire.rs`) sends it, `lib/wire.js`
//! reads it; nothing else on either side knows the format.
//!
//! **A batch** is what every converter call returns: either
//! - a number, the *state word* alone (nothing was converted, no error); or
//! - the text of one JSON array of items, the state word last:
//!   - the provider's object-path header item, first in the batch when
//!     its object path has one to send (`crate::convert::object_path`,
//!     `ObjectPath::write_header_item`): `{"c": …}` (OpenAI,
//!     [`crate::convert::openai::chunk_header`]) or `{"e": …}` (Anthropic,
//!     [`crate::convert::anthropic::event_header`]), built with
//!     [`write_header`];
//!   - `{"h": {f, createTime, responseId?, modelVersion?}}`: a header item,
//!     written whenever the header of the next compact chunk changes (`f`:
//!     the [`KeyOrder::wire_id`] of the key order its responses take, which
//!     the provider that built them declares; the JS layer refuses an id it
//!     has no order for);
//!   - `[0, text]` (one text part), `[1, text]` (one thought part), `[2]`
//!     (no parts): a compact chunk with the last header and nothing else;
//!     `[2, n]`: a run of n > 1 such part-less chunks; `[3, text]`: one
//!     OpenAI reasoning thought part (marked as such in JS); `[4, text,
//!     serial]`: one OpenAI Responses text part holding the message object
//!     of that serial (the `{"m"}` item, `lib/wire.js` `updateMessages`);
//!     an OpenAI Responses part's text is any JSON value, written as it is;
//!   - `{"r": response, "p"?: preparations, "s"?: sanitized, "u"?: usage
//!     provenance, "t"?: reasoning part indexes, "x"?: lifted arguments}`:
//!     any other response, as the reference's `JSON.stringify` shows it,
//!     with its out-of-band tool-call preparations, the OpenAI pipeline's
//!     sanitisation note, the provenance of its `usageMetadata`, which
//!     parts are OpenAI reasoning thoughts ([`write_annotations`]) and where
//!     the string arguments lifted out of it go back (`"x"`, [`lift`]); a
//!     non-streaming body's response is the same item ([`write_body_item`]);
//!   - `{"error": {code, name, message, type?, offset?, providerError?,
//!     providerEvent?, sseFrame?, hostError?, fatal}}`: the call failed (at most one, after every response the call
//!     converted before the error);
//!   - the state word;
//! - or, when a call's large string arguments were lifted out of that text
//!   ([`lift`]), an array: the text, then the lifted strings in the order
//!   the full items list them (`"x": [[part index, key], …]`).
//!
//! **The error encoding** is [`write_error`]'s object. Calls that return
//! something else than a batch (constructors, the ACP classes, the helpers,
//! the object path's OpenAI plain-text call) throw the same object as the message of a napi
//! `GenericFailure`. `lib/wire.js` decodes both forms to one
//! `ToolCallStreamError` (`code`, `fatal`, `responses`).
//!
//! **The state word** ([`StateWord`], `crate::convert::state`) is the
//! converter state the JS object path (`lib/object-path.js`) depends on, as
//! it is after the call, error batches included; the JS layer keeps no
//! other copy of native state.

mod annotations;
mod batch;
pub mod compact_kind;
mod error;
mod item;
pub mod key;
pub mod lift;
pub mod progress;

pub use crate::convert::state::{word, StateWord};
pub use annotations::{write_annotations, write_body_item};
pub use batch::{batch, header_id, write_batch, write_header, Batch};
pub use error::{error_text, write_error};
