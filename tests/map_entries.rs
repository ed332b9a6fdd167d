//! Each open map keeps its own entries (spec 2.1's sort needs each entry's
//! key and range until the map ends), in an allocation taken from and given
//! back to the thread's spare: maps nested, serialized on the side, failed
//! or larger than the spare keeps still encode exactly, and a map encoded
//! again on the thread allocates no entries.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use kiln_serde::ErrorCode;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{peak_during, SERIAL};

/// A map whose entries arrive in the order given (keys may repeat).
struct MapOf<V>(Vec<(u32, V)>);

impl<V: Serialize> Serialize for MapOf<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The bytes of `pairs` as spec 2.1 orders them: the count, then the
/// entries by their keys' bytes (little-endian `u32`, so not by value).
fn sorted_bytes(pairs: &[(u32, u32)]) -> Vec<u8> {
    let mut p = pairs.to_vec();
    p.sort_by_key(|(k, _)| k.to_le_bytes());
    let mut b = (p.len() as u32).to_le_bytes().to_vec();
    for (k, v) in p {
        b.extend_from_slice(&k.to_le_bytes());
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

/// Keys `0..n` backwards, so every map has to be sorted.
fn backwards(n: u32) -> Vec<(u32, u32)> {
    (0..n).rev().map(|k| (k, k ^ 0x5a5a)).collect()
}

/// A map value whose `serialize` encodes another map with `to_vec` first
/// (a `Serialize` impl that serializes on the side), and writes those bytes.
struct SideEncoded(Vec<(u32, u32)>);

impl Serialize for SideEncoded {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let side = kiln_serde::to_vec(&MapOf(self.0.clone())).map_err(serde::ser::Error::custom)?;
        s.serialize_bytes(&side)
    }
}

#[test]
fn a_map_encoded_on_the_side_inside_a_map_value_leaves_both_whole() {
    let inner = backwards(5);
    let outer = MapOf(vec![
        (7, SideEncoded(inner.clone())),
        (2, SideEncoded(backwards(3))),
        (5, SideEncoded(inner.clone())),
    ]);
    let bytes = kiln_serde::to_vec(&outer).unwrap();
    // By hand: keys 2, 5, 7, each value a counted byte string holding the
    // side map's own sorted bytes.
    let mut want = 3u32.to_le_bytes().to_vec();
    for (k, side) in [(2u32, backwards(3)), (5, inner.clone()), (7, inner)] {
        let s = sorted_bytes(&side);
        want.extend_from_slice(&k.to_le_bytes());
        want.extend_from_slice(&(s.len() as u32).to_le_bytes());
        want.extend_from_slice(&s);
    }
    assert_eq!(bytes, want);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &outer).unwrap();
    assert_eq!(w, want);
}

#[test]
fn maps_larger_than_the_spare_keeps_and_small_ones_after_them_sort() {
    for n in [5000, 3, 4097, 0, 1, 70] {
        let p = backwards(n);
        assert_eq!(
            kiln_serde::to_vec(&MapOf(p.clone())).unwrap(),
            sorted_bytes(&p),
            "{n}"
        );
        let mut out = vec![0xee];
        kiln_serde::to_extend(&mut out, &MapOf(p.clone())).unwrap();
        assert_eq!(out[1..], sorted_bytes(&p), "{n}");
    }
}

#[test]
fn a_map_that_failed_leaves_the_next_one_whole() {
    let dup = MapOf(vec![(3, 1), (9, 2), (3, 4)]);
    let e = kiln_serde::to_vec(&dup).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(4)));
    let p = backwards(9);
    assert_eq!(
        kiln_serde::to_vec(&MapOf(p.clone())).unwrap(),
        sorted_bytes(&p)
    );
    // Failed inside a value of an outer map (the inner map's duplicate).
    let outer = MapOf(vec![(1, SideEncoded(vec![(4, 0), (4, 1)]))]);
    assert_eq!(
        kiln_serde::to_vec(&outer).unwrap_err().code(),
        ErrorCode::Message
    );
    assert_eq!(
        kiln_serde::to_vec(&MapOf(p.clone())).unwrap(),
        sorted_bytes(&p)
    );
}

#[test]
fn a_map_encoded_again_allocates_no_entries() {
    let _g = SERIAL.lock().unwrap();
    // 100 entries: 3,200 bytes of entries (32 each) against 800 bytes
    // of map for the sort's copy.
    let p = MapOf(backwards(100));
    let mut buf = vec![0u8; 1024];
    // The first map on this thread allocates the entries, and leaves
    // them as the thread's spare.
    let n = kiln_serde::to_slice(&mut buf, &p).unwrap();
    assert_eq!(buf[..n], sorted_bytes(&p.0));
    let (r, peak) = peak_during(|| kiln_serde::to_slice(&mut buf, &p));
    assert_eq!(r.unwrap(), n);
    assert!(peak <= 800, "peak {peak}: the entries were allocated again");
}
