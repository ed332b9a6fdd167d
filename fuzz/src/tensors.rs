//! The tensor checks of the `tensors` target: a directory block, a record
//! holding one, and a checkpoint file, each decoded every way Kiln offers
//! and compared.

use kiln_serde::tensors::{self, Tensors, TensorsBuilder, TensorsView};
use kiln_serde::{ErrorCode, Options};
use serde::{Deserialize, Serialize};

use crate::{assert_reencodes, check_error, ChunkReader};

/// A record with a directory in the middle: the next field starts right
/// after the block (spec 1.3).
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Rec {
    pub id: u8,
    pub t: Tensors,
    pub tail: String,
}

/// [`Rec`] with a borrowed view.
#[derive(Serialize, Deserialize, Debug)]
pub struct RecView<'a> {
    pub id: u8,
    #[serde(borrow)]
    pub t: TensorsView<'a>,
    pub tail: &'a str,
}

/// Asserts two results agree: both Ok, or the same code and offset.
fn same_outcome<A, B>(a: &kiln_serde::Result<A>, b: &kiln_serde::Result<B>, what: &str) {
    match (a, b) {
        (Ok(_), Ok(_)) => {}
        (Err(x), Err(y)) => {
            assert_eq!(x.code(), y.code(), "{what}: {x} vs {y}");
            assert_eq!(x.offset(), y.offset(), "{what}: {x} vs {y}");
        }
        (Ok(_), Err(y)) => panic!("{what}: first ok, second {y}"),
        (Err(x), Ok(_)) => panic!("{what}: first {x}, second ok"),
    }
}

/// Every tensor of a validated view: data inside the payload region at a
/// 64-aligned offset, byte length from dtype and shape, names found by
/// name; the owned copy and the rebuilt directory are the same bytes.
pub fn check_view(view: &TensorsView<'_>) {
    let block = view.as_bytes();
    let l = view.layout();
    assert_eq!(l.block_len(), block.len());
    assert_eq!(view.len(), l.count() as usize);
    let base = block.as_ptr() as usize;
    for (i, t) in view.iter().enumerate() {
        assert_eq!(t.index(), i);
        let data = t.data();
        if !data.is_empty() {
            let off = data.as_ptr() as usize - base;
            assert!(off >= l.payload_start(), "tensor {i} before the payload");
            assert!(off + data.len() <= block.len(), "tensor {i} past the block");
            assert_eq!((off - l.payload_start()) % 64, 0, "tensor {i} unaligned");
        }
        assert_eq!(t.shape().len(), t.rank());
        let elems = u128::from(t.elements());
        match (t.dtype().bits(), t.layout()) {
            (Some(bits), None) => {
                assert_eq!(data.len() as u128, (elems * u128::from(bits)).div_ceil(8))
            }
            (None, Some(o)) => {
                let be = u128::from(o.block_elems());
                assert!(be > 0 && elems % be == 0);
                assert_eq!(data.len() as u128, elems / be * u128::from(o.block_bytes()));
            }
            other => panic!("tensor {i}: dtype bits and opaque layout disagree: {other:?}"),
        }
        if let Some(name) = t.name() {
            if !name.is_empty() {
                assert_eq!(view.by_name(name).map(|x| x.index()), Some(i));
            }
        }
        let _ = t.to_vec::<u8>();
        let _ = t.try_as_slice::<f32>();
        let _ = format!("{t:?}");
    }
    assert!(view.get(view.len()).is_none());
    let _ = format!("{view:?}");
    let owned = Tensors::from(view);
    assert_eq!(owned.as_bytes(), block, "owned copy differs");
    assert_eq!(owned.len(), view.len());
    let rebuilt = TensorsBuilder::from_view(view)
        .build()
        .expect("a valid directory rebuilds");
    assert!(
        rebuilt.as_bytes() == block,
        "rebuilt directory is not the same bytes (not canonical)"
    );
}

/// A bare directory block through every reader.
pub fn check_block(buf: &[u8], plan: &[u8]) {
    let opts = Options::default();
    let layout = tensors::validate(buf, opts.limits());
    let taken = TensorsView::take_from_bytes(buf, opts.limits());
    let exact = TensorsView::from_bytes(buf, opts.limits());
    same_outcome(&layout, &taken, "validate vs take_from_bytes");
    match (&exact, &taken) {
        (Ok(v), Ok((_, rest))) => {
            assert!(rest.is_empty());
            check_view(v);
        }
        (Err(e), Ok((v, rest))) => {
            assert_eq!(e.code(), ErrorCode::Trailing, "{e}");
            assert!(!rest.is_empty());
            assert_eq!(e.offset(), Some(v.as_bytes().len() as u64));
            check_view(v);
        }
        (Err(a), Err(b)) => {
            check_error(a, buf.len());
            assert_eq!((a.code(), a.offset()), (b.code(), b.offset()));
        }
        (Ok(_), Err(b)) => panic!("from_bytes ok, take_from_bytes {b}"),
    }

    // The trusted reader never panics, accepts what the full one accepts
    // (same block), and only rejects what the full one rejects.
    match TensorsView::from_bytes_trusted(buf) {
        Ok(t) => {
            if let Ok(v) = &exact {
                assert_eq!(t.as_bytes(), v.as_bytes());
                assert_eq!(t.len(), v.len());
            }
            for x in t.iter() {
                let _ = (x.name(), x.data().len(), format!("{x:?}"));
            }
        }
        Err(e) => assert!(exact.is_err(), "trusted rejects a valid block: {e}"),
    }

    // serde: owned and borrowed, standalone.
    let owned = kiln_serde::from_slice::<Tensors>(buf);
    same_outcome(&exact, &owned, "from_bytes vs from_slice::<Tensors>");
    if let Ok(t) = &owned {
        assert_eq!(t.as_bytes(), buf);
        assert_reencodes(t, buf);
        assert_eq!(Tensors::from_bytes(buf, opts.limits()).expect("owned"), *t);
    }
    let borrowed = kiln_serde::from_slice::<TensorsView<'_>>(buf);
    same_outcome(&exact, &borrowed, "from_bytes vs from_slice::<TensorsView>");

    // Streams: one block from the front, the reader left right after it.
    let mut r = ChunkReader::new(buf, plan);
    let read = Tensors::read_from(&mut r, opts.limits());
    same_as_taken(&taken, &read, r.position(), "read_from");
    let mut r = ChunkReader::new(buf, plan);
    let via_serde = kiln_serde::from_reader::<_, Tensors>(&mut r);
    same_as_taken(&taken, &via_serde, r.position(), "from_reader");
}

/// A block read from a stream (`what`, the reader then at `position`)
/// agrees with `take_from_bytes` of the same bytes: the same block with the
/// reader right after it, or the same error code.
fn same_as_taken(
    taken: &kiln_serde::Result<(TensorsView<'_>, &[u8])>,
    read: &kiln_serde::Result<Tensors>,
    position: usize,
    what: &str,
) {
    match (taken, read) {
        (Ok((v, _)), Ok(t)) => {
            assert_eq!(t.as_bytes(), v.as_bytes());
            assert_eq!(position, v.as_bytes().len());
        }
        (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "take {a} vs {what} {b}"),
        (a, b) => panic!(
            "take {:?} vs {what} {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}

/// A record with a directory inside: slice (owned and borrowed) and stream
/// agree, and what decodes re-encodes to the same bytes.
pub fn check_record(buf: &[u8], plan: &[u8]) {
    let owned = kiln_serde::from_slice::<Rec>(buf);
    let borrowed = kiln_serde::from_slice::<RecView<'_>>(buf);
    same_outcome(&owned, &borrowed, "Rec vs RecView");
    if let Ok(r) = &owned {
        assert_reencodes(r, buf);
        check_view(&r.t.view());
    }
    if let Ok(r) = &borrowed {
        assert_reencodes(r, buf);
    }
    if let Err(e) = &owned {
        check_error(e, buf.len());
    }
    let taken = kiln_serde::take_from_slice::<Rec>(buf);
    let mut reader = ChunkReader::new(buf, plan);
    let streamed = kiln_serde::from_reader::<_, Rec>(&mut reader);
    match (&taken, &streamed) {
        (Ok((a, rest)), Ok(b)) => {
            assert_eq!(a, b);
            assert_eq!(reader.position(), buf.len() - rest.len());
        }
        _ => same_outcome(&taken, &streamed, "take vs from_reader (Rec)"),
    }
}

/// `check_buffer` on a bare or framed directory file agrees with the view
/// readers (offsets shifted by the frame).
pub fn check_file(buf: &[u8]) {
    let opts = Options::default();
    let r = kiln_serde::checkpoint::check_buffer(buf, opts.limits());
    if let Err(e) = &r {
        check_error(e, buf.len());
    }
    if !buf.starts_with(b"KILN") {
        same_outcome(
            &r,
            &TensorsView::from_bytes(buf, opts.limits()),
            "check_buffer bare",
        );
    } else if let Ok(v) = &r {
        check_view(v);
        // The directory ends the file (anything after is TRAILING). It is
        // the whole payload of a framed directory; a checkpoint's starts
        // after its metadata, where `CheckpointView` finds it too.
        let at = buf.len() - v.as_bytes().len();
        assert_eq!(v.as_bytes(), &buf[at..]);
        if buf[8..16] == kiln_serde::checkpoint::CHECKPOINT_HASH.to_le_bytes() {
            assert!(at >= 16 + 4, "a checkpoint's metadata comes first");
            let c = kiln_serde::CheckpointView::from_bytes(buf, opts.limits())
                .expect("check_buffer accepted the checkpoint");
            assert_eq!(c.tensors().as_bytes(), v.as_bytes());
        } else {
            assert_eq!(at, 16, "a framed directory is the whole payload");
        }
    }
}
