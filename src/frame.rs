//! The 16-byte frame in front of one Frozen value (spec section 3).
//!
//! | offset | size | field | rule |
//! |---|---|---|---|
//! | 0 | 4 | magic | ASCII `KILN` (`4B 49 4C 4E`) |
//! | 4 | 1 | version | 2 |
//! | 5 | 1 | profile | 0 (Frozen) |
//! | 6 | 1 | flags | bit 0: a schema hash is present; bits 1..7 are 0 |
//! | 7 | 1 | reserved | 0 |
//! | 8 | 8 | hash | FNV-1a 64 of the canonical type text, u64 LE; 0 when bit 0 is clear |
//!
//! [`parse`] checks, in this order: fewer than 16 bytes is EOF at offset 0
//! (before any content is looked at); then magic (offset 0), version (4),
//! profile (5), flag bits 1..7 (6), reserved byte (7), and a nonzero hash with
//! bit 0 clear (8) are FRAME. Comparing the hash with a type's hash is the
//! job of [`framed`](crate::framed).

use crate::error::{Error, ErrorCode, Result};

/// The length of a frame header in bytes.
pub const FRAME_LEN: usize = 16;
/// The frame magic, ASCII `KILN`.
pub const MAGIC: [u8; 4] = *b"KILN";
/// The format version a frame carries.
pub const VERSION: u8 = 2;
/// The profile code of Frozen values, the only profile.
pub const PROFILE_FROZEN: u8 = 0;
/// Flag bit 0: the header carries a schema hash.
pub const FLAG_HASH: u8 = 0x01;

/// A parsed (or to be written) frame header.
///
/// # Examples
///
/// ```
/// use kiln_serde::frame::{self, FrameHeader};
///
/// let bytes = frame::encode(Some(0x5e8fcc49ab06d825));
/// assert_eq!(&bytes[..8], b"KILN\x02\x00\x01\x00");
/// let header = frame::parse(&bytes).unwrap();
/// assert_eq!(header, FrameHeader::new(Some(0x5e8fcc49ab06d825)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FrameHeader {
    /// The format version (always [`VERSION`] after [`parse`]).
    pub version: u8,
    /// The profile code (always [`PROFILE_FROZEN`] after [`parse`]).
    pub profile: u8,
    /// The flags byte; bit 0 is set exactly when `hash` is `Some`.
    pub flags: u8,
    /// The schema hash, when the frame carries one.
    pub hash: Option<u64>,
}

impl FrameHeader {
    /// A version 2 Frozen header with an optional schema hash.
    #[inline]
    pub const fn new(hash: Option<u64>) -> Self {
        FrameHeader {
            version: VERSION,
            profile: PROFILE_FROZEN,
            flags: if hash.is_some() { FLAG_HASH } else { 0 },
            hash,
        }
    }

    /// The 16 bytes of this header. Bit 0 of the flags byte is written from
    /// `hash` (set when it is `Some`), the other flag bits as they are.
    #[inline]
    pub fn encode(&self) -> [u8; FRAME_LEN] {
        let mut out = [0u8; FRAME_LEN];
        out[..4].copy_from_slice(&MAGIC);
        out[4] = self.version;
        out[5] = self.profile;
        out[6] = (self.flags & !FLAG_HASH) | if self.hash.is_some() { FLAG_HASH } else { 0 };
        out[7] = 0;
        out[8..].copy_from_slice(&self.hash.unwrap_or(0).to_le_bytes());
        out
    }

    /// Parses and checks the first 16 bytes of `bytes` (the rest is ignored).
    ///
    /// # Errors
    ///
    /// EOF at offset 0 when `bytes` is shorter than 16; FRAME at the offset of
    /// the first wrong field (see the module docs).
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let Some(head) = bytes.get(..FRAME_LEN) else {
            return Err(Error::at(
                ErrorCode::Eof,
                0,
                format!(
                    "a frame header is {FRAME_LEN} bytes, only {} remain",
                    bytes.len()
                ),
            ));
        };
        let mut head16 = [0u8; FRAME_LEN];
        head16.copy_from_slice(head);
        parse16(&head16)
    }
}

/// Checks a complete 16-byte header.
fn parse16(h: &[u8; FRAME_LEN]) -> Result<FrameHeader> {
    if h[..4] != MAGIC {
        return Err(Error::at(
            ErrorCode::Frame,
            0,
            format!(
                "frame magic is {:02X} {:02X} {:02X} {:02X}, not KILN (4B 49 4C 4E)",
                h[0], h[1], h[2], h[3]
            ),
        ));
    }
    if h[4] != VERSION {
        return Err(Error::at(
            ErrorCode::Frame,
            4,
            format!("frame version is {}, this reader knows {VERSION}", h[4]),
        ));
    }
    if h[5] != PROFILE_FROZEN {
        return Err(Error::at(
            ErrorCode::Frame,
            5,
            format!("frame profile is {}, only 0 (Frozen) exists", h[5]),
        ));
    }
    let flags = h[6];
    if flags & !FLAG_HASH != 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            6,
            format!("frame flags are {flags:#04x}; bits 1..7 must be 0"),
        ));
    }
    if h[7] != 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            7,
            format!("frame reserved byte is {:#04x}, not 0", h[7]),
        ));
    }
    let mut hash = [0u8; 8];
    hash.copy_from_slice(&h[8..]);
    let hash = u64::from_le_bytes(hash);
    let hash = if flags & FLAG_HASH != 0 {
        Some(hash)
    } else if hash != 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            8,
            format!("frame hash is {hash:#018x} but the hash flag is clear"),
        ));
    } else {
        None
    };
    Ok(FrameHeader {
        version: h[4],
        profile: h[5],
        flags,
        hash,
    })
}

/// The 16 bytes of a version 2 Frozen frame header with an optional hash.
///
/// # Examples
///
/// ```
/// let bytes = kiln_serde::frame::encode(None);
/// assert_eq!(bytes, *b"KILN\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00");
/// ```
#[inline]
pub fn encode(hash: Option<u64>) -> [u8; FRAME_LEN] {
    FrameHeader::new(hash).encode()
}

/// Parses and checks the frame header at the start of `bytes`.
///
/// # Errors
///
/// EOF at offset 0 for fewer than 16 bytes; FRAME at the offset of the first
/// wrong field: magic 0, version 4, profile 5, flag bits 6, reserved 7, a
/// nonzero hash with the hash flag clear 8.
///
/// # Examples
///
/// ```
/// use kiln_serde::{frame, ErrorCode};
///
/// let err = frame::parse(b"KILN\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00").unwrap_err();
/// assert_eq!((err.code(), err.offset()), (ErrorCode::Frame, Some(4)));
/// let err = frame::parse(b"KILN").unwrap_err();
/// assert_eq!((err.code(), err.offset()), (ErrorCode::Eof, Some(0)));
/// ```
pub fn parse(bytes: &[u8]) -> Result<FrameHeader> {
    FrameHeader::parse(bytes)
}

/// Reads and checks a header from a stream (exactly 16 bytes are consumed
/// when it succeeds).
pub(crate) fn read_header<R: std::io::Read>(reader: &mut R) -> Result<FrameHeader> {
    let mut buf = [0u8; FRAME_LEN];
    let mut n = 0;
    while n < FRAME_LEN {
        match reader.read(&mut buf[n..]) {
            Ok(0) => {
                return Err(Error::at(
                    ErrorCode::Eof,
                    0,
                    format!("a frame header is {FRAME_LEN} bytes, the stream ended after {n}"),
                ))
            }
            // A reader may not claim more than it was given; clamp anyway.
            Ok(k) => n += k.min(FRAME_LEN - n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(e, Some(n as u64))),
        }
    }
    parse16(&buf)
}
