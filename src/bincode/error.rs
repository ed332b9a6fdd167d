//! bincode 1.3's error shape: [`Error`] is `Box<ErrorKind>`, and every Kiln
//! error is translated to the closest [`ErrorKind`], by its code and
//! [`ErrorDetail`] (never by its message text).
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

use crate::error::{ErrorCode, ErrorDetail};

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
    /// wire maximum of 4,294,967,295, or nesting deeper than the depth cap,
    /// [`BINCODE_MAX_DEPTH`](super::config::BINCODE_MAX_DEPTH) by default).
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
    /// Translates a Kiln error by the table of the module docs.
    #[cold]
    fn from(err: crate::Error) -> Error {
        from_kiln(err)
    }
}

/// Translates a Kiln error by its [`code`](crate::Error::code) and
/// [`detail`](crate::Error::detail) only, never by its message text.
///
/// `_input` (the slice being decoded) is no longer needed: a bad `str`'s
/// detail holds its exact `Utf8Error`. It stays so that callers keep
/// compiling.
#[cold]
pub(crate) fn from_kiln(err: crate::Error) -> Error {
    Box::new(kind_of(err))
}

fn kind_of(err: crate::Error) -> ErrorKind {
    match (err.code(), err.detail()) {
        (ErrorCode::Eof, _) => ErrorKind::Io(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            err.to_string(),
        )),
        (ErrorCode::Limit, _) => ErrorKind::SizeLimit,
        (ErrorCode::Io, _) => {
            let text = err.to_string();
            match err.into_io_error() {
                Some(e) => ErrorKind::Io(e),
                None => ErrorKind::Custom(text),
            }
        }
        (ErrorCode::Utf8, ErrorDetail::BadChar(_)) => ErrorKind::InvalidCharEncoding,
        (ErrorCode::Utf8, ErrorDetail::InvalidUtf8(e)) => ErrorKind::InvalidUtf8Encoding(e),
        (ErrorCode::Type, ErrorDetail::BadBool(b)) => ErrorKind::InvalidBoolEncoding(b),
        (ErrorCode::Type, ErrorDetail::BadOptionTag(t)) => {
            ErrorKind::InvalidTagEncoding(usize::from(t))
        }
        (ErrorCode::Trailing, _) => ErrorKind::Custom(TRAILING_MSG.to_string()),
        (ErrorCode::Message, ErrorDetail::DeserializeAnyNotSupported) => {
            ErrorKind::DeserializeAnyNotSupported
        }
        _ => ErrorKind::Custom(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kiln(code: ErrorCode, msg: &str, detail: ErrorDetail) -> crate::Error {
        crate::Error::at(code, 3, msg).with_detail(detail)
    }

    fn utf8_error() -> Utf8Error {
        // "a", a truncated 2-byte sequence start, "b".
        let bytes = vec![b'a', 0xc3, b'b'];
        std::str::from_utf8(&bytes).unwrap_err()
    }

    /// The kind depends on the code and the detail only: the same detail
    /// under any message maps the same, and a message that reads like one
    /// of Kiln's sentences maps to nothing special without the detail.
    #[test]
    fn the_kind_comes_from_code_and_detail_not_from_the_message() {
        for msg in ["", "bool byte 0x02 is not 0 or 1", "reworded"] {
            let e = kiln(ErrorCode::Type, msg, ErrorDetail::BadBool(2));
            assert!(matches!(*from_kiln(e), ErrorKind::InvalidBoolEncoding(2)));
            let e = kiln(ErrorCode::Type, msg, ErrorDetail::BadOptionTag(0xff));
            assert!(matches!(*from_kiln(e), ErrorKind::InvalidTagEncoding(255)));
            let e = kiln(ErrorCode::Utf8, msg, ErrorDetail::BadChar(0xd800));
            assert!(matches!(*from_kiln(e), ErrorKind::InvalidCharEncoding));
            let e = kiln(ErrorCode::Utf8, msg, ErrorDetail::InvalidUtf8(utf8_error()));
            match *from_kiln(e) {
                ErrorKind::InvalidUtf8Encoding(u) => assert_eq!(u, utf8_error()),
                other => panic!("{other:?}"),
            }
            let e = kiln(
                ErrorCode::Message,
                msg,
                ErrorDetail::DeserializeAnyNotSupported,
            );
            assert!(matches!(
                *from_kiln(e),
                ErrorKind::DeserializeAnyNotSupported
            ));
        }
        for (code, msg) in [
            (ErrorCode::Type, "bool byte 0x02 is not 0 or 1"),
            (ErrorCode::Type, "option tag 0xff is not 0 or 1"),
            (ErrorCode::Utf8, "char 0xd800 is not a Unicode scalar value"),
            (ErrorCode::Utf8, "invalid UTF-8 at byte 1 of the string"),
            (ErrorCode::Message, "deserialize_any is not supported"),
        ] {
            let e = kiln(code, msg, ErrorDetail::None);
            match *from_kiln(e) {
                ErrorKind::Custom(s) => assert!(s.ends_with(msg), "{s}"),
                other => panic!("{code} {msg}: {other:?}"),
            }
        }
    }

    #[test]
    fn other_faults_keep_the_kiln_text() {
        let e = crate::Error::at(ErrorCode::Utf8, 0, "tensor name is not UTF-8");
        assert!(matches!(*from_kiln(e), ErrorKind::Custom(_)));
        let e = kiln(
            ErrorCode::Type,
            "variant index 9",
            ErrorDetail::UnknownVariant(9),
        );
        match *from_kiln(e) {
            ErrorKind::Custom(s) => assert_eq!(s, "TYPE at byte 3: variant index 9"),
            other => panic!("{other:?}"),
        }
        let e = crate::Error::at(ErrorCode::Type, 9, "map keys are not in order");
        match *from_kiln(e) {
            ErrorKind::Custom(s) => assert_eq!(s, "TYPE at byte 9: map keys are not in order"),
            other => panic!("{other:?}"),
        }
        let e = crate::Error::at(ErrorCode::Trailing, 9, "2 bytes follow the value");
        match *from_kiln(e) {
            ErrorKind::Custom(s) => assert_eq!(s, TRAILING_MSG),
            other => panic!("{other:?}"),
        }
        let e = kiln(ErrorCode::Limit, "too deep", ErrorDetail::TooDeep(128));
        assert!(matches!(*from_kiln(e), ErrorKind::SizeLimit));
    }

    #[test]
    fn a_decoded_str_gives_the_exact_utf8_error() {
        // count 3, then "a", a truncated 2-byte sequence start, "b".
        let bytes = [3, 0, 0, 0, b'a', 0xc3, b'b'];
        let e = crate::from_slice::<&str>(&bytes).unwrap_err();
        assert_eq!(e.detail(), ErrorDetail::InvalidUtf8(utf8_error()));
        match *from_kiln(e) {
            ErrorKind::InvalidUtf8Encoding(u) => {
                assert_eq!(u, utf8_error());
                assert_eq!((u.valid_up_to(), u.error_len()), (1, Some(1)));
            }
            other => panic!("{other:?}"),
        }
    }
}
