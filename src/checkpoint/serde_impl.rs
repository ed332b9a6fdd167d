//! Hand-written serde impls of [`Checkpoint`] and [`CheckpointView`] (the
//! library builds serde without its derive macro): struct `Checkpoint`
//! with fields `metadata` and `tensors`, so the traced type text is
//! `struct Checkpoint{metadata:map<str,str>,tensors:tensors}`.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::kind::{check_named, FileKind};
use super::model::{Checkpoint, CheckpointView};
use crate::tensors::{Tensors, TensorsView};

const NAME: &str = "Checkpoint";
const FIELDS: &[&str] = &["metadata", "tensors"];

impl Serialize for Checkpoint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct(NAME, 2)?;
        st.serialize_field("metadata", self.metadata())?;
        st.serialize_field("tensors", self.tensors())?;
        st.end()
    }
}

impl Serialize for CheckpointView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if check_named(self.tensors(), 0).is_err() {
            return Err(serde::ser::Error::custom(
                "a checkpoint tensor has no name: every tensor of a checkpoint is named",
            ));
        }
        let mut st = s.serialize_struct(NAME, 2)?;
        st.serialize_field("metadata", self.metadata())?;
        st.serialize_field("tensors", self.tensors())?;
        st.end()
    }
}

/// Reads the two fields in order (Kiln is positional).
struct PartsVisitor<M, T>(PhantomData<(M, T)>);

impl<'de, M: Deserialize<'de>, T: Deserialize<'de>> Visitor<'de> for PartsVisitor<M, T> {
    type Value = (M, T);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct Checkpoint{metadata:map<str,str>,tensors:tensors}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let m = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let t = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok((m, t))
    }
}

/// `invalid_value`, so that a Kiln deserializer reports TYPE (the code
/// [`Checkpoint::new`] gives) rather than MESSAGE.
fn unnamed<E: de::Error>() -> E {
    E::invalid_value(
        de::Unexpected::Other("a tensor with no name"),
        &"every tensor of a checkpoint named",
    )
}

impl<'de> Deserialize<'de> for Checkpoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (metadata, tensors): (BTreeMap<String, String>, Tensors) =
            d.deserialize_struct(NAME, FIELDS, PartsVisitor(PhantomData))?;
        Checkpoint::new(metadata, tensors).map_err(|_| unnamed())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CheckpointView<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (metadata, tensors): (BTreeMap<&'a str, &'a str>, TensorsView<'a>) =
            d.deserialize_struct(NAME, FIELDS, PartsVisitor(PhantomData))?;
        if check_named(&tensors, 0).is_err() {
            return Err(unnamed());
        }
        Ok(CheckpointView {
            kind: FileKind::Checkpoint,
            metadata,
            tensors,
        })
    }
}
