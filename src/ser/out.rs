//! Where the serializer's bytes go: a growing `Vec` (`to_vec`,
//! `to_extend`, and the buffer of the streaming sinks) or a caller's fixed
//! `&mut [u8]` (`to_slice`).
//!
//! A full slice does not stop the serializer: it stops storing bytes,
//! keeps counting them, and `to_slice` then reports how many the value
//! needs. While it is full there are no bytes to patch or to sort, so map
//! sorting and count patches are skipped; the value's own errors (a count
//! above the wire maximum, nesting too deep) still come first.

/// The serializer's output buffer.
pub trait Out {
    /// Whether the buffer is drained into a writer or a counter as it
    /// fills (`to_writer`, `serialized_size`): the flush checks compile
    /// away when false.
    const STREAM: bool;

    /// Bytes written so far (counted even when not stored).
    fn len(&self) -> usize;

    /// Appends `b`.
    fn put(&mut self, b: &[u8]);

    /// Appends one byte.
    fn push(&mut self, b: u8);

    /// Appends a 4-byte count and then `b`.
    fn put_counted(&mut self, count: u32, b: &[u8]);

    /// Cuts the output back to `n` bytes (`n <= len`).
    fn truncate(&mut self, n: usize);

    /// Every byte written, or `None` when some were not stored.
    fn written(&self) -> Option<&[u8]>;

    /// As [`written`](Self::written), to patch in place.
    fn written_mut(&mut self) -> Option<&mut [u8]>;
}

/// A `Vec` that is the result (`to_vec`, `to_extend`).
pub struct VecOut(pub Vec<u8>);

/// A `Vec` drained into a writer or a counter (`to_writer`,
/// `serialized_size`).
pub struct StreamOut(pub Vec<u8>);

macro_rules! vec_out {
    ($t:ident, $stream:literal) => {
        impl Out for $t {
            const STREAM: bool = $stream;

            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }

            #[inline]
            fn put(&mut self, b: &[u8]) {
                self.0.extend_from_slice(b);
            }

            #[inline]
            fn push(&mut self, b: u8) {
                self.0.push(b);
            }

            #[inline]
            fn put_counted(&mut self, count: u32, b: &[u8]) {
                crate::raw::put_counted(&mut self.0, count, b);
            }

            #[inline]
            fn truncate(&mut self, n: usize) {
                self.0.truncate(n);
            }

            #[inline]
            fn written(&self) -> Option<&[u8]> {
                Some(&self.0)
            }

            #[inline]
            fn written_mut(&mut self) -> Option<&mut [u8]> {
                Some(&mut self.0)
            }
        }
    };
}

vec_out!(VecOut, false);
vec_out!(StreamOut, true);

/// A caller's fixed buffer. Once a write does not fit, `full` is set,
/// nothing more is stored and `len` goes on counting.
pub struct SliceOut<'s> {
    buf: &'s mut [u8],
    len: usize,
    full: bool,
}

impl<'s> SliceOut<'s> {
    /// An empty output over `buf`.
    pub fn new(buf: &'s mut [u8]) -> Self {
        SliceOut {
            buf,
            len: 0,
            full: false,
        }
    }

    /// Whether some bytes did not fit.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The buffer's size.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }
}

impl Out for SliceOut<'_> {
    const STREAM: bool = false;

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn put(&mut self, b: &[u8]) {
        let end = self.len.saturating_add(b.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => dst.copy_from_slice(b),
            None => self.full = true,
        }
        self.len = end;
    }

    #[inline]
    fn push(&mut self, b: u8) {
        match self.buf.get_mut(self.len) {
            Some(dst) => *dst = b,
            None => self.full = true,
        }
        self.len = self.len.saturating_add(1);
    }

    #[inline]
    fn put_counted(&mut self, count: u32, b: &[u8]) {
        let end = self.len.saturating_add(4).saturating_add(b.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                let (head, tail) = dst.split_at_mut(4);
                head.copy_from_slice(&count.to_le_bytes());
                tail.copy_from_slice(b);
            }
            None => self.full = true,
        }
        self.len = end;
    }

    #[inline]
    fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n);
    }

    #[inline]
    fn written(&self) -> Option<&[u8]> {
        if self.full {
            None
        } else {
            self.buf.get(..self.len)
        }
    }

    #[inline]
    fn written_mut(&mut self) -> Option<&mut [u8]> {
        if self.full {
            None
        } else {
            self.buf.get_mut(..self.len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_slice_counts_on_and_stores_nothing_more() {
        let mut buf = [0u8; 6];
        let mut o = SliceOut::new(&mut buf);
        o.put(&[1, 2]);
        o.push(3);
        assert_eq!(o.written(), Some(&[1, 2, 3][..]));
        o.put_counted(1, &[9]);
        assert!(o.is_full());
        assert_eq!((o.len(), o.written()), (8, None));
        o.push(4);
        o.put(&[5; 3]);
        assert_eq!(o.len(), 12);
        assert!(o.written_mut().is_none());
        assert_eq!(buf, [1, 2, 3, 0, 0, 0]);

        let mut buf = [0u8; 7];
        let mut o = SliceOut::new(&mut buf);
        o.put_counted(2, &[7, 8]);
        o.push(1);
        o.truncate(6);
        assert_eq!(o.written(), Some(&[2, 0, 0, 0, 7, 8][..]));
        assert!(!o.is_full());
    }
}
