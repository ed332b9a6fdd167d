//! Temporary stand-ins until the directory validator lands.

use crate::error::{Error, ErrorCode, Result};
use crate::options::Options;

/// Validates a directory at the start of `buf`; returns its block length.
pub(crate) fn validate_block(_buf: &[u8], _opts: &Options) -> Result<usize> {
    Err(Error::new(
        ErrorCode::Message,
        None,
        "tensor directories are not implemented yet",
    ))
}

/// Header checks; returns (meta end, block length).
pub(crate) fn header_lens(_h: &[u8; 32], _opts: &Options) -> Result<(u64, u64)> {
    Err(Error::new(
        ErrorCode::Message,
        None,
        "tensor directories are not implemented yet",
    ))
}
