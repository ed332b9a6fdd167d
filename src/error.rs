//! The error type: one small boxed struct with a spec code and a byte offset.
//!
//! Every fault of the bytes carries one of the seven codes of spec section 7
//! ([`ErrorCode::Frame`] .. [`ErrorCode::Schema`]) and the offset of the first
//! byte of the field or value at fault, counted from the start of the buffer.
//! Two more kinds exist for what is not a fault of the bytes: I/O failures
//! ([`ErrorCode::Io`]) and messages raised by a type's own `Serialize` /
//! `Deserialize` impl ([`ErrorCode::Message`]).

use std::fmt;
use std::io;
use std::str::Utf8Error;

use crate::raw::ThinBox;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The kind of an [`Error`]: the seven spec codes plus I/O and message kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Magic, version, profile, a flag or a reserved byte is wrong.
    Frame,
    /// A count or length is above the cap, nesting is too deep, or a size
    /// product overflows u64.
    Limit,
    /// A length that was checked does not fit in the bytes still unread.
    Eof,
    /// A tag, variant, dtype, shape, range, name, link, map order or
    /// placement is wrong.
    Type,
    /// A str, char, tensor name or layout name is not valid UTF-8 / Unicode.
    Utf8,
    /// A standalone buffer continues past the value.
    Trailing,
    /// The frame hash does not match the reader's type.
    Schema,
    /// An I/O error from the underlying reader or writer.
    Io,
    /// A message raised by a type's own `Serialize`/`Deserialize` impl, or
    /// an unsupported serde feature (for example `deserialize_any`).
    Message,
}

impl ErrorCode {
    /// The code word: `FRAME`, `LIMIT`, `EOF`, `TYPE`, `UTF8`, `TRAILING`,
    /// `SCHEMA`, `IO` or `MESSAGE`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Frame => "FRAME",
            ErrorCode::Limit => "LIMIT",
            ErrorCode::Eof => "EOF",
            ErrorCode::Type => "TYPE",
            ErrorCode::Utf8 => "UTF8",
            ErrorCode::Trailing => "TRAILING",
            ErrorCode::Schema => "SCHEMA",
            ErrorCode::Io => "IO",
            ErrorCode::Message => "MESSAGE",
        }
    }

    /// True for the seven codes defined by the spec (faults of the bytes).
    pub const fn is_spec_code(self) -> bool {
        !matches!(self, ErrorCode::Io | ErrorCode::Message)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a caller may need about a fault as data, beyond its [`ErrorCode`]
/// (for example the bad byte of a bool, to report it or map it to another
/// error type) without parsing the message, whose wording may change.
///
/// [`ErrorDetail::None`] when there is nothing more to say than the code,
/// offset and message. New variants may be added.
///
/// # Examples
/// ```
/// use kiln_serde::error::ErrorDetail;
///
/// let err = kiln_serde::from_slice::<bool>(&[7]).unwrap_err();
/// assert_eq!(err.detail(), ErrorDetail::BadBool(7));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorDetail {
    /// Nothing beyond the code, offset and message.
    None,
    /// A bool byte that is neither 0 nor 1 (TYPE); the byte.
    BadBool(u8),
    /// An option tag that is neither 0 nor 1 (TYPE); the tag.
    BadOptionTag(u8),
    /// A `char` that is not a Unicode scalar value (UTF8); the u32 read.
    BadChar(u32),
    /// A `str` that is not valid UTF-8 (UTF8): the error of
    /// `std::str::from_utf8` on its content bytes.
    InvalidUtf8(Utf8Error),
    /// The type asked for `deserialize_any` or `deserialize_ignored_any`,
    /// which a format that is not self-describing cannot offer (MESSAGE).
    DeserializeAnyNotSupported,
    /// The type rejected this enum variant index (TYPE).
    UnknownVariant(u32),
    /// Nesting went past the depth cap of spec section 6 (LIMIT); the cap.
    TooDeep(u32),
    /// A `to_slice` buffer is too small for the value (LIMIT); the bytes
    /// the value needs.
    BufferFull(u64),
}

struct ErrorImpl {
    code: ErrorCode,
    offset: Option<u64>,
    message: String,
    io: Option<io::Error>,
    detail: ErrorDetail,
}

/// A Kiln error: a code, the byte offset of the fault, and a sentence.
///
/// `Display` reads like `TYPE at byte 12: option tag 0x07 is not 0 or 1`.
// Inside the decoder, a slice read of `n` bytes that found too few is a
// word in the handle (nothing on the heap: `Error::short_pending`) until
// the reader completes it; no error leaves the crate so.
pub struct Error(ThinBox<ErrorImpl>);

/// The wording of a pending short read.
const PENDING_MSG: &str = "needs more bytes than remain";
/// [`Error::full_pending`]'s word (a pending read's `n` is never 0).
const FULL_WORD: u64 = 0;
/// The bit of a pending error's word that marks a fixed-width read's
/// ([`Error::short_read_pending`]).
const MOVED: u64 = 1 << 8;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DisplayImpl(self).fmt(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.0.get().and_then(|e| e.io.as_ref()) {
            Some(e) => Some(e),
            None => None,
        }
    }
}

struct DisplayImpl<'a>(&'a Error);

impl fmt::Display for DisplayImpl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = match self.0 .0.get() {
            Some(e) => e,
            None => {
                let n = self.0.pending().map_or(0, |(n, ..)| n);
                return write!(f, "{}: needs {n} bytes, more than remain", ErrorCode::Eof);
            }
        };
        match e.offset {
            Some(off) => write!(f, "{} at byte {}: {}", e.code, off, e.message),
            None => write!(f, "{}: {}", e.code, e.message),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({})", DisplayImpl(self))
    }
}

impl Error {
    /// A new error with a code, an optional byte offset and a message.
    #[cold]
    pub fn new(code: ErrorCode, offset: Option<u64>, message: impl Into<String>) -> Self {
        Error(ThinBox::new(ErrorImpl {
            code,
            offset,
            message: message.into(),
            io: None,
            detail: ErrorDetail::None,
        }))
    }

    /// [`Error::at_fmt`] with an [`ErrorDetail`], built out of line.
    #[cold]
    #[inline(never)]
    pub(crate) fn detailed(
        code: ErrorCode,
        offset: u64,
        detail: ErrorDetail,
        args: fmt::Arguments<'_>,
    ) -> Self {
        Self::new(code, Some(offset), args.to_string()).with_detail(detail)
    }

    /// Sets the error's [`ErrorDetail`].
    #[cold]
    pub(crate) fn with_detail(mut self, detail: ErrorDetail) -> Self {
        // A pending short read has no detail to set (never called on one).
        if let Some(e) = self.0.get_mut() {
            e.detail = detail;
        }
        self
    }

    /// A new error at a byte offset.
    #[cold]
    pub fn at(code: ErrorCode, offset: u64, message: impl Into<String>) -> Self {
        Self::new(code, Some(offset), message)
    }

    /// [`Error::at`] from format arguments, built out of line so that the
    /// formatting code stays off the hot paths that can fail.
    #[cold]
    #[inline(never)]
    pub(crate) fn at_fmt(code: ErrorCode, offset: u64, args: fmt::Arguments<'_>) -> Self {
        Self::new(code, Some(offset), args.to_string())
    }

    /// [`Error::new`] from format arguments, built out of line.
    #[cold]
    #[inline(never)]
    pub(crate) fn new_fmt(code: ErrorCode, offset: Option<u64>, args: fmt::Arguments<'_>) -> Self {
        Self::new(code, offset, args.to_string())
    }

    /// Wraps an I/O error, with the offset where it happened when known.
    #[cold]
    pub fn io(err: io::Error, offset: Option<u64>) -> Self {
        Error(ThinBox::new(ErrorImpl {
            code: ErrorCode::Io,
            offset,
            message: err.to_string(),
            io: Some(err),
            detail: ErrorDetail::None,
        }))
    }

    /// The error's code.
    pub fn code(&self) -> ErrorCode {
        self.0.get().map_or(ErrorCode::Eof, |e| e.code)
    }

    /// The byte offset of the fault from the start of the buffer, when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.get().and_then(|e| e.offset)
    }

    /// What the fault was, as data ([`ErrorDetail::None`] when the code and
    /// offset say it all). Unlike the message, whose wording may change,
    /// this is part of the API.
    pub fn detail(&self) -> ErrorDetail {
        self.0.get().map_or(ErrorDetail::None, |e| e.detail)
    }

    /// The human sentence, without the code and offset.
    pub fn message(&self) -> &str {
        self.0.get().map_or(PENDING_MSG, |e| &e.message)
    }

    /// The underlying I/O error for [`ErrorCode::Io`].
    pub fn io_error(&self) -> Option<&io::Error> {
        self.0.get().and_then(|e| e.io.as_ref())
    }

    /// Takes the underlying I/O error out, if this is an I/O error.
    pub fn into_io_error(self) -> Option<io::Error> {
        self.0.into_box().and_then(|e| e.io)
    }

    /// True when this is an end-of-input condition: the spec's EOF, or an I/O
    /// `UnexpectedEof` from a reader.
    pub fn is_eof(&self) -> bool {
        self.code() == ErrorCode::Eof
            || self
                .io_error()
                .is_some_and(|e| e.kind() == io::ErrorKind::UnexpectedEof)
    }

    /// Sets the offset if none is known yet and the error is not a pending
    /// short read (whose offset is the reader's position, set when it is
    /// completed, not the enclosing value's: a word has no offset to set).
    /// Out of line: it sits on every
    /// error path of the decoder, and inlined copies made the derived
    /// `deserialize` of small structs too big for LLVM to inline.
    #[cold]
    #[inline(never)]
    pub(crate) fn or_offset(mut self, offset: u64) -> Self {
        if let Some(e) = self.0.get_mut() {
            if e.offset.is_none() {
                e.offset = Some(offset);
            }
        }
        self
    }

    /// [`Self::or_offset`] with the short-read test inline: where the error
    /// is a read's constant (a tuple's or struct's fields), LLVM drops the
    /// call and the offset it would need (a second induction variable in
    /// a loop of structs). Elsewhere the test would only add code.
    #[inline(always)]
    pub(crate) fn or_offset_of_fields(self, offset: u64) -> Self {
        if self.0.as_word().is_some() {
            return self;
        }
        self.or_offset(offset)
    }

    /// A slice take of `n` bytes (n > 0) that found too few: EOF or LIMIT,
    /// without an offset until the reader completes it once the decode has
    /// stopped (`SliceRead::settle`; a failed take does not move the
    /// reader, and the decode stops at the first error). Takes nothing
    /// from the reader, so that a read that can fail does not hand the
    /// reader's address to a call: the decoder then stays in registers.
    ///
    /// `back`: how far before the reader's position the value at fault
    /// starts (a str's count for its content).
    #[inline(always)]
    pub(crate) fn short_pending(n: usize, back: u8) -> Self {
        Error(ThinBox::word(((n as u64) << 9) | u64::from(back)))
    }

    /// As [`Self::short_pending`], for a fixed-width read of `n` bytes:
    /// such a read moves the reader to the end (`Cursor::read_array`,
    /// which keeps where it started), and the reader goes back to its
    /// start when it completes the error.
    #[inline(always)]
    pub(crate) fn short_read_pending(n: usize) -> Self {
        Error(ThinBox::word(((n as u64) << 9) | MOVED))
    }

    /// The serializer's write into a full slice or spare capacity
    /// (`ser/out.rs`): a word, which the entry point owning the buffer
    /// turns into what the value needs (`BufferFull`, a larger buffer, or
    /// the value's own error); no error leaves the crate so. A short read
    /// is never of 0 bytes, so its word is apart from theirs.
    #[inline(always)]
    pub(crate) fn full_pending() -> Self {
        Error(ThinBox::word(FULL_WORD))
    }

    /// Whether this is [`Self::full_pending`].
    #[inline]
    pub(crate) fn is_full_pending(&self) -> bool {
        self.0.as_word() == Some(FULL_WORD)
    }

    /// A pending error's `(n, back, moved)`, while not completed: `moved`
    /// for [`Self::short_read_pending`] (the read starts where the reader
    /// kept), else the read starts at the reader's position and the value
    /// at fault `back` bytes before it.
    #[inline]
    pub(crate) fn pending(&self) -> Option<(usize, u64, bool)> {
        self.0
            .as_word()
            .map(|w| ((w >> 9) as usize, w & 0xff, w & MOVED != 0))
    }

    /// Adds `base` to the offset (for errors found in a sub-buffer).
    #[cold]
    pub(crate) fn shifted(mut self, base: u64) -> Self {
        if let Some(o) = self.0.get_mut().and_then(|e| e.offset.as_mut()) {
            *o = o.saturating_add(base);
        }
        self
    }

    /// Takes `base` off the offset: the inverse of [`Self::shifted`], for
    /// errors found after `base` bytes that are not the value's.
    #[cold]
    pub(crate) fn unshifted(mut self, base: u64) -> Self {
        if let Some(o) = self.0.get_mut().and_then(|e| e.offset.as_mut()) {
            *o = o.saturating_sub(base);
        }
        self
    }
}

impl From<io::Error> for Error {
    #[cold]
    fn from(err: io::Error) -> Self {
        Error::io(err, None)
    }
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorCode::Message, None, msg.to_string())
    }
}

impl serde::de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::new(ErrorCode::Message, None, msg.to_string())
    }

    #[cold]
    fn invalid_type(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::new(
            ErrorCode::Type,
            None,
            format!("invalid type: {unexp}, expected {exp}"),
        )
    }

    #[cold]
    fn invalid_value(unexp: serde::de::Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Error::new(
            ErrorCode::Type,
            None,
            format!("invalid value: {unexp}, expected {exp}"),
        )
    }

    #[cold]
    fn invalid_length(len: usize, exp: &dyn serde::de::Expected) -> Self {
        Error::new(
            ErrorCode::Type,
            None,
            format!("invalid length {len}, expected {exp}"),
        )
    }

    #[cold]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Error::new(
            ErrorCode::Type,
            None,
            format!("unknown variant `{variant}`, expected one of {expected:?}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_code_offset_and_sentence() {
        let e = Error::at(ErrorCode::Type, 12, "option tag 0x07 is not 0 or 1");
        assert_eq!(
            e.to_string(),
            "TYPE at byte 12: option tag 0x07 is not 0 or 1"
        );
        assert_eq!(e.code(), ErrorCode::Type);
        assert_eq!(e.offset(), Some(12));
        let e = Error::new(ErrorCode::Message, None, "boom");
        assert_eq!(e.to_string(), "MESSAGE: boom");
    }

    #[test]
    fn error_is_small_and_thread_safe() {
        fn assert_send_sync<T: Send + Sync + 'static + std::error::Error>() {}
        assert_send_sync::<Error>();
        assert_eq!(std::mem::size_of::<Error>(), 8);
        assert_eq!(std::mem::align_of::<Error>(), 4);
        assert_eq!(std::mem::size_of::<Result<()>>(), 8);
    }

    #[test]
    fn or_offset_and_shift() {
        let e = Error::new(ErrorCode::Eof, None, "x")
            .or_offset(5)
            .or_offset(9);
        assert_eq!(e.offset(), Some(5));
        assert_eq!(e.shifted(16).offset(), Some(21));
    }

    /// The serializer's full-buffer word is told apart from every pending
    /// short read (whose `n` is never 0), and holds nothing to free.
    #[test]
    fn the_full_word_is_no_short_read() {
        assert!(Error::full_pending().is_full_pending());
        for n in [1usize, 4, 8, 1 << 20] {
            assert!(!Error::short_pending(n, 0).is_full_pending());
            assert!(!Error::short_read_pending(n).is_full_pending());
        }
        assert!(!Error::new(ErrorCode::Limit, None, "x").is_full_pending());
    }

    /// A pending short read (a word in the handle, nothing on the heap)
    /// answers every accessor without a value behind it, keeps no offset,
    /// and drops without a free (valgrind in CI).
    #[test]
    fn a_pending_short_read_answers_without_a_value() {
        let cases = [
            (1usize, 0u8, false),
            (4, 4, false),
            (16, 0, true),
            (8, 0, true),
        ];
        for (n, back, moved) in cases.into_iter().chain([(u32::MAX as usize, 4, false)]) {
            let e = if moved {
                Error::short_read_pending(n)
            } else {
                Error::short_pending(n, back)
            };
            assert_eq!(e.pending(), Some((n, u64::from(back), moved)));
            assert_eq!(e.code(), ErrorCode::Eof);
            assert!(e.is_eof());
            assert_eq!(e.offset(), None);
            assert_eq!(e.detail(), ErrorDetail::None);
            assert_eq!(e.message(), PENDING_MSG);
            assert!(e.io_error().is_none());
            assert!(std::error::Error::source(&e).is_none());
            assert_eq!(
                e.to_string(),
                format!("EOF: needs {n} bytes, more than remain")
            );
            let e = e
                .or_offset(7)
                .or_offset_of_fields(9)
                .shifted(3)
                .unshifted(1);
            assert_eq!(
                (e.offset(), e.pending()),
                (None, Some((n, u64::from(back), moved)))
            );
            let e = e.with_detail(ErrorDetail::BadBool(2));
            assert_eq!(e.detail(), ErrorDetail::None);
            assert!(e.into_io_error().is_none());
        }
        // A boxed error is not pending, and the inline test leaves it to
        // `or_offset`.
        let e = Error::new(ErrorCode::Message, None, "x").or_offset_of_fields(4);
        assert_eq!((e.pending(), e.offset()), (None, Some(4)));
    }
}
