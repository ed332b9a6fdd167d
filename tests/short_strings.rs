//! A str's or bytes value's bytes of up to 32 are copied inline (`raw` piece
//! 13: windows of 8, 4 or 1 bytes that overlap), longer ones by `memcpy`.
//! Every output path writes spec 2's count and the bytes, at every length
//! around those widths, after an odd number of bytes (unaligned).

use serde::{Serialize, Serializer};

/// `serialize_bytes`, as `serde_bytes` would call it.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

#[derive(Serialize)]
struct Record<'a> {
    tag: u8,
    text: String,
    bytes: Bytes<'a>,
    borrowed: &'a str,
    tail: u16,
}

fn by_hand(text: &str) -> Vec<u8> {
    let mut v = vec![0x5a];
    for _ in 0..3 {
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
    }
    v.extend_from_slice(&0xbeefu16.to_le_bytes());
    v
}

#[test]
fn strings_of_every_short_length_write_count_and_bytes_on_every_path() {
    for n in (0..=72).chain([100, 255, 256, 1000]) {
        // Distinct bytes, so a window written at the wrong place shows.
        let text: String = (0..n)
            .map(|i| char::from(b'!' + (i * 7 % 90) as u8))
            .collect();
        let rec = Record {
            tag: 0x5a,
            text: text.clone(),
            bytes: Bytes(text.as_bytes()),
            borrowed: &text,
            tail: 0xbeef,
        };
        let want = by_hand(&text);
        assert_eq!(kiln_serde::to_vec(&rec).unwrap(), want, "n {n}: to_vec");
        let mut out = vec![0xaa; 3];
        kiln_serde::to_extend(&mut out, &rec).unwrap();
        assert_eq!(out[..3], [0xaa; 3], "n {n}");
        assert_eq!(&out[3..], &want[..], "n {n}: to_extend");
        let mut w = Vec::new();
        kiln_serde::to_writer(&mut w, &rec).unwrap();
        assert_eq!(w, want, "n {n}: to_writer");
        for slack in [0, 1, 7, 40] {
            let mut buf = vec![0xcc; want.len() + slack];
            assert_eq!(kiln_serde::to_slice(&mut buf, &rec).unwrap(), want.len());
            assert_eq!(buf[..want.len()], want[..], "n {n} slack {slack}: to_slice");
            assert!(
                buf[want.len()..].iter().all(|&b| b == 0xcc),
                "n {n} slack {slack}"
            );
        }
        let mut buf = vec![0; want.len() - 1];
        let e = kiln_serde::to_slice(&mut buf, &rec).unwrap_err();
        assert_eq!(e.code(), kiln_serde::ErrorCode::Limit, "n {n}");
        let back: (u8, String, Vec<u8>, String, u16) = kiln_serde::from_slice(&want).unwrap();
        assert_eq!(back.1, text, "n {n}");
    }
}
