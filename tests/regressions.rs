//! One test per crash found by fuzzing (`fuzz/`), with the input inline.
//!
//! Each test names the target and artifact it came from, what went wrong,
//! and what the decoder must do with those bytes. A test whose fix is still
//! open is `#[ignore]`d with the reason; `cargo test -- --ignored` runs it.

use std::collections::BTreeMap;

#[path = "support/spec_dir.rs"]
mod spec_dir;

/// Fuzz target `frozen`, artifact `crash-ca88e2af...` (minimized to 45
/// bytes in the `Borrowed` type; reduced here to its map field).
///
/// A `BTreeMap<&[u8], u8>`: serde serializes `&[u8]` as a *seq* of u8 but
/// deserializes it as *bytes*. The encoder sorts seq keys by their whole
/// encoding (count first); the decoder sorts bytes keys by content (spec
/// 2.1). So the decoder accepts keys `[00 02 00]`, `[01]` (content order)
/// and re-encoding writes `[01]` first: decode then encode is not the
/// identity, and the encoder's own output is rejected with TYPE.
/// `Vec<u8>` (seq both ways) and `serde_bytes::ByteBuf` (bytes both ways)
/// agree with themselves, but not with each other, although spec 4 gives
/// both the type text `list<u8>` and the same wire.
///
/// Fixed by amended spec 2.1: a seq of u8 is `list<u8>` like bytes, so a
/// key of either kind sorts by content without the count, in the encoder
/// (`ser/key.rs`) and the decoder (`de/key.rs`) alike.
#[test]
fn frozen_borrowed_byte_keys_sort_the_same_both_ways() {
    #[rustfmt::skip]
    let input: &[u8] = &[
        0x02, 0x00, 0x00, 0x00,                   // 2 entries
        0x03, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, // key [00 02 00]
        0x00,                                     // value 0
        0x01, 0x00, 0x00, 0x00, 0x01,             // key [01]
        0x00,                                     // value 0
    ];
    // Whatever the decoder accepts re-encodes to the same bytes.
    if let Ok(map) = kiln_serde::from_slice::<BTreeMap<&[u8], u8>>(input) {
        assert_eq!(kiln_serde::to_vec(&map).unwrap(), input);
    }
    // And what the encoder writes, the decoder reads.
    let map: BTreeMap<&[u8], u8> = BTreeMap::from([(&[1u8][..], 0), (&[0u8, 2, 0][..], 0)]);
    let bytes = kiln_serde::to_vec(&map).unwrap();
    let back: BTreeMap<&[u8], u8> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, map);
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Rec {
    id: u8,
    t: kiln_serde::tensors::Tensors,
    tail: String,
}

/// Fuzz target `tensors` (record mode), artifact `crash-5204a52a...`
/// (minimized to 33 bytes).
///
/// A record whose directory header promises more bytes than follow:
/// `from_slice`/`take_from_slice` report EOF at the header field that
/// promised them (payload_bytes, 16 bytes into the block: offset 17 here;
/// the count field, offset 9, when the descriptors are missing), as spec 7
/// and `Tensors::read_from` do. `from_reader` reported EOF at the start of
/// the block (offset 1) for both. Fixed in `IoRead::tensors_block`.
#[test]
fn tensors_stream_eof_offset_matches_the_slice() {
    use kiln_serde::ErrorCode;
    #[rustfmt::skip]
    let payload_missing: &[u8] = &[
        0x2a,                                           // id
        b'K', b'D', b'I', b'R', 0x02, 0x00, 0x01, 0x00, // magic, version 2, flags LE
        0x00, 0x00, 0x00, 0x00,                         // count 0
        0x00, 0x00, 0x00, 0x00,                         // heap_bytes 0
        0x00, 0x00, 0x00, 0x40, 0x61, 0x69, 0x00, 0x00, // payload_bytes (huge)
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // reserved
    ];
    #[rustfmt::skip]
    let descriptors_missing: &[u8] = &[
        0x2a,
        b'K', b'D', b'I', b'R', 0x02, 0x00, 0x01, 0x00,
        0x01, 0x00, 0x00, 0x00,                         // count 1, no descriptor follows
        0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];
    for (input, offset) in [(payload_missing, 17), (descriptors_missing, 9)] {
        let s = kiln_serde::from_slice::<Rec>(input).unwrap_err();
        assert_eq!(
            (s.code(), s.offset()),
            (ErrorCode::Eof, Some(offset)),
            "{s}"
        );
        let r = kiln_serde::from_reader::<_, Rec>(input).unwrap_err();
        assert_eq!(
            (r.code(), r.offset()),
            (ErrorCode::Eof, Some(offset)),
            "{r}"
        );
        // Split across reads, the same.
        let r = kiln_serde::from_reader::<_, Rec>(std::io::Read::chain(&input[..1], &input[1..]))
            .unwrap_err();
        assert_eq!(
            (r.code(), r.offset()),
            (ErrorCode::Eof, Some(offset)),
            "{r}"
        );
    }
}

/// Fuzz target `tensors` (record mode), artifact `crash-9d3a2855...`
/// (minimized to 33 bytes).
///
/// A header whose `P + payload_bytes` overflows u64 *and* whose 128
/// descriptors are missing. Spec 7 step 1 checks the descriptors and heap
/// (EOF at the count field, offset 9 here) before the payload length (EOF
/// at payload_bytes, 17); the slice does, `from_reader` reported 17 without
/// looking for the descriptors. Fixed in `IoRead::tensors_block`.
#[test]
fn tensors_stream_reports_missing_descriptors_before_payload_overflow() {
    use kiln_serde::ErrorCode;
    #[rustfmt::skip]
    let input: &[u8] = &[
        0x2a,                                           // id
        b'K', b'D', b'I', b'R', 0x02, 0x00, 0x01, 0x00, // magic, version 2, flags LE
        0x80, 0x00, 0x00, 0x00,                         // count 128
        0x00, 0x00, 0x00, 0x00,                         // heap_bytes 0
        0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // payload_bytes: P + it overflows
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // reserved
    ];
    let s = kiln_serde::from_slice::<Rec>(input).unwrap_err();
    assert_eq!((s.code(), s.offset()), (ErrorCode::Eof, Some(9)), "{s}");
    let r = kiln_serde::from_reader::<_, Rec>(input).unwrap_err();
    assert_eq!((r.code(), r.offset()), (ErrorCode::Eof, Some(9)), "{r}");

    // One byte short of the 128 descriptors is still the descriptors' EOF
    // (the reader must look for all 128 * 128 bytes, not fewer).
    let mut short = input.to_vec();
    short.resize(input.len() + 128 * 128 - 1, 0);
    let s = kiln_serde::from_slice::<Rec>(&short).unwrap_err();
    assert_eq!((s.code(), s.offset()), (ErrorCode::Eof, Some(9)), "{s}");
    let r = kiln_serde::from_reader::<_, Rec>(&short[..]).unwrap_err();
    assert_eq!((r.code(), r.offset()), (ErrorCode::Eof, Some(9)), "{r}");

    // With the descriptors present (zeroed), the overflow is what is left:
    // EOF at payload_bytes on both.
    let mut whole = input.to_vec();
    whole.resize(input.len() + 128 * 128, 0);
    let s = kiln_serde::from_slice::<Rec>(&whole).unwrap_err();
    assert_eq!((s.code(), s.offset()), (ErrorCode::Eof, Some(17)), "{s}");
    let r = kiln_serde::from_reader::<_, Rec>(&whole[..]).unwrap_err();
    assert_eq!((r.code(), r.offset()), (ErrorCode::Eof, Some(17)), "{r}");
}

/// Reported by the fuzzing session: `Tensors::read_from` must order a
/// missing descriptor table before a payload-size overflow (spec 7 step 1),
/// as `validate` and `from_reader` do: EOF at the count field, byte 8.
#[test]
fn read_from_reports_missing_descriptors_before_payload_overflow() {
    // 128 descriptors, none follow; P + payload_bytes overflows.
    let mut b = spec_dir::header(spec_dir::FLAG_LE, 128, 0, u64::MAX);
    // Slice and stream readers: both EOF at the count (offset 8).
    let eof_at_count = |b: &[u8]| {
        let slice = kiln_serde::tensors::validate(b, &Default::default()).unwrap_err();
        let stream = kiln_serde::Tensors::read_from(&mut &b[..], &Default::default()).unwrap_err();
        assert_eq!(
            (slice.code(), slice.offset()),
            (kiln_serde::ErrorCode::Eof, Some(8))
        );
        assert_eq!(
            (stream.code(), stream.offset()),
            (slice.code(), slice.offset())
        );
    };
    eof_at_count(&b);
    // One byte short of the descriptor table: still EOF at the count.
    b.resize(b.len() + 128 * 128 - 1, 0);
    eof_at_count(&b);
}
