//! The converters: one folder a provider (`anthropic/`, `openai/`,
//! `openai_responses/`), each
//! with the modules only it uses, the non-streaming bodies, and the front
//! end both share (raw input, the state word, the path counters).

pub mod anthropic;
pub mod hot_shape;
pub mod nonstream;
pub mod object_path;
pub mod openai;
pub mod openai_responses;
pub mod options;
pub mod path_counters;
pub mod provider;
pub mod settings;
pub mod state;
pub(crate) mod stream_input;
