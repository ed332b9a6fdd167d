//! All of the crate's `unsafe` code, thirteen pieces, each there for a measured
//! reason (the numbers are below, and the commits that added them carry the
//! measurements), each block with a `// SAFETY:` comment and unit tests
//! in `raw/tests.rs`.
//!
//! 1. [`ThinBox<T>`]: an owned heap value whose address is stored as a
//!    `NonZeroU64` in a `repr(packed(4))` struct, so the handle has the
//!    alignment of a `u32` (4) instead of a pointer's (8) and still a niche
//!    (`Result<(), Error>` stays 8 bytes, one register). [`Error`](crate::Error)
//!    used to be a plain `Box`. In a `Result<Option<T>, Error>` (what
//!    serde's `SeqAccess::next_element` returns for every struct field and
//!    element) the box pointer then sat on bytes 8..16 of `T`. When those
//!    bytes are two `f32` fields (`Vector3 { x, y, z }`), LLVM could not
//!    split the slot: it kept it in memory, wrote the two floats and read
//!    them back as one 8-byte value, a store-forwarding stall on every
//!    element (perf: 85% of the `mesh` decode samples on the instruction
//!    after that load; 2.6x postcard's time, whose error is one byte). At
//!    offset 4 the handle no longer pairs two floats: `mesh` decode went
//!    from 5.9 ms to 2.3-2.8 ms. Two variants measured worse: two `u32`
//!    halves without a niche (`Result<(), Error>` grew to 12 bytes: +4-15%
//!    serializer instructions) and a `NonZeroU32` low half (the niche let
//!    `Result<f32, Error>` pack into 8 bytes and LLVM stopped inlining the
//!    derived `Vector3::deserialize`: 2x the decode instructions).
//!    A handle can also hold a small number instead of an address (a
//!    *word*, bit 1 set): a slice read that finds too few bytes returns
//!    `Err` of a word (its width), a constant, where it called a function
//!    that built the error from the reader and so kept the whole decoder
//!    in memory. callgrind, LTO / no LTO, against the boxed pending error
//!    of e3332f3: `mesh` decode 11.63 -> 10.88 / 17.50 -> 16.63 M (the
//!    struct start offsets LLVM kept for the error path are gone where it
//!    sees the error is a word), `updates` 28.96 -> 28.28 / 30.46 -> 30.04,
//!    borrowed `log` 2.03 -> 1.94 / 2.52 -> 2.51.
//! 2. [`str_from_utf8`] (`raw/ascii.rs`): ASCII strings become `&str`
//!    after a word-at-a-time high-bit check instead of the UTF-8 state
//!    machine, which cost half of the instructions of the borrowed `log`
//!    decode (40,000 short strings). The two inner words of a string of
//!    4-64 bytes are read without a bounds check at offsets from a table
//!    checked at compile time (a `min` there became a mispredicting
//!    branch in some inlining contexts; the numbers are on `is_ascii`).
//!
//! 3. [`Cursor`] (`raw/cursor.rs`): the slice reader's position, with `pos <= len` as a
//!    type invariant, so `unread()` is `data[pos..]` without the check
//!    that safe code repeats on every read (LLVM cannot carry the bound
//!    across the stores to `pos`). callgrind, decode under the LTO bench
//!    profile: borrowed `log` 3.73M -> 3.46M instructions, `mesh` 18.63M
//!    -> 17.38M. `read_array` then tests `pos + N <= len` and reads the
//!    `N` bytes by pointer (a compare and a load: `len - pos >= N` took a
//!    copy, a subtraction and a compare): decode with LTO / without,
//!    `mesh` 15.63M -> 13.00M / 19.75M -> 17.50M, `updates` 34.98M ->
//!    34.39M / 40.72M -> 40.04M, borrowed `log` 3.60M -> 3.44M / 3.96M
//!    -> 3.81M. A short `read_array` moves it to the end, so the reads
//!    before it need not store the position: `mesh` decode without LTO
//!    16.63M -> 14.88M (the numbers are on `Cursor::read_array`).
//!    `window` (`de/window.rs`'s full window) tests `pos` against a limit
//!    kept from `new` and borrows the 256 bytes by pointer, where
//!    `data[pos..]`, then `get(..256)`, loaded the length and subtracted:
//!    `mesh` decode 3.50M -> 3.13M / 3.88M -> 3.63M (LTO / no LTO; 3 / 2
//!    instructions a triangle); the other rows within 0.03M (`updates`
//!    with LTO 27.89M -> 27.92M). In time, 12 alternated runs of the
//!    profile binary, within the noise (medians 595 -> 588 / 661 -> 655
//!    µs).
//!
//! 4. `put_counted` (now [`VecCursor::put_counted`], piece 11): a str/bytes value's count and content appended
//!    with one capacity check instead of two. callgrind, serialize under
//!    the LTO bench profile: `log` 2.10M -> 1.69M instructions (bincode 1:
//!    2.01M), `savedata` 2.43M -> 2.04M (bincode 1: 2.32M); reused buffer
//!    `log` 2.07M -> 1.66M, `savedata` 2.29M -> 1.90M. `append`, every
//!    other value's bytes, and `put_counted` then test the room as
//!    `len + n > capacity` (a compare) with an out-of-line `reserve`,
//!    where `extend_from_slice` and `reserve` test `capacity - len < n`
//!    (a copy, a subtraction, a compare). callgrind, to_vec and reused
//!    buffer, LTO / no LTO: `mesh` 13.88M -> 12.25M / 13.88M -> 12.75M,
//!    `updates` 10.23M -> 9.29M / 10.47M -> 9.57M, `log` 1.73M -> 1.59M
//!    / 1.75M -> 1.67M; `savedata` 1.92M -> 2.15M / 2.08M -> 2.22M
//!    (its `Item::serialize` stopped being inlined). `push` (one byte:
//!    tags, `bool`s, `u8`s) with the same out-of-line `reserve` in place of
//!    `Vec::push`'s own grow call, no LTO: `updates` 9.57M -> 9.40M,
//!    `savedata` 2.22M -> 2.18M, `log` 1.67M -> 1.64M (LTO: -0.04M at
//!    most).
//!
//! 5. [`Block64`]: the `bytemuck::Pod` impl of the 64-byte aligned block
//!    that [`AlignedBuf`](crate::tensors::AlignedBuf) stores, written by
//!    hand so that the library does not build bytemuck's derive macro (a
//!    second proc-macro crate in every user's build).
//!
//! 6. [`WriteCursor`] (`raw/write_cursor.rs`): `to_slice`'s position in
//!    the caller's buffer.
//!    `put` and `put_counted` test `pos + n <= len` once and copy by
//!    pointer, against the safe `buf.get_mut(pos..)?.get_mut(..n)`
//!    (callgrind, `to_slice`, LTO: `mesh` 16.88M -> 15.63M instructions,
//!    `log` 1.97M -> 1.91M, `savedata` 2.18M -> 2.13M, `updates` 11.90M ->
//!    11.51M), and the `len - pos >= n` form (a copy and a subtraction
//!    more; LTO / no LTO: `mesh` 11.38M -> 10.38M / 12.75M -> 11.88M,
//!    `log` 1.58M -> 1.39M / 1.63M -> 1.62M, `savedata` 1.78M -> 1.62M /
//!    1.85M -> 1.75M, `updates` 10.10M -> 9.06M / 9.84M -> 9.09M). A
//!    refused write moves the position to its end (counting) where it
//!    used to stay put: `mesh` 10.38M -> 7.88M / 11.88M -> 7.88M,
//!    `updates` 6.64M -> 4.25M / 6.50M -> 5.91M, `savedata` 1.62M ->
//!    1.54M / 1.75M -> 1.67M, `log` 1.39M -> 1.34M / 1.62M -> 1.56M.
//!    Moving it to one past the buffer's end and counting the rest in a
//!    second field gave `savedata` 1.80M / 1.80M and `updates` 5.94M /
//!    6.14M; without the count (a constant refusal LLVM computed before
//!    every test) `mesh` 10.88M. (`push` keeps its safe `get_mut(pos)`:
//!    the pointer form there cost `log` 0.06M without LTO.) The same
//!    cursor writes `to_extend`'s and `to_vec`'s bytes into the `Vec`'s
//!    spare capacity (`new_uninit`; `written` reads back only what it
//!    wrote), and [`fill_spare`] takes them into the length when the
//!    cursor handed back is the one over the `Vec`. callgrind, a
//!    reused buffer, LTO / no LTO: `mesh` 12.25M -> 7.88M / 12.75M ->
//!    7.88M, `updates` 6.86M -> 5.74M / 6.94M -> 5.91M, `savedata` 1.95M
//!    -> 1.54M / 2.00M -> 1.67M; `to_vec` `mesh` 12.25M -> 7.88M, `updates`
//!    7.33M -> 6.22M, `savedata` 2.12M -> 1.70M (LTO). `put_halves`
//!    writes a frame header as two 8-byte stores after one test (wall
//!    time, `framed::to_extend` of 32 bytes: 12.9 -> 5.8 ns). Session 39
//!    counts the position from the buffer's end (`at = pos - len`, a
//!    write fits when `at + n <= 0`): a fixed-width write's test is one
//!    compare of `at` with a constant, where `pos + n <= len` added
//!    first, and a run of floats (after the float stop, `ser/out.rs`)
//!    stores at constant offsets from one address, 4 instructions an
//!    `f32`. A refused write leaves the cursor full at the end (`at = 0`)
//!    with no count of what was asked: the same state for every refusal,
//!    which LLVM joins into one path (counting on past the end kept each
//!    refusal's position, a saturating sum per write: `tick32`
//!    `to_extend` 44.8 -> 56.6 instructions). The entry points learn
//!    what a value that did not fit needs from a pass of their own
//!    (`to_slice`'s counting pass, `to_extend`'s growing pass), as they
//!    already did for its errors. A string's test is one `lea` of
//!    `at + 4 + len` (`len` first tested against `isize::MAX - 4`, which
//!    LLVM drops after the serializer's `u32` count test). callgrind, LTO
//!    / no LTO, `to_vec` / reused buffer / `to_slice`: `mesh` 9.75 / 9.75
//!    / 8.13 -> 6.63 / 6.63 / 6.50 M and 9.75 -> 6.63 M, `updates` 6.00 /
//!    5.52 / 4.22 -> 5.66 / 5.19 / 4.20 M and 6.08 / 5.66 / 5.66 -> 5.78
//!    / 5.35 / 5.35 M, `savedata` 1.69 / 1.52 / 1.52 -> 1.67 / 1.50 /
//!    1.50 M and 1.82 / 1.67 / 1.67 -> 1.81 / 1.66 / 1.66 M, `log` 1.41 /
//!    1.33 / 1.33 -> 1.38 / 1.30 / 1.36 M and 1.63 / 1.56 / 1.56 -> 1.60
//!    / 1.53 / 1.53 M; `tick32` `to_extend` 44.8 -> 46.6 / 44.6 -> 45.6
//!    (the room as `-spare`, and the new length from it). Tried and
//!    slower: the room as an unsigned count with stores at `end - rem`
//!    (`savedata` 2.19 M, `updates` 7.53 M), and counting past the end
//!    with a saturating sum (above). Session 42: `room(n)`, a test
//!    without a write, before a struct's or tuple's fields
//!    (`Serializer::fields`, a reused buffer only: a refusal ends the
//!    pass, and the value may fit): knowing `at + n <= 0`, LLVM drops the
//!    tests of the writes it covers, and merges their stores. A refusal
//!    leaves the cursor as a refused write does (the position kept
//!    instead, `mesh` without LTO stored it after every `Vector3`: 2.88
//!    -> 3.38 M). callgrind, reused buffer, LTO / no LTO: `mesh` 6.63 /
//!    6.63 -> 3.00 / 2.88 M, `updates` 5.17 / 5.34 -> 3.74 / 4.29 M; the
//!    same test in `VecCursor` (`pos + n > cap`) left the fields' tests
//!    in place (`mesh` through `serialize_into` 10.00 -> 12.63 M); since
//!    session 44 `VecCursor` counts from the end too (piece 11).
//!
//! 7. `map_file` (feature `mmap`): the read-only file mapping behind
//!    `TensorsFile`; its contract is stated on the function.
//!
//! 8. [`fixed_seq`]: a `Vec<u8>`, `[u8]`, `Vec<bool>` or `[bool]` (and on
//!    little-endian targets a `Vec` or slice of any other integer, `f32`
//!    or `f64`) that serde hands to `collect_seq` is recognised by its
//!    lifetime-erased `TypeId` and read as the bytes it is, so the
//!    serializer appends it with one copy (the same bytes as one
//!    `serialize_*` call per element). callgrind, `updates` (155,000
//!    terrain bytes in `Vec<u8>`s), LTO / no LTO: to_vec 9.25M -> 7.35M /
//!    9.40M -> 7.36M, reused buffer 8.83M -> 6.93M / 9.04M -> 7.01M,
//!    `to_slice` 9.06M -> 6.64M / 9.09M -> 6.50M; the other datasets
//!    unchanged (the type tests fold away). A `Vec<f32>` of 1,000,000
//!    (`to_extend`, release): 6.50M -> 0.35M.
//!
//! 9. [`vec_as`]: the decoder's bulk `Vec` path (`de/bytes.rs`, taken
//!    only for serde's own `Vec` visitor of a fixed-width element) builds
//!    the vector with one copy and moves it out as the visitor's output
//!    type, which its `TypeId` says it is. callgrind, `updates` decode
//!    (`Vec<u8>`, `Vec<bool>`), LTO / no LTO: 34.39M -> 30.68M / 40.04M ->
//!    33.50M; the other datasets unchanged. A `Vec<f32>` of 1,000,000
//!    (`from_slice`, release): 20.0M -> 0.88M.
//!
//! 10. [`vec_writer`]: `to_writer`'s writer, when it is a `&mut Vec<u8>`
//!     (bincode's `serialize_into(&mut buf, ..)`), is taken as the `Vec`
//!     its `TypeId` says it is, and the value is appended in one pass
//!     instead of being staged in a growing buffer and copied over.
//!     callgrind, `kiln_serde::bincode::serialize_into` into a reused
//!     `Vec`, LTO / no LTO: `log` 2.80M -> 1.54M / 2.75M -> 1.57M, `mesh`
//!     18.14M -> 11.38M / 17.76M -> 12.75M, `savedata` 2.62M -> 1.99M /
//!     2.63M -> 2.03M, `updates` 9.46M -> 7.26M / 9.18M -> 6.94M (bincode
//!     1.3's own: 1.91M, 14.00M, 2.10M, 8.90M with LTO).
//!
//! 11. [`VecCursor`] (`raw/vec_cursor.rs`): a growing `Vec` written at a
//!     position kept apart from it, with the `Vec` borrowed and handed
//!     alone to the out-of-line growth, which hands back the new pointer
//!     and capacity. Pieces 4's `append`, `push` and `put_counted` took
//!     `&mut Vec<u8>`, and the `Vec` lived inside the serializer: its
//!     address escaped to `reserve`, so LLVM kept the whole serializer in
//!     memory (length, capacity and pointer loaded, the length stored,
//!     on every write). callgrind, `kiln_serde::bincode::serialize_into`
//!     into a reused `Vec` (piece 10's path), LTO / no LTO, at 1cfe059 ->
//!     after: `mesh` 15.75M -> 9.88M / 15.75M -> 11.38M, `updates` 6.69M
//!     -> 6.21M / 7.06M -> 6.28M, `log` 1.52M -> 1.42M / 1.57M -> 1.55M,
//!     `savedata` 2.00M -> 2.01M / 2.03M -> 2.04M (bincode 1.3: 14.00M,
//!     8.90M, 1.91M, 2.10M); `to_writer` of a 32-byte message into a
//!     `BufWriter` (through the staging buffer) 140 -> 96 / 188 -> 127
//!     instructions (bincode 1.3: 75 / 119). Unchanged: `to_vec`,
//!     `to_extend` into spare capacity and `to_slice` (piece 6's cursor).
//!     Since session 33 the growth cannot unwind (`extern "C"`,
//!     `try_reserve`, `handle_alloc_error` on failure: see its docs), so
//!     the position is no longer stored after each write for an unwinding
//!     caller: `mesh` 11.38M -> 10.13M without LTO, `updates` 6.16M ->
//!     5.55M / 6.28M -> 5.82M. Since session 41 the pointer and capacity
//!     are one `u128` (`Buf`: one load a write, one store a growth, the
//!     address through an exposed-provenance integer), so that LLVM still
//!     proves the bytes written miss the serializer in a 16-field
//!     `serialize` that stays a call: 90-byte orders through
//!     `serialize_into`, LTO / no LTO, 8.2 / 8.1 -> 5.0 / 5.1 ns (numbers
//!     on `Buf`). And [`append`] runs a pass on a cursor over a `Vec` and
//!     sets the `Vec`'s length through the caller's own reference, so
//!     that the next call's start is not read back from memory: a 32-byte
//!     message through `serialize_into` without LTO, 3.53 -> 3.29 ns.
//!     Since session 44 the position is counted from the capacity's end
//!     (`at = pos - cap`), and [`VecCursor::room`] grows the `Vec` before
//!     a struct's fields, so that LLVM drops their tests (an
//!     `unreachable_unchecked` says what the growth promises): `mesh`
//!     through `serialize_into` 10.00 / 10.25 -> 3.50 / 4.00 M (numbers
//!     on `VecCursor`).
//!
//! 12. [`with_slice_reader`] (`raw/slice_reader.rs`): `from_reader`'s
//!     reader, when it is a `&[u8]` or `&mut &[u8]` (bincode's
//!     `deserialize_from(&mut input)`), or a `std::io::Cursor` over a
//!     `&[u8]`, `Vec<u8>`, `&Vec<u8>`, `Box<[u8]>`, `&mut [u8]` or
//!     `&mut Vec<u8>` (since session 26; by value or `&mut`), is taken as
//!     the slice (the cursor) its `TypeId` says it is: the value is decoded
//!     as `take_from_slice` decodes it and the slice (the cursor's
//!     position) moved past it, instead of a `read_exact` and an offset
//!     update per field (through `read::InPlace`, so that `from_slice`'s
//!     own decode keeps its inlining). callgrind, `from_reader(&mut
//!     &bytes[..])`, LTO / no LTO: `mesh` 28.88M -> 10.88M / 23.38M ->
//!     16.63M, `log` 19.96M -> 14.66M / 20.84M -> 15.83M, `savedata`
//!     16.48M -> 12.36M / 17.15M -> 13.10M, `updates` 36.66M -> 28.28M /
//!     42.32M -> 30.02M (bincode 1.3's `deserialize_from`: 23.13M, 23.55M,
//!     19.20M, 36.94M with LTO). The cursors (session 24), `from_reader(&mut
//!     Cursor::new(&bytes[..]))`, LTO / no LTO: `log` 20.04M -> 14.66M /
//!     21.01M -> 15.83M, `mesh` 32.88M -> 10.88M / 28.63M -> 16.63M,
//!     `savedata` 16.48M -> 12.36M / 17.23M -> 13.10M, `updates` 37.49M ->
//!     28.28M / 43.10M -> 30.04M (bincode 1.3: 24.06M, 27.13M, 19.62M,
//!     37.56M with LTO).
//!
//! 13. [`copy::copy_to`] (`raw/copy.rs`): a str's or bytes value's bytes
//!     (`Serializer::plain_bytes`, through `put_counted::<true>`) copied
//!     inline when they are at most 32: two overlapping 4-byte loads and
//!     stores for 4-7 bytes (tested first), three single bytes for 1-3,
//!     four overlapping 8-byte ones for 8-32 (no branch on where in that
//!     range). `memcpy` was a call per string, half of `log`'s serialize
//!     time under `perf` (60,000 strings, 1-60 bytes). Wall time, the
//!     profile binary, median of 7 runs alternating with abf67b3's, LTO
//!     / no LTO: `log` `to_vec` 110 / 105 -> 67 / 77 µs, reused buffer 99
//!     / 104 -> 57 / 65, `to_slice` 96 / 95 -> 58 / 67; `savedata` (28,000
//!     strings of 3-14 bytes) 0.86-0.99x; in a crate of its own `log`
//!     0.57-0.71x, `savedata` 0.93-0.97x. Tested in the order 8-32 first
//!     (06246ba), `savedata` was 0.96-1.09x and counted 1.76 / 1.81 M
//!     (`to_slice`), now 1.69 / 1.74 (serde-zap 1.74 / 1.76); `log`
//!     `to_vec` counts 1.48 / 1.62 M against 1.33 / 1.36 with `memcpy`
//!     (the windows' loads and stores, fewer calls, less time). A
//!     sequence of fixed-width elements (`fixed_seq`: `updates`'
//!     `Vec<bool>`) keeps `memcpy`: inline too, `updates` reused buffer
//!     was 1.10x with LTO.
//!
//! Miri cannot run here (stable toolchain only); CI runs those tests
//! under valgrind memcheck instead (`.ci/run`: no invalid read, write or
//! free, no definite leak).

use std::marker::PhantomData;
use std::mem::ManuallyDrop;

mod ascii;
mod copy;
mod cursor;
mod slice_reader;
mod vec_cursor;
mod write_cursor;

#[cfg(test)]
use ascii::is_ascii;
pub(crate) use ascii::str_from_utf8;
pub(crate) use cursor::{Cursor, WINDOW};
pub(crate) use slice_reader::with_slice_reader;
pub(crate) use vec_cursor::{append, Append, VecCursor};
pub(crate) use write_cursor::{fill_spare, FillSpare, Short, WriteCursor};

/// One 64-byte aligned storage unit of an aligned buffer.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Block64(pub(crate) [u8; 64]);

// SAFETY: `Block64` is `repr(C)` with one `[u8; 64]` field and alignment 64,
// so its size is exactly 64 with no padding byte, and every bit pattern
// (including all zeros) is a valid value; it has no interior mutability
// and no pointer. These are the conditions `Zeroable` and `Pod` state.
unsafe impl bytemuck::Zeroable for Block64 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Block64 {}

/// An owned `T` on the heap, behind a 4-byte-aligned handle, or a small
/// number in the handle itself (a *word*: nothing on the heap). `addr` is
/// the address with bit 0 set, or `(word << 2) | 3`: the `T`s here are at
/// least 4-aligned, so bits 0 and 1 of a real address are free (checked at
/// compile time in `new`) and bit 1 tells the two apart.
#[repr(C, packed(4))]
pub(crate) struct ThinBox<T> {
    addr: std::num::NonZeroU64,
    _owns: PhantomData<Box<T>>,
}

// SAFETY: a `ThinBox<T>` owns its `T` exactly as a `Box<T>` does (one
// owner, freed once in `drop`), or holds no `T` at all, so it may cross
// threads when `T` may.
unsafe impl<T: Send> Send for ThinBox<T> {}
// SAFETY: `&ThinBox<T>` only hands out `&T` (as `&Box<T>` does).
unsafe impl<T: Sync> Sync for ThinBox<T> {}

/// Fails to compile (when `ThinBox::<T>::new` is instantiated) for a `T`
/// whose alignment leaves bit 0 or 1 of its address in use.
struct AlignAtLeast4<T>(PhantomData<T>);

impl<T> AlignAtLeast4<T> {
    const OK: () = assert!(
        std::mem::align_of::<T>() >= 4,
        "bits 0 and 1 of the address must be free"
    );
}

/// Bit 1 of `addr`: set for a word, clear for a heap address.
const WORD: u64 = 2;

impl<T> ThinBox<T> {
    /// Moves `value` to the heap.
    pub(crate) fn new(value: T) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = AlignAtLeast4::<T>::OK;
        let p = Box::into_raw(Box::new(value));
        ThinBox {
            // An integer address (the MSRV, 1.75, predates the strict
            // provenance API); `ptr` turns it back with an `as` cast.
            addr: std::num::NonZeroU64::MIN | p as usize as u64,
            _owns: PhantomData,
        }
    }

    /// A handle holding `n` (below 2^62; higher bits are dropped) and no
    /// `T`: building one is a constant, not a call.
    #[inline]
    pub(crate) const fn word(n: u64) -> Self {
        ThinBox {
            addr: match std::num::NonZeroU64::new((n << 2) | WORD | 1) {
                Some(a) => a,
                None => std::num::NonZeroU64::MIN,
            },
            _owns: PhantomData,
        }
    }

    /// The number of a [`Self::word`] handle; `None` for a heap value.
    #[inline]
    pub(crate) fn as_word(&self) -> Option<u64> {
        // A copy: a reference to a field of a packed struct is not allowed.
        let addr = self.addr.get();
        if addr & WORD != 0 {
            Some(addr >> 2)
        } else {
            None
        }
    }

    /// The heap address (of a handle that is not a word).
    #[inline]
    fn ptr(&self) -> *mut T {
        let addr = self.addr;
        (addr.get() & !1) as usize as *mut T
    }

    /// The value; `None` for a word.
    #[inline]
    pub(crate) fn get(&self) -> Option<&T> {
        match self.as_word() {
            Some(_) => None,
            // SAFETY: not a word, so the pointer is a live, aligned `T`
            // from `Box::into_raw` in `new`; it is freed only by
            // `drop`/`into_box`, which need the `ThinBox` by value, so it
            // outlives this borrow of `self`.
            None => Some(unsafe { &*self.ptr() }),
        }
    }

    /// The value, mutably; `None` for a word.
    #[inline]
    pub(crate) fn get_mut(&mut self) -> Option<&mut T> {
        match self.as_word() {
            Some(_) => None,
            // SAFETY: as in `get`, and `&mut self` makes this the only
            // borrow.
            None => Some(unsafe { &mut *self.ptr() }),
        }
    }

    /// Takes the value back as a `Box`; `None` for a word.
    pub(crate) fn into_box(self) -> Option<Box<T>> {
        let this = ManuallyDrop::new(self);
        if this.as_word().is_some() {
            return None;
        }
        // SAFETY: not a word, so the pointer came from `Box::into_raw` in
        // `new` (its provenance was exposed there), and `this` is never
        // dropped, so the box is rebuilt exactly once.
        Some(unsafe { Box::from_raw(this.ptr()) })
    }
}

impl<T> Drop for ThinBox<T> {
    fn drop(&mut self) {
        if self.as_word().is_none() {
            // SAFETY: not a word, so the pointer came from `Box::into_raw`
            // in `new`; `drop` runs once and `into_box` skips it, so the
            // box is freed exactly once.
            drop(unsafe { Box::from_raw(self.ptr()) });
        }
    }
}

/// `slice::first_chunk` (stable only since Rust 1.77, above the MSRV).
#[inline]
pub(crate) fn first_chunk<const N: usize>(bytes: &[u8]) -> Option<&[u8; N]> {
    bytes.get(..N)?.try_into().ok()
}

/// `slice::split_first_chunk` (Rust 1.77).
#[inline]
pub(crate) fn split_first_chunk<const N: usize>(bytes: &[u8]) -> Option<(&[u8; N], &[u8])> {
    let head = first_chunk::<N>(bytes)?;
    Some((head, bytes.get(N..)?))
}

/// Piece 8: the element count and the Kiln bytes of what serde hands
/// `collect_seq` for a `Vec<E>` or `[E]` (`&Vec<_>` or `&[_]`) of `u8` or
/// `bool`, and on little-endian targets of any other integer, `f32` or
/// `f64` (whose bytes in memory are then their Kiln bytes), so the
/// serializer can append them with one copy instead of one call per
/// element; `None` for every other type. The type test is on `TypeId`s
/// with lifetimes erased (`typeid::of`), constants after monomorphization.
#[inline]
#[allow(unused_comparisons)] // `len >= 0` for bytes
pub(crate) fn fixed_seq<I>(iter: &I) -> Option<(usize, &[u8])> {
    let id = typeid::of::<I>();
    macro_rules! seq_of {
        ($min:expr; $($t:ty),*) => {$(
            if id == typeid::of::<&Vec<$t>>() {
                // SAFETY: `I` is `&'a Vec<$t>` for some `'a` (the same type
                // up to lifetimes); `'a` outlives the borrow of `iter`, so
                // reading the reference for that borrow's lifetime is sound.
                let v: &Vec<$t> = unsafe { *(iter as *const I).cast::<&Vec<$t>>() };
                return (v.len() >= $min).then(|| (v.len(), plain_bytes(v)));
            }
            if id == typeid::of::<&[$t]>() {
                // SAFETY: as above, `I` is `&'a [$t]`.
                let v: &[$t] = unsafe { *(iter as *const I).cast::<&[$t]>() };
                return (v.len() >= $min).then(|| (v.len(), plain_bytes(v)));
            }
        )*};
    }
    seq_of!(0; u8, bool);
    // Wider elements only in numbers: a few are cheaper one by one.
    #[cfg(target_endian = "little")]
    seq_of!(WIDE_MIN; i8, u16, i16, u32, i32, u64, i64, u128, i128, f32, f64);
    None
}

/// The fewest elements wider than a byte that [`fixed_seq`] takes.
pub(crate) const WIDE_MIN: usize = 16;

/// Element types without padding whose every byte is initialized, and
/// whose bytes in memory are their Kiln bytes on a little-endian target
/// (`bool`: 0 or 1, as Kiln writes it).
trait Plain: Copy {}
impl Plain for u8 {}
impl Plain for bool {}
impl Plain for i8 {}
impl Plain for u16 {}
impl Plain for i16 {}
impl Plain for u32 {}
impl Plain for i32 {}
impl Plain for u64 {}
impl Plain for i64 {}
impl Plain for u128 {}
impl Plain for i128 {}
impl Plain for f32 {}
impl Plain for f64 {}

/// The bytes of `v` in memory.
#[inline]
fn plain_bytes<E: Plain>(v: &[E]) -> &[u8] {
    // SAFETY: `E: Plain` has no padding and no uninitialized bytes, so all
    // `size_of_val(v)` bytes from `v`'s start are initialized `u8`s (any
    // alignment suffices for `u8`), borrowed for as long as `v` is.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Piece 9: `v` as a `T` when `T` is `Vec<E>`, else `v` back. The
/// decoder's bulk `Vec` path (`de/bytes.rs`) builds the vector of a
/// fixed-width element with one copy and hands it out as its visitor's
/// output type.
pub(crate) fn vec_as<E: 'static, T>(v: Vec<E>) -> Result<T, Vec<E>> {
    if typeid::of::<T>() != typeid::of::<Vec<E>>() {
        return Err(v);
    }
    let v = ManuallyDrop::new(v);
    // SAFETY: `T` is `Vec<E>` (its `TypeId`; `E: 'static`, so the type has
    // no lifetimes to differ in), so this is a move of `v` into the same
    // type; `v` is not dropped, so the allocation has one owner.
    Ok(unsafe { std::ptr::read((&*v as *const Vec<E>).cast::<T>()) })
}

/// `v` as a `T` when `T` is `Vec<u8>`, or as a `Vec<bool>` when `T` is
/// `Vec<bool>` and every byte is 0 or 1; else `v` back.
pub(crate) fn byte_vec_as<T>(v: Vec<u8>) -> Result<T, Vec<u8>> {
    let v = match vec_as::<u8, T>(v) {
        Ok(t) => return Ok(t),
        Err(v) => v,
    };
    if typeid::of::<T>() != typeid::of::<Vec<bool>>() || v.iter().any(|&b| b > 1) {
        return Err(v);
    }
    let mut v = ManuallyDrop::new(v);
    // SAFETY: `bool` has the size and alignment of `u8`, so the
    // allocation's layout is unchanged, and every byte is 0 or 1, a valid
    // `bool`; `v` is not dropped, so the allocation has one owner.
    let b = unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<bool>(), v.len(), v.capacity()) };
    // `T` is `Vec<bool>`, so this cannot fail (and gives nothing back if it did).
    vec_as::<bool, T>(b).map_err(|_| Vec::new())
}

/// Piece 10: the `Vec` behind a writer that is a `&mut Vec<u8>`, so that
/// `to_writer` (and bincode's `serialize_into`) append to it in one pass
/// instead of staging the bytes and copying them over; `None` for every
/// other writer. The type test is on `TypeId`s with lifetimes erased,
/// a constant after monomorphization.
#[inline]
pub(crate) fn vec_writer<W>(w: &mut W) -> Option<&mut Vec<u8>> {
    if typeid::of::<W>() == typeid::of::<&mut Vec<u8>>() {
        // SAFETY: `W` is `&'a mut Vec<u8>` for some `'a` (the same type up
        // to lifetimes), which outlives the borrow of `w`; reading the
        // reference out of `w` and using it only for that borrow's lifetime
        // is a reborrow, so the `Vec` keeps one user at a time.
        Some(unsafe { &mut **(w as *mut W).cast::<&mut Vec<u8>>() })
    } else {
        None
    }
}

#[cfg(test)]
mod spare_tests;
#[cfg(test)]
mod tests;

/// Piece 7: maps `file` read-only (feature `mmap`), for
/// [`TensorsFile`](crate::checkpoint::TensorsFile).
///
/// The contract, stated plainly as memmap2 and safetensors do: the mapped
/// bytes are the file's bytes *while nobody changes the file*. Truncating
/// a mapped file while a view of it is alive makes a later access raise
/// SIGBUS, and rewriting it in place changes bytes that were already
/// validated under the view: both are undefined behaviour that no safe
/// wrapper can prevent. This crate never writes into an existing file (its
/// writers, and the `kiln` tool, write a temporary file and rename it over
/// the target, which leaves an open mapping on the old inode intact); the
/// caller of `TensorsFile::open` promises the same of every other writer.
#[cfg(feature = "mmap")]
pub(crate) fn map_file(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: `Mmap::map` is unsafe only because the memory changes, or
    // access faults, if the file is modified or truncated while mapped.
    // The mapping is read-only and private to the `TensorsFile` that owns
    // it; every view borrows that `TensorsFile`, so no view outlives the
    // mapping; and the contract above (documented on `TensorsFile`) makes
    // "nobody modifies the file while it is open" the caller's promise, as
    // for memmap2 and safetensors.
    unsafe { memmap2::Mmap::map(file) }
}

#[cfg(all(test, feature = "mmap"))]
mod map_file_tests {
    use std::io::Write;

    #[test]
    fn maps_exactly_the_file() {
        let mut f = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        f.write_all(&data).unwrap();
        let m = super::map_file(&f).unwrap();
        assert_eq!(&m[..], &data[..]);
        // Dropped while the file is still open: unmapped once, no leak.
        drop(m);
        let empty = tempfile::tempfile().unwrap();
        assert_eq!(super::map_file(&empty).map(|m| m.len()).unwrap_or(0), 0);
    }
}
