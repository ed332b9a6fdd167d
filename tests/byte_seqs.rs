//! `Vec<u8>`, `[u8]`, `Vec<bool>` and `[bool]` reach the serializer through
//! `collect_seq`, which appends their bytes with one copy. Every output path
//! must give the bytes, sizes and errors of the element-by-element path,
//! which an iterator (not a slice or `Vec`) still takes.

use kiln_serde::{ErrorCode, Options};
use serde::{Serialize, Serializer};

/// The same sequence, handed to `collect_seq` as an iterator: one
/// `serialize_element` per item.
struct Each<'a, T>(&'a [T]);

impl<T: Serialize> Serialize for Each<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

#[derive(Serialize)]
struct Record<'a> {
    tag: u8,
    bytes: Vec<u8>,
    borrowed: &'a [u8],
    flags: Vec<bool>,
    boxed: Box<[u8]>,
    boxed_flags: Box<[bool]>,
    tail: u16,
}

#[derive(Serialize)]
struct RecordEach<'a> {
    tag: u8,
    bytes: Each<'a, u8>,
    borrowed: Each<'a, u8>,
    flags: Each<'a, bool>,
    boxed: Each<'a, u8>,
    boxed_flags: Each<'a, bool>,
    tail: u16,
}

fn pair(n: usize) -> (Vec<u8>, Vec<bool>) {
    let bytes: Vec<u8> = (0..n).map(|i| (i * 31 + 7) as u8).collect();
    let flags: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
    (bytes, flags)
}

fn check(n: usize) {
    let (bytes, flags) = pair(n);
    let fast = Record {
        tag: 9,
        bytes: bytes.clone(),
        borrowed: &bytes,
        flags: flags.clone(),
        boxed: bytes.clone().into_boxed_slice(),
        boxed_flags: flags.clone().into_boxed_slice(),
        tail: 0xbeef,
    };
    let each = RecordEach {
        tag: 9,
        bytes: Each(&bytes),
        borrowed: Each(&bytes),
        flags: Each(&flags),
        boxed: Each(&bytes),
        boxed_flags: Each(&flags),
        tail: 0xbeef,
    };
    let want = kiln_serde::to_vec(&each).unwrap();
    // Spec 2: a count, then one byte per element; bools are 0 or 1.
    let mut by_hand = vec![9u8];
    for _ in 0..2 {
        by_hand.extend_from_slice(&(n as u32).to_le_bytes());
        by_hand.extend_from_slice(&bytes);
    }
    by_hand.extend_from_slice(&(n as u32).to_le_bytes());
    by_hand.extend(flags.iter().map(|&b| u8::from(b)));
    by_hand.extend_from_slice(&(n as u32).to_le_bytes());
    by_hand.extend_from_slice(&bytes);
    by_hand.extend_from_slice(&(n as u32).to_le_bytes());
    by_hand.extend(flags.iter().map(|&b| u8::from(b)));
    by_hand.extend_from_slice(&0xbeefu16.to_le_bytes());
    assert_eq!(want, by_hand, "n {n}: the element path");

    assert_eq!(kiln_serde::to_vec(&fast).unwrap(), want, "n {n}: to_vec");
    let mut out = vec![0xaa; 3];
    kiln_serde::to_extend(&mut out, &fast).unwrap();
    assert_eq!(&out[3..], &want[..], "n {n}: to_extend");
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &fast).unwrap();
    assert_eq!(w, want, "n {n}: to_writer");
    let mut buf = vec![0u8; want.len()];
    assert_eq!(kiln_serde::to_slice(&mut buf, &fast).unwrap(), want.len());
    assert_eq!(buf, want, "n {n}: to_slice");
    assert_eq!(
        kiln_serde::serialized_size(&fast).unwrap(),
        want.len() as u64,
        "n {n}: serialized_size"
    );
    // A slice one byte short: the same LIMIT and the same size needed.
    let short = want.len() - 1;
    let e_fast = kiln_serde::to_slice(&mut buf[..short], &fast).unwrap_err();
    let e_each = kiln_serde::to_slice(&mut buf[..short], &each).unwrap_err();
    assert_eq!(e_fast.code(), ErrorCode::Limit);
    assert_eq!(format!("{e_fast:?}"), format!("{e_each:?}"), "n {n}");
    // Under a total limit one byte short: the same error on every path.
    let opts = Options::new().with_limit(short as u64);
    let e_fast = opts.to_vec(&fast).unwrap_err();
    let e_each = opts.to_vec(&each).unwrap_err();
    assert_eq!(e_fast.code(), ErrorCode::Limit);
    assert_eq!(
        format!("{e_fast:?}"),
        format!("{e_each:?}"),
        "n {n}: to_vec limit"
    );
    let e_fast = opts.to_writer(Vec::new(), &fast).unwrap_err();
    let e_each = opts.to_writer(Vec::new(), &each).unwrap_err();
    assert_eq!(e_fast.code(), ErrorCode::Limit, "n {n}: to_writer limit");
    assert_eq!(e_each.code(), ErrorCode::Limit);
}

#[test]
fn byte_and_bool_sequences_write_the_element_bytes() {
    // Empty, short, and above the 64 KiB the writer path flushes at.
    for n in [0, 1, 5, 64, 70_000, 200_000] {
        check(n);
    }
}

#[test]
fn a_byte_sequence_is_one_level_of_nesting() {
    // Spec 6: the sequence takes a level; its bytes do not.
    let v: Vec<Vec<u8>> = vec![vec![1, 2, 3]];
    let each: Vec<Each<u8>> = v.iter().map(|x| Each(x)).collect();
    for depth in 0..4 {
        let opts = Options::new().with_max_depth(depth);
        let fast = opts.to_vec(&v).map_err(|e| format!("{e:?}"));
        let slow = opts.to_vec(&each).map_err(|e| format!("{e:?}"));
        assert_eq!(fast, slow, "depth {depth}");
        assert_eq!(fast.is_ok(), depth >= 2, "depth {depth}");
        let size = opts.serialized_size(&v).map_err(|e| format!("{e:?}"));
        assert_eq!(size.is_ok(), depth >= 2, "depth {depth}");
    }
}

#[test]
fn a_byte_sequence_round_trips() {
    let (bytes, flags) = pair(1000);
    let enc = kiln_serde::to_vec(&(&bytes, &flags)).unwrap();
    let (b, f): (Vec<u8>, Vec<bool>) = kiln_serde::from_slice(&enc).unwrap();
    assert_eq!((b, f), (bytes, flags));
}

/// A user's visitor whose output type is `Vec<u8>` / `Vec<bool>` but which
/// does something of its own with the elements: the decoder must call it,
/// not build the vector itself.
struct Each2<T>(Vec<T>);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Each2<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = a.next_element()? {
                    out.insert(0, x); // reversed: proof this visitor ran
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData)).map(Each2)
    }
}

fn errors_agree<F: serde::de::DeserializeOwned, S: serde::de::DeserializeOwned>(
    bytes: &[u8],
    opts: &Options,
) -> String {
    let fast = opts.from_slice::<F>(bytes).err().map(|e| format!("{e:?}"));
    let slow = opts.from_slice::<S>(bytes).err().map(|e| format!("{e:?}"));
    assert_eq!(fast, slow, "bytes {bytes:02x?}");
    // A stream reads element by element in both cases.
    let streamed = opts
        .from_reader::<_, F>(bytes)
        .err()
        .map(|e| format!("{e:?}"));
    let streamed_slow = opts
        .from_reader::<_, S>(bytes)
        .err()
        .map(|e| format!("{e:?}"));
    assert_eq!(streamed, streamed_slow, "bytes {bytes:02x?}");
    fast.unwrap_or_default()
}

#[test]
fn a_byte_vec_decodes_as_its_elements_would() {
    let (bytes, flags) = pair(300);
    // The value: through serde's `Vec` (the one-copy path), a user's
    // visitor (the element path: reversed), and a stream.
    let enc = kiln_serde::to_vec(&(&bytes, &flags)).unwrap();
    let got: (Vec<u8>, Vec<bool>) = kiln_serde::from_slice(&enc).unwrap();
    assert_eq!(got, (bytes.clone(), flags.clone()));
    let each: (Each2<u8>, Each2<bool>) = kiln_serde::from_slice(&enc).unwrap();
    let (mut rb, mut rf) = (bytes.clone(), flags.clone());
    rb.reverse();
    rf.reverse();
    assert_eq!((each.0 .0, each.1 .0), (rb, rf));
    let streamed: (Vec<u8>, Vec<bool>) = kiln_serde::from_reader(&enc[..]).unwrap();
    assert_eq!(streamed, (bytes, flags));

    let opts = Options::new();
    // A bool byte above 1, first, in the middle, last: TYPE at its offset.
    for at in [0usize, 2, 4] {
        let mut b = vec![5, 0, 0, 0, 1, 0, 1, 1, 0];
        b[4 + at] = 2;
        let e = errors_agree::<Vec<bool>, Each2<bool>>(&b, &opts);
        assert!(e.contains("TYPE"), "{e}");
        let err = opts.from_slice::<Vec<bool>>(&b).unwrap_err();
        assert_eq!(err.offset(), Some(4 + at as u64));
    }
    // Short input, empty input, a count alone, trailing bytes.
    for b in [
        &[9u8, 0, 0, 0, 1, 2, 3][..],
        &[][..],
        &[3, 0][..],
        &[0, 0, 0, 0][..],
        &[1, 0, 0, 0, 1, 1][..],
    ] {
        errors_agree::<Vec<u8>, Each2<u8>>(b, &opts);
        errors_agree::<Vec<bool>, Each2<bool>>(b, &opts);
    }
    // The caps: count, depth, a total limit that cuts the bytes.
    let b = [4u8, 0, 0, 0, 1, 0, 1, 0];
    for opts in [
        Options::new().with_max_count(3),
        Options::new().with_max_depth(0),
        Options::new().with_limit(6),
    ] {
        let e = errors_agree::<Vec<u8>, Each2<u8>>(&b, &opts);
        assert!(e.contains("LIMIT"), "{e}");
        errors_agree::<Vec<bool>, Each2<bool>>(&b, &opts);
    }
}
