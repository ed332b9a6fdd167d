//! [`BlockOnly`]: the serializer a tensors newtype's value is handed to.

use serde::ser::{self, Impossible, Serialize, Serializer};

/// What a serializer hands a tensors newtype's value to: a
/// serializer that takes exactly one `serialize_bytes` (the block, passed to
/// `F`) and fails with MESSAGE on anything else. Used by the Kiln serializer
/// (which writes the block raw, without a count) and by its counting pass,
/// so that both accept and refuse the same values.
pub(crate) struct BlockOnly<F>(pub(crate) F);

/// The error for a tensors newtype around something other than bytes.
const NOT_BYTES: &str = "a tensors newtype must serialize its block as bytes";

macro_rules! not_bytes {
    ($($fn:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(
            fn $fn(self, $(_: $arg),*) -> Result<$ret, E> {
                Err(E::custom(NOT_BYTES))
            }
        )*
    };
}

impl<F, E> Serializer for BlockOnly<F>
where
    F: FnOnce(&[u8]) -> Result<(), E>,
    E: ser::Error,
{
    type Ok = ();
    type Error = E;
    type SerializeSeq = Impossible<(), E>;
    type SerializeTuple = Impossible<(), E>;
    type SerializeTupleStruct = Impossible<(), E>;
    type SerializeTupleVariant = Impossible<(), E>;
    type SerializeMap = Impossible<(), E>;
    type SerializeStruct = Impossible<(), E>;
    type SerializeStructVariant = Impossible<(), E>;

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), E> {
        (self.0)(v)
    }

    not_bytes! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_i128(i128) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_u128(u128) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _value: &T) -> Result<(), E> {
        Err(E::custom(NOT_BYTES))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), E> {
        Err(E::custom(NOT_BYTES))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _idx: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), E> {
        Err(E::custom(NOT_BYTES))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
