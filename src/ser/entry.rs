//! The entry points' passes: where each output's bytes go (a new or
//! reused `Vec`, a caller's slice, a writer, a counter), how many times the
//! value's `Serialize` runs for it, and how sizes and errors come back.

use std::cell::RefCell;
use std::io;

use serde::Serialize;

use super::out::{pass, Out, SliceOut, StreamOut, VecOut};
use super::{size, Serializer, Sink};
use crate::error::{Error, ErrorCode, ErrorDetail, Result};
use crate::limits::Limits;
use crate::raw::{FillSpare, Short, VecCursor, WriteCursor};

/// Serializes into a new `Vec`.
#[inline]
pub(crate) fn to_vec<T: ?Sized + Serialize>(value: &T, limits: &Limits) -> Result<Vec<u8>> {
    fill_new(buffer_for(value, limits, 0), &[], value, limits)
}

/// An empty buffer with room for `head` bytes and then `value`, sized by a
/// counting pre-pass ([`size`]) so that the output is written into
/// one allocation instead of a doubling series (each growth copies the
/// bytes so far and touches fresh pages). The room is capped by the
/// options' total limit, and a failed reservation just starts small.
/// Always inlined: as its own function (no LTO) the call, the saved
/// registers and the `Vec` passed back through memory were 30 of a
/// 32-byte message's 328 `to_vec` instructions (callgrind, `tick32`).
#[inline(always)]
pub(crate) fn buffer_for<T: ?Sized + Serialize>(
    value: &T,
    limits: &Limits,
    head: usize,
) -> Vec<u8> {
    let body = size::hint(value).unwrap_or(64);
    let body = match limits.limit {
        Some(limit) => body.min(usize::try_from(limit).unwrap_or(usize::MAX)),
        None => body,
    };
    let want = head.saturating_add(body);
    if want <= SMALL {
        // Infallible and cheapest (try_reserve costs ~35 instructions more,
        // 10% of a 32-byte message's encode).
        return Vec::with_capacity(want);
    }
    // Large: fallible, so that a value whose real pass fails early (a str
    // above the wire maximum) is not preceded by an abort on allocation;
    // and room past the value for the room tests of its last fields
    // ([`fill_new`]). A buffer this large is the only kind whose capacity
    // is above `SMALL`.
    let mut out = Vec::new();
    if out
        .try_reserve_exact(want.saturating_add(super::FIELDS_ROOM))
        .is_err()
    {
        out.reserve(head + 64);
    }
    out
}

/// Output sizes allocated with the plain infallible `with_capacity`, and
/// exactly: above it [`buffer_for`] reserves `FIELDS_ROOM` bytes more.
const SMALL: usize = 64 * 1024;

/// Serializes, appending to `out` (a reused buffer: no second copy as with
/// `to_writer`). On error `out` is left as it was.
pub(crate) fn to_extend<T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    value: &T,
    limits: &Limits,
) -> Result<()> {
    extend_with(out, &[], value, limits)
}

/// Appends `head` (a frame header, or nothing) and then `value` to `out`:
/// error offsets count the header, the size limit does not. On error `out`
/// is cut back to its old length.
///
/// With spare capacity (a reused buffer), the bytes go there through
/// `to_slice`'s cursor ([`extend_spare`]), which keeps its position in a
/// register. When they do not fit, that pass stops storing at the write
/// that did not, and a second pass writes the value into the growing
/// `Vec` ([`extend_grow`]); it must write more than the spare capacity
/// held, as the first needed (else MESSAGE: a `Serialize` impl that
/// cannot run twice). Without spare capacity the value goes in that one
/// pass.
#[inline(always)]
pub(crate) fn extend_with<const N: usize, T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<()> {
    if out.capacity() == out.len() {
        return extend_grow(out, *head, value, limits);
    }
    let Some(short) = extend_spare::<{ pass::REUSED }, N, T>(out, head, value, limits)? else {
        return Ok(());
    };
    extend_again(out, short, *head, value, limits)
}

/// [`extend_with`]'s second pass, after the first did not fit in the
/// spare capacity (`short`: what it showed): into the growing `Vec`. Out
/// of line, so that the first pass alone is inlined into the entry point.
#[inline(never)]
fn extend_again<const N: usize, T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    short: Short,
    head: [u8; N],
    value: &T,
    limits: &Limits,
) -> Result<()> {
    // The room the first pass showed the value needs, reserved fallibly
    // (a value too large to hold is LIMIT, not an abort); the rest, if
    // any, grows. After a room test (which says only that the value may
    // not fit), at least the most a first room test asks for (a frame
    // header's: `N + FIELDS_ROOM`), and one byte more than the spare
    // capacity (so a `Vec` at least doubles): kept for
    // the next call into this buffer, whose first pass then fits, where a
    // buffer cleared and reused for messages of one shape would otherwise
    // take two passes each time.
    let (need, want) = match short {
        Short::Asked => {
            let room = out.capacity() - out.len();
            (0, (N + super::FIELDS_ROOM).max(room.saturating_add(1)))
        }
        Short::Need(n) => (n, n),
    };
    if out.try_reserve(want).is_err() && out.try_reserve(need).is_err() {
        return Err(too_big_to_hold(need));
    }
    let start = out.len();
    extend_grow(out, head, value, limits)?;
    if out.len() - start < need {
        out.truncate(start);
        return Err(second_pass_differs(need));
    }
    Ok(())
}

/// [`extend_with`] into `out`'s spare capacity: `Ok(None)` with the bytes
/// appended, or `Ok(Some(short))` with `out` unchanged when they did not
/// fit (for a `PASS` with room tests, also when a struct's room test
/// refused: see [`SliceOut`]).
/// Always inlined into [`extend_with`]'s first pass (the second is
/// [`extend_again`], out of line): callgrind, `tick32`
/// `to_extend` / `framed::to_extend` / `Schema::to_extend`, no LTO 127 /
/// 171 / 139 -> 111 / 144 / 121 instructions, LTO 55 / 90 / 79 -> 53 /
/// 71 / 66; inlined at both calls, LTO `to_extend` got slower (60.6).
#[inline(always)]
fn extend_spare<const PASS: u8, const N: usize, T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<Option<Short>> {
    let start = out.len();
    crate::raw::fill_spare(
        out,
        SpareFill::<PASS, N, T> {
            head,
            value,
            limits,
            start,
        },
    )
}

/// [`extend_spare`]'s writes through the spare capacity's cursor.
struct SpareFill<'a, const PASS: u8, const N: usize, T: ?Sized> {
    head: &'a [u8; N],
    value: &'a T,
    limits: &'a Limits,
    /// `out`'s length before.
    start: usize,
}

impl<const PASS: u8, const N: usize, T: ?Sized + Serialize> FillSpare
    for SpareFill<'_, PASS, N, T>
{
    type Error = Error;

    #[inline(always)]
    fn fill<'s>(self, cur: WriteCursor<'s>) -> Result<WriteCursor<'s>> {
        let out = SliceOut::<'s, PASS>::from_cursor(cur);
        let mut ser = Serializer::with_sink(out, Sink::None, self.limits);
        // Offsets count the bytes already in `out`.
        ser.flushed = self.start as u64;
        let r = ser.write_value(self.start + N, self.head, self.value, self.limits.limit);
        match r {
            // A write that did not fit: the cursor, full, goes back (the
            // next pass gives the value's own errors, if any, with offsets
            // that count every byte).
            Err(e) if !e.is_full_pending() && !ser.out.is_full() => Err(e),
            _ => Ok(ser.out.into_cursor()),
        }
    }
}

#[cold]
#[inline(never)]
fn too_big_to_hold(n: usize) -> Error {
    Error::new_fmt(
        ErrorCode::Limit,
        None,
        format_args!("the value needs at least {n} bytes, more than can be allocated"),
    )
}

#[cold]
#[inline(never)]
fn second_pass_differs(n: usize) -> Error {
    Error::new_fmt(
        ErrorCode::Message,
        None,
        format_args!(
            "the value's Serialize impl wrote less on its second call than its first showed \
             it needs (at least {n} bytes, in a buffer whose spare capacity it ran out of); \
             encode it with to_writer, or into a buffer with room"
        ),
    )
}

/// [`extend_with`] into a growing `Vec`, written through a cursor that
/// keeps the position, pointer and capacity apart from the `Vec` (`raw`
/// piece 11); its length is set once at the end. On error the `Vec` is
/// cut back to what it held. `head` comes by value (in registers), as in
/// [`extend_again`]: by reference, a header built from a hash was stored
/// to the stack on every call for these cold calls' sake (callgrind, a
/// 32-byte message, `framed::to_extend` LTO / no LTO 36.5 / 37.5 -> 34.5 /
/// 35.5 instructions).
#[inline(never)]
fn extend_grow<const N: usize, T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    head: [u8; N],
    value: &T,
    limits: &Limits,
) -> Result<()> {
    grow_into::<false, N, T>(out, &head, value, limits)
}

/// [`extend_grow`]'s body, inlined into `to_writer`'s `&mut Vec<u8>` path
/// (bincode's `serialize_into`, with `WRITER`), as [`extend_spare`] is
/// into `to_extend`. Called out of line there, the value's `serialize`
/// was a call of its own writing through a cursor in memory: a 32-byte
/// message into a reused `Vec`, one API per program (`benches/alone`),
/// took 11.1 ns with LTO, now 3.8 (bincode 1.3 8.1-8.7). Without LTO the
/// derive's `serialize` stays a call when it sits in another codegen unit
/// than the caller (its own module), inlined or not here.
#[inline(always)]
fn grow_into<const WRITER: bool, const N: usize, T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<()> {
    let start = out.len();
    let pass = GrowPass::<WRITER, N, T> {
        head,
        value,
        limits,
        start,
    };
    let r = crate::raw::append(out, pass);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// [`grow_into`]'s pass, run by `raw::append` on a cursor after the
/// `Vec`'s bytes.
struct GrowPass<'p, const WRITER: bool, const N: usize, T: ?Sized> {
    head: &'p [u8; N],
    value: &'p T,
    limits: &'p Limits,
    start: usize,
}

impl<const WRITER: bool, const N: usize, T: ?Sized + Serialize> crate::raw::Append
    for GrowPass<'_, WRITER, N, T>
{
    type Output = Result<()>;

    #[inline(always)]
    fn append<'v>(self, cur: VecCursor<'v, false>) -> (VecCursor<'v, false>, Result<()>) {
        let mut ser =
            Serializer::with_sink(VecOut::<WRITER>::from_cursor(cur), Sink::None, self.limits);
        let r = ser.write_value(self.start + N, self.head, self.value, self.limits.limit);
        (ser.out.into_cursor(), r)
    }
}

/// Writes `head` (a frame header, or nothing) and then `value` into `out`,
/// a new empty buffer from [`buffer_for`] (sized by a counting pass), and
/// returns it: through `to_slice`'s cursor into the room reserved, or,
/// when the count was short (a `Serialize` impl whose size changes
/// between calls), by a third pass into the growing `Vec`.
///
/// A buffer of the value's exact size takes a room test per fixed-width
/// write (`pass::NEW`). One above [`SMALL`] has `FIELDS_ROOM` bytes more,
/// which every room test of a struct's fields (`Serializer::fields`) fits
/// in when the count was right, so it is filled as a reused buffer is,
/// with one test for a struct's fields (`pass::NEW_ROOMY`). Both passes
/// are inlined here: out of line, the large one's code sat in another
/// codegen unit of the user's crate than the derive's `serialize`, which
/// it then called (no LTO, a record type beside its `to_vec`: +16%).
#[inline(always)]
pub(crate) fn fill_new<const N: usize, T: ?Sized + Serialize>(
    out: Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<Vec<u8>> {
    if out.capacity() > SMALL {
        fill_pass::<{ pass::NEW_ROOMY }, N, T>(out, head, value, limits)
    } else {
        fill_pass::<{ pass::NEW }, N, T>(out, head, value, limits)
    }
}

/// [`fill_new`]'s pass of kind `PASS` into `out`'s spare capacity.
#[inline(always)]
fn fill_pass<const PASS: u8, const N: usize, T: ?Sized + Serialize>(
    mut out: Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<Vec<u8>> {
    if extend_spare::<PASS, N, T>(&mut out, head, value, limits)?.is_some() {
        // The counting pass was short (a `Serialize` impl whose size
        // changes between calls; with room tests, only a short count
        // makes one refuse): this third pass grows the `Vec`.
        return third_pass(out, head, value, limits);
    }
    Ok(out)
}

/// [`fill_new`]'s third pass, taking the `Vec` by value: lent to an
/// out-of-line call, `fill_new`'s `Vec` had to live in memory, and its
/// new length, stored there, was reloaded at once as part of a 16-byte
/// move of the result (a store-forwarding stall).
#[inline(never)]
fn third_pass<const N: usize, T: ?Sized + Serialize>(
    mut out: Vec<u8>,
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<Vec<u8>> {
    extend_grow(&mut out, *head, value, limits)?;
    Ok(out)
}

/// Writes `head` (a frame header, or nothing) and then `value` into the
/// front of `buf` and returns the bytes written: LIMIT, with
/// [`ErrorDetail::BufferFull`] holding the size needed, when they do not
/// fit (the value's own errors come first).
#[inline(always)]
pub(crate) fn fill_slice<const N: usize, T: ?Sized + Serialize>(
    buf: &mut [u8],
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<usize> {
    let capacity = buf.len();
    let (r, full, len) = if capacity > ROOMY_SLICE {
        let mut ser = Serializer::with_sink(
            SliceOut::<{ pass::SLICE_ROOM }>::over(&mut *buf),
            Sink::None,
            limits,
        );
        let r = ser.write_value(N, head, value, limits.limit);
        if ser.out.is_asked() {
            // A room test refused outside any sequence element or map
            // value (`ser/retry.rs`): the value again, a test per write.
            slice_again(buf, head, value, limits)
        } else {
            (r, ser.out.is_full(), ser.out.len())
        }
    } else {
        slice_pass(buf, head, value, limits)
    };
    match r {
        Ok(()) if !full => Ok(len),
        Err(e) if !full && !e.is_full_pending() => Err(e),
        // It did not fit: what it needs (more than the buffer, whatever a
        // second call of its `Serialize` says), or its own error (which
        // comes first), from a counting pass. An error of the first pass
        // once full is not kept: its offset counted no bytes past the end.
        _ => {
            let n = needed(head, value, limits)?;
            Err(buffer_full(n.max(capacity as u64 + 1), capacity))
        }
    }
}

/// [`fill_slice`]'s pass with a test per write (`pass::SLICE`): its
/// result, whether some bytes did not fit, and the bytes written.
#[inline(always)]
fn slice_pass<const N: usize, T: ?Sized + Serialize>(
    buf: &mut [u8],
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> (Result<()>, bool, usize) {
    let mut ser = Serializer::with_sink(SliceOut::new(buf), Sink::None, limits);
    let r = ser.write_value(N, head, value, limits.limit);
    (r, ser.out.is_full(), ser.out.len())
}

/// [`slice_pass`] after a room test's refusal that no element retried:
/// out of line, as it is rare.
#[cold]
#[inline(never)]
fn slice_again<const N: usize, T: ?Sized + Serialize>(
    buf: &mut [u8],
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> (Result<()>, bool, usize) {
    slice_pass(buf, head, value, limits)
}

/// [`fill_slice`] tests a struct's room only in a slice longer than this:
/// in a smaller one a small value's room test (16 bytes a field) would
/// refuse and have the value written twice. A 32-byte, 8-field struct,
/// its type beside the call, no LTO / LTO: into a slice of 32 to 100
/// bytes 1.43 / 1.33 ns with a test per write, 2.90 / 1.44 with room
/// tests at every size, 1.35 / 1.44-1.58 with this threshold; into 4 KiB
/// 1.42 / 1.33 -> 1.07 / 1.11.
const ROOMY_SLICE: usize = 1024;

/// The bytes `head` and then `value` take, counted by the real serializer
/// over a counting sink, or the value's own error, with the offsets its
/// pass into a buffer would give: `to_slice`'s size when the value did not
/// fit, and `serialized_size`'s when no cheaper count can vouch for it.
#[inline(never)]
fn needed<const N: usize, T: ?Sized + Serialize>(
    head: &[u8; N],
    value: &T,
    limits: &Limits,
) -> Result<u64> {
    let mut buf = Vec::new();
    let mut ser = Serializer::with_sink(StreamOut::new(&mut buf), Sink::Count, limits);
    ser.out.put_head(head);
    ser.prefix = N as u64;
    value.serialize(&mut ser)?;
    ser.finish()
}

#[cold]
#[inline(never)]
fn buffer_full(needed: u64, capacity: usize) -> Error {
    Error::detailed(
        ErrorCode::Limit,
        capacity as u64,
        ErrorDetail::BufferFull(needed),
        format_args!("the value needs {needed} bytes; the buffer holds {capacity}"),
    )
}

/// Serializes into an `io::Write`.
#[inline]
pub(crate) fn to_writer<W: io::Write, T: ?Sized + Serialize>(
    mut writer: W,
    value: &T,
    limits: &Limits,
) -> Result<()> {
    if let Some(v) = crate::raw::vec_writer(&mut writer) {
        // A `&mut Vec<u8>`: appended in one pass, as `to_extend` into a
        // full `Vec` does (one `Serialize` call, as for any writer; on
        // error the `Vec` is as it was). Offsets count from the value's
        // start, as for any writer, not from the `Vec`'s.
        let start = v.len() as u64;
        return grow_into::<true, 0, T>(v, &[], value, limits).map_err(|e| e.unshifted(start));
    }
    // The thread's staging buffer, borrowed in place; taken already (a
    // `Serialize` impl that calls `to_writer`) or torn down: a `Vec` of
    // the call's own.
    match STAGING.try_with(|cell| {
        cell.try_borrow_mut()
            .map(|mut staging| staged(&mut writer, value, limits, &mut staging))
    }) {
        Ok(Ok(r)) => r,
        _ => unstaged(&mut writer, value, limits),
    }
}

/// `to_writer` while this thread's staging buffer is in use (a
/// destructor or a `Serialize` impl serializes) or torn down: the value is
/// built whole in a `Vec` of its own, then written. Not through
/// [`staged`]: a second caller of the staging serializer kept the value's
/// `Serialize` from being inlined into the first (`tick32 serio`, LTO:
/// 150 -> 166 instructions).
#[cold]
#[inline(never)]
fn unstaged<W: io::Write, T: ?Sized + Serialize>(
    writer: &mut W,
    value: &T,
    limits: &Limits,
) -> Result<()> {
    let mut whole = Vec::new();
    extend_grow(&mut whole, [], value, limits)?;
    writer.write_all(&whole).map_err(|e| Error::io(e, Some(0)))
}

/// `to_writer` through the thread's staging buffer (its last call left
/// it, so a small message costs no allocation and no free), freed
/// afterwards if it grew large. Borrowed in place: taken out
/// of a `Cell` and put back, its three words were moved twice a call.
#[inline(always)]
fn staged<W: io::Write, T: ?Sized + Serialize>(
    writer: &mut W,
    value: &T,
    limits: &Limits,
    staging: &mut Vec<u8>,
) -> Result<()> {
    // Emptied here, not at the end: a call that unwound (a `Serialize`
    // impl or the writer panicked) left its bytes in it.
    staging.clear();
    if staging.capacity() == 0 {
        staging.reserve(256);
    }
    let mut ser = Serializer::with_sink(StreamOut::new(staging), Sink::Writer(writer), limits);
    let r = ser.write_value(0, &[], value, limits.limit);
    let flushed = ser.flushed;
    ser.out.finish();
    // The last (for a small value, the only) write, through `W` itself
    // rather than the serializer's `dyn Write`: a `BufWriter`'s copy into
    // its buffer is then inlined here.
    let r = r.and_then(|()| {
        writer
            .write_all(staging)
            .map_err(|e| Error::io(e, Some(flushed)))
    });
    if staging.capacity() > STAGING_KEEP {
        *staging = Vec::new();
    }
    r
}

thread_local! {
    /// `to_writer`'s staging buffer between calls on this thread
    /// (borrowed for a call, so a `Serialize` impl that calls `to_writer`
    /// itself gets a `Vec` of its own).
    static STAGING: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The largest staging capacity a thread keeps between `to_writer` calls:
/// enough for small messages, whose allocation and free cost more than
/// their encode; a larger value's buffer is freed as before.
const STAGING_KEEP: usize = 8 * 1024;

/// The number of bytes `to_vec` would produce.
pub(crate) fn serialized_size<T: ?Sized + Serialize>(value: &T, limits: &Limits) -> Result<u64> {
    // A counting pass when it can vouch for the result (no map, counts
    // within the wire maximum, within the size limit); else the real
    // serializer, so that every error is the one `to_vec` gives.
    if let Some(n) = size::exact(value, limits.max_depth) {
        if limits.limit.map_or(true, |limit| n <= limit) {
            return Ok(n);
        }
    }
    needed(&[], value, limits)
}
