//! Old bytes against new: a store of 1,000 small records encoded by the real
//! bincode 1.3.3 (its free functions: fixint, u64 lengths; and its
//! `DefaultOptions`: varint) and by the shim (Kiln). The README's "Coming
//! from bincode 1.x" section quotes these numbers; this test pins them.

extern crate bincode;
extern crate bincode_upstream;
#[macro_use]
extern crate serde_derive;
extern crate serde;

use bincode::Options as KilnOptions;
use bincode_upstream::Options as BincodeOptions;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Record {
    id: u32,
    kind: u8,
    score: f32,
    name: String,
    tags: Vec<u16>,
    parent: Option<u64>,
}

fn store() -> Vec<Record> {
    (0..1000u32)
        .map(|i| Record {
            id: i,
            kind: (i % 7) as u8,
            score: i as f32 * 0.5,
            name: format!("item-{}", i),
            tags: (0..(i % 4) as u16).collect(),
            parent: if i % 2 == 0 {
                Some(u64::from(i / 2))
            } else {
                None
            },
        })
        .collect()
}

#[test]
fn small_record_store_old_and_new_bytes() {
    let s = store();
    let fixint = bincode_upstream::serialize(&s).unwrap().len();
    let varint = bincode_upstream::DefaultOptions::new()
        .serialize(&s)
        .unwrap()
        .len();
    let kiln = bincode::serialize(&s).unwrap().len();
    let kiln_opts = bincode::DefaultOptions::new().serialize(&s).unwrap().len();
    println!(
        "1,000 records: bincode fixint {}, bincode varint {}, kiln {}",
        fixint, varint, kiln
    );
    assert_eq!(kiln, kiln_opts, "options do not change Kiln's bytes");
    // Per record: 9 bytes of fixed fields; name 6-8 chars; 0-3 u16 tags;
    // every other record has a parent. fixint pays 8-byte lengths, Kiln 4,
    // varint 1 (and 1-3 bytes for small integers).
    assert_eq!(fixint, 40_898);
    assert_eq!(varint, 20_889);
    assert_eq!(kiln, 32_894);

    // Kiln reads its own bytes back, and not bincode's.
    let back: Vec<Record> = bincode::deserialize(&bincode::serialize(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    assert!(
        bincode::deserialize::<Vec<Record>>(&bincode_upstream::serialize(&s).unwrap()).is_err()
    );

    // A byte limit sized for varint data trips on Kiln's larger bytes.
    let limit = varint as u64;
    assert!(bincode_upstream::DefaultOptions::new()
        .with_limit(limit)
        .serialize(&s)
        .is_ok());
    match *bincode::DefaultOptions::new()
        .with_limit(limit)
        .serialize(&s)
        .unwrap_err()
    {
        bincode::ErrorKind::SizeLimit => {}
        ref other => panic!("{:?}", other),
    }
}
