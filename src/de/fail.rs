//! The decoder's error constructors that are free functions (those that
//! are `Decoder` methods, generic over its reader, stay in `de.rs`). Each
//! one `de` calls is cold and out of line, so a check on the hot path is a
//! compare and a branch to a call that takes the few values the message
//! needs; `not_0_or_1` is the shared body of two of them.

use crate::error::{Error, ErrorCode, ErrorDetail};

/// LIMIT: a seq/map count or a str/bytes length `n`, at `at`, above its
/// cap (`what` names which).
#[cold]
#[inline(never)]
pub(super) fn over_cap(what: &str, n: u32, cap: u64, at: u64) -> Error {
    Error::at_fmt(
        ErrorCode::Limit,
        at,
        format_args!("{what} {n} is above the cap {cap}"),
    )
}

/// MESSAGE: a seq visitor that left `left` of its `n` elements unread,
/// at `at` (the rest of the bytes would be misread).
#[cold]
#[inline(never)]
pub(super) fn left_unread(left: usize, n: usize, at: u64) -> Error {
    Error::at_fmt(
        ErrorCode::Message,
        at,
        format_args!("the visitor left {left} of {n} elements unread"),
    )
}

/// TYPE: variant index `idx`, at `at`, that the enum does not have.
#[cold]
#[inline(never)]
pub(super) fn unknown_variant(idx: u32, e: &Error, at: u64) -> Error {
    Error::detailed(
        ErrorCode::Type,
        at,
        ErrorDetail::UnknownVariant(idx),
        format_args!("variant index {idx}: {}", e.message()),
    )
}

/// An option tag that is neither 0 nor 1, at offset `at`. Two arguments
/// at the call: the four of [`not_0_or_1`] kept serde's `Option` visitor
/// out of line.
#[cold]
#[inline(never)]
pub(super) fn bad_option_tag(t: u8, at: u64) -> Error {
    not_0_or_1(ErrorDetail::BadOptionTag(t), "option tag", t, at)
}

/// A `bool` byte that is neither 0 nor 1, at offset `at`.
#[cold]
#[inline(never)]
pub(super) fn bad_bool(b: u8, at: u64) -> Error {
    not_0_or_1(ErrorDetail::BadBool(b), "bool byte", b, at)
}

/// TYPE: a byte that must be 0 or 1 (`what`, described by `detail`) is
/// `b`, at `at`: the body of [`bad_option_tag`] and [`bad_bool`], which
/// keep it off the hot paths.
#[inline]
fn not_0_or_1(detail: ErrorDetail, what: &str, b: u8, at: u64) -> Error {
    Error::detailed(
        ErrorCode::Type,
        at,
        detail,
        format_args!("{what} 0x{b:02x} is not 0 or 1"),
    )
}
