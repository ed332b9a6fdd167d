//! A struct's or tuple's `Option<P>` field, `P` a bool, an integer, a
//! float, a `&str` or a `String`, is decoded inline (src/de/fields.rs), not through
//! serde's `Option` impl. Each case decodes the same bytes as a 1-tuple's
//! field (the inline path) and as a bare `Option<P>` (serde's impl and
//! `deserialize_option`), from a slice and from a stream, for every cut of
//! the bytes, every byte replaced by a few others, and depth caps 0 and 1,
//! and requires the same value or the same error: code, offset and text.

use std::fmt::Debug;

use kiln_serde::de::Deserializer;
use kiln_serde::{Error, ErrorCode, Limits};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

type Outcome = Result<String, (ErrorCode, Option<u64>, String)>;

fn outcome<T: Debug>(r: Result<T, Error>) -> Outcome {
    r.map(|v| format!("{v:?}"))
        .map_err(|e| (e.code(), e.offset(), e.to_string()))
}

/// `bytes` decode the same as a field and as a bare option.
fn agree<P: DeserializeOwned + Debug>(bytes: &[u8], limits: &Limits) {
    let name = std::any::type_name::<P>();
    let field = outcome(
        <(Option<P>,)>::deserialize(&mut Deserializer::from_slice(bytes, limits)).map(|t| t.0),
    );
    let bare = outcome(Option::<P>::deserialize(&mut Deserializer::from_slice(
        bytes, limits,
    )));
    assert_eq!(field, bare, "{name}, slice {bytes:02x?}");
    let field = outcome(
        <(Option<P>,)>::deserialize(&mut Deserializer::from_reader(bytes, limits)).map(|t| t.0),
    );
    let bare = outcome(Option::<P>::deserialize(&mut Deserializer::from_reader(
        bytes, limits,
    )));
    assert_eq!(field, bare, "{name}, stream {bytes:02x?}");
}

/// Every cut and every one-byte change of each value's bytes, under the
/// default limits and depth caps 0 and 1.
fn check<P: Serialize + DeserializeOwned + Debug>(values: &[Option<P>]) {
    let caps = [
        Limits::DEFAULT,
        Limits::DEFAULT.with_max_depth(0),
        Limits::DEFAULT.with_max_depth(1),
    ];
    for v in values {
        let bytes = kiln_serde::to_vec(v).unwrap();
        // The round trip through the field path.
        let (back,): (Option<P>,) = kiln_serde::from_slice(&bytes).unwrap();
        assert_eq!(format!("{back:?}"), format!("{v:?}"));
        for limits in &caps {
            for cut in 0..=bytes.len() {
                agree::<P>(&bytes[..cut], limits);
            }
            for i in 0..bytes.len() {
                for b in [0, 1, 2, 0x80, 0xff] {
                    let mut changed = bytes.clone();
                    changed[i] = b;
                    agree::<P>(&changed, limits);
                }
            }
        }
    }
}

#[test]
fn option_fields_decode_as_serdes_option_does() {
    check(&[None, Some(true), Some(false)]);
    check(&[None, Some(0u8), Some(0xff)]);
    check(&[None, Some(0x1234u16)]);
    check(&[None, Some(0xdead_beefu32)]);
    check(&[None, Some(u64::MAX - 1)]);
    check(&[None, Some(u128::MAX / 3)]);
    check(&[None, Some(-1i8)]);
    check(&[None, Some(i16::MIN)]);
    check(&[None, Some(-7i32)]);
    check(&[None, Some(i64::MIN + 1)]);
    check(&[None, Some(i128::MIN / 5)]);
    check(&[None, Some(-0.0f32), Some(f32::from_bits(0x7fc0_0001))]);
    check(&[
        None,
        Some(1.5f64),
        Some(f64::from_bits(0xfff0_0000_0000_0001)),
    ]);
    check(&[
        None,
        Some(String::new()),
        Some("kiln".to_string()),
        Some("é".to_string()),
    ]);
}

#[test]
fn a_bad_tag_and_a_deep_some_fail_at_the_options_offset() {
    // A u8 first, so that the option is not at offset 0.
    let e = kiln_serde::from_slice::<(u8, Option<u16>)>(&[9, 2, 1, 0]).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(1)));
    let e = kiln_serde::from_slice::<(u8, Option<String>)>(&[9, 1, 5, 0, 0, 0, b'a']).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(2)));
    let limits = Limits::DEFAULT.with_max_depth(0);
    let e = <(u8, Option<bool>)>::deserialize(&mut Deserializer::from_slice(&[9, 1, 1], &limits))
        .unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(1)));
    let v = <(u8, Option<bool>)>::deserialize(&mut Deserializer::from_slice(&[9, 0], &limits));
    assert_eq!(v.unwrap(), (9, None));
}

#[test]
fn an_option_str_field_borrows_as_serdes_option_does() {
    for v in [None, Some(""), Some("kiln"), Some("é")] {
        let bytes = kiln_serde::to_vec(&v).unwrap();
        let (back,): (Option<&str>,) = kiln_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, v);
        for limits in [Limits::DEFAULT, Limits::DEFAULT.with_max_depth(0)] {
            let mut inputs: Vec<Vec<u8>> = (0..=bytes.len()).map(|c| bytes[..c].to_vec()).collect();
            for i in 0..bytes.len() {
                for b in [0, 1, 2, 0x80, 0xff] {
                    let mut changed = bytes.clone();
                    changed[i] = b;
                    inputs.push(changed);
                }
            }
            for input in &inputs {
                let field = outcome(
                    <(Option<&str>,)>::deserialize(&mut Deserializer::from_slice(input, &limits))
                        .map(|t| t.0),
                );
                let bare = outcome(Option::<&str>::deserialize(&mut Deserializer::from_slice(
                    input, &limits,
                )));
                assert_eq!(field, bare, "slice {input:02x?}");
                // A stream cannot lend: the same error both ways.
                let field = outcome(
                    <(Option<&str>,)>::deserialize(&mut Deserializer::from_reader(
                        &input[..],
                        &limits,
                    ))
                    .map(|t| t.0),
                );
                let bare = outcome(Option::<&str>::deserialize(&mut Deserializer::from_reader(
                    &input[..],
                    &limits,
                )));
                assert_eq!(field, bare, "stream {input:02x?}");
            }
        }
    }
}
