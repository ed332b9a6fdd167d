//! [`Layout`]: where the parts of a validated directory block lie (what
//! [`validate`](fn@super::validate) returns, and what views and owned
//! directories keep).

use super::layout::HEADER_LEN;

/// Where a tensor's name and layout name start, relative to the heap start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeapRef {
    pub name: u32,
    pub layout: u32,
}

/// A named tensor in [`Layout`]'s sorted list: where its name lies in
/// the heap and its index, so that a search step reads the name alone.
/// (Through the tensor's descriptor and heap index, a lookup among 1,000
/// five-byte names took 1,013 instructions, now 831: callgrind, LTO.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NameRef {
    /// Name start, relative to the heap start.
    pub off: u32,
    pub len: u32,
    pub index: u32,
}

impl NameRef {
    /// The name's bytes in `heap` (the block from the heap start on);
    /// empty when out of range, which a validated layout never is.
    #[inline]
    pub(crate) fn name<'h>(&self, heap: &'h [u8]) -> &'h [u8] {
        let at = self.off as usize;
        heap.get(at..at.saturating_add(self.len as usize))
            .unwrap_or_default()
    }
}

/// The shape of a validated directory block: its length and where its parts
/// start. Returned by [`validate`](fn@super::validate); views and owned directories keep it.
#[derive(Clone, PartialEq, Eq)]
pub struct Layout {
    pub(super) len: usize,
    pub(super) count: u32,
    pub(super) heap_start: usize,
    pub(super) heap_bytes: u32,
    pub(super) payload_start: usize,
    pub(super) payload_bytes: u64,
    /// Per tensor heap offsets; empty when the heap is empty.
    pub(super) heap_index: Vec<HeapRef>,
    /// The named tensors sorted by name bytes (the duplicate check sorts
    /// them anyway), for a binary-search `by_name`.
    pub(crate) by_name: Vec<NameRef>,
}

impl Layout {
    /// Length of the whole block (`P + payload_bytes`): the next Frozen
    /// field starts here.
    pub fn block_len(&self) -> usize {
        self.len
    }

    /// Number of tensors.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Start of the name heap (`32 + 128*count`).
    pub fn heap_start(&self) -> usize {
        self.heap_start
    }

    /// Length of the name heap.
    pub fn heap_bytes(&self) -> u32 {
        self.heap_bytes
    }

    /// Start of the payload region, `P` (a multiple of 64).
    pub fn payload_start(&self) -> usize {
        self.payload_start
    }

    /// Length of the payload region.
    pub fn payload_bytes(&self) -> u64 {
        self.payload_bytes
    }

    /// The layout of the empty directory (64 bytes).
    pub(crate) const fn empty() -> Self {
        Layout {
            len: 64,
            count: 0,
            heap_start: HEADER_LEN,
            heap_bytes: 0,
            payload_start: 64,
            payload_bytes: 0,
            heap_index: Vec::new(),
            by_name: Vec::new(),
        }
    }

    pub(crate) fn heap_ref(&self, i: u32) -> HeapRef {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.heap_index.get(i))
            .copied()
            .unwrap_or_default()
    }
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layout")
            .field("block_len", &self.len)
            .field("count", &self.count)
            .field("heap_start", &self.heap_start)
            .field("heap_bytes", &self.heap_bytes)
            .field("payload_start", &self.payload_start)
            .field("payload_bytes", &self.payload_bytes)
            .finish()
    }
}
