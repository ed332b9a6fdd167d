//! The serde access types and the `Deserializer` impl of the tracer.

use super::*;
use serde::de::value::U32Deserializer;
use serde::de::IntoDeserializer;
use serde::de::{self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess};

// ---------------------------------------------------------------------------
// Access types.

/// Elements of a seq, tuple or struct; collects the element texts.
pub(super) struct Access<'a> {
    pub(super) st: &'a mut State,
    pub(super) replay: bool,
    pub(super) len: usize,
    pub(super) next: usize,
    pub(super) texts: Vec<Text>,
}

impl<'a> Access<'a> {
    pub(super) fn new(st: &'a mut State, replay: bool, len: usize) -> Self {
        Access {
            st,
            replay,
            len,
            next: 0,
            texts: Vec::new(),
        }
    }
}

impl<'de> SeqAccess<'de> for Access<'_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if self.next >= self.len {
            return Ok(None);
        }
        let index = u32::try_from(self.next).unwrap_or(u32::MAX);
        self.next += 1;
        self.st.path.push(index);
        let r = seed.deserialize(child(self.st, self.replay, memo_seed::<S>()));
        self.st.path.pop();
        let v = r?;
        if !self.replay {
            let t = self.st.take_ret(type_name::<S>())?;
            self.texts.push(t);
        }
        Ok(Some(v))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len.saturating_sub(self.next))
    }
}

/// Zero or one map entry: the key at index 0, the value at index 1.
pub(super) struct MapAcc<'a> {
    pub(super) st: &'a mut State,
    pub(super) replay: bool,
    pub(super) len: usize,
    pub(super) done: usize,
    pub(super) key: Option<Text>,
    pub(super) value: Option<Text>,
}

impl<'de> MapAccess<'de> for MapAcc<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.done >= self.len {
            return Ok(None);
        }
        self.st.path.push(0);
        let r = seed.deserialize(child(self.st, self.replay, memo_seed::<K>()));
        self.st.path.pop();
        let v = r?;
        if !self.replay {
            self.key = Some(self.st.take_ret("a map key")?);
        }
        Ok(Some(v))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        self.done += 1;
        self.st.path.push(1);
        let r = seed.deserialize(child(self.st, self.replay, memo_seed::<S>()));
        self.st.path.pop();
        let v = r?;
        if !self.replay {
            self.value = Some(self.st.take_ret("a map value")?);
        }
        Ok(v)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len.saturating_sub(self.done))
    }
}

/// Selects variant `index` of an enum.
pub(super) struct EnumAcc<'a> {
    pub(super) st: &'a mut State,
    pub(super) index: u32,
    pub(super) replay: bool,
    pub(super) enum_name: &'static str,
    pub(super) variants: &'static [&'static str],
}

impl<'de, 'a> EnumAccess<'de> for EnumAcc<'a> {
    type Error = Error;
    type Variant = VarAcc<'a>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, VarAcc<'a>)> {
        let de: U32Deserializer<Error> = self.index.into_deserializer();
        match seed.deserialize(de) {
            Ok(v) => Ok((
                v,
                VarAcc {
                    name: self
                        .variants
                        .get(self.index as usize)
                        .copied()
                        .unwrap_or("?"),
                    st: self.st,
                    index: self.index,
                    replay: self.replay,
                },
            )),
            Err(e) => Err(self.st.fatal(format_args!(
                "enum {} rejects variant index {} ({e}) although serde lists {} variant \
                 names {:?}; serde includes #[serde(alias)] names in that list, so the names \
                 are ambiguous",
                self.enum_name,
                self.index,
                self.variants.len(),
                self.variants
            ))),
        }
    }
}

/// The content of the selected variant; leaves its text in `st.variant_ret`.
pub(super) struct VarAcc<'a> {
    pub(super) st: &'a mut State,
    pub(super) index: u32,
    pub(super) replay: bool,
    pub(super) name: &'static str,
}

impl<'de> VariantAccess<'de> for VarAcc<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        if !self.replay {
            self.st.variant_ret = Some(Text::done(self.name));
        }
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value> {
        let st = self.st;
        st.path.push(self.index);
        let r = seed.deserialize(child(st, self.replay, memo_seed::<S>()));
        st.path.pop();
        let v = r?;
        if !self.replay {
            let t = st.take_ret(self.name)?;
            st.variant_ret = Some(Text {
                s: format!("{}({})", self.name, t.s),
                complete: t.complete,
            });
        }
        Ok(v)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        let st = self.st;
        st.path.push(self.index);
        let mut acc = Access::new(st, self.replay, len);
        let r = visitor.visit_seq(&mut acc);
        let texts = acc.texts;
        st.path.pop();
        let v = r?;
        if !self.replay {
            if texts.len() != len {
                return Err(st.fatal(format_args!(
                    "tuple variant {} of {len} fields was read as {}",
                    self.name,
                    texts.len()
                )));
            }
            let (inner, complete) = join(&texts);
            st.variant_ret = Some(Text {
                s: format!("{}({inner})", self.name),
                complete,
            });
        }
        Ok(v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let st = self.st;
        st.path.push(self.index);
        let mut acc = Access::new(st, self.replay, fields.len());
        let r = visitor.visit_seq(&mut acc);
        let texts = acc.texts;
        st.path.pop();
        let v = r?;
        if !self.replay {
            check_fields(st, &format!("variant {}", self.name), fields, texts.len())?;
            let (inner, complete) = fields_text(fields, &texts);
            st.variant_ret = Some(Text {
                s: format!("{}{{{inner}}}", self.name),
                complete,
            });
        }
        Ok(v)
    }
}

// ---------------------------------------------------------------------------
// The Deserializer impl.

macro_rules! prim_methods {
    ($($method:ident => $kind:ident),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                self.node(Kind::$kind, visitor)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Tracer<'_> {
    type Error = Error;

    prim_methods! {
        deserialize_bool => Bool,
        deserialize_i8 => I8,
        deserialize_i16 => I16,
        deserialize_i32 => I32,
        deserialize_i64 => I64,
        deserialize_i128 => I128,
        deserialize_u8 => U8,
        deserialize_u16 => U16,
        deserialize_u32 => U32,
        deserialize_u64 => U64,
        deserialize_u128 => U128,
        deserialize_f32 => F32,
        deserialize_f64 => F64,
        deserialize_char => Char,
        deserialize_str => Str,
        deserialize_string => Str,
        deserialize_bytes => Bytes,
        deserialize_byte_buf => Bytes,
        deserialize_option => Option,
        deserialize_unit => Unit,
        deserialize_seq => Seq,
        deserialize_map => Map,
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(self.st.fatal(
            "it calls deserialize_any (#[serde(untagged)], #[serde(flatten)], internally \
             tagged enums, serde_json::Value, ...); Kiln is not self-describing",
        ))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(self.st.fatal(
            "it calls deserialize_ignored_any; Kiln is not self-describing and cannot skip a \
             value of unknown type",
        ))
    }

    /// Kiln reads an identifier as a u32 (a variant index), so its text is `u32`.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.node(Kind::U32, visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.node(Kind::UnitStruct(name), visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.node(Kind::NewtypeStruct(name), visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.node(Kind::Tuple(len), visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.node(Kind::TupleStruct(name, len), visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.node(Kind::Struct(name, fields), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.node(Kind::Enum(name, variants), visitor)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
