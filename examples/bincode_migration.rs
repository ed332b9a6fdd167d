//! Moving a bincode 1.3 user to Kiln: the code below is what a bincode user
//! writes, unchanged except for one line, `use kiln_serde::bincode;`.
//! The bytes change (they are Kiln's); the README's "Coming from bincode
//! 1.x" lists every difference, and how to switch a whole dependency graph
//! with `[patch.crates-io]` and the `compat/bincode1` crate instead.
//!
//! Run: `cargo run --example bincode_migration`

use std::collections::BTreeMap;
use std::io::{self, BufReader, BufWriter, Write};

// The one changed line: was `bincode = "1.3"` in Cargo.toml and the crate
// in scope; now the module with bincode 1.3's API over Kiln's bytes.
use kiln_serde::bincode;
use kiln_serde::bincode::Options;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Entity {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct World {
    entities: Vec<Entity>,
    names: BTreeMap<u32, String>,
    seed: Option<u64>,
}

/// A message that borrows from the input, as bincode allows on a slice.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Note<'a> {
    id: u32,
    text: &'a str,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let world = World {
        entities: vec![Entity { x: 0.0, y: 4.0 }, Entity { x: 10.0, y: 20.5 }],
        names: [(1, "origin".to_string()), (2, "far".to_string())].into(),
        seed: Some(42),
    };

    // serialize / deserialize / serialized_size: bincode 1.3 code.
    let encoded: Vec<u8> = bincode::serialize(&world)?;
    assert_eq!(bincode::serialized_size(&world)?, encoded.len() as u64);
    let decoded: World = bincode::deserialize(&encoded[..])?;
    assert_eq!(world, decoded);
    println!("World: {} bytes", encoded.len());

    // Zero-copy &str from a slice.
    let note_bytes = bincode::serialize(&Note {
        id: 1,
        text: "hello",
    })?;
    let note: Note<'_> = bincode::deserialize(&note_bytes)?;
    println!("Note borrows {:?} from the buffer", note.text);

    // Streams: serialize_into a file, deserialize_from it, value by value,
    // stopping at Io(UnexpectedEof) as a bincode reader loop does.
    let path = std::env::temp_dir().join(format!("kiln-bincode-{}.bin", std::process::id()));
    let mut out = BufWriter::new(std::fs::File::create(&path)?);
    for i in 0..3u32 {
        bincode::serialize_into(&mut out, &(i, format!("event {i}")))?;
    }
    out.flush()?;
    drop(out);
    let mut input = BufReader::new(std::fs::File::open(&path)?);
    let mut events = Vec::new();
    loop {
        match bincode::deserialize_from::<_, (u32, String)>(&mut input) {
            Ok(ev) => events.push(ev),
            Err(e) => match *e {
                bincode::ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof => {
                    break
                }
                _ => return Err(e.into()),
            },
        }
    }
    std::fs::remove_file(&path)?;
    println!("read {} events back: {:?}", events.len(), events);

    // The Options builder: a byte limit (honoured on slices too).
    let opts = bincode::options().with_limit(16);
    match opts.serialize(&world) {
        Err(e) if matches!(*e, bincode::ErrorKind::SizeLimit) => {
            println!("with_limit(16): the World does not fit, as in bincode")
        }
        other => println!("unexpected: {other:?}"),
    }
    let roomy = bincode::options().with_limit(1024);
    let bytes = roomy.serialize(&world)?;
    let back: World = roomy.deserialize(&bytes)?;
    assert_eq!(back, world);

    // bincode's error variants, with Kiln's offset in the text.
    match bincode::deserialize::<Option<u8>>(&[7]) {
        Err(e) => match *e {
            bincode::ErrorKind::InvalidTagEncoding(tag) => {
                println!("option tag {tag}: InvalidTagEncoding, as in bincode")
            }
            ref other => println!("other error: {other}"),
        },
        Ok(v) => println!("unexpectedly decoded {v:?}"),
    }

    // What changed: the bytes are Kiln's (u32 counts, sorted map keys), so
    // data written by bincode must be re-encoded once (see the doc).
    println!(
        "Kiln bytes of (1u8, \"hi\"): {:02x?}",
        bincode::serialize(&(1u8, "hi"))?
    );
    Ok(())
}
