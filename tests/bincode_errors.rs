//! `kiln_serde::bincode`'s errors as bincode 1.3 users meet them: each
//! `ErrorKind` a user can hit, matched exhaustively, with kiln's code and
//! offset kept underneath. (Split from `bincode_compat.rs`.)

use std::io::{self, Read, Write};

use kiln_serde::bincode::config::{
    AllowTrailing, BigEndian, Bounded, FixintEncoding, Infinite, LittleEndian, NativeEndian,
    RejectTrailing, VarintEncoding, WithOtherEndian, WithOtherIntEncoding, WithOtherLimit,
    WithOtherTrailing,
};
use kiln_serde::bincode::{self, DefaultOptions, ErrorKind, Options};
use serde::{Deserialize, Serialize};

#[path = "support/chunky.rs"]
mod chunky;
use chunky::Chunky;
#[path = "support/even.rs"]
mod even;
use even::Even;

/// An enum of four variants: tags 0-3 are valid, 4 and up are not.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Four {
    A,
    B(u8),
    C(u16),
    D(bool),
}

// ---------------------------------------------------------------- error kinds

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    A(u8),
    B(String),
}

struct Refuses;

impl Serialize for Refuses {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("nope, not today"))
    }
}

#[test]
fn invalid_bool_encoding() {
    let err = bincode::deserialize::<bool>(&[2]).unwrap_err();
    assert!(matches!(*err, ErrorKind::InvalidBoolEncoding(2)), "{err:?}");
    let err = DefaultOptions::new()
        .deserialize::<(u8, bool)>(&[0, 0xfe])
        .unwrap_err();
    assert!(matches!(*err, ErrorKind::InvalidBoolEncoding(0xfe)));
    let err =
        bincode::deserialize_from::<_, Vec<bool>>(Chunky::new(&[2, 0, 0, 0, 1, 7])).unwrap_err();
    assert!(matches!(*err, ErrorKind::InvalidBoolEncoding(7)));
}

#[test]
fn invalid_tag_encoding() {
    let err = bincode::deserialize::<Option<u8>>(&[7, 1]).unwrap_err();
    assert!(matches!(*err, ErrorKind::InvalidTagEncoding(7)), "{err:?}");
    let err = bincode::deserialize_from::<_, (u8, Option<String>)>(&[1, 0xff][..]).unwrap_err();
    assert!(matches!(*err, ErrorKind::InvalidTagEncoding(255)));
}

#[test]
fn invalid_char_encoding() {
    for v in [0xd800u32, 0xdfff, 0x11_0000, u32::MAX] {
        let bytes = v.to_le_bytes();
        let err = bincode::deserialize::<char>(&bytes).unwrap_err();
        assert!(matches!(*err, ErrorKind::InvalidCharEncoding), "{err:?}");
        let err = bincode::deserialize_from::<_, char>(&bytes[..]).unwrap_err();
        assert!(matches!(*err, ErrorKind::InvalidCharEncoding));
    }
}

#[test]
fn invalid_utf8_encoding() {
    let bytes = [3, 0, 0, 0, b'a', 0xff, b'b'];
    let std_err = std::str::from_utf8(&bytes[4..]).unwrap_err();
    for err in [
        bincode::deserialize::<String>(&bytes).unwrap_err(),
        bincode::deserialize::<&str>(&bytes).unwrap_err(),
        DefaultOptions::new()
            .deserialize::<String>(&bytes)
            .unwrap_err(),
    ] {
        match *err {
            ErrorKind::InvalidUtf8Encoding(e) => assert_eq!(e, std_err),
            ref other => panic!("{other:?}"),
        }
    }
    // From a stream: same position.
    let err = bincode::deserialize_from::<_, String>(Chunky::new(&bytes)).unwrap_err();
    match *err {
        ErrorKind::InvalidUtf8Encoding(e) => assert_eq!(e.valid_up_to(), 1),
        ref other => panic!("{other:?}"),
    }
    // Deeper in a value: the slice's own error.
    let mut nested = bincode::serialize(&(1u64, "fine".to_string())).unwrap();
    let bad = [b'o', b'k', 0xe2, 0x82];
    nested.extend_from_slice(&4u32.to_le_bytes());
    nested.extend_from_slice(&bad);
    let err = bincode::deserialize::<(u64, String, String)>(&nested).unwrap_err();
    match *err {
        ErrorKind::InvalidUtf8Encoding(e) => {
            assert_eq!(
                e,
                std::str::from_utf8(&nested[nested.len() - 4..]).unwrap_err()
            )
        }
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn size_limit_from_nesting() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum List {
        Nil,
        Cons(Box<List>),
    }
    let mut bytes = Vec::new();
    for _ in 0..500 {
        bytes.extend_from_slice(&1u32.to_le_bytes());
    }
    bytes.extend_from_slice(&0u32.to_le_bytes());
    // The module's own cap (2048) is tested in bincode_depth.rs, on a
    // thread with a main thread's stack.
    use kiln_serde::bincode::KilnOptionsExt;
    let opts = bincode::options().with_max_depth(128);
    let err = opts.deserialize::<List>(&bytes).unwrap_err();
    assert!(matches!(*err, ErrorKind::SizeLimit), "{err:?}");
}

#[test]
fn deserialize_any_not_supported() {
    let bytes = bincode::serialize(&Untagged::A(1)).unwrap();
    let err = bincode::deserialize::<Untagged>(&bytes).unwrap_err();
    assert!(
        matches!(*err, ErrorKind::DeserializeAnyNotSupported),
        "{err:?}"
    );
    let err = bincode::deserialize::<serde_json::Value>(&[0, 0, 0, 0]).unwrap_err();
    assert!(matches!(*err, ErrorKind::DeserializeAnyNotSupported));
    let err = DefaultOptions::new()
        .deserialize_from::<_, serde_json::Value>(&[1u8][..])
        .unwrap_err();
    assert!(matches!(*err, ErrorKind::DeserializeAnyNotSupported));
}

struct FailingWriter;

impl Write for FailingWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "peer went away"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct FailingReader;

impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::ConnectionReset, "reset"))
    }
}

#[test]
fn io_errors_are_passed_through() {
    let err = bincode::serialize_into(FailingWriter, &"hello").unwrap_err();
    assert!(
        matches!(*err, ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::BrokenPipe),
        "{err:?}"
    );
    let err = bincode::deserialize_from::<_, u32>(FailingReader).unwrap_err();
    assert!(matches!(*err, ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::ConnectionReset));
    let err = DefaultOptions::new()
        .serialize_into(FailingWriter, &1u8)
        .unwrap_err();
    assert!(matches!(*err, ErrorKind::Io(_)));
    use std::error::Error as _;
    assert!(err.source().is_some());
}

#[test]
fn custom_errors_keep_kilns_code_and_offset() {
    // An enum variant index the type does not have (bincode: Custom too).
    let err = bincode::deserialize::<(u8, Four)>(&[0, 9, 0, 0, 0]).unwrap_err();
    match *err {
        ErrorKind::Custom(ref m) => {
            assert!(m.starts_with("TYPE at byte 1:"), "{m}");
            assert!(m.contains("variant index 9"), "{m}");
        }
        ref other => panic!("{other:?}"),
    }
    // A type's own Deserialize refusing a value.
    let err = bincode::deserialize::<Even>(&[3, 0, 0, 0]).unwrap_err();
    match *err {
        ErrorKind::Custom(ref m) => assert_eq!(m, "MESSAGE at byte 4: 3 is odd"),
        ref other => panic!("{other:?}"),
    }
    // A type's own Serialize refusing.
    for err in [
        bincode::serialize(&Refuses).unwrap_err(),
        bincode::serialized_size(&Refuses).unwrap_err(),
        bincode::serialize_into(Vec::new(), &Refuses).unwrap_err(),
        bincode::options()
            .with_limit(10)
            .serialize(&Refuses)
            .unwrap_err(),
    ] {
        assert!(
            matches!(*err, ErrorKind::Custom(ref m) if m.contains("nope, not today")),
            "{err:?}"
        );
    }
}

/// Written as bincode users write it: an exhaustive match on `*err`.
fn describe(err: &bincode::Error) -> &'static str {
    match **err {
        ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::UnexpectedEof => "eof",
        ErrorKind::Io(_) => "io",
        ErrorKind::InvalidUtf8Encoding(_) => "utf8",
        ErrorKind::InvalidBoolEncoding(_) => "bool",
        ErrorKind::InvalidCharEncoding => "char",
        ErrorKind::InvalidTagEncoding(_) => "tag",
        ErrorKind::DeserializeAnyNotSupported => "any",
        ErrorKind::SizeLimit => "limit",
        ErrorKind::SequenceMustHaveLength => "seq",
        ErrorKind::Custom(_) => "custom",
    }
}

#[test]
fn each_kind_through_an_exhaustive_match() {
    assert_eq!(
        describe(&bincode::deserialize::<u32>(&[1]).unwrap_err()),
        "eof"
    );
    assert_eq!(
        describe(&bincode::deserialize_from::<_, u8>(FailingReader).unwrap_err()),
        "io"
    );
    assert_eq!(
        describe(&bincode::deserialize::<String>(&[1, 0, 0, 0, 0x80]).unwrap_err()),
        "utf8"
    );
    assert_eq!(
        describe(&bincode::deserialize::<bool>(&[3]).unwrap_err()),
        "bool"
    );
    assert_eq!(
        describe(&bincode::deserialize::<char>(&[0, 0xd8, 0, 0]).unwrap_err()),
        "char"
    );
    assert_eq!(
        describe(&bincode::deserialize::<Option<()>>(&[2]).unwrap_err()),
        "tag"
    );
    assert_eq!(
        describe(&bincode::deserialize::<Untagged>(&[0]).unwrap_err()),
        "any"
    );
    assert_eq!(
        describe(
            &bincode::options()
                .with_limit(1)
                .serialize(&7u16)
                .unwrap_err()
        ),
        "limit"
    );
    assert_eq!(
        describe(&bincode::deserialize::<Four>(&[4, 0, 0, 0]).unwrap_err()),
        "custom"
    );
}

#[test]
fn error_type_traits() {
    fn std_error<E: std::error::Error + Send + Sync + 'static>() {}
    std_error::<bincode::Error>();
    std_error::<ErrorKind>();

    fn run() -> Result<u8, Box<dyn std::error::Error + Send + Sync>> {
        Ok(bincode::deserialize::<u8>(&[])?)
    }
    assert!(run().unwrap_err().to_string().contains("io error"));

    let e: bincode::Error = io::Error::other("x").into();
    assert!(matches!(*e, ErrorKind::Io(_)));
    let e = <bincode::Error as serde::de::Error>::custom("de says");
    assert!(matches!(*e, ErrorKind::Custom(ref m) if m == "de says"));
    let e = <bincode::Error as serde::ser::Error>::custom("ser says");
    assert_eq!(e.to_string(), "ser says");

    // Kiln errors convert too.
    let kiln = kiln_serde::from_slice::<bool>(&[9]).unwrap_err();
    let e: bincode::Error = kiln.into();
    assert!(matches!(*e, ErrorKind::InvalidBoolEncoding(9)));

    assert_eq!(
        ErrorKind::InvalidBoolEncoding(4).to_string(),
        "invalid u8 while decoding bool, expected 0 or 1, found 4"
    );
    assert_eq!(
        ErrorKind::SizeLimit.to_string(),
        "the size limit has been reached"
    );
    assert!(format!("{:?}", ErrorKind::InvalidTagEncoding(3)).contains("InvalidTagEncoding(3)"));
}

// ---------------------------------------------------------------- the types

type Limited = WithOtherLimit<DefaultOptions, Bounded>;
type Wire = WithOtherTrailing<
    WithOtherIntEncoding<WithOtherEndian<Limited, LittleEndian>, FixintEncoding>,
    AllowTrailing,
>;
type Odd = WithOtherTrailing<
    WithOtherIntEncoding<
        WithOtherEndian<WithOtherLimit<DefaultOptions, Infinite>, BigEndian>,
        VarintEncoding,
    >,
    RejectTrailing,
>;

fn limited(n: u64) -> Limited {
    DefaultOptions::new().with_limit(n)
}

struct Codec {
    opts: Wire,
    other: Odd,
    native: WithOtherEndian<DefaultOptions, NativeEndian>,
}

impl Codec {
    fn new() -> Self {
        Codec {
            opts: limited(64)
                .with_little_endian()
                .with_fixint_encoding()
                .allow_trailing_bytes(),
            other: bincode::options()
                .with_no_limit()
                .with_big_endian()
                .with_varint_encoding()
                .reject_trailing_bytes(),
            native: DefaultOptions::new().with_native_endian(),
        }
    }
}

fn encode_generic<O: Options, T: Serialize>(o: O, v: &T) -> bincode::Result<Vec<u8>> {
    o.serialize(v)
}

#[test]
fn option_types_can_be_named() {
    let c = Codec::new();
    let bytes = c.opts.serialize(&(1u8, "x")).unwrap();
    assert_eq!(c.other.serialize(&(1u8, "x")).unwrap(), bytes);
    assert_eq!(c.native.serialize(&(1u8, "x")).unwrap(), bytes);
    assert_eq!(encode_generic(c.opts, &(1u8, "x")).unwrap(), bytes);
    assert!(matches!(
        *c.opts.serialize(&vec![0u8; 61]).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert_eq!(Bounded(5).0, 5);
    let _ = Infinite;

    // `&mut O` is Options too, as in bincode 1.3.
    let mut o = DefaultOptions::new();
    let by_ref: &mut DefaultOptions = &mut o;
    assert_eq!(encode_generic(by_ref, &2u8).unwrap(), [2]);
    let v: u8 = (&mut o)
        .allow_trailing_bytes()
        .deserialize(&[2, 3])
        .unwrap();
    assert_eq!(v, 2);
}
