//! The canonical type text of a Rust type and its FNV-1a 64 hash (spec
//! sections 3 and 4).
//!
//! The type text says what the bytes of a Frozen value mean, so two types with
//! the same text have the same wire. It is computed from the type's own
//! `Deserialize` impl, with no value and no derive macro: a tracing
//! deserializer answers every `deserialize_*` call with a small sample value
//! and writes down what was asked for. The names are the serde names, so
//! `#[serde(rename)]` shows up in the text.
//!
//! | Rust type | type text |
//! |---|---|
//! | `bool`, `i8` .. `i128`, `u8` .. `u128`, `f32`, `f64`, `char` | `bool`, `i8`, .., `char` |
//! | `String`, `&str`, `Box<str>`, `Cow<str>` | `str` |
//! | `()` | `unit` |
//! | `Option<T>` | `option<T>` |
//! | `Vec<T>`, `VecDeque<T>`, `HashSet<T>`, `BTreeSet<T>`, `Box<[T]>` | `list<T>` |
//! | `Vec<u8>`, `serde_bytes::ByteBuf`, `&[u8]` with `serde_bytes` | `list<u8>` (bytes and a list of u8 have the same wire) |
//! | `HashMap<K, V>`, `BTreeMap<K, V>` | `map<K,V>` |
//! | `(A,)` | `(A)` |
//! | `(A, B)` | `(A,B)` |
//! | `(T, T, T)`, `[T; 3]` | `[T;3]` (two or more equal element texts) |
//! | `[T; 0]` | `()` |
//! | `struct U;` | `struct U` |
//! | `struct N(T);` | `struct N(T)` |
//! | `struct P(A, B);` | `struct P(A,B)` |
//! | `struct Z();`, `struct Z {}` | `struct Z()`, `struct Z{}` |
//! | `struct S { a: A, b: B }` | `struct S{a:A,b:B}` |
//! | `enum E { A, B(T), C(T, U), D { x: T } }` | `enum E{A,B(T),C(T,U),D{x:T}}` |
//! | `Box<T>`, `Rc<T>`, `Arc<T>`, `#[serde(transparent)]` wrappers | the text of `T` |
//! | `PhantomData<T>` | `struct PhantomData` |
//! | `std::time::Duration` | `struct Duration{secs:u64,nanos:u32}` |
//! | a tensor directory (the [`TENSORS_TOKEN`] newtype) | `tensors` |
//! | a struct or enum inside its own definition | `@NAME` |
//!
//! For example `struct Tree { kids: Vec<Tree> }` is `struct Tree{kids:list<@Tree>}`,
//! and with `struct A { b: Option<Box<B>> }` and `struct B { a: Vec<A> }` the
//! text of `A` is `struct A{b:option<struct B{a:list<@A>}>}`.
//!
//! A struct or enum counts as "inside its own definition" when an enclosing
//! struct or enum has the same serde name *and* the same Rust visitor type
//! (`std::any::type_name`), so a different type that shares the name, as in
//! `Wrapper<Wrapper<u8>>`, is written in full:
//! `struct Wrapper{inner:struct Wrapper{inner:u8}}`.
//!
//! The grammar of spec section 4 has no empty tuple; a zero-length tuple
//! (`[T; 0]`), tuple struct or tuple variant is written with empty
//! parentheses: `()`, `struct Z()`, `V()`.
//!
//! # What the hash protects, and what it does not
//!
//! A frame carries the FNV-1a 64 hash of the writer's type text, and a reader
//! compares it with the hash of its own type before reading the first field.
//! That catches a struct whose fields were reordered, renamed, added, removed
//! or retyped, an enum whose variants changed, and a buffer handed to the wrong
//! type: the reader stops with SCHEMA instead of decoding garbage. It is a
//! check, not a migration: there is no schema evolution, no default for a new
//! field, no way to read an old layout into a new type. Equal texts mean equal
//! wire, not equal meaning: two unrelated types with the same names and shapes
//! share a hash, field *values* are never checked, and FNV-1a is not a
//! cryptographic hash, so it does not stand against a forger. A frame without
//! a hash is only checked when the reader asks for it (`require_hash`).
//!
//! # Cost
//!
//! Tracing drives the type's `Deserialize` several times (once per enum
//! variant, roughly), so it is done once per type: [`type_text`] and [`hash`]
//! keep a global cache keyed by [`TypeId`], and [`Schema`] is a handle that a
//! caller keeps for types that borrow (`Foo<'de>` has no `TypeId`).
//!
//! # When tracing fails
//!
//! Tracing needs a value of every field type. Integers are offered as 1 then
//! 0, strings as `"a"`, `""` then `"0"`, lists empty or with one element, so
//! `NonZeroU32` and most `#[serde(try_from)]` types work. Tracing fails with
//! [`ErrorCode::Message`] for: a `Deserialize` that rejects every sample value;
//! `deserialize_any` (`#[serde(untagged)]`, `#[serde(flatten)]`, internally
//! tagged enums, `serde_json::Value`), which Kiln cannot decode either; serde
//! aliases (they make serde's list of field or variant names longer than the
//! fields read, so the names are ambiguous); an enum with no variants; a type
//! nested deeper than 128 levels or recursive without a finite value (`struct
//! S { s: Box<S> }`). For such a type, write the text by hand:
//! [`Schema::from_text`] or [`register_type_text`].
//!
//! [`TENSORS_TOKEN`]: crate::tensors::TENSORS_TOKEN

use std::any::{type_name, TypeId};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use serde::de::value::{BorrowedBytesDeserializer, U32Deserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::Deserialize;

use crate::error::{Error, ErrorCode, Result};
use crate::tensors::TENSORS_TOKEN;

/// FNV-1a 64 offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64 prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Nesting depth past which tracing gives up (the default `max_depth`).
const MAX_DEPTH: u32 = 128;
/// Passes over the type past which tracing gives up.
const MAX_PASSES: u32 = 65_536;
/// Total `deserialize_*` calls past which tracing gives up.
const MAX_NODES: u64 = 4_000_000;

/// The FNV-1a 64 hash of `bytes` (spec section 3).
///
/// # Examples
///
/// ```
/// use kiln_serde::schema::fnv1a64;
/// assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
/// assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
/// ```
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    h
}

/// The hash of a type text: [`fnv1a64`] of its UTF-8 bytes.
///
/// # Examples
///
/// ```
/// use kiln_serde::schema::hash_text;
/// assert_eq!(hash_text("struct Point{x:i32,y:i32}"), 0x5e8fcc49ab06d825);
/// assert_eq!(hash_text("tensors"), 0x91b48d411a259b35);
/// ```
pub const fn hash_text(text: &str) -> u64 {
    fnv1a64(text.as_bytes())
}

/// The canonical type text of `T` (spec section 4), cached per type.
///
/// The first call for a type traces it; later calls copy the cached text.
///
/// # Errors
///
/// [`ErrorCode::Message`] when `T` cannot be traced (see the module docs:
/// `deserialize_any`, serde aliases, a `Deserialize` that rejects every
/// sample value, too deep, no finite value). A failure is cached too.
///
/// # Examples
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Point { x: i32, y: i32 }
///
/// let text = kiln_serde::schema::type_text::<Point>().unwrap();
/// assert_eq!(text, "struct Point{x:i32,y:i32}");
/// ```
pub fn type_text<T: DeserializeOwned + 'static>() -> Result<String> {
    cached::<T>().map(|(text, _)| text.to_string())
}

/// The FNV-1a 64 hash of [`type_text`], cached per type.
///
/// # Errors
///
/// As [`type_text`].
///
/// # Examples
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Point { x: i32, y: i32 }
///
/// assert_eq!(kiln_serde::schema::hash::<Point>().unwrap(), 0x5e8fcc49ab06d825);
/// ```
#[inline]
pub fn hash<T: DeserializeOwned + 'static>() -> Result<u64> {
    // A per-thread last hit (no lock, no hashing, no Arc), checked
    // against a generation bumped by register_type_text; then the map,
    // copying the u64 out without cloning the Arc.
    let id = TypeId::of::<T>();
    let gen = GENERATION.load(Ordering::Acquire);
    let (i, h, g) = LAST.with(Cell::get);
    if i == id && g == gen {
        return Ok(h);
    }
    hash_slow::<T>(id, gen)
}

/// [`hash`] past the per-thread last hit: out of line, so the hit path is
/// a few instructions inlined into the caller (no register saves).
#[cold]
#[inline(never)]
fn hash_slow<T: DeserializeOwned + 'static>(id: TypeId, gen: u64) -> Result<u64> {
    let hit = match cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
    {
        Some(Cached::Ok(_, h)) => Some(*h),
        _ => None,
    };
    let h = match hit {
        Some(h) => h,
        None => cached::<T>()?.1,
    };
    LAST.with(|c| c.set((id, h, gen)));
    Ok(h)
}

thread_local! {
    /// Starts as the id of [`NoType`], which `hash` is never called with,
    /// so the hit path has no `Option` tag to test. (Lazy, not `const`:
    /// `TypeId::of` is const only since Rust 1.91, above the MSRV; the
    /// lazy state test costs 2 instructions of the 5 saved.)
    static LAST: Cell<(TypeId, u64, u64)> = Cell::new((TypeId::of::<NoType>(), 0, 0));
}
/// A type without `Deserialize`: never looked up, so its id marks an empty
/// [`LAST`].
struct NoType;
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// `TypeId` is already a hash: no SipHash over it.
#[derive(Default)]
struct TypeIdHasher(u64);
impl std::hash::Hasher for TypeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}
type IdMap = HashMap<TypeId, Cached, std::hash::BuildHasherDefault<TypeIdHasher>>;

/// The canonical type text of a type that may borrow from the input
/// (`Foo<'de>` with `&'de str` fields). Not cached: it traces on every call,
/// so keep the result, or a [`Schema`].
///
/// # Errors
///
/// As [`type_text`].
///
/// # Examples
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Name<'a> { first: &'a str }
///
/// let text = kiln_serde::schema::type_text_de::<Name<'_>>().unwrap();
/// assert_eq!(text, "struct Name{first:str}");
/// ```
pub fn type_text_de<'de, T: Deserialize<'de>>() -> Result<String> {
    trace::<T>()
}

/// The hash of [`type_text_de`]. Not cached.
///
/// # Errors
///
/// As [`type_text`].
pub fn hash_de<'de, T: Deserialize<'de>>() -> Result<u64> {
    trace::<T>().map(|t| hash_text(&t))
}

/// Sets the type text of `T` by hand, for a type that cannot be traced or
/// whose traced text should be overridden. Later [`type_text`] and [`hash`]
/// calls for `T` (and the `framed` functions) use it.
///
/// Call it before the first use of `T`: a frame written before used the old
/// hash. The text is taken as given; write it by the grammar of spec section 4.
///
/// # Examples
///
/// ```
/// struct Opaque;
/// kiln_serde::schema::register_type_text::<Opaque>("struct Opaque{v:u32}");
/// ```
pub fn register_type_text<T: ?Sized + 'static>(text: impl Into<String>) {
    let text: Arc<str> = Arc::from(text.into());
    let h = hash_text(&text);
    cache()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(TypeId::of::<T>(), Cached::Ok(text, h));
    GENERATION.fetch_add(1, Ordering::Release);
}

/// A computed type text and hash for `T`, to keep and reuse.
///
/// This is the handle for types that borrow from the input (no `TypeId`, so
/// no global cache), and the place to give a text by hand. It is cheap to
/// clone and `Send + Sync` whatever `T` is.
///
/// # Examples
///
/// ```
/// use kiln_serde::schema::Schema;
///
/// #[derive(serde::Deserialize)]
/// struct Point { x: i32, y: i32 }
///
/// let schema = Schema::<Point>::new().unwrap();
/// assert_eq!(schema.text(), "struct Point{x:i32,y:i32}");
/// assert_eq!(schema.hash(), 0x5e8fcc49ab06d825);
///
/// let by_hand = Schema::<Point>::from_text("struct Point{x:i32,y:i32}");
/// assert_eq!(by_hand.hash(), schema.hash());
/// ```
pub struct Schema<T> {
    text: Arc<str>,
    hash: u64,
    marker: PhantomData<fn() -> T>,
}

impl<T> Schema<T> {
    /// Traces `T` and keeps its text and hash.
    ///
    /// # Errors
    ///
    /// As [`type_text`].
    pub fn new<'de>() -> Result<Self>
    where
        T: Deserialize<'de>,
    {
        trace::<T>().map(Self::from_text)
    }

    /// A schema with a text given by hand (spec section 4 grammar).
    pub fn from_text(text: impl Into<String>) -> Self {
        let text: Arc<str> = Arc::from(text.into());
        Schema {
            hash: hash_text(&text),
            text,
            marker: PhantomData,
        }
    }

    /// The canonical type text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The FNV-1a 64 hash of the text.
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

impl<T> Clone for Schema<T> {
    fn clone(&self) -> Self {
        Schema {
            text: Arc::clone(&self.text),
            hash: self.hash,
            marker: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Schema<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("text", &self.text)
            .field("hash", &format_args!("{:#018x}", self.hash))
            .finish()
    }
}

// ---------------------------------------------------------------------------
// The global cache.

enum Cached {
    Ok(Arc<str>, u64),
    Err(ErrorCode, String),
}

fn cache() -> &'static RwLock<IdMap> {
    static CACHE: OnceLock<RwLock<IdMap>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(IdMap::default()))
}

fn from_cached(c: &Cached) -> Result<(Arc<str>, u64)> {
    match c {
        Cached::Ok(text, h) => Ok((Arc::clone(text), *h)),
        Cached::Err(code, msg) => Err(Error::new(*code, None, msg.clone())),
    }
}

/// The cached (text, hash) of `T`, tracing it on first use.
pub(crate) fn cached<T: DeserializeOwned + 'static>() -> Result<(Arc<str>, u64)> {
    let id = TypeId::of::<T>();
    if let Some(c) = cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
    {
        return from_cached(c);
    }
    // Trace without holding the lock: the type's own code runs here and may
    // ask for another type's hash.
    let fresh = match trace::<T>() {
        Ok(text) => {
            let h = hash_text(&text);
            Cached::Ok(Arc::from(text), h)
        }
        Err(e) => Cached::Err(e.code(), e.message().to_owned()),
    };
    let mut map = cache().write().unwrap_or_else(PoisonError::into_inner);
    from_cached(map.entry(id).or_insert(fresh))
}

// ---------------------------------------------------------------------------
// The tracer.
//
// One pass drives `T::deserialize` once. Every `deserialize_*` call is a node
// at a path (field, element, key/value, variant indices from the root). In a
// pass a node either *traces* (answers with a sample value and records what
// it is) or *replays* (answers with the smallest value it can build: empty
// lists and maps, `None`, a known-finite enum variant, and records nothing).
//
// An enum yields one variant per pass (serde lets its visitor see one), so
// passes repeat until every variant of every enum is traced. Texts that are
// complete are remembered per path and per (seed type, enclosing stack), and
// replayed afterwards. A struct or enum met inside itself (same serde name,
// same visitor type) is written `@NAME` and its value is replayed; a
// recursive enum replays a variant that was built without itself before
// (a variant that needs itself first is blocked until one exists).
//
// Every pass must make progress (a new text, variant, finite variant, block or
// sample), or tracing stops with an error; passes, nodes and depth are capped.

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
fn trace<'de, T: Deserialize<'de>>() -> Result<String> {
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
        Kind::NewtypeStruct(name) if name == TENSORS_TOKEN => {
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

/// Traces a newtype, tuple or named struct (already on the stack).
fn trace_struct<'de, V: Visitor<'de>>(
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
fn trace_enum<'de, V: Visitor<'de>>(
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
fn replay_node<'de, V: Visitor<'de>>(st: &mut State, kind: Kind, visitor: V) -> Result<V::Value> {
    match kind {
        Kind::Unit | Kind::UnitStruct(_) => visitor.visit_unit(),
        Kind::NewtypeStruct(name) if name == TENSORS_TOKEN => tensors(st, visitor),
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
fn replay_enum<'de, V: Visitor<'de>>(
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

// ---------------------------------------------------------------------------
// Access types.

/// Elements of a seq, tuple or struct; collects the element texts.
struct Access<'a> {
    st: &'a mut State,
    replay: bool,
    len: usize,
    next: usize,
    texts: Vec<Text>,
}

impl<'a> Access<'a> {
    fn new(st: &'a mut State, replay: bool, len: usize) -> Self {
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
struct MapAcc<'a> {
    st: &'a mut State,
    replay: bool,
    len: usize,
    done: usize,
    key: Option<Text>,
    value: Option<Text>,
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
struct EnumAcc<'a> {
    st: &'a mut State,
    index: u32,
    replay: bool,
    enum_name: &'static str,
    variants: &'static [&'static str],
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
struct VarAcc<'a> {
    st: &'a mut State,
    index: u32,
    replay: bool,
    name: &'static str,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_check_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            hash_text("struct Point{x:i32,y:i32}"),
            0x5e8f_cc49_ab06_d825
        );
        assert_eq!(hash_text("tensors"), 0x91b4_8d41_1a25_9b35);
    }

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
