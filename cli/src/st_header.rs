//! The safetensors header, read from a stream with bounded memory and
//! written exactly as the `safetensors` crate writes it.
//!
//! A safetensors file is an 8-byte little-endian header length `n`, `n`
//! bytes of JSON, then the data region. Reading takes the length, checks it
//! against the crate's cap (100,000,000) and the file's real length before
//! allocating, then lets the `safetensors` crate parse and validate the
//! JSON (dtypes, shapes, offsets in order with no gap or overlap, each
//! length matching its shape). The data region is never read here: a
//! header that claims 2^60 bytes of data costs nothing but an error.

use std::collections::BTreeMap;
use std::io::Read;

use safetensors::tensor::{Metadata, TensorInfo};
use serde::ser::{SerializeMap, Serializer};

/// The safetensors crate's cap on the header length.
pub const MAX_HEADER: u64 = 100_000_000;

/// The reserved header key of the string metadata.
pub const METADATA_KEY: &str = "__metadata__";

/// One tensor of a safetensors header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StEntry {
    /// The tensor's name.
    pub name: String,
    /// Its dtype.
    pub dtype: safetensors::Dtype,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Start of its bytes in the data region.
    pub begin: u64,
    /// End of its bytes in the data region.
    pub end: u64,
}

/// A parsed safetensors header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StHeader {
    /// Where the data region starts in the file (`8 + n`).
    pub data_start: u64,
    /// `__metadata__`, when the header has the key (even `{}`).
    pub metadata: Option<BTreeMap<String, String>>,
    /// The tensors, sorted by name bytes.
    pub tensors: Vec<StEntry>,
}

/// Reads the header of a safetensors file of `file_len` bytes from `r`
/// (positioned at the file start), leaving `r` at the data region.
///
/// # Errors
///
/// A sentence saying why the file is not valid safetensors: too short, a
/// header length above the cap or past the end of the file, JSON that is not
/// UTF-8 or not a valid header, or a data region whose length is not the
/// one the header describes.
pub fn read_header<R: Read + ?Sized>(r: &mut R, file_len: u64) -> Result<StHeader, String> {
    let mut len = [0u8; 8];
    if file_len < 8 {
        return Err(format!(
            "the file has {file_len} bytes, fewer than the 8-byte header length"
        ));
    }
    r.read_exact(&mut len)
        .map_err(|e| format!("cannot read the header length: {e}"))?;
    let n = u64::from_le_bytes(len);
    if n > MAX_HEADER {
        return Err(format!(
            "the header length {n} is above the safetensors cap of {MAX_HEADER} bytes"
        ));
    }
    let data_start = n + 8;
    if data_start > file_len {
        return Err(format!(
            "the header length {n} runs past the end of the {file_len}-byte file"
        ));
    }
    // n <= MAX_HEADER and n <= file_len - 8: the allocation is bounded by
    // both the cap and the bytes that exist.
    let mut json = vec![0u8; n as usize];
    r.read_exact(&mut json)
        .map_err(|e| format!("cannot read the {n}-byte header: {e}"))?;
    let text = std::str::from_utf8(&json).map_err(|e| format!("the header is not UTF-8: {e}"))?;
    let meta: Metadata = serde_json::from_str(text).map_err(|e| format!("invalid header: {e}"))?;
    let data_len = file_len - data_start;
    if meta.data_len() as u64 != data_len {
        return Err(format!(
            "the header describes {} data bytes, the file has {data_len}",
            meta.data_len()
        ));
    }
    let mut tensors: Vec<StEntry> = meta
        .tensors()
        .into_iter()
        .map(|(name, info)| StEntry {
            name,
            dtype: info.dtype,
            shape: info.shape.clone(),
            begin: info.data_offsets.0 as u64,
            end: info.data_offsets.1 as u64,
        })
        .collect();
    tensors.sort_unstable_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let metadata = meta
        .metadata()
        .as_ref()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
    Ok(StHeader {
        data_start,
        metadata,
        tensors,
    })
}

/// The header of a safetensors file of these tensors, as the `safetensors`
/// crate writes it: tensors ordered by dtype (widest alignment first), then
/// by name; `__metadata__` first when given (keys in byte order); the JSON
/// padded with spaces to a multiple of 8. Returns the whole prefix (length
/// and JSON) and the tensors in data order with their data offsets.
///
/// # Errors
///
/// A sentence when the header would exceed the safetensors cap, or the
/// JSON cannot be written.
pub fn write_header(
    metadata: Option<&BTreeMap<String, String>>,
    tensors: Vec<(String, safetensors::Dtype, Vec<usize>, u64)>,
) -> Result<(Vec<u8>, Vec<StEntry>), String> {
    let mut tensors = tensors;
    tensors.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut offset = 0u64;
    let mut entries = Vec::with_capacity(tensors.len());
    for (name, dtype, shape, len) in tensors {
        let end = offset
            .checked_add(len)
            .ok_or_else(|| "the data region overflows u64".to_string())?;
        entries.push(StEntry {
            name,
            dtype,
            shape,
            begin: offset,
            end,
        });
        offset = end;
    }
    let mut json = Vec::new();
    {
        let mut ser = serde_json::Serializer::new(&mut json);
        let count = entries.len() + usize::from(metadata.is_some());
        let mut map = ser.serialize_map(Some(count)).map_err(|e| e.to_string())?;
        if let Some(m) = metadata {
            map.serialize_entry(METADATA_KEY, m)
                .map_err(|e| e.to_string())?;
        }
        for e in &entries {
            let info = TensorInfo {
                dtype: e.dtype,
                shape: e.shape.clone(),
                data_offsets: (
                    usize::try_from(e.begin).map_err(|_| "offset too large".to_string())?,
                    usize::try_from(e.end).map_err(|_| "offset too large".to_string())?,
                ),
            };
            map.serialize_entry(&e.name, &info)
                .map_err(|e| e.to_string())?;
        }
        map.end().map_err(|e| e.to_string())?;
    }
    json.resize(json.len().next_multiple_of(8), b' ');
    let n = json.len() as u64;
    if n > MAX_HEADER {
        return Err(format!(
            "the safetensors header would be {n} bytes, above the cap of {MAX_HEADER}"
        ));
    }
    let mut out = n.to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    Ok((out, entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use safetensors::tensor::TensorView;

    fn st_file(meta: Option<std::collections::HashMap<String, String>>) -> Vec<u8> {
        let a = [1u8, 2, 3, 4];
        let b = [9u8; 8];
        let views = vec![
            (
                "b",
                TensorView::new(safetensors::Dtype::U8, vec![4], &a).unwrap(),
            ),
            (
                "a",
                TensorView::new(safetensors::Dtype::F32, vec![2], &b).unwrap(),
            ),
        ];
        safetensors::serialize(views, meta).unwrap()
    }

    #[test]
    fn reads_what_safetensors_writes_and_writes_it_back() {
        for meta in [None, Some([("k".to_string(), "v".to_string())].into())] {
            let file = st_file(meta.clone());
            let h = read_header(&mut &file[..], file.len() as u64).unwrap();
            assert_eq!(h.tensors[0].name, "a");
            assert_eq!(h.metadata.is_some(), meta.is_some());
            let list = h
                .tensors
                .iter()
                .map(|e| (e.name.clone(), e.dtype, e.shape.clone(), e.end - e.begin))
                .collect();
            let (prefix, order) = write_header(h.metadata.as_ref(), list).unwrap();
            assert_eq!(prefix[..], file[..h.data_start as usize]);
            assert_eq!(order[0].name, "a", "F32 before U8");
        }
    }

    #[test]
    fn hostile_headers_fail_without_allocating() {
        let mut huge = 8u64.to_le_bytes().to_vec();
        huge.extend_from_slice(br#"{"x":{"dtype":"U8","shape":[1152921504606846976],"data_offsets":[0,1152921504606846976]}}"#);
        let e = read_header(&mut &huge[..], huge.len() as u64).unwrap_err();
        assert!(
            e.contains("invalid header") || e.contains("data bytes"),
            "{e}"
        );

        let mut claim = (1u64 << 60).to_le_bytes().to_vec();
        claim.extend_from_slice(b"{}");
        let e = read_header(&mut &claim[..], claim.len() as u64).unwrap_err();
        assert!(e.contains("above the safetensors cap"), "{e}");
        let mut past = 1000u64.to_le_bytes().to_vec();
        past.extend_from_slice(b"{}");
        let e = read_header(&mut &past[..], past.len() as u64).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
        assert!(read_header(&mut &b"\x02\0\0\0\0\0\0\0{}"[..], 10).is_ok());
        assert!(read_header(&mut &b"\x02\0\0\0\0\0\0\0{}"[..], 11).is_err());
        assert!(read_header(&mut &b"\x01\0"[..], 2).is_err());
    }
}
