//! The tensors token: the serde newtype-struct name that marks a tensor
//! directory, and the one test for it.
//!
//! [`Tensors`](crate::Tensors) and [`TensorsView`](crate::TensorsView)
//! serialize as `serialize_newtype_struct(TENSORS_TOKEN, bytes)`. The Kiln
//! serializer writes that newtype's bytes as the raw directory block (no
//! count), the Kiln deserializer answers
//! `deserialize_newtype_struct(TENSORS_TOKEN, ..)` with the validated block,
//! and the schema tracer writes its type text as `tensors`. Other formats
//! see an ordinary newtype around bytes.

/// The newtype-struct name of a tensor directory.
pub(crate) const TENSORS_TOKEN: &str = "$kiln_serde::Tensors";

/// True when a newtype struct's name is the tensors token. The length test
/// first: almost every other name differs in length, so the common case is
/// one compare.
#[inline(always)]
pub(crate) fn is_tensors(name: &str) -> bool {
    name.len() == TENSORS_TOKEN.len() && name == TENSORS_TOKEN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_is_the_token() {
        assert!(is_tensors("$kiln_serde::Tensors"));
        assert!(!is_tensors("$kiln_serde::Tensorz"));
        assert!(!is_tensors("Tensors"));
        assert!(!is_tensors(""));
    }
}
