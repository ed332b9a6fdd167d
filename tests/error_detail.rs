//! `Error::detail()`: every decode fault that a caller may need as data
//! carries it, on slices and streams alike, whatever the message says.

use kiln_serde::error::ErrorDetail;
use kiln_serde::{ErrorCode, Options};
use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Two {
    A,
    B(u8),
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    A(u8),
}

fn check<T: serde::de::DeserializeOwned + std::fmt::Debug>(
    bytes: &[u8],
    code: ErrorCode,
    at: u64,
    detail: ErrorDetail,
) {
    let opts = Options::new().with_max_depth(2);
    for e in [
        opts.from_slice::<T>(bytes).unwrap_err(),
        opts.from_reader::<_, T>(bytes).unwrap_err(),
    ] {
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (code, Some(at), detail),
            "{e}"
        );
    }
}

#[test]
fn each_fault_carries_its_detail() {
    check::<(u8, bool)>(&[0, 2], ErrorCode::Type, 1, ErrorDetail::BadBool(2));
    check::<Option<u8>>(&[7], ErrorCode::Type, 0, ErrorDetail::BadOptionTag(7));
    check::<char>(
        &0xd800u32.to_le_bytes(),
        ErrorCode::Utf8,
        0,
        ErrorDetail::BadChar(0xd800),
    );
    let bad_str = [3, 0, 0, 0, b'a', 0xc3, b'b'];
    let utf8 = std::str::from_utf8(&bad_str[4..]).unwrap_err();
    check::<String>(&bad_str, ErrorCode::Utf8, 0, ErrorDetail::InvalidUtf8(utf8));
    check::<Untagged>(
        &[1],
        ErrorCode::Message,
        0,
        ErrorDetail::DeserializeAnyNotSupported,
    );
    check::<Two>(
        &[9, 0, 0, 0],
        ErrorCode::Type,
        0,
        ErrorDetail::UnknownVariant(9),
    );
    check::<Vec<Vec<Vec<u8>>>>(
        &[1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        ErrorCode::Limit,
        8,
        ErrorDetail::TooDeep(2),
    );
    // Faults with nothing more to say than code and offset.
    check::<u32>(&[1, 2], ErrorCode::Eof, 0, ErrorDetail::None);
    let e = kiln_serde::from_slice::<u8>(&[1, 2]).unwrap_err();
    assert_eq!(
        (e.code(), e.detail()),
        (ErrorCode::Trailing, ErrorDetail::None)
    );
}
