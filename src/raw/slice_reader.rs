//! Piece 12 of the `unsafe` pieces (see `raw.rs`): `from_reader`'s reader
//! taken as the byte slice it is.

use std::io::Cursor;

/// Runs `f` over the bytes of `r` when `R` is a byte slice, `&[u8]` or
/// `&mut &[u8]` (bincode's `deserialize_from(&mut input)`), or a cursor
/// over one, `Cursor<&[u8]>`, `Cursor<Vec<u8>>`, `Cursor<&Vec<u8>>`,
/// `Cursor<Box<[u8]>>`, `Cursor<&mut [u8]>` or `Cursor<&mut Vec<u8>>`, by
/// value or `&mut`; and moves the slice (the cursor's position) past the
/// first `used` bytes, where `(u, used)` is what `f` returns (`used` is
/// capped at the bytes handed to `f`). A cursor hands over the bytes from
/// its position on (none when it is past the end). `None`, and `f` not
/// called, for every other reader. The type test is on `TypeId`s with
/// lifetimes erased, a constant after monomorphization.
///
/// `f` gets the bytes for its own call only (a higher-ranked lifetime), so
/// nothing it returns can borrow them; what is stored back is a subslice of
/// the caller's own slice, or a cursor position.
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
    } else if let Some(c) = cursor::<R, &[u8]>(r) {
        return Some(from_cursor(c, f));
    } else if let Some(c) = cursor::<R, Vec<u8>>(r) {
        return Some(from_cursor(c, f));
    } else if let Some(c) = cursor::<R, &Vec<u8>>(r) {
        return Some(from_cursor(c, f));
    } else if let Some(c) = cursor::<R, Box<[u8]>>(r) {
        return Some(from_cursor(c, f));
    } else if let Some(c) = cursor::<R, &mut [u8]>(r) {
        return Some(from_cursor(c, f));
    } else if let Some(c) = cursor::<R, &mut Vec<u8>>(r) {
        return Some(from_cursor(c, f));
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

/// `r` as the `Cursor<B>` it is, by value or behind a `&mut`; `B`'s
/// lifetime, if it has one, is the caller's choice of `r`'s borrow.
#[inline(always)]
fn cursor<'r, R, B: 'r>(r: &'r mut R) -> Option<&'r mut Cursor<B>> {
    if typeid::of::<R>() == typeid::of::<Cursor<B>>() {
        // SAFETY: `R` is `Cursor<B'>` where `B'` is `B` up to lifetimes
        // (`&'b [u8]`, `&'b Vec<u8>`, `&'b mut [u8]` or `&'b mut Vec<u8>`
        // with `'b` outliving `'r`, since `R: 'r`; `Vec<u8>` and
        // `Box<[u8]>` have none): the same layout. The cursor is used for
        // `'r` only, to read its bytes (shared, through `AsRef`) and set
        // its position, never to store a `B` or write through one, so the
        // shorter lifetime is never written into the caller's cursor.
        Some(unsafe { &mut *(r as *mut R).cast::<Cursor<B>>() })
    } else if typeid::of::<R>() == typeid::of::<&mut Cursor<B>>() {
        // SAFETY: `R` is `&'a mut Cursor<B'>` (`B'` as above), so `r`
        // points at a valid `&mut Cursor<B'>`, and the cursor it points at
        // is valid and unaliased while `r` is borrowed; used as above.
        Some(unsafe { &mut **(r as *mut R).cast::<*mut Cursor<B>>() })
    } else {
        None
    }
}

/// [`with_slice_reader`] for a cursor: the bytes from its position on, and
/// the position moved past `used` of them (left as it was when `used` is
/// 0: a position past the end stays where it is).
#[inline(always)]
fn from_cursor<B: AsRef<[u8]>, U>(c: &mut Cursor<B>, f: impl FnOnce(&[u8]) -> (U, usize)) -> U {
    let pos = c.position();
    let all = c.get_ref().as_ref();
    let bytes = usize::try_from(pos)
        .ok()
        .and_then(|p| all.get(p..))
        .unwrap_or_default();
    let (u, used) = f(bytes);
    // `used <= bytes.len()`, so `pos + used` is at most the cursor's length.
    let used = used.min(bytes.len());
    c.set_position(pos + used as u64);
    u
}
