//! Unit tests of [`fill_spare`] and [`WriteCursor::room`]: what a pass
//! over a `Vec`'s spare capacity takes into its length, and what one that
//! did not fit shows (`.ci/run` runs them under valgrind, as `raw::`).

use super::{fill_spare, FillSpare, Short, WriteCursor};

/// Writes 10 bytes.
struct Writes;
impl FillSpare for Writes {
    type Error = &'static str;
    fn fill<'s>(self, mut c: WriteCursor<'s>) -> Result<WriteCursor<'s>, &'static str> {
        c.put(&[1, 2, 3]);
        c.push(4);
        c.put_counted::<false>(2, &[5, 6]);
        Ok(c)
    }
}

/// Writes, then fails.
struct Fails;
impl FillSpare for Fails {
    type Error = &'static str;
    fn fill<'s>(self, mut c: WriteCursor<'s>) -> Result<WriteCursor<'s>, &'static str> {
        c.put(&[9; 4]);
        Err("stop")
    }
}

/// Hands back a cursor over another buffer (only a `'static` one
/// outlives every `'s`).
struct Elsewhere(&'static mut [u8]);
impl FillSpare for Elsewhere {
    type Error = &'static str;
    fn fill<'s>(self, _: WriteCursor<'s>) -> Result<WriteCursor<'s>, &'static str> {
        let mut c = WriteCursor::new(self.0);
        c.put(&[1, 2]);
        Ok(c)
    }
}

#[test]
fn a_cursor_over_spare_capacity_commits_only_where_it_wrote() {
    for cap in [0usize, 3, 8, 10, 20] {
        let mut v: Vec<u8> = Vec::with_capacity(cap + 2);
        v.extend_from_slice(&[0xAA, 0xBB]);
        let fits = 3 + 1 + 6 <= v.capacity() - v.len();
        let left = fill_spare(&mut v, Writes);
        if fits {
            assert_eq!(left, Ok(None), "cap {cap}");
            assert_eq!(v, [0xAA, 0xBB, 1, 2, 3, 4, 2, 0, 0, 0, 5, 6]);
        } else {
            // At least one byte more than the spare capacity.
            let more = cap + 1;
            assert_eq!(left, Ok(Some(Short::Need(more))), "cap {cap}");
            assert_eq!(v, [0xAA, 0xBB]);
        }
    }
    // A failing fill leaves the Vec as it was, whatever it wrote.
    let mut v: Vec<u8> = Vec::with_capacity(16);
    assert_eq!((fill_spare(&mut v, Fails), v.len()), (Err("stop"), 0));
    // A cursor handed back over another buffer (bytes written elsewhere)
    // is refused, and the Vec is unchanged.
    let mut v: Vec<u8> = Vec::with_capacity(16);
    v.push(1);
    let other: &'static mut [u8] = Box::leak(Box::new([0u8; 4]));
    // Kept reachable, so valgrind's leak check (CI) does not count it.
    static KEEP: std::sync::atomic::AtomicPtr<u8> =
        std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
    KEEP.store(other.as_mut_ptr(), std::sync::atomic::Ordering::Relaxed);
    let spare = v.capacity() - v.len();
    let more = spare + 1;
    assert_eq!(
        fill_spare(&mut v, Elsewhere(other)),
        Ok(Some(Short::Need(more)))
    );
    assert_eq!(v, [1]);
}

/// Writes 3 bytes, then asks room for `.0` more, then writes 2.
struct Asks(usize);
impl FillSpare for Asks {
    type Error = &'static str;
    fn fill<'s>(self, mut c: WriteCursor<'s>) -> Result<WriteCursor<'s>, &'static str> {
        c.put(&[1, 2, 3]);
        if !c.room(self.0) {
            return Err("no room");
        }
        c.put(&[4, 5]);
        Ok(c)
    }
}

#[test]
fn a_room_test_refused_makes_the_cursor_full() {
    for (spare, ask) in [
        (16usize, 13usize),
        (16, 14),
        (16, 40),
        (5, 2),
        (5, 3),
        (3, 1),
    ] {
        let mut v: Vec<u8> = Vec::with_capacity(spare);
        let spare = v.capacity();
        let fits = 3 + ask <= spare;
        let mut c = WriteCursor::new_uninit(v.spare_capacity_mut());
        c.put(&[1, 2, 3]);
        assert_eq!(c.room(ask), fits, "spare {spare}, ask {ask}");
        // Refused: full, as after a write that did not fit, so nothing
        // more is stored.
        assert_eq!(c.is_full(), !fits);
        assert_eq!(c.written().is_none(), !fits);
        assert_eq!(c.put(&[9]), fits && 3 < spare);
        // The fill ends at a refusal: `out` is unchanged.
        let r = fill_spare(&mut v, Asks(ask));
        if fits {
            assert_eq!(r, Ok(None));
            assert_eq!(v, [1, 2, 3, 4, 5]);
        } else {
            assert_eq!(r, Err("no room"));
            assert!(v.is_empty());
        }
    }
}

/// Writes 3 bytes, asks room for `.0` more, and writes 2 either way (a
/// `Serialize` impl that goes on after the error).
struct AsksAndGoesOn(usize);
impl FillSpare for AsksAndGoesOn {
    type Error = &'static str;
    fn fill<'s>(self, mut c: WriteCursor<'s>) -> Result<WriteCursor<'s>, &'static str> {
        c.put(&[1, 2, 3]);
        c.room(self.0);
        c.put(&[4, 5]);
        Ok(c)
    }
}

#[test]
fn a_pass_refused_by_a_room_test_may_fit() {
    let mut v: Vec<u8> = Vec::with_capacity(8);
    let spare = v.capacity();
    // Asked for more than the room: the value may fit (no lower bound
    // but 0, not one more than the room). The writes after the refusal
    // are not stored.
    assert_eq!(
        fill_spare(&mut v, AsksAndGoesOn(spare + 7)),
        Ok(Some(Short::Asked))
    );
    assert!(v.is_empty());
    let mut c = WriteCursor::new_uninit(v.spare_capacity_mut());
    c.put(&[1, 2, 3]);
    assert!(!c.room(spare));
    assert_eq!((c.is_full(), c.written()), (true, None));
    assert!(!c.put(&[4]) && !c.push(5) && !c.room(1));
    assert_eq!(c.short(spare), Short::Asked);
    // A write refused first: one more byte than the room, whatever a room
    // test asked afterwards.
    let mut c = WriteCursor::new_uninit(v.spare_capacity_mut());
    assert!(!c.put(&vec![0; spare + 1]));
    assert!(!c.room(1));
    assert_eq!(c.short(spare), Short::Need(spare + 1));
    // Asked for room the buffer has: it fits.
    assert_eq!(fill_spare(&mut v, AsksAndGoesOn(spare - 3)), Ok(None));
    assert_eq!(v, [1, 2, 3, 4, 5]);
}

/// `reopen` undoes a refused room test only: over initialized bytes (a
/// `[u8]`, not a `Vec`'s spare capacity), full by room tests alone, back
/// to a mark before the end. A reborrow writes on from there, and `resume`
/// takes its position over the same buffer only.
#[test]
fn a_refused_room_test_reopened_at_a_mark() {
    let mut buf = [0u8; 8];
    let mut c = WriteCursor::new(&mut buf);
    c.put(&[1, 2, 3]);
    let mark = c.mark();
    assert_eq!(mark, -5);
    // Not refused: nothing to undo.
    assert!(!c.reopen(mark));
    c.push(4);
    assert!(!c.room(16) && c.asked() && c.is_full());
    assert_eq!(c.len(), 8);
    // A mark at or past the end (one taken once full) is refused, and
    // one before the start.
    assert_eq!(c.mark(), 0);
    assert!(!c.reopen(0) && !c.reopen(1) && !c.reopen(-9) && c.is_full());
    assert!(c.reopen(mark));
    assert!(!c.is_full() && !c.asked());
    assert_eq!(c.written(), Some(&[1, 2, 3][..]));
    let spot = {
        let mut r = c.reborrow();
        r.put_counted::<false>(1, &[9]);
        r.spot()
    };
    assert_eq!(c.len(), 3);
    assert!(c.resume(spot));
    assert_eq!(c.written(), Some(&[1, 2, 3, 1, 0, 0, 0, 9][..]));
    // Another buffer's spot changes nothing.
    let mut other = [0u8; 8];
    let o = WriteCursor::new(&mut other);
    assert!(!c.resume(o.spot()));
    assert_eq!(c.len(), 8);

    // A write that did not fit is no room test's: not reopened.
    let mut buf = [0u8; 4];
    let mut c = WriteCursor::new(&mut buf);
    c.put(&[1; 5]);
    assert!(c.is_full() && !c.asked() && !c.reopen(-4));
    // Nor is a cursor over uninitialized bytes.
    let mut v: Vec<u8> = Vec::with_capacity(8);
    let mut c = WriteCursor::new_uninit(v.spare_capacity_mut());
    c.push(1);
    assert!(!c.room(64) && c.asked() && !c.reopen(-8));
}
