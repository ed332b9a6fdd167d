//! Sets in canonical order: a serde `with` module for `HashSet` and other
//! collections that serde writes in iteration order (spec 2.1).
//!
//! Sets are serde seqs, not maps, so Kiln writes their elements in the
//! order the collection yields them: a `HashSet` gives different bytes from
//! run to run, and not the bytes of a `BTreeSet` of the same elements. With
//! `#[serde(with = "kiln_serde::sorted")]` on the field, the elements are
//! written in ascending `Ord` order (a `BTreeSet`'s order, so both write
//! the same bytes), and reading checks that order: elements that do not
//! strictly increase (out of order, or a duplicate) are an error (TYPE in
//! Kiln), as for map keys. Works with any format, not only Kiln.
//!
//! # Examples
//!
//! ```
//! use std::collections::{BTreeSet, HashSet};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Tags {
//!     #[serde(with = "kiln_serde::sorted")]
//!     tags: HashSet<String>,
//! }
//!
//! let tags = Tags { tags: ["b", "a", "c"].map(String::from).into() };
//! let bytes = kiln_serde::to_vec(&tags).unwrap();
//! // The bytes of a BTreeSet of the same strings: sorted.
//! let set: BTreeSet<&str> = ["a", "b", "c"].into();
//! assert_eq!(bytes, kiln_serde::to_vec(&set).unwrap());
//! assert_eq!(kiln_serde::from_slice::<Tags>(&bytes).unwrap(), tags);
//!
//! // Out of order on the wire: TYPE.
//! let unsorted = kiln_serde::to_vec(&vec!["b", "a"]).unwrap();
//! let err = kiln_serde::from_slice::<Tags>(&unsorted).unwrap_err();
//! assert_eq!(err.code(), kiln_serde::ErrorCode::Type);
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{self, Serialize, Serializer};

/// Writes the elements of `set` as a seq in ascending `Ord` order.
///
/// # Errors
/// The serializer's error for a duplicate element (two that compare
/// equal, which a set never holds but a `Vec` may), since the result
/// could not be read back; else whatever the serializer returns.
///
/// # Examples
/// ```
/// #[derive(serde::Serialize)]
/// struct Ids {
///     #[serde(serialize_with = "kiln_serde::sorted::serialize")]
///     ids: std::collections::HashSet<u8>,
/// }
///
/// let ids = Ids { ids: [3, 1, 2].into() };
/// assert_eq!(kiln_serde::to_vec(&ids).unwrap(), [3, 0, 0, 0, 1, 2, 3]);
/// ```
pub fn serialize<'a, C, T, S>(set: &'a C, serializer: S) -> Result<S::Ok, S::Error>
where
    &'a C: IntoIterator<Item = &'a T>,
    T: Ord + Serialize + 'a,
    S: Serializer,
{
    let mut items: Vec<&T> = set.into_iter().collect();
    items.sort();
    if items.windows(2).any(|w| w[0] == w[1]) {
        return Err(ser::Error::custom(
            "kiln_serde::sorted: two elements compare equal",
        ));
    }
    serializer.collect_seq(items)
}

/// Reads a seq whose elements strictly increase, into any collection.
///
/// # Errors
/// `invalid_value` (TYPE in Kiln) when an element is not greater than the
/// one before it; else whatever the deserializer returns.
///
/// # Examples
/// ```
/// use std::collections::HashSet;
///
/// let bytes = [3, 0, 0, 0, 1, 2, 3];
/// let mut de = kiln_serde::de::Deserializer::from_slice(&bytes, &kiln_serde::Limits::new());
/// let set: HashSet<u8> = kiln_serde::sorted::deserialize(&mut de).unwrap();
/// assert_eq!(set, HashSet::from([1, 2, 3]));
/// ```
pub fn deserialize<'de, C, T, D>(deserializer: D) -> Result<C, D::Error>
where
    C: FromIterator<T>,
    T: de::Deserialize<'de> + Ord,
    D: Deserializer<'de>,
{
    let items = deserializer.deserialize_seq(Increasing(PhantomData))?;
    Ok(items.into_iter().collect())
}

/// Collects a seq, checking that it strictly increases.
struct Increasing<T>(PhantomData<T>);

/// Elements reserved up front at most, whatever the format's hint says.
const HINT_CAP: usize = 4096;

impl<'de, T: de::Deserialize<'de> + Ord> Visitor<'de> for Increasing<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence in strictly increasing order")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out: Vec<T> = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(HINT_CAP));
        while let Some(item) = seq.next_element::<T>()? {
            if out.last().is_some_and(|prev| *prev >= item) {
                return Err(de::Error::invalid_value(
                    de::Unexpected::Other("an element not greater than the one before it"),
                    &self,
                ));
            }
            out.push(item);
        }
        Ok(out)
    }
}
