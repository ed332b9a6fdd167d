//! Shared code of the fuzz targets: the types they decode, the checks they
//! make, and the reader that hands bytes out in short chunks.
//!
//! Every target input starts with one selector byte that picks the type
//! (`input[0] % TYPES.len()`, see [`TYPES`]); the golden files of
//! `spec/golden/` become seeds by putting the selector of their manifest
//! type in front (`examples/gen_seeds.rs`).

use std::collections::{BTreeMap, HashMap};
use std::io;

pub mod bincode;
mod tensors;

pub use tensors::{check_block, check_file, check_record, check_view, Rec, RecView};

use kiln_serde::{ErrorCode, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// The golden `Point`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// The golden `Shape` (unit and struct variants).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Shape {
    Dot,
    Rect { w: f32, h: f32 },
}

/// A unit struct (0 bytes).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unit;

/// A newtype struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Meters(pub f64);

/// A tuple struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Pair(pub i16, pub Option<char>);

/// An enum used as a map key.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tag {
    A,
    B(u8),
    C { s: String },
}

/// A nested struct.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Inner {
    pub a: u8,
    pub b: Option<i64>,
    pub c: String,
    pub f: f32,
    pub pair: Pair,
}

/// Every kind of enum variant.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Kind {
    Empty,
    Newtype(u32),
    Wrapped(Meters),
    Tuple(i8, String, bool),
    Record {
        name: String,
        inner: Inner,
        tags: Vec<Tag>,
    },
    Nested(Box<Kind>),
    UnitStruct(Unit),
}

/// A recursive type (deep nesting up to the depth cap).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Tree {
    Leaf(i32),
    Node(Vec<Tree>),
    Named(BTreeMap<String, Tree>),
    Maybe(Option<Box<Tree>>),
}

/// The rich type: nested structs, enums of all kinds, maps with string,
/// int, enum, tuple and bytes keys, options, strings, floats, bytes, i128,
/// u128, char.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Rich {
    pub id: u64,
    pub big: i128,
    pub ubig: u128,
    pub flag: bool,
    pub ch: char,
    pub f: f32,
    pub d: f64,
    pub unit: Unit,
    pub small: (i8, u16, i32),
    pub arr: [u16; 3],
    pub kinds: Vec<Kind>,
    pub by_name: BTreeMap<String, Inner>,
    pub by_id: HashMap<i32, Option<String>>,
    pub by_tag: BTreeMap<Tag, u8>,
    pub by_pair: BTreeMap<(u8, String), bool>,
    pub by_bytes: BTreeMap<ByteBuf, u16>,
    pub by_char: HashMap<char, ()>,
    pub blob: ByteBuf,
    pub list_bytes: Vec<u8>,
    pub maybe: Option<Option<u8>>,
    pub nested: Option<Vec<BTreeMap<i64, String>>>,
    pub tree: Tree,
}

/// Zero-copy fields: `&str`, `&[u8]` and maps of them borrow from the input.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Borrowed<'a> {
    pub s: &'a str,
    #[serde(with = "serde_bytes")]
    pub b: &'a [u8],
    #[serde(borrow)]
    pub names: BTreeMap<&'a str, &'a str>,
    #[serde(borrow)]
    pub list: Vec<&'a str>,
    #[serde(borrow)]
    pub opt: Option<&'a str>,
    /// Borrowed bytes keys, bytes both ways.
    #[serde(borrow)]
    pub raw: BTreeMap<&'a serde_bytes::Bytes, u8>,
    /// `&[u8]` keys: written as a seq of u8, read as bytes; both are
    /// `list<u8>` and sort by content (spec 2.1,
    /// `tests/regressions.rs::frozen_borrowed_byte_keys_sort_the_same_both_ways`).
    #[serde(borrow)]
    pub seq_keys: BTreeMap<&'a [u8], u8>,
    pub point: Point,
}

/// Map keys whose sort bytes are not a plain str: lists, options, tuples,
/// newtypes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Keys {
    pub list: BTreeMap<Vec<u8>, u8>,
    pub opt: BTreeMap<Option<String>, u8>,
    pub tuple: BTreeMap<(String, u8), u8>,
    pub strs: BTreeMap<(String,), u8>,
    pub maps: BTreeMap<BTreeMap<String, u8>, u8>,
}

/// A map key with a `Vec` field after another field (sorts by its whole
/// encoding; the field goes through the decoder's known-`Vec` path).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Parts {
    pub tag: u8,
    pub parts: Vec<u16>,
}

/// The field types the decoder reads itself (`src/de/fields.rs`,
/// `src/de/bytes.rs`): `Vec`s of numbers and `bool` (one bounds check and
/// one copy), `Option`s of numbers, `bool` and `String`, and a map keyed
/// by a struct with a `Vec` field.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Fields {
    pub words: Vec<u32>,
    pub halves: Vec<i16>,
    pub floats: Vec<f32>,
    pub doubles: Vec<f64>,
    pub flags: Vec<bool>,
    pub wide: Vec<u128>,
    pub name: Option<String>,
    pub big: Option<i128>,
    pub flag: Option<bool>,
    pub d: Option<f64>,
    pub n: Option<u16>,
    pub by_parts: BTreeMap<Parts, u8>,
}

/// A side of a [`Plain`] (a unit enum: the decoder's read).
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Side {
    Left,
    Right,
}

/// A plain struct of 24 to 64 bytes aligned below 8: with 256 bytes left
/// in a slice, the decoder reads its fixed-width fields through a window
/// of the input (`src/de/window.rs`), and starts the window again after
/// the enum and the option.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Plain {
    pub a: Point,
    pub b: (u8, i16, f32),
    pub flag: bool,
    pub side: Side,
    pub c: Point,
    pub opt: Option<u16>,
    pub d: u32,
}

/// The type names, in selector order. `input[0] % TYPES.len()` picks one.
pub const TYPES: &[&str] = &[
    "Point",
    "Shape",
    "bool",
    "char",
    "str",
    "option<u8>",
    "list<u64>",
    "map<str,u8>",
    "Rich",
    "Borrowed",
    "Tree",
    "Keys",
    "numbers",
    "Fields",
    "list<Plain>",
];

/// The selector byte for a type name (as in the golden manifest).
pub fn selector(ty: &str) -> Option<u8> {
    TYPES.iter().position(|t| *t == ty).map(|i| i as u8)
}

/// Numbers of every width (the "numbers" selector).
pub type Numbers = (i8, u8, i16, u16, i32, u32, i64, u64, i128, u128, f32, f64);

/// Runs `$f::<T>` for the type picked by `$sel` (one of [`TYPES`]), with
/// the remaining arguments.
#[macro_export]
macro_rules! dispatch {
    ($sel:expr, $f:ident, $($arg:expr),*) => {
        $crate::dispatch_with!($crate::Borrowed; $sel, $f, $($arg),*)
    };
}

/// The match behind [`dispatch!`] and [`dispatch_owned!`]; `$nine` is the
/// type for selector 9 (`Borrowed`, or `Rich` where a stream cannot lend).
#[doc(hidden)]
#[macro_export]
macro_rules! dispatch_with {
    ($nine:ty; $sel:expr, $f:ident, $($arg:expr),*) => {{
        use std::collections::BTreeMap;
        use $crate::*;
        match ($sel as usize) % TYPES.len() {
            0 => $f::<Point>($($arg),*),
            1 => $f::<Shape>($($arg),*),
            2 => $f::<bool>($($arg),*),
            3 => $f::<char>($($arg),*),
            4 => $f::<String>($($arg),*),
            5 => $f::<Option<u8>>($($arg),*),
            6 => $f::<Vec<u64>>($($arg),*),
            7 => $f::<BTreeMap<String, u8>>($($arg),*),
            8 => $f::<Rich>($($arg),*),
            9 => $f::<$nine>($($arg),*),
            10 => $f::<Tree>($($arg),*),
            11 => $f::<Keys>($($arg),*),
            12 => $f::<Numbers>($($arg),*),
            13 => $f::<Fields>($($arg),*),
            _ => $f::<Vec<Plain>>($($arg),*),
        }
    }};
}

/// Every error of a decoder is a spec code (or MESSAGE) with an offset
/// inside the input, and prints.
fn check_error(e: &kiln_serde::Error, len: usize) {
    assert_ne!(e.code(), ErrorCode::Io, "a slice cannot fail with IO: {e}");
    let off = e
        .offset()
        .unwrap_or_else(|| panic!("error without an offset: {e}"));
    assert!(
        off <= len as u64,
        "offset {off} past the input ({len}): {e}"
    );
    let _ = e.to_string();
}

/// Frozen decoding of `data` as `T` through `from_slice` and
/// `take_from_slice`, with the canonical check: a value that decodes
/// re-encodes (`to_vec`, `to_writer`, `serialized_size`) to exactly the
/// bytes it came from.
pub fn check_frozen<'a, T: Deserialize<'a> + Serialize>(data: &'a [u8]) {
    let full = kiln_serde::from_slice::<T>(data);
    let taken = kiln_serde::take_from_slice::<T>(data);
    match (&full, &taken) {
        (Ok(v), Ok((_, rest))) => {
            assert!(rest.is_empty(), "from_slice accepted trailing bytes");
            assert_reencodes(v, data);
        }
        (Err(e), Ok((v, rest))) => {
            check_error(e, data.len());
            assert_eq!(e.code(), ErrorCode::Trailing, "take ok but from_slice {e}");
            assert!(!rest.is_empty(), "TRAILING with no bytes left: {e}");
            let used = data.len() - rest.len();
            assert_eq!(e.offset(), Some(used as u64), "TRAILING offset: {e}");
            assert_reencodes(v, &data[..used]);
        }
        (Err(a), Err(b)) => {
            check_error(a, data.len());
            assert_eq!(a.code(), b.code(), "from_slice {a} vs take {b}");
            assert_eq!(a.offset(), b.offset(), "from_slice {a} vs take {b}");
        }
        (Ok(_), Err(b)) => panic!("from_slice ok but take_from_slice failed: {b}"),
    }
}

/// `to_vec`, `to_writer`, `serialized_size`, `to_slice` and `to_extend` (into
/// buffers without spare capacity, with too little and with enough) of `v`
/// all give `bytes`.
pub fn assert_reencodes<T: Serialize>(v: &T, bytes: &[u8]) {
    let again = kiln_serde::to_vec(v).expect("a decoded value re-encodes");
    assert!(
        again == bytes,
        "decode then encode is not the identity:\n input {bytes:02x?}\n again {again:02x?}"
    );
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, v).expect("to_writer");
    assert_eq!(w, bytes, "to_writer differs from to_vec");
    let n = kiln_serde::serialized_size(v).expect("serialized_size");
    assert_eq!(n, bytes.len() as u64, "serialized_size differs");
    // to_slice: the same bytes into an exact buffer; one byte short is
    // LIMIT at the buffer's end with the size needed.
    let mut buf = vec![0u8; bytes.len()];
    let n = kiln_serde::to_slice(&mut buf, v).expect("to_slice");
    assert_eq!(&buf[..n], bytes, "to_slice differs from to_vec");
    if let Some(short) = bytes.len().checked_sub(1) {
        let e = kiln_serde::to_slice(&mut buf[..short], v).expect_err("a short buffer");
        assert_eq!(e.code(), ErrorCode::Limit, "{e}");
        assert_eq!(e.offset(), Some(short as u64), "{e}");
        assert_eq!(
            e.detail(),
            kiln_serde::error::ErrorDetail::BufferFull(bytes.len() as u64),
            "{e}"
        );
    }
    // to_extend after one old byte, with no spare capacity, half the room
    // needed, and all of it.
    for spare in [None, Some(bytes.len() / 2), Some(bytes.len())] {
        let mut out = Vec::with_capacity(1 + spare.unwrap_or(0));
        out.push(0xEE);
        if spare.is_none() {
            out.shrink_to_fit();
        }
        kiln_serde::to_extend(&mut out, v).expect("to_extend");
        assert_eq!(out[0], 0xEE, "to_extend changed the old byte");
        assert_eq!(
            &out[1..],
            bytes,
            "to_extend differs from to_vec ({spare:?})"
        );
    }
}

/// A reader that hands out `data` in short chunks: chunk `i` is
/// `sizes[i % sizes.len()] & 0x0f` bytes (0 counts as 1), and a size byte
/// with bit 7 set first fails once with `Interrupted`. No sizes: one chunk.
pub struct ChunkReader<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: &'a [u8],
    next: usize,
    interrupted: bool,
}

impl<'a> ChunkReader<'a> {
    /// A reader over `data` with the chunk plan `sizes`.
    pub fn new(data: &'a [u8], sizes: &'a [u8]) -> Self {
        ChunkReader {
            data,
            pos: 0,
            sizes,
            next: 0,
            interrupted: false,
        }
    }

    /// Bytes delivered so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl io::Read for ChunkReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos == self.data.len() {
            return Ok(0);
        }
        let mut n = self.data.len() - self.pos;
        if !self.sizes.is_empty() {
            let s = self.sizes[self.next % self.sizes.len()];
            if s & 0x80 != 0 && !self.interrupted {
                self.interrupted = true;
                return Err(io::Error::new(io::ErrorKind::Interrupted, "try again"));
            }
            self.interrupted = false;
            self.next += 1;
            n = n.min(usize::from(s & 0x0f).max(1));
        }
        let n = n.min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Splits a `reader_chunks` input: selector, chunk plan, payload. Layout:
/// `[selector, k, k plan bytes (k = byte & 0x0f), payload...]`.
pub fn split_chunks_input(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&sel, rest) = input.split_first()?;
    let (&k, rest) = rest.split_first()?;
    let k = usize::from(k & 0x0f).min(rest.len());
    let (plan, payload) = rest.split_at(k);
    Some((sel, plan, payload))
}

/// `from_reader` over a [`ChunkReader`] agrees with `take_from_slice` for
/// up to three values back to back: the same value (compared by its
/// encoding) or the same error code and offset, and the reader stops
/// exactly at each value's end.
pub fn check_reader<T: DeserializeOwned + Serialize>(payload: &[u8], plan: &[u8]) {
    check_limited::<T>(payload, plan);
    let mut reader = ChunkReader::new(payload, plan);
    // `from_bufread` over a `BufReader` of the same chunks, its capacity
    // from the plan (1 to 512 bytes: values straddle its buffer and the
    // 255-byte copy): `from_reader`'s values, errors and position.
    let cap = 1 + plan.first().map_or(0, |&b| usize::from(b) * 2);
    let mut buffered = std::io::BufReader::with_capacity(cap, ChunkReader::new(payload, plan));
    let mut rest = payload;
    for _ in 0..3 {
        let start = payload.len() - rest.len();
        let via_slice = kiln_serde::take_from_slice::<T>(rest);
        let via_reader = kiln_serde::from_reader::<_, T>(&mut reader);
        let via_buf = kiln_serde::from_bufread::<_, T>(&mut buffered);
        let buf_at = buffered.get_ref().position() - buffered.buffer().len();
        assert_eq!(
            buf_at,
            reader.position(),
            "from_bufread left the stream elsewhere"
        );
        match (&via_reader, &via_buf) {
            (Ok(a), Ok(b)) => assert_eq!(kiln_serde::to_vec(a).ok(), kiln_serde::to_vec(b).ok()),
            (Err(a), Err(b)) => assert_eq!((a.code(), a.offset()), (b.code(), b.offset())),
            (a, b) => panic!(
                "from_reader {:?} vs from_bufread {:?}",
                a.as_ref().err(),
                b.as_ref().err()
            ),
        }
        // A `&mut &[u8]` reader is decoded in place: as `take_from_slice`,
        // moved past the value, left where it was after an error.
        let mut in_place = rest;
        match (kiln_serde::from_reader::<_, T>(&mut in_place), &via_slice) {
            (Ok(c), Ok((a, tail))) => {
                assert_eq!(kiln_serde::to_vec(&c).ok(), kiln_serde::to_vec(a).ok());
                assert_eq!(in_place.len(), tail.len(), "in place: wrong rest");
            }
            (Err(c), Err(a)) => {
                assert_eq!((c.code(), c.offset()), (a.code(), a.offset()));
                assert_eq!(in_place.len(), rest.len(), "in place: moved on an error");
            }
            (c, a) => panic!(
                "in place {:?} vs take_from_slice {:?}",
                c.err(),
                a.as_ref().err()
            ),
        }
        // So is a cursor, from its position: moved past the value, left
        // where it was after an error.
        let mut cursor = std::io::Cursor::new(payload);
        cursor.set_position(start as u64);
        match (kiln_serde::from_reader::<_, T>(&mut cursor), &via_slice) {
            (Ok(c), Ok((a, tail))) => {
                assert_eq!(kiln_serde::to_vec(&c).ok(), kiln_serde::to_vec(a).ok());
                let end = (payload.len() - tail.len()) as u64;
                assert_eq!(cursor.position(), end, "cursor: wrong position");
            }
            (Err(c), Err(a)) => {
                assert_eq!((c.code(), c.offset()), (a.code(), a.offset()));
                assert_eq!(cursor.position(), start as u64, "cursor: moved on an error");
            }
            (c, a) => panic!(
                "cursor {:?} vs take_from_slice {:?}",
                c.err(),
                a.as_ref().err()
            ),
        }
        match (via_slice, via_reader) {
            (Ok((a, tail)), Ok(b)) => {
                let used = rest.len() - tail.len();
                let ea = kiln_serde::to_vec(&a).expect("re-encode");
                let eb = kiln_serde::to_vec(&b).expect("re-encode");
                assert_eq!(ea, eb, "slice and reader decoded different values");
                assert_eq!(ea, &rest[..used], "not canonical");
                assert_eq!(
                    reader.position(),
                    start + used,
                    "the reader did not stop at the value's end"
                );
                rest = tail;
                if rest.is_empty() {
                    break;
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.code(), b.code(), "slice {a} vs reader {b}");
                assert_eq!(a.offset(), b.offset(), "slice {a} vs reader {b}");
                break;
            }
            (Ok(_), Err(b)) => panic!("take_from_slice ok, from_reader failed: {b}"),
            (Err(a), Ok(_)) => panic!("from_reader ok, take_from_slice failed: {a}"),
        }
    }
}

/// Under a total size limit (taken from the chunk plan, up to two bytes
/// past the payload), `Options::take_from_slice`, `Options::from_reader`
/// over the chunked stream and over a `&mut &[u8]` (read in place) agree:
/// the same value and end, or the same code and offset, the slice left
/// where it was after an error.
fn check_limited<T: DeserializeOwned + Serialize>(payload: &[u8], plan: &[u8]) {
    let seed = plan
        .iter()
        .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let limit = seed % (payload.len() as u64 + 3);
    let opts = kiln_serde::Options::new().with_limit(limit);
    let via_slice = opts.take_from_slice::<T>(payload);
    let mut reader = ChunkReader::new(payload, plan);
    let via_stream = opts.from_reader::<_, T>(&mut reader);
    let mut in_place = payload;
    let via_in_place = opts.from_reader::<_, T>(&mut in_place);
    match (via_slice, via_stream, via_in_place) {
        (Ok((a, tail)), Ok(b), Ok(c)) => {
            let ea = kiln_serde::to_vec(&a).expect("re-encode");
            assert_eq!(
                kiln_serde::to_vec(&b).ok(),
                Some(ea.clone()),
                "limit {limit}: stream"
            );
            assert_eq!(
                kiln_serde::to_vec(&c).ok(),
                Some(ea),
                "limit {limit}: in place"
            );
            let used = payload.len() - tail.len();
            assert!(used as u64 <= limit, "read past the limit {limit}");
            assert_eq!(reader.position(), used, "limit {limit}: stream end");
            assert_eq!(in_place.len(), tail.len(), "limit {limit}: in place end");
        }
        (Err(a), Err(b), Err(c)) => {
            assert_eq!(
                (a.code(), a.offset()),
                (b.code(), b.offset()),
                "limit {limit}: {a} vs stream {b}"
            );
            assert_eq!(
                (a.code(), a.offset()),
                (c.code(), c.offset()),
                "limit {limit}: {a} vs in place {c}"
            );
            assert_eq!(
                in_place.len(),
                payload.len(),
                "limit {limit}: in place moved on an error"
            );
        }
        (a, b, c) => panic!(
            "limit {limit}: slice {:?}, stream {:?}, in place {:?}",
            a.err(),
            b.err(),
            c.err()
        ),
    }
}

/// The owned types of [`TYPES`] for `reader_chunks` and `framed`
/// (`Borrowed` maps to `Rich`, since a stream cannot lend `&str`).
#[macro_export]
macro_rules! dispatch_owned {
    ($sel:expr, $f:ident, $($arg:expr),*) => {
        $crate::dispatch_with!($crate::Rich; $sel, $f, $($arg),*)
    };
}

// ------------------------------------------------------------- framed

/// Framed decoding of `T` from a slice and from a chunked stream: the
/// same value or the same error; a value re-encodes to the same body, and
/// to the same whole frame when the frame carried a hash.
pub fn check_framed<T: DeserializeOwned + Serialize + 'static>(
    data: &[u8],
    plan: &[u8],
    require_hash: bool,
) {
    let schema = kiln_serde::Schema::<T>::new()
        .expect("the fuzzed types trace")
        .with_options(Options::default().require_hash(require_hash));
    let a = schema.from_slice(data);
    let mut reader = ChunkReader::new(data, plan);
    let b = schema.from_reader(&mut reader);
    // A `&mut &[u8]` and a cursor are read in place, header and value: the
    // stream's outcome, moved as far as the stream read on success, not
    // moved at all after an error.
    let mut slice = data;
    let c = schema.from_reader(&mut slice);
    let mut cursor = std::io::Cursor::new(data);
    let d = schema.from_reader(&mut cursor);
    for (in_place, left) in [
        (&c, slice.len()),
        (&d, data.len() - cursor.position() as usize),
    ] {
        match (in_place, &b) {
            (Ok(x), Ok(y)) => {
                assert_eq!(kiln_serde::to_vec(x).ok(), kiln_serde::to_vec(y).ok());
                assert_eq!(data.len() - left, reader.position(), "in place: wrong rest");
            }
            (Err(x), Err(y)) => {
                assert_eq!((x.code(), x.offset()), (y.code(), y.offset()), "{x} vs {y}");
                assert_eq!(left, data.len(), "in place: moved on an error");
            }
            (x, y) => panic!(
                "in place {:?} vs stream {:?}",
                x.as_ref().err(),
                y.as_ref().err()
            ),
        }
    }
    match (&a, &b) {
        (Ok(v), Ok(w)) => {
            let body = kiln_serde::to_vec(v).expect("re-encode");
            assert_eq!(body, &data[16..], "framed body not canonical");
            assert_eq!(kiln_serde::to_vec(w).expect("re-encode"), body);
            assert_eq!(reader.position(), data.len());
            let header = kiln_serde::frame::parse(data).expect("a decoded frame parses");
            if header.hash.is_some() {
                let whole = kiln_serde::framed::to_vec(v).expect("framed re-encode");
                assert_eq!(whole, data, "framed re-encode differs");
            }
        }
        (Err(e), Ok(_)) => {
            assert_eq!(e.code(), ErrorCode::Trailing, "slice {e}, stream ok");
            assert_eq!(e.offset(), Some(reader.position() as u64));
        }
        (Err(x), Err(y)) => {
            check_error(x, data.len());
            assert_eq!((x.code(), x.offset()), (y.code(), y.offset()), "{x} vs {y}");
        }
        (Ok(_), Err(y)) => panic!("framed slice ok, stream {y}"),
    }
}
