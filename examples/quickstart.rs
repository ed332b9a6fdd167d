//! Quickstart: encode a realistic record to a file, read it back, print
//! sizes and the hex of a small value.
//!
//! Run: `cargo run --example quickstart`

use std::collections::BTreeMap;

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
    Ok(())
}
