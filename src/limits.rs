//! The caps that keep hostile input from allocating or recursing without
//! bound (spec section 6): one [`Limits`] value with one table of defaults,
//! applied alike when encoding and decoding.
//!
//! | cap | default | error past it |
//! |---|---|---|
//! | `max_count` (elements of a list/map, tensors in a directory) | 16,777,216 | LIMIT |
//! | `max_bytes` (one str/bytes value, tensor name or layout name) | 16 MiB | LIMIT |
//! | `max_depth` (nesting of seqs, maps, `Some` and enum variants) | 128 | LIMIT |
//! | `limit` (total bytes written or read, bincode's `with_limit`) | none | LIMIT |
//!
//! [`Options`](crate::Options) carries a `Limits` plus the choices that
//! are not caps; the tensor API, which has no such choices, takes a
//! `Limits` directly.

/// Default cap on the count of any list, map or tensor directory.
pub const DEFAULT_MAX_COUNT: u64 = 16_777_216;
/// Default cap on the bytes of one str/bytes value, tensor name or layout name.
pub const DEFAULT_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Default cap on nesting depth.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

/// Caps on counts, lengths, nesting and total size. Cheap to copy.
///
/// # Examples
///
/// ```
/// use kiln_serde::Limits;
/// let limits = Limits::new().with_max_count(1000);
/// assert_eq!(limits.max_count(), 1000);
/// assert_eq!(limits.max_depth(), kiln_serde::limits::DEFAULT_MAX_DEPTH);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub(crate) max_count: u64,
    pub(crate) max_bytes: u64,
    pub(crate) max_depth: u32,
    pub(crate) limit: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new()
    }
}

impl Limits {
    /// `Limits::new()` as a constant.
    pub const DEFAULT: Limits = Limits::new();

    /// The defaults of the table above.
    pub const fn new() -> Self {
        Limits {
            max_count: DEFAULT_MAX_COUNT,
            max_bytes: DEFAULT_MAX_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            limit: None,
        }
    }

    /// Cap on the count of any list, map or tensor directory.
    pub const fn with_max_count(mut self, n: u64) -> Self {
        self.max_count = n;
        self
    }

    /// Cap on the bytes of one str/bytes value, tensor name or layout name.
    pub const fn with_max_bytes(mut self, n: u64) -> Self {
        self.max_bytes = n;
        self
    }

    /// Cap on nesting depth (spec section 6).
    pub const fn with_max_depth(mut self, n: u32) -> Self {
        self.max_depth = n;
        self
    }

    /// Cap on the total size of one encoded or decoded value (like bincode's
    /// `with_limit`). Past it: LIMIT.
    pub const fn with_limit(mut self, n: u64) -> Self {
        self.limit = Some(n);
        self
    }

    /// Removes the total size cap (the default).
    pub const fn with_no_limit(mut self) -> Self {
        self.limit = None;
        self
    }

    /// The count cap.
    pub const fn max_count(&self) -> u64 {
        self.max_count
    }

    /// The byte cap for one str/bytes/name.
    pub const fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The depth cap.
    pub const fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// The total size cap, if any.
    pub const fn limit(&self) -> Option<u64> {
        self.limit
    }
}
