//! A 90-byte order of 16 fixed-width fields: a message type whose derived
//! `serialize`, in its own module, is too big for ThinLTO to import into
//! its caller (over 100 IR instructions in every format), so without LTO
//! it stays a call, as a user's larger types do. Kiln's and bincode 1.3's
//! default (fixint, little-endian) bytes agree on it. [`Wide`]: the same
//! with 8 more `u64` fields (24, 154 bytes), where a `serialize` that is a
//! call nears LLVM's limit of 100 uses of the serializer's address
//! (`raw/vec_cursor.rs`, `Buf`).

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
pub struct Order {
    pub id: u64,
    pub account: u64,
    pub ts_ns: u64,
    pub client_ref: u64,
    pub parent: u64,
    pub route: u64,
    pub price: f64,
    pub stop: f64,
    pub qty: u32,
    pub shown: u32,
    pub venue: u32,
    pub flags: u32,
    pub side: u16,
    pub kind: u16,
    pub tif: u8,
    pub open: bool,
}

/// `n` orders, every field varying with the index.
pub fn orders(n: u64) -> Vec<Order> {
    (0..n)
        .map(|i| Order {
            id: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            account: 1000 + i % 97,
            ts_ns: 1_767_225_600_000_000_000 + i,
            client_ref: i ^ 0x5555,
            parent: i / 3,
            route: i % 11,
            price: 101.25 + i as f64,
            stop: 99.5,
            qty: 100 + i as u32,
            shown: 10,
            venue: (i % 7) as u32,
            flags: 0b1010,
            side: (i % 2) as u16,
            kind: 3,
            tif: (i % 4) as u8,
            open: i % 3 == 0,
        })
        .collect()
}

/// The 90 bytes of `o`, by hand (spec 2: fixed-width little-endian fields
/// in declaration order, a bool as one byte 0 or 1).
pub fn bytes_of(o: &Order) -> Vec<u8> {
    let mut b = Vec::with_capacity(90);
    for v in [o.id, o.account, o.ts_ns, o.client_ref, o.parent, o.route] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&o.price.to_le_bytes());
    b.extend_from_slice(&o.stop.to_le_bytes());
    for v in [o.qty, o.shown, o.venue, o.flags] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&o.side.to_le_bytes());
    b.extend_from_slice(&o.kind.to_le_bytes());
    b.push(o.tif);
    b.push(u8::from(o.open));
    b
}

/// An [`Order`]'s 16 fields and 8 more `u64`s, flat (24 fields, 154 bytes).
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone, Copy)]
pub struct Wide {
    pub id: u64,
    pub account: u64,
    pub ts_ns: u64,
    pub client_ref: u64,
    pub parent: u64,
    pub route: u64,
    pub price: f64,
    pub stop: f64,
    pub qty: u32,
    pub shown: u32,
    pub venue: u32,
    pub flags: u32,
    pub side: u16,
    pub kind: u16,
    pub tif: u8,
    pub open: bool,
    pub m0: u64,
    pub m1: u64,
    pub m2: u64,
    pub m3: u64,
    pub m4: u64,
    pub m5: u64,
    pub m6: u64,
    pub m7: u64,
}

/// `n` wide orders: [`orders`] with the 8 more fields varying too.
pub fn wides(n: u64) -> Vec<Wide> {
    orders(n)
        .into_iter()
        .zip(0..)
        .map(|(o, i): (Order, u64)| Wide {
            id: o.id,
            account: o.account,
            ts_ns: o.ts_ns,
            client_ref: o.client_ref,
            parent: o.parent,
            route: o.route,
            price: o.price,
            stop: o.stop,
            qty: o.qty,
            shown: o.shown,
            venue: o.venue,
            flags: o.flags,
            side: o.side,
            kind: o.kind,
            tif: o.tif,
            open: o.open,
            m0: i,
            m1: i * 3,
            m2: !i,
            m3: i << 20,
            m4: 7,
            m5: i % 5,
            m6: i ^ 0xff,
            m7: u64::MAX - i,
        })
        .collect()
}

/// The 154 bytes of `w`, by hand: the order's 90, then the 8 `u64`s.
pub fn wide_bytes_of(w: &Wide) -> Vec<u8> {
    let o = Order {
        id: w.id,
        account: w.account,
        ts_ns: w.ts_ns,
        client_ref: w.client_ref,
        parent: w.parent,
        route: w.route,
        price: w.price,
        stop: w.stop,
        qty: w.qty,
        shown: w.shown,
        venue: w.venue,
        flags: w.flags,
        side: w.side,
        kind: w.kind,
        tif: w.tif,
        open: w.open,
    };
    let mut b = bytes_of(&o);
    for v in [w.m0, w.m1, w.m2, w.m3, w.m4, w.m5, w.m6, w.m7] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}
