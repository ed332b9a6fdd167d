//! Stream reads with and without a total size limit.
//!
//! The functions whose types say there is no byte limit
//! (`kiln_serde::from_reader`, `framed::from_reader`, the bincode module's
//! free `deserialize_from` and its options whose limit type is `Infinite`),
//! and `Options::from_reader` / `Schema::from_reader` when their options
//! set none, read a stream with no limit test at all; every other stream
//! read (`Deserializer::from_reader`, bincode's legacy `config()`) tests
//! the limit. This file
//! checks that the two kinds of reader give the same value or the same
//! error (code and offset) at every cut of an input, and that every bincode
//! option type that can carry a limit still honours it on a stream (an
//! option type that named the unlimited kind while carrying a limit would
//! read past it).

use std::collections::BTreeMap;

use kiln_serde::bincode::{self, ErrorKind, KilnOptionsExt, Options as _};
use kiln_serde::{ErrorCode, Limits, Options};
use serde::{Deserialize, Serialize};

#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Rec {
    id: u32,
    pos: (f32, f32, f32),
    name: String,
    tags: BTreeMap<String, u16>,
    vals: Vec<u64>,
    opt: Option<i8>,
    wide: u128,
}

fn rec() -> Rec {
    Rec {
        id: 7,
        pos: (1.5, -2.0, 0.25),
        name: "seven".into(),
        tags: [("a".to_string(), 1), ("bc".to_string(), 2)].into(),
        vals: vec![1, 2, 3],
        opt: Some(-1),
        wide: u128::MAX - 5,
    }
}

fn outcome<T>(r: kiln_serde::Result<T>) -> Result<T, (ErrorCode, Option<u64>)> {
    r.map_err(|e| (e.code(), e.offset()))
}

/// The unlimited reader (`from_reader`, and `Options::new().from_reader`)
/// and the limited one without a limit (`Deserializer::from_reader`) agree
/// at every cut, and with the slice.
#[test]
fn unlimited_and_limited_readers_agree_at_every_cut() {
    let bytes = kiln_serde::to_vec(&rec()).unwrap();
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        // Through `Stream`: a `&[u8]` reader would be decoded in place.
        let free = outcome(kiln_serde::from_reader::<_, Rec>(Stream(input)));
        let opts = outcome(Options::new().from_reader::<_, Rec>(Stream(input)));
        let mut de = kiln_serde::de::Deserializer::from_reader(Stream(input), &Limits::DEFAULT);
        let limited = outcome(Rec::deserialize(&mut de));
        let slice = outcome(kiln_serde::from_slice::<Rec>(input));
        let in_place = outcome(kiln_serde::from_reader::<_, Rec>(input));
        assert_eq!(free, opts, "cut {cut}");
        assert_eq!(free, limited, "cut {cut}");
        assert_eq!(free, slice, "cut {cut}");
        assert_eq!(free, in_place, "cut {cut}");
        if cut == bytes.len() {
            assert_eq!(free, Ok(rec()));
        } else {
            assert_eq!(free.unwrap_err().0, ErrorCode::Eof, "cut {cut}");
        }
    }
}

/// Values read back to back through the unlimited reader each end where
/// they should: the reader's count of consumed bytes is right.
#[test]
fn unlimited_reader_reads_back_to_back() {
    let mut bytes = Vec::new();
    for i in 0..5u32 {
        let mut r = rec();
        r.id = i;
        r.vals = (0..u64::from(i)).collect();
        kiln_serde::to_extend(&mut bytes, &r).unwrap();
    }
    let mut input = &bytes[..];
    for i in 0..5u32 {
        let r: Rec = kiln_serde::from_reader(&mut input).unwrap();
        assert_eq!(r.id, i);
        assert_eq!(r.vals.len(), i as usize);
    }
    assert!(input.is_empty());
    let err = kiln_serde::from_reader::<_, Rec>(&mut input).unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Eof, Some(0)));
}

/// A limit on `Options` still stops a stream read at the limit.
#[test]
fn options_limit_holds_on_a_stream() {
    let bytes = kiln_serde::to_vec(&rec()).unwrap();
    for limit in [0, 3, 4, 16, bytes.len() as u64 - 1] {
        let err = Options::new()
            .with_limit(limit)
            .from_reader::<_, Rec>(Stream(&bytes))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Limit, "limit {limit}");
    }
    let whole = Options::new().with_limit(bytes.len() as u64);
    assert_eq!(whole.from_reader::<_, Rec>(Stream(&bytes)).unwrap(), rec());
    // Schema::from_reader too (the limit does not count the header).
    let framed = kiln_serde::framed::to_vec(&rec()).unwrap();
    let schema = kiln_serde::framed::Schema::<Rec>::new().unwrap();
    for limit in [0, 3, bytes.len() as u64 - 1] {
        let err = schema
            .clone()
            .with_options(Options::new().with_limit(limit))
            .from_reader(Stream(&framed))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Limit, "limit {limit}");
    }
    let whole = schema.with_options(Options::new().with_limit(bytes.len() as u64));
    assert_eq!(whole.from_reader(Stream(&framed)).unwrap(), rec());
}

fn size_limit<T: std::fmt::Debug>(r: bincode::Result<T>) -> bool {
    matches!(r.map_err(|e| *e), Err(ErrorKind::SizeLimit))
}

/// Every bincode option type that carries a limit honours it in
/// `deserialize_from` and `deserialize_from_seed`, whatever wraps it;
/// the same types without a limit (or with it lifted) read the value.
#[test]
fn bincode_limits_hold_through_every_wrapper() {
    let value = rec();
    let bytes = bincode::serialize(&value).unwrap();
    let small = 10;
    let base = bincode::DefaultOptions::new();
    let r = &bytes[..];
    // Limited, in every position among the other settings.
    assert!(size_limit(
        base.with_limit(small).deserialize_from::<_, Rec>(r)
    ));
    assert!(size_limit(
        base.with_limit(small)
            .with_big_endian()
            .with_varint_encoding()
            .allow_trailing_bytes()
            .with_max_depth(64)
            .deserialize_from::<_, Rec>(r)
    ));
    assert!(size_limit(
        base.with_fixint_encoding()
            .reject_trailing_bytes()
            .with_limit(small)
            .deserialize_from::<_, Rec>(r)
    ));
    assert!(size_limit(
        base.with_max_depth(64)
            .with_little_endian()
            .with_limit(small)
            .deserialize_from::<_, Rec>(r)
    ));
    assert!(size_limit(
        base.with_no_limit()
            .with_limit(small)
            .deserialize_from::<_, Rec>(r)
    ));
    let mut by_ref = base.with_limit(small);
    assert!(size_limit((&mut by_ref).deserialize_from::<_, Rec>(r)));
    assert!(size_limit(
        base.with_limit(small)
            .deserialize_from_seed(std::marker::PhantomData::<Rec>, r)
    ));
    #[allow(deprecated)]
    {
        let mut config = bincode::config();
        config.limit(small);
        assert!(size_limit(config.deserialize_from::<_, Rec>(r)));
        assert!(size_limit(
            config.deserialize_from_seed(std::marker::PhantomData::<Rec>, r)
        ));
        config.no_limit();
        assert_eq!(config.deserialize_from::<_, Rec>(r).unwrap(), value);
    }
    // Unlimited: the value.
    assert_eq!(bincode::deserialize_from::<_, Rec>(r).unwrap(), value);
    assert_eq!(base.deserialize_from::<_, Rec>(r).unwrap(), value);
    assert_eq!(
        base.with_limit(small)
            .with_no_limit()
            .with_max_depth(64)
            .deserialize_from::<_, Rec>(r)
            .unwrap(),
        value
    );
    assert_eq!(
        base.with_limit(bytes.len() as u64)
            .deserialize_from::<_, Rec>(r)
            .unwrap(),
        value
    );
}

/// The bincode module's unlimited and limited stream readers agree at
/// every cut (same error kind and message, which names the offset).
#[test]
fn bincode_unlimited_and_limited_agree_at_every_cut() {
    let bytes = bincode::serialize(&rec()).unwrap();
    let limited = bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
        .with_limit(u64::MAX);
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        let free = bincode::deserialize_from::<_, Rec>(Stream(input)).map_err(|e| e.to_string());
        let lim = limited
            .deserialize_from::<_, Rec>(Stream(input))
            .map_err(|e| e.to_string());
        assert_eq!(free, lim, "cut {cut}");
    }
}

/// The free `framed::from_reader` (unlimited reader) and a `Schema`'s
/// (limited reader, no limit) agree with each other and with the slice at
/// every cut; a `Schema` with a limit still stops at it.
#[test]
fn framed_unlimited_and_limited_agree_at_every_cut() {
    let bytes = kiln_serde::framed::to_vec(&rec()).unwrap();
    let schema = kiln_serde::Schema::<Rec>::new().unwrap();
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        let free = outcome(kiln_serde::framed::from_reader::<_, Rec>(input));
        let kept = outcome(schema.from_reader(input));
        let slice = outcome(kiln_serde::framed::from_slice::<Rec>(input));
        assert_eq!(free, kept, "cut {cut}");
        assert_eq!(free, slice, "cut {cut}");
    }
    assert_eq!(
        kiln_serde::framed::from_reader::<_, Rec>(&bytes[..]).unwrap(),
        rec()
    );
    let limited = schema.with_options(Options::new().with_limit(8));
    let err = limited.from_reader(&bytes[..]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Limit);
}
