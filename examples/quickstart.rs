//! Quickstart: encode a realistic record to a file, read it back, print
//! sizes and the hex of a small value; then a framed record that carries
//! tensors (an f32 matrix, a bf16 vector, a 4-bit quantized block and its
//! scale), read back zero-copy and printed as `kiln inspect` prints it.
//!
//! Run: `cargo run --example quickstart`

use std::collections::BTreeMap;

use kiln_serde::tensors::{AlignedBuf, Dtype, Quant, TensorSpec, TensorsBuilder, TensorsView};
use kiln_serde::Schema;
use kiln_serde::Tensors;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Status {
    Active,
    Suspended { reason: String, days: u16 },
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Account {
    id: u64,
    name: String,
    tags: Vec<String>,
    limits: BTreeMap<String, u32>,
    status: Status,
    score: f64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

/// A record and its arrays in one buffer: the `weights` field is the tensor
/// directory in place.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Checkpoint {
    id: u64,
    label: String,
    hparams: BTreeMap<String, f32>,
    weights: Tensors,
}

/// The same record read in place: `label`, the map keys and every tensor
/// payload borrow from the buffer. The serde name is the writer's, so the
/// type text and the frame's schema hash are the same.
#[derive(Deserialize, Debug)]
#[serde(rename = "Checkpoint")]
struct CheckpointView<'a> {
    id: u64,
    label: &'a str,
    #[serde(borrow)]
    hparams: BTreeMap<&'a str, f32>,
    #[serde(borrow)]
    weights: TensorsView<'a>,
}

fn checkpoint() -> Result<Checkpoint, kiln_serde::Error> {
    let w = [0.5f32, -1.0, 2.0, 0.25, 4.0, -8.0];
    let b = [0.1f32, 0.2, 0.3].map(half::bf16::from_f32);
    // 64 unsigned 4-bit values, two per byte (element 2k in the low
    // nibble), in two blocks of 32, each with its own f16 scale.
    let q: Vec<u8> = (0..32u8).map(|k| (k % 16) | ((15 - k % 16) << 4)).collect();
    let scale = [0.5f32, 0.125].map(half::f16::from_f32);

    let mut t = TensorsBuilder::new();
    t.push(TensorSpec::from_slice(&[2, 3], &w).named("dense.w"));
    t.push(TensorSpec::from_pod_slice(Dtype::Bf16, &[3], &b).named("dense.b"));
    let s = t.push(TensorSpec::from_pod_slice(Dtype::F16, &[2], &scale).named("proj.q.scale"));
    t.push(
        TensorSpec::new(Dtype::U4, &[64], q)
            .named("proj.q")
            .with_quant(Quant::PerBlock {
                scale: s as u32,
                block_elems: 32,
            }),
    );
    Ok(Checkpoint {
        id: 7,
        label: "tiny-mlp".into(),
        hparams: [("lr".to_string(), 3e-4), ("dropout".to_string(), 0.1)]
            .into_iter()
            .collect(),
        weights: t.build()?,
    })
}

/// Writes a framed checkpoint, reads it back in place, prints its tensors.
fn tensors_demo() -> Result<(), Box<dyn std::error::Error>> {
    let ckpt = checkpoint()?;
    let path = std::env::temp_dir().join(format!("kiln-checkpoint-{}.kiln", std::process::id()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    kiln_serde::framed::to_writer(&mut file, &ckpt)?;
    std::io::Write::flush(&mut file)?;
    drop(file);

    // Read the file into a 64-byte aligned buffer and decode it in place.
    // The schema is traced once; its hash is checked before any field.
    let buf = AlignedBuf::read_file(&path)?;
    let schema: Schema<CheckpointView<'static>> = Schema::new()?;
    println!(
        "\nCheckpoint: {} bytes framed; type text {}, hash {:#018x}",
        buf.len(),
        schema.text(),
        schema.hash()
    );
    let view: CheckpointView<'_> = schema.from_slice(buf.as_slice())?;
    println!(
        "id {}, label {:?}, hparams {:?}",
        view.id, view.label, view.hparams
    );
    print!("{}", view.weights.table());

    // Zero-copy: the payloads are the file's bytes, not copies.
    let w = view.weights.by_name("dense.w").ok_or("no dense.w")?;
    assert!(buf.as_slice().as_ptr_range().contains(&w.data().as_ptr()));
    println!("dense.w = {:?}", w.to_vec::<f32>()?);

    // The quantization link says which tensor holds the scales; Kiln keeps
    // the bits and the links, the reader multiplies.
    let q = view.weights.by_name("proj.q").ok_or("no proj.q")?;
    let scale_t = view
        .weights
        .get(q.quant().scale().ok_or("not quantized")? as usize)
        .ok_or("no scale tensor")?;
    let scales = scale_t.to_vec::<half::f16>()?;
    let block = q.quant().block_elems().ok_or("no block size")? as usize;
    let first: Vec<f32> = (0..4)
        .map(|i| {
            let byte = q.data()[i / 2];
            let nibble = if i % 2 == 0 { byte & 0x0f } else { byte >> 4 };
            f32::from(nibble) * scales[i / block].to_f32()
        })
        .collect();
    println!(
        "proj.q: {} x u4 in {} bytes, scales from {:?}; first values {:?}",
        q.elements(),
        q.data().len(),
        scale_t.name().unwrap_or("-"),
        first
    );

    // Same record, same bytes: the owned type re-encodes to the file.
    let owned: Checkpoint = kiln_serde::framed::from_slice(buf.as_slice())?;
    assert_eq!(owned, ckpt);
    assert_eq!(kiln_serde::framed::to_vec(&owned)?, buf.as_slice());
    std::fs::remove_file(&path)?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The spec's first example: two i32s, eight bytes, no names, no tags.
    let point = Point { x: 9, y: -4 };
    let bytes = kiln_serde::to_vec(&point)?;
    println!("Point {{ x: 9, y: -4 }} -> {}", hex(&bytes));

    let account = Account {
        id: 42,
        name: "Ada Lovelace".into(),
        tags: vec!["admin".into(), "early-adopter".into()],
        limits: [("uploads".to_string(), 100), ("api".to_string(), 5000)]
            .into_iter()
            .collect(),
        status: Status::Suspended {
            reason: "billing".into(),
            days: 3,
        },
        score: 0.875,
    };

    // Encode to a file and read it back.
    let path = std::env::temp_dir().join(format!("kiln-quickstart-{}.kiln", std::process::id()));
    let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    kiln_serde::to_writer(file, &account)?;
    let on_disk = std::fs::read(&path)?;
    let back: Account = kiln_serde::from_slice(&on_disk)?;
    assert_eq!(back, account);
    let json = serde_json::to_vec(&account)?.len();
    println!(
        "Account: {} bytes in Kiln (serialized_size says {}), {} bytes as JSON",
        on_disk.len(),
        kiln_serde::serialized_size(&account)?,
        json
    );

    // Same value, same bytes: encoding the decoded value is the identity.
    assert_eq!(kiln_serde::to_vec(&back)?, on_disk);

    // A decoder accepts only canonical bytes, and says where a fault is.
    let mut damaged = on_disk.clone();
    let tag_at = damaged.len() - 8 - 2 - 4 - 7 - 4; // the Status variant index
    damaged[tag_at] = 7;
    match kiln_serde::from_slice::<Account>(&damaged) {
        Ok(_) => println!("unexpectedly decoded"),
        Err(e) => println!("damaged file: {e}"),
    }
    std::fs::remove_file(&path)?;

    tensors_demo()
}
