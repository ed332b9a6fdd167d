//! `from_bufread` reads a `BufRead`'s values from a copy of the front of
//! its buffer (`src/read/buffered.rs`) where `from_reader` calls the
//! stream's `read_exact` for each. The two must agree on everything: the
//! value, or the error's code and offset, and the bytes the stream is
//! left with, for every cut of the input, every one-byte change, every
//! total size limit, and buffers of every size (a value straddles the
//! stream's buffer, or the copy, at every position).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read};

use kiln_serde::{ErrorCode, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[path = "support/kinds.rs"]
mod kinds;
#[path = "support/stream.rs"]
mod stream;
use kinds::{kinds, Kind};
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct V3 {
    x: f32,
    y: f32,
    z: f32,
}

/// Fixed-width fields, strings short and long (longer than the 255-byte
/// copy), enums, options, a map with string keys (read through the key
/// reader, which records them), bytes, a `Vec` of numbers (read in bulk
/// from a stream), plain structs and a `char`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Msg {
    id: u64,
    name: String,
    kinds: Vec<Kind>,
    by_name: BTreeMap<String, Option<u32>>,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    long: String,
    nums: Vec<u16>,
    points: Vec<V3>,
    ch: char,
    f: f64,
    flag: bool,
}

fn msg() -> Msg {
    Msg {
        id: 42,
        name: "message".into(),
        kinds: kinds(),
        by_name: (0..6).map(|i| (format!("key{i:02}"), Some(i))).collect(),
        blob: (0..40).map(|i| (i % 251) as u8).collect(),
        long: "x".repeat(300),
        nums: (0..40).map(|i| i * 0x0401).collect(),
        points: (0..12)
            .map(|i| V3 {
                x: i as f32,
                y: -(i as f32),
                z: 0.5,
            })
            .collect(),
        ch: 'ß',
        f: -1.5,
        flag: true,
    }
}

/// What a decode gave: the value or the error's code and offset, and the
/// bytes the stream was left with.
type Outcome<T> = (Result<T, (ErrorCode, Option<u64>)>, Vec<u8>);

fn rest(mut r: impl Read) -> Vec<u8> {
    let mut v = Vec::new();
    r.read_to_end(&mut v).unwrap();
    v
}

/// `from_reader` over a `BufReader` of capacity `cap` (a stream: each
/// value's bytes by `read_exact`).
fn by_read<T: DeserializeOwned>(opts: &Options, bytes: &[u8], cap: usize) -> Outcome<T> {
    let mut r = BufReader::with_capacity(cap, Stream(bytes));
    let v = opts.from_reader::<_, T>(&mut r);
    (v.map_err(|e| (e.code(), e.offset())), rest(r))
}

/// `from_bufread` over the same.
fn by_bufread<T: DeserializeOwned>(opts: &Options, bytes: &[u8], cap: usize) -> Outcome<T> {
    let mut r = BufReader::with_capacity(cap, Stream(bytes));
    let v = opts.from_bufread::<_, T>(&mut r);
    (v.map_err(|e| (e.code(), e.offset())), rest(r))
}

/// Buffer sizes: a byte, a few (every value straddles), under and over
/// the 255-byte copy, and larger than the input.
const CAPS: [usize; 6] = [1, 3, 7, 100, 300, 8192];

fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    opts: &Options,
    bytes: &[u8],
    what: &str,
) {
    for cap in CAPS {
        let a = by_read::<T>(opts, bytes, cap);
        let b = by_bufread::<T>(opts, bytes, cap);
        assert_eq!(a, b, "{what}, capacity {cap}");
    }
}

#[test]
fn every_cut_gives_the_value_or_the_same_error_and_leaves_the_same_bytes() {
    let bytes = kiln_serde::to_vec(&msg()).unwrap();
    assert!(bytes.len() > 600, "{}", bytes.len());
    let opts = Options::new();
    for cut in 0..=bytes.len() {
        agree::<Msg>(&opts, &bytes[..cut], &format!("cut {cut}"));
    }
    // The whole message, with bytes after it that stay in the stream.
    let mut more = bytes.clone();
    more.extend_from_slice(b"after");
    for cap in CAPS {
        let (v, left) = by_bufread::<Msg>(&opts, &more, cap);
        assert_eq!(v, Ok(msg()), "capacity {cap}");
        assert_eq!(left, b"after", "capacity {cap}");
    }
}

#[test]
fn every_changed_byte_gives_the_same_value_or_error() {
    let bytes = kiln_serde::to_vec(&msg()).unwrap();
    let opts = Options::new();
    let mut errors = 0;
    for i in 0..bytes.len() {
        for x in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= x;
            b.extend_from_slice(b"after");
            agree::<Msg>(&opts, &b, &format!("byte {i} ^ {x:#x}"));
            errors += usize::from(by_bufread::<Msg>(&opts, &b, 8192).0.is_err());
        }
    }
    // The changes reach the error paths (a bad tag, a bad length, keys
    // out of order, a bad char), not only other values.
    assert!(errors > bytes.len(), "{errors}");
}

#[test]
fn every_total_size_limit_gives_the_same_error() {
    let bytes = kiln_serde::to_vec(&msg()).unwrap();
    for limit in 0..=bytes.len() as u64 + 1 {
        let opts = Options::new().with_limit(limit);
        agree::<Msg>(&opts, &bytes, &format!("limit {limit}"));
        let (v, _) = by_bufread::<Msg>(&opts, &bytes, 8192);
        match v {
            Ok(_) => assert!(limit >= bytes.len() as u64, "limit {limit}"),
            Err((code, _)) => assert_eq!(code, ErrorCode::Limit, "limit {limit}"),
        }
    }
}

/// Fixed-width values of every width, read one by one from the copy,
/// shifted by a string of every length before them: a read ends exactly
/// at the copy's end, and just before and past it, in one value. (The
/// count of bytes read from the copy is a `u8`: with a 256-byte copy it
/// wrapped to 0 there and read the copy again, which the other tests here
/// did not reach.)
#[test]
fn reads_that_end_at_the_copys_end_agree() {
    type Fixed = (String, Vec<(u8, u16, u32, u64, u128)>);
    let rows: Vec<_> = (0..40u8)
        .map(|i| {
            (
                i,
                u16::from(i) * 3,
                u32::from(i) << 20,
                !u64::from(i),
                u128::from(i) << 100,
            )
        })
        .collect();
    let opts = Options::new();
    for shift in 0..32 {
        let value: Fixed = ("s".repeat(shift), rows.clone());
        let bytes = kiln_serde::to_vec(&value).unwrap();
        assert!(bytes.len() > 2 * 256, "{}", bytes.len());
        agree::<Fixed>(&opts, &bytes, &format!("shift {shift}"));
        for cap in CAPS {
            assert_eq!(
                by_bufread::<Fixed>(&opts, &bytes, cap).0,
                Ok(value.clone()),
                "shift {shift}, capacity {cap}"
            );
        }
    }
}

#[test]
fn messages_back_to_back_resume_exactly_at_each_boundary() {
    // Small messages, many per copy, and values that straddle copies.
    let msgs: Vec<(u32, String, Vec<V3>)> = (0..200)
        .map(|i| {
            let p = V3 {
                x: i as f32,
                y: 1.0,
                z: 2.0,
            };
            (i, "m".repeat(i as usize % 9), vec![p; i as usize % 5])
        })
        .collect();
    let mut stream = Vec::new();
    for m in &msgs {
        kiln_serde::to_writer(&mut stream, m).unwrap();
    }
    for cap in CAPS {
        let mut r = BufReader::with_capacity(cap, Stream(&stream));
        for (k, m) in msgs.iter().enumerate() {
            let got: (u32, String, Vec<V3>) = kiln_serde::from_bufread(&mut r).unwrap();
            assert_eq!(&got, m, "message {k}, capacity {cap}");
        }
        assert!(r.fill_buf().unwrap().is_empty(), "capacity {cap}");
        // At the end of the stream: EOF at offset 0 of the next value.
        let e = kiln_serde::from_bufread::<_, u32>(&mut r).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(0)), "{e}");
    }
}

/// A slice, or a cursor over one, is decoded in place, as `from_reader`
/// decodes it: moved past the value, and left where it was after an error
/// (a stream is consumed up to the error; the in-place read keeps it).
#[test]
fn a_slice_is_read_in_place_and_moved_past_the_value() {
    let bytes = [kiln_serde::to_vec(&msg()).unwrap(), b"after".to_vec()].concat();
    let mut input = &bytes[..];
    assert_eq!(
        kiln_serde::from_bufread::<_, Msg>(&mut input).unwrap(),
        msg()
    );
    assert_eq!(input, b"after");
    let mut c = io::Cursor::new(&bytes[..]);
    assert_eq!(kiln_serde::from_bufread::<_, Msg>(&mut c).unwrap(), msg());
    assert_eq!(c.position(), bytes.len() as u64 - 5);
    // Cut inside the value: the same error as `from_reader`, and nothing
    // consumed, where a `BufRead` read as a stream would have moved on.
    let cut = &bytes[..bytes.len() / 2];
    let want = kiln_serde::from_reader::<_, Msg>(&mut &cut[..]).unwrap_err();
    let mut input = cut;
    let e = kiln_serde::from_bufread::<_, Msg>(&mut input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (want.code(), want.offset()), "{e}");
    assert_eq!(input.len(), cut.len());
    let mut c = io::Cursor::new(cut);
    assert!(kiln_serde::from_bufread::<_, Msg>(&mut c).is_err());
    assert_eq!(c.position(), 0);
}

/// A `BufRead` whose `fill_buf` is interrupted every other call, and
/// hands out its bytes a few at a time; then one that fails part way.
struct Flaky<'a> {
    data: &'a [u8],
    pos: usize,
    chunk: usize,
    calls: usize,
    fail_at: Option<usize>,
}

impl Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let b = self.fill_buf()?;
            let n = b.len().min(buf.len());
            buf[..n].copy_from_slice(&b[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Flaky<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.calls += 1;
        if self.calls % 2 == 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        if self.fail_at.is_some_and(|f| self.pos >= f) {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "peer left"));
        }
        let end = (self.pos + self.chunk)
            .min(self.data.len())
            .min(self.fail_at.unwrap_or(usize::MAX));
        Ok(&self.data[self.pos..end])
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

#[test]
fn interrupted_and_failing_streams_give_the_same_value_or_io_error() {
    let bytes = kiln_serde::to_vec(&msg()).unwrap();
    let flaky = |chunk, fail_at| Flaky {
        data: &bytes,
        pos: 0,
        chunk,
        calls: 0,
        fail_at,
    };
    for chunk in [1, 5, 64, 1000] {
        let got: Msg = kiln_serde::from_bufread(flaky(chunk, None)).unwrap();
        assert_eq!(got, msg(), "chunk {chunk}");
        for fail_at in (0..bytes.len()).step_by(7) {
            let mut a = flaky(chunk, Some(fail_at));
            let mut b = flaky(chunk, Some(fail_at));
            let ea = kiln_serde::from_reader::<_, Msg>(&mut a).unwrap_err();
            let eb = kiln_serde::from_bufread::<_, Msg>(&mut b).unwrap_err();
            let what = format!("chunk {chunk}, failing at {fail_at}: {ea} / {eb}");
            assert_eq!(eb.code(), ErrorCode::Io, "{what}");
            assert_eq!((ea.code(), ea.offset()), (eb.code(), eb.offset()), "{what}");
            assert_eq!(a.pos, b.pos, "{what}");
        }
    }
}

/// A stream that fails under a total size limit: LIMIT where the limit
/// comes first, as `from_reader` tests it before it reads (a string past
/// the copy is not copied again past the limit: the failing `fill_buf`
/// would make it IO), and the same stream position.
#[test]
fn failing_streams_under_a_limit_give_the_same_error() {
    let bytes = kiln_serde::to_vec(&msg()).unwrap();
    for chunk in [1, 5, 64] {
        for fail_at in (0..bytes.len()).step_by(3) {
            for limit in (0..bytes.len() as u64).step_by(5) {
                let opts = Options::new().with_limit(limit);
                let flaky = || Flaky {
                    data: &bytes,
                    pos: 0,
                    chunk,
                    calls: 0,
                    fail_at: Some(fail_at),
                };
                let (mut a, mut b) = (flaky(), flaky());
                let ea = opts.from_reader::<_, Msg>(&mut a).unwrap_err();
                let eb = opts.from_bufread::<_, Msg>(&mut b).unwrap_err();
                let what =
                    format!("chunk {chunk}, failing at {fail_at}, limit {limit}: {ea} / {eb}");
                assert_eq!((ea.code(), ea.offset()), (eb.code(), eb.offset()), "{what}");
                assert_eq!(a.pos, b.pos, "{what}");
            }
        }
    }
}

/// A tensor directory inside a record, read from a `BufRead` (the block is
/// `IoRead`'s bulk read, after the copy's bytes are consumed): every cut
/// agrees too.
#[test]
fn a_tensor_block_inside_a_record_agrees_at_every_cut() {
    use kiln_serde::tensors::{TensorSpec, TensorsBuilder};
    use kiln_serde::Tensors;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Record {
        id: u64,
        label: String,
        weights: Tensors,
        step: u32,
    }
    let mut builder = TensorsBuilder::new();
    builder.push(TensorSpec::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).named("w"));
    let rec = Record {
        id: 7,
        label: "layer".into(),
        weights: builder.build().unwrap(),
        step: 99,
    };
    let bytes = [kiln_serde::to_vec(&rec).unwrap(), b"after".to_vec()].concat();
    let opts = Options::new();
    for cut in 0..=bytes.len() {
        agree::<Record>(&opts, &bytes[..cut], &format!("cut {cut}"));
    }
    let (v, left) = by_bufread::<Record>(&opts, &bytes, 8192);
    assert_eq!((v, left), (Ok(rec), b"after".to_vec()));
}

/// Framed: `framed::from_bufread` and `Schema::from_bufread` (header, hash
/// check, then the value as `from_bufread` reads it) agree with their
/// `from_reader`s at every cut and under every total size limit, and a
/// frame of another type stops at the header in both.
#[test]
fn framed_reads_agree_at_every_cut_and_limit() {
    use kiln_serde::{framed, Schema};

    let framed_of = |bytes: &[u8], cap: usize, buffered: bool| {
        let mut r = BufReader::with_capacity(cap, Stream(bytes));
        let v = if buffered {
            framed::from_bufread::<_, Msg>(&mut r)
        } else {
            framed::from_reader::<_, Msg>(&mut r)
        };
        (v.map_err(|e| (e.code(), e.offset())), rest(r))
    };
    let bytes = [framed::to_vec(&msg()).unwrap(), b"after".to_vec()].concat();
    for cut in 0..=bytes.len() {
        for cap in CAPS {
            let a = framed_of(&bytes[..cut], cap, false);
            let b = framed_of(&bytes[..cut], cap, true);
            assert_eq!(a, b, "cut {cut}, capacity {cap}");
        }
    }
    assert_eq!(framed_of(&bytes, 7, true), (Ok(msg()), b"after".to_vec()));
    // Another type's frame: the hash check stops both at the header.
    let other = framed::to_vec(&(1u8, 2u8)).unwrap();
    let (a, b) = (framed_of(&other, 3, false), framed_of(&other, 3, true));
    assert_eq!(a, b);
    assert!(matches!(a.0, Err((ErrorCode::Schema, _))), "{a:?}");

    let schema = Schema::<Msg>::new().unwrap();
    for limit in 0..=bytes.len() as u64 {
        let s = schema
            .clone()
            .with_options(Options::new().with_limit(limit));
        let mut r1 = BufReader::with_capacity(100, Stream(&bytes));
        let mut r2 = BufReader::with_capacity(100, Stream(&bytes));
        let a = s.from_reader(&mut r1).map_err(|e| (e.code(), e.offset()));
        let b = s.from_bufread(&mut r2).map_err(|e| (e.code(), e.offset()));
        assert_eq!((a, rest(r1)), (b, rest(r2)), "limit {limit}");
    }
}

/// A `BufRead` over a slice that counts calls to its `read`: the path
/// past `from_bufread`'s copy (`IoRead`'s `read_exact` loop) reads through
/// it, the copy only through `fill_buf` and `consume`.
struct CountReads<'a> {
    bytes: &'a [u8],
    reads: usize,
}

impl Read for CountReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        self.bytes.read(buf)
    }
}

impl BufRead for CountReads<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(self.bytes)
    }
    fn consume(&mut self, n: usize) {
        self.bytes = &self.bytes[n..];
    }
}

/// Strings of every length up to 40 back to back, so that some straddle
/// the end of each 255-byte copy: read from a new copy, not through the
/// stream's `read` (a map's string keys too, through the key reader), and
/// the same values. A string longer than a copy goes to `read`.
#[test]
fn a_string_that_straddles_the_copy_is_read_from_a_new_copy() {
    type Strings = (Vec<String>, BTreeMap<String, u8>);
    let value: Strings = (
        (0..400).map(|i| "x".repeat(i % 41)).collect(),
        (0..60)
            .map(|i| (format!("key {i:03} {}", "k".repeat(i % 23)), i as u8))
            .collect(),
    );
    let bytes = kiln_serde::to_vec(&value).unwrap();
    assert!(bytes.len() > 20 * 255, "{}", bytes.len());
    let mut r = CountReads {
        bytes: &bytes,
        reads: 0,
    };
    let got: Strings = kiln_serde::from_bufread(&mut r).unwrap();
    assert_eq!(got, value);
    assert_eq!(r.reads, 0, "strings past the copy were read by `read`");
    assert!(r.bytes.is_empty());

    let long = ("y".repeat(300), 7u8);
    let bytes = kiln_serde::to_vec(&long).unwrap();
    let mut r = CountReads {
        bytes: &bytes,
        reads: 0,
    };
    let got: (String, u8) = kiln_serde::from_bufread(&mut r).unwrap();
    assert_eq!(got, long);
    assert!(r.reads > 0, "a string longer than the copy goes to `read`");
}
