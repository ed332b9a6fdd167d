//! bincode 1.3's public [`Serializer`]: `Serializer::new(writer, options)`
//! and `value.serialize(&mut serializer)`, writing Kiln's bytes.

mod content;

use std::io::Write;

use serde::ser::{self, Serialize};

use self::content::{Content, Rec, Recorder};
use super::config::Options;
use super::{Error, Result};

/// bincode 1.3's serializer: encodes values into a writer, in Kiln's bytes.
///
/// Rarely needed: prefer [`serialize_into`](super::serialize_into) or
/// [`Options::serialize_into`]. Each value handed to
/// `serialize(&mut serializer)` is written in full before the call returns
/// (so a `&mut Vec<u8>` writer can be read right after). A compound value
/// (seq, map, struct, ...) is recorded as it arrives and encoded at its
/// `end()`, because Kiln sorts map entries and fills in the counts of
/// sequences of unknown length; the byte limit of `O` applies to each
/// top-level value.
///
/// # Examples
/// ```
/// use kiln_serde::bincode::{self, DefaultOptions, Serializer};
/// use serde::Serialize;
///
/// let mut out = Vec::new();
/// let mut ser = Serializer::new(&mut out, DefaultOptions::new());
/// (7u8, "seven").serialize(&mut ser).unwrap();
/// 1u16.serialize(&mut ser).unwrap();
/// let mut expected = bincode::serialize(&(7u8, "seven")).unwrap();
/// expected.extend_from_slice(&[1, 0]);
/// assert_eq!(out, expected);
/// ```
pub struct Serializer<W, O: Options> {
    writer: W,
    options: O,
}

impl<W: Write, O: Options> Serializer<W, O> {
    /// A serializer writing into `w` under `options`.
    pub fn new(w: W, options: O) -> Serializer<W, O> {
        Serializer { writer: w, options }
    }

    /// Encodes one complete value into the writer.
    fn emit<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let opts = self.options.kiln_options();
        super::serialize_into_with(&opts, &mut self.writer, value)
    }
}

/// A compound value in progress: recorded, then encoded at `end()`.
pub struct Compound<'a, W, O: Options> {
    ser: &'a mut Serializer<W, O>,
    rec: Rec,
}

macro_rules! scalars {
    ($($method:ident($t:ty)),*) => {
        $(
            fn $method(self, v: $t) -> Result<()> {
                self.emit(&v)
            }
        )*
    };
}

impl<'a, W: Write, O: Options> ser::Serializer for &'a mut Serializer<W, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W, O>;
    type SerializeTuple = Compound<'a, W, O>;
    type SerializeTupleStruct = Compound<'a, W, O>;
    type SerializeTupleVariant = Compound<'a, W, O>;
    type SerializeMap = Compound<'a, W, O>;
    type SerializeStruct = Compound<'a, W, O>;
    type SerializeStructVariant = Compound<'a, W, O>;

    scalars! {
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.emit(&Content::Bytes(v.to_vec()))
    }

    fn serialize_none(self) -> Result<()> {
        self.emit(&Content::None)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.emit(&Some(value))
    }

    fn serialize_unit(self) -> Result<()> {
        self.emit(&())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        self.emit(&Content::UnitStruct(name))
    }

    fn serialize_unit_variant(self, n: &'static str, i: u32, v: &'static str) -> Result<()> {
        self.emit(&Content::UnitVariant((n, i, v)))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        let c = ser::Serializer::serialize_newtype_struct(Recorder, name, value)?;
        self.emit(&c)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        value: &T,
    ) -> Result<()> {
        let c = ser::Serializer::serialize_newtype_variant(Recorder, n, i, v, value)?;
        self.emit(&c)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq> {
        let rec = ser::Serializer::serialize_seq(Recorder, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        let rec = ser::Serializer::serialize_tuple(Recorder, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        let rec = ser::Serializer::serialize_tuple_struct(Recorder, name, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_tuple_variant(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        let rec = ser::Serializer::serialize_tuple_variant(Recorder, n, i, v, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap> {
        let rec = ser::Serializer::serialize_map(Recorder, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct> {
        let rec = ser::Serializer::serialize_struct(Recorder, name, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn serialize_struct_variant(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        let rec = ser::Serializer::serialize_struct_variant(Recorder, n, i, v, len)?;
        Ok(Compound { ser: self, rec })
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.emit(&content::display(value)?)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

macro_rules! compound_items {
    ($($tr:ident::$method:ident),*) => {
        $(
            impl<W: Write, O: Options> ser::$tr for Compound<'_, W, O> {
                type Ok = ();
                type Error = Error;

                fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                    ser::$tr::$method(&mut self.rec, value)
                }

                fn end(self) -> Result<()> {
                    let c = self.rec.finish()?;
                    self.ser.emit(&c)
                }
            }
        )*
    };
}

compound_items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! compound_fields {
    ($($tr:ident),*) => {
        $(
            impl<W: Write, O: Options> ser::$tr for Compound<'_, W, O> {
                type Ok = ();
                type Error = Error;

                fn serialize_field<T: ?Sized + Serialize>(
                    &mut self,
                    key: &'static str,
                    value: &T,
                ) -> Result<()> {
                    ser::$tr::serialize_field(&mut self.rec, key, value)
                }

                fn end(self) -> Result<()> {
                    let c = self.rec.finish()?;
                    self.ser.emit(&c)
                }
            }
        )*
    };
}

compound_fields!(SerializeStruct, SerializeStructVariant);

impl<W: Write, O: Options> ser::SerializeMap for Compound<'_, W, O> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        ser::SerializeMap::serialize_key(&mut self.rec, key)
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        ser::SerializeMap::serialize_value(&mut self.rec, value)
    }

    fn end(self) -> Result<()> {
        let c = self.rec.finish()?;
        self.ser.emit(&c)
    }
}
