//! The tracer: the type text of a type, read off its own `Deserialize`.
//!
//! One pass drives `T::deserialize` once. Every `deserialize_*` call is a node
//! at a path (field, element, key/value, variant indices from the root). In a
//! pass a node either *traces* (answers with a sample value and records what
//! it is) or *replays* (answers with the smallest value it can build: empty
//! lists and maps, `None`, a known-finite enum variant, and records nothing).
//!
//! An enum yields one variant per pass (serde lets its visitor see one), so
//! passes repeat until every variant of every enum is traced. Texts that are
//! complete are remembered per path and per (seed type, enclosing stack), and
//! replayed afterwards. A struct or enum met inside itself (same serde name,
//! same visitor type) is written `@NAME` and its value is replayed; a
//! recursive enum replays a variant that was built without itself before
//! (a variant that needs itself first is blocked until one exists).
//!
//! Every pass must make progress (a new text, variant, finite variant, block or
//! sample), or tracing stops with an error; passes, nodes and depth are capped.

use std::any::type_name;
use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::value::BorrowedBytesDeserializer;
use serde::de::{Deserialize, Visitor};

use crate::error::{Error, ErrorCode, Result};
use crate::token;

mod access;
mod compound;

use access::{Access, MapAcc};
use compound::{replay_node, trace_enum, trace_struct};

/// Nesting depth past which tracing gives up (the default `max_depth`).
const MAX_DEPTH: u32 = 128;
/// Passes over the type past which tracing gives up.
const MAX_PASSES: u32 = 65_536;
/// Total `deserialize_*` calls past which tracing gives up.
const MAX_NODES: u64 = 4_000_000;

type Path = Vec<u32>;

/// A text and whether every enum inside it is fully traced.
struct Text {
    s: String,
    complete: bool,
}

impl Text {
    fn done(s: impl Into<String>) -> Self {
        Text {
            s: s.into(),
            complete: true,
        }
    }
}

/// Joins texts with commas; complete when all are.
fn join(parts: &[Text]) -> (String, bool) {
    let mut s = String::new();
    let mut complete = true;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&p.s);
        complete &= p.complete;
    }
    (s, complete)
}

/// A struct or enum being traced or replayed.
struct Entry {
    name: &'static str,
    visitor: &'static str,
    is_enum: bool,
    variant: Option<u32>,
}

/// Where a complete text may be reused: the seed type (for `PhantomData<T>`
/// seeds, that is `T`) and the names and visitor types of the enclosing
/// structs and enums (which decide where `@NAME` appears).
#[derive(PartialEq, Eq, Hash)]
struct MemoKey {
    seed: &'static str,
    stack: Vec<(&'static str, &'static str)>,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Bool,
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Char,
    Str,
    Bytes,
    Unit,
    Option,
    UnitStruct(&'static str),
    NewtypeStruct(&'static str),
    Seq,
    Tuple(usize),
    TupleStruct(&'static str, usize),
    Map,
    Struct(&'static str, &'static [&'static str]),
    Enum(&'static str, &'static [&'static str]),
}

/// An empty, valid tensor directory (spec 5.1): the sample for `tensors`.
static EMPTY_DIRECTORY: [u8; 64] = {
    let mut d = [0u8; 64];
    d[0] = b'K';
    d[1] = b'D';
    d[2] = b'I';
    d[3] = b'R';
    d[4] = 2; // version
    d[6] = 1; // flags: little-endian
    d
};

const STR_SAMPLES: [&str; 3] = ["a", "", "0"];
const BYTES_SAMPLES: [&[u8]; 2] = [&[1], &[]];
const CHAR_SAMPLES: [char; 2] = ['a', '0'];

#[derive(Default)]
struct State {
    /// `type_name` of the traced type, for messages.
    root: &'static str,
    // Kept across passes.
    known: HashMap<Path, String>,
    memo: HashMap<MemoKey, String>,
    variants: HashMap<Path, Vec<Option<String>>>,
    samples: HashMap<Path, u8>,
    finite: HashMap<&'static str, u32>,
    blocked: HashSet<(&'static str, u32)>,
    progress: u64,
    nodes: u64,
    // Reset every pass.
    path: Path,
    stack: Vec<Entry>,
    depth: u32,
    ret: Option<Text>,
    variant_ret: Option<Text>,
    last_sampled: Option<(Path, u8)>,
    aborted: bool,
    fatal: Option<Error>,
}

impl State {
    /// Stops tracing with `msg`; returns the error to unwind with.
    #[cold]
    fn fatal(&mut self, msg: impl fmt::Display) -> Error {
        if self.fatal.is_none() {
            self.fatal = Some(Error::new(
                ErrorCode::Message,
                None,
                format!("cannot trace the type text of `{}`: {msg}", self.root),
            ));
        }
        Error::new(ErrorCode::Message, None, "schema tracing stopped")
    }

    /// Ends this pass early (the next pass knows more).
    #[cold]
    fn abort(&mut self) -> Error {
        self.aborted = true;
        Error::new(ErrorCode::Message, None, "schema tracing pass ended")
    }

    fn take_ret(&mut self, what: &str) -> Result<Text> {
        match self.ret.take() {
            Some(t) => Ok(t),
            None => Err(self.fatal(format_args!(
                "the Deserialize impl of {what} did not call the deserializer"
            ))),
        }
    }

    /// The sample index to use at the current path, out of `count`.
    fn sample(&mut self, count: u8) -> u8 {
        let s = self.samples.get(&self.path).copied().unwrap_or(0);
        self.last_sampled = Some((self.path.clone(), count));
        s.min(count.saturating_sub(1))
    }

    fn on_stack(&self, name: &str, visitor: &str, is_enum: bool) -> bool {
        self.stack
            .iter()
            .any(|e| e.name == name && e.visitor == visitor && e.is_enum == is_enum)
    }

    fn set_finite(&mut self, visitor: &'static str, k: u32) {
        if !self.finite.contains_key(visitor) {
            self.finite.insert(visitor, k);
            self.blocked.clear();
            self.progress += 1;
        }
    }
}

/// Only `PhantomData<T>` seeds are known to mean "the type `T`".
fn memo_seed<S>() -> Option<&'static str> {
    let name = type_name::<S>();
    (name.starts_with("core::marker::PhantomData<")
        || name.starts_with("std::marker::PhantomData<"))
    .then_some(name)
}

/// Runs passes until the text of `T` is complete.
pub(crate) fn trace<'de, T: Deserialize<'de>>() -> Result<String> {
    let mut st = State {
        root: type_name::<T>(),
        ..State::default()
    };
    let mut passes = 0u32;
    loop {
        passes += 1;
        if passes > MAX_PASSES {
            return Err(st_error(
                &st,
                format_args!("more than {MAX_PASSES} passes; the type is too large to trace"),
            ));
        }
        st.path.clear();
        st.stack.clear();
        st.depth = 0;
        st.ret = None;
        st.variant_ret = None;
        st.last_sampled = None;
        st.aborted = false;
        let before = st.progress;
        let result = T::deserialize(Tracer {
            st: &mut st,
            replay: false,
            seed: None,
        });
        if let Some(e) = st.fatal.take() {
            return Err(e);
        }
        if st.aborted {
            if st.progress == before {
                return Err(st_error(
                    &st,
                    "a recursive enum has no variant that can be built without itself, \
                     or a recursive struct has no finite value",
                ));
            }
            continue;
        }
        match result {
            Ok(_) => {
                match st.ret.take() {
                    Some(t) if t.complete => return Ok(t.s),
                    Some(_) => {}
                    None => {
                        return Err(st_error(
                            &st,
                            "its Deserialize impl did not call the deserializer",
                        ))
                    }
                }
                if st.progress == before {
                    return Err(st_error(&st, "tracing makes no progress"));
                }
            }
            Err(e) => {
                // The type's own code rejected a sample value: try the next
                // sample at the last place one was offered.
                let bumped = match st.last_sampled.take() {
                    Some((path, count)) => {
                        let s = st.samples.entry(path).or_insert(0);
                        if (*s as u32) + 1 < count as u32 {
                            *s += 1;
                            true
                        } else {
                            false
                        }
                    }
                    None => false,
                };
                if !bumped {
                    return Err(st_error(
                        &st,
                        format_args!(
                            "its Deserialize rejected every sample value the tracer offers \
                             ({e}); give the text by hand with Schema::from_text or \
                             register_type_text"
                        ),
                    ));
                }
                st.progress += 1;
            }
        }
    }
}

#[cold]
fn st_error(st: &State, msg: impl fmt::Display) -> Error {
    Error::new(
        ErrorCode::Message,
        None,
        format!("cannot trace the type text of `{}`: {msg}", st.root),
    )
}

/// The tracing deserializer.
struct Tracer<'s> {
    st: &'s mut State,
    replay: bool,
    /// The seed type when the caller gave a `PhantomData<T>` seed.
    seed: Option<&'static str>,
}

impl<'s> Tracer<'s> {
    fn node<'de, V: Visitor<'de>>(self, kind: Kind, visitor: V) -> Result<V::Value> {
        let Tracer { st, replay, seed } = self;
        st.nodes += 1;
        if st.nodes > MAX_NODES {
            return Err(st.fatal(format_args!(
                "more than {MAX_NODES} deserialize calls; the type is too large to trace"
            )));
        }
        if st.depth >= MAX_DEPTH {
            return Err(st.fatal(format_args!(
                "nested deeper than {MAX_DEPTH} levels, or recursive with no finite value"
            )));
        }
        st.depth += 1;
        let r = if replay {
            replay_node(st, kind, visitor)
        } else {
            trace_node(st, kind, seed, visitor)
        };
        st.depth -= 1;
        r
    }
}

/// Traces one node and leaves its text in `st.ret`.
fn trace_node<'de, V: Visitor<'de>>(
    st: &mut State,
    kind: Kind,
    seed: Option<&'static str>,
    visitor: V,
) -> Result<V::Value> {
    let key = seed.map(|seed| MemoKey {
        seed,
        stack: st.stack.iter().map(|e| (e.name, e.visitor)).collect(),
    });
    let known = match st.known.get(&st.path) {
        Some(t) => Some(t.clone()),
        None => key.as_ref().and_then(|k| st.memo.get(k).cloned()),
    };
    if let Some(text) = known {
        let v = replay_node(st, kind, visitor)?;
        st.ret = Some(Text::done(text));
        return Ok(v);
    }
    let (v, text) = trace_kind(st, kind, visitor)?;
    if text.complete {
        if !st.known.contains_key(&st.path) {
            st.known.insert(st.path.clone(), text.s.clone());
            st.progress += 1;
        }
        if let Some(k) = key {
            st.memo.entry(k).or_insert_with(|| text.s.clone());
        }
    }
    st.ret = Some(text);
    Ok(v)
}

fn prim_text(kind: Kind) -> &'static str {
    match kind {
        Kind::Bool => "bool",
        Kind::I8 => "i8",
        Kind::I16 => "i16",
        Kind::I32 => "i32",
        Kind::I64 => "i64",
        Kind::I128 => "i128",
        Kind::U8 => "u8",
        Kind::U16 => "u16",
        Kind::U32 => "u32",
        Kind::U64 => "u64",
        Kind::U128 => "u128",
        Kind::F32 => "f32",
        Kind::F64 => "f64",
        Kind::Char => "char",
        Kind::Str => "str",
        Kind::Bytes => "list<u8>",
        _ => "unit",
    }
}

/// Answers a primitive with its current sample value.
fn prim<'de, V: Visitor<'de>>(st: &mut State, kind: Kind, visitor: V) -> Result<V::Value> {
    match kind {
        Kind::Bool => {
            let s = st.sample(2);
            visitor.visit_bool(s == 1)
        }
        Kind::I8 => {
            let s = st.sample(2);
            visitor.visit_i8(i8::from(s == 0))
        }
        Kind::I16 => {
            let s = st.sample(2);
            visitor.visit_i16(i16::from(s == 0))
        }
        Kind::I32 => {
            let s = st.sample(2);
            visitor.visit_i32(i32::from(s == 0))
        }
        Kind::I64 => {
            let s = st.sample(2);
            visitor.visit_i64(i64::from(s == 0))
        }
        Kind::I128 => {
            let s = st.sample(2);
            visitor.visit_i128(i128::from(s == 0))
        }
        Kind::U8 => {
            let s = st.sample(2);
            visitor.visit_u8(u8::from(s == 0))
        }
        Kind::U16 => {
            let s = st.sample(2);
            visitor.visit_u16(u16::from(s == 0))
        }
        Kind::U32 => {
            let s = st.sample(2);
            visitor.visit_u32(u32::from(s == 0))
        }
        Kind::U64 => {
            let s = st.sample(2);
            visitor.visit_u64(u64::from(s == 0))
        }
        Kind::U128 => {
            let s = st.sample(2);
            visitor.visit_u128(u128::from(s == 0))
        }
        Kind::F32 => {
            let s = st.sample(2);
            visitor.visit_f32(if s == 0 { 1.0 } else { 0.0 })
        }
        Kind::F64 => {
            let s = st.sample(2);
            visitor.visit_f64(if s == 0 { 1.0 } else { 0.0 })
        }
        Kind::Char => {
            let s = st.sample(CHAR_SAMPLES.len() as u8);
            visitor.visit_char(CHAR_SAMPLES[usize::from(s) % CHAR_SAMPLES.len()])
        }
        Kind::Str => {
            let s = st.sample(STR_SAMPLES.len() as u8);
            visitor.visit_borrowed_str(STR_SAMPLES[usize::from(s) % STR_SAMPLES.len()])
        }
        Kind::Bytes => {
            let s = st.sample(BYTES_SAMPLES.len() as u8);
            visitor.visit_borrowed_bytes(BYTES_SAMPLES[usize::from(s) % BYTES_SAMPLES.len()])
        }
        _ => visitor.visit_unit(),
    }
}

/// Answers the tensor-directory newtype with an empty directory.
fn tensors<'de, V: Visitor<'de>>(st: &mut State, visitor: V) -> Result<V::Value> {
    match st.sample(3) {
        0 => visitor.visit_borrowed_bytes(&EMPTY_DIRECTORY),
        1 => {
            visitor.visit_newtype_struct(BorrowedBytesDeserializer::<Error>::new(&EMPTY_DIRECTORY))
        }
        _ => visitor.visit_byte_buf(EMPTY_DIRECTORY.to_vec()),
    }
}

/// A child deserializer at `path + [index]`.
fn child<'a>(st: &'a mut State, replay: bool, seed: Option<&'static str>) -> Tracer<'a> {
    st.ret = None;
    Tracer { st, replay, seed }
}

/// The text of a tuple: `()`, `(T)`, `[T;N]` or `(A,B,..)`.
fn tuple_text(parts: &[Text]) -> Text {
    let (inner, complete) = join(parts);
    let s = match parts {
        [] => "()".to_owned(),
        [one] => format!("({})", one.s),
        [first, rest @ ..] if rest.iter().all(|p| p.s == first.s) => {
            format!("[{};{}]", first.s, parts.len())
        }
        _ => format!("({inner})"),
    };
    Text { s, complete }
}

fn fields_text(fields: &[&str], parts: &[Text]) -> (String, bool) {
    let mut s = String::new();
    let mut complete = true;
    for (i, (f, p)) in fields.iter().zip(parts).enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(f);
        s.push(':');
        s.push_str(&p.s);
        complete &= p.complete;
    }
    (s, complete)
}

/// Checks that a struct's visitor read exactly the fields serde named.
fn check_fields(st: &mut State, what: &str, fields: &[&str], read: usize) -> Result<()> {
    if read == fields.len() {
        Ok(())
    } else {
        Err(st.fatal(format_args!(
            "{what} lists {} field names {fields:?} but its Deserialize reads {read} fields; \
             serde includes #[serde(alias)] names in that list, so the names are ambiguous",
            fields.len()
        )))
    }
}

/// Traces one node of a kind; returns the value and the text.
fn trace_kind<'de, V: Visitor<'de>>(
    st: &mut State,
    kind: Kind,
    visitor: V,
) -> Result<(V::Value, Text)> {
    let visitor_ty = type_name::<V>();
    match kind {
        Kind::Unit => Ok((visitor.visit_unit::<Error>()?, Text::done("unit"))),
        Kind::UnitStruct(name) => Ok((
            visitor.visit_unit::<Error>()?,
            Text::done(format!("struct {name}")),
        )),
        Kind::NewtypeStruct(name) if token::is_tensors(name) => {
            Ok((tensors(st, visitor)?, Text::done("tensors")))
        }
        Kind::Option => {
            st.path.push(0);
            let r = visitor.visit_some(child(st, false, None));
            st.path.pop();
            let v = r?;
            let t = st.take_ret("an option's content")?;
            Ok((
                v,
                Text {
                    s: format!("option<{}>", t.s),
                    complete: t.complete,
                },
            ))
        }
        Kind::Seq => {
            let mut acc = Access::new(st, false, 1);
            let r = visitor.visit_seq(&mut acc);
            let texts = acc.texts;
            let v = r?;
            match <[Text; 1]>::try_from(texts) {
                Ok([t]) => Ok((
                    v,
                    Text {
                        s: format!("list<{}>", t.s),
                        complete: t.complete,
                    },
                )),
                Err(_) => Err(st.fatal(format_args!(
                    "a sequence's visitor ({visitor_ty}) read no element, so its element \
                     type is unknown"
                ))),
            }
        }
        Kind::Map => {
            let mut acc = MapAcc {
                st: &mut *st,
                replay: false,
                len: 1,
                done: 0,
                key: None,
                value: None,
            };
            let r = visitor.visit_map(&mut acc);
            let (key, value) = (acc.key, acc.value);
            let v = r?;
            match (key, value) {
                (Some(k), Some(val)) => Ok((
                    v,
                    Text {
                        s: format!("map<{},{}>", k.s, val.s),
                        complete: k.complete && val.complete,
                    },
                )),
                _ => Err(st.fatal(format_args!(
                    "a map's visitor ({visitor_ty}) read no entry, so its key and value types \
                     are unknown"
                ))),
            }
        }
        Kind::Tuple(len) => {
            let mut acc = Access::new(st, false, len);
            let r = visitor.visit_seq(&mut acc);
            let texts = acc.texts;
            let v = r?;
            if texts.len() != len {
                return Err(st.fatal(format_args!(
                    "a tuple of {len} was read as {} elements",
                    texts.len()
                )));
            }
            Ok((v, tuple_text(&texts)))
        }
        Kind::NewtypeStruct(name)
        | Kind::TupleStruct(name, _)
        | Kind::Struct(name, _)
        | Kind::Enum(name, _) => {
            let is_enum = matches!(kind, Kind::Enum(..));
            if st.on_stack(name, visitor_ty, is_enum) {
                // Met inside its own definition: a back-reference. Build the
                // smallest value without descending again.
                let v = replay_node(st, kind, visitor)?;
                return Ok((v, Text::done(format!("@{name}"))));
            }
            if let Kind::Enum(_, variants) = kind {
                return trace_enum(st, name, variants, visitor);
            }
            st.stack.push(Entry {
                name,
                visitor: visitor_ty,
                is_enum: false,
                variant: None,
            });
            let r = trace_struct(st, kind, visitor);
            st.stack.pop();
            r
        }
        _ => Ok((prim(st, kind, visitor)?, Text::done(prim_text(kind)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_directory_sample_is_64_bytes_with_magic() {
        assert_eq!(&EMPTY_DIRECTORY[..4], b"KDIR");
        assert_eq!(
            u16::from_le_bytes([EMPTY_DIRECTORY[4], EMPTY_DIRECTORY[5]]),
            2
        );
        assert_eq!(
            u16::from_le_bytes([EMPTY_DIRECTORY[6], EMPTY_DIRECTORY[7]]),
            1
        );
        assert!(EMPTY_DIRECTORY[8..].iter().all(|&b| b == 0));
    }
}
