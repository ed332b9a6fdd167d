//! I/O faults: writers that fail part way, readers that are interrupted,
//! deliver one byte at a time, or fail inside a value, and streams of
//! several messages back to back.

use std::collections::BTreeMap;
use std::io::{self, BufReader, Read, Write};

use kiln_serde::ErrorCode;

#[path = "support/kinds.rs"]
mod kinds;
#[path = "support/stream.rs"]
mod stream;
use kinds::{kinds, Kind};
use serde::{Deserialize, Serialize};
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Msg {
    id: u64,
    name: String,
    kinds: Vec<Kind>,
    by_name: BTreeMap<String, Option<u32>>,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    ch: char,
    f: f64,
}

fn msg(blob_len: usize) -> Msg {
    Msg {
        id: 42,
        name: "message".into(),
        kinds: kinds(),
        by_name: (0..20).map(|i| (format!("key{i:02}"), Some(i))).collect(),
        blob: (0..blob_len).map(|i| (i % 251) as u8).collect(),
        ch: 'ß',
        f: -1.5,
    }
}

/// Accepts `left` bytes, then fails every write.
struct FailAfter {
    left: usize,
    got: Vec<u8>,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.got.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `v` into a writer that fails after `n` bytes: an IO error whose
/// offset is at most `n` (the start of the write that failed), no panic;
/// the bytes that did get through are a prefix of the real encoding.
fn write_fails_at<T: Serialize>(v: &T, full: &[u8], n: usize) {
    let mut w = FailAfter {
        left: n,
        got: Vec::new(),
    };
    let e = kiln_serde::to_writer(&mut w, v).expect_err("the writer failed");
    assert_eq!(e.code(), ErrorCode::Io, "n={n}: {e}");
    assert_eq!(
        e.io_error().map(io::Error::kind),
        Some(io::ErrorKind::Other)
    );
    let off = e.offset().expect("an IO error on write has an offset");
    assert!(off <= n as u64, "n={n}: offset {off}");
    assert_eq!(w.got, full[..w.got.len()], "n={n}: written bytes");
}

#[test]
fn a_failing_writer_is_an_io_error_at_every_length() {
    let v = msg(100);
    let full = kiln_serde::to_vec(&v).unwrap();
    for n in 0..full.len() {
        write_fails_at(&v, &full, n);
    }
    // Exactly enough room: fine.
    let mut w = FailAfter {
        left: full.len(),
        got: Vec::new(),
    };
    kiln_serde::to_writer(&mut w, &v).unwrap();
    assert_eq!(w.got, full);
}

#[test]
fn a_failing_writer_during_large_flushed_output() {
    // Several 64 KiB flushes (a list of messages and one large blob) and a
    // large map, which is kept until it is sorted. Every n would be slow;
    // a stride plus every n around each flush boundary covers the cases.
    let list: Vec<Msg> = (0..3).map(|_| msg(40_000)).collect();
    let map: BTreeMap<u32, String> = (0..20_000).map(|i| (i, format!("v{i}"))).collect();
    let big = (list, map, msg(150_000));
    let full = kiln_serde::to_vec(&big).unwrap();
    assert!(full.len() > 4 * 65536);
    let mut ns: Vec<usize> = (0..full.len()).step_by(4093).collect();
    for k in 1..=full.len() / 65536 + 1 {
        for d in 0..4 {
            ns.extend([(k * 65536 + d).saturating_sub(2)]);
        }
    }
    ns.push(full.len() - 1);
    ns.retain(|&n| n < full.len());
    for n in ns {
        write_fails_at(&big, &full, n);
    }
}

/// A writer that is interrupted before every write and writes one byte at
/// a time: `write_all` retries, the output is whole.
struct Grudging {
    out: Vec<u8>,
    interrupt: bool,
}

impl Write for Grudging {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        if let Some(&b) = buf.first() {
            self.out.push(b);
            return Ok(1);
        }
        Ok(0)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_interrupted_short_writer_gets_every_byte() {
    let v = msg(70_000);
    let mut w = Grudging {
        out: Vec::new(),
        interrupt: false,
    };
    kiln_serde::to_writer(&mut w, &v).unwrap();
    assert_eq!(w.out, kiln_serde::to_vec(&v).unwrap());
}

#[test]
fn a_writer_that_accepts_nothing_is_an_io_error() {
    struct Zero;
    impl Write for Zero {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Ok(0)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let e = kiln_serde::to_writer(Zero, &msg(3)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(e.io_error().unwrap().kind(), io::ErrorKind::WriteZero);
}

/// Reads `data` in chunks of `chunk` bytes, failing with `Interrupted`
/// before each chunk when `interrupt` is set, and with `fail` once `fail_at`
/// bytes were delivered.
struct Faulty<'a> {
    data: &'a [u8],
    pos: usize,
    chunk: usize,
    interrupt: bool,
    pending_interrupt: bool,
    fail_at: Option<usize>,
    reads: usize,
}

impl<'a> Faulty<'a> {
    fn new(data: &'a [u8], chunk: usize) -> Self {
        Faulty {
            data,
            pos: 0,
            chunk,
            interrupt: false,
            pending_interrupt: false,
            fail_at: None,
            reads: 0,
        }
    }
}

impl Read for Faulty<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.interrupt {
            self.pending_interrupt = !self.pending_interrupt;
            if self.pending_interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
        }
        let mut end = self.data.len();
        if let Some(f) = self.fail_at {
            if self.pos >= f {
                return Err(io::Error::new(io::ErrorKind::ConnectionReset, "peer left"));
            }
            end = end.min(f);
        }
        let n = buf.len().min(self.chunk).min(end - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn interrupted_reads_are_retried() {
    let v = msg(100_000);
    let bytes = kiln_serde::to_vec(&v).unwrap();
    for chunk in [1, 3, 4096, usize::MAX] {
        let mut r = Faulty::new(&bytes, chunk);
        r.interrupt = true;
        let back: Msg = kiln_serde::from_reader(&mut r).unwrap();
        assert_eq!(back, v, "chunk {chunk}");
        assert_eq!(r.pos, bytes.len());
    }
}

#[test]
fn one_byte_reads_decode_the_same_value() {
    let v = msg(1000);
    let bytes = kiln_serde::to_vec(&v).unwrap();
    let mut r = Faulty::new(&bytes, 1);
    let back: Msg = kiln_serde::from_reader(&mut r).unwrap();
    assert_eq!(back, v);
    assert_eq!(r.pos, bytes.len());
    assert!(r.reads >= bytes.len());
}

#[test]
fn an_error_inside_a_value_is_io_with_an_offset() {
    let v = msg(300);
    let bytes = kiln_serde::to_vec(&v).unwrap();
    for fail_at in 0..bytes.len() {
        for chunk in [1, 5, usize::MAX] {
            let mut r = Faulty::new(&bytes, chunk);
            r.fail_at = Some(fail_at);
            let e = kiln_serde::from_reader::<_, Msg>(&mut r).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Io, "fail_at {fail_at}: {e}");
            assert_eq!(
                e.io_error().map(io::Error::kind),
                Some(io::ErrorKind::ConnectionReset)
            );
            // The offset is the start of the field being read when the
            // stream failed: at or before the failing byte.
            let off = e.offset().expect("IO error has an offset");
            assert!(off <= fail_at as u64, "fail_at {fail_at}: {e}");
            assert!(fail_at as u64 - off <= 300 + 4, "fail_at {fail_at}: {e}");
        }
    }
}

#[test]
fn a_stream_ending_inside_a_value_is_eof_at_the_field() {
    let v = msg(50);
    let bytes = kiln_serde::to_vec(&v).unwrap();
    for cut in 0..bytes.len() {
        let e = kiln_serde::from_reader::<_, Msg>(Stream(&bytes[..cut])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof, "cut {cut}: {e}");
        // The same code and offset as the slice reader.
        let s = kiln_serde::from_slice::<Msg>(&bytes[..cut]).unwrap_err();
        assert_eq!((e.code(), e.offset()), (s.code(), s.offset()), "cut {cut}");
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Any {
    Msg(Msg),
    Num(u8),
    Text(String),
    Map(BTreeMap<i32, Vec<u16>>),
    Big(#[serde(with = "serde_bytes")] Vec<u8>),
}

fn messages() -> Vec<Any> {
    vec![
        Any::Num(1),
        Any::Msg(msg(10)),
        Any::Text(String::new()),
        Any::Map((0..50).map(|i| (i - 25, vec![i as u16; 3])).collect()),
        Any::Big(vec![0xab; 200_000]),
        Any::Num(2),
        Any::Msg(msg(70_000)),
        Any::Text("last".into()),
    ]
}

/// Reads every message back from one stream: each one whole, in order,
/// and then the stream is exactly at its end.
fn read_all<R: Read>(mut r: R, want: &[Any]) -> R {
    for (i, w) in want.iter().enumerate() {
        let got: Any = kiln_serde::from_reader(&mut r).unwrap_or_else(|e| panic!("msg {i}: {e}"));
        assert_eq!(&got, w, "message {i}");
    }
    let mut probe = [0u8; 1];
    let left = loop {
        match r.read(&mut probe) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other.unwrap(),
        }
    };
    assert_eq!(left, 0, "bytes left after the last message");
    r
}

#[test]
fn concatenated_messages_resume_exactly_at_each_boundary() {
    let want = messages();
    let mut stream = Vec::new();
    for m in &want {
        kiln_serde::to_writer(&mut stream, m).unwrap();
    }
    let total: usize = want
        .iter()
        .map(|m| kiln_serde::serialized_size(m).unwrap() as usize)
        .sum();
    assert_eq!(stream.len(), total);

    read_all(&stream[..], &want);
    for chunk in [1, 2, 7, 65_535, 65_537] {
        let mut r = Faulty::new(&stream, chunk);
        r.interrupt = chunk < 3;
        let r = read_all(r, &want);
        assert_eq!(r.pos, stream.len());
    }
    read_all(BufReader::with_capacity(10, &stream[..]), &want);
    read_all(BufReader::new(&stream[..]), &want);

    // take_from_slice walks the same boundaries.
    let mut rest = &stream[..];
    for w in &want {
        let (got, tail): (Any, &[u8]) = kiln_serde::take_from_slice(rest).unwrap();
        assert_eq!(&got, w);
        rest = tail;
    }
    assert!(rest.is_empty());
}

#[test]
fn a_bad_message_in_a_stream_stops_at_its_field() {
    // Three messages; the second has a bad variant index. The first reads
    // fine, the second fails with TYPE at its own offset 0, and a stream
    // has consumed exactly the index (4 bytes), no more; a `&[u8]` reader
    // (decoded in place) is left at the message's start.
    let a = kiln_serde::to_vec(&Any::Num(5)).unwrap();
    let mut stream = a.clone();
    stream.extend_from_slice(&[9, 0, 0, 0, 0xee]);
    let mut r = Stream(&stream[..]);
    assert_eq!(
        kiln_serde::from_reader::<_, Any>(&mut r).unwrap(),
        Any::Num(5)
    );
    let e = kiln_serde::from_reader::<_, Any>(&mut r).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(0)));
    assert_eq!(r.0, &[0xee]);

    let mut r = &stream[..];
    assert_eq!(
        kiln_serde::from_reader::<_, Any>(&mut r).unwrap(),
        Any::Num(5)
    );
    let e = kiln_serde::from_reader::<_, Any>(&mut r).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(0)));
    assert_eq!(r, &[9, 0, 0, 0, 0xee]);
}

/// `to_writer` from a thread-local's destructor, after the thread's
/// staging buffer is gone (destructors run in reverse order of
/// registration: the staging buffer's, registered by the first
/// `to_writer`, runs before this one's): still the same bytes, no panic.
#[test]
fn to_writer_works_while_the_thread_is_torn_down() {
    use std::sync::mpsc;
    struct OnExit(mpsc::Sender<Vec<u8>>);
    impl Drop for OnExit {
        fn drop(&mut self) {
            let mut out = io::BufWriter::new(Vec::new());
            kiln_serde::to_writer(&mut out, &(7u32, "late")).unwrap();
            let _ = self.0.send(out.into_inner().unwrap());
        }
    }
    thread_local! {
        static ON_EXIT: std::cell::RefCell<Option<OnExit>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        ON_EXIT.with(|c| *c.borrow_mut() = Some(OnExit(tx)));
        let mut early = Vec::new();
        kiln_serde::to_writer(io::Cursor::new(&mut early), &1u8).unwrap();
        assert_eq!(early, [1]);
    })
    .join()
    .unwrap();
    let bytes = rx.recv().expect("the destructor ran and wrote");
    assert_eq!(bytes, kiln_serde::to_vec(&(7u32, "late")).unwrap());
}

/// A total size limit falling anywhere in a stream, including inside a
/// fixed-width read, inside a map key (read by a reader of its own that
/// records the key's bytes) and inside a `Vec` of numbers (read in bulk
/// from a stream unless the limit falls inside it): `from_reader` gives
/// what `from_slice` gives, value or LIMIT at the same offset.
#[test]
fn a_stream_limit_anywhere_matches_the_slice() {
    type V = (u8, u64, BTreeMap<u32, i16>, u16, Vec<u16>, f64);
    let v: V = (
        7,
        u64::MAX - 3,
        BTreeMap::from([(1, -1), (300, 2), (70_000, -3)]),
        0xbeef,
        // 40 elements: at 32 or more a stream reads them in bulk, and
        // reads them element by element when the limit falls inside.
        (0..40).map(|i| i * 0x0401).collect(),
        -0.5,
    );
    let bytes = kiln_serde::to_vec(&v).unwrap();
    for limit in 0..=bytes.len() as u64 + 1 {
        let opts = kiln_serde::Options::new().with_limit(limit);
        let slice = opts.from_slice::<V>(&bytes);
        let stream = opts.from_reader::<_, V>(&bytes[..]);
        let chunked = opts.from_reader::<_, V>(Chunks(&bytes[..], 3));
        for r in [&stream, &chunked] {
            match (&slice, r) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "limit {limit}"),
                (Err(a), Err(b)) => assert_eq!(
                    (a.code(), a.offset()),
                    (b.code(), b.offset()),
                    "limit {limit}: {a} / {b}"
                ),
                _ => panic!("limit {limit}: {slice:?} / {r:?}"),
            }
        }
        assert_eq!(slice.is_ok(), limit >= bytes.len() as u64, "limit {limit}");
        if let Err(e) = &slice {
            assert_eq!(e.code(), ErrorCode::Limit, "limit {limit}: {e}");
        }
    }
    // Keys out of order are still seen from a stream (the keys' bytes
    // are recorded, not skipped by the fast path).
    let m = BTreeMap::from([(1u32, 0u8), (2, 0)]);
    let bytes = kiln_serde::to_vec(&m).unwrap();
    let (a, b) = bytes[4..].split_at(5);
    let swapped = [&bytes[..4], b, a].concat();
    let e = kiln_serde::from_reader::<_, BTreeMap<u32, u8>>(&swapped[..]).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(9)), "{e}");
}

/// A reader that hands out at most `.1` bytes per call.
struct Chunks<'a>(&'a [u8], usize);

impl Read for Chunks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}
