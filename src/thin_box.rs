//! `ThinBox<T>`: an owned heap value whose pointer is stored as two `u32`
//! halves, so the handle has the alignment of a `u32` (4) instead of a
//! pointer's (8).
//!
//! This is the crate's only `unsafe` code, and it exists for a measured
//! reason. [`Error`](crate::Error) used to be a plain `Box`. In a
//! `Result<Option<T>, Error>` (what serde's `SeqAccess::next_element`
//! returns for every struct field and element) the box pointer then sits at
//! offset 8, on top of bytes 8..16 of `T`. When those bytes are two `f32`
//! fields (`Vector3 { x, y, z }`), LLVM cannot split the slot: it keeps it
//! in memory, writes the two floats and reads them back as one 8-byte value,
//! a store-forwarding stall on every element. With the derived code of the
//! `mesh` benchmark that was 2.6x postcard's decode time (postcard's error is
//! one byte). With the pointer stored as two 4-byte halves, the error
//! overlaps only whole 4-byte fields, which LLVM splits and keeps in
//! registers. See BENCHMARKS.md, "mesh decode".

use std::marker::PhantomData;
use std::mem::ManuallyDrop;

/// An owned `T` on the heap, behind a 4-byte-aligned handle.
pub(crate) struct ThinBox<T> {
    lo: u32,
    hi: u32,
    _owns: PhantomData<Box<T>>,
}

// SAFETY: a `ThinBox<T>` owns its `T` exactly as a `Box<T>` does (one
// owner, freed once in `drop`), so it may cross threads when `T` may.
unsafe impl<T: Send> Send for ThinBox<T> {}
// SAFETY: `&ThinBox<T>` only hands out `&T` (as `&Box<T>` does).
unsafe impl<T: Sync> Sync for ThinBox<T> {}

impl<T> ThinBox<T> {
    /// Moves `value` to the heap.
    pub(crate) fn new(value: T) -> Self {
        let addr = Box::into_raw(Box::new(value)).expose_provenance() as u64;
        ThinBox {
            lo: addr as u32,
            hi: (addr >> 32) as u32,
            _owns: PhantomData,
        }
    }

    #[inline]
    fn ptr(&self) -> *mut T {
        let addr = (u64::from(self.hi) << 32) | u64::from(self.lo);
        // `addr` came from `Box::into_raw` in `new`, so it fits in usize.
        std::ptr::with_exposed_provenance_mut(addr as usize)
    }

    /// Takes the value back as a `Box`.
    pub(crate) fn into_box(self) -> Box<T> {
        let this = ManuallyDrop::new(self);
        // SAFETY: the pointer came from `Box::into_raw` in `new` (its
        // provenance was exposed there), and `this` is never dropped, so the
        // box is rebuilt exactly once.
        unsafe { Box::from_raw(this.ptr()) }
    }
}

impl<T> std::ops::Deref for ThinBox<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the pointer is a live, aligned `T` from `Box::into_raw`
        // in `new`; it is freed only by `drop`/`into_box`, which need the
        // `ThinBox` by value, so it outlives this borrow of `self`.
        unsafe { &*self.ptr() }
    }
}

impl<T> std::ops::DerefMut for ThinBox<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only borrow.
        unsafe { &mut *self.ptr() }
    }
}

impl<T> Drop for ThinBox<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `new`; `drop` runs
        // once and `into_box` skips it, so the box is freed exactly once.
        drop(unsafe { Box::from_raw(self.ptr()) });
    }
}

#[cfg(test)]
mod tests {
    use super::ThinBox;

    #[test]
    fn holds_reads_writes_and_frees() {
        let mut b = ThinBox::new(String::from("kiln"));
        assert_eq!(&*b, "kiln");
        b.push_str("_serde");
        assert_eq!(&*b, "kiln_serde");
        assert_eq!(*b.into_box(), "kiln_serde");
        let v: Vec<ThinBox<Vec<u8>>> = (0..64).map(|i| ThinBox::new(vec![i; 100])).collect();
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, b)| b.len() == 100 && b[0] == i as u8));
    }

    #[test]
    fn handle_is_two_u32s() {
        assert_eq!(std::mem::align_of::<ThinBox<u64>>(), 4);
        assert_eq!(std::mem::size_of::<ThinBox<u64>>(), 8);
    }

    #[test]
    fn crosses_threads() {
        let b = ThinBox::new(vec![1u32, 2, 3]);
        let sum = std::thread::spawn(move || b.iter().sum::<u32>())
            .join()
            .unwrap();
        assert_eq!(sum, 6);
    }
}
