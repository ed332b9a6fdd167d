//! The README's examples, compiled and run (keep them in sync).

use kiln_serde::tensors::{Dtype, Quant, TensorSpec, TensorsBuilder, TensorsView};
use kiln_serde::Tensors;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Checkpoint {
    step: u64,
    label: String,
    weights: Tensors,
}

#[derive(serde::Deserialize)]
struct CheckpointView<'a> {
    step: u64,
    label: &'a str,
    #[serde(borrow)]
    weights: TensorsView<'a>,
}

#[test]
fn usage() -> Result<(), kiln_serde::Error> {
    let bytes = kiln_serde::to_vec(&Point { x: 9, y: -4 })?;
    assert_eq!(bytes, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
    let p: Point = kiln_serde::from_slice(&bytes)?;
    assert_eq!(p, Point { x: 9, y: -4 });
    Ok(())
}

#[test]
fn tensors() -> Result<(), kiln_serde::Error> {
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2, 3], &w).named("dense.w"));
    let scale = b.push(TensorSpec::from_slice(&[2], &[0.5f32, 0.25]).named("q.scale"));
    b.push(
        TensorSpec::new(Dtype::U4, &[4], &[0x21u8, 0x43][..])
            .named("q")
            .with_quant(Quant::PerBlock {
                scale: scale as u32,
                block_elems: 2,
            }),
    );
    let bytes = kiln_serde::to_vec(&Checkpoint {
        step: 7,
        label: "run".into(),
        weights: b.build()?,
    })?;

    let view: CheckpointView = kiln_serde::from_slice(&bytes)?;
    let dense = view.weights.by_name("dense.w").unwrap();
    assert_eq!(dense.shape(), &[2, 3]);
    let values: Vec<f32> = dense.to_vec()?;
    assert_eq!(values, w);
    assert_eq!((view.step, view.label), (7, "run"));
    Ok(())
}

#[test]
fn frames() -> Result<(), kiln_serde::Error> {
    let bytes = kiln_serde::framed::to_vec(&Point { x: 9, y: -4 })?;
    assert_eq!(bytes.len(), 24);
    let p: Point = kiln_serde::framed::from_slice(&bytes)?;
    assert_eq!(p, Point { x: 9, y: -4 });
    Ok(())
}
