//! Properties of the tensor directory: build -> validate -> view -> rebuild
//! is the identity; every single-byte mutation either fails or re-encodes
//! to itself; every truncation fails with EOF; nothing panics.

use std::collections::HashSet;

use kiln_serde::tensors::{
    validate, Dtype, Quant, TensorSpec, Tensors, TensorsBuilder, TensorsView,
};
use kiln_serde::ErrorCode;
use kiln_serde::Limits;
use proptest::prelude::*;

#[path = "support/spec_dir.rs"]
mod spec_dir;

const QUANT_DATA: [Dtype; 9] = [
    Dtype::U8,
    Dtype::I8,
    Dtype::U16,
    Dtype::I16,
    Dtype::F8E4M3,
    Dtype::F8E5M2,
    Dtype::F4E2M1,
    Dtype::I4,
    Dtype::U4,
];
const QUANT_SCALE: [Dtype; 5] = [
    Dtype::F32,
    Dtype::F16,
    Dtype::Bf16,
    Dtype::F8E4M3,
    Dtype::F8E8M0,
];
const QUANT_OUTER: [Dtype; 3] = [Dtype::F32, Dtype::F16, Dtype::Bf16];
const OPAQUE: [(u16, &str, u32, u32); 3] = [
    (4096, "blk_a", 4, 3),
    (5000, "ggml/q4_K", 2, 5),
    (32767, "z", 1, 1),
];

#[derive(Clone, Debug)]
enum Item {
    Plain {
        dtype: Dtype,
        shape: Vec<u64>,
        name: Option<String>,
        seed: u64,
    },
    Quant {
        scheme: u8,
        data: Dtype,
        scale: Dtype,
        outer: Dtype,
        block: u32,
        nblocks: u64,
        two_dims: bool,
        data_first: bool,
        names: [Option<String>; 3],
        seed: u64,
    },
    Opaque {
        which: usize,
        n: u64,
        two_dims: bool,
        name: Option<String>,
        seed: u64,
    },
}

fn name() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("[a-zé.→]{1,4}")
}

fn shape() -> impl Strategy<Value = Vec<u64>> {
    (0usize..=8).prop_flat_map(|r| {
        let max = if r <= 3 { 5u64 } else { 2 };
        proptest::collection::vec(0..=max, r)
    })
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        4 => (0usize..19, shape(), name(), any::<u64>()).prop_map(|(d, shape, name, seed)| {
            Item::Plain { dtype: Dtype::ALL[d], shape, name, seed }
        }),
        2 => (
            1u8..=3,
            (0usize..9, 0usize..5, 0usize..3),
            1u32..=4,
            0u64..=4,
            any::<bool>(),
            any::<bool>(),
            [name(), name(), name()],
            any::<u64>(),
        )
            .prop_map(|(scheme, (d, s, o), block, nblocks, two_dims, data_first, names, seed)| {
                Item::Quant {
                    scheme,
                    data: QUANT_DATA[d],
                    scale: QUANT_SCALE[s],
                    outer: QUANT_OUTER[o],
                    block,
                    nblocks,
                    two_dims,
                    data_first,
                    names,
                    seed,
                }
            }),
        1 => (0usize..3, 0u64..=3, any::<bool>(), name(), any::<u64>()).prop_map(
            |(which, n, two_dims, name, seed)| Item::Opaque { which, n, two_dims, name, seed }
        ),
    ]
}

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn payload(dtype: Dtype, shape: &[u64], seed: u64) -> Vec<u8> {
    let elements: u64 = shape.iter().product();
    let bits = u64::from(dtype.bits().unwrap());
    let len = (elements * bits).div_ceil(8) as usize;
    let mut v = bytes(seed, len);
    if dtype.is_packed4() && elements % 2 == 1 {
        if let Some(last) = v.last_mut() {
            *last &= 0x0F;
        }
    }
    v
}

/// Flattens items into specs with unique names and absolute quant links.
fn specs(items: &[Item]) -> Vec<TensorSpec<'static>> {
    let mut out: Vec<TensorSpec<'static>> = Vec::new();
    let mut used = HashSet::new();
    let mut named = |s: TensorSpec<'static>, n: &Option<String>, i: usize| match n {
        Some(n) => {
            let n = if used.insert(n.clone()) {
                n.clone()
            } else {
                let m = format!("{n}#{i}");
                used.insert(m.clone());
                m
            };
            s.named(n)
        }
        None => s,
    };
    for it in items {
        match it {
            Item::Plain {
                dtype,
                shape,
                name,
                seed,
            } => {
                let s = TensorSpec::new(*dtype, shape, payload(*dtype, shape, *seed));
                let i = out.len();
                out.push(named(s, name, i));
            }
            Item::Quant {
                scheme,
                data,
                scale,
                outer,
                block,
                nblocks,
                two_dims,
                data_first,
                names,
                seed,
            } => {
                let elements = u64::from(*block) * nblocks;
                let dshape: Vec<u64> = if *two_dims {
                    vec![*nblocks, u64::from(*block)]
                } else {
                    vec![elements]
                };
                let sshape: Vec<u64> = if *scheme == 1 { vec![] } else { vec![*nblocks] };
                let base = out.len() as u32;
                let n_aux = if *scheme == 3 { 2 } else { 1 };
                let (di, si) = if *data_first {
                    (base, base + 1)
                } else {
                    (base + n_aux, base)
                };
                let oi = si + 1;
                let q = match scheme {
                    1 => Quant::PerTensor { scale: si },
                    2 => Quant::PerBlock {
                        scale: si,
                        block_elems: *block,
                    },
                    _ => Quant::PerBlockOuter {
                        scale: si,
                        outer: oi,
                        block_elems: *block,
                    },
                };
                let dspec =
                    TensorSpec::new(*data, &dshape, payload(*data, &dshape, *seed)).with_quant(q);
                let sspec = TensorSpec::new(*scale, &sshape, payload(*scale, &sshape, !*seed));
                let ospec = TensorSpec::new(*outer, &[], payload(*outer, &[], seed ^ 0x55));
                let mut group = vec![(di, dspec, &names[0]), (si, sspec, &names[1])];
                if *scheme == 3 {
                    group.push((oi, ospec, &names[2]));
                }
                group.sort_by_key(|g| g.0);
                for (i, s, n) in group {
                    assert_eq!(i as usize, out.len());
                    let i = out.len();
                    out.push(named(s, n, i));
                }
            }
            Item::Opaque {
                which,
                n,
                two_dims,
                name,
                seed,
            } => {
                let (code, lname, be, bb) = OPAQUE[*which];
                let shape: Vec<u64> = if *two_dims {
                    vec![*n, u64::from(be)]
                } else {
                    vec![n * u64::from(be)]
                };
                let data = bytes(*seed, (n * u64::from(bb)) as usize);
                let s = TensorSpec::opaque(code, lname, be, bb, &shape, data);
                let i = out.len();
                out.push(named(s, name, i));
            }
        }
    }
    out
}

fn build(items: &[Item]) -> (Vec<TensorSpec<'static>>, Tensors) {
    let specs = specs(items);
    let mut b = TensorsBuilder::new();
    for s in &specs {
        b.push(s.clone());
    }
    let t = b
        .build()
        .unwrap_or_else(|e| panic!("build failed: {e}\n{specs:#?}"));
    (specs, t)
}

/// Touches every accessor of every tensor (must not panic).
fn touch(v: &TensorsView<'_>) {
    for t in v.iter() {
        let _ = (t.name(), t.dtype(), t.shape(), t.elements(), t.quant());
        let _ = (t.layout().map(|l| l.name()), t.data().len());
        let _ = t.try_as_slice::<u8>();
        let _ = t.to_vec::<u16>();
        if let Some(n) = t.name() {
            assert_eq!(v.by_name(n).map(|u| u.index()), Some(t.index()));
            // Near misses: the search agrees with a scan.
            let mut chars = n.chars();
            chars.next_back();
            for probe in [chars.as_str().to_owned(), format!("{n}~"), format!("{n}\0")] {
                let scan = v.iter().find(|u| u.name() == Some(probe.as_str()));
                assert_eq!(
                    v.by_name(&probe).map(|u| u.index()),
                    scan.map(|u| u.index()),
                    "{probe:?}"
                );
            }
        }
    }
    let _ = format!("{v:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn build_validate_view_rebuild(items in proptest::collection::vec(item(), 0..8)) {
        let (specs, t) = build(&items);
        let bytes = t.as_bytes();
        prop_assert_eq!(bytes.as_ptr() as usize % 64, 0);
        let layout = validate(bytes, &Limits::default()).unwrap();
        prop_assert_eq!(layout.block_len(), bytes.len());
        let v = TensorsView::from_bytes(bytes, &Limits::default()).unwrap();
        prop_assert_eq!(v.len(), specs.len());
        for (s, tv) in specs.iter().zip(v.iter()) {
            prop_assert_eq!(s.name(), tv.name());
            prop_assert_eq!(s.dtype(), tv.dtype());
            prop_assert_eq!(s.shape(), tv.shape());
            prop_assert_eq!(s.data(), tv.data());
            prop_assert_eq!(s.quant(), tv.quant());
            prop_assert_eq!(tv.data().as_ptr() as usize % 64, 0);
        }
        touch(&v);
        // Rebuild from the view: identical bytes.
        let again = TensorsBuilder::from_view(&v).build().unwrap();
        prop_assert_eq!(again.as_bytes(), bytes);
        // Streaming writer and length agree.
        let mut b = TensorsBuilder::new();
        for s in &specs {
            b.push(s.clone());
        }
        let mut out = Vec::new();
        prop_assert_eq!(b.write_to(&mut out).unwrap(), bytes.len() as u64);
        prop_assert_eq!(&out[..], bytes);
        prop_assert_eq!(b.encoded_len().unwrap(), bytes.len() as u64);
        // Trusted reader agrees on a valid block.
        let tv = TensorsView::from_bytes_trusted(bytes).unwrap();
        prop_assert_eq!(tv.as_bytes(), bytes);
        // Owned copy, stream read and serde_json round trip.
        prop_assert_eq!(&Tensors::from_bytes(bytes, &Limits::default()).unwrap(), &t);
        prop_assert_eq!(&Tensors::read_from(&mut &out[..], &Limits::default()).unwrap(), &t);
        let json = serde_json::to_string(&t).unwrap();
        let back: Tensors = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &t);
        // Named entries through a map come out sorted by name bytes.
        let mut named: Vec<(String, TensorSpec<'_>)> = specs
            .iter()
            .filter(|s| s.name().is_some() && s.quant() == Quant::None)
            .map(|s| (s.name().unwrap().to_string(), s.clone()))
            .collect();
        named.reverse();
        let m = TensorsBuilder::from_map(named).unwrap().build().unwrap();
        let names: Vec<Vec<u8>> = m.view().iter().map(|t| t.name_bytes().to_vec()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        prop_assert_eq!(names, sorted);
    }

    #[test]
    fn truncations_are_eof(items in proptest::collection::vec(item(), 0..5)) {
        let (_, t) = build(&items);
        let bytes = t.as_bytes();
        for n in 0..bytes.len() {
            let e = validate(&bytes[..n], &Limits::default()).unwrap_err();
            prop_assert_eq!(e.code(), ErrorCode::Eof, "prefix {}: {}", n, e);
            prop_assert!(TensorsView::from_bytes_trusted(&bytes[..n]).is_err());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        count in 0u32..6,
        heap in 0u32..64,
        payload in 0u64..600,
        flags in 0u16..4,
        tail in proptest::collection::vec(any::<u8>(), 0..1500),
    ) {
        let mut buf = spec_dir::header(flags, count, heap, payload);
        buf.extend_from_slice(&tail);
        if let Ok(l) = validate(&buf, &Limits::default()) {
            let v = TensorsView::take_from_bytes(&buf, &Limits::default()).unwrap().0;
            prop_assert_eq!(v.as_bytes().len(), l.block_len());
            touch(&v);
        }
        if let Ok((v, _)) = TensorsView::take_from_bytes(&buf, &Limits::default()) {
            touch(&v);
        }
        let _ = TensorsView::from_bytes_trusted(&buf).map(|v| touch(&v));
    }
}

proptest! {
    // Each case tries 3 flips at every byte of the block.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn single_byte_mutations_fail_or_reencode(
        items in proptest::collection::vec(item(), 1..5),
        x in 1u8..=255,
    ) {
        let (_, t) = build(&items);
        let orig = t.as_bytes();
        let mut buf = orig.to_vec();
        for pos in 0..buf.len() {
            for flip in [x, 0x01, 0x80] {
                buf[pos] ^= flip;
                match validate(&buf, &Limits::default()) {
                    Ok(layout) => {
                        // Accepted: the block (which may now end early, for
                        // example when the count shrinks and the dropped
                        // descriptors read as zero pad) re-encodes to itself,
                        // and a standalone read of the whole buffer is exact
                        // or TRAILING.
                        let n = layout.block_len();
                        prop_assert!(n <= buf.len());
                        let (v, rest) =
                            TensorsView::take_from_bytes(&buf, &Limits::default()).unwrap();
                        prop_assert_eq!(rest.len(), buf.len() - n);
                        touch(&v);
                        let re = TensorsBuilder::from_view(&v).build().unwrap();
                        prop_assert_eq!(re.as_bytes(), &buf[..n], "pos {} flip {:#x}", pos, flip);
                        if n < buf.len() {
                            let e = TensorsView::from_bytes(&buf, &Limits::default()).unwrap_err();
                            prop_assert_eq!(e.code(), ErrorCode::Trailing);
                        }
                    }
                    Err(e) => {
                        prop_assert!(e.code().is_spec_code());
                        prop_assert!(e.offset().is_some());
                        prop_assert!(e.offset().unwrap() <= buf.len() as u64);
                    }
                }
                if let Ok(v) = TensorsView::from_bytes_trusted(&buf) {
                    touch(&v);
                }
                buf[pos] ^= flip;
            }
        }
        prop_assert_eq!(&buf[..], orig);
    }
}
