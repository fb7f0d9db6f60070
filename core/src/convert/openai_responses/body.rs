//! A non-streaming Responses body. Qwen Code has no body converter for
//! this provider: its `execute()` runs the stream and merges the chunks
//! (`mergeStreamResponses`, Qwen Code
//! packages/core/src/core/openaiResponsesContentGenerator/responses-pipeline.ts),
//! so a body is converted by streaming it through an
//! `OpenAIResponsesConverter` and merging, never here.

use crate::convert::nonstream::{BodyOptions, BodyResponse};
use crate::foundations::error::{Error, ErrorCode};

/// Always `INVALID_ARGUMENT`: see the module documentation.
pub fn openai_responses_body(_body: &str, _options: &BodyOptions) -> Result<BodyResponse, Error> {
    Err(Error::new(
        ErrorCode::InvalidArgument,
        "\"openai-responses\" has no non-streaming body conversion: Qwen Code streams every \
         Responses request and merges the chunks (stream the body through an \
         OpenAIResponsesConverter instead)",
    ))
}
