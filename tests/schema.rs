//! The canonical type text (spec section 4) of every serde shape, and its hash.
#![recursion_limit = "512"]
// The test types are only traced, never read.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU32;

use kiln_serde::schema::{self, fnv1a64, hash, hash_text, register_type_text, type_text};
use kiln_serde::{ErrorCode, Schema};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

fn text<T: serde::de::DeserializeOwned + 'static>() -> String {
    match type_text::<T>() {
        Ok(t) => t,
        Err(e) => panic!("{}: {e}", std::any::type_name::<T>()),
    }
}

fn fails<T: serde::de::DeserializeOwned + 'static>() -> kiln_serde::Error {
    match type_text::<T>() {
        Ok(t) => panic!("{} traced as {t}", std::any::type_name::<T>()),
        Err(e) => e,
    }
}

#[test]
fn fnv1a64_check_values() {
    assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
    assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    assert_eq!(hash_text("struct Point{x:i32,y:i32}"), 0x5e8fcc49ab06d825);
    assert_eq!(hash_text("tensors"), 0x91b48d411a259b35);
    const H: u64 = fnv1a64(b"a");
    assert_eq!(H, 0xaf63dc4c8601ec8c);
}

#[test]
fn primitives() {
    assert_eq!(text::<bool>(), "bool");
    assert_eq!(text::<i8>(), "i8");
    assert_eq!(text::<i16>(), "i16");
    assert_eq!(text::<i32>(), "i32");
    assert_eq!(text::<i64>(), "i64");
    assert_eq!(text::<i128>(), "i128");
    assert_eq!(text::<u8>(), "u8");
    assert_eq!(text::<u16>(), "u16");
    assert_eq!(text::<u32>(), "u32");
    assert_eq!(text::<u64>(), "u64");
    assert_eq!(text::<u128>(), "u128");
    assert_eq!(text::<f32>(), "f32");
    assert_eq!(text::<f64>(), "f64");
    assert_eq!(text::<char>(), "char");
    assert_eq!(text::<String>(), "str");
    assert_eq!(text::<Box<str>>(), "str");
    assert_eq!(text::<()>(), "unit");
}

#[test]
fn bytes_are_list_of_u8() {
    assert_eq!(text::<serde_bytes::ByteBuf>(), "list<u8>");
    assert_eq!(text::<Vec<u8>>(), "list<u8>");
    #[derive(Deserialize)]
    struct Blob {
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    }
    assert_eq!(text::<Blob>(), "struct Blob{data:list<u8>}");
}

#[test]
fn containers() {
    assert_eq!(text::<Option<u8>>(), "option<u8>");
    assert_eq!(text::<Vec<u16>>(), "list<u16>");
    assert_eq!(text::<VecDeque<u16>>(), "list<u16>");
    assert_eq!(text::<HashSet<String>>(), "list<str>");
    assert_eq!(text::<BTreeSet<i64>>(), "list<i64>");
    assert_eq!(text::<Box<[u32]>>(), "list<u32>");
    assert_eq!(text::<HashMap<String, u32>>(), "map<str,u32>");
    assert_eq!(text::<BTreeMap<u8, Vec<bool>>>(), "map<u8,list<bool>>");
    assert_eq!(
        text::<Option<Vec<Option<String>>>>(),
        "option<list<option<str>>>"
    );
    assert_eq!(text::<Box<u8>>(), "u8");
}

#[test]
fn tuples_and_arrays() {
    assert_eq!(text::<(u8,)>(), "(u8)");
    assert_eq!(text::<(u8, u16)>(), "(u8,u16)");
    assert_eq!(text::<(u8, u8)>(), "[u8;2]");
    assert_eq!(text::<(u8, u8, u16)>(), "(u8,u8,u16)");
    assert_eq!(text::<[f32; 3]>(), "[f32;3]");
    assert_eq!(text::<[f32; 1]>(), "(f32)");
    assert_eq!(text::<[f32; 0]>(), "()");
    assert_eq!(text::<[[u8; 2]; 4]>(), "[[u8;2];4]");
    assert_eq!(text::<(String, (u8,))>(), "(str,(u8))");
}

#[derive(Deserialize)]
struct Unit;

#[derive(Deserialize)]
struct Newtype(u32);

#[derive(Deserialize)]
struct Pair(u8, String);

#[derive(Deserialize)]
struct Same(u8, u8);

#[derive(Deserialize)]
struct Empty {}

#[derive(Deserialize)]
struct EmptyTuple();

#[derive(Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[test]
fn structs() {
    assert_eq!(text::<Unit>(), "struct Unit");
    assert_eq!(text::<Newtype>(), "struct Newtype(u32)");
    assert_eq!(text::<Pair>(), "struct Pair(u8,str)");
    assert_eq!(text::<Same>(), "struct Same(u8,u8)");
    assert_eq!(text::<Empty>(), "struct Empty{}");
    assert_eq!(text::<EmptyTuple>(), "struct EmptyTuple()");
    assert_eq!(text::<Point>(), "struct Point{x:i32,y:i32}");
    assert_eq!(text::<PhantomData<u8>>(), "struct PhantomData");
    assert_eq!(
        text::<std::time::Duration>(),
        "struct Duration{secs:u64,nanos:u32}"
    );
}

#[test]
fn point_hash_matches_the_spec_and_field_order_matters() {
    assert_eq!(hash::<Point>().unwrap(), 0x5e8fcc49ab06d825);

    #[derive(Deserialize)]
    #[serde(rename = "Point")]
    struct Reordered {
        y: i32,
        x: i32,
    }
    assert_eq!(text::<Reordered>(), "struct Point{y:i32,x:i32}");
    assert_ne!(hash::<Reordered>().unwrap(), hash::<Point>().unwrap());
}

#[derive(Deserialize)]
enum Shape {
    Empty,
    Circle(f64),
    Line(f64, f64),
    Rect { w: u32, h: u32 },
    Tagged(Point),
    Nothing {},
    Zero(),
}

#[test]
fn enums_with_every_variant_kind() {
    assert_eq!(
        text::<Shape>(),
        "enum Shape{Empty,Circle(f64),Line(f64,f64),Rect{w:u32,h:u32},\
         Tagged(struct Point{x:i32,y:i32}),Nothing{},Zero()}"
    );
    #[derive(Deserialize)]
    enum One {
        Only,
    }
    assert_eq!(text::<One>(), "enum One{Only}");
    #[derive(Deserialize)]
    enum Tup {
        T((u8, u16)),
    }
    assert_eq!(text::<Tup>(), "enum Tup{T((u8,u16))}");
}

#[test]
fn renames_use_the_serde_names() {
    #[derive(Deserialize)]
    #[serde(rename = "P2")]
    struct Renamed {
        #[serde(rename = "xx")]
        x: u8,
        #[serde(rename = "kind")]
        k: Kind,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        FirstOne,
        #[serde(rename = "second")]
        Second(u8),
    }
    assert_eq!(
        text::<Renamed>(),
        "struct P2{xx:u8,kind:enum Kind{first_one,second(u8)}}"
    );
}

#[test]
fn skipped_fields_are_not_in_the_text() {
    #[derive(Deserialize)]
    struct S {
        a: u8,
        #[serde(skip)]
        _b: u32,
        c: u16,
    }
    assert_eq!(text::<S>(), "struct S{a:u8,c:u16}");
}

#[derive(Deserialize)]
enum Inner {
    A,
    B(u8),
    C { s: String },
}

#[derive(Deserialize)]
enum Outer {
    X(Inner),
    Y { i: Inner, j: Option<Inner> },
    Z(Vec<Inner>, u8),
}

#[test]
fn nested_enums_are_written_in_full_everywhere() {
    let inner = "enum Inner{A,B(u8),C{s:str}}";
    assert_eq!(text::<Inner>(), inner);
    assert_eq!(
        text::<Outer>(),
        format!("enum Outer{{X({inner}),Y{{i:{inner},j:option<{inner}>}},Z(list<{inner}>,u8)}}")
    );
    assert_eq!(
        text::<[Inner; 3]>(),
        format!("[{inner};3]"),
        "array of enums"
    );
    assert_eq!(
        text::<(Inner, Outer)>(),
        format!("({inner},{})", text::<Outer>())
    );
    assert_eq!(
        text::<BTreeMap<String, Outer>>(),
        format!("map<str,{}>", text::<Outer>())
    );
}

#[test]
fn deeply_nested_enums_trace_quickly() {
    #[derive(Deserialize)]
    enum E1 {
        A(u8),
        B(u16),
        C(u32),
        D(u64),
        E(i8),
        F(i16),
        G(i32),
        H(i64),
    }
    #[derive(Deserialize)]
    enum E2 {
        A(E1),
        B(E1),
        C(E1),
        D(E1),
        E(E1),
        F(E1),
        G(E1),
        H(E1),
    }
    #[derive(Deserialize)]
    enum E3 {
        A(E2),
        B(E2),
        C(E2),
        D(E2),
        E(E2),
        F(E2),
        G(E2),
        H(E2),
    }
    #[derive(Deserialize)]
    struct Top {
        a: E3,
        b: Vec<E3>,
        c: [E3; 8],
    }
    let t = text::<Top>();
    let e1 = "enum E1{A(u8),B(u16),C(u32),D(u64),E(i8),F(i16),G(i32),H(i64)}";
    assert!(t.contains(e1));
    assert_eq!(t.matches("enum E1{").count(), 3 * 8 * 8);
}

#[derive(Deserialize)]
struct Wrapper<T> {
    inner: T,
}

#[test]
fn generics_are_resolved() {
    assert_eq!(text::<Wrapper<u8>>(), "struct Wrapper{inner:u8}");
    assert_eq!(text::<Wrapper<u16>>(), "struct Wrapper{inner:u16}");
    assert_ne!(
        hash::<Wrapper<u8>>().unwrap(),
        hash::<Wrapper<u16>>().unwrap()
    );
    // A different type with the same serde name is not a back-reference.
    assert_eq!(
        text::<Wrapper<Wrapper<u8>>>(),
        "struct Wrapper{inner:struct Wrapper{inner:u8}}"
    );
    assert_ne!(
        hash::<Wrapper<Wrapper<u8>>>().unwrap(),
        hash::<Wrapper<Wrapper<u16>>>().unwrap()
    );
}

#[derive(Deserialize)]
struct Tree {
    kids: Vec<Tree>,
}

#[derive(Deserialize)]
struct Node {
    value: u8,
    next: Option<Box<Node>>,
}

#[derive(Deserialize)]
enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}

#[derive(Deserialize)]
enum List {
    Cons(i32, Box<List>),
    Nil,
}

#[derive(Deserialize)]
enum Json {
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
    Null,
    Num { v: f64 },
}

#[test]
fn recursive_types_use_back_references() {
    assert_eq!(text::<Tree>(), "struct Tree{kids:list<@Tree>}");
    assert_eq!(text::<Node>(), "struct Node{value:u8,next:option<@Node>}");
    assert_eq!(
        text::<Expr>(),
        "enum Expr{Num(i64),Add(@Expr,@Expr),Neg(@Expr)}"
    );
    assert_eq!(text::<List>(), "enum List{Cons(i32,@List),Nil}");
    assert_eq!(
        text::<Json>(),
        "enum Json{Arr(list<@Json>),Obj(map<str,@Json>),Null,Num{v:f64}}"
    );
    // Outside its own definition a recursive type is written in full.
    assert_eq!(text::<Vec<Tree>>(), "list<struct Tree{kids:list<@Tree>}>");
    assert_eq!(text::<(List, List)>(), "[enum List{Cons(i32,@List),Nil};2]");
}

#[derive(Deserialize)]
struct A {
    name: String,
    b: Option<Box<B>>,
}

#[derive(Deserialize)]
struct B {
    list: Vec<A>,
}

#[derive(Deserialize)]
struct S {
    e: Box<E>,
}

#[derive(Deserialize)]
enum E {
    Leaf,
    Node(S, S),
}

#[test]
fn mutually_recursive_types() {
    assert_eq!(
        text::<A>(),
        "struct A{name:str,b:option<struct B{list:list<@A>}>}"
    );
    assert_eq!(
        text::<B>(),
        "struct B{list:list<struct A{name:str,b:option<@B>}>}"
    );
    assert_eq!(text::<S>(), "struct S{e:enum E{Leaf,Node(@S,@S)}}");
    assert_eq!(
        text::<E>(),
        "enum E{Leaf,Node(struct S{e:@E},struct S{e:@E})}"
    );
}

#[test]
fn recursive_enum_whose_first_variants_need_themselves() {
    #[derive(Deserialize)]
    enum R {
        Pair(Box<R>, Box<R>),
        Wrap { r: Box<R> },
        Some(Option<Box<R>>),
        End(u8),
    }
    assert_eq!(
        text::<R>(),
        "enum R{Pair(@R,@R),Wrap{r:@R},Some(option<@R>),End(u8)}"
    );
}

#[test]
fn values_the_type_rejects_are_retried() {
    assert_eq!(text::<NonZeroU32>(), "u32");
    assert_eq!(text::<Option<std::num::NonZeroU8>>(), "option<u8>");

    #[derive(Deserialize)]
    #[serde(try_from = "u32")]
    struct Positive(u32);
    impl TryFrom<u32> for Positive {
        type Error = &'static str;
        fn try_from(v: u32) -> Result<Self, Self::Error> {
            if v == 0 {
                Err("zero")
            } else {
                Ok(Positive(v))
            }
        }
    }
    assert_eq!(text::<Positive>(), "u32");

    #[derive(Deserialize)]
    #[serde(try_from = "u32")]
    struct NotOne(u32);
    impl TryFrom<u32> for NotOne {
        type Error = &'static str;
        fn try_from(v: u32) -> Result<Self, Self::Error> {
            if v == 1 {
                Err("one")
            } else {
                Ok(NotOne(v))
            }
        }
    }
    assert_eq!(text::<NotOne>(), "u32");

    #[derive(Deserialize)]
    #[serde(try_from = "String")]
    struct NonEmpty(String);
    impl TryFrom<String> for NonEmpty {
        type Error = &'static str;
        fn try_from(v: String) -> Result<Self, Self::Error> {
            if v.is_empty() {
                Err("empty")
            } else {
                Ok(NonEmpty(v))
            }
        }
    }
    #[derive(Deserialize)]
    struct Rec {
        a: NonEmpty,
        b: Positive,
        n: NonZeroU32,
        more: Option<Box<Rec>>,
    }
    assert_eq!(
        text::<Rec>(),
        "struct Rec{a:str,b:u32,n:u32,more:option<@Rec>}"
    );
}

#[test]
fn a_type_that_rejects_everything_is_an_error() {
    #[derive(Debug)]
    struct Never;
    impl<'de> Deserialize<'de> for Never {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            u32::deserialize(d)?;
            Err(de::Error::custom("never"))
        }
    }
    let e = fails::<Never>();
    assert_eq!(e.code(), ErrorCode::Message);
    assert!(e.message().contains("never"), "{e}");
    assert!(e.message().contains("by hand"), "{e}");
    // The failure is cached and stays the same.
    assert_eq!(fails::<Never>().message(), e.message());
}

#[test]
fn borrowed_fields() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        #[serde(borrow)]
        name: &'a str,
        #[serde(borrow, with = "serde_bytes")]
        raw: &'a [u8],
        owned: String,
        cow: std::borrow::Cow<'a, str>,
    }
    assert_eq!(
        type_text::<Borrowed<'_>>().unwrap(),
        "struct Borrowed{name:str,raw:list<u8>,owned:str,cow:str}"
    );
    let schema = Schema::<Borrowed<'_>>::new().unwrap();
    assert_eq!(schema.hash(), hash_text(schema.text()));
    assert_eq!(hash::<Borrowed<'_>>().unwrap(), schema.hash());
    assert_eq!(type_text::<&str>().unwrap(), "str");
    assert_eq!(type_text::<&[u8]>().unwrap(), "list<u8>");
}

/// A local stand-in for the tensor directory type.
struct Dir(Vec<u8>);

impl<'de> Deserialize<'de> for Dir {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Dir;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tensor directory")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Dir, E> {
                if v.get(..4) == Some(b"KDIR") {
                    Ok(Dir(v.to_vec()))
                } else {
                    Err(E::custom("not a directory"))
                }
            }
        }
        d.deserialize_newtype_struct("$kiln_serde::Tensors", V)
    }
}

#[test]
fn tensors_token() {
    assert_eq!(text::<Dir>(), "tensors");
    assert_eq!(hash::<Dir>().unwrap(), 0x91b48d411a259b35);
    #[derive(Deserialize)]
    struct Model {
        name: String,
        weights: Dir,
        step: u64,
    }
    assert_eq!(
        text::<Model>(),
        "struct Model{name:str,weights:tensors,step:u64}"
    );
}

#[test]
fn unsupported_shapes_are_clear_errors() {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Untagged {
        _A(u8),
        _B(String),
    }
    let e = fails::<Untagged>();
    assert_eq!(e.code(), ErrorCode::Message);
    assert!(e.message().contains("deserialize_any"), "{e}");

    #[derive(Deserialize)]
    struct Flat {
        #[serde(flatten)]
        _p: BTreeMap<String, u8>,
    }
    assert!(fails::<Flat>().message().contains("deserialize_any"));

    #[derive(Deserialize)]
    #[serde(tag = "t")]
    enum Internal {
        _A { x: u8 },
    }
    assert!(fails::<Internal>().message().contains("deserialize_any"));

    assert!(fails::<serde_json::Value>()
        .message()
        .contains("deserialize_any"));

    #[derive(Deserialize)]
    struct Aliased {
        #[serde(alias = "a")]
        _zed: u8,
    }
    assert!(fails::<Aliased>().message().contains("alias"));

    #[derive(Deserialize)]
    enum AliasedVariant {
        #[serde(alias = "x")]
        _Y,
        _Z,
    }
    assert!(fails::<AliasedVariant>().message().contains("alias"));

    #[derive(Deserialize)]
    enum Void {}
    assert!(fails::<Void>().message().contains("no variants"));
}

#[test]
fn infinite_and_too_deep_types_are_errors() {
    #[derive(Deserialize)]
    struct Infinite {
        _me: Box<Infinite>,
    }
    let e = fails::<Infinite>();
    assert_eq!(e.code(), ErrorCode::Message);

    #[derive(Deserialize)]
    enum NoBase {
        _A(Box<NoBase>),
        _B(Box<NoBase>, u8),
    }
    let e = fails::<NoBase>();
    assert!(e.message().contains("recursive"), "{e}");

    type D4<T> = Option<Option<Option<Option<T>>>>;
    type D16<T> = D4<D4<D4<D4<T>>>>;
    type D64<T> = D16<D16<D16<D16<T>>>>;
    assert!(type_text::<D64<u8>>().is_ok());
    let e = fails::<D64<D64<u8>>>();
    assert!(e.message().contains("deeper"), "{e}");
}

#[test]
fn texts_by_hand() {
    struct Opaque;
    register_type_text::<Opaque>("struct Opaque{v:u32}");
    #[derive(Deserialize)]
    struct Registered;
    register_type_text::<Registered>("struct Other");
    assert_eq!(text::<Registered>(), "struct Other");
    assert_eq!(hash::<Registered>().unwrap(), hash_text("struct Other"));

    let s = Schema::<Point>::from_text("struct Point{x:i32,y:i32}");
    assert_eq!(s.hash(), 0x5e8fcc49ab06d825);
    let traced = Schema::<Point>::new().unwrap();
    assert_eq!(traced.text(), s.text());
    let copy = traced.clone();
    assert_eq!(copy.hash(), traced.hash());
    assert!(format!("{copy:?}").contains("0x5e8fcc49ab06d825"));
}

/// The per-thread last-hit cache of `hash` yields to a later registration,
/// on this thread and on another.
#[test]
fn registering_after_a_lookup_changes_the_hash() {
    #[derive(Deserialize)]
    struct Late(#[allow(dead_code)] u8);
    let traced = hash::<Late>().unwrap();
    assert_eq!(traced, hash_text("struct Late(u8)"));
    assert_eq!(
        hash::<Late>().unwrap(),
        traced,
        "a second lookup hits the cache"
    );
    register_type_text::<Late>("u8");
    assert_eq!(hash::<Late>().unwrap(), hash_text("u8"));
    assert_eq!(
        std::thread::spawn(|| hash::<Late>().unwrap())
            .join()
            .unwrap(),
        hash_text("u8")
    );
}

#[test]
fn the_per_thread_hit_and_the_global_map_agree() {
    // This thread traces (or finds) the type; a new thread has an empty
    // per-thread last hit and reads the global map.
    let here = hash::<Outer>().unwrap();
    let there = std::thread::spawn(|| hash::<Outer>().unwrap())
        .join()
        .unwrap();
    assert_eq!(here, there);
    assert_eq!(here, hash_text(&type_text::<Outer>().unwrap()));
    assert_eq!(here, schema::hash::<Outer>().unwrap());
}

/// The per-thread last hit is keyed per type: lookups of different types
/// in turn on one thread each give their own hash, and a type that
/// borrows has one hash over its lifetimes. (A miss gives the right hash
/// too; that the key is shared is `schema::cache`'s unit test.)
#[test]
fn alternating_types_on_one_thread_keep_their_hashes() {
    #[derive(Deserialize)]
    struct Ta(#[allow(dead_code)] u8);
    #[derive(Deserialize)]
    struct Tb(#[allow(dead_code)] u8);
    #[derive(Deserialize)]
    struct Tr<'a>(#[allow(dead_code)] &'a str);
    fn borrowed<'a>(_: &'a str) -> u64 {
        hash::<Tr<'a>>().unwrap()
    }
    let a = hash_text("struct Ta(u8)");
    let b = hash_text("struct Tb(u8)");
    let r = hash_text("struct Tr(str)");
    std::thread::spawn(move || {
        for _ in 0..3 {
            assert_eq!(hash::<Ta>().unwrap(), a);
            assert_eq!(hash::<Ta>().unwrap(), a, "again");
            assert_eq!(hash::<Tb>().unwrap(), b);
            assert_eq!(hash::<Tr<'static>>().unwrap(), r);
            assert_eq!(borrowed(&String::from("short-lived")), r);
            assert_eq!(hash::<u32>().unwrap(), hash_text("u32"));
        }
    })
    .join()
    .unwrap();
}
