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
//! | a tensor directory ([`Tensors`](crate::Tensors), [`TensorsView`](crate::TensorsView)) | `tensors` |
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
//! keep a global cache keyed by the type's id with its lifetimes erased, so
//! types that borrow from the input (`Msg<'a>`) are cached too. A
//! [`Schema`](crate::Schema) keeps one type's text and hash with the
//! [`Options`](crate::Options) to frame values with.
//!
//! # When tracing fails
//!
//! Tracing needs a value of every field type. Integers are offered as 1 then
//! 0, strings as `"a"`, `""` then `"0"`, lists empty or with one element, so
//! `NonZeroU32` and most `#[serde(try_from)]` types work. Tracing fails with
//! [`ErrorCode::Message`](crate::ErrorCode::Message) for: a `Deserialize` that rejects every sample value;
//! `deserialize_any` (`#[serde(untagged)]`, `#[serde(flatten)]`, internally
//! tagged enums, `serde_json::Value`), which Kiln cannot decode either; serde
//! aliases (they make serde's list of field or variant names longer than the
//! fields read, so the names are ambiguous); an enum with no variants; a type
//! nested deeper than 128 levels or recursive without a finite value (`struct
//! S { s: Box<S> }`). For such a type, write the text by hand:
//! [`Schema::from_text`](crate::Schema::from_text) or [`register_type_text`].

mod cache;
mod fnv;
mod trace;

pub(crate) use cache::cached;
pub use cache::{hash, register_type_text, type_text};
pub use fnv::{fnv1a64, hash_text};
