//! Tensor directory: exact bytes, every check of spec 5 and 6 with its code
//! and offset, views, streaming, and properties.

use std::borrow::Cow;

use kiln_serde::tensors::{
    header_lens, validate, AlignedBuf, Dtype, Quant, TensorSpec, Tensors, TensorsBuilder,
    TensorsView,
};
use kiln_serde::{ErrorCode, Limits};

// ---------------------------------------------------------------- helpers

#[path = "support/spec_dir.rs"]
mod spec_dir;
use spec_dir::{canonical, get32, get64, header, place, put16, put32, put64, set, t, T};

/// Start of descriptor `i`, as an index.
fn d(i: usize) -> usize {
    spec_dir::d(i as u64) as usize
}

/// The spec's `kiln-v2-f8-pair` tensors (spec 8).
fn f8_pair() -> Vec<T> {
    vec![
        t(spec_dir::F8E4M3, &[1], [0x38]),
        t(spec_dir::F8E5M2, &[1], [0x3c]),
    ]
}

fn opts() -> Limits {
    Limits::default()
}

#[track_caller]
fn expect_err(buf: &[u8], o: &Limits, code: ErrorCode, at: usize) {
    match validate(buf, o) {
        Ok(_) => panic!("accepted; expected {code} at {at}"),
        Err(e) => {
            assert_eq!(
                (e.code(), e.offset()),
                (code, Some(at as u64)),
                "got {e}, expected {code} at {at}"
            );
        }
    }
}

// ---------------------------------------------------------- golden cases

#[test]
fn f8_pair_exact_bytes() {
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::new(Dtype::F8E4M3, &[1], &[0x38u8][..]));
    b.push(TensorSpec::new(Dtype::F8E5M2, &[1], &[0x3cu8][..]));
    let t = b.build().unwrap();
    let want = canonical(&f8_pair());
    assert_eq!(want.len(), 320 + 65);
    assert_eq!(t.as_bytes(), &want[..]);
    assert_eq!(t.as_bytes().as_ptr() as usize % 64, 0);
    let l = validate(&want, &opts()).unwrap();
    assert_eq!(l.block_len(), 385);
    assert_eq!(l.payload_start(), 320);
    assert_eq!(l.payload_bytes(), 65);
    let v = TensorsView::from_bytes(&want, &opts()).unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v.get(0).unwrap().data(), &[0x38]);
    assert_eq!(v.get(1).unwrap().data(), &[0x3c]);
    assert_eq!(v.get(1).unwrap().dtype(), Dtype::F8E5M2);
    assert_eq!(v.get(1).unwrap().name(), None);
    assert!(v.get(2).is_none());
}

#[test]
fn empty_directory_is_64_bytes() {
    let t = TensorsBuilder::new().build().unwrap();
    let want = canonical(&[]);
    assert_eq!(want.len(), 64);
    assert_eq!(t.as_bytes(), &want[..]);
    assert!(t.is_empty());
    assert_eq!(Tensors::default(), t);
    assert_eq!(Tensors::default().layout(), t.layout());
    let v = TensorsView::from_bytes(&want, &opts()).unwrap();
    assert_eq!(v.len(), 0);
    assert_eq!(v.iter().count(), 0);
    // Without the pad it is EOF (payload region start P=64 is past the end).
    expect_err(&want[..32], &opts(), ErrorCode::Eof, 16);
}

#[test]
fn unaligned_case_is_type() {
    let b = place(&f8_pair(), &[0, 1], 2);
    expect_err(&b, &opts(), ErrorCode::Type, d(1) + 80);
}

#[test]
fn nonzero_pad_case_is_type() {
    let b = set(canonical(&f8_pair()), 320 + 32, &[0xA5]);
    expect_err(&b, &opts(), ErrorCode::Type, 320 + 32);
}

#[test]
fn overlap_case_is_type() {
    let ts = [
        t(spec_dir::F8E4M3, &[100], vec![0; 100]),
        t(spec_dir::F8E5M2, &[16], vec![0; 16]),
    ];
    let b = place(&ts, &[0, 64], 100);
    expect_err(&b, &opts(), ErrorCode::Type, d(1) + 80);
}

#[test]
fn zero_length_tensors_follow_the_greedy_rule() {
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::new(Dtype::U8, &[1], &[7u8][..]));
    b.push(TensorSpec::new(Dtype::U8, &[0], &[][..]));
    b.push(TensorSpec::new(Dtype::U8, &[1], &[9u8][..]));
    let t = b.build().unwrap();
    let bytes = t.as_bytes();
    assert_eq!(get64(bytes, d(0) + 80), 0);
    assert_eq!(get64(bytes, d(1) + 80), 64);
    assert_eq!(
        get64(bytes, d(2) + 80),
        64,
        "an empty tensor shares its offset"
    );
    assert_eq!(get64(bytes, 16), 65);

    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::new(Dtype::U8, &[1], &[7u8][..]));
    b.push(TensorSpec::new(Dtype::U8, &[0], &[][..]));
    let t = b.build().unwrap();
    assert_eq!(get64(t.as_bytes(), d(1) + 80), 64);
    assert_eq!(get64(t.as_bytes(), 16), 64);
    assert_eq!(t.get(1).unwrap().data(), &[] as &[u8]);
}

// ------------------------------------------------- the rich base directory

#[path = "support/rich_dir.rs"]
mod rich_dir;
use rich_dir::{rich, rich_specs, table, Rich, SCALE};

#[test]
fn rich_directory_validates_and_views() {
    let r = Rich::new();
    let v = TensorsView::from_bytes(&r.bytes, &opts()).unwrap();
    assert_eq!(v.len(), 8);
    let names: Vec<_> = v.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            Some("scale"),
            Some("q"),
            Some("outer"),
            Some("q3"),
            None,
            Some("k"),
            Some("k2"),
            Some("e")
        ]
    );
    let q3 = v.by_name("q3").unwrap();
    assert_eq!(q3.index(), 3);
    assert_eq!(q3.quant().scale(), Some(4));
    assert_eq!(q3.quant().outer(), Some(2));
    assert_eq!(q3.quant().block_elems(), Some(3));
    assert_eq!(q3.elements(), 3);
    let k = v.by_name("k").unwrap();
    let l = k.layout().unwrap();
    assert_eq!(
        (l.name(), l.block_elems(), l.block_bytes()),
        (Some("q4_k"), 256, 144)
    );
    assert_eq!(k.data().len(), 288);
    let outer = v.by_name("outer").unwrap();
    assert_eq!(outer.rank(), 0);
    assert_eq!(outer.shape(), &[] as &[u64]);
    assert_eq!(outer.elements(), 1);
    let e = v.by_name("e").unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    assert_eq!(e.elements(), 0);
    assert!(v.by_name("nope").is_none());
    assert!(v.by_name("").is_none());
    // The builder writes what the spec-derived writer writes.
    assert_eq!(rich().as_bytes(), &r.bytes[..]);
    let l = rich().layout().clone();
    assert_eq!(l.heap_start(), spec_dir::heap_start(&r.ts) as usize);
    assert_eq!(l.payload_start(), r.p);
    // Names then layout names in the heap, flag set.
    let heap = l.heap_start();
    assert_eq!(get32(&r.bytes, 12), 25);
    assert_eq!(&r.bytes[heap..heap + 25], b"scaleqouterq3kk2eq4_kq4_k");
    assert_eq!(u16::from_le_bytes([r.bytes[6], r.bytes[7]]), 3);
    // Debug is concise.
    let dbg = format!("{:?}", rich());
    assert!(dbg.contains("\"q3\": i4[3]"), "{dbg}");
    assert!(dbg.len() < 1000, "{dbg}");
}

#[test]
fn every_check_has_its_code_and_offset() {
    let base = Rich::new();
    validate(&base.bytes, &opts()).unwrap();
    assert_ne!(base.bytes[base.p - 1], 1, "the base needs a pad byte");
    for (what, mutate, code, at) in table() {
        let mut r = Rich::new();
        mutate(&mut r);
        let want_at = at(&r);
        match validate(&r.bytes, &opts()) {
            Ok(_) => panic!("{what}: accepted, expected {code} at {want_at}"),
            Err(e) => assert_eq!(
                (e.code(), e.offset()),
                (code, Some(want_at as u64)),
                "{what}: got {e}"
            ),
        }
    }
}

#[test]
fn unnamed_directory_with_names_flag_is_frame() {
    let mut b = canonical(&f8_pair());
    b[6] |= 2;
    expect_err(&b, &opts(), ErrorCode::Frame, 6);
}

#[test]
fn caps() {
    let r = Rich::new();
    // count above the cap
    expect_err(&r.bytes, &opts().with_max_count(7), ErrorCode::Limit, 8);
    validate(&r.bytes, &opts().with_max_count(8)).unwrap();
    // name above the byte cap: "scale" is 5 bytes
    expect_err(
        &r.bytes,
        &opts().with_max_bytes(4),
        ErrorCode::Limit,
        d(0) + 4,
    );
    // layout name above the byte cap
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::opaque(4096, "q4_k", 1, 1, &[1], &[0u8][..]));
    let t = b.build().unwrap();
    expect_err(
        t.as_bytes(),
        &opts().with_max_bytes(3),
        ErrorCode::Limit,
        d(0) + 8,
    );
}

#[test]
fn hostile_count_is_limit_before_eof_and_allocates_nothing() {
    let mut b = header(spec_dir::FLAG_LE, u32::MAX, 0, 0);
    b.resize(40, 0);
    expect_err(&b, &opts(), ErrorCode::Limit, 8);
    // With the cap lifted it is EOF: the descriptors cannot fit.
    expect_err(&b, &opts().with_max_count(u64::MAX), ErrorCode::Eof, 8);
    let hdr: [u8; 32] = b[..32].try_into().unwrap();
    let (meta, block) = header_lens(&hdr, &opts().with_max_count(u64::MAX)).unwrap();
    assert_eq!(meta, 32 + 128 * u64::from(u32::MAX));
    assert_eq!(block, meta.div_ceil(64) * 64);
    assert_eq!(
        header_lens(&hdr, &opts()).unwrap_err().code(),
        ErrorCode::Limit
    );
    // The trusted reader has no count cap but still cannot read past.
    let e = TensorsView::from_bytes_trusted(&b).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(8)));
    // A stream that lies costs only what it delivers.
    let e = Tensors::read_from(&mut &b[..], &opts().with_max_count(u64::MAX)).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(8)));
}

#[test]
fn header_precedence() {
    // FRAME before LIMIT before EOF.
    let mut b = header(spec_dir::FLAG_LE, u32::MAX, 0, u64::MAX);
    b[24] = 1;
    expect_err(&b, &opts(), ErrorCode::Frame, 24);
    b[24] = 0;
    expect_err(&b, &opts(), ErrorCode::Limit, 8);
    // descriptors that do not fit come before a payload length that overflows
    put32(&mut b, 8, 1);
    expect_err(&b, &opts(), ErrorCode::Eof, 8);
    let hdr: [u8; 32] = b[..32].try_into().unwrap();
    let e = header_lens(&hdr, &opts()).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(16)));
    put32(&mut b, 8, 0);
    expect_err(&b, &opts(), ErrorCode::Eof, 16);
    // magic first of all
    b[0] = 0;
    b[4] = 9;
    expect_err(&b, &opts(), ErrorCode::Frame, 0);
    // short header
    for n in 0..32 {
        expect_err(&b[..n], &opts(), ErrorCode::Eof, 0);
    }
}

#[test]
fn descriptor_precedence_is_in_spec_order() {
    // Several faults in one descriptor: the first in spec order wins.
    let mut r = Rich::new();
    r.bytes[d(1) + 120] = 1; // reserved (FRAME)
    put16(&mut r.bytes, d(1), 0); // dtype
    r.bytes[d(1) + 2] = 9; // rank
    expect_err(&r.bytes, &opts(), ErrorCode::Frame, d(1) + 112);
    r.bytes[d(1) + 120] = 0;
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(1));
    put16(&mut r.bytes, d(1), 2);
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(1) + 2);
    // An earlier descriptor's fault wins over a later one's.
    let mut r = Rich::new();
    put16(&mut r.bytes, d(4), 0);
    r.bytes[d(2) + 2] = 9;
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(2) + 2);
    // Opaque consistency comes before the greedy byte_offset: tensor 6
    // (opaque 5000, 256 elements) with block sizes 128/72 (its byte_length
    // 144 still right for itself, unlike tensor 5's 256/144) and a wrong
    // offset.
    let mut r = Rich::new();
    put32(&mut r.bytes, d(6) + 104, 128);
    put32(&mut r.bytes, d(6) + 108, 72);
    let off = get64(&r.bytes, d(6) + 80);
    put64(&mut r.bytes, d(6) + 80, off + 64);
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(6) + 104);
    put32(&mut r.bytes, d(6) + 104, 256);
    put32(&mut r.bytes, d(6) + 108, 144);
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(6) + 80);
    // Descriptor faults win over the names flag and the heap.
    let mut r = Rich::new();
    r.bytes[6] &= !2;
    put64(&mut r.bytes, d(7) + 80, 0);
    expect_err(&r.bytes, &opts(), ErrorCode::Type, d(7) + 80);
}

#[test]
fn trailing_and_following_field() {
    let t = rich();
    let mut buf = t.as_bytes().to_vec();
    buf.extend_from_slice(b"next");
    let l = validate(&buf, &opts()).unwrap();
    assert_eq!(l.block_len(), t.as_bytes().len());
    let (v, rest) = TensorsView::take_from_bytes(&buf, &opts()).unwrap();
    assert_eq!(rest, b"next");
    assert_eq!(v.as_bytes(), t.as_bytes());
    let e = TensorsView::from_bytes(&buf, &opts()).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (ErrorCode::Trailing, Some(t.as_bytes().len() as u64))
    );
    assert_eq!(
        Tensors::from_bytes(&buf, &opts()).unwrap_err().code(),
        ErrorCode::Trailing
    );
}

#[test]
fn trusted_reader_skips_utf8_and_quant_arithmetic_only() {
    let r = Rich::new();
    // bad UTF-8 name: trusted accepts, name() is None, bytes are there
    let mut b = r.bytes.clone();
    let at = r.name_at(2);
    b[at] = 0xFF;
    assert_eq!(validate(&b, &opts()).unwrap_err().code(), ErrorCode::Utf8);
    let v = TensorsView::from_bytes_trusted(&b).unwrap();
    assert_eq!(v.get(2).unwrap().name(), None);
    assert_eq!(v.get(2).unwrap().name_bytes()[1..], *b"uter");
    // quant count link: trusted accepts
    let mut b = r.bytes.clone();
    put32(&mut b, d(1) + 96, 4);
    assert!(validate(&b, &opts()).is_err());
    TensorsView::from_bytes_trusted(&b).unwrap();
    // lengths are still checked
    let mut b = r.bytes.clone();
    put64(&mut b, d(0) + 88, 9);
    assert_eq!(
        TensorsView::from_bytes_trusted(&b).unwrap_err().code(),
        ErrorCode::Type
    );
    for n in 0..r.bytes.len() {
        assert!(TensorsView::from_bytes_trusted(&r.bytes[..n]).is_err());
    }
}

#[test]
fn every_prefix_is_eof() {
    let r = Rich::new();
    for n in 0..r.bytes.len() {
        let e = validate(&r.bytes[..n], &opts()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof, "prefix {n}: {e}");
        let e = Tensors::read_from(&mut &r.bytes[..n], &opts()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof, "stream prefix {n}: {e}");
    }
}

// ------------------------------------------------------------ typed views

#[test]
fn typed_views_aligned_and_copying() {
    let w: Vec<f32> = (0..10).map(|i| i as f32 * 0.5).collect();
    let h: Vec<half::bf16> = w.iter().map(|&x| half::bf16::from_f32(x)).collect();
    let ints: Vec<i64> = (0..5).map(|i| -i).collect();
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2, 5], &w).named("w"));
    b.push(TensorSpec::from_pod_slice(Dtype::Bf16, &[10], &h).named("h"));
    b.push(TensorSpec::from_slice(&[5], &ints).named("i"));
    b.push(TensorSpec::new(Dtype::U4, &[3], &[0x21u8, 0x03][..]).named("n"));
    let t = b.build().unwrap();

    // Owned: aligned, zero-copy typed slices.
    let wv = t.by_name("w").unwrap();
    assert_eq!(wv.data().as_ptr() as usize % 64, 0);
    assert_eq!(wv.try_as_slice::<f32>().unwrap(), &w[..]);
    assert_eq!(wv.try_as_slice::<u32>().unwrap().len(), 10);
    assert_eq!(
        t.by_name("h")
            .unwrap()
            .try_as_slice::<half::bf16>()
            .unwrap(),
        &h[..]
    );
    assert_eq!(
        t.by_name("i").unwrap().try_as_slice::<i64>().unwrap(),
        &ints[..]
    );
    // Width mismatch: TYPE.
    assert_eq!(
        wv.try_as_slice::<f64>().unwrap_err().code(),
        ErrorCode::Type
    );
    assert_eq!(wv.to_vec::<u16>().unwrap_err().code(), ErrorCode::Type);
    let n = t.by_name("n").unwrap();
    assert_eq!(n.try_as_slice::<u8>().unwrap_err().code(), ErrorCode::Type);
    assert_eq!(n.data(), &[0x21, 0x03]);

    // Unaligned copy of the block: typed view refuses, copy works.
    let mut shifted = vec![0u8; t.as_bytes().len() + 1];
    shifted[1..].copy_from_slice(t.as_bytes());
    let v = TensorsView::from_bytes(&shifted[1..], &opts()).unwrap();
    let wv = v.by_name("w").unwrap();
    let e = wv.try_as_slice::<f32>().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Message);
    assert!(e.to_string().contains("to_vec"), "{e}");
    assert_eq!(wv.to_vec::<f32>().unwrap(), w);
    assert_eq!(v.by_name("i").unwrap().to_vec::<i64>().unwrap(), ints);
    assert_eq!(v.by_name("h").unwrap().to_vec::<half::bf16>().unwrap(), h);

    // An AlignedBuf makes a view of a read block aligned again.
    let ab = AlignedBuf::from_slice(&shifted[1..]);
    let v = TensorsView::from_bytes(&ab, &opts()).unwrap();
    assert_eq!(
        v.by_name("w").unwrap().try_as_slice::<f32>().unwrap(),
        &w[..]
    );
    let t2 = Tensors::from_aligned(ab, &opts()).unwrap();
    assert_eq!(t2, t);
}

#[test]
fn stream_and_file_round_trip() {
    let t = rich();
    let mut stream = t.as_bytes().to_vec();
    stream.extend_from_slice(b"rest");
    let mut r = &stream[..];
    let back = Tensors::read_from(&mut r, &opts()).unwrap();
    assert_eq!(back, t);
    assert_eq!(r, b"rest");

    let mut out = Vec::new();
    let mut b = TensorsBuilder::new();
    for s in rich_specs() {
        b.push(s);
    }
    let n = b.write_to(&mut out).unwrap();
    assert_eq!(n, out.len() as u64);
    assert_eq!(b.encoded_len().unwrap(), n);
    assert_eq!(out, t.as_bytes());

    let path = std::env::temp_dir().join(format!("kiln_tensors_{}.kdir", std::process::id()));
    std::fs::write(&path, &out).unwrap();
    let ab = AlignedBuf::read_file(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(Tensors::from_aligned(ab, &opts()).unwrap(), t);
}

#[test]
fn stream_with_a_lying_payload_length() {
    let mut b = canonical(&f8_pair());
    put64(&mut b, 16, 1 << 40);
    let e = Tensors::read_from(&mut &b[..], &opts()).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(16)));
}

// ----------------------------------------------------------------- builder

#[test]
fn builder_rejects_what_a_decoder_rejects() {
    let code = |specs: Vec<TensorSpec<'static>>| {
        let mut b = TensorsBuilder::new();
        for s in specs {
            b.push(s);
        }
        let e = b.build().unwrap_err();
        assert_eq!(b.write_to(Vec::new()).unwrap_err().code(), e.code());
        e.code()
    };
    // wrong byte length
    assert_eq!(
        code(vec![TensorSpec::new(Dtype::F32, &[2], &[0u8; 7][..])]),
        ErrorCode::Type
    );
    // rank 9
    assert_eq!(
        code(vec![TensorSpec::new(Dtype::U8, &[1; 9], &[0u8][..])]),
        ErrorCode::Type
    );
    // opaque code out of range
    assert_eq!(
        code(vec![TensorSpec::opaque(100, "x", 1, 1, &[1], &[0u8][..])]),
        ErrorCode::Type
    );
    // opaque without layout name
    assert_eq!(
        code(vec![TensorSpec::opaque(4096, "", 1, 1, &[1], &[0u8][..])]),
        ErrorCode::Type
    );
    // duplicate names
    assert_eq!(
        code(vec![
            TensorSpec::new(Dtype::U8, &[1], &[0u8][..]).named("a"),
            TensorSpec::new(Dtype::U8, &[1], &[0u8][..]).named("a"),
        ]),
        ErrorCode::Type
    );
    // scale link to itself / bad scale count
    assert_eq!(
        code(vec![
            TensorSpec::new(Dtype::U8, &[1], &[0u8][..]).with_quant(Quant::PerTensor { scale: 0 })
        ]),
        ErrorCode::Type
    );
    assert_eq!(
        code(vec![
            TensorSpec::from_slice(&[2], &SCALE),
            TensorSpec::new(Dtype::U8, &[1], &[0u8][..]).with_quant(Quant::PerTensor { scale: 0 }),
        ]),
        ErrorCode::Type
    );
    // opaque layouts disagree
    assert_eq!(
        code(vec![
            TensorSpec::opaque(4096, "a", 1, 1, &[1], &[0u8][..]),
            TensorSpec::opaque(4096, "b", 1, 1, &[1], &[0u8][..]),
        ]),
        ErrorCode::Type
    );
    // 4-bit tail nibble
    assert_eq!(
        code(vec![TensorSpec::new(Dtype::I4, &[1], &[0x10u8][..])]),
        ErrorCode::Type
    );
    // count cap
    let mut b = TensorsBuilder::new().with_limits(opts().with_max_count(1));
    b.push(TensorSpec::new(Dtype::U8, &[1], &[0u8][..]));
    b.push(TensorSpec::new(Dtype::U8, &[1], &[0u8][..]));
    assert_eq!(b.build().unwrap_err().code(), ErrorCode::Limit);
}

#[test]
fn from_map_sorts_by_key_bytes() {
    use std::collections::{BTreeMap, HashMap};
    let (a, b, c) = ([1u8], [2u8], [3u8]);
    let entries = || {
        vec![
            ("é", TensorSpec::from_slice(&[1], &a)),
            ("Z", TensorSpec::from_slice(&[1], &b)),
            ("a", TensorSpec::from_slice(&[1], &c)),
        ]
    };
    let t1 = TensorsBuilder::from_map(entries())
        .unwrap()
        .build()
        .unwrap();
    let hm: HashMap<String, TensorSpec<'_>> = entries()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let t2 = TensorsBuilder::from_map(hm).unwrap().build().unwrap();
    let bm: BTreeMap<String, TensorSpec<'_>> = entries()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let t3 = TensorsBuilder::from_map(bm).unwrap().build().unwrap();
    assert_eq!(t1, t2);
    assert_eq!(t1, t3);
    let names: Vec<_> = t1
        .view()
        .iter()
        .map(|t| t.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["Z", "a", "é"]);
    let mut dup = entries();
    dup.push(("a", TensorSpec::from_slice(&[1], &a)));
    assert_eq!(
        TensorsBuilder::from_map(dup).unwrap_err().code(),
        ErrorCode::Type
    );
    let empty = vec![(Cow::Borrowed(""), TensorSpec::from_slice(&[1], &a))];
    assert_eq!(
        TensorsBuilder::from_map(empty).unwrap_err().code(),
        ErrorCode::Type
    );
}

#[test]
fn rebuild_from_view_is_identity() {
    let t = rich();
    let v = t.view();
    let again = TensorsBuilder::from_view(&v).build().unwrap();
    assert_eq!(again.as_bytes(), t.as_bytes());
    assert_eq!(Tensors::from(&v), t);
}

#[test]
fn scale_that_is_itself_quantized_is_type() {
    // f8e4m3 is both a quant data dtype and a scale dtype.
    let one = [1.0f32];
    let mut b = TensorsBuilder::new();
    b.push(
        TensorSpec::new(Dtype::F8E4M3, &[1], &[0x38u8][..])
            .with_quant(Quant::PerTensor { scale: 1 }),
    );
    b.push(TensorSpec::from_slice(&[1], &one));
    b.push(TensorSpec::new(Dtype::U8, &[1], &[5u8][..]).with_quant(Quant::PerTensor { scale: 0 }));
    assert_eq!(b.build().unwrap_err().code(), ErrorCode::Type);
    b = TensorsBuilder::new();
    b.push(
        TensorSpec::new(Dtype::F8E4M3, &[1], &[0x38u8][..])
            .with_quant(Quant::PerTensor { scale: 1 }),
    );
    b.push(TensorSpec::from_slice(&[1], &one));
    b.push(TensorSpec::new(Dtype::U8, &[1], &[5u8][..]).with_quant(Quant::PerTensor { scale: 1 }));
    let mut bytes = b.build().unwrap().as_bytes().to_vec();
    put32(&mut bytes, d(2) + 96, 0);
    expect_err(&bytes, &opts(), ErrorCode::Type, d(2) + 96);
    // Scale and outer may be the same tensor; several tensors may share one.
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[1], &one));
    b.push(
        TensorSpec::new(Dtype::U8, &[2], &[1u8, 2][..]).with_quant(Quant::PerBlockOuter {
            scale: 0,
            outer: 0,
            block_elems: 2,
        }),
    );
    b.push(
        TensorSpec::new(Dtype::U4, &[1], &[0x0fu8][..]).with_quant(Quant::PerTensor { scale: 0 }),
    );
    b.build().unwrap();
}

#[test]
fn nonempty_range_past_payload_bytes_is_type() {
    let mut b = canonical(&f8_pair());
    put64(&mut b, 16, 64);
    expect_err(&b, &opts(), ErrorCode::Type, d(1) + 80);
}

#[test]
fn heap_faults_are_reported_in_heap_order() {
    // names "a", "b", "a2"; heap at 32 + 3*128 = 416
    let one = [0u8];
    let build = |n: [&'static str; 3]| {
        let mut b = TensorsBuilder::new();
        for name in n {
            b.push(TensorSpec::from_slice(&[1], &one).named(name));
        }
        b.build().unwrap().as_bytes().to_vec()
    };
    // A bad name before a duplicate: UTF8 at the bad name.
    let mut b = build(["a", "b", "c"]);
    b[417] = 0xFF;
    b[418] = b'a';
    expect_err(&b, &opts(), ErrorCode::Utf8, 417);
    // A duplicate before a bad name: TYPE at the repeat.
    let mut b = build(["a", "b", "c"]);
    b[417] = b'a';
    b[418] = 0xFF;
    expect_err(&b, &opts(), ErrorCode::Type, 417);
    // Three equal names: the second is reported.
    let mut b = build(["a", "b", "c"]);
    b[417] = b'a';
    b[418] = b'a';
    expect_err(&b, &opts(), ErrorCode::Type, 417);
    // Sorted names with a repeat (no sort needed to find it) and out of
    // order: TYPE at the repeat either way; in order, accepted.
    let mut b = build(["a", "b", "c"]);
    b[418] = b'b';
    expect_err(&b, &opts(), ErrorCode::Type, 418);
    let mut b = build(["a", "b", "c"]);
    b[416] = b'c';
    expect_err(&b, &opts(), ErrorCode::Type, 418);
    let mut b = build(["a", "b", "c"]);
    b[416] = b'0';
    validate(&b, &opts()).unwrap();
    // Names are compared as raw bytes: "é" precomposed vs decomposed differ.
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[1], &one).named("\u{e9}"));
    b.push(TensorSpec::from_slice(&[1], &one).named("e\u{301}"));
    b.build().unwrap();
}
