//! Checkpoint files and the files that hold one tensor directory (spec 9).
//!
//! A **checkpoint** is one framed value of type
//! `struct Checkpoint{metadata:map<str,str>,tensors:tensors}` (hash
//! [`CHECKPOINT_HASH`]): the string metadata that model tools keep beside
//! the tensors (safetensors' `__metadata__`) and a directory whose every
//! tensor is named. A file holding only a directory, bare (`KDIR`) or
//! framed with the hash of `tensors` ([`TENSORS_HASH`]), is also a tensor
//! file, with empty metadata. Readers here accept all three ([`FileKind`]).
//!
//! * [`Checkpoint`] owns one; [`CheckpointView`] borrows one from a buffer.
//! * [`check_buffer`] judges a whole file as `kiln check` does.
//! * [`write_head`] writes what comes before the directory of a
//!   checkpoint, so that [`TensorsWriter`](crate::tensors::TensorsWriter)
//!   can stream the directory after it.
#![cfg_attr(
    feature = "mmap",
    doc = "* [`TensorsFile`] maps a file (feature `mmap`) and validates it without reading the payloads."
)]
//!
//! This module sits above the serde layer (it decodes the metadata map
//! with the Frozen deserializer); [`tensors`](crate::tensors) sits below it.
//!
//! # Examples
//!
//! ```
//! use std::collections::BTreeMap;
//! use kiln_serde::{tensors::{TensorSpec, TensorsBuilder}, Checkpoint, CheckpointView, Limits};
//!
//! let mut b = TensorsBuilder::new();
//! b.push(TensorSpec::from_slice(&[2], &[1.0f32, 2.0]).named("w"));
//! let mut meta = BTreeMap::new();
//! meta.insert("format".to_string(), "pt".to_string());
//! let ckpt = Checkpoint::new(meta, b.build().unwrap()).unwrap();
//! let bytes = ckpt.to_vec().unwrap();
//! assert_eq!(bytes[8..16], kiln_serde::checkpoint::CHECKPOINT_HASH.to_le_bytes());
//!
//! let view = CheckpointView::from_bytes(&bytes, &Limits::default()).unwrap();
//! assert_eq!(view.metadata().get("format"), Some(&"pt"));
//! assert_eq!(view.tensors().by_name("w").unwrap().to_vec::<f32>().unwrap(), [1.0, 2.0]);
//! ```

#![cfg_attr(
    feature = "shards",
    doc = "* [`ShardedFile`] maps a sharded checkpoint (feature `shards`): its index and every shard, each checked against the index."
)]

#[cfg(feature = "mmap")]
mod file;
mod kind;
mod model;
mod serde_impl;
#[cfg(feature = "shards")]
mod shards;

#[cfg(feature = "mmap")]
pub use file::TensorsFile;
pub use kind::{check_buffer, FileKind};
pub use model::{write_head, Checkpoint, CheckpointView};
#[cfg(feature = "shards")]
pub use shards::{check_shard_name, is_index, ShardFormat, ShardIndex, ShardedFile, MAX_INDEX};

use crate::schema::hash_text;

/// The canonical type text of a checkpoint (spec 9).
pub const CHECKPOINT_TEXT: &str = "struct Checkpoint{metadata:map<str,str>,tensors:tensors}";

/// FNV-1a 64 of [`CHECKPOINT_TEXT`]: `0xa16f22b5f4281eb1`.
pub const CHECKPOINT_HASH: u64 = hash_text(CHECKPOINT_TEXT);

/// FNV-1a 64 of the type text `tensors` (spec section 3 check value).
pub const TENSORS_HASH: u64 = hash_text("tensors");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_the_spec_values() {
        assert_eq!(CHECKPOINT_HASH, 0xa16f22b5f4281eb1);
        assert_eq!(TENSORS_HASH, 0x91b48d411a259b35);
    }

    #[test]
    fn traced_hashes_agree() {
        assert_eq!(
            crate::schema::type_text::<Checkpoint>().unwrap(),
            CHECKPOINT_TEXT
        );
        assert_eq!(
            crate::schema::hash::<Checkpoint>().unwrap(),
            CHECKPOINT_HASH
        );
        assert_eq!(
            crate::schema::hash::<CheckpointView<'_>>().unwrap(),
            CHECKPOINT_HASH
        );
    }
}
