//! Unit tests of the unsafe pieces (`.ci/run` runs them under valgrind).

use super::copy::copy_to;
use super::{
    append, byte_vec_as, fixed_seq, str_from_utf8, vec_as, Append, Block64, Cursor, ThinBox,
    VecCursor, WriteCursor, WIDE_MIN,
};

/// `op` and `model` leave the same buffer for every length around the
/// growth points, into empty, exactly full, nearly full and roomy buffers.
fn agree_at_growth_points(op: impl Fn(&mut Vec<u8>, &[u8]), model: impl Fn(&mut Vec<u8>, &[u8])) {
    let data: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
    for cap in [0usize, 1, 4, 5, 8, 16, 63, 64, 65] {
        for pre in 0..=cap.min(9) {
            for n in [0usize, 1, 3, 4, 5, 8, 16, 31, 32, 33, 64, 199] {
                let mut got = Vec::with_capacity(cap);
                got.extend_from_slice(&data[..pre]);
                let mut want = got.clone();
                op(&mut got, &data[..n]);
                model(&mut want, &data[..n]);
                assert_eq!(got, want, "cap {cap} pre {pre} n {n}");
                assert!(got.capacity() >= got.len());
            }
        }
    }
}

/// One write through a fresh cursor over `v`, then its length set.
fn with_cursor<const STREAM: bool>(
    v: &mut Vec<u8>,
    write: impl FnOnce(&mut VecCursor<'_, STREAM>),
) {
    let mut c = VecCursor::<STREAM>::new(v);
    write(&mut c);
    c.finish();
}

#[test]
fn vec_cursor_put_counted_is_two_appends() {
    let count = |b: &[u8]| b.len() as u32 ^ 0xa5a5_0000;
    let two_appends = |v: &mut Vec<u8>, b: &[u8]| {
        v.extend_from_slice(&count(b).to_le_bytes());
        v.extend_from_slice(b);
    };
    let counted = |v: &mut Vec<u8>, b: &[u8]| {
        with_cursor::<false>(v, |c| c.put_counted::<false>(count(b), b));
    };
    agree_at_growth_points(counted, two_appends);
    let counted = |v: &mut Vec<u8>, b: &[u8]| {
        with_cursor::<true>(v, |c| c.put_counted::<false>(count(b), b));
    };
    agree_at_growth_points(counted, two_appends);
    // A str's bytes copied inline (`copy_to`): every length to 40.
    let counted = |v: &mut Vec<u8>, b: &[u8]| {
        with_cursor::<false>(v, |c| c.put_counted::<true>(count(b), b));
    };
    agree_at_growth_points(counted, two_appends);
    for n in 0..=40 {
        let b: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let mut got = vec![0xEE; 3];
        let mut want = got.clone();
        with_cursor::<false>(&mut got, |c| c.put_counted::<true>(count(&b), &b));
        two_appends(&mut want, &b);
        assert_eq!(got, want, "n {n}");
    }
    // Appending a buffer's own earlier bytes (a copy, so no overlap).
    let mut v = b"abc".to_vec();
    let head = v.clone();
    with_cursor::<true>(&mut v, |c| c.put_counted::<false>(3, &head));
    assert_eq!(v, b"abc\x03\0\0\0abc");
}

#[test]
fn vec_cursor_put_is_extend_from_slice() {
    let put = |v: &mut Vec<u8>, b: &[u8]| with_cursor::<false>(v, |c| c.put(b));
    agree_at_growth_points(put, |v, b| v.extend_from_slice(b));
    let put = |v: &mut Vec<u8>, b: &[u8]| with_cursor::<true>(v, |c| c.put(b));
    agree_at_growth_points(put, |v, b| v.extend_from_slice(b));
    // A series of small writes through one cursor that grows the buffer
    // many times; the cursor's view and the `Vec` agree at every step.
    let data: Vec<u8> = (0..40u8).collect();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    let mut c = VecCursor::<false>::new(&mut got);
    for i in 0..1000 {
        let piece = &data[i % 7..i % 7 + i % 17];
        c.put(piece);
        want.extend_from_slice(piece);
        assert_eq!(c.written(), &want[..]);
        assert_eq!(c.len(), want.len());
    }
    c.finish();
    assert_eq!(got, want);
}

/// `room(n)` leaves at least `n` bytes of capacity past the position,
/// growing only when there were fewer, and changes no byte; the writes it
/// covers then land as without it (in a debug build, a `room` that did
/// not grow would stop at its `unreachable_unchecked` check).
#[test]
fn vec_cursor_room_makes_room_and_writes_nothing() {
    for cap in [0usize, 1, 5, 16, 64, 100] {
        for pre in 0..=cap.min(9) {
            for n in [0usize, 1, 4, 15, 16, 17, 48, 512] {
                let mut got: Vec<u8> = Vec::with_capacity(cap);
                got.extend((0..pre).map(|i| i as u8 ^ 0x3c));
                let want_pre = got.clone();
                let mut c = VecCursor::<false>::new(&mut got);
                c.room(n);
                assert_eq!(c.written(), &want_pre[..], "cap {cap} pre {pre} n {n}");
                for i in 0..n.min(40) {
                    c.push(i as u8);
                }
                c.finish();
                let room = got.capacity() - pre;
                assert!(room >= n, "cap {cap} pre {pre} n {n}: room {room}");
                if cap - pre >= n {
                    assert_eq!(
                        got.capacity(),
                        cap,
                        "grew with room: cap {cap} pre {pre} n {n}"
                    );
                }
                let mut want = want_pre;
                want.extend((0..n.min(40)).map(|i| i as u8));
                assert_eq!(got, want, "cap {cap} pre {pre} n {n}");
            }
        }
    }
    // Through a drained buffer's cursor too.
    let mut v = vec![9u8; 3];
    let mut c = VecCursor::<true>::stream(&mut v);
    c.room(300);
    c.put(&[1, 2]);
    c.finish();
    assert!(v.capacity() >= 303);
    assert_eq!(v, [9, 9, 9, 1, 2]);
}

/// `append`'s pass: writes `n` bytes, one at a time, and says how many.
struct PushN(u8);

impl Append for PushN {
    type Output = usize;
    fn append<'v>(self, mut cur: VecCursor<'v, false>) -> (VecCursor<'v, false>, usize) {
        for b in 0..self.0 {
            cur.push(b);
        }
        let n = cur.len();
        (cur, n)
    }
}

#[test]
fn append_takes_what_the_pass_wrote_into_the_length() {
    for cap in [0usize, 1, 3, 8, 100] {
        for pre in 0..=cap.min(3) {
            let mut v: Vec<u8> = Vec::with_capacity(cap);
            v.extend(std::iter::repeat(0xee).take(pre));
            let n = append(&mut v, PushN(40));
            assert_eq!(n, pre + 40, "cap {cap} pre {pre}");
            let mut want = vec![0xee; pre];
            want.extend(0..40u8);
            assert_eq!(v, want, "cap {cap} pre {pre}");
            // Twice, as a reused buffer is.
            append(&mut v, PushN(3));
            want.extend(0..3u8);
            assert_eq!(v, want, "cap {cap} pre {pre}, again");
        }
    }
}

#[test]
fn vec_cursor_push_is_vec_push() {
    for cap in [0usize, 1, 2, 7, 8, 64] {
        for pre in 0..=cap {
            let mut got: Vec<u8> = Vec::with_capacity(cap);
            got.extend((0..pre).map(|i| i as u8));
            let mut want = got.clone();
            for b in 0..130u8 {
                with_cursor::<true>(&mut got, |c| c.push(b ^ 0x5a));
                want.push(b ^ 0x5a);
                assert_eq!(got, want, "cap {cap} pre {pre} b {b}");
                assert!(got.capacity() >= got.len());
            }
        }
    }
}

/// Writes of every kind mixed with cuts and patches, growing from every
/// start; `finish` at any point gives exactly the bytes written, and a
/// cursor dropped without it leaves a valid `Vec` (its length where the
/// last growth or `finish` put it: valgrind checks that nothing past it
/// is read or leaked).
#[test]
fn vec_cursor_cuts_patches_and_finishes() {
    for cap in [0usize, 1, 5, 16] {
        for pre in 0..=cap.min(3) {
            let mut got: Vec<u8> = Vec::with_capacity(cap);
            got.extend((0..pre).map(|i| i as u8 + 100));
            let mut want = got.clone();
            let mut c = VecCursor::<true>::new(&mut got);
            for step in 0..40u8 {
                match step % 5 {
                    0 => {
                        c.put(&[step; 3]);
                        want.extend_from_slice(&[step; 3]);
                    }
                    1 => {
                        c.push(step);
                        want.push(step);
                    }
                    2 => {
                        c.put_counted::<false>(u32::from(step), &[step, !step]);
                        want.extend_from_slice(&u32::from(step).to_le_bytes());
                        want.extend_from_slice(&[step, !step]);
                    }
                    3 => {
                        // A cut past the end changes nothing; a cut back
                        // drops the tail.
                        c.truncate(want.len() + 3);
                        assert_eq!(c.len(), want.len());
                        let n = want.len() - 2;
                        c.truncate(n);
                        want.truncate(n);
                    }
                    _ => {
                        if let Some(b) = c.written_mut().last_mut() {
                            *b ^= 0xff;
                        }
                        if let Some(b) = want.last_mut() {
                            *b ^= 0xff;
                        }
                    }
                }
                assert_eq!(c.written(), &want[..], "cap {cap} pre {pre} step {step}");
                assert_eq!(c.len(), want.len());
            }
            c.finish();
            assert_eq!(got, want, "cap {cap} pre {pre}");
            // Dropped without `finish` after growing: still a valid `Vec`.
            let mut v = vec![1u8];
            {
                let mut c = VecCursor::<false>::new(&mut v);
                for _ in 0..50 {
                    c.put(&[7; 9]);
                }
            }
            assert!(
                v.len() <= 1 + 9 * 50 && v.first() == Some(&1),
                "{}",
                v.len()
            );
            assert!(v[1..].iter().all(|&b| b == 7));
        }
    }
}

#[test]
fn fixed_seq_sees_only_vecs_and_slices_of_fixed_width_elements() {
    let bytes = vec![1u8, 2, 250];
    let bools = vec![true, false, true, true];
    let local = String::from("short-lived");
    let borrowed: &[u8] = local.as_bytes();
    assert_eq!(fixed_seq(&&bytes), Some((3, &[1u8, 2, 250][..])));
    assert_eq!(fixed_seq(&&bytes[..2]), Some((2, &[1u8, 2][..])));
    assert_eq!(fixed_seq(&borrowed), Some((11, local.as_bytes())));
    assert_eq!(fixed_seq(&&bools), Some((4, &[1u8, 0, 1, 1][..])));
    assert_eq!(fixed_seq(&&bools[1..]), Some((3, &[0u8, 1, 1][..])));
    assert_eq!(fixed_seq(&&Vec::<u8>::new()), Some((0, &[][..])));
    // Wider elements, from `WIDE_MIN` of them: their little-endian bytes
    // (on such a target).
    let w: Vec<u16> = (0..WIDE_MIN as u16).map(|i| 0x0102 * i).collect();
    let wb: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let f: Vec<f64> = (0..WIDE_MIN).map(|i| i as f64 - 0.5).collect();
    let fb: Vec<u8> = f.iter().flat_map(|x| x.to_le_bytes()).collect();
    let m = vec![u128::MAX; WIDE_MIN];
    if cfg!(target_endian = "little") {
        assert_eq!(fixed_seq(&&w), Some((WIDE_MIN, &wb[..])));
        assert_eq!(fixed_seq(&&f[..]), Some((WIDE_MIN, &fb[..])));
        assert_eq!(
            fixed_seq(&&m),
            Some((WIDE_MIN, &[0xffu8; 16 * WIDE_MIN][..]))
        );
    }
    assert_eq!(fixed_seq(&&w[1..]), None);
    assert_eq!(fixed_seq(&&vec![-1i8, 2]), None);
    // Other element types, owned vectors, mutable borrows, arrays, iterators.
    assert_eq!(fixed_seq(&&vec!['a']), None);
    assert_eq!(fixed_seq(&&vec![1usize]), None);
    assert_eq!(fixed_seq(&&[1u8, 2]), None);
    assert_eq!(fixed_seq(&bytes.clone()), None);
    let mut m = bytes.clone();
    assert_eq!(fixed_seq(&&mut m), None);
    assert_eq!(fixed_seq(&bytes.iter()), None);
    assert_eq!(
        fixed_seq(&&std::collections::VecDeque::from(vec![1u8])),
        None
    );
}

#[test]
fn vec_as_moves_only_into_its_own_type() {
    let v = vec![1u32, 2, u32::MAX];
    assert_eq!(vec_as::<u32, Vec<u32>>(v.clone()), Ok(v.clone()));
    assert_eq!(vec_as::<u32, Vec<i32>>(v.clone()), Err(v.clone()));
    assert_eq!(vec_as::<u32, Vec<u64>>(v.clone()), Err(v.clone()));
    assert_eq!(vec_as::<u32, Box<[u32]>>(v.clone()), Err(v.clone()));
    let mut roomy = Vec::with_capacity(50);
    roomy.push(1.5f32);
    let r = vec_as::<f32, Vec<f32>>(roomy).unwrap();
    assert_eq!((r.len(), r[0]), (1, 1.5));
    assert!(r.capacity() >= 50);
}

#[test]
fn byte_vec_as_moves_only_into_byte_and_bool_vectors() {
    let v = vec![0u8, 1, 7, 255];
    assert_eq!(byte_vec_as::<Vec<u8>>(v.clone()), Ok(v.clone()));
    let mut roomy = Vec::with_capacity(100);
    roomy.extend_from_slice(&[1u8, 0, 1]);
    let b = byte_vec_as::<Vec<bool>>(roomy).unwrap();
    assert_eq!(b, [true, false, true]);
    assert!(b.capacity() >= 100);
    drop(b); // freed once, with its own layout (valgrind checks)
    assert_eq!(byte_vec_as::<Vec<bool>>(Vec::new()), Ok(Vec::new()));
    assert_eq!(byte_vec_as::<Vec<bool>>(v.clone()), Err(v.clone()));
    assert_eq!(byte_vec_as::<Vec<i8>>(v.clone()), Err(v.clone()));
    assert_eq!(byte_vec_as::<String>(v.clone()), Err(v.clone()));
    assert_eq!(byte_vec_as::<Box<[u8]>>(v.clone()), Err(v));
}

#[test]
fn write_cursor_never_passes_the_end() {
    // Up to 80: every step fits once (73 bytes in all).
    for cap in 0..80 {
        let mut buf = vec![0xEEu8; cap];
        let mut c = WriteCursor::new(&mut buf);
        let mut want = Vec::new();
        let mut full = false;
        for step in 0..15u8 {
            // A str's bytes: 1 through `memcpy` (step 2), then 5 and 10
            // copied inline (`copy_to`'s 4-7 and 8-32 arms), up to the end.
            let text: Vec<u8> = (0..step.max(3) - 2)
                .map(|i| step ^ i.wrapping_mul(37))
                .collect();
            let ok = match step % 5 {
                0 => c.put(&[step; 3]),
                1 => c.push(step),
                2 if step < 5 => c.put_counted::<false>(u32::from(step), &text),
                2 => c.put_counted::<true>(u32::from(step), &text),
                3 => c.put_halves([step; 8], [!step; 8]),
                _ => c.put(&[]),
            };
            let mut piece = match step % 5 {
                0 => vec![step; 3],
                1 => vec![step],
                2 => [&u32::from(step).to_le_bytes()[..], &text].concat(),
                3 => [[step; 8], [!step; 8]].concat(),
                _ => vec![],
            };
            // Once a write is refused nothing more is stored, even a
            // piece that would fit in the room left; an empty piece
            // "fits" (stores nothing) at the end, full or not.
            let fits = if full {
                piece.is_empty()
            } else {
                want.len() + piece.len() <= cap
            };
            assert_eq!(ok, fits, "cap {cap} step {step}");
            if fits {
                want.append(&mut piece);
            } else {
                full = true;
            }
            assert_eq!(c.is_full(), full);
            // The position: the bytes written, or the end once full.
            assert_eq!(c.len(), if full { cap } else { want.len() });
            assert_eq!(c.written(), (!full).then_some(&want[..]));
            assert_eq!(c.written_mut().is_some(), !full);
        }
        if full {
            // Full, the position stays the end: nothing is stored after a
            // truncate either.
            c.truncate(0);
            assert_eq!((c.len(), c.written()), (cap, None));
            assert!(!c.push(0x55));
            assert!(!c.put(&[0x55; 2]));
        } else {
            c.truncate(c.len() + 5);
            assert_eq!(c.len(), want.len());
            c.truncate(1);
            assert_eq!(c.written().map(<[u8]>::len), Some(want.len().min(1)));
            if let Some(b) = c.written_mut().and_then(|w| w.first_mut()) {
                *b = 0x77;
                want[0] = 0x77;
            }
        }
        assert_eq!(buf[..want.len()], want[..]);
        assert!(buf[want.len()..].iter().all(|&b| b == 0xEE), "cap {cap}");
    }
}

#[test]
fn copy_to_copies_exactly_its_bytes_at_every_length_and_offset() {
    for n in 0..=72usize {
        // The source in an allocation of exactly `n` bytes, so that a
        // read past it is one valgrind reports.
        let src: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(73) ^ 0xc3).collect();
        for off in 0..9 {
            let mut dst = vec![0xEEu8; off + n + 9];
            // SAFETY: `dst[off..]` holds `n + 9` writable bytes, and
            // `dst` is apart from `src`.
            unsafe { copy_to(&src, dst.as_mut_ptr().add(off)) };
            assert_eq!(dst[off..off + n], src[..], "n {n} off {off}");
            assert!(dst[..off].iter().all(|&b| b == 0xEE), "n {n} off {off}");
            assert!(dst[off + n..].iter().all(|&b| b == 0xEE), "n {n} off {off}");
        }
    }
}

#[test]
fn cursor_never_passes_the_end() {
    let data = [1u8, 2, 3, 4, 5];
    let mut c = Cursor::new(&data);
    assert_eq!(c.read_array::<2>(), Some([1, 2]));
    assert_eq!(c.take(4), None);
    assert_eq!(c.pos(), 2);
    // A short read moves to the end and keeps where it started...
    assert_eq!(c.read_array::<4>(), None);
    assert_eq!((c.pos(), c.unread(), c.short()), (5, &[] as &[u8], 2));
    // ... and `rewind_short` puts it back there.
    c.rewind_short();
    assert_eq!(c.pos(), 2);
    assert_eq!(c.take(3), Some(&[3u8, 4, 5][..]));
    assert_eq!(c.unread(), &[] as &[u8]);
    assert_eq!(c.read_array::<1>(), None);
    assert_eq!(c.short(), 5);
    assert_eq!(c.take(0), Some(&[] as &[u8]));
    assert_eq!(c.take(usize::MAX), None);
    assert_eq!((c.pos(), c.unread().len()), (5, 0));
    let mut e = Cursor::new(&[]);
    assert_eq!((e.read_array::<0>(), e.take(1)), (Some([]), None));
    // Every split of every length agrees with the checked slice ops.
    let buf: Vec<u8> = (0..40).collect();
    for len in 0..buf.len() {
        for first in 0..=len + 1 {
            let mut c = Cursor::new(&buf[..len]);
            let took = c.take(first);
            assert_eq!(took, buf[..len].get(..first));
            let at = c.pos();
            assert_eq!(c.unread(), &buf[at..len]);
            let next = c.read_array::<3>();
            assert_eq!(next.as_ref(), super::first_chunk::<3>(&buf[at..len]));
            assert_eq!(c.pos(), if next.is_some() { at + 3 } else { len });
            if next.is_none() {
                assert_eq!(c.short(), at);
                c.rewind_short();
                assert_eq!(c.unread(), &buf[at..len]);
            }
            let at = c.pos();
            let wide = c.read_array::<8>();
            assert_eq!(wide.as_ref(), super::first_chunk::<8>(&buf[at..len]));
            assert_eq!(c.pos(), if wide.is_some() { at + 8 } else { len });
        }
    }
}

/// `Cursor::window` opens exactly when `WINDOW` bytes remain, at every
/// position of inputs around a window's length, and holds those bytes.
#[test]
fn cursor_window_opens_only_on_a_full_window() {
    use super::WINDOW;
    let buf: Vec<u8> = (0..3 * WINDOW).map(|i| (i * 13 + 1) as u8).collect();
    for len in [0, 1, WINDOW - 1, WINDOW, WINDOW + 1, 2 * WINDOW, 3 * WINDOW] {
        let data = &buf[..len];
        for at in 0..=len {
            let mut c = Cursor::new(data);
            assert_eq!(c.take(at), Some(&data[..at]));
            let w = c.window();
            assert_eq!(
                w.map(|w| &w[..]),
                data[at..].get(..WINDOW),
                "len {len}, at {at}"
            );
            assert_eq!(c.pos(), at, "the window does not move");
        }
    }
    // After a short read moved the cursor to the end: no window.
    let mut c = Cursor::new(&buf[..WINDOW]);
    assert_eq!(c.read_array::<{ WINDOW + 1 }>(), None);
    assert!(c.window().is_none());
    c.rewind_short();
    assert_eq!(c.window().map(|w| &w[..]), Some(&buf[..WINDOW]));
}

#[test]
fn holds_reads_writes_and_frees() {
    let mut b = ThinBox::new(String::from("kiln"));
    assert_eq!(b.get().map(String::as_str), Some("kiln"));
    assert_eq!(b.as_word(), None);
    b.get_mut().unwrap().push_str("_serde");
    assert_eq!(b.get().map(String::as_str), Some("kiln_serde"));
    assert_eq!(*b.into_box().unwrap(), "kiln_serde");
    let v: Vec<ThinBox<Vec<u8>>> = (0..64).map(|i| ThinBox::new(vec![i; 100])).collect();
    assert!(v.iter().enumerate().all(|(i, b)| {
        let b = b.get().unwrap();
        b.len() == 100 && b[0] == i as u8
    }));
}

/// A word holds its number and no value: nothing to read, take or free
/// (valgrind in CI: no invalid free, no leak, beside heap handles).
#[test]
fn a_word_holds_a_number_and_no_value() {
    for n in [0u64, 1, 4, 16, 1 << 40, (1 << 62) - 1] {
        let mut w = ThinBox::<String>::word(n);
        assert_eq!(w.as_word(), Some(n));
        assert!(w.get().is_none());
        assert!(w.get_mut().is_none());
        assert!(w.into_box().is_none());
    }
    let mixed: Vec<ThinBox<Vec<u8>>> = (0..64u8)
        .map(|i| {
            if i % 2 == 0 {
                ThinBox::word(u64::from(i))
            } else {
                ThinBox::new(vec![i; 10])
            }
        })
        .collect();
    for (i, b) in mixed.iter().enumerate() {
        match b.as_word() {
            Some(n) => assert_eq!(n, i as u64),
            None => assert_eq!(b.get().unwrap()[0], i as u8),
        }
    }
    assert_eq!(std::mem::size_of::<Result<(), ThinBox<u64>>>(), 8);
}

#[test]
fn handle_is_4_aligned_with_a_niche() {
    assert_eq!(std::mem::align_of::<ThinBox<u64>>(), 4);
    assert_eq!(std::mem::size_of::<ThinBox<u64>>(), 8);
    assert_eq!(std::mem::size_of::<Result<(), ThinBox<u64>>>(), 8);
    assert_eq!(std::mem::size_of::<Option<ThinBox<u64>>>(), 8);
}

#[test]
fn ascii_check_agrees_with_std_at_every_length_and_position() {
    for len in 0..160 {
        let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        assert!(super::is_ascii(&ascii), "len {len}");
        assert_eq!(str_from_utf8(&ascii).unwrap().as_bytes(), &ascii[..]);
        for pos in 0..len {
            let mut high = ascii.clone();
            high[pos] = 0x80;
            assert!(!super::is_ascii(&high), "len {len} pos {pos}");
            assert!(str_from_utf8(&high).is_err(), "lone continuation byte");
            let mut utf8 = ascii.clone();
            utf8.splice(pos..=pos, "é".bytes());
            assert!(!super::is_ascii(&utf8));
            assert_eq!(
                str_from_utf8(&utf8).unwrap(),
                std::str::from_utf8(&utf8).unwrap()
            );
        }
    }
}

#[test]
fn utf8_errors_are_std_errors() {
    let bad: Vec<u8> = [&b"abc"[..], &[0xff, 0xfe], &b"defghijk"[..]].concat();
    let e = str_from_utf8(&bad).unwrap_err();
    assert_eq!(e, std::str::from_utf8(&bad).unwrap_err());
    assert_eq!(e.valid_up_to(), 3);
}

#[test]
fn block64_is_64_bytes_aligned_and_castable() {
    assert_eq!(std::mem::size_of::<Block64>(), 64);
    assert_eq!(std::mem::align_of::<Block64>(), 64);
    let mut blocks = vec![Block64([0; 64]); 3];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut blocks);
    assert_eq!(bytes.len(), 192);
    assert_eq!(bytes.as_ptr() as usize % 64, 0);
    bytes[70] = 7;
    let back: &[Block64] = bytemuck::cast_slice(bytes);
    assert_eq!(back[1].0[6], 7);
    assert!(bytemuck::try_cast_slice::<u8, Block64>(&bytes[1..65]).is_err());
}

#[test]
fn crosses_threads() {
    let b = ThinBox::new(vec![1u32, 2, 3]);
    let sum = std::thread::spawn(move || b.get().unwrap().iter().sum::<u32>())
        .join()
        .unwrap();
    assert_eq!(sum, 6);
}

#[test]
fn vec_writer_finds_only_a_mut_vec_of_bytes() {
    let mut v = vec![1u8, 2];
    {
        let mut w: &mut Vec<u8> = &mut v;
        let got = super::vec_writer(&mut w).expect("a &mut Vec<u8>");
        got.push(3);
        assert_eq!(got.as_ptr(), w.as_ptr());
    }
    assert_eq!(v, [1, 2, 3]);
    // Other writers, also ones holding a `Vec`, are not taken for it.
    assert!(super::vec_writer(&mut v.clone()).is_none());
    assert!(super::vec_writer(&mut std::io::Cursor::new(&mut v)).is_none());
    assert!(super::vec_writer(&mut &mut v[..]).is_none());
    assert!(super::vec_writer(&mut &mut &mut v).is_none());
    assert!(super::vec_writer(&mut std::io::sink()).is_none());
}

#[test]
fn with_slice_reader_finds_only_byte_slices_and_moves_them() {
    let bytes = [1u8, 2, 3, 4, 5];
    // `&mut &[u8]`: the caller's slice moves past `used`.
    let mut input = &bytes[..];
    let got = super::with_slice_reader(&mut &mut input, |b| (b.to_vec(), 2));
    assert_eq!(got.as_deref(), Some(&bytes[..]));
    assert_eq!(input, [3, 4, 5]);
    // `used` past the end: the slice ends empty, no panic.
    let got = super::with_slice_reader(&mut &mut input, |b| (b.len(), 99));
    assert_eq!((got, input.len()), (Some(3), 0));
    // `&[u8]` by value: its own copy moves.
    let mut by_value = &bytes[1..];
    let got = super::with_slice_reader(&mut by_value, |b| (b[0], 1));
    assert_eq!((got, by_value), (Some(2), &bytes[2..]));
    // Every other reader: `None`, `f` not called.
    let mut v = bytes.to_vec();
    let never = |_: &[u8]| -> ((), usize) { panic!("called for a reader that is not a slice") };
    assert!(super::with_slice_reader(&mut v.clone(), never).is_none());
    assert!(super::with_slice_reader(&mut &mut v, never).is_none());
    assert!(super::with_slice_reader(&mut &mut v[..], never).is_none());
    assert!(super::with_slice_reader(&mut &mut &mut &bytes[..], never).is_none());
    assert!(super::with_slice_reader(&mut std::io::empty(), never).is_none());
    let mut c = std::io::Cursor::new(&bytes[..]);
    assert!(super::with_slice_reader(&mut &mut &mut c, never).is_none());
    assert!(super::with_slice_reader(&mut std::io::Cursor::new([1u8, 2]), never).is_none());
    let mut words = std::io::Cursor::new(vec![1u16, 2]);
    assert!(super::with_slice_reader(&mut words, never).is_none());
}

#[test]
fn with_slice_reader_finds_cursors_over_bytes_and_moves_their_position() {
    let bytes = [1u8, 2, 3, 4, 5];
    let rest = |b: &[u8]| (b.to_vec(), 2);
    // `&mut Cursor<&[u8]>`: the bytes from the position on; the position
    // moves past `used`.
    let mut c = std::io::Cursor::new(&bytes[..]);
    c.set_position(1);
    assert_eq!(
        super::with_slice_reader(&mut &mut c, rest),
        Some(vec![2, 3, 4, 5])
    );
    assert_eq!(c.position(), 3);
    // `used` past the end: the position stops at the end.
    assert_eq!(
        super::with_slice_reader(&mut &mut c, |b| (b.len(), 99)),
        Some(2)
    );
    assert_eq!(c.position(), 5);
    // A position past the end: no bytes, and it stays where it is.
    c.set_position(9);
    assert_eq!(
        super::with_slice_reader(&mut &mut c, |b| (b.len(), 0)),
        Some(0)
    );
    assert_eq!(c.position(), 9);
    c.set_position(u64::MAX);
    assert_eq!(
        super::with_slice_reader(&mut &mut c, |b| (b.len(), 7)),
        Some(0)
    );
    assert_eq!(c.position(), u64::MAX);
    // By value, over a `Vec<u8>` and over a `&Vec<u8>`, and `&mut` of each.
    let v = bytes.to_vec();
    let mut owned = std::io::Cursor::new(v.clone());
    owned.set_position(2);
    assert_eq!(
        super::with_slice_reader(&mut owned, rest),
        Some(vec![3, 4, 5])
    );
    assert_eq!(owned.position(), 4);
    assert_eq!(
        super::with_slice_reader(&mut &mut owned, rest),
        Some(vec![5])
    );
    assert_eq!(owned.position(), 5);
    let mut borrowed = std::io::Cursor::new(&v);
    assert_eq!(
        super::with_slice_reader(&mut borrowed, rest),
        Some(v.clone())
    );
    assert_eq!(borrowed.position(), 2);
    assert_eq!(
        super::with_slice_reader(&mut &mut borrowed, rest),
        Some(vec![3, 4, 5])
    );
    assert_eq!(borrowed.position(), 4);
    let mut by_value = std::io::Cursor::new(&bytes[..]);
    assert_eq!(
        super::with_slice_reader(&mut by_value, rest),
        Some(v.clone())
    );
    assert_eq!(by_value.position(), 2);
    // Over a `Box<[u8]>`, a `&mut [u8]` and a `&mut Vec<u8>`, by value and
    // `&mut`; the bytes are left as they were.
    let mut boxed = std::io::Cursor::new(v.clone().into_boxed_slice());
    boxed.set_position(1);
    assert_eq!(
        super::with_slice_reader(&mut boxed, rest),
        Some(vec![2, 3, 4, 5])
    );
    assert_eq!(
        super::with_slice_reader(&mut &mut boxed, rest),
        Some(vec![4, 5])
    );
    assert_eq!(boxed.position(), 5);
    let mut buf = v.clone();
    let mut in_buf = std::io::Cursor::new(&mut buf[..]);
    assert_eq!(
        super::with_slice_reader(&mut &mut in_buf, rest),
        Some(v.clone())
    );
    assert_eq!(
        super::with_slice_reader(&mut in_buf, rest),
        Some(vec![3, 4, 5])
    );
    assert_eq!(in_buf.position(), 4);
    let mut in_vec = std::io::Cursor::new(&mut buf);
    in_vec.set_position(3);
    assert_eq!(
        super::with_slice_reader(&mut in_vec, |b| (b.to_vec(), 1)),
        Some(vec![4, 5])
    );
    assert_eq!(
        super::with_slice_reader(&mut &mut in_vec, |b| (b.to_vec(), 1)),
        Some(vec![5])
    );
    assert_eq!(in_vec.position(), 5);
    assert_eq!(buf, v);
}
