//! When the allocator refuses, `to_extend` reports LIMIT and leaves the
//! buffer as it was, rather than aborting: its second pass (a value that
//! did not fit the spare capacity) reserves the room the first pass showed
//! it needs with `try_reserve`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use kiln_serde::ErrorCode;

/// The system allocator, refusing to grow any block of this thread while
/// [`refusing`] runs (a `Vec` that grows reallocates; the error's own
/// message is a new block, and is served).
struct Refusing;

thread_local! {
    static REFUSE: Cell<bool> = const { Cell::new(false) };
}

fn refused() -> bool {
    REFUSE.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: delegates to the system allocator, or returns null (an allowed
// answer to any request).
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout contract, forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused() {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Refusing = Refusing;

/// Runs `f` with every reallocation of this thread refused.
fn refusing<R>(f: impl FnOnce() -> R) -> R {
    REFUSE.with(|r| r.set(true));
    let out = f();
    REFUSE.with(|r| r.set(false));
    out
}

#[test]
fn a_value_past_the_spare_capacity_is_limit_when_memory_is_refused() {
    let value = vec![7u8; 100];
    let mut out = Vec::with_capacity(24);
    out.extend_from_slice(b"keep");
    let e = refusing(|| kiln_serde::to_extend(&mut out, &value)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    // The room the first pass showed it needs: one byte more than the 20
    // bytes of spare capacity.
    assert!(e.to_string().contains("needs at least 21 bytes"), "{e}");
    assert_eq!(out, b"keep");
    assert_eq!(out.capacity(), 24);
    // With memory, the same call appends the value.
    kiln_serde::to_extend(&mut out, &value).unwrap();
    assert_eq!(out[4..], kiln_serde::to_vec(&value).unwrap()[..]);
}

#[test]
fn a_value_in_the_spare_capacity_grows_nothing() {
    let mut out = Vec::with_capacity(64);
    let n = refusing(|| {
        kiln_serde::to_extend(&mut out, &(7u32, "hi")).unwrap();
        out.len()
    });
    assert_eq!(out[..n], [7, 0, 0, 0, 2, 0, 0, 0, b'h', b'i']);
}
