//! `from_reader` over a `&[u8]` or `&mut &[u8]`, or a `Cursor` over bytes,
//! decodes the bytes in place (as `take_from_slice`) and moves the slice
//! (the cursor's position) past the value: the same
//! value, or the same error code and offset, as through a stream, and the
//! slice left where a stream stops after a value. After an error the
//! slice is left where it was (a stream's position then depends on how far
//! it read ahead). Under a total size limit too (the limit counted from
//! the slice's start, as a stream counts from its first byte). The same for
//! bincode's `deserialize_from`.

use std::collections::BTreeMap;
use std::io::Cursor;

use kiln_serde::bincode::{self, ErrorKind, Options as _};
use kiln_serde::{ErrorCode, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Dot,
    Circle(f32),
    Rect { w: u16, h: u16 },
}

/// Every kind of read: fixed fields, strings, a bulk `Vec` (32 or more
/// numbers take the stream's chunked path), options, enums, a map, bools.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Rec {
    id: u32,
    name: String,
    samples: Vec<u16>,
    ratio: Option<f64>,
    shapes: Vec<Shape>,
    tags: BTreeMap<String, u8>,
    flags: Vec<bool>,
    c: char,
}

fn rec(seed: u32) -> Rec {
    Rec {
        id: seed,
        name: format!("record {seed} é"),
        samples: (0..40).map(|i| (i * 7 + seed) as u16).collect(),
        ratio: (seed % 2 == 0).then_some(f64::from(seed) / 3.0),
        shapes: vec![
            Shape::Dot,
            Shape::Circle(1.5),
            Shape::Rect {
                w: 3,
                h: seed as u16,
            },
        ],
        tags: [("a".to_string(), 1), ("b".to_string(), seed as u8)].into(),
        flags: vec![true, false, seed % 3 == 0],
        c: 'ß',
    }
}

/// The outcome of one decode: the value, or the code and offset.
type Outcome<T> = Result<T, (ErrorCode, Option<u64>)>;

fn outcome<T>(r: kiln_serde::Result<T>) -> Outcome<T> {
    r.map_err(|e| (e.code(), e.offset()))
}

/// Decodes `bytes` through a stream and through a `&mut &[u8]`: same
/// outcome, and the slice stops where the stream stopped.
fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(bytes: &[u8]) -> Outcome<T> {
    let mut stream = Stream(bytes);
    let via_stream = outcome(kiln_serde::from_reader::<_, T>(&mut stream));
    let mut slice = bytes;
    let via_slice = outcome(kiln_serde::from_reader::<_, T>(&mut slice));
    assert_eq!(via_slice, via_stream, "input {bytes:02x?}");
    if via_slice.is_ok() {
        assert_eq!(slice.len(), stream.0.len(), "input {bytes:02x?}");
    } else {
        assert_eq!(slice, bytes, "moved on an error: input {bytes:02x?}");
    }
    // By value: the same outcome.
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(bytes)), via_slice);
    // Cursors over the bytes: the same outcome, the position moved as the
    // slice was.
    let used = (bytes.len() - slice.len()) as u64;
    let mut c = Cursor::new(bytes);
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(&mut c)), via_slice);
    assert_eq!(c.position(), used, "input {bytes:02x?}");
    let v = bytes.to_vec();
    let mut c = Cursor::new(&v);
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(&mut c)), via_slice);
    assert_eq!(c.position(), used, "input {bytes:02x?}");
    assert_eq!(
        outcome(kiln_serde::from_reader::<_, T>(Cursor::new(v.clone()))),
        via_slice
    );
    // Over a `Box<[u8]>`, a `&mut [u8]` and a `&mut Vec<u8>`: in place too
    // (a stream would have moved on an error).
    let mut c = Cursor::new(v.clone().into_boxed_slice());
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(&mut c)), via_slice);
    assert_eq!(c.position(), used, "input {bytes:02x?}");
    let mut buf = v.clone();
    let mut c = Cursor::new(&mut buf[..]);
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(&mut c)), via_slice);
    assert_eq!(c.position(), used, "input {bytes:02x?}");
    let mut c = Cursor::new(&mut buf);
    assert_eq!(outcome(kiln_serde::from_reader::<_, T>(&mut c)), via_slice);
    assert_eq!(c.position(), used, "input {bytes:02x?}");
    assert_eq!(buf, v);
    via_slice
}

#[test]
fn values_back_to_back_are_read_one_by_one() {
    let recs: Vec<Rec> = (0..4).map(rec).collect();
    let mut all = Vec::new();
    for r in &recs {
        kiln_serde::to_writer(&mut all, r).unwrap();
    }
    kiln_serde::to_writer(&mut all, &7u8).unwrap();
    let mut input = &all[..];
    for r in &recs {
        let before = input.len();
        let back: Rec = kiln_serde::from_reader(&mut input).unwrap();
        assert_eq!(&back, r);
        assert_eq!(before - input.len(), kiln_serde::to_vec(r).unwrap().len());
    }
    assert_eq!(input, [7]);
    let last: u8 = kiln_serde::from_reader(&mut input).unwrap();
    assert_eq!((last, input.len()), (7, 0));
    let e = kiln_serde::from_reader::<_, u8>(&mut input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(0)));
    // Decoded in place: the slice decoder's error, sentence and all (a
    // stream says the stream ended).
    let from_slice = kiln_serde::from_slice::<u8>(&[]).unwrap_err();
    assert_eq!(e.to_string(), from_slice.to_string());
    let from_stream = kiln_serde::from_reader::<_, u8>(Stream(&[])).unwrap_err();
    assert_ne!(e.to_string(), from_stream.to_string());
}

#[test]
fn every_cut_and_every_flipped_byte_agrees_with_a_stream() {
    let bytes = kiln_serde::to_vec(&rec(6)).unwrap();
    assert_eq!(agree::<Rec>(&bytes), Ok(rec(6)));
    let mut errors = 0;
    for cut in 0..bytes.len() {
        assert!(agree::<Rec>(&bytes[..cut]).is_err(), "cut {cut}");
        errors += 1;
    }
    for i in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            errors += usize::from(agree::<Rec>(&b).is_err());
        }
    }
    // Enough of the flips land on counts, tags, bools and UTF-8 to fail.
    assert!(errors > bytes.len() + 50, "{errors} errors");
}

#[test]
fn caps_other_than_a_total_limit_agree_with_a_stream() {
    let bytes = kiln_serde::to_vec(&rec(3)).unwrap();
    for opts in [
        Options::new().with_max_count(39),
        Options::new().with_max_bytes(5),
        Options::new().with_max_depth(1),
    ] {
        let via_stream = outcome(opts.from_reader::<_, Rec>(Stream(&bytes)));
        let mut slice = &bytes[..];
        let via_slice = outcome(opts.from_reader::<_, Rec>(&mut slice));
        assert_eq!(via_slice.as_ref().unwrap_err().0, ErrorCode::Limit);
        assert_eq!(via_slice, via_stream);
        assert_eq!(slice, &bytes[..]);
    }
}

#[test]
fn a_total_limit_reads_in_place_too() {
    // One 8-byte read that passes both a 4-byte limit and the end of a
    // 6-byte input: LIMIT from a slice, a stream and a `&[u8]` reader
    // (tests/limit_agreement.rs has every limit and cut).
    let opts = Options::new().with_limit(4);
    let input = [0u8; 6];
    let from_slice = opts.from_slice::<u64>(&input).unwrap_err();
    let stream = opts.from_reader::<_, u64>(Stream(&input)).unwrap_err();
    let mut slice = &input[..];
    let in_place = opts.from_reader::<_, u64>(&mut slice).unwrap_err();
    assert_eq!(stream.code(), ErrorCode::Limit);
    for e in [from_slice, in_place] {
        assert_eq!((e.code(), e.offset()), (stream.code(), stream.offset()));
    }
    assert_eq!(slice.len(), 6, "left where it was");
    // Values back to back, each within a limit counted from the slice's
    // position: each read in place, the slice moved past it (a stream
    // would have consumed them from its reader the same way).
    let mut all = Vec::new();
    for i in 0..3 {
        all.extend(kiln_serde::to_vec(&rec(i)).unwrap());
    }
    let one = kiln_serde::to_vec(&rec(0)).unwrap().len() as u64;
    let opts = Options::new().with_limit(one + 2);
    let mut slice = &all[..];
    let mut cursor = Cursor::new(&all[..]);
    for i in 0..3 {
        assert_eq!(opts.from_reader::<_, Rec>(&mut slice).unwrap(), rec(i));
        assert_eq!(opts.from_reader::<_, Rec>(&mut cursor).unwrap(), rec(i));
        assert_eq!(all.len() - slice.len(), cursor.position() as usize);
    }
    assert!(slice.is_empty());
    // A limit one byte short of the value: LIMIT, the slice unmoved.
    let opts = Options::new().with_limit(one - 1);
    let mut slice = &all[..];
    let e = opts.from_reader::<_, Rec>(&mut slice).unwrap_err();
    let s = opts.from_reader::<_, Rec>(Stream(&all)).unwrap_err();
    assert_eq!((e.code(), e.offset()), (s.code(), s.offset()));
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(slice.len(), all.len());
}

#[test]
fn bincode_deserialize_from_reads_a_slice_in_place() {
    let mut all = Vec::new();
    for i in 0..3 {
        bincode::serialize_into(&mut all, &rec(i)).unwrap();
    }
    let mut input = &all[..];
    for i in 0..3 {
        let back: Rec = bincode::deserialize_from(&mut input).unwrap();
        assert_eq!(back, rec(i));
    }
    assert!(input.is_empty());
    let e = bincode::deserialize_from::<_, Rec>(&mut input).unwrap_err();
    assert!(matches!(*e, ErrorKind::Io(ref io) if io.kind() == std::io::ErrorKind::UnexpectedEof));

    // Options without a limit and with one: in place.
    let one = bincode::serialize(&rec(9)).unwrap();
    let mut input = &one[..];
    let back: Rec = bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .deserialize_from(&mut input)
        .unwrap();
    assert_eq!((back, input.len()), (rec(9), 0));
    let limited = bincode::DefaultOptions::new().with_limit(4);
    let e = limited
        .deserialize_from::<_, u64>(&[0u8; 6][..])
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::SizeLimit), "{e:?}");

    // A bad bool: the same kind through a stream and a slice, which
    // stays where it was.
    let bad = [2u8];
    let via_stream = bincode::deserialize_from::<_, bool>(Stream(&bad)).unwrap_err();
    let mut slice = &bad[..];
    let via_slice = bincode::deserialize_from::<_, bool>(&mut slice).unwrap_err();
    assert!(matches!(*via_stream, ErrorKind::InvalidBoolEncoding(2)));
    assert!(matches!(*via_slice, ErrorKind::InvalidBoolEncoding(2)));
    assert_eq!(slice, bad);
}

#[test]
fn framed_values_back_to_back_are_read_in_place() {
    let mut all = Vec::new();
    for i in 0..3 {
        kiln_serde::framed::to_extend(&mut all, &rec(i)).unwrap();
    }
    let mut input = &all[..];
    for i in 0..3 {
        let back: Rec = kiln_serde::framed::from_reader(&mut input).unwrap();
        assert_eq!(back, rec(i));
    }
    assert!(input.is_empty());
    // A value cut short: the slice decoder's error (its sentence, the
    // frame's offsets), as `framed::from_slice` gives; a stream says the
    // stream ended.
    let one = kiln_serde::framed::to_vec(&rec(1)).unwrap();
    let cut = &one[..one.len() - 1];
    let in_place = kiln_serde::framed::from_reader::<_, Rec>(&mut &cut[..]).unwrap_err();
    let slice = kiln_serde::framed::from_slice::<Rec>(cut).unwrap_err();
    let stream = kiln_serde::framed::from_reader::<_, Rec>(Stream(cut)).unwrap_err();
    assert_eq!(in_place.to_string(), slice.to_string());
    assert_eq!(
        (stream.code(), stream.offset()),
        (slice.code(), slice.offset())
    );
    assert_ne!(stream.to_string(), slice.to_string());
}

/// `framed::from_reader` through a `&mut &[u8]` and a `&mut Cursor` and
/// through a stream: same outcome; the slice and cursor past the frame, or
/// where they were after an error (in the header or the value).
fn framed_agree(bytes: &[u8]) -> Outcome<Rec> {
    let via_stream = outcome(kiln_serde::framed::from_reader::<_, Rec>(Stream(bytes)));
    let mut slice = bytes;
    let via_slice = outcome(kiln_serde::framed::from_reader::<_, Rec>(&mut slice));
    assert_eq!(via_slice, via_stream, "input {bytes:02x?}");
    let mut c = Cursor::new(bytes);
    let via_cursor = outcome(kiln_serde::framed::from_reader::<_, Rec>(&mut c));
    assert_eq!(via_cursor, via_stream, "input {bytes:02x?}");
    let used = if via_slice.is_ok() { bytes.len() } else { 0 };
    assert_eq!(slice.len(), bytes.len() - used, "input {bytes:02x?}");
    assert_eq!(c.position(), used as u64, "input {bytes:02x?}");
    via_slice
}

#[test]
fn framed_every_cut_and_flipped_byte_agrees_with_a_stream() {
    let bytes = kiln_serde::framed::to_vec(&rec(4)).unwrap();
    assert_eq!(framed_agree(&bytes), Ok(rec(4)));
    for cut in 0..bytes.len() {
        let e = framed_agree(&bytes[..cut]).unwrap_err();
        assert_eq!(e.0, ErrorCode::Eof, "cut {cut}");
    }
    let mut codes = std::collections::BTreeSet::new();
    for i in 0..bytes.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            if let Err((code, _)) = framed_agree(&b) {
                codes.insert(format!("{code:?}"));
            }
        }
    }
    // The header's own errors and the hash check are among them.
    for code in ["Frame", "Schema", "Eof"] {
        assert!(codes.contains(code), "{codes:?}");
    }
}

#[test]
fn cursors_are_read_in_place_from_their_position() {
    let mut all = Vec::new();
    for i in 0..3 {
        kiln_serde::to_writer(&mut all, &rec(i)).unwrap();
    }
    // Back to back through `&mut Cursor<Vec<u8>>`, from a position past a
    // prefix, as from `&mut &[u8]`.
    all.splice(0..0, [0xAA, 0xBB]);
    let mut c = Cursor::new(all);
    c.set_position(2);
    for i in 0..3 {
        let back: Rec = kiln_serde::from_reader(&mut c).unwrap();
        assert_eq!(back, rec(i));
    }
    let end = c.get_ref().len() as u64;
    assert_eq!(c.position(), end);
    // At the end, and past it: EOF at 0 with the slice decoder's sentence
    // (decoded in place; a stream says the stream ended), and the
    // position left where it was.
    let e = kiln_serde::from_reader::<_, u8>(&mut c).unwrap_err();
    let from_slice = kiln_serde::from_slice::<u8>(&[]).unwrap_err();
    let from_stream = kiln_serde::from_reader::<_, u8>(Stream(&[])).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(0)));
    assert_eq!(e.to_string(), from_slice.to_string());
    assert_ne!(e.to_string(), from_stream.to_string());
    c.set_position(end + 10);
    let e = kiln_serde::from_reader::<_, u8>(&mut c).unwrap_err();
    assert_eq!(e.to_string(), from_slice.to_string());
    assert_eq!(c.position(), end + 10);
    // A value cut short: its error, offsets from the position, and the
    // position left where it was.
    let one = kiln_serde::to_vec(&rec(5)).unwrap();
    let mut cut = vec![0xAA];
    cut.extend_from_slice(&one[..one.len() - 1]);
    let mut c = Cursor::new(&cut[..]);
    c.set_position(1);
    let e = kiln_serde::from_reader::<_, Rec>(&mut c).unwrap_err();
    let want = kiln_serde::from_slice::<Rec>(&one[..one.len() - 1]).unwrap_err();
    assert_eq!(e.to_string(), want.to_string());
    assert_eq!(c.position(), 1);
}

#[test]
fn bincode_and_framed_read_a_cursor_in_place() {
    let mut all = Vec::new();
    for i in 0..2 {
        bincode::serialize_into(&mut all, &rec(i)).unwrap();
    }
    let mut c = Cursor::new(&all);
    for i in 0..2 {
        let back: Rec = bincode::deserialize_from(&mut c).unwrap();
        assert_eq!(back, rec(i));
    }
    assert_eq!(c.position(), all.len() as u64);
    let bad = [2u8];
    let mut c = Cursor::new(&bad[..]);
    let e = bincode::deserialize_from::<_, bool>(&mut c).unwrap_err();
    assert!(matches!(*e, ErrorKind::InvalidBoolEncoding(2)));
    assert_eq!(c.position(), 0);

    let mut all = Vec::new();
    for i in 0..2 {
        kiln_serde::framed::to_extend(&mut all, &rec(i)).unwrap();
    }
    let mut c = Cursor::new(all);
    for i in 0..2 {
        let back: Rec = kiln_serde::framed::from_reader(&mut c).unwrap();
        assert_eq!(back, rec(i));
    }
    assert_eq!(c.position(), c.get_ref().len() as u64);
    // Cut short: framed::from_slice's error, sentence and all.
    let one = kiln_serde::framed::to_vec(&rec(1)).unwrap();
    let cut = &one[..one.len() - 1];
    let in_place = kiln_serde::framed::from_reader::<_, Rec>(Cursor::new(cut)).unwrap_err();
    let slice = kiln_serde::framed::from_slice::<Rec>(cut).unwrap_err();
    assert_eq!(in_place.to_string(), slice.to_string());
}
