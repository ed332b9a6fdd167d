//! A reader that delivers its bytes in short chunks, for stream tests.

use std::io::{self, Read};

/// A reader that hands out 1, 2, 3, 1, 2, 3, ... bytes per call.
pub struct Chunky<'a> {
    data: &'a [u8],
    calls: usize,
}

impl<'a> Chunky<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Chunky { data, calls: 0 }
    }
}

impl Read for Chunky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = (self.calls % 3 + 1).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
