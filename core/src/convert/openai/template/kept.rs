//! The template path's state: the chunks kept as templates, which chunks
//! qualify, and what the path reuses so that a chunk allocates nothing.

use std::borrow::Cow;
use std::rc::Rc;

use super::store::{Fields, Header, Hole, Templates};
use crate::convert::openai::call_ids::CallIds;
use crate::convert::openai::chunk::{first, provider_index};
use crate::convert::openai::chunk_header::ChunkHeader;
use crate::convert::path_counters::{self, Path};
use crate::foundations::json::Value;
use crate::model::gemini::Response;

/// The template path's state: the chunks kept as templates, and what it
/// reuses so that a chunk allocates nothing.
#[derive(Default)]
pub struct TemplatePath {
    /// Argument-only chunks seen, each a template for the chunks that repeat
    /// it but for its `arguments` string.
    pub arguments: Templates<Fields>,
    /// Content-only chunks seen, each a template for the chunks that repeat
    /// it but for its `content` string.
    pub content: Templates<Header>,
    /// Reused for the argument text of a chunk on the template path.
    pub scratch: String,
    /// Chunks converted on the template path (a statistic for tests and
    /// benchmarks).
    pub converted: u64,
    /// Where `convert_text` takes a template-path response from (kept, so
    /// the path allocates nothing per chunk).
    pub out: Vec<Response>,
}

impl TemplatePath {
    /// No template is kept.
    pub fn is_empty(&self) -> bool {
        self.arguments.is_empty() && self.content.is_empty()
    }

    /// Lets go of the templates and the scratch (a finished stream takes no
    /// more chunks); the statistic stays.
    pub fn release(&mut self) {
        self.arguments = Templates::default();
        self.content = Templates::default();
        self.scratch = String::new();
    }

    /// One chunk converted on the template path: the statistic, and the
    /// count of test builds.
    pub fn note_chunk(&mut self) {
        self.converted += 1;
        path_counters::taken(Path::Template);
    }

    /// Keeps a converted chunk as a template when the template path can reproduce
    /// its conversion: one tool call with a string `arguments`, and nothing
    /// that yields a part, a finish, usage or an error; or a string
    /// `content` and nothing else that converts (no reasoning, no tool
    /// calls, no finish, no usage, no error: the content-only shape of
    /// [`crate::convert::openai::hot_shapes`]).
    /// `chunk_header`: the header noted for the chunk, if any; `ids`: how
    /// the stream keys tool-call ids.
    pub fn keep(
        &mut self,
        text: &str,
        chunk: &Value<'_>,
        response: &Response,
        chunk_header: Option<Rc<ChunkHeader>>,
        ids: &CallIds,
    ) {
        if chunk.at("usage").truthy() || chunk.at("error").truthy() {
            return;
        }
        let Some(choice) = chunk.get("choices").and_then(first) else {
            return;
        };
        let delta = choice.at("delta");
        let reasoning = match delta.get("reasoning_content").filter(|v| !v.is_null()) {
            Some(v) => v,
            None => delta.at("reasoning"),
        };
        let created = chunk.at("created").truthy();
        let header = || Header {
            response_id: response.response_id.clone(),
            model_version: response.model_version.clone(),
            create_time: created.then(|| response.create_time.clone()),
            chunk: chunk_header,
        };
        if let Some(content) = delta.at("content").as_jstr() {
            if !choice.at("finish_reason").truthy()
                && !reasoning.truthy()
                && delta.get("tool_calls").is_none_or(Value::is_null)
            {
                if let Some(hole) = Hole::of(text, content) {
                    self.content.keep(text, hole, header);
                }
                return;
            }
        }
        // An empty `content` normalises to nothing and moves no state.
        if choice.at("finish_reason").truthy()
            || delta.at("content").as_jstr().is_some_and(|c| !c.is_empty())
            || (reasoning.truthy() && reasoning.as_jstr().is_some())
        {
            return;
        }
        let Some(Value::Arr(calls)) = delta.get("tool_calls") else {
            return;
        };
        let [call] = calls.as_slice() else {
            return;
        };
        // An object or array id is another id each time it comes (JS ids):
        // a chunk repeating its bytes does not repeat its id.
        if ids.is_identity(call.at("id")) {
            return;
        }
        let function = call.at("function");
        let Some(hole) = function
            .at("arguments")
            .as_jstr()
            .and_then(|arguments| Hole::of(text, arguments))
        else {
            return;
        };
        self.arguments.keep(text, hole, || Fields {
            index: provider_index(call.get("index")),
            id: ids.value_key(call.at("id")),
            name: function.at("name").as_str().map(Cow::into_owned),
            header: header(),
        });
    }
}
