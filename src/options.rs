//! Caps and reader choices: one [`Options`] value with one table of defaults.
//!
//! | option | default | error past it |
//! |---|---|---|
//! | `max_count` (elements of a list/map, tensors in a directory) | 16,777,216 | LIMIT |
//! | `max_bytes` (one str/bytes value, tensor name or layout name) | 16 MiB | LIMIT |
//! | `max_depth` (nesting of seqs/maps/structs/enums/options) | 128 | LIMIT |
//! | `limit` (total bytes written or read, bincode's `with_limit`) | none | LIMIT |
//! | `trailing` (bytes after a standalone value) | rejected | TRAILING |
//! | `require_hash` (framed reading: frame must carry a hash) | no | SCHEMA |
//!
//! The free functions of the crate root use exactly `Options::default()`.

/// Default cap on the count of any list, map or tensor directory.
pub const DEFAULT_MAX_COUNT: u64 = 16_777_216;
/// Default cap on the bytes of one str/bytes value, tensor name or layout name.
pub const DEFAULT_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Default cap on nesting depth.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

/// Caps and choices for encoding and decoding. Cheap to copy.
///
/// # Examples
///
/// ```
/// let opts = kiln_serde::Options::default().with_max_count(1000).with_max_depth(16);
/// let bytes = opts.to_vec(&vec![1u8, 2, 3]).unwrap();
/// let back: Vec<u8> = opts.from_slice(&bytes).unwrap();
/// assert_eq!(back, [1, 2, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub(crate) max_count: u64,
    pub(crate) max_bytes: u64,
    pub(crate) max_depth: u32,
    pub(crate) limit: Option<u64>,
    pub(crate) allow_trailing: bool,
    pub(crate) require_hash: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// The defaults of the table above.
    pub const fn new() -> Self {
        Options {
            max_count: DEFAULT_MAX_COUNT,
            max_bytes: DEFAULT_MAX_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            limit: None,
            allow_trailing: false,
            require_hash: false,
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

    /// Cap on nesting depth of seqs, maps, structs, enums and options.
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

    /// Accept bytes after a standalone value instead of failing with TRAILING.
    pub const fn allow_trailing_bytes(mut self, allow: bool) -> Self {
        self.allow_trailing = allow;
        self
    }

    /// For framed reading: fail with SCHEMA when the frame carries no hash.
    pub const fn require_hash(mut self, require: bool) -> Self {
        self.require_hash = require;
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
