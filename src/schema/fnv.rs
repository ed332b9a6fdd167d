//! FNV-1a 64 (spec section 3): the hash a frame carries of a type text.

/// FNV-1a 64 offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64 prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

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
}
