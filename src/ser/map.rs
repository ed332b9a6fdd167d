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
    /// This map's entries, its own: a map nested in a value has its own,
    /// and the serializer holds none, so a value without maps builds and
    /// drops no stack of them (a 32-byte struct into a `Vec`'s spare
    /// capacity, its `serialize` a call of its own, no LTO: 96 -> 83
    /// instructions, 3.4 -> 3.0 ns). The allocation comes from and goes
    /// back to this thread's spare ([`SPARE`]).
    entries: Vec<Entry>,
    pub(super) sorted: bool,
    pub(super) key: (usize, usize),
    pub(super) entry_start: usize,
}

/// Entries past this many are not kept for the next map (32 bytes each).
const SPARE_MAX: usize = 4096;

thread_local! {
    /// This thread's spare entry allocation, taken by a map at its first
    /// entry and given back (emptied) when the map ends or is dropped.
    /// Taken, not borrowed: a map nested in another's value, or a
    /// `Serialize` impl that serializes on the side, finds it empty and
    /// allocates its own; a map moved to another thread gives it back
    /// there. Nothing here depends on which allocation a map gets.
    static SPARE: std::cell::Cell<Vec<Entry>> = const { std::cell::Cell::new(Vec::new()) };
}

impl<'a, 'w, O: Out> MapSer<'a, 'w, O> {
    /// A map whose count goes at `count_at` (4 bytes already written).
    #[inline]
    pub(super) fn new(ser: &'a mut Serializer<'w, O>, count_at: usize) -> Self {
        MapSer {
            ser,
            count_at,
            entries: Vec::new(),
            sorted: true,
            key: (0, 0),
            entry_start: 0,
        }
    }

    /// Records an entry, taking the thread's spare allocation first.
    #[inline]
    fn push(&mut self, e: Entry) {
        if self.entries.capacity() == 0 {
            self.entries = SPARE.try_with(std::cell::Cell::take).unwrap_or_default();
        }
        self.entries.push(e);
    }
}

impl<O: Out> Drop for MapSer<'_, '_, O> {
    /// Gives the entries' allocation back as the thread's spare (the larger
    /// of the two is kept, up to [`SPARE_MAX`]).
    fn drop(&mut self) {
        let mut mine = std::mem::take(&mut self.entries);
        if mine.capacity() == 0 || mine.capacity() > SPARE_MAX {
            return;
        }
        mine.clear();
        let _ = SPARE.try_with(|spare| {
            let theirs = spare.take();
            spare.set(if theirs.capacity() > mine.capacity() {
                theirs
            } else {
                mine
            });
        });
    }
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
        self.ser.last_str = super::NO_STR;
        key.serialize(KeySer(&mut *self.ser))?;
        let end = self.ser.out.len();
        let k = Self::sort_range(self.ser, start, end);
        if self.sorted && !self.entries.is_empty() {
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
        self.ser.element(value)?;
        let e = Entry {
            key: self.key,
            start: self.entry_start,
            end: self.ser.out.len(),
        };
        self.push(e);
        Ok(())
    }

    fn end(mut self) -> Result<()> {
        let n = self.entries.len();
        let count_at = self.count_at;
        let ser = &mut *self.ser;
        let count = u32::try_from(n).map_err(|_| {
            Error::new_fmt(
                ErrorCode::Limit,
                Some(ser.flushed + count_at as u64),
                format_args!("map count {n} is above the wire maximum 4,294,967,295"),
            )
        })?;
        if let Some(c) = ser
            .out
            .written_mut()
            .and_then(|w| w.get_mut(count_at..count_at + 4))
        {
            c.copy_from_slice(&count.to_le_bytes());
        }
        // A full slice has nothing to sort: the result is an error.
        if let (false, Some(out)) = (self.sorted, ser.out.written()) {
            let region_start = count_at + 4;
            let entries = &mut self.entries[..];
            entries.sort_unstable_by(|a, b| out[a.key.0..a.key.1].cmp(&out[b.key.0..b.key.1]));
            for w in entries.windows(2) {
                if out[w[0].key.0..w[0].key.1] == out[w[1].key.0..w[1].key.1] {
                    let at = ser.flushed + region_start as u64;
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
        // The last str seen is no longer a key candidate after reordering.
        ser.last_str = super::NO_STR;
        ser.pending -= 1;
        ser.depth -= 1;
        ser.maybe_flush()
    }
}
