//! The native tensor directory (spec section 5).
//!
//! A directory is one Frozen value of canonical type `tensors`:
//!
//! ```text
//! header (32 bytes) | descriptors (128 bytes each) | name heap | zero pad to align64 | payload region
//! ```
//!
//! * [`validate`](fn@validate) checks a block in the precedence order of spec section 7
//!   and returns its [`Layout`]; [`header_lens`] gives a stream reader the
//!   lengths a header promises.
//! * [`TensorsView`] borrows a validated block; [`TensorView`] is one tensor
//!   with typed, zero-copy access when the payload address is aligned.
//! * [`Tensors`] owns a validated block in an [`AlignedBuf`], so its typed
//!   views are always aligned.
//! * [`TensorsBuilder`] writes the one canonical layout (spec 5.7);
//!   [`TensorsWriter`] writes the same layout from metadata first and then
//!   each payload from any reader (a model larger than memory).
//! * [`TensorsView::table`] prints a directory as `kiln inspect` does.
//!
//! # Examples
//!
//! ```
//! use kiln_serde::{tensors::{Dtype, Quant, TensorSpec, TensorsBuilder, TensorsView}, Limits};
//! let data = [1u8, 2, 3, 4];
//! let scale = [0.5f32, 0.25];
//! let mut b = TensorsBuilder::new();
//! let s = b.push(TensorSpec::from_slice(&[2], &scale).named("q.scale"));
//! b.push(
//!     TensorSpec::from_slice(&[4], &data)
//!         .named("q")
//!         .with_quant(Quant::PerBlock { scale: s as u32, block_elems: 2 }),
//! );
//! let t = b.build().unwrap();
//!
//! let view = TensorsView::from_bytes(t.as_bytes(), &Limits::default()).unwrap();
//! let q = view.by_name("q").unwrap();
//! assert_eq!(q.dtype(), Dtype::U8);
//! assert_eq!(q.data(), &data);
//! assert_eq!(view.get(q.quant().scale().unwrap() as usize).unwrap().name(), Some("q.scale"));
//! ```

mod aligned;
mod builder;
mod dtype;
mod layout;
mod owned;
mod placement;
mod plain_desc;
mod serde_impl;
mod table;
mod tensor;
mod validate;
mod view;
mod writer;

pub use aligned::{AlignedBuf, READ_CHUNK};
pub use builder::{TensorSpec, TensorsBuilder};
pub use dtype::{Dtype, Element, Quant, QuantScheme, OPAQUE_MAX, OPAQUE_MIN};
pub(crate) use layout::meta_bytes;
pub(crate) use layout::{desc_off, D_NAME_LEN};
pub use layout::{
    header_lens, ALIGN, DESC_LEN, FLAG_LE, FLAG_NAMES, HEADER_LEN, MAGIC, MAX_RANK, VERSION,
};
pub use owned::Tensors;
pub use placement::Layout;
pub use tensor::{OpaqueLayout, TensorView};
pub use validate::validate;
#[cfg(feature = "mmap")]
pub(crate) use validate::{check_meta, FULL};
pub use view::{Iter, TensorsView};
pub use writer::{TensorsWriter, COPY_CHUNK};
