//! Kiln v2 (crate docs to come).
#![deny(missing_docs)]

pub mod error;
pub mod options;
pub mod tensors;
pub use tensors::{Dtype, Tensors, TensorsBuilder, TensorsView};

pub use error::{Error, ErrorCode, Result};
pub use options::Options;
