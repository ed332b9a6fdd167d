//! bincode 1.3's error shape: [`Error`] is `Box<ErrorKind>`, and every Kiln
//! error is translated to the closest [`ErrorKind`].
//!
//! | Kiln code | `ErrorKind` |
//! |---|---|
//! | EOF (slice or stream ends inside a value) | `Io` with `io::ErrorKind::UnexpectedEof` (message: the Kiln error) |
//! | LIMIT (`with_limit`, a wire maximum, the depth cap) | `SizeLimit` |
//! | UTF8 on a `str` | `InvalidUtf8Encoding(Utf8Error)` |
//! | UTF8 on a `char` | `InvalidCharEncoding` |
//! | TYPE on a bool byte | `InvalidBoolEncoding(byte)` |
//! | TYPE on an option tag | `InvalidTagEncoding(tag)` |
//! | other TYPE (variant index, map order, serde's `invalid_value`, ...) | `Custom` (the Kiln error text) |
//! | TRAILING | `Custom("Slice had bytes remaining after deserialization")` |
//! | MESSAGE from `deserialize_any` / `deserialize_ignored_any` | `DeserializeAnyNotSupported` |
//! | IO | `Io` (the reader's or writer's own error) |
//! | anything else | `Custom` (the Kiln error text: code, offset, sentence) |

use std::fmt;
use std::io;
use std::str::Utf8Error;

use crate::error::ErrorCode;

/// The error of every function of this module: a boxed [`ErrorKind`], as in
/// bincode 1.3 (`match *err { ErrorKind::Io(ref e) => .., .. }`).
pub type Error = Box<ErrorKind>;

/// A `Result` whose error is [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The message bincode 1.3 uses when a slice has bytes after the value.
pub(crate) const TRAILING_MSG: &str = "Slice had bytes remaining after deserialization";

/// What went wrong, with bincode 1.3's variants and payloads.
///
/// Not `#[non_exhaustive]`, like bincode 1.3's, so exhaustive `match`es
/// written for bincode keep compiling.
#[derive(Debug)]
pub enum ErrorKind {
    /// The reader or writer failed, or the input ended inside a value
    /// (`io::ErrorKind::UnexpectedEof`, for slices as for streams).
    Io(io::Error),
    /// A `str` is not valid UTF-8.
    InvalidUtf8Encoding(Utf8Error),
    /// A bool byte is neither 0 nor 1; the payload is the byte.
    InvalidBoolEncoding(u8),
    /// A `char` is not a Unicode scalar value.
    InvalidCharEncoding,
    /// An option tag is neither 0 nor 1; the payload is the tag.
    InvalidTagEncoding(usize),
    /// The type needs `deserialize_any` (`#[serde(untagged)]`,
    /// `#[serde(flatten)]`, internally tagged enums, dynamic values), which a
    /// non-self-describing format cannot offer.
    DeserializeAnyNotSupported,
    /// The size limit of `with_limit` was passed (also: a length above the
    /// wire maximum of 4,294,967,295, or nesting deeper than 128).
    SizeLimit,
    /// Kept for source compatibility: Kiln encodes sequences of unknown
    /// length, so this module never returns it.
    SequenceMustHaveLength,
    /// Any other error, with its message. For errors found by Kiln the
    /// message is the Kiln error's text, which names the spec code and the
    /// byte offset (`TYPE at byte 4: variant index 9: ...`).
    Custom(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "io error: {e}"),
            ErrorKind::InvalidUtf8Encoding(e) => write!(f, "string is not valid utf8: {e}"),
            ErrorKind::InvalidBoolEncoding(b) => {
                write!(f, "invalid u8 while decoding bool, expected 0 or 1, found {b}")
            }
            ErrorKind::InvalidCharEncoding => f.write_str("char is not valid"),
            ErrorKind::InvalidTagEncoding(t) => write!(f, "tag for enum is not valid, found {t}"),
            ErrorKind::DeserializeAnyNotSupported => f.write_str(
                "Kiln, like bincode, does not support the serde::Deserializer::deserialize_any method",
            ),
            ErrorKind::SizeLimit => f.write_str("the size limit has been reached"),
            ErrorKind::SequenceMustHaveLength => {
                f.write_str("sequences and maps must have a knowable size ahead of time")
            }
            ErrorKind::Custom(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for ErrorKind {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ErrorKind::Io(e) => Some(e),
            ErrorKind::InvalidUtf8Encoding(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    #[cold]
    fn from(err: io::Error) -> Error {
        Box::new(ErrorKind::Io(err))
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Box::new(ErrorKind::Custom(msg.to_string()))
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Box::new(ErrorKind::Custom(msg.to_string()))
    }
}

impl From<crate::Error> for Error {
    /// Translates a Kiln error by the table of the module docs. Without the
    /// input bytes at hand, a `str`'s UTF-8 error is rebuilt from its
    /// position (`valid_up_to` matches; `error_len` may not).
    #[cold]
    fn from(err: crate::Error) -> Error {
        from_kiln(err, None)
    }
}

/// Translates a Kiln error; `input` is the slice being decoded, when there is
/// one (it gives the exact `Utf8Error` of a bad `str`).
#[cold]
pub(crate) fn from_kiln(err: crate::Error, input: Option<&[u8]>) -> Error {
    Box::new(kind_of(err, input))
}

fn kind_of(err: crate::Error, input: Option<&[u8]>) -> ErrorKind {
    match err.code() {
        ErrorCode::Eof => ErrorKind::Io(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            err.to_string(),
        )),
        ErrorCode::Limit => ErrorKind::SizeLimit,
        ErrorCode::Io => {
            let text = err.to_string();
            match err.into_io_error() {
                Some(e) => ErrorKind::Io(e),
                None => ErrorKind::Custom(text),
            }
        }
        ErrorCode::Utf8 => {
            if err.message().starts_with("char ") {
                ErrorKind::InvalidCharEncoding
            } else {
                match str_utf8_error(&err, input) {
                    Some(e) => ErrorKind::InvalidUtf8Encoding(e),
                    None => ErrorKind::Custom(err.to_string()),
                }
            }
        }
        ErrorCode::Type => {
            let msg = err.message();
            if let Some(b) = hex_after(msg, "bool byte 0x") {
                ErrorKind::InvalidBoolEncoding(b)
            } else if let Some(t) = hex_after(msg, "option tag 0x") {
                ErrorKind::InvalidTagEncoding(usize::from(t))
            } else {
                ErrorKind::Custom(err.to_string())
            }
        }
        ErrorCode::Trailing => ErrorKind::Custom(TRAILING_MSG.to_string()),
        ErrorCode::Message if err.message().contains("deserialize_any is not supported") => {
            ErrorKind::DeserializeAnyNotSupported
        }
        _ => ErrorKind::Custom(err.to_string()),
    }
}

/// The byte written as two hex digits right after `prefix` (Kiln's
/// `bool byte 0x07 ...` / `option tag 0x07 ...` sentences).
fn hex_after(msg: &str, prefix: &str) -> Option<u8> {
    let digits = msg.strip_prefix(prefix)?.get(..2)?;
    u8::from_str_radix(digits, 16).ok()
}

/// The `Utf8Error` of a `str` that failed Kiln's UTF-8 check.
fn str_utf8_error(err: &crate::Error, input: Option<&[u8]>) -> Option<Utf8Error> {
    // Kiln reports a bad str at the offset of its count (u32 LE), with the
    // sentence "invalid UTF-8 at byte N of the string".
    if let (Some(bytes), Some(at)) = (input, err.offset()) {
        if let Some(e) = utf8_error_at(bytes, at) {
            return Some(e);
        }
    }
    let n: usize = err
        .message()
        .strip_prefix("invalid UTF-8 at byte ")?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    // Rebuild an error with the same `valid_up_to`: n valid bytes, then one
    // that never starts a UTF-8 sequence. The string itself (at least n
    // bytes) was already read, so this costs no more than it did.
    let mut probe = vec![b' '; n];
    probe.push(0xff);
    std::str::from_utf8(&probe).err()
}

/// Re-runs the UTF-8 check on the str whose count is at `at` in `bytes`.
fn utf8_error_at(bytes: &[u8], at: u64) -> Option<Utf8Error> {
    let at = usize::try_from(at).ok()?;
    let count = bytes.get(at..at.checked_add(4)?)?;
    let mut len = [0u8; 4];
    len.copy_from_slice(count);
    let len = usize::try_from(u32::from_le_bytes(len)).ok()?;
    let start = at + 4;
    let content = bytes.get(start..start.checked_add(len)?)?;
    std::str::from_utf8(content).err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kiln_sentences_map_to_payloads() {
        let e = crate::Error::at(ErrorCode::Type, 3, "bool byte 0x02 is not 0 or 1");
        assert!(matches!(
            *from_kiln(e, None),
            ErrorKind::InvalidBoolEncoding(2)
        ));
        let e = crate::Error::at(ErrorCode::Type, 0, "option tag 0xff is not 0 or 1");
        assert!(matches!(
            *from_kiln(e, None),
            ErrorKind::InvalidTagEncoding(255)
        ));
        let e = crate::Error::at(ErrorCode::Utf8, 0, "invalid UTF-8 at byte 3 of the string");
        match *from_kiln(e, None) {
            ErrorKind::InvalidUtf8Encoding(u) => assert_eq!(u.valid_up_to(), 3),
            other => panic!("{other:?}"),
        }
        let e = crate::Error::at(ErrorCode::Utf8, 0, "tensor name is not UTF-8");
        assert!(matches!(*from_kiln(e, None), ErrorKind::Custom(_)));
        let e = crate::Error::at(ErrorCode::Type, 9, "map keys are not in order");
        match *from_kiln(e, None) {
            ErrorKind::Custom(s) => assert_eq!(s, "TYPE at byte 9: map keys are not in order"),
            other => panic!("{other:?}"),
        }
        let e = crate::Error::at(ErrorCode::Trailing, 9, "2 bytes follow the value");
        match *from_kiln(e, None) {
            ErrorKind::Custom(s) => assert_eq!(s, TRAILING_MSG),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn slice_gives_the_exact_utf8_error() {
        // count 3, then "a", a truncated 2-byte sequence start, "b".
        let bytes = [3, 0, 0, 0, b'a', 0xc3, b'b'];
        let expected = std::str::from_utf8(&bytes[4..]).unwrap_err();
        let e = crate::Error::at(ErrorCode::Utf8, 0, "invalid UTF-8 at byte 1 of the string");
        match *from_kiln(e, Some(&bytes)) {
            ErrorKind::InvalidUtf8Encoding(u) => assert_eq!(u, expected),
            other => panic!("{other:?}"),
        }
    }
}
