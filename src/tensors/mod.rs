//! The native tensor directory (spec section 5).

/// The serde newtype-struct name that marks a tensor directory. The Kiln
/// serializer writes a `serialize_newtype_struct(TENSORS_TOKEN, bytes)` as the
/// raw directory block (no count); the Kiln deserializer answers a
/// `deserialize_newtype_struct(TENSORS_TOKEN, visitor)` with the validated
/// block; the schema tracer writes its type text as `tensors`.
pub const TENSORS_TOKEN: &str = "$kiln_serde::Tensors";

mod handoff;
pub(crate) use handoff::{header_lens, validate_block};
