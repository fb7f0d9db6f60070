//! The shape of a hot SDK object (an Anthropic event, an OpenAI chunk), as
//! data: the fields read from the object, in order, each with the test its
//! value must pass in JavaScript's terms, and the values taken from it. The
//! providers declare their hot shapes beside their converters
//! (`anthropic::hot_shapes`, `openai::hot_shapes`), each with an example as
//! the provider writes it, which their byte or template path takes (the
//! tests there). `core/examples/wire_constants.rs` prints them and
//! `scripts/generate.mjs` writes the JS object path's predicates from them
//! (`lib/generated/hot-shapes.js`), so the JS layer has no hand-written copy
//! of a shape.

/// One step from a value to the value inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `value[key]`.
    Key(&'static str),
    /// `Array.isArray(value) ? value[0] : undefined` (the reference's
    /// `choices?.[0]`).
    First,
    /// The one element of an array of exactly one, else `undefined`.
    Only,
}

/// What a value taken from the object is to the JS layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capture {
    /// The shape's text: a fragment, a delta's text.
    Text,
    /// The shape's index: a block's or a call's.
    Index,
}

/// The test a value must pass, in JavaScript's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// A non-null object.
    Object,
    /// `=== text`.
    Is(&'static str),
    /// Falsy.
    Falsy,
    /// `undefined` or `null`.
    Nullish,
    /// `undefined`, `null` or `''`.
    NullishOrEmpty,
    /// A string.
    Text(Capture),
    /// A string other than `''`.
    NonEmptyText(Capture),
    /// A string, `''` when the key is absent (`key in object`).
    TextOrAbsent(Capture),
    /// A number, 0 when the value is nullish (`?? 0`).
    NumberOrZero(Capture),
    /// `value ?? object[sibling]` is falsy.
    FalsyWith(&'static str),
}

/// One field of a shape: where its value is, from the object, and its test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The steps from the object to the value.
    pub at: &'static [Step],
    /// What the value must be.
    pub test: Test,
}

/// A hot shape: an object has it when every field passes its test, in
/// order (a field's test runs only after the fields before it passed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HotShape {
    /// Its name in the JS layer (`lib/generated/hot-shapes.js`).
    pub name: &'static str,
    /// The fields, in the order they are read.
    pub fields: &'static [Field],
    /// An object of this shape as the provider writes it (JSON text).
    pub example: &'static str,
}

/// `Field { at, test }`, for the declarations.
pub const fn field(at: &'static [Step], test: Test) -> Field {
    Field { at, test }
}
