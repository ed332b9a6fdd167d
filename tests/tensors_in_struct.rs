//! A record and its arrays are one buffer (spec 1.3): a `tensors` field is
//! the directory block in place, and the next field starts right after it.

use kiln_serde::tensors::{Dtype, TensorSpec, TensorsBuilder, TensorsView};
use kiln_serde::{ErrorCode, Options, Tensors};
use serde::{Deserialize, Serialize};

#[path = "support/spec_dir.rs"]
mod spec_dir;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Record {
    id: u64,
    label: String,
    weights: Tensors,
    step: u32,
}

#[derive(Serialize, Deserialize, Debug)]
struct RecordView<'a> {
    id: u64,
    label: &'a str,
    #[serde(borrow)]
    weights: TensorsView<'a>,
    step: u32,
}

fn weights() -> Tensors {
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [7u16, 8];
    let mut builder = TensorsBuilder::new();
    builder.push(TensorSpec::from_slice(&[2, 3], &w).named("w"));
    builder.push(TensorSpec::new(Dtype::Bf16, &[2], spec_dir::le16(&b)).named("b"));
    builder.build().unwrap()
}

#[test]
fn tensors_field_is_the_block_in_place() {
    let t = weights();
    let rec = Record {
        id: 7,
        label: "layer".into(),
        weights: t.clone(),
        step: 99,
    };
    let bytes = kiln_serde::to_vec(&rec).unwrap();
    // id (8) + label (4 + 5) + block + step (4): no count before the block.
    let block = t.as_bytes();
    assert_eq!(bytes.len(), 8 + 9 + block.len() + 4);
    // The sizing pre-pass counts the block raw too: one exact allocation.
    assert_eq!(bytes.capacity(), bytes.len());
    assert_eq!(&bytes[17..17 + block.len()], block);
    assert_eq!(&bytes[17 + block.len()..], &99u32.to_le_bytes());
    assert_eq!(
        kiln_serde::serialized_size(&rec).unwrap(),
        bytes.len() as u64
    );

    let back: Record = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, rec);
    let back: Record = kiln_serde::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, rec);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &rec).unwrap();
    assert_eq!(w, bytes);

    // The view borrows from the input: no payload copy.
    let view: RecordView<'_> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!((view.id, view.label, view.step), (7, "layer", 99));
    let wv = view.weights.by_name("w").unwrap();
    assert!(bytes.as_ptr_range().contains(&wv.data().as_ptr()));
    assert_eq!(wv.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(wv.shape(), &[2, 3]);
    // A view re-encodes to the same bytes.
    assert_eq!(
        kiln_serde::to_vec(&(view.id, view.label, &view.weights, view.step)).unwrap(),
        bytes
    );
}

#[test]
fn faults_inside_the_block_report_absolute_offsets() {
    let rec = Record {
        id: 1,
        label: "x".into(),
        weights: weights(),
        step: 2,
    };
    let mut bytes = kiln_serde::to_vec(&rec).unwrap();
    let dir = 8 + 5;
    // Damage the directory magic: FRAME at the directory start.
    bytes[dir] = b'X';
    let err = kiln_serde::from_slice::<Record>(&bytes).unwrap_err();
    assert_eq!(
        (err.code(), err.offset()),
        (ErrorCode::Frame, Some(dir as u64))
    );
    let err = kiln_serde::from_reader::<_, Record>(&bytes[..]).unwrap_err();
    assert_eq!(
        (err.code(), err.offset()),
        (ErrorCode::Frame, Some(dir as u64))
    );
    bytes[dir] = b'K';
    // Damage the first descriptor's dtype (at dir + 32): TYPE there.
    bytes[dir + 32] = 0;
    bytes[dir + 33] = 0;
    let err = kiln_serde::from_slice::<Record>(&bytes).unwrap_err();
    assert_eq!(
        (err.code(), err.offset()),
        (ErrorCode::Type, Some(dir as u64 + 32))
    );
    let err = kiln_serde::from_reader::<_, Record>(&bytes[..]).unwrap_err();
    assert_eq!(
        (err.code(), err.offset()),
        (ErrorCode::Type, Some(dir as u64 + 32))
    );
}

#[test]
fn every_prefix_of_a_record_with_tensors_is_eof() {
    let rec = Record {
        id: 1,
        label: "x".into(),
        weights: weights(),
        step: 2,
    };
    let bytes = kiln_serde::to_vec(&rec).unwrap();
    for cut in 0..bytes.len() {
        let err = kiln_serde::from_slice::<Record>(&bytes[..cut]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Eof, "slice prefix {cut}: {err}");
        let err = kiln_serde::from_reader::<_, Record>(&bytes[..cut]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Eof, "stream prefix {cut}: {err}");
    }
}

#[test]
fn a_lying_header_on_a_stream_reads_only_what_arrives() {
    // Header claims 1 TB of payload; the stream holds 100 bytes.
    let mut bytes = spec_dir::header(spec_dir::FLAG_LE, 0, 0, 1 << 40);
    bytes.resize(100, 0);
    let err = kiln_serde::from_reader::<_, Tensors>(&bytes[..]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Eof);
    let err = kiln_serde::from_slice::<Tensors>(&bytes).unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Eof, Some(16)));
}

#[test]
fn raised_caps_apply_to_the_directory_too() {
    let t = weights();
    let opts = Options::default().with_max_count(1);
    let err = opts.from_slice::<Tensors>(t.as_bytes()).unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Limit, Some(8)));
    let opts = Options::default().with_max_count(2);
    assert_eq!(opts.from_slice::<Tensors>(t.as_bytes()).unwrap(), t);
}

#[test]
fn tensors_round_trip_through_serde_json_too() {
    let t = weights();
    let json = serde_json::to_string(&t).unwrap();
    let back: Tensors = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
}
