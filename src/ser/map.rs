//! Map state (spec 2.1): entries are written in arrival order straight
//! into the output; when a key arrives out of order, the entries are
//! sorted by their keys' sort bytes when the map ends, and a duplicate key
//! is TYPE.

use serde::ser::{self, Serialize};

use super::out::Out;
use super::{KeySer, Serializer};
use crate::error::{Error, ErrorCode, Result};

/// One entry of an open map: its key's sort bytes and its whole range in
/// the output.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) key: (usize, usize),
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Map state: entries are written in arrival order straight into the
/// buffer; when a key arrives out of order, the entries are sorted by key
/// sort bytes at the end (spec 2.1).
pub struct MapSer<'a, 'w, O: Out> {
    pub(super) ser: &'a mut Serializer<'w, O>,
    pub(super) count_at: usize,
    /// Index of this map's first entry in `ser.entries`.
    pub(super) base: usize,
    pub(super) sorted: bool,
    pub(super) key: (usize, usize),
    pub(super) entry_start: usize,
}

impl<O: Out> MapSer<'_, '_, O> {
    /// Sort bytes of an entry's key: a key that is exactly one str/bytes
    /// value sorts by content without the count.
    #[inline]
    fn sort_range(ser: &Serializer<'_, O>, start: usize, end: usize) -> (usize, usize) {
        if ser.last_str == (start + 4, end) {
            (start + 4, end)
        } else {
            (start, end)
        }
    }
}

impl<O: Out> ser::SerializeMap for MapSer<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let start = self.ser.out.len();
        self.ser.last_str = (usize::MAX, usize::MAX);
        key.serialize(KeySer(&mut *self.ser))?;
        let end = self.ser.out.len();
        let k = Self::sort_range(self.ser, start, end);
        if self.sorted && self.ser.entries.len() > self.base {
            let prev = self.key;
            // A full slice has no keys to compare: the result is an error.
            if let Some(w) = self.ser.out.written() {
                if w[prev.0..prev.1] >= w[k.0..k.1] {
                    self.sorted = false;
                }
            }
        }
        self.key = k;
        self.entry_start = start;
        Ok(())
    }

    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)?;
        self.ser.entries.push(Entry {
            key: self.key,
            start: self.entry_start,
            end: self.ser.out.len(),
        });
        Ok(())
    }

    fn end(self) -> Result<()> {
        let ser = self.ser;
        let n = ser.entries.len() - self.base;
        let count = u32::try_from(n).map_err(|_| {
            Error::new_fmt(
                ErrorCode::Limit,
                Some(ser.flushed + self.count_at as u64),
                format_args!("map count {n} is above the wire maximum 4,294,967,295"),
            )
        })?;
        let at = self.count_at;
        if let Some(c) = ser.out.written_mut().and_then(|w| w.get_mut(at..at + 4)) {
            c.copy_from_slice(&count.to_le_bytes());
        }
        // A full slice has nothing to sort: the result is an error.
        if let (false, Some(out)) = (self.sorted, ser.out.written()) {
            let region_start = self.count_at + 4;
            let entries = &mut ser.entries[self.base..];
            entries.sort_unstable_by(|a, b| out[a.key.0..a.key.1].cmp(&out[b.key.0..b.key.1]));
            for w in entries.windows(2) {
                if out[w[0].key.0..w[0].key.1] == out[w[1].key.0..w[1].key.1] {
                    let at = ser.flushed + region_start as u64;
                    ser.entries.truncate(self.base);
                    return Err(Error::at(ErrorCode::Type, at, "duplicate map key"));
                }
            }
            let mut sorted = Vec::with_capacity(out.len() - region_start);
            for e in entries.iter() {
                sorted.extend_from_slice(&out[e.start..e.end]);
            }
            ser.out.truncate(region_start);
            ser.out.put(&sorted);
        }
        ser.entries.truncate(self.base);
        // The last str seen is no longer a key candidate after reordering.
        ser.last_str = (usize::MAX, usize::MAX);
        ser.pending -= 1;
        ser.depth -= 1;
        ser.maybe_flush()
    }
}
