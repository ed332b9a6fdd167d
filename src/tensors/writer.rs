//! [`TensorsWriter`]: a directory streamed to an `io::Write` whose payloads
//! arrive one by one after every tensor's metadata, so a directory larger
//! than memory can be written. The layout is the builder's (one `plan`).

use std::io::{Read, Write};

use super::builder::{plan, TensorSpec};
use super::placement::Layout;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// The largest chunk [`TensorsWriter::copy_payload`] reads at a time.
pub const COPY_CHUNK: usize = 1 << 20;

/// Writes a tensor directory in its canonical layout (spec 5.7) from the
/// metadata of every tensor first and then each payload in turn, from a
/// slice or any reader.
///
/// [`TensorsWriter::new`] computes the whole layout and writes the header,
/// descriptors, name heap and pad before the first payload byte; the
/// payloads then follow in descriptor order, each after its zero gap. Every
/// payload's length is checked: a short source is an error, and after any
/// error the writer refuses to go on (the block written so far is
/// incomplete: write to a temporary file and rename it only after
/// [`finish`](Self::finish) succeeds). Memory use is the metadata plus one
/// [`COPY_CHUNK`] buffer, whatever the payload sizes.
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{Dtype, TensorSpec, TensorsView, TensorsWriter}, Limits};
/// let specs = vec![
///     TensorSpec::declared(Dtype::U8, &[3], 3).named("a"),
///     TensorSpec::declared(Dtype::F32, &[2], 8).named("b"),
/// ];
/// let mut w = TensorsWriter::new(Vec::new(), specs, &Limits::default()).unwrap();
/// w.write_payload(&[1, 2, 3]).unwrap();
/// w.copy_payload(&mut &[0u8, 0, 128, 63, 0, 0, 0, 64][..]).unwrap();
/// let bytes = w.finish().unwrap();
///
/// let view = TensorsView::from_bytes(&bytes, &Limits::default()).unwrap();
/// assert_eq!(view.by_name("b").unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0]);
/// ```
pub struct TensorsWriter<'a, W: Write> {
    w: W,
    specs: Vec<TensorSpec<'a>>,
    offsets: Vec<u64>,
    layout: Layout,
    total: u64,
    /// Index of the next payload.
    next: usize,
    /// Bytes of the block written so far.
    pos: u64,
    /// True after an error: the block is incomplete.
    failed: bool,
}

impl<'a, W: Write> TensorsWriter<'a, W> {
    /// Plans the directory of `specs` (their payload bytes, if any, are
    /// ignored: only [`TensorSpec::byte_length`] counts) and writes
    /// everything before the payload region to `w`.
    ///
    /// # Errors
    ///
    /// What [`TensorsBuilder::build`](super::TensorsBuilder::build) reports
    /// for the metadata (LIMIT, TYPE, UTF8), before anything is written; IO
    /// for a writer error.
    pub fn new(w: W, specs: Vec<TensorSpec<'a>>, limits: &Limits) -> Result<Self> {
        let specs: Vec<TensorSpec<'a>> = specs.into_iter().map(TensorSpec::without_data).collect();
        let p = plan(&specs, limits)?;
        let mut out = TensorsWriter {
            w,
            specs,
            offsets: p.offsets,
            layout: p.layout,
            total: p.total,
            next: 0,
            pos: 0,
            failed: false,
        };
        out.put(&p.meta)?;
        Ok(out)
    }

    /// The layout of the block being written.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The length of the whole block.
    pub fn block_len(&self) -> u64 {
        self.total
    }

    /// The tensor whose payload comes next, or `None` when all are written.
    pub fn next_tensor(&self) -> Option<&TensorSpec<'a>> {
        self.specs.get(self.next)
    }

    /// Writes the next tensor's payload from a slice.
    ///
    /// # Errors
    ///
    /// MESSAGE when every payload is already written or an earlier call
    /// failed; TYPE when `data` is not the declared length (nothing is
    /// written) or, for a packed 4-bit tensor with an odd element count,
    /// when the unused high nibble is not 0; IO for a writer error.
    pub fn write_payload(&mut self, data: &[u8]) -> Result<()> {
        let (i, want) = self.start()?;
        if data.len() as u64 != want {
            return Err(Error::new(
                ErrorCode::Type,
                None,
                format!(
                    "tensor {i}{}: the payload is {} bytes, {want} were declared",
                    self.who(i),
                    data.len()
                ),
            ));
        }
        self.gap(i)?;
        self.check_nibble(i, data.last().copied())?;
        self.put(data)?;
        self.next += 1;
        Ok(())
    }

    /// Writes the next tensor's payload by reading exactly its length from
    /// `r` in chunks of at most [`COPY_CHUNK`] bytes. Returns the bytes
    /// copied. Bytes after the payload are left in `r`.
    ///
    /// # Errors
    ///
    /// EOF (at the block offset where the source ended) when `r` ends
    /// early; IO for a reader or writer error; MESSAGE and TYPE as
    /// [`write_payload`](Self::write_payload). After an error the writer is
    /// unusable.
    pub fn copy_payload<R: Read + ?Sized>(&mut self, r: &mut R) -> Result<u64> {
        let (i, want) = self.start()?;
        self.gap(i)?;
        let chunk = usize::try_from(want).unwrap_or(usize::MAX).min(COPY_CHUNK);
        let mut buf = vec![0u8; chunk];
        let mut left = want;
        let mut last = None;
        while left > 0 {
            let n = usize::try_from(left).unwrap_or(usize::MAX).min(chunk);
            let dst = buf.get_mut(..n).unwrap_or_default();
            let got = match r.read(dst) {
                Ok(0) => {
                    self.failed = true;
                    return Err(Error::at(
                        ErrorCode::Eof,
                        self.pos,
                        format!(
                            "tensor {i}{}: the source ended after {} of {want} payload bytes",
                            self.who(i),
                            want - left
                        ),
                    ));
                }
                Ok(got) => got,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.failed = true;
                    return Err(Error::io(e, Some(self.pos)));
                }
            };
            let part = dst.get(..got).unwrap_or_default();
            last = part.last().copied().or(last);
            if left == got as u64 {
                self.check_nibble(i, last)?;
            }
            self.put(part)?;
            left -= got as u64;
        }
        if want == 0 {
            self.check_nibble(i, None)?;
        }
        self.next += 1;
        Ok(want)
    }

    /// Writes the next tensor's payload with `copy`, which is given the
    /// underlying writer and the payload length and must write exactly that
    /// many bytes, returning the count (for example `io::copy` from a
    /// `Take<File>` to a `File`, which the kernel can do without passing
    /// the bytes through user space). The writer does not see the bytes, so
    /// a packed 4-bit tensor with an odd element count, whose last nibble
    /// must be checked, is refused: use [`copy_payload`](Self::copy_payload).
    ///
    /// # Errors
    ///
    /// EOF when `copy` reports fewer bytes than the length, MESSAGE when it
    /// reports more or for an odd packed 4-bit tensor (before anything is
    /// written), IO for its error; MESSAGE as
    /// [`write_payload`](Self::write_payload). After an error the writer is
    /// unusable.
    pub fn write_payload_with<F>(&mut self, copy: F) -> Result<u64>
    where
        F: FnOnce(&mut W, u64) -> std::io::Result<u64>,
    {
        let (i, want) = self.start()?;
        if let Some(s) = self.specs.get(i) {
            let odd = s
                .shape()
                .iter()
                .try_fold(1u64, |a, &d| a.checked_mul(d))
                .is_some_and(|e| e % 2 == 1);
            if s.dtype().is_packed4() && odd {
                return Err(Error::new(
                    ErrorCode::Message,
                    None,
                    format!(
                        "tensor {i}{}: an odd packed 4-bit payload must go through copy_payload \
                         (its last nibble is checked)",
                        self.who(i)
                    ),
                ));
            }
        }
        self.gap(i)?;
        let at = self.pos;
        let got = match copy(&mut self.w, want) {
            Ok(n) => n,
            Err(e) => {
                self.failed = true;
                return Err(Error::io(e, Some(at)));
            }
        };
        self.pos = at.saturating_add(got);
        if got != want {
            self.failed = true;
            let code = if got < want {
                ErrorCode::Eof
            } else {
                ErrorCode::Message
            };
            return Err(Error::at(
                code,
                self.pos.min(at.saturating_add(want)),
                format!(
                    "tensor {i}{}: {got} payload bytes were written, {want} were declared",
                    self.who(i)
                ),
            ));
        }
        self.next += 1;
        Ok(want)
    }

    /// Checks that every payload was written, flushes and returns the
    /// writer.
    ///
    /// # Errors
    ///
    /// MESSAGE when a payload is missing or an earlier call failed; IO for
    /// a flush error.
    pub fn finish(mut self) -> Result<W> {
        if self.failed {
            return Err(poisoned());
        }
        if self.next != self.specs.len() {
            return Err(Error::new(
                ErrorCode::Message,
                None,
                format!(
                    "{} of {} payloads were written",
                    self.next,
                    self.specs.len()
                ),
            ));
        }
        self.w.flush().map_err(|e| Error::io(e, Some(self.pos)))?;
        Ok(self.w)
    }

    /// The next tensor's index and payload length.
    fn start(&self) -> Result<(usize, u64)> {
        if self.failed {
            return Err(poisoned());
        }
        match self.specs.get(self.next) {
            Some(s) => Ok((self.next, s.byte_length())),
            None => Err(Error::new(
                ErrorCode::Message,
                None,
                format!("all {} payloads are already written", self.specs.len()),
            )),
        }
    }

    /// ` ("name")` for messages, or nothing for an unnamed tensor.
    fn who(&self, i: usize) -> String {
        match self.specs.get(i).and_then(TensorSpec::name) {
            Some(n) => format!(" ({n:?})"),
            None => String::new(),
        }
    }

    /// The zero bytes between the running end and tensor `i`'s offset.
    fn gap(&mut self, i: usize) -> Result<()> {
        let start = self.layout.payload_start() as u64;
        let off = self.offsets.get(i).copied().unwrap_or(0);
        let target = start.saturating_add(off);
        let zeros = [0u8; 64];
        let n = usize::try_from(target.saturating_sub(self.pos)).unwrap_or(0);
        self.put(zeros.get(..n).unwrap_or_default())
    }

    /// Spec 5.3: an odd packed 4-bit tensor leaves its last high nibble 0.
    fn check_nibble(&mut self, i: usize, last: Option<u8>) -> Result<()> {
        let Some(s) = self.specs.get(i) else {
            return Ok(());
        };
        if !s.dtype().is_packed4() {
            return Ok(());
        }
        let odd = s
            .shape()
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .is_some_and(|e| e % 2 == 1);
        match last {
            Some(b) if odd && b & 0xF0 != 0 => {
                self.failed = true;
                Err(Error::new(
                    ErrorCode::Type,
                    None,
                    format!(
                        "tensor {i}{}: the unused high nibble of the last byte is not 0",
                        self.who(i)
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    fn put(&mut self, b: &[u8]) -> Result<()> {
        if let Err(e) = self.w.write_all(b) {
            self.failed = true;
            return Err(Error::io(e, Some(self.pos)));
        }
        self.pos += b.len() as u64;
        Ok(())
    }
}

#[cold]
fn poisoned() -> Error {
    Error::new(
        ErrorCode::Message,
        None,
        "an earlier write failed: the directory is incomplete",
    )
}

impl<W: Write> std::fmt::Debug for TensorsWriter<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorsWriter")
            .field("count", &self.specs.len())
            .field("next", &self.next)
            .field("written", &self.pos)
            .field("block_len", &self.total)
            .field("failed", &self.failed)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::{Dtype, TensorsBuilder};

    fn specs<'a>(a: &'a [u8], b: &'a [f32]) -> Vec<TensorSpec<'a>> {
        vec![
            TensorSpec::new(Dtype::U8, &[a.len() as u64], a).named("a"),
            TensorSpec::from_slice(&[b.len() as u64], b).named("b"),
            TensorSpec::new(Dtype::I4, &[3], &[0x21u8, 0x03][..]).named("c"),
        ]
    }

    #[test]
    fn same_bytes_as_the_builder() {
        let (a, b) = ([7u8; 65], [1.5f32, -2.0, 3.25]);
        let mut builder = TensorsBuilder::new();
        for s in specs(&a, &b) {
            builder.push(s);
        }
        let want = builder.build().unwrap();

        let sp = specs(&a, &b);
        let payloads: Vec<Vec<u8>> = sp.iter().map(|s| s.data().to_vec()).collect();
        let mut w = TensorsWriter::new(Vec::new(), sp, &Limits::default()).unwrap();
        assert_eq!(w.block_len(), want.as_bytes().len() as u64);
        // One from a slice, the others from readers in odd chunks.
        w.write_payload(&payloads[0]).unwrap();
        let mut r = std::io::Read::chain(&payloads[1][..5], &payloads[1][5..]);
        assert_eq!(w.copy_payload(&mut r).unwrap(), 12);
        w.copy_payload(&mut &payloads[2][..]).unwrap();
        assert!(w.next_tensor().is_none());
        assert_eq!(w.finish().unwrap(), want.as_bytes());
    }

    #[test]
    fn short_source_and_wrong_length_fail() {
        let (a, b) = ([7u8; 65], [1.5f32, -2.0, 3.25]);
        let mut w = TensorsWriter::new(Vec::new(), specs(&a, &b), &Limits::default()).unwrap();
        let e = w.write_payload(&[1, 2]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type);
        let meta = w.layout().payload_start() as u64;
        let e = w.copy_payload(&mut &a[..60]).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(meta + 60)));
        // Poisoned: neither more payloads nor finish succeed.
        assert_eq!(
            w.write_payload(&[0; 12]).unwrap_err().code(),
            ErrorCode::Message
        );
        assert_eq!(w.finish().unwrap_err().code(), ErrorCode::Message);
    }

    #[test]
    fn missing_payload_and_bad_nibble() {
        let (a, b) = ([7u8; 65], [1.5f32, -2.0, 3.25]);
        let mut w = TensorsWriter::new(Vec::new(), specs(&a, &b), &Limits::default()).unwrap();
        w.write_payload(&a).unwrap();
        assert_eq!(w.finish().unwrap_err().code(), ErrorCode::Message);

        let mut w = TensorsWriter::new(Vec::new(), specs(&a, &b), &Limits::default()).unwrap();
        w.write_payload(&a).unwrap();
        w.write_payload(bytemuck::cast_slice(&b)).unwrap();
        let e = w.copy_payload(&mut &[0x21u8, 0x13][..]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type);
        assert!(w.write_payload(&[]).is_err());
    }

    #[test]
    fn payload_with_a_closure() {
        let (a, b) = ([7u8; 65], [1.5f32, -2.0, 3.25]);
        let sp = specs(&a, &b);
        let want = {
            let mut builder = TensorsBuilder::new();
            for s in sp.clone() {
                builder.push(s);
            }
            builder.build().unwrap()
        };
        let mut w = TensorsWriter::new(Vec::new(), sp, &Limits::default()).unwrap();
        let n = w
            .write_payload_with(|out, n| std::io::copy(&mut std::io::Read::take(&a[..], n), out))
            .unwrap();
        assert_eq!(n, 65);
        w.write_payload_with(|out, _| {
            out.extend_from_slice(bytemuck::cast_slice(&b));
            Ok(12)
        })
        .unwrap();
        // The odd i4 tensor must take the checked path.
        let e = w.write_payload_with(|_, _| Ok(2)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Message);
        w.copy_payload(&mut &[0x21u8, 0x03][..]).unwrap();
        assert_eq!(w.finish().unwrap(), want.as_bytes());

        // A short copy is EOF and poisons the writer; a long one MESSAGE.
        let mut w = TensorsWriter::new(Vec::new(), specs(&a, &b), &Limits::default()).unwrap();
        let e = w.write_payload_with(|_, _| Ok(3)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof);
        assert!(w.write_payload(&b"x"[..]).is_err());
        let mut w = TensorsWriter::new(Vec::new(), specs(&a, &b), &Limits::default()).unwrap();
        let e = w.write_payload_with(|_, _| Ok(66)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Message);
    }

    #[test]
    fn metadata_faults_before_any_write() {
        let bad = vec![
            TensorSpec::declared(Dtype::F32, &[2], 8).named("x"),
            TensorSpec::declared(Dtype::F32, &[2], 7).named("y"),
        ];
        let mut out = Vec::new();
        let e = TensorsWriter::new(&mut out, bad, &Limits::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type);
        assert!(out.is_empty());
    }

    #[test]
    fn builder_rejects_declared_specs() {
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::declared(Dtype::U8, &[1], 1));
        assert_eq!(b.build().unwrap_err().code(), ErrorCode::Message);
        assert_eq!(
            b.write_to(Vec::new()).unwrap_err().code(),
            ErrorCode::Message
        );
    }
}
