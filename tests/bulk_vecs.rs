//! A `Vec` of fixed-width elements read from a slice through serde's own
//! visitor is decoded with one copy (src/de/bytes.rs); from a stream, one
//! of 32 or more is copied in bounded chunks and decoded as a slice. Each
//! case decodes the same bytes those ways and by the element path (from a
//! slice into a newtype element, and a stream's short `Vec`s), and
//! requires the same value or the same error: code, offset and text (a
//! stream words its EOF message differently), and the same again as a
//! tuple's field.

use std::fmt::Debug;

use kiln_serde::de::Deserializer;
use kiln_serde::{Error, ErrorCode, Limits};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct One<E>(E);

fn outcome<T: Debug>(r: Result<T, Error>) -> Result<String, (ErrorCode, Option<u64>, String)> {
    r.map(|v| format!("{v:?}"))
        .map_err(|e| (e.code(), e.offset(), e.to_string()))
}

/// Every cut of `bytes` decodes the same ways, under the default limits
/// and under a depth cap of 0 (the `Vec` itself is one level too many).
fn agree<E: DeserializeOwned + Debug>(bytes: &[u8]) {
    let slice = |input: &[u8], limits: &Limits| {
        outcome(Vec::<E>::deserialize(&mut Deserializer::from_slice(
            input, limits,
        )))
    };
    // A field of a struct or tuple (src/de/fields.rs: serde's visitor
    // known from the field's type, not asked of it).
    let field = |input: &[u8], limits: &Limits| {
        outcome(<(Vec<E>,)>::deserialize(&mut Deserializer::from_slice(input, limits)).map(|t| t.0))
    };
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        let what = format!("{} from {input:02x?}", std::any::type_name::<E>());
        let limits = Limits::DEFAULT;
        let bulk = slice(input, &limits);
        let stream = outcome(Vec::<E>::deserialize(&mut Deserializer::from_reader(
            input, &limits,
        )));
        let newtype = outcome(
            Vec::<One<E>>::deserialize(&mut Deserializer::from_slice(input, &limits))
                .map(|v| v.into_iter().map(|e| e.0).collect::<Vec<E>>()),
        );
        let field_stream = outcome(
            <(Vec<E>,)>::deserialize(&mut Deserializer::from_reader(input, &limits)).map(|t| t.0),
        );
        assert_eq!(field(input, &limits), bulk, "{what}");
        assert_eq!(field_stream, stream, "{what}");
        // The bincode module's stream reader (over a `BincodeRead`) reads
        // a stream's elements the same way: same value, or both fail.
        let b1 = kiln_serde::bincode::deserialize_from::<_, Vec<E>>(input);
        match (&b1, &stream) {
            (Ok(v), Ok(s)) => assert_eq!(&format!("{v:?}"), s, "{what}: bincode"),
            (Err(_), Err(_)) => {}
            _ => panic!("{what}: bincode {b1:?} / stream {stream:?}"),
        }
        // A stream words its EOF differently: code and offset agree.
        let code_at = |r: &Result<String, (ErrorCode, Option<u64>, String)>| {
            r.clone().map_err(|(c, at, _)| (c, at))
        };
        assert_eq!(code_at(&bulk), code_at(&stream), "{what}");
        assert_eq!(bulk, newtype, "{what}");
        let flat = Limits::DEFAULT.with_max_depth(0);
        assert_eq!(field(input, &flat), slice(input, &flat), "{what}, depth 0");
        if cut >= 4 {
            assert_eq!(
                slice(input, &flat).map_err(|e| e.0),
                Err(ErrorCode::Limit),
                "{what}"
            );
        }
    }
}

/// `values` round-trips bit for bit, and its bytes (and every cut of
/// them) decode as the element path decodes them.
fn check<E: Serialize + DeserializeOwned + Debug + Copy>(
    values: Vec<E>,
    bits: impl Fn(&E) -> u128,
) {
    // Short vectors are written one element at a time, long ones in bulk.
    let long: Vec<E> = values.iter().cycle().take(40).copied().collect();
    check_one(values, &bits);
    check_one(long, &bits);
}

fn check_one<E: Serialize + DeserializeOwned + Debug>(values: Vec<E>, bits: impl Fn(&E) -> u128) {
    let bytes = kiln_serde::to_vec(&values).unwrap();
    // The encoder's bulk path (a `Vec` or slice) writes what one call per
    // element writes (newtype elements, a `VecDeque`), in every form.
    let deque: std::collections::VecDeque<&E> = values.iter().collect();
    let ones: Vec<One<&E>> = values.iter().map(One).collect();
    assert_eq!(kiln_serde::to_vec(&deque).unwrap(), bytes);
    assert_eq!(kiln_serde::to_vec(&ones).unwrap(), bytes);
    assert_eq!(kiln_serde::to_vec(&values[..]).unwrap(), bytes);
    assert_eq!(
        kiln_serde::serialized_size(&values).unwrap(),
        bytes.len() as u64
    );
    let mut out = vec![0xAA];
    kiln_serde::to_extend(&mut out, &values).unwrap();
    assert_eq!(out[1..], bytes[..]);
    let mut buf = vec![0u8; bytes.len()];
    assert_eq!(
        kiln_serde::to_slice(&mut buf, &values).unwrap(),
        bytes.len()
    );
    assert_eq!(buf, bytes);
    // Under a size limit or a depth cap: the same errors.
    for limit in 0..=bytes.len() as u64 {
        let opts = kiln_serde::Options::new().with_limit(limit);
        assert_eq!(
            outcome(opts.to_vec(&values)),
            outcome(opts.to_vec(&deque)),
            "limit {limit}"
        );
    }
    let opts = kiln_serde::Options::new().with_max_depth(0);
    assert_eq!(outcome(opts.to_vec(&values)), outcome(opts.to_vec(&deque)));
    let back: Vec<E> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(
        back.iter().map(&bits).collect::<Vec<_>>(),
        values.iter().map(&bits).collect::<Vec<_>>()
    );
    agree::<E>(&bytes);
}

#[test]
fn fixed_width_vecs_decode_as_the_element_path_does() {
    check(vec![i8::MIN, -1, 0, 1, i8::MAX], |v| *v as u8 as u128);
    check(vec![0u16, 1, 0x1234, u16::MAX], |v| u128::from(*v));
    check(vec![i16::MIN, -2, 0, i16::MAX], |v| *v as u16 as u128);
    check(vec![0u32, 7, 0xdead_beef, u32::MAX], |v| u128::from(*v));
    check(vec![i32::MIN, -3, 0, i32::MAX], |v| *v as u32 as u128);
    check(vec![0u64, 9, u64::MAX], |v| u128::from(*v));
    check(vec![i64::MIN, -4, i64::MAX], |v| *v as u64 as u128);
    check(vec![0u128, 1 << 100, u128::MAX], |v| *v);
    check(vec![i128::MIN, -5, i128::MAX], |v| *v as u128);
    let nan = f32::from_bits(0x7fc0_1234);
    check(
        vec![
            0.0f32,
            -0.0,
            1.5,
            f32::INFINITY,
            nan,
            f32::MIN_POSITIVE / 2.0,
        ],
        |v| u128::from(v.to_bits()),
    );
    let nan = f64::from_bits(0xfff8_0000_0000_0042);
    check(vec![0.0f64, -0.0, -2.25, f64::NEG_INFINITY, nan], |v| {
        u128::from(v.to_bits())
    });
    check(Vec::<u32>::new(), |v| u128::from(*v));
    check(vec![true, false, true], |v| u128::from(*v));
    check(vec![0u8, 255], |v| u128::from(*v));
}

#[test]
fn counts_past_the_input_and_bad_bools_fail_as_the_element_path_does() {
    // A count of 3 with 2 elements' bytes, a count the input cannot hold
    // at any width, and a bool byte of 2 in the middle.
    agree::<u32>(&[3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    agree::<f64>(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8]);
    agree::<u128>(&[0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0]);
    agree::<bool>(&[3, 0, 0, 0, 1, 2, 0]);
    // The same at 40 elements, where a stream copies them in bulk
    // (`Read::take_elements`): every cut, a bad bool before or after it.
    let mut long = vec![40, 0, 0, 0];
    long.extend((0..20).map(|i| i % 2));
    long.push(2);
    long.extend([1; 19]);
    agree::<bool>(&long);
    let mut long = vec![40, 0, 0, 0];
    long.extend((0u32..10).flat_map(u32::to_le_bytes));
    agree::<u32>(&long);
    let e = kiln_serde::from_slice::<Vec<bool>>(&[3, 0, 0, 0, 1, 2, 0]).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(5)));
}

/// A reader that hands out at most `.1` bytes per call.
struct Chunks<'a>(&'a [u8], usize);

impl std::io::Read for Chunks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// A stream's long `Vec` is copied 4 KiB first, then in doubling chunks
/// up to 64 KiB: cut before, inside and after the chunk edges (inside an
/// element too), and read in pieces of every size, it gives what the
/// slice gives: the value, or EOF at the first element not whole, or a
/// bad bool's TYPE where one came before the cut.
#[test]
fn a_long_vec_from_a_stream_agrees_across_its_chunks() {
    fn same<E: DeserializeOwned + Debug + PartialEq>(bytes: &[u8], cuts: &[usize]) {
        for &cut in cuts.iter().chain([&bytes.len()]) {
            let input = &bytes[..cut];
            let slice = kiln_serde::from_slice::<Vec<E>>(input);
            for piece in [1, 1000, 5000, usize::MAX] {
                let stream = kiln_serde::from_reader::<_, Vec<E>>(Chunks(input, piece));
                match (&slice, &stream) {
                    (Ok(a), Ok(b)) => assert!(a == b, "cut {cut}, pieces of {piece}"),
                    (Err(a), Err(b)) => assert_eq!(
                        (a.code(), a.offset()),
                        (b.code(), b.offset()),
                        "cut {cut}, pieces of {piece}: {a} / {b}"
                    ),
                    _ => panic!("cut {cut}, pieces of {piece}: {slice:?} / {stream:?}"),
                }
            }
        }
    }
    let words: Vec<u32> = (0..40_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let bytes = kiln_serde::to_vec(&words).unwrap();
    let edges = [
        4, 5, 4099, 4100, 4101, 12_293, 12_294, 28_678, 65_540, 131_075, 160_003,
    ];
    same::<u32>(&bytes, &edges);
    // The value after the `Vec` is read from where the `Vec` ends.
    let pair = kiln_serde::to_vec(&(&words, 0xbeef_u16)).unwrap();
    for piece in [777, usize::MAX] {
        let back: (Vec<u32>, u16) = kiln_serde::from_reader(Chunks(&pair, piece)).unwrap();
        assert!(back == (words.clone(), 0xbeef), "pieces of {piece}");
    }
    let e = kiln_serde::from_reader::<_, Vec<u32>>(&bytes[..70_001]).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (ErrorCode::Eof, Some(70_000)),
        "{e}"
    );
    let mut flags = kiln_serde::to_vec(&vec![true; 20_000]).unwrap();
    flags[4 + 9_000] = 2;
    same::<bool>(&flags, &[4, 4100, 9_003, 9_004, 9_005, 16_000]);
}
