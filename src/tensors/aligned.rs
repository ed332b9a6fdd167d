//! [`AlignedBuf`]: owned bytes whose first byte is 64-byte aligned in
//! memory, so that the payloads of a directory stored at its start are
//! aligned for every typed view. No `unsafe` here: the storage is a `Vec`
//! of 64-byte aligned blocks ([`Block64`](crate::raw::Block64), whose `Pod` impl is in the
//! crate's unsafe module) seen as bytes through `bytemuck`.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::raw::Block64 as Block;

const ZERO: Block = Block([0; 64]);

/// How much a reader grows the buffer at a time: a lying length costs at
/// most what the stream really delivers plus one chunk.
pub const READ_CHUNK: usize = 64 * 1024;

/// Owned bytes whose start address is a multiple of 64.
///
/// # Examples
///
/// ```
/// use kiln_serde::tensors::AlignedBuf;
/// let buf = AlignedBuf::from_slice(&[1, 2, 3]);
/// assert_eq!(buf.as_slice(), &[1, 2, 3]);
/// assert_eq!(buf.as_slice().as_ptr() as usize % 64, 0);
/// ```
#[derive(Clone, Default)]
pub struct AlignedBuf {
    blocks: Vec<Block>,
    len: usize,
}

impl AlignedBuf {
    /// An empty buffer (no allocation).
    pub const fn new() -> Self {
        AlignedBuf {
            blocks: Vec::new(),
            len: 0,
        }
    }

    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        AlignedBuf {
            blocks: vec![ZERO; len.div_ceil(64)],
            len,
        }
    }

    /// A copy of `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Self {
        let mut b = Self::zeroed(bytes.len());
        b.as_mut_slice().copy_from_slice(bytes);
        b
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.blocks);
        all.get(..self.len).unwrap_or(&[])
    }

    /// The bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.len;
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.blocks);
        all.get_mut(..len).unwrap_or(&mut [])
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Shortens to `len` bytes (no effect when already shorter). The cut
    /// bytes are zeroed so that a later growth reads zeros.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            let old = self.len;
            let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.blocks);
            if let Some(tail) = all.get_mut(len..old) {
                tail.fill(0);
            }
            self.len = len;
            self.blocks.truncate(len.div_ceil(64));
        }
    }

    /// Grows to `new_len` with zero bytes (no effect when already longer).
    pub fn resize_zeroed(&mut self, new_len: usize) {
        if new_len > self.len {
            self.blocks.resize(new_len.div_ceil(64), ZERO);
            self.len = new_len;
        }
    }

    /// Appends `bytes`.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let start = self.len;
        let Some(end) = start.checked_add(bytes.len()) else {
            return;
        };
        self.resize_zeroed(end);
        if let Some(dst) = self.as_mut_slice().get_mut(start..end) {
            dst.copy_from_slice(bytes);
        }
    }

    /// Appends exactly `n` bytes from `r`, growing in chunks of at most
    /// [`READ_CHUNK`] bytes, so that a claimed `n` larger than what the
    /// reader delivers never allocates much more than was delivered.
    ///
    /// # Errors
    ///
    /// `UnexpectedEof` when the reader ends first (the bytes read so far are
    /// dropped again), or the reader's own error.
    pub fn read_exact_from<R: Read + ?Sized>(&mut self, r: &mut R, n: u64) -> io::Result<()> {
        let start = self.len;
        let mut left = n;
        while left > 0 {
            let step = usize::try_from(left).unwrap_or(usize::MAX).min(READ_CHUNK);
            let at = self.len;
            let Some(end) = at.checked_add(step) else {
                self.truncate(start);
                return Err(io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    "length overflow",
                ));
            };
            self.resize_zeroed(end);
            let got = match self.as_mut_slice().get_mut(at..end) {
                Some(dst) => read_fully(r, dst),
                None => Ok(0),
            };
            match got {
                Ok(k) if k == step => {}
                Ok(_) => {
                    self.truncate(start);
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the reader ended before the claimed length",
                    ));
                }
                Err(e) => {
                    self.truncate(start);
                    return Err(e);
                }
            }
            left -= step as u64;
        }
        Ok(())
    }

    /// Reads `r` to its end into a new buffer, growing in bounded chunks.
    ///
    /// # Errors
    ///
    /// The reader's error.
    pub fn read_to_end_from<R: Read + ?Sized>(r: &mut R) -> io::Result<Self> {
        let mut b = AlignedBuf::new();
        loop {
            let at = b.len;
            let Some(end) = at.checked_add(READ_CHUNK) else {
                return Err(io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    "length overflow",
                ));
            };
            b.resize_zeroed(end);
            let got = match b.as_mut_slice().get_mut(at..end) {
                Some(dst) => read_fully(r, dst)?,
                None => 0,
            };
            b.truncate(at + got);
            if got < READ_CHUNK {
                return Ok(b);
            }
        }
    }

    /// Reads a whole file into a new buffer.
    ///
    /// # Errors
    ///
    /// An I/O error from opening or reading the file.
    pub fn read_file<P: AsRef<Path>>(path: P) -> io::Result<Self> {
        let mut f = File::open(path)?;
        let hint = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut b = AlignedBuf::new();
        // The file's length is a hint only (it may change while we read).
        b.read_exact_from(&mut f, hint).or_else(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                Ok(())
            } else {
                Err(e)
            }
        })?;
        let rest = AlignedBuf::read_to_end_from(&mut f)?;
        b.extend_from_slice(rest.as_slice());
        Ok(b)
    }
}

/// Reads until `dst` is full or the reader ends; returns the bytes read.
fn read_fully<R: Read + ?Sized>(r: &mut R, dst: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while let Some(rest) = dst.get_mut(filled..) {
        if rest.is_empty() {
            break;
        }
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => filled += k.min(rest.len()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl AsRef<[u8]> for AlignedBuf {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl PartialEq for AlignedBuf {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for AlignedBuf {}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AlignedBuf({} bytes)", self.len)
    }
}

impl From<&[u8]> for AlignedBuf {
    fn from(b: &[u8]) -> Self {
        AlignedBuf::from_slice(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_exact_length() {
        for n in [0usize, 1, 63, 64, 65, 1000] {
            let data: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let b = AlignedBuf::from_slice(&data);
            assert_eq!(b.as_slice(), &data[..]);
            assert_eq!(b.len(), n);
            if n > 0 {
                assert_eq!(b.as_ptr() as usize % 64, 0);
            }
        }
    }

    #[test]
    fn grow_and_truncate_keep_zeros() {
        let mut b = AlignedBuf::from_slice(&[9; 100]);
        b.truncate(10);
        b.resize_zeroed(100);
        assert_eq!(&b[..10], &[9; 10]);
        assert!(b[10..].iter().all(|&x| x == 0));
        b.extend_from_slice(&[1, 2]);
        assert_eq!(b.len(), 102);
        assert_eq!(&b[100..], &[1, 2]);
    }

    #[test]
    fn read_exact_from_a_short_reader_fails_without_claimed_allocation() {
        let data = vec![7u8; 3000];
        let mut b = AlignedBuf::new();
        let e = b.read_exact_from(&mut &data[..], u64::MAX).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(b.is_empty());
        b.read_exact_from(&mut &data[..], 2000).unwrap();
        assert_eq!(b.as_slice(), &data[..2000]);
    }

    #[test]
    fn read_to_end_and_file() {
        let data: Vec<u8> = (0..(READ_CHUNK + 77)).map(|i| (i % 251) as u8).collect();
        let b = AlignedBuf::read_to_end_from(&mut &data[..]).unwrap();
        assert_eq!(b.as_slice(), &data[..]);
        let path = std::env::temp_dir().join(format!("kiln_aligned_{}.bin", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let f = AlignedBuf::read_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(f.as_slice(), &data[..]);
        assert_eq!(f.as_ptr() as usize % 64, 0);
    }
}
