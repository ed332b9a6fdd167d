//! A recorded serde value: what a compound (seq, map, struct, ...) handed
//! to bincode's [`Serializer`](super::Serializer) between its first call
//! and `end()`. Replayed through Kiln's serializer at `end()`, it gives the
//! bytes Kiln gives for the value itself (map entries sorted, counts of
//! unknown-length seqs filled in), with the same names and length hints.

use std::fmt::Write as _;

use serde::ser::SerializeTupleVariant;
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, SerializeStruct};
use serde::ser::{SerializeStructVariant, SerializeTuple, SerializeTupleStruct};

use crate::bincode::{Error, ErrorKind, Result};

/// A variant: enum name, index, variant name.
type Variant = (&'static str, u32, &'static str);

/// One serde data-model value.
pub(crate) enum Content {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    I128(i128),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    U128(u128),
    F32(f32),
    F64(f64),
    Char(char),
    Str(String),
    Bytes(Vec<u8>),
    None,
    Some(Box<Content>),
    Unit,
    UnitStruct(&'static str),
    UnitVariant(Variant),
    NewtypeStruct(&'static str, Box<Content>),
    NewtypeVariant(Variant, Box<Content>),
    Seq(Option<usize>, Vec<Content>),
    Tuple(usize, Vec<Content>),
    TupleStruct(&'static str, usize, Vec<Content>),
    TupleVariant(Variant, usize, Vec<Content>),
    Map(Option<usize>, Vec<(Content, Content)>),
    Struct(&'static str, usize, Vec<(&'static str, Content)>),
    StructVariant(Variant, usize, Vec<(&'static str, Content)>),
}

/// Records a value as [`Content`].
pub(crate) struct Recorder;

/// A compound being recorded.
pub(crate) struct Rec {
    kind: Kind,
    items: Vec<Content>,
    fields: Vec<(&'static str, Content)>,
    entries: Vec<(Content, Content)>,
    key: Option<Content>,
}

#[derive(Clone, Copy)]
enum Kind {
    Seq(Option<usize>),
    Tuple(usize),
    TupleStruct(&'static str, usize),
    TupleVariant(Variant, usize),
    Map(Option<usize>),
    Struct(&'static str, usize),
    StructVariant(Variant, usize),
}

impl Rec {
    fn new(kind: Kind) -> Rec {
        Rec {
            kind,
            items: Vec::new(),
            fields: Vec::new(),
            entries: Vec::new(),
            key: None,
        }
    }

    fn item<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.items.push(value.serialize(Recorder)?);
        Ok(())
    }

    fn field<T: ?Sized + Serialize>(&mut self, name: &'static str, value: &T) -> Result<()> {
        self.fields.push((name, value.serialize(Recorder)?));
        Ok(())
    }

    /// The recorded compound.
    pub(crate) fn finish(self) -> Result<Content> {
        Ok(match self.kind {
            Kind::Seq(len) => Content::Seq(len, self.items),
            Kind::Tuple(len) => Content::Tuple(len, self.items),
            Kind::TupleStruct(name, len) => Content::TupleStruct(name, len, self.items),
            Kind::TupleVariant(v, len) => Content::TupleVariant(v, len, self.items),
            Kind::Map(len) => {
                if self.key.is_some() {
                    return Err(Box::new(ErrorKind::Custom(
                        "a map key was serialized without its value".to_string(),
                    )));
                }
                Content::Map(len, self.entries)
            }
            Kind::Struct(name, len) => Content::Struct(name, len, self.fields),
            Kind::StructVariant(v, len) => Content::StructVariant(v, len, self.fields),
        })
    }
}

macro_rules! record {
    ($($method:ident($t:ty) => $variant:ident),*) => {
        $(
            fn $method(self, v: $t) -> Result<Content> {
                Ok(Content::$variant(v.into()))
            }
        )*
    };
}

impl ser::Serializer for Recorder {
    type Ok = Content;
    type Error = Error;
    type SerializeSeq = Rec;
    type SerializeTuple = Rec;
    type SerializeTupleStruct = Rec;
    type SerializeTupleVariant = Rec;
    type SerializeMap = Rec;
    type SerializeStruct = Rec;
    type SerializeStructVariant = Rec;

    record! {
        serialize_bool(bool) => Bool,
        serialize_i8(i8) => I8,
        serialize_i16(i16) => I16,
        serialize_i32(i32) => I32,
        serialize_i64(i64) => I64,
        serialize_i128(i128) => I128,
        serialize_u8(u8) => U8,
        serialize_u16(u16) => U16,
        serialize_u32(u32) => U32,
        serialize_u64(u64) => U64,
        serialize_u128(u128) => U128,
        serialize_f32(f32) => F32,
        serialize_f64(f64) => F64,
        serialize_char(char) => Char,
        serialize_str(&str) => Str,
        serialize_bytes(&[u8]) => Bytes
    }

    fn serialize_none(self) -> Result<Content> {
        Ok(Content::None)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Content> {
        Ok(Content::Some(Box::new(value.serialize(Recorder)?)))
    }

    fn serialize_unit(self) -> Result<Content> {
        Ok(Content::Unit)
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<Content> {
        Ok(Content::UnitStruct(name))
    }

    fn serialize_unit_variant(self, n: &'static str, i: u32, v: &'static str) -> Result<Content> {
        Ok(Content::UnitVariant((n, i, v)))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Content> {
        Ok(Content::NewtypeStruct(
            name,
            Box::new(value.serialize(Recorder)?),
        ))
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        value: &T,
    ) -> Result<Content> {
        let inner = Box::new(value.serialize(Recorder)?);
        Ok(Content::NewtypeVariant((n, i, v), inner))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Rec> {
        Ok(Rec::new(Kind::Seq(len)))
    }

    fn serialize_tuple(self, len: usize) -> Result<Rec> {
        Ok(Rec::new(Kind::Tuple(len)))
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Rec> {
        Ok(Rec::new(Kind::TupleStruct(name, len)))
    }

    fn serialize_tuple_variant(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        len: usize,
    ) -> Result<Rec> {
        Ok(Rec::new(Kind::TupleVariant((n, i, v), len)))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Rec> {
        Ok(Rec::new(Kind::Map(len)))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Rec> {
        Ok(Rec::new(Kind::Struct(name, len)))
    }

    fn serialize_struct_variant(
        self,
        n: &'static str,
        i: u32,
        v: &'static str,
        len: usize,
    ) -> Result<Rec> {
        Ok(Rec::new(Kind::StructVariant((n, i, v), len)))
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<Content> {
        Ok(Content::Str(display(value)?))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// `collect_str`'s text; a failing `Display` is an error, not a panic.
pub(crate) fn display<T: ?Sized + std::fmt::Display>(value: &T) -> Result<String> {
    let mut s = String::new();
    write!(s, "{value}").map_err(|_| {
        Box::new(ErrorKind::Custom(
            "a Display impl returned an error".to_string(),
        ))
    })?;
    Ok(s)
}

macro_rules! rec_items {
    ($($tr:ident::$method:ident),*) => {
        $(
            impl $tr for Rec {
                type Ok = Content;
                type Error = Error;

                fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                    self.item(value)
                }

                fn end(self) -> Result<Content> {
                    self.finish()
                }
            }
        )*
    };
}

rec_items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! rec_fields {
    ($($tr:ident),*) => {
        $(
            impl $tr for Rec {
                type Ok = Content;
                type Error = Error;

                fn serialize_field<T: ?Sized + Serialize>(
                    &mut self,
                    key: &'static str,
                    value: &T,
                ) -> Result<()> {
                    self.field(key, value)
                }

                fn end(self) -> Result<Content> {
                    self.finish()
                }
            }
        )*
    };
}

rec_fields!(SerializeStruct, SerializeStructVariant);

impl SerializeMap for Rec {
    type Ok = Content;
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(Recorder)?);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let Some(key) = self.key.take() else {
            return Err(Box::new(ErrorKind::Custom(
                "a map value was serialized before its key".to_string(),
            )));
        };
        self.entries.push((key, value.serialize(Recorder)?));
        Ok(())
    }

    fn end(self) -> Result<Content> {
        self.finish()
    }
}

impl Serialize for Content {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Content::Bool(v) => s.serialize_bool(*v),
            Content::I8(v) => s.serialize_i8(*v),
            Content::I16(v) => s.serialize_i16(*v),
            Content::I32(v) => s.serialize_i32(*v),
            Content::I64(v) => s.serialize_i64(*v),
            Content::I128(v) => s.serialize_i128(*v),
            Content::U8(v) => s.serialize_u8(*v),
            Content::U16(v) => s.serialize_u16(*v),
            Content::U32(v) => s.serialize_u32(*v),
            Content::U64(v) => s.serialize_u64(*v),
            Content::U128(v) => s.serialize_u128(*v),
            Content::F32(v) => s.serialize_f32(*v),
            Content::F64(v) => s.serialize_f64(*v),
            Content::Char(v) => s.serialize_char(*v),
            Content::Str(v) => s.serialize_str(v),
            Content::Bytes(v) => s.serialize_bytes(v),
            Content::None => s.serialize_none(),
            Content::Some(v) => s.serialize_some(&**v),
            Content::Unit => s.serialize_unit(),
            Content::UnitStruct(n) => s.serialize_unit_struct(n),
            Content::UnitVariant((n, i, v)) => s.serialize_unit_variant(n, *i, v),
            Content::NewtypeStruct(n, v) => s.serialize_newtype_struct(n, &**v),
            Content::NewtypeVariant((n, i, v), x) => s.serialize_newtype_variant(n, *i, v, &**x),
            Content::Seq(len, items) => {
                let mut c = s.serialize_seq(*len)?;
                for x in items {
                    c.serialize_element(x)?;
                }
                c.end()
            }
            Content::Tuple(len, items) => {
                let mut c = s.serialize_tuple(*len)?;
                for x in items {
                    c.serialize_element(x)?;
                }
                c.end()
            }
            Content::TupleStruct(n, len, items) => {
                let mut c = s.serialize_tuple_struct(n, *len)?;
                for x in items {
                    c.serialize_field(x)?;
                }
                c.end()
            }
            Content::TupleVariant((n, i, v), len, items) => {
                let mut c = s.serialize_tuple_variant(n, *i, v, *len)?;
                for x in items {
                    c.serialize_field(x)?;
                }
                c.end()
            }
            Content::Map(len, entries) => {
                let mut c = s.serialize_map(*len)?;
                for (k, v) in entries {
                    c.serialize_key(k)?;
                    c.serialize_value(v)?;
                }
                c.end()
            }
            Content::Struct(n, len, fields) => {
                let mut c = s.serialize_struct(n, *len)?;
                for (k, v) in fields {
                    c.serialize_field(k, v)?;
                }
                c.end()
            }
            Content::StructVariant((n, i, v), len, fields) => {
                let mut c = s.serialize_struct_variant(n, *i, v, *len)?;
                for (k, x) in fields {
                    c.serialize_field(k, x)?;
                }
                c.end()
            }
        }
    }
}
