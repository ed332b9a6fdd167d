//! Under a total size limit (`with_limit`), a slice and a stream give the
//! same outcome: the same value, or the same error code at the same offset,
//! for every limit and every cut of the input. A read that passes the
//! limit is LIMIT whether or not the input also ends before it (a stream
//! tests the limit before it reads, and a cap is checked before the bytes
//! that remain, spec 6); a read that stays within the limit but passes the
//! end of the input is EOF. Bincode's `with_limit` says the same through
//! its error kinds.

use std::collections::BTreeMap;

use kiln_serde::bincode::{self, ErrorKind, Options as _};
use kiln_serde::tensors::{TensorSpec, Tensors, TensorsBuilder};
use kiln_serde::{ErrorCode, Options};
use serde::{Deserialize, Serialize};

#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    Dot,
    Circle(f32),
    Rect { w: u16, h: u16 },
}

/// Fixed fields, a string, a bulk `Vec` (32 or more numbers), a tensor
/// directory, an enum, a map, an option, bools, and a field after them.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Rec {
    id: u32,
    name: String,
    samples: Vec<u16>,
    weights: Tensors,
    shape: Shape,
    tags: BTreeMap<String, u8>,
    ratio: Option<f64>,
    flags: Vec<bool>,
    tail: u64,
}

fn rec() -> Rec {
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).named("w"));
    b.push(TensorSpec::from_slice(&[3], &[7u16, 8, 9]).named("bias"));
    Rec {
        id: 9,
        name: "limit é".into(),
        samples: (0..33).collect(),
        weights: b.build().unwrap(),
        shape: Shape::Rect { w: 3, h: 4 },
        tags: [("a".to_string(), 1), ("bc".to_string(), 2)].into(),
        ratio: Some(0.5),
        flags: vec![true, false, true],
        tail: u64::MAX - 1,
    }
}

type Outcome = Result<Rec, (ErrorCode, Option<u64>)>;

fn outcome(r: kiln_serde::Result<Rec>) -> Outcome {
    r.map_err(|e| (e.code(), e.offset()))
}

/// Every limit from 0 past the value's length, every cut of the input:
/// `from_slice`, `from_reader` over a stream and over a `&[u8]` agree, and
/// the code is the one the limit and the cut call for.
#[test]
fn slice_and_stream_agree_under_every_limit_and_cut() {
    let bytes = kiln_serde::to_vec(&rec()).unwrap();
    let len = bytes.len();
    let mut seen = [0usize; 3];
    for limit in 0..=len + 1 {
        let opts = Options::new().with_limit(limit as u64);
        for cut in 0..=len {
            let input = &bytes[..cut];
            let slice = outcome(opts.from_slice::<Rec>(input));
            let stream = outcome(opts.from_reader::<_, Rec>(Stream(input)));
            let in_place = outcome(opts.from_reader::<_, Rec>(input));
            assert_eq!(slice, stream, "limit {limit}, cut {cut}");
            assert_eq!(in_place, stream, "limit {limit}, cut {cut}");
            match slice {
                Ok(v) => {
                    assert!(limit >= len && cut == len, "limit {limit}, cut {cut}");
                    assert_eq!(v, rec());
                    seen[0] += 1;
                }
                // The first read that fails passes the limit (LIMIT) when
                // the limit is below the cut, else the input's end (EOF).
                Err((code, _)) if limit < cut => {
                    assert_eq!(code, ErrorCode::Limit, "limit {limit}, cut {cut}");
                    seen[1] += 1;
                }
                Err((code, _)) => {
                    // The limit at or past the cut: whichever the failing
                    // read passes first decides, and a read that passes
                    // both is LIMIT; EOF only when the limit holds it.
                    assert!(
                        code == ErrorCode::Eof || code == ErrorCode::Limit,
                        "limit {limit}, cut {cut}: {code:?}"
                    );
                    if limit >= len {
                        assert_eq!(code, ErrorCode::Eof, "limit {limit}, cut {cut}");
                    }
                    seen[2] += 1;
                }
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// The case the slice used to answer differently: one 8-byte read that
/// passes both a 4-byte limit and the end of a 6-byte input is LIMIT at
/// its start, from a slice and a stream.
#[test]
fn one_read_past_the_limit_and_the_end_is_limit() {
    let opts = Options::new().with_limit(4);
    let input = [0u8; 6];
    for e in [
        opts.from_slice::<u64>(&input).unwrap_err(),
        opts.from_reader::<_, u64>(Stream(&input)).unwrap_err(),
        opts.from_reader::<_, u64>(&input[..]).unwrap_err(),
    ] {
        assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(0)));
    }
    // The limit past the read: the input's end decides, EOF.
    let opts = Options::new().with_limit(8);
    let e = opts.from_slice::<u64>(&input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(0)));
    // A limit past the input's end, but not past the read: LIMIT too.
    let opts = Options::new().with_limit(7);
    let e = opts.from_slice::<u64>(&input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(0)));
}

/// A tensor directory inside a value, cut by the limit at each of the
/// reads a stream makes (header, descriptors and heap, payload): LIMIT at
/// the directory's start from a slice too, never EOF.
#[test]
fn a_directory_past_the_limit_is_limit_from_a_slice() {
    let r = rec();
    let bytes = kiln_serde::to_vec(&r).unwrap();
    // Positional: the directory starts after the fields before it.
    let at = kiln_serde::to_vec(&(r.id, &r.name, &r.samples))
        .unwrap()
        .len() as u64;
    assert_eq!(
        &bytes[at as usize..][..r.weights.as_bytes().len()],
        r.weights.as_bytes()
    );
    let dir_len = r.weights.as_bytes().len() as u64;
    for limit in [at, at + 31, at + 32, at + 40, at + dir_len - 1] {
        let opts = Options::new().with_limit(limit);
        for input in [&bytes[..], &bytes[..limit as usize]] {
            let e = opts.from_slice::<Rec>(input).unwrap_err();
            assert_eq!(
                (e.code(), e.offset()),
                (ErrorCode::Limit, Some(at)),
                "limit {limit}, input {}",
                input.len()
            );
        }
    }
}

/// bincode's `with_limit` over a slice and over a stream: `SizeLimit`
/// where kiln says LIMIT, an unexpected end where it says EOF.
#[test]
fn bincode_slice_and_stream_agree_under_a_limit() {
    let bytes = kiln_serde::to_vec(&rec()).unwrap();
    let kind = |r: bincode::Result<Rec>| match r {
        Ok(_) => "ok",
        Err(e) => match *e {
            ErrorKind::SizeLimit => "limit",
            ErrorKind::Io(ref io) if io.kind() == std::io::ErrorKind::UnexpectedEof => "eof",
            _ => "other",
        },
    };
    let len = bytes.len();
    for limit in (0..=len + 1).step_by(7) {
        let opts = bincode::options().with_limit(limit as u64);
        for cut in (0..=len).step_by(5) {
            let input = &bytes[..cut];
            let slice = kind(opts.deserialize::<Rec>(input));
            let stream = kind(opts.deserialize_from::<_, Rec>(Stream(input)));
            assert_eq!(slice, stream, "limit {limit}, cut {cut}");
            assert_ne!(slice, "other", "limit {limit}, cut {cut}");
        }
    }
}

/// A directory whose `P + payload_bytes` overflows u64 (a hostile
/// `payload_bytes`): a stream reads the descriptors and heap before it
/// answers EOF, so under a limit that stops that read it answers LIMIT;
/// a slice names the same error at every limit.
#[test]
fn an_overflowing_directory_agrees_under_every_limit() {
    let r = rec();
    let mut bytes = kiln_serde::to_vec(&r).unwrap();
    let at = kiln_serde::to_vec(&(r.id, &r.name, &r.samples))
        .unwrap()
        .len();
    bytes[at + 16..at + 24].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut codes = Vec::new();
    for limit in at..=bytes.len() {
        let opts = Options::new().with_limit(limit as u64);
        let slice = outcome(opts.from_slice::<Rec>(&bytes));
        let stream = outcome(opts.from_reader::<_, Rec>(Stream(&bytes)));
        assert_eq!(slice, stream, "limit {limit}");
        codes.push(slice.unwrap_err().0);
    }
    // LIMIT while the header or the descriptors and heap pass the limit,
    // then the overflow's EOF.
    assert_eq!(codes.first(), Some(&ErrorCode::Limit));
    assert_eq!(codes.last(), Some(&ErrorCode::Eof));
}

/// A framed value under a limit (which does not count the 16-byte
/// header): `Schema::from_reader` over a `&mut &[u8]` (read in place,
/// header and value) and over a stream, and `Schema::from_slice`, agree
/// at every limit and cut; after an error the slice is where it was.
#[test]
fn framed_slice_and_stream_agree_under_every_limit() {
    let bytes = kiln_serde::framed::to_vec(&rec()).unwrap();
    let len = bytes.len();
    let mut limits_hit = 0;
    for limit in (0..=len - 16 + 1).step_by(3) {
        let schema = kiln_serde::framed::Schema::<Rec>::new()
            .unwrap()
            .with_options(Options::new().with_limit(limit as u64));
        for cut in (0..=len).step_by(5).chain([len]) {
            let input = &bytes[..cut];
            let from_slice = outcome(schema.from_slice(input));
            let stream = outcome(schema.from_reader(Stream(input)));
            let mut slice = input;
            let in_place = outcome(schema.from_reader(&mut slice));
            assert_eq!(from_slice, stream, "limit {limit}, cut {cut}");
            assert_eq!(in_place, stream, "limit {limit}, cut {cut}");
            if in_place.is_err() {
                assert_eq!(slice.len(), cut, "limit {limit}, cut {cut}");
            }
            if matches!(in_place, Err((ErrorCode::Limit, _))) {
                limits_hit += 1;
            }
        }
    }
    assert!(limits_hit > 0);
}
