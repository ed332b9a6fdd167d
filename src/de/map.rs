//! A map's entries: each key's sort bytes compared with the key before it,
//! so keys must strictly increase (spec 2.1).
//!
//! A slice compares the keys where they lie in the input. A stream cannot
//! look back, so its keys are read by a deserializer of their own over a
//! [`KeyRead`](crate::read::KeyRead), which records the bytes it reads; the
//! stream's other reads test nothing for it (`read::Tally::within`).

use serde::de::{self, DeserializeSeed};

use super::Decoder;
use crate::error::{Error, ErrorCode, Result};
use crate::read::Read;

pub(super) struct MapAccess<'a, R> {
    pub(super) de: &'a mut Decoder<R>,
    pub(super) left: usize,
    pub(super) hint: usize,
    /// Capture range of the previous key's sort bytes.
    pub(super) prev: Option<(usize, usize)>,
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for MapAccess<'_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let de = &mut *self.de;
        let at = de.read.offset();
        let start = de.read.mark();
        de.last_str = (usize::MAX, usize::MAX);
        de.set_in_key(de.in_key + 1);
        let r = if R::KEYS_APART {
            de.recorded_key(seed)
        } else {
            seed.deserialize(&mut *de)
        };
        let end = de.read.mark();
        de.set_in_key(de.in_key - 1);
        let key = r?;
        let cur = if de.last_str == (start + 4, end) {
            (start + 4, end)
        } else {
            (start, end)
        };
        if let Some(prev) = self.prev {
            if de.read.captured(prev.0, prev.1) >= de.read.captured(cur.0, cur.1) {
                return Err(Error::at(
                    ErrorCode::Type,
                    at,
                    "map keys are not in strictly increasing canonical order",
                ));
            }
        }
        self.prev = Some(cur);
        Ok(Some(key))
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.hint.min(self.left))
    }
}

impl<'de, R: Read<'de>> Decoder<R> {
    /// Sets the number of map keys open, and with it `str_bar` (0 inside
    /// a key: every str/bytes count takes `bytes_slow`, which records it).
    #[inline]
    fn set_in_key(&mut self, in_key: u32) {
        self.in_key = in_key;
        self.str_bar = if in_key > 0 {
            0
        } else {
            self.limits.max_bytes.saturating_add(1)
        };
    }

    /// One map key of a stream, read by a deserializer over the stream's
    /// [`Read::Key`] reader with this one's state (depth, size-hint budget,
    /// scratch buffer), which it takes back afterwards.
    #[inline]
    fn recorded_key<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<K::Value> {
        let mut kd = Decoder {
            read: self.read.key_reader(),
            scratch: std::mem::take(&mut self.scratch),
            depth: self.depth,
            hinted: self.hinted,
            limits: self.limits,
            last_str: self.last_str,
            in_key: self.in_key,
            str_bar: self.str_bar,
            seq_left: 0,
            seq_hint: 0,
        };
        let r = seed.deserialize(&mut kd);
        let Decoder {
            scratch,
            depth,
            hinted,
            last_str,
            in_key,
            ..
        } = kd;
        self.scratch = scratch;
        self.depth = depth;
        self.hinted = hinted;
        self.last_str = last_str;
        self.in_key = in_key;
        r
    }
}
