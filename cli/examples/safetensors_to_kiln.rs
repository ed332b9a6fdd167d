//! From safetensors to Kiln with the libraries (what `kiln convert` does):
//! write a small model with the `safetensors` crate, read it, re-save it as
//! a Kiln tensor directory, read that back zero-copy and compare.
//!
//! Run: `cargo run -p kiln_cli --example safetensors_to_kiln`.

use std::collections::HashMap;

use kiln_cli::dtypes::kiln_dtype;
use kiln_serde::checkpoint::check_buffer;
use kiln_serde::tensors::{AlignedBuf, TensorSpec, TensorsBuilder};
use kiln_serde::{frame, Limits};
use safetensors::tensor::TensorView as StView;
use safetensors::SafeTensors;

fn le_bytes<const N: usize, T: Copy>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("kiln-st-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let st_path = dir.join("tiny.safetensors");
    let kiln_path = dir.join("tiny.kiln");

    // 1. A small model, written by the safetensors crate (it cannot be
    //    downloaded here).
    let embed = le_bytes(
        &[0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        f32::to_le_bytes,
    );
    let norm = le_bytes(
        &[1.0f32, 0.5].map(half::bf16::from_f32),
        half::bf16::to_le_bytes,
    );
    let ids = le_bytes(&[3i64, 1, 4, 1, 5], i64::to_le_bytes);
    let mask = vec![1u8, 0, 1, 1, 0];
    let tensors = vec![
        (
            "model.embed.weight",
            StView::new(safetensors::Dtype::F32, vec![4, 2], &embed)?,
        ),
        (
            "model.norm.weight",
            StView::new(safetensors::Dtype::BF16, vec![2], &norm)?,
        ),
        (
            "inputs.ids",
            StView::new(safetensors::Dtype::I64, vec![5], &ids)?,
        ),
        (
            "inputs.mask",
            StView::new(safetensors::Dtype::BOOL, vec![5], &mask)?,
        ),
    ];
    let meta: HashMap<String, String> = [("format".to_string(), "pt".to_string())].into();
    safetensors::serialize_to_file(tensors, Some(meta), &st_path)?;
    println!(
        "wrote {} ({} bytes)",
        st_path.display(),
        std::fs::metadata(&st_path)?.len()
    );

    // 2. Read it with the safetensors crate. (`kiln convert` maps large
    //    files instead of reading them.)
    let st_bytes = std::fs::read(&st_path)?;
    let st = SafeTensors::deserialize(&st_bytes)?;
    let (_, header) = SafeTensors::read_metadata(&st_bytes)?;
    if let Some(m) = header.metadata() {
        println!("__metadata__ {m:?} has no place in Kiln: dropped");
    }

    // 3. Re-save as Kiln: tensors in name order (bytewise, as a map of
    //    tensors is), payloads borrowed from the safetensors buffer and
    //    streamed to the file behind a frame with the hash of `tensors`.
    let mut named: Vec<(&str, StView<'_>)> = st.iter().collect();
    named.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut builder = TensorsBuilder::new();
    for (name, t) in &named {
        let dtype = kiln_dtype(t.dtype()).map_err(|why| format!("tensor {name:?}: {why}"))?;
        let shape: Vec<u64> = t.shape().iter().map(|&d| d as u64).collect();
        builder.push(TensorSpec::new(dtype, &shape, t.data()).named(*name));
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&kiln_path)?);
    std::io::Write::write_all(
        &mut out,
        &frame::encode(Some(kiln_serde::checkpoint::TENSORS_HASH)),
    )?;
    let written = builder.write_to(&mut out)?;
    std::io::Write::flush(&mut out)?;
    drop(out);
    println!(
        "wrote {} ({} bytes: 16-byte frame + {written}-byte directory)",
        kiln_path.display(),
        16 + written
    );

    // 4. Read it back zero-copy: one aligned buffer, validated once, every
    //    payload a slice of it. Then compare with safetensors by name.
    let buf = AlignedBuf::read_file(&kiln_path)?;
    let view = check_buffer(buf.as_slice(), &Limits::default())?;
    print!("{}", view.table());
    for (name, t) in &named {
        let k = view.by_name(name).ok_or("missing tensor")?;
        assert_eq!(Ok(k.dtype()), kiln_dtype(t.dtype()));
        assert!(k
            .shape()
            .iter()
            .map(|&d| d as usize)
            .eq(t.shape().iter().copied()));
        assert_eq!(k.data(), t.data(), "{name}: payload bits");
        assert!(buf.as_slice().as_ptr_range().contains(&k.data().as_ptr()));
    }
    let embed = view.by_name("model.embed.weight").ok_or("no embed")?;
    println!(
        "model.embed.weight as &[f32] straight from the buffer: {:?}",
        embed.try_as_slice::<f32>()?
    );
    println!("all {} tensors identical by name", named.len());

    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
