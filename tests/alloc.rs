//! Hostile lengths never allocate past the bytes that remain (spec 1.4, 6).
//! A counting global allocator measures peak extra allocation.

use std::collections::BTreeMap;

use kiln_serde::ErrorCode;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/spec_dir.rs"]
mod spec_dir;
use counting_alloc::{peak_during, SERIAL};
#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

const MIB: usize = 1 << 20;

/// A 9-byte input claiming 4,294,967,295 elements (count ff ff ff ff, then
/// five more bytes).
const HOSTILE: [u8; 9] = [0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5];

#[test]
fn hostile_counts_on_a_slice_allocate_little() {
    let _g = SERIAL.lock().unwrap();
    let (r, peak) = peak_during(|| kiln_serde::from_slice::<Vec<u64>>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    assert!(peak < MIB, "Vec<u64>: peak {peak}");
    let (r, peak) = peak_during(|| kiln_serde::from_slice::<String>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    assert!(peak < MIB, "String: peak {peak}");

    // With the caps raised to the wire maximum, remaining bytes still bound
    // everything: EOF, not a 32 GiB allocation.
    let opts = kiln_serde::Options::default()
        .with_max_count(u64::MAX)
        .with_max_bytes(u64::MAX);
    let (r, peak) = peak_during(|| opts.from_slice::<Vec<u64>>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "uncapped Vec<u64>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_slice::<String>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "uncapped String: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_slice::<BTreeMap<u32, u64>>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "uncapped map: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_slice::<Vec<Vec<u8>>>(&HOSTILE));
    assert!(r.is_err());
    assert!(peak < MIB, "uncapped nested: peak {peak}");
    // A seq of strings takes the fields' access (src/de/fields.rs), which
    // must keep the seq's budgeted hint: serde's own cap would allow just
    // under 1 MiB here.
    let (r, peak) = peak_during(|| opts.from_slice::<Vec<String>>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "uncapped Vec<String>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_slice::<Vec<&str>>(&HOSTILE));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "uncapped Vec<&str>: peak {peak}");
}

#[test]
fn hostile_counts_on_a_stream_cost_only_what_it_delivers() {
    let _g = SERIAL.lock().unwrap();
    let opts = kiln_serde::Options::default()
        .with_max_count(u64::MAX)
        .with_max_bytes(u64::MAX);
    let (r, peak) = peak_during(|| opts.from_reader::<_, Vec<u64>>(Stream(&HOSTILE)));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "stream Vec<u64>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_reader::<_, String>(Stream(&HOSTILE)));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "stream String: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_reader::<_, Vec<String>>(Stream(&HOSTILE)));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "stream Vec<String>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_reader::<_, serde_bytes::ByteBuf>(Stream(&HOSTILE)));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < MIB, "stream bytes: peak {peak}");
}

#[test]
fn hostile_counts_on_a_slice_reader_cost_what_a_slice_does() {
    // A `&[u8]` reader is decoded in place: the slice bound (the input's
    // length), not the stream's chunk.
    let _g = SERIAL.lock().unwrap();
    let opts = kiln_serde::Options::default()
        .with_max_count(u64::MAX)
        .with_max_bytes(u64::MAX);
    let (r, peak) = peak_during(|| opts.from_reader::<_, Vec<u64>>(&HOSTILE[..]));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "slice reader Vec<u64>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_reader::<_, Vec<String>>(&mut &HOSTILE[..]));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "slice reader Vec<String>: peak {peak}");
    let (r, peak) = peak_during(|| opts.from_reader::<_, serde_bytes::ByteBuf>(&HOSTILE[..]));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "slice reader bytes: peak {peak}");
}

#[test]
fn writer_output_is_bounded_for_long_sequences() {
    let _g = SERIAL.lock().unwrap();
    // 8 MiB of u64s written to a sink: the serializer's own buffer stays small.
    let v: Vec<u64> = (0..(MIB as u64)).collect();
    let (r, peak) = peak_during(|| kiln_serde::to_writer(std::io::sink(), &v));
    r.unwrap();
    assert!(peak < MIB, "to_writer peak {peak}");
    let (r, peak) = peak_during(|| kiln_serde::serialized_size(&v));
    assert_eq!(r.unwrap(), 4 + 8 * MIB as u64);
    assert!(peak < MIB, "serialized_size peak {peak}");
}

/// A directory header claiming 2^32-1 tensors in a 40-byte buffer.
fn hostile_directory() -> Vec<u8> {
    let mut b = spec_dir::header(spec_dir::FLAG_LE, u32::MAX, 0, 0);
    b.resize(40, 0);
    b
}

#[test]
fn hostile_directory_count_allocates_little() {
    use kiln_serde::checkpoint::check_buffer;
    use kiln_serde::tensors::{validate, TensorsView};
    use kiln_serde::Tensors;
    let _g = SERIAL.lock().unwrap();
    let bytes = hostile_directory();
    let opts = kiln_serde::Options::default();
    let uncapped = opts.with_max_count(u64::MAX);
    for o in [opts, uncapped] {
        let want = if o.max_count() == u64::MAX {
            ErrorCode::Eof
        } else {
            ErrorCode::Limit
        };
        let (r, peak) = peak_during(|| validate(&bytes, o.limits()).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "validate: peak {peak}");
        let (r, peak) = peak_during(|| TensorsView::from_bytes(&bytes, o.limits()).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "view: peak {peak}");
        let (r, peak) = peak_during(|| o.from_slice::<Tensors>(&bytes).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "from_slice: peak {peak}");
        let (r, peak) = peak_during(|| o.from_reader::<_, Tensors>(Stream(&bytes)).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "from_reader: peak {peak}");
        let (r, peak) = peak_during(|| o.from_reader::<_, Tensors>(&bytes[..]).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "from_reader over a &[u8]: peak {peak}");
        let (r, peak) = peak_during(|| Tensors::read_from(&mut &bytes[..], o.limits()).map(|_| ()));
        assert_eq!(r.unwrap_err().code(), want);
        assert!(peak < MIB, "read_from: peak {peak}");
    }
    let (r, peak) = peak_during(|| check_buffer(&bytes, opts.limits()).map(|_| ()));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    assert!(peak < MIB, "check_buffer: peak {peak}");
}

#[test]
fn lying_payload_on_a_stream_costs_only_what_arrives() {
    use kiln_serde::Tensors;
    let _g = SERIAL.lock().unwrap();
    // 1 TB of payload claimed, 100 bytes delivered.
    let mut b = spec_dir::header(spec_dir::FLAG_LE, 0, 0, 1 << 40);
    b.resize(100, 0);
    let (r, peak) = peak_during(|| kiln_serde::from_reader::<_, Tensors>(Stream(&b)).map(|_| ()));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 2 * MIB, "from_reader: peak {peak}");
    let (r, peak) = peak_during(|| kiln_serde::from_reader::<_, Tensors>(&b[..]).map(|_| ()));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 4096, "from_reader over a &[u8]: peak {peak}");
    let (r, peak) =
        peak_during(|| Tensors::read_from(&mut &b[..], &Default::default()).map(|_| ()));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Eof);
    assert!(peak < 2 * MIB, "read_from: peak {peak}");
}
