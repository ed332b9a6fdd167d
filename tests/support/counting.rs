//! A value that counts its `Serialize` calls: how many passes an entry
//! point made. Include with `#[path = "support/counting.rs"] mod counting;`.

use std::cell::Cell;

use serde::{Serialize, Serializer};

/// Serializes `.1`, counting the call in `.0`.
pub struct Counting<'a, T>(pub &'a Cell<u32>, pub T);

impl<T: Serialize> Serialize for Counting<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.set(self.0.get() + 1);
        self.1.serialize(s)
    }
}
