//! The output: Gemini `GenerateContentResponse` chunks (docs/behaviour.md §1), written as
//! JSON text in the reference's key order, with their preparations beside
//! them (never inside).
//! One type a file: [`Response`] (`response.rs`), its [`Candidate`], its
//! [`Part`]s, its [`Usage`], and the [`Preparation`]s beside it.

mod candidate;
mod part;
mod preparation;
mod response;
mod usage;

pub use candidate::Candidate;
pub use part::{write_function_call, LiteralKind, Part, PartMessage};
pub use preparation::Preparation;
pub use response::Response;
pub use usage::Usage;
