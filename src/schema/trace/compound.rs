//! Structs and enums: tracing their fields and variants, and replaying a
//! node with the smallest value it can build.

use super::*;

use super::access::{Access, EnumAcc, MapAcc};

/// Traces a newtype, tuple or named struct (already on the stack).
pub(super) fn trace_struct<'de, V: Visitor<'de>>(
    st: &mut State,
    kind: Kind,
    visitor: V,
) -> Result<(V::Value, Text)> {
    match kind {
        Kind::NewtypeStruct(name) => {
            st.path.push(0);
            let r = visitor.visit_newtype_struct(child(st, false, None));
            st.path.pop();
            let v = r?;
            let t = st.take_ret(name)?;
            Ok((
                v,
                Text {
                    s: format!("struct {name}({})", t.s),
                    complete: t.complete,
                },
            ))
        }
        Kind::TupleStruct(name, len) => {
            let mut acc = Access::new(st, false, len);
            let r = visitor.visit_seq(&mut acc);
            let texts = acc.texts;
            let v = r?;
            if texts.len() != len {
                return Err(st.fatal(format_args!(
                    "tuple struct {name} of {len} fields was read as {}",
                    texts.len()
                )));
            }
            let (inner, complete) = join(&texts);
            Ok((
                v,
                Text {
                    s: format!("struct {name}({inner})"),
                    complete,
                },
            ))
        }
        Kind::Struct(name, fields) => {
            let mut acc = Access::new(st, false, fields.len());
            let r = visitor.visit_seq(&mut acc);
            let texts = acc.texts;
            let v = r?;
            check_fields(st, &format!("struct {name}"), fields, texts.len())?;
            let (inner, complete) = fields_text(fields, &texts);
            Ok((
                v,
                Text {
                    s: format!("struct {name}{{{inner}}}"),
                    complete,
                },
            ))
        }
        _ => Err(st.fatal("internal: not a struct")),
    }
}

/// Traces one not-yet-traced variant of an enum (not on the stack).
pub(super) fn trace_enum<'de, V: Visitor<'de>>(
    st: &mut State,
    name: &'static str,
    variants: &'static [&'static str],
    visitor: V,
) -> Result<(V::Value, Text)> {
    let visitor_ty = type_name::<V>();
    let n = variants.len();
    let n32 = match u32::try_from(n) {
        Ok(n32) if n32 > 0 => n32,
        _ => {
            return Err(st.fatal(format_args!(
                "enum {name} has {n} variants; an enum with no variants has no value"
            )))
        }
    };
    let choice = {
        let recorded = st
            .variants
            .entry(st.path.clone())
            .or_insert_with(|| vec![None; n]);
        (0..n32).find(|&i| {
            recorded.get(i as usize).is_some_and(Option::is_none)
                && !st.blocked.contains(&(visitor_ty, i))
        })
    };
    let Some(k) = choice else {
        // Every variant still missing waits for a finite value elsewhere.
        let v = replay_node(st, Kind::Enum(name, variants), visitor)?;
        return Ok((
            v,
            Text {
                s: String::new(),
                complete: false,
            },
        ));
    };
    st.stack.push(Entry {
        name,
        visitor: visitor_ty,
        is_enum: true,
        variant: Some(k),
    });
    st.variant_ret = None;
    let r = visitor.visit_enum(EnumAcc {
        st: &mut *st,
        index: k,
        replay: false,
        enum_name: name,
        variants,
    });
    st.stack.pop();
    let v = r?;
    let Some(vt) = st.variant_ret.take() else {
        return Err(st.fatal(format_args!(
            "the visitor of enum {name} did not read the variant's content"
        )));
    };
    st.set_finite(visitor_ty, k);
    let Some(recorded) = st.variants.get_mut(&st.path) else {
        return Err(st.fatal("internal: enum record lost"));
    };
    if vt.complete {
        if let Some(slot) = recorded.get_mut(k as usize) {
            if slot.is_none() {
                *slot = Some(vt.s);
                st.progress += 1;
            }
        }
    }
    let all: Option<Vec<&String>> = recorded.iter().map(Option::as_ref).collect();
    let text = match all {
        Some(texts) => {
            let mut s = format!("enum {name}{{");
            for (i, t) in texts.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(t);
            }
            s.push('}');
            Text::done(s)
        }
        None => Text {
            s: String::new(),
            complete: false,
        },
    };
    Ok((v, text))
}

/// Builds the smallest value of a node without recording any text.
pub(super) fn replay_node<'de, V: Visitor<'de>>(
    st: &mut State,
    kind: Kind,
    visitor: V,
) -> Result<V::Value> {
    match kind {
        Kind::Unit | Kind::UnitStruct(_) => visitor.visit_unit(),
        Kind::NewtypeStruct(name) if token::is_tensors(name) => tensors(st, visitor),
        Kind::NewtypeStruct(_) => {
            st.path.push(0);
            let r = visitor.visit_newtype_struct(child(st, true, None));
            st.path.pop();
            r
        }
        Kind::Option => {
            if st.sample(2) == 0 {
                visitor.visit_none()
            } else {
                st.path.push(0);
                let r = visitor.visit_some(child(st, true, None));
                st.path.pop();
                r
            }
        }
        Kind::Seq => {
            let len = usize::from(st.sample(2));
            visitor.visit_seq(Access::new(st, true, len))
        }
        Kind::Map => {
            let len = usize::from(st.sample(2));
            visitor.visit_map(MapAcc {
                st,
                replay: true,
                len,
                done: 0,
                key: None,
                value: None,
            })
        }
        Kind::Tuple(len) | Kind::TupleStruct(_, len) => {
            visitor.visit_seq(Access::new(st, true, len))
        }
        Kind::Struct(_, fields) => visitor.visit_seq(Access::new(st, true, fields.len())),
        Kind::Enum(name, variants) => replay_enum(st, name, variants, visitor),
        _ => prim(st, kind, visitor),
    }
}

/// Builds a value of an enum from a variant known to be finite, or tries one.
pub(super) fn replay_enum<'de, V: Visitor<'de>>(
    st: &mut State,
    name: &'static str,
    variants: &'static [&'static str],
    visitor: V,
) -> Result<V::Value> {
    let visitor_ty = type_name::<V>();
    let k = match st.finite.get(visitor_ty) {
        Some(&k) => k,
        None => {
            let current = st
                .stack
                .iter()
                .rev()
                .find(|e| e.is_enum && e.name == name && e.visitor == visitor_ty)
                .map(|e| e.variant);
            if let Some(current) = current {
                // Inside itself with no finite variant yet: the variant being
                // traced needs another one to exist first.
                if let Some(v) = current {
                    if st.blocked.insert((visitor_ty, v)) {
                        st.progress += 1;
                    }
                }
                return Err(st.abort());
            }
            let n = u32::try_from(variants.len()).unwrap_or(u32::MAX);
            match (0..n).find(|&i| !st.blocked.contains(&(visitor_ty, i))) {
                Some(i) => i,
                None if n == 0 => {
                    return Err(st.fatal(format_args!(
                        "enum {name} has no variants; an enum with no variants has no value"
                    )))
                }
                None => return Err(st.abort()),
            }
        }
    };
    st.stack.push(Entry {
        name,
        visitor: visitor_ty,
        is_enum: true,
        variant: Some(k),
    });
    let r = visitor.visit_enum(EnumAcc {
        st: &mut *st,
        index: k,
        replay: true,
        enum_name: name,
        variants,
    });
    st.stack.pop();
    let v = r?;
    st.set_finite(visitor_ty, k);
    Ok(v)
}
