//! The per-type cache of type texts and hashes.
//!
//! Tracing a type runs its `Deserialize` several times, so it is done once
//! per type and kept in a global map keyed by the type's id. The id is the
//! `TypeId` of the type with its lifetimes erased (`typeid::of`), so a type
//! that borrows from the input (`Msg<'a>`) has an entry too, shared by every
//! `'a`: its text does not depend on the lifetime. A per-thread last hit,
//! keyed by a per-type function address ([`key_of`]), answers repeated
//! lookups of one type without the lock.

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use serde::Deserialize;

use super::fnv::hash_text;
use super::trace::trace;
use crate::error::{Error, ErrorCode, Result};

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
pub fn type_text<'de, T: Deserialize<'de>>() -> Result<String> {
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
pub fn hash<'de, T: Deserialize<'de>>() -> Result<u64> {
    // A per-thread last hit (no lock, no hashing, no Arc), checked
    // against a generation bumped by register_type_text; then the map,
    // copying the u64 out without cloning the Arc.
    let key = key_of::<T>();
    let gen = GENERATION.load(Ordering::Acquire);
    let (k, h, g) = LAST.with(Cell::get);
    if k == key && g == gen {
        return Ok(h);
    }
    hash_slow::<T>(key, gen)
}

/// [`hash`] past the per-thread last hit: out of line, so the hit path is
/// a few instructions inlined into the caller (no register saves).
#[cold]
#[inline(never)]
fn hash_slow<'de, T: Deserialize<'de>>(key: usize, gen: u64) -> Result<u64> {
    let hit = match cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id_of::<T>())
    {
        Some(Cached::Ok(_, h)) => Some(*h),
        _ => None,
    };
    let h = match hit {
        Some(h) => h,
        None => cached::<T>()?.1,
    };
    LAST.with(|c| c.set((key, h, gen)));
    Ok(h)
}

/// The key of [`LAST`]: the address of `id_of::<T>`, a constant in the
/// caller where `typeid::of::<T>()` is 128 bits to compare.
///
/// Equal keys mean equal ids: one address is one body, and `id_of::<T>`
/// returns `T`'s id, so two types share an address only if they share an
/// id (a linker may fold identical bodies, never different ones). A type
/// with two copies of `id_of` (one per crate that uses it) has two keys;
/// that costs a map lookup when they alternate, never a wrong hash. No
/// key is 0, which marks an empty [`LAST`].
#[inline]
fn key_of<T: ?Sized>() -> usize {
    id_of::<T> as fn() -> TypeId as usize
}

/// `T`'s lifetime-erased id: called only when the map is read; its
/// address is [`key_of`].
#[inline(never)]
fn id_of<T: ?Sized>() -> TypeId {
    typeid::of::<T>()
}

thread_local! {
    /// The last (key, hash, generation) this thread looked up. `const`, of
    /// a type without `Drop`: the hit path reads it with no lazy-state test
    /// (callgrind, a 32-byte message, LTO / no LTO, keyed by `TypeId` in a
    /// lazy thread-local before: `framed::to_extend` 42.5 / 44.5 -> 36.5 /
    /// 37.5 instructions, `framed::to_vec` 176.1 / 190.1 -> 169.1 / 183.1,
    /// `framed::from_slice` 73.0 / 75.0 -> 63.6 / 67.1).
    static LAST: Cell<(usize, u64, u64)> = const { Cell::new((0, 0, 0)) };
}
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
pub fn register_type_text<T: ?Sized>(text: impl Into<String>) {
    let text: Arc<str> = Arc::from(text.into());
    let h = hash_text(&text);
    cache()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(typeid::of::<T>(), Cached::Ok(text, h));
    GENERATION.fetch_add(1, Ordering::Release);
}

/// A cache entry: the text and hash, or why tracing failed (kept, so a
/// type that cannot be traced is not traced again).
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
pub(crate) fn cached<'de, T: Deserialize<'de>>() -> Result<(Arc<str>, u64)> {
    let id = typeid::of::<T>();
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

#[cfg(test)]
mod tests {
    use super::key_of;

    /// What the per-thread hit relies on, seen directly (a lookup gives
    /// the right hash on a miss too, so `tests/schema.rs` cannot tell a
    /// hit from a miss): a key per type, one for every lifetime of a type
    /// that borrows, never 0 (the empty slot).
    #[test]
    fn keys_are_per_type_and_blind_to_lifetimes() {
        struct A;
        struct B;
        struct R<'a>(#[allow(dead_code)] &'a str);
        fn borrowed<'a>(_: &'a str) -> usize {
            key_of::<R<'a>>()
        }
        assert_ne!(key_of::<A>(), key_of::<B>());
        assert_ne!(key_of::<A>(), key_of::<R<'static>>());
        assert_eq!(
            borrowed(&String::from("short-lived")),
            key_of::<R<'static>>()
        );
        assert_ne!(key_of::<A>(), 0);
    }
}
