//! Piece 12 of the `unsafe` pieces (see `raw.rs`): `from_reader`'s reader
//! taken as the byte slice it is.

/// Runs `f` over the bytes of `r` when `R` is a byte slice, `&[u8]` or
/// `&mut &[u8]` (bincode's `deserialize_from(&mut input)`), and moves the
/// slice past the first `used` bytes, where `(u, used)` is what `f`
/// returns (`used` is capped at the slice's length); `None`, and `f` not
/// called, for every other reader. The type test is on `TypeId`s with
/// lifetimes erased, a constant after monomorphization.
///
/// `f` gets the bytes for its own call only (a higher-ranked lifetime), so
/// nothing it returns can borrow them; what is stored back is a subslice of
/// the caller's own slice.
#[inline(always)]
pub(crate) fn with_slice_reader<R, U>(r: &mut R, f: impl FnOnce(&[u8]) -> (U, usize)) -> Option<U> {
    let slot: *mut &[u8] = if typeid::of::<R>() == typeid::of::<&[u8]>() {
        // `R` is `&'b [u8]`: `r` points at the slice itself.
        (r as *mut R).cast::<&[u8]>()
    } else if typeid::of::<R>() == typeid::of::<&mut &[u8]>() {
        // SAFETY: `R` is `&'a mut &'b [u8]` for some `'a`, `'b` (the same
        // type up to lifetimes), so `r` points at a valid `&mut &[u8]`;
        // reading it gives the address of the caller's slice, which stays
        // valid and unaliased while `r` is borrowed here.
        unsafe { *(r as *mut R).cast::<*mut &[u8]>() }
    } else {
        return None;
    };
    // SAFETY: `slot` points at a live `&'b [u8]` (above), reachable only
    // through `r`, which this function holds exclusively; the copy read out
    // is handed to `f` for `f`'s call only.
    let bytes: &[u8] = unsafe { *slot };
    let (u, used) = f(bytes);
    let rest = bytes.get(used..).unwrap_or_default();
    // SAFETY: `rest` is a subslice of the slice read from `slot`, so it is
    // valid for the same `'b` that the caller's slice is; `slot` is still
    // valid and unaliased (as above).
    unsafe { *slot = rest };
    Some(u)
}
