//! A counting global allocator for tests that bound peak allocation.
//! Include with `#[path = "support/counting_alloc.rs"] mod counting_alloc;`
//! (it installs itself as the test binary's global allocator).
//!
//! Only the thread inside [`peak_during`] is counted, so the test harness
//! (other test threads, output capture) cannot add noise to a measurement.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Tests in one binary measure one at a time.
pub static SERIAL: Mutex<()> = Mutex::new(());

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn measuring() -> bool {
    MEASURING.try_with(Cell::get).unwrap_or(false)
}

fn grow(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::SeqCst) + n;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

fn shrink(n: usize) {
    // Blocks allocated before the measurement may be freed during it.
    let _ = CURRENT.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| {
        Some(c.saturating_sub(n))
    });
}

// SAFETY: delegates to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if measuring() {
            grow(layout.size());
        }
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if measuring() {
            shrink(layout.size());
        }
        // SAFETY: ptr came from System.alloc with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if measuring() {
            if new_size > layout.size() {
                grow(new_size - layout.size());
            } else {
                shrink(layout.size() - new_size);
            }
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak bytes allocated by this thread above the starting level while `f`
/// runs.
pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    MEASURING.with(|m| m.set(true));
    let r = f();
    MEASURING.with(|m| m.set(false));
    (r, PEAK.load(Ordering::SeqCst).saturating_sub(base))
}
