//! Judging a whole file or buffer that holds one tensor directory: the
//! contract of `kiln check` and of the conformance runners.

use crate::error::{Error, ErrorCode, Result};
use crate::frame;
use crate::limits::Limits;
use crate::schema::hash_text;

use super::TensorsView;

/// FNV-1a 64 of the type text `tensors` (spec section 3 check value).
pub const TENSORS_HASH: u64 = hash_text("tensors");

/// Validates a standalone buffer holding one directory, either bare
/// (starts with `KDIR`) or framed (starts with `KILN`: the frame's hash must
/// be absent or equal to [`TENSORS_HASH`], else SCHEMA). A buffer that
/// starts with neither magic is judged as a bare directory, so a damaged
/// magic is FRAME and a buffer under 32 bytes is EOF. Bytes after the
/// directory are TRAILING. Offsets count from the start of `bytes`.
///
/// # Errors
/// The first fault found in the order of spec section 7.
///
/// # Examples
/// ```
/// use kiln_serde::tensors::{check_buffer, TensorsBuilder};
/// let t = TensorsBuilder::new().build().unwrap();
/// let view = check_buffer(t.as_bytes(), &Default::default()).unwrap();
/// assert!(view.is_empty());
/// ```
pub fn check_buffer<'a>(bytes: &'a [u8], limits: &Limits) -> Result<TensorsView<'a>> {
    if bytes.starts_with(&frame::MAGIC) {
        let header = frame::parse(bytes)?;
        match header.hash {
            Some(h) if h != TENSORS_HASH => {
                return Err(Error::at(
                    ErrorCode::Schema,
                    8,
                    format!(
                        "frame hash {h:#018x} is not the hash of `tensors` ({TENSORS_HASH:#018x})"
                    ),
                ))
            }
            _ => {}
        }
        let body = bytes.get(frame::FRAME_LEN..).unwrap_or(&[]);
        TensorsView::from_bytes(body, limits).map_err(|e| e.shifted(frame::FRAME_LEN as u64))
    } else {
        TensorsView::from_bytes(bytes, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::TensorsBuilder;

    #[test]
    fn bare_framed_and_faults() {
        let t = TensorsBuilder::new().build().unwrap();
        let bare = t.as_bytes().to_vec();
        assert!(check_buffer(&bare, &Limits::default()).is_ok());

        let mut framed = frame::encode(Some(TENSORS_HASH)).to_vec();
        framed.extend_from_slice(&bare);
        assert!(check_buffer(&framed, &Limits::default()).is_ok());

        let mut unhashed = frame::encode(None).to_vec();
        unhashed.extend_from_slice(&bare);
        assert!(check_buffer(&unhashed, &Limits::default()).is_ok());

        let mut wrong = frame::encode(Some(1)).to_vec();
        wrong.extend_from_slice(&bare);
        let e = check_buffer(&wrong, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Schema, Some(8)));

        let mut trailing = framed.clone();
        trailing.push(0);
        let e = check_buffer(&trailing, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Trailing, Some(80)));

        // A damaged directory inside a frame: offsets from the file start.
        let mut bad = framed.clone();
        bad[16] = b'X';
        let e = check_buffer(&bad, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Frame, Some(16)));

        // Neither magic: a bare directory with a damaged magic, or short.
        let mut damaged = bare.clone();
        damaged[0] = b'Z';
        assert_eq!(
            check_buffer(&damaged, &Limits::default())
                .unwrap_err()
                .code(),
            ErrorCode::Frame
        );
        assert_eq!(
            check_buffer(b"KIL", &Limits::default()).unwrap_err().code(),
            ErrorCode::Eof
        );
        assert_eq!(
            check_buffer(b"KILN", &Limits::default())
                .unwrap_err()
                .code(),
            ErrorCode::Eof
        );
    }

    #[test]
    fn tensors_hash_is_the_spec_check_value() {
        assert_eq!(TENSORS_HASH, 0x91b48d411a259b35);
    }
}
