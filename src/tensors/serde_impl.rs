//! The serde handoff: [`Tensors`] and [`TensorsView`] are the newtype
//! struct named by the tensors token (`crate::token`) around the raw block
//! bytes.
//!
//! The Kiln serializer writes the bytes raw (no count) and the Kiln
//! deserializer hands over exactly the validated block through
//! `visit_borrowed_bytes` / `visit_byte_buf`. Other formats see an ordinary
//! newtype around bytes (serde_json writes an array of numbers).

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::owned::Tensors;
use super::view::TensorsView;
use crate::limits::Limits;
use crate::token::TENSORS_TOKEN;

/// Caps for a block that is already in memory: the count and name caps only
/// guard allocation before bytes are known to exist, so here they are lifted
/// (a Kiln deserializer has already applied the caller's caps).
const IN_MEMORY: Limits = Limits::new()
    .with_max_count(u64::MAX)
    .with_max_bytes(u64::MAX);

/// Cap on the size hint trusted when collecting a byte sequence.
const SEQ_HINT_CAP: usize = 1 << 16;

impl Serialize for Tensors {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(TENSORS_TOKEN, serde_bytes::Bytes::new(self.as_bytes()))
    }
}

impl Serialize for TensorsView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(TENSORS_TOKEN, serde_bytes::Bytes::new(self.as_bytes()))
    }
}

struct OwnedVisitor;

impl<'de> Visitor<'de> for OwnedVisitor {
    type Value = Tensors;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kiln tensor directory block")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Tensors, D::Error> {
        d.deserialize_bytes(self)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Tensors, E> {
        Tensors::from_bytes(v, &IN_MEMORY).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tensors, A::Error> {
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(SEQ_HINT_CAP));
        while let Some(b) = seq.next_element::<u8>()? {
            v.push(b);
        }
        self.visit_bytes(&v)
    }
}

impl<'de> serde::Deserialize<'de> for Tensors {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(TENSORS_TOKEN, OwnedVisitor)
    }
}

struct ViewVisitor;

impl<'de> Visitor<'de> for ViewVisitor {
    type Value = TensorsView<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kiln tensor directory block borrowed from the input")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> Result<TensorsView<'de>, D::Error> {
        d.deserialize_bytes(self)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<TensorsView<'de>, E> {
        TensorsView::from_bytes(v, &IN_MEMORY).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, _v: &[u8]) -> Result<TensorsView<'de>, E> {
        Err(E::custom(
            "TensorsView needs borrowed input (the bytes were not borrowed from the input); \
             deserialize Tensors instead",
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<TensorsView<'de>, A::Error> {
        Err(de::Error::custom(
            "TensorsView needs borrowed input (got a sequence); deserialize Tensors instead",
        ))
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for TensorsView<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(TENSORS_TOKEN, ViewVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Dtype, TensorSpec, TensorsBuilder};
    use super::*;

    fn sample() -> Tensors {
        let w = [1.5f32, -2.0];
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[2], &w).named("w"));
        b.push(TensorSpec::new(Dtype::U4, &[3], &[0x21u8, 0x03][..]));
        b.build().unwrap()
    }

    #[test]
    fn json_round_trip_is_the_same_bytes() {
        let t = sample();
        let json = serde_json::to_string(&t).unwrap();
        assert!(json.starts_with("[75,68,73,82,"), "{json}");
        let back: Tensors = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.as_bytes(), t.as_bytes());
        // A view serializes the same way.
        assert_eq!(serde_json::to_string(&t.view()).unwrap(), json);
    }

    #[test]
    fn json_errors_carry_the_kiln_error() {
        let t = sample();
        let mut bytes = t.as_bytes().to_vec();
        bytes[0] = b'X';
        let json = serde_json::to_string(&bytes).unwrap();
        let e = serde_json::from_str::<Tensors>(&json).unwrap_err();
        assert!(e.to_string().contains("FRAME at byte 0"), "{e}");
    }

    #[test]
    fn view_needs_borrowed_input() {
        let json = serde_json::to_string(&sample()).unwrap();
        let e = serde_json::from_str::<TensorsView<'_>>(&json).unwrap_err();
        assert!(e.to_string().contains("borrowed"), "{e}");
    }

    #[test]
    fn visitors_directly() {
        use serde::de::value::{BorrowedBytesDeserializer, BytesDeserializer, Error as VErr};
        use serde::Deserialize;
        let t = sample();
        let bytes = t.as_bytes().to_vec();
        let v = TensorsView::deserialize(BorrowedBytesDeserializer::<VErr>::new(&bytes)).unwrap();
        assert_eq!(v.as_bytes(), t.as_bytes());
        assert_eq!(v.len(), 2);
        let o = Tensors::deserialize(BytesDeserializer::<VErr>::new(&bytes)).unwrap();
        assert_eq!(o, t);
        assert!(TensorsView::deserialize(BytesDeserializer::<VErr>::new(&bytes)).is_err());
        let o = Tensors::deserialize(BorrowedBytesDeserializer::<VErr>::new(&bytes)).unwrap();
        assert_eq!(o, t);
    }
}
