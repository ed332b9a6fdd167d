//! The checkpoint cases (spec section 9): a frame with the hash of
//! `struct Checkpoint{metadata:map<str,str>,tensors:tensors}`, the Frozen
//! metadata map, then a directory whose every tensor is named (form
//! `checkpoint`).

use serde_json::{json, Value};

use super::golden_digest::fnv1a64;
use super::golden_dir::{err, named_pair_block};
use super::Case;

/// The type text of a checkpoint (spec 9).
pub const CHECKPOINT_TEXT: &str = "struct Checkpoint{metadata:map<str,str>,tensors:tensors}";

/// The frame with the checkpoint hash.
fn head() -> Vec<u8> {
    let mut b = b"KILN\x02\x00\x01\x00".to_vec();
    b.extend_from_slice(&fnv1a64(CHECKPOINT_TEXT).to_le_bytes());
    b
}

/// A Frozen `map<str,str>` with the entries in the order given.
fn map(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut b = (entries.len() as u32).to_le_bytes().to_vec();
    for (k, v) in entries {
        for s in [k, v] {
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        }
    }
    b
}

fn file(entries: &[(&str, &str)], named: bool) -> (Vec<u8>, Vec<Value>) {
    let (block, tensors) = named_pair_block(named);
    let mut b = head();
    b.extend_from_slice(&map(entries));
    b.extend_from_slice(&block);
    (b, tensors)
}

fn ok(name: &str, about: &str, entries: &[(&str, &str)]) -> Case {
    let (bytes, tensors) = file(entries, true);
    let metadata: serde_json::Map<String, Value> = entries
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: json!({"name": name, "file": format!("{name}.kiln"), "form": "checkpoint",
                      "description": about, "expect": "ok", "metadata": metadata,
                      "tensors": tensors}),
    }
}

/// The checkpoint cases.
pub fn checkpoint_cases() -> Vec<Case> {
    let (unnamed, _) = file(&[], false);
    let (unordered, _) = file(&[("b", "1"), ("a", "2")], true);
    let (good, _) = file(&[("format", "pt")], true);
    vec![
        ok(
            "checkpoint",
            "frame with the checkpoint hash 0xa16f22b5f4281eb1, metadata {format: pt, \
             step: 3}, then kiln-v2-f8-pair with names a and b",
            &[("format", "pt"), ("step", "3")],
        ),
        ok(
            "checkpoint-empty-metadata",
            "a checkpoint with empty metadata (count 0), then the named f8-pair",
            &[],
        ),
        err(
            "checkpoint-unnamed",
            "checkpoint",
            "a checkpoint whose directory is the unnamed kiln-v2-f8-pair: descriptor 0's \
             name_len (16 + 4 + 32 + 4) is 0",
            unnamed,
            "TYPE",
            16 + 4 + 32 + 4,
        ),
        err(
            "checkpoint-metadata-order",
            "checkpoint",
            "checkpoint metadata with keys b then a: not canonical; the second key is at \
             16 + 4 + 5 + 5",
            unordered,
            "TYPE",
            16 + 4 + 5 + 5,
        ),
        err(
            "checkpoint-trailing",
            "checkpoint",
            "a good checkpoint and one 0x00 byte after its directory",
            {
                let mut b = good.clone();
                b.push(0);
                b
            },
            "TRAILING",
            good.len() as u64,
        ),
    ]
}
