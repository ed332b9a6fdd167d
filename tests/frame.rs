//! The 16-byte frame (spec section 3) and the framed API: exact bytes, every
//! header fault, the schema check before the first field, and offsets.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::io::Read;

use kiln_serde::frame::{self, FrameHeader, FRAME_LEN};
use kiln_serde::schema;
use kiln_serde::Schema;
use kiln_serde::{framed, Error, ErrorCode, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Point {
    x: i32,
    y: i32,
}

const POINT_HASH: u64 = 0x5e8fcc49ab06d825;

fn point_frame() -> Vec<u8> {
    let mut v = b"KILN\x02\x00\x01\x00".to_vec();
    v.extend_from_slice(&POINT_HASH.to_le_bytes());
    v.extend_from_slice(&[0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
    v
}

#[track_caller]
fn expect(err: Error, code: ErrorCode, offset: u64) {
    assert_eq!(
        (err.code(), err.offset()),
        (code, Some(offset)),
        "wanted {code} at {offset}, got: {err}"
    );
}

/// Reads through every input path; all must fail the same way.
#[track_caller]
fn fails_everywhere<T: DeserializeOwned + Debug + 'static>(
    opts: &Options,
    bytes: &[u8],
    code: ErrorCode,
    offset: u64,
) {
    expect(
        Schema::<T>::new()
            .unwrap()
            .with_options(*opts)
            .from_slice(bytes)
            .unwrap_err(),
        code,
        offset,
    );
    expect(
        Schema::<T>::new()
            .unwrap()
            .with_options(*opts)
            .from_reader(bytes)
            .unwrap_err(),
        code,
        offset,
    );
    expect(
        Schema::<T>::new()
            .unwrap()
            .with_options(*opts)
            .from_reader(OneByte(bytes))
            .unwrap_err(),
        code,
        offset,
    );
}

/// A reader that hands out one byte per call.
struct OneByte<'a>(&'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

#[test]
fn point_frame_is_exact() {
    let bytes = framed::to_vec(&Point { x: 9, y: -4 }).unwrap();
    assert_eq!(bytes, point_frame());
    assert_eq!(schema::hash::<Point>().unwrap(), POINT_HASH);
    let mut w = Vec::new();
    framed::to_writer(&mut w, &Point { x: 9, y: -4 }).unwrap();
    assert_eq!(w, point_frame());
    assert_eq!(
        framed::from_slice::<Point>(&point_frame()).unwrap(),
        Point { x: 9, y: -4 }
    );
}

#[test]
fn header_encode_and_parse() {
    assert_eq!(
        frame::encode(None),
        *b"KILN\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    );
    let with = frame::encode(Some(0x0102030405060708));
    assert_eq!(
        with,
        *b"KILN\x02\x00\x01\x00\x08\x07\x06\x05\x04\x03\x02\x01"
    );
    let h = frame::parse(&with).unwrap();
    assert_eq!(h, FrameHeader::new(Some(0x0102030405060708)));
    assert_eq!((h.version, h.profile, h.flags), (2, 0, 1));
    let h = frame::parse(&frame::encode(None)).unwrap();
    assert_eq!(h.hash, None);
    assert_eq!(h.flags, 0);
    // A present hash may be 0.
    assert_eq!(frame::parse(&frame::encode(Some(0))).unwrap().hash, Some(0));
    // Bytes after the header are not the header's business.
    let mut long = with.to_vec();
    long.extend_from_slice(b"anything");
    assert_eq!(frame::parse(&long).unwrap().encode(), with);
    assert_eq!(
        FrameHeader::parse(&with).unwrap(),
        FrameHeader::new(Some(0x0102030405060708))
    );
}

#[test]
fn short_input_is_eof_at_zero_for_every_length() {
    let full = point_frame();
    let opts = Options::default();
    for len in 0..FRAME_LEN {
        expect(frame::parse(&full[..len]).unwrap_err(), ErrorCode::Eof, 0);
        fails_everywhere::<Point>(&opts, &full[..len], ErrorCode::Eof, 0);
        // The length is checked before any content: garbage is still EOF.
        let garbage = vec![0xAAu8; len];
        expect(frame::parse(&garbage).unwrap_err(), ErrorCode::Eof, 0);
        fails_everywhere::<Point>(&opts, &garbage, ErrorCode::Eof, 0);
    }
}

#[test]
fn every_header_byte_fault_is_frame() {
    let good = point_frame();
    let opts = Options::default();
    let mut cases: Vec<(usize, u8, u64)> = Vec::new();
    for (i, &b) in good[..4].iter().enumerate() {
        cases.push((i, b ^ 0x20, 0)); // magic
        cases.push((i, 0, 0));
    }
    for v in [0u8, 1, 3, 0xff] {
        cases.push((4, v, 4)); // version
    }
    for p in [1u8, 2, 0x80, 0xff] {
        cases.push((5, p, 5)); // profile
    }
    for bit in 1..8 {
        cases.push((6, 0x01 | (1 << bit), 6)); // flag bits 1..7
        cases.push((6, 1 << bit, 6));
    }
    for r in [1u8, 0x80, 0xff] {
        cases.push((7, r, 7)); // reserved
    }
    for (index, byte, offset) in cases {
        let mut bad = good.clone();
        bad[index] = byte;
        expect(frame::parse(&bad).unwrap_err(), ErrorCode::Frame, offset);
        fails_everywhere::<Point>(&opts, &bad, ErrorCode::Frame, offset);
    }
    // A nonzero hash with the hash flag clear.
    for i in 8..16 {
        let mut bad = frame::encode(None).to_vec();
        bad[i] = 1;
        bad.extend_from_slice(&good[16..]);
        expect(frame::parse(&bad).unwrap_err(), ErrorCode::Frame, 8);
        fails_everywhere::<Point>(&opts, &bad, ErrorCode::Frame, 8);
    }
}

#[test]
fn header_faults_are_found_in_byte_order() {
    let mut bad = point_frame();
    bad[7] = 1;
    bad[5] = 1;
    bad[4] = 9;
    expect(frame::parse(&bad).unwrap_err(), ErrorCode::Frame, 4);
    bad[0] = b'X';
    expect(frame::parse(&bad).unwrap_err(), ErrorCode::Frame, 0);
    // A frame fault wins over a schema mismatch.
    let mut bad = point_frame();
    bad[7] = 1;
    bad[8] ^= 0xff;
    fails_everywhere::<Point>(&Options::default(), &bad, ErrorCode::Frame, 7);
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(rename = "Point")]
struct Reordered {
    y: i32,
    x: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(rename = "Point")]
struct Renamed {
    x: i32,
    z: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(rename = "Point")]
struct Retyped {
    x: i32,
    y: u32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Point3 {
    x: i32,
    y: i32,
    z: i32,
}

#[test]
fn a_changed_type_is_schema_before_the_first_field() {
    let bytes = point_frame();
    let opts = Options::default();
    fails_everywhere::<Reordered>(&opts, &bytes, ErrorCode::Schema, 8);
    fails_everywhere::<Renamed>(&opts, &bytes, ErrorCode::Schema, 8);
    fails_everywhere::<Retyped>(&opts, &bytes, ErrorCode::Schema, 8);
    fails_everywhere::<Point3>(&opts, &bytes, ErrorCode::Schema, 8);
    fails_everywhere::<(i32, i32)>(&opts, &bytes, ErrorCode::Schema, 8);
    // Reported before the first field: no body at all is still SCHEMA.
    fails_everywhere::<Reordered>(&opts, &bytes[..16], ErrorCode::Schema, 8);
    let err = framed::from_slice::<Reordered>(&bytes).unwrap_err();
    assert!(err.message().contains("Reordered"), "{err}");
    // The same bytes without the frame check would have "worked".
    let unframed: Reordered = kiln_serde::from_slice(&bytes[16..]).unwrap();
    assert_eq!(unframed, Reordered { y: 9, x: -4 });
}

#[test]
fn a_frame_without_hash_is_accepted_unless_required() {
    let mut bytes = frame::encode(None).to_vec();
    bytes.extend_from_slice(&point_frame()[16..]);
    let p: Point = framed::from_slice(&bytes).unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
    let p: Point = framed::from_reader(&bytes[..]).unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
    // Without a hash, the reader's type is not checked at all.
    let r: Reordered = framed::from_slice(&bytes).unwrap();
    assert_eq!(r, Reordered { y: 9, x: -4 });

    let strict = Options::default().require_hash(true);
    fails_everywhere::<Point>(&strict, &bytes, ErrorCode::Schema, 6);
    // With a hash, require_hash changes nothing.
    let p: Point = Schema::new()
        .unwrap()
        .with_options(strict)
        .from_slice(&point_frame())
        .unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Shape {
    Dot,
    Circle { r: f64 },
    Poly(Vec<Point>),
    Label(String, Option<u8>),
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Scene {
    name: String,
    shapes: Vec<Shape>,
    index: BTreeMap<String, (u16, i64)>,
    origin: Option<Point>,
    tags: [u8; 3],
    children: Vec<Scene>,
    nan: f32,
}

fn scene() -> Scene {
    let mut index = BTreeMap::new();
    index.insert("b".to_owned(), (2, -2));
    index.insert("a".to_owned(), (1, i64::MIN));
    Scene {
        name: "root".into(),
        shapes: vec![
            Shape::Dot,
            Shape::Circle { r: -0.0 },
            Shape::Poly(vec![Point { x: 1, y: 2 }, Point { x: -3, y: 4 }]),
            Shape::Label("hi".into(), Some(7)),
            Shape::Label(String::new(), None),
        ],
        index,
        origin: Some(Point { x: 0, y: 0 }),
        tags: [1, 2, 3],
        children: vec![Scene {
            name: "leaf".into(),
            shapes: vec![],
            index: BTreeMap::new(),
            origin: None,
            tags: [0; 3],
            children: vec![],
            nan: 1.5,
        }],
        nan: f32::from_bits(0x7fc0_1234),
    }
}

#[track_caller]
fn assert_scene_eq(a: &Scene, b: &Scene) {
    assert_eq!(a.nan.to_bits(), b.nan.to_bits());
    let mut a2 = a.clone();
    let mut b2 = b.clone();
    a2.nan = 0.0;
    b2.nan = 0.0;
    assert_eq!(a2, b2);
}

#[test]
fn rich_type_round_trips_through_every_path() {
    let value = scene();
    let text = schema::type_text::<Scene>().unwrap();
    assert!(text.starts_with("struct Scene{name:str,shapes:list<enum Shape{Dot,"));
    assert!(text.contains("children:list<@Scene>"), "{text}");

    let bytes = framed::to_vec(&value).unwrap();
    assert_eq!(
        frame::parse(&bytes).unwrap().hash,
        Some(schema::hash::<Scene>().unwrap())
    );
    assert_eq!(&bytes[16..], kiln_serde::to_vec(&value).unwrap());
    let mut w = Vec::new();
    framed::to_writer(&mut w, &value).unwrap();
    assert_eq!(w, bytes);

    assert_scene_eq(&framed::from_slice::<Scene>(&bytes).unwrap(), &value);
    assert_scene_eq(
        &framed::from_reader::<_, Scene>(&bytes[..]).unwrap(),
        &value,
    );
    assert_scene_eq(
        &framed::from_reader::<_, Scene>(OneByte(&bytes)).unwrap(),
        &value,
    );

    let mut ext = vec![0xEE; 3];
    framed::to_extend(&mut ext, &value).unwrap();
    assert_eq!(ext[..3], [0xEE; 3]);
    assert_eq!(ext[3..], bytes[..]);
    let mut ext = Vec::new();
    Schema::<Scene>::new()
        .unwrap()
        .to_extend(&mut ext, &value)
        .unwrap();
    assert_eq!(ext, bytes);

    let opts = Options::default().with_max_depth(16);
    assert_eq!(
        Schema::new()
            .unwrap()
            .with_options(opts)
            .to_vec(&value)
            .unwrap(),
        bytes
    );
    assert_scene_eq(
        &Schema::<Scene>::new()
            .unwrap()
            .with_options(opts)
            .from_slice(&bytes)
            .unwrap(),
        &value,
    );

    // Streams: framed values back to back are read one by one.
    let mut stream = bytes.clone();
    stream.extend_from_slice(&framed::to_vec(&Point { x: 1, y: 1 }).unwrap());
    let mut input = &stream[..];
    assert_scene_eq(
        &framed::from_reader::<_, Scene>(&mut input).unwrap(),
        &value,
    );
    let p: Point = framed::from_reader(&mut input).unwrap();
    assert_eq!(p, Point { x: 1, y: 1 });
    assert!(input.is_empty());
}

#[test]
fn value_errors_count_from_the_frame_start() {
    // A bad option tag in the first value byte.
    let mut bytes = framed::to_vec(&Some(3u8)).unwrap();
    assert_eq!(bytes.len(), 18);
    bytes[16] = 7;
    fails_everywhere::<Option<u8>>(&Options::default(), &bytes, ErrorCode::Type, 16);
    // Trailing bytes after the value.
    let mut bytes = point_frame();
    bytes.push(0);
    expect(
        framed::from_slice::<Point>(&bytes).unwrap_err(),
        ErrorCode::Trailing,
        24,
    );
    let p: Point = Schema::new()
        .unwrap()
        .with_options(Options::default().allow_trailing_bytes(true))
        .from_slice(&bytes)
        .unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
    // A value cut short: every strict prefix past the header fails as EOF.
    let full = point_frame();
    for len in FRAME_LEN..full.len() {
        let err = framed::from_slice::<Point>(&full[..len]).unwrap_err();
        assert!(err.is_eof(), "length {len}: {err}");
        assert!(err.offset().unwrap_or(0) >= 16, "length {len}: {err}");
        let err = framed::from_reader::<_, Point>(&full[..len]).unwrap_err();
        assert!(err.is_eof(), "length {len}: {err}");
    }
    // Caps apply to the value.
    let bytes = framed::to_vec(&vec![1u8, 2, 3]).unwrap();
    let capped = Options::default().with_max_count(2);
    let err = Schema::<Vec<u8>>::new()
        .unwrap()
        .with_options(capped)
        .from_slice(&bytes)
        .unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Limit, Some(16)));
}

#[test]
fn the_free_functions_take_borrowing_types() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Note<'a> {
        id: u32,
        #[serde(borrow)]
        text: &'a str,
    }
    let bytes = framed::to_vec(&Note { id: 3, text: "hey" }).unwrap();
    assert_eq!(
        frame::parse(&bytes).unwrap().hash,
        Some(schema::hash_text("struct Note{id:u32,text:str}"))
    );
    let buffer = bytes.clone();
    let note: Note<'_> = framed::from_slice(&buffer).unwrap();
    assert_eq!(note, Note { id: 3, text: "hey" });
    assert!(buffer.as_ptr_range().contains(&note.text.as_ptr()));
    let mut ext = Vec::new();
    framed::to_extend(&mut ext, &note).unwrap();
    assert_eq!(ext, bytes);
    // Every lifetime of `Note` is one type for the cache: a text registered
    // for `Note<'static>` is the text `Note<'a>` is framed and read with.
    schema::register_type_text::<Note<'static>>("struct Note{id:u32,text:str,extra:u8}");
    let err = framed::from_slice::<Note<'_>>(&buffer).unwrap_err();
    expect(err, ErrorCode::Schema, 8);
    schema::register_type_text::<Note<'static>>("struct Note{id:u32,text:str}");
    assert_eq!(framed::from_slice::<Note<'_>>(&buffer).unwrap().id, 3);
}

#[test]
fn borrowed_types_use_a_kept_schema() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Msg<'a> {
        id: u32,
        #[serde(borrow)]
        text: &'a str,
        #[serde(borrow, with = "serde_bytes")]
        raw: &'a [u8],
    }
    static SCHEMA: std::sync::OnceLock<Schema<Msg<'static>>> = std::sync::OnceLock::new();
    let schema = SCHEMA.get_or_init(|| Schema::new().unwrap());
    assert_eq!(schema.text(), "struct Msg{id:u32,text:str,raw:list<u8>}");

    let bytes = schema
        .to_vec(&Msg {
            id: 7,
            text: "hello",
            raw: b"\x00\x01",
        })
        .unwrap();
    assert_eq!(frame::parse(&bytes).unwrap().hash, Some(schema.hash()));
    let buffer = bytes.clone();
    let msg: Msg<'_> = schema.from_slice(&buffer).unwrap();
    assert_eq!(msg.text, "hello");
    assert_eq!(msg.raw, b"\x00\x01");
    // Borrowed from the buffer, not copied.
    assert!(buffer.as_ptr_range().contains(&msg.text.as_ptr()));

    let mut w = Vec::new();
    schema.to_writer(&mut w, &msg).unwrap();
    assert_eq!(w, bytes);

    // A schema for a different type is SCHEMA.
    let other = Schema::<Msg<'static>>::from_text("struct Msg{id:u32}");
    expect(other.from_slice(&buffer).unwrap_err(), ErrorCode::Schema, 8);
    let strict = Options::default().require_hash(true);
    let mut unhashed = frame::encode(None).to_vec();
    unhashed.extend_from_slice(&bytes[16..]);
    expect(
        schema
            .clone()
            .with_options(strict)
            .from_slice(&unhashed)
            .unwrap_err(),
        ErrorCode::Schema,
        6,
    );
    assert_eq!(schema.from_slice(&unhashed).unwrap().id, 7);

    // Owned reads through a schema, from a stream.
    let point = Schema::<Point>::new().unwrap();
    let p: Point = point.from_reader(OneByte(&point_frame())).unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
    let opts = Options::default();
    assert_eq!(
        point.clone().with_options(opts).to_vec(&p).unwrap(),
        point_frame()
    );
    let mut w = Vec::new();
    point
        .clone()
        .with_options(opts)
        .to_writer(&mut w, &p)
        .unwrap();
    assert_eq!(w, point_frame());
    let p: Point = point
        .clone()
        .with_options(opts)
        .from_reader(&point_frame()[..])
        .unwrap();
    assert_eq!(p, Point { x: 9, y: -4 });
}

/// A type whose `Deserialize` rejects every value the tracer offers.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(try_from = "u32")]
struct AtLeastTwo(u32);

impl TryFrom<u32> for AtLeastTwo {
    type Error = &'static str;
    fn try_from(v: u32) -> Result<Self, Self::Error> {
        if v >= 2 {
            Ok(AtLeastTwo(v))
        } else {
            Err("below two")
        }
    }
}

/// The same, for the registration test (the cache is per type).
#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(try_from = "u32")]
struct AtLeastThree(u32);

impl TryFrom<u32> for AtLeastThree {
    type Error = &'static str;
    fn try_from(v: u32) -> Result<Self, Self::Error> {
        if v >= 3 {
            Ok(AtLeastThree(v))
        } else {
            Err("below three")
        }
    }
}

#[test]
fn untraceable_types_and_texts_by_hand() {
    let err = framed::to_vec(&AtLeastTwo(5)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Message);
    assert!(err.message().contains("by hand"), "{err}");
    // Reading an unhashed frame does not need the type's hash.
    let mut unhashed = frame::encode(None).to_vec();
    unhashed.extend_from_slice(&5u32.to_le_bytes());
    assert_eq!(
        framed::from_slice::<AtLeastTwo>(&unhashed).unwrap(),
        AtLeastTwo(5)
    );
    // A hashed frame does.
    let by_hand = Schema::<AtLeastTwo>::from_text("u32");
    let bytes = by_hand.to_vec(&AtLeastTwo(5)).unwrap();
    assert_eq!(
        framed::from_slice::<AtLeastTwo>(&bytes).unwrap_err().code(),
        ErrorCode::Message
    );
    assert_eq!(by_hand.from_slice(&bytes).unwrap(), AtLeastTwo(5));

    schema::register_type_text::<AtLeastThree>("u32");
    let bytes = framed::to_vec(&AtLeastThree(4)).unwrap();
    assert_eq!(
        frame::parse(&bytes).unwrap().hash,
        Some(schema::hash_text("u32"))
    );
    assert_eq!(
        framed::from_slice::<AtLeastThree>(&bytes).unwrap(),
        AtLeastThree(4)
    );
    // The text is the wire: a u32 framed by hand reads as AtLeastThree.
    assert_eq!(framed::from_slice::<u32>(&bytes).unwrap(), 4);
}

#[test]
fn io_errors_keep_their_kind() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _buf: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let err = framed::from_reader::<_, Point>(Broken).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Io);
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _buf: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = framed::to_writer(Full, &Point { x: 1, y: 2 }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Io);
}

#[test]
fn to_extend_limits_the_value_not_the_header_and_keeps_the_buffer_on_error() {
    let p = Point { x: 9, y: -4 };
    // The value is 8 bytes: a limit of 8 passes although 24 bytes are added.
    let fits = Options::default().with_limit(8);
    let mut buf = vec![1, 2];
    Schema::new()
        .unwrap()
        .with_options(fits)
        .to_extend(&mut buf, &p)
        .unwrap();
    assert_eq!(buf[2..], framed::to_vec(&p).unwrap()[..]);
    let mut buf2 = vec![1, 2];
    Schema::<Point>::new()
        .unwrap()
        .with_options(fits)
        .to_extend(&mut buf2, &p)
        .unwrap();
    assert_eq!(buf2, buf);

    let tight = Options::default().with_limit(7);
    let mut buf = vec![1, 2];
    let err = Schema::new()
        .unwrap()
        .with_options(tight)
        .to_extend(&mut buf, &p)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Limit);
    assert_eq!(buf, [1, 2], "a failed encode leaves the buffer as it was");
}

/// `framed::to_slice` and `Schema::to_slice` write `to_vec`'s frame and
/// value into a fixed buffer; a short buffer is LIMIT at its end with the
/// size the frame and value need, and a schema's options apply.
#[test]
fn to_slice_writes_the_frame_or_reports_the_size_needed() {
    let p = Point { x: 9, y: -4 };
    let want = point_frame();
    let mut buf = [0xEEu8; 40];
    let n = framed::to_slice(&mut buf, &p).unwrap();
    assert_eq!(&buf[..n], &want[..]);
    let schema = Schema::<Point>::new().unwrap();
    let n = schema.to_slice(&mut buf, &p).unwrap();
    assert_eq!(&buf[..n], &want[..]);
    for short in 0..want.len() {
        for e in [
            framed::to_slice(&mut buf[..short], &p).unwrap_err(),
            schema.to_slice(&mut buf[..short], &p).unwrap_err(),
        ] {
            assert_eq!(
                e.detail(),
                kiln_serde::error::ErrorDetail::BufferFull(want.len() as u64)
            );
            expect(e, ErrorCode::Limit, short as u64);
        }
    }
    // The total limit counts the value, not the header.
    let tight = schema.clone().with_options(Options::new().with_limit(7));
    let e = tight.to_slice(&mut buf, &p).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    let fits = schema.with_options(Options::new().with_limit(8));
    assert_eq!(fits.to_slice(&mut buf, &p).unwrap(), want.len());
}
