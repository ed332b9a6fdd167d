//! A map that writes the key `"k"` twice: TYPE on encode (spec 2: map keys
//! strictly ascending). Include with `#[path = "support/dup_map.rs"] mod dup_map;`.

use serde::ser::{Serialize, SerializeMap, Serializer};

pub struct Dup;

impl Serialize for Dup {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("k", &1u8)?;
        m.serialize_entry("k", &2u8)?;
        m.end()
    }
}
