//! The OpenAI response header the native conversion built from a chunk,
//! kept with the chunk fields it was built from, for the JS object path
//! (`lib/object-path.js`): it takes a chunk object only when its `id`,
//! `created` and `model` are `===` the fields reported here, and gives it
//! this header, so the JS layer never applies `convertOpenAIChunkToGemini`'s
//! header rules itself. Only chunks given one at a time note it (the object
//! path never follows the SSE paths); the wire carries it as the batch's
//! chunk-header item (`crate::wire`).

use std::rc::Rc;

use super::key_order::KEY_ORDER;
use crate::wire::key::open_item;
use crate::wire::{header_id, write_header};

/// The chunk-header item's key (`lib/generated/wire-constants.js`
/// `KEY_CHUNK_HEADER`).
pub const ITEM_KEY: &str = "c";

/// The `f` of the header the JS object path builds its responses with.
const HEADER_ID: u8 = header_id(&KEY_ORDER);

/// `responseId`, `createTime` and `modelVersion` as
/// `convertOpenAIChunkToGemini` (Qwen Code
/// packages/core/src/core/openaiContentGenerator/converter.ts) takes them
/// from a chunk with a truthy `created`, and that chunk's fields. The header
/// depends on those fields alone, not on the converter's state, so it holds
/// for every later chunk with the same fields. A chunk with a falsy
/// `created` has none: its `createTime` is the clock.
#[derive(Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// The chunk's `id` as JSON text (`None`: absent); `responseId` is the
    /// same value.
    pub id: Option<Rc<str>>,
    /// The chunk's `created` as JSON text (truthy).
    pub created: Rc<str>,
    /// The chunk's `model` as JSON text, truthy or not (`None`: absent).
    pub model: Option<Rc<str>>,
    /// `createTime`: `String(created)`, the string itself.
    pub create_time: Rc<str>,
    /// `modelVersion` as JSON text: the `model` when truthy, else `None`.
    pub model_version: Option<Rc<str>>,
}

/// The chunk header a converter noted last, and whether its JS layer has
/// been sent it yet: a header goes out once, with the batch of the call that
/// noted it.
#[derive(Debug, Default)]
pub struct LastChunkHeader {
    header: Option<Rc<ChunkHeader>>,
    unsent: bool,
}

impl LastChunkHeader {
    /// The header noted last, if any.
    pub fn current(&self) -> Option<&Rc<ChunkHeader>> {
        self.header.as_ref()
    }

    /// Notes the header of a chunk just converted (the template path keeps
    /// the one its template's chunk had): sent with the call's batch when it
    /// differs from the one noted last.
    #[inline]
    pub fn note(&mut self, header: &Rc<ChunkHeader>) {
        if self
            .header
            .as_ref()
            .is_some_and(|h| Rc::ptr_eq(h, header) || **h == **header)
        {
            return;
        }
        self.header = Some(header.clone());
        self.unsent = true;
    }

    /// Notes a header built the long way, shared only when it differs from
    /// the one noted last.
    pub fn note_built(&mut self, header: ChunkHeader) {
        if self.header.as_deref() == Some(&header) {
            return;
        }
        self.header = Some(Rc::new(header));
        self.unsent = true;
    }

    /// The header to send with this call's batch: the one noted last, when
    /// it was not sent yet.
    pub fn take_unsent(&mut self) -> Option<Rc<ChunkHeader>> {
        if !self.unsent {
            return None;
        }
        self.unsent = false;
        self.header.clone()
    }
}

/// `{"c": {"id"?, "created", "model"?, "h": header}}`: the chunk-header
/// item, first in a batch: the chunk's fields and the header built from
/// them.
#[cold]
pub fn write_chunk_header_item(h: &ChunkHeader, out: &mut String) {
    open_item(out, ITEM_KEY);
    out.push('{');
    if let Some(id) = &h.id {
        out.push_str("\"id\":");
        out.push_str(id);
        out.push(',');
    }
    out.push_str("\"created\":");
    out.push_str(&h.created);
    if let Some(model) = &h.model {
        out.push_str(",\"model\":");
        out.push_str(model);
    }
    out.push_str(",\"h\":");
    write_header(
        HEADER_ID,
        Some(&h.create_time),
        h.id.as_deref(),
        h.model_version.as_deref(),
        out,
    );
    out.push_str("}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_header_item_has_the_fields_and_the_header_built_from_them() {
        let mut out = String::new();
        write_chunk_header_item(
            &ChunkHeader {
                id: Some("\"id\"".into()),
                created: "7".into(),
                model: Some("\"\"".into()),
                create_time: "7".into(),
                model_version: None,
            },
            &mut out,
        );
        assert_eq!(
            out,
            r#"{"c":{"id":"id","created":7,"model":"","h":{"f":1,"createTime":"7","responseId":"id"}}}"#
        );
    }

    fn header(id: &str, created: &str) -> ChunkHeader {
        ChunkHeader {
            id: Some(id.into()),
            created: created.into(),
            model: None,
            create_time: created.into(),
            model_version: None,
        }
    }

    #[test]
    fn a_header_is_sent_once_and_again_only_after_it_changes() {
        let mut last = LastChunkHeader::default();
        assert_eq!(last.take_unsent(), None);
        last.note_built(header("\"a\"", "1"));
        assert_eq!(last.take_unsent().as_deref(), Some(&header("\"a\"", "1")));
        assert_eq!(last.take_unsent(), None);
        // The same fields again: nothing new to send.
        last.note_built(header("\"a\"", "1"));
        let kept = Rc::new(header("\"a\"", "1"));
        last.note(&kept);
        assert_eq!(last.take_unsent(), None);
        last.note_built(header("\"a\"", "2"));
        assert_eq!(last.take_unsent().as_deref(), Some(&header("\"a\"", "2")));
        last.note(&kept);
        assert_eq!(last.take_unsent(), Some(kept));
    }
}
