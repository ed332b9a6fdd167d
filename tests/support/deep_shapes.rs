//! The three recursive shapes of spec section 6, for the depth tests:
//! `Tree` (one seq per level), `Node` (one `Some` per level) and `List`
//! (one `Cons` variant per level), with builders that use no recursion.

#![allow(dead_code)]

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub struct Tree {
    pub kids: Vec<Tree>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub struct Node {
    pub next: Option<Box<Node>>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub enum List {
    Cons(u32, Box<List>),
    Nil,
}

/// A tree `levels` levels deep (each level one seq).
pub fn tree(levels: usize) -> Tree {
    assert!(levels >= 1);
    let mut t = Tree { kids: Vec::new() };
    for _ in 1..levels {
        t = Tree { kids: vec![t] };
    }
    t
}

/// `levels` nested `Some`s, then `None`.
pub fn node(levels: usize) -> Node {
    let mut n = Node { next: None };
    for _ in 0..levels {
        n = Node {
            next: Some(Box::new(n)),
        };
    }
    n
}

/// `levels` `Cons` cells, then `Nil` (a unit variant: no level).
pub fn list(levels: usize) -> List {
    let mut l = List::Nil;
    for i in 0..levels {
        l = List::Cons(i as u32, Box::new(l));
    }
    l
}
