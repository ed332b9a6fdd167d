//! bincode 1.3's deprecated `config()` / [`Config`] builder, kept so code
//! written for bincode 1.0-1.2 compiles unchanged.
#![allow(deprecated)]

use std::io::{Read, Write};

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde::{Deserialize, Serialize};

use super::config::Resolved;
use super::de::read::BincodeRead;
use super::{DefaultOptions, Options, Result};

/// bincode 1.3's deprecated configuration builder: a byte limit and an
/// endianness, over the settings of the free functions (trailing bytes
/// allowed). The endianness has **no effect**: Kiln is little-endian.
///
/// # Examples
/// ```
/// # #![allow(deprecated)]
/// use kiln_serde::bincode;
///
/// let mut config = bincode::config();
/// config.limit(8).big_endian();
/// assert_eq!(config.serialize(&1u32).unwrap(), [1, 0, 0, 0]);
/// assert!(config.serialize(&[0u8; 9]).is_err());
/// ```
#[derive(Clone, Debug)]
#[deprecated(
    since = "1.3.0",
    note = "please use the `DefaultOptions`/`Options` system instead"
)]
pub struct Config {
    limit: Option<u64>,
}

/// Runs `$call` with `$opts` bound to the [`Options`] this config stands for.
macro_rules! with_options {
    ($self:expr, $opts:ident => $call:expr) => {{
        let base = DefaultOptions::new()
            .with_fixint_encoding()
            .allow_trailing_bytes();
        match $self.limit {
            Some(l) => {
                let $opts = base.with_limit(l);
                $call
            }
            None => {
                let $opts = base.with_no_limit();
                $call
            }
        }
    }};
}

impl Config {
    pub(crate) fn new() -> Config {
        Config { limit: None }
    }

    /// No byte limit (the default).
    pub fn no_limit(&mut self) -> &mut Self {
        self.limit = None;
        self
    }

    /// A byte limit of `limit` for every call.
    pub fn limit(&mut self, limit: u64) -> &mut Self {
        self.limit = Some(limit);
        self
    }

    /// Little-endian (Kiln's only byte order).
    pub fn little_endian(&mut self) -> &mut Self {
        self
    }

    /// Accepted, **no effect**: Kiln is always little-endian.
    pub fn big_endian(&mut self) -> &mut Self {
        self
    }

    /// Accepted, **no effect**: Kiln is always little-endian.
    pub fn native_endian(&mut self) -> &mut Self {
        self
    }

    /// [`Options::serialize`] under this config.
    ///
    /// # Errors
    /// As [`Options::serialize`].
    pub fn serialize<T: ?Sized + Serialize>(&self, t: &T) -> Result<Vec<u8>> {
        with_options!(self, o => o.serialize(t))
    }

    /// [`Options::serialized_size`] under this config.
    ///
    /// # Errors
    /// As [`Options::serialized_size`].
    pub fn serialized_size<T: ?Sized + Serialize>(&self, t: &T) -> Result<u64> {
        with_options!(self, o => o.serialized_size(t))
    }

    /// [`Options::serialize_into`] under this config.
    ///
    /// # Errors
    /// As [`Options::serialize_into`].
    pub fn serialize_into<W: Write, T: ?Sized + Serialize>(&self, w: W, t: &T) -> Result<()> {
        with_options!(self, o => o.serialize_into(w, t))
    }

    /// [`Options::deserialize`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize`].
    pub fn deserialize<'a, T: Deserialize<'a>>(&self, bytes: &'a [u8]) -> Result<T> {
        with_options!(self, o => o.deserialize(bytes))
    }

    /// [`Options::deserialize_in_place`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_in_place`].
    pub fn deserialize_in_place<'a, R, T>(&self, reader: R, place: &mut T) -> Result<()>
    where
        R: BincodeRead<'a>,
        T: Deserialize<'a>,
    {
        with_options!(self, o => o.deserialize_in_place(reader, place))
    }

    /// [`Options::deserialize_seed`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_seed`].
    pub fn deserialize_seed<'a, T: DeserializeSeed<'a>>(
        &self,
        seed: T,
        bytes: &'a [u8],
    ) -> Result<T::Value> {
        with_options!(self, o => o.deserialize_seed(seed, bytes))
    }

    /// [`Options::deserialize_from`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_from`].
    pub fn deserialize_from<R: Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        // Both arms through one option type, so `T`'s stream decode is
        // compiled once, not once per limit kind.
        with_options!(self, o => Resolved(o.kiln_options()).deserialize_from(reader))
    }

    /// [`Options::deserialize_from_seed`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_from_seed`].
    pub fn deserialize_from_seed<'a, R: Read, T: DeserializeSeed<'a>>(
        &self,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        with_options!(self, o => Resolved(o.kiln_options()).deserialize_from_seed(seed, reader))
    }

    /// [`Options::deserialize_from_custom`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_from_custom`].
    pub fn deserialize_from_custom<'a, R: BincodeRead<'a>, T: DeserializeOwned>(
        &self,
        reader: R,
    ) -> Result<T> {
        with_options!(self, o => o.deserialize_from_custom(reader))
    }

    /// [`Options::deserialize_from_custom_seed`] under this config.
    ///
    /// # Errors
    /// As [`Options::deserialize_from_custom_seed`].
    pub fn deserialize_from_custom_seed<'a, R: BincodeRead<'a>, T: DeserializeSeed<'a>>(
        &self,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        with_options!(self, o => o.deserialize_from_custom_seed(seed, reader))
    }
}
