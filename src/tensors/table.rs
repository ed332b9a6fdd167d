//! The plain-text table of a directory that `kiln inspect` prints (and the
//! quickstart example): one row per tensor, then a totals line.

use std::fmt::Write as _;

use super::placement::Layout;
use super::tensor::TensorView;

/// Column titles, in order.
const HEADS: [&str; 11] = [
    "#", "name", "dtype", "shape", "offset", "bytes", "quant", "scale", "outer", "block", "layout",
];

/// Columns printed right-aligned (numbers).
const RIGHT: [bool; 11] = [
    true, false, false, false, true, true, false, true, true, true, false,
];

/// The table of [`TensorsView::table`](super::TensorsView::table): `tensors`
/// in descriptor order, `layout` for the totals line.
pub(super) fn render<'a>(
    tensors: impl ExactSizeIterator<Item = TensorView<'a>>,
    layout: &Layout,
) -> String {
    let n = tensors.len();
    let mut rows: Vec<[String; 11]> = Vec::with_capacity(n + 1);
    rows.push(HEADS.map(String::from));
    let mut elements: u128 = 0;
    let mut bytes: u128 = 0;
    for t in tensors {
        elements += u128::from(t.elements());
        bytes += u128::from(t.byte_length());
        rows.push(row(&t));
    }
    let mut widths = [0usize; 11];
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (k, cell) in r.iter().enumerate() {
            let w = widths.get(k).copied().unwrap_or(0);
            if k > 0 {
                line.push_str("  ");
            }
            if RIGHT.get(k).copied().unwrap_or(false) {
                let _ = write!(line, "{cell:>w$}");
            } else {
                let _ = write!(line, "{cell:<w$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "total: {n} tensor{}, {elements} elements, {bytes} tensor bytes, \
         payload region {} bytes, block {} bytes",
        if n == 1 { "" } else { "s" },
        layout.payload_bytes(),
        layout.block_len()
    );
    out
}

fn dash(v: Option<u32>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn row(t: &TensorView<'_>) -> [String; 11] {
    let shape = format!(
        "[{}]",
        t.shape()
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let q = t.quant();
    let layout = t.layout().map_or_else(
        || "-".to_string(),
        |l| {
            format!(
                "{} [{}/{}]",
                printable(l.name_bytes()),
                l.block_elems(),
                l.block_bytes()
            )
        },
    );
    [
        t.index().to_string(),
        if t.name_bytes().is_empty() {
            "-".to_string()
        } else {
            printable(t.name_bytes())
        },
        t.dtype().to_string(),
        shape,
        t.byte_offset().to_string(),
        t.byte_length().to_string(),
        q.scheme().name().to_string(),
        dash(q.scale()),
        dash(q.outer()),
        dash(q.block_elems()),
        layout,
    ]
}

/// The name as is when it is UTF-8 without control characters or spaces
/// at its ends; otherwise quoted and escaped, so that a table row is one
/// line and a name never hides in the column spacing.
fn printable(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) && s.trim() == s => s.to_string(),
        Ok(s) => format!("{s:?}"),
        Err(_) => format!("{:?}", String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use crate::tensors::{Dtype, Quant, TensorSpec, TensorsBuilder};

    #[test]
    fn quantized_opaque_and_odd_names() {
        let scale = [half::f16::from_f32(0.5), half::f16::from_f32(0.25)];
        let mut b = TensorsBuilder::new();
        let s = b.push(TensorSpec::from_pod_slice(Dtype::F16, &[2], &scale).named("q.scale"));
        b.push(
            TensorSpec::new(Dtype::U4, &[4, 16], vec![0x21u8; 32])
                .named("q")
                .with_quant(Quant::PerBlock {
                    scale: s as u32,
                    block_elems: 32,
                }),
        );
        b.push(TensorSpec::opaque(4096, "q4_K", 256, 144, &[256], vec![0u8; 144]).named("k"));
        b.push(TensorSpec::new(Dtype::U8, &[], vec![7u8]).named("tab\there"));
        b.push(TensorSpec::new(Dtype::U8, &[1], vec![1u8]));
        let t = b.build().unwrap();
        let want = r#"#  name         dtype         shape    offset  bytes  quant      scale  outer  block  layout
0  q.scale      f16           [2]           0      4  none           -      -      -  -
1  q            u4            [4, 16]      64     32  per_block      0      -     32  -
2  k            opaque(4096)  [256]       128    144  none           -      -      -  q4_K [256/144]
3  "tab\there"  u8            []          320      1  none           -      -      -  -
4  -            u8            [1]         384      1  none           -      -      -  -
total: 5 tensors, 324 elements, 182 tensor bytes, payload region 385 bytes, block 1089 bytes
"#;
        assert_eq!(t.table(), want);
    }

    #[test]
    fn empty_directory() {
        let t = TensorsBuilder::new().build().unwrap();
        assert_eq!(
            t.table(),
            "#  name  dtype  shape  offset  bytes  quant  scale  outer  block  layout\n\
             total: 0 tensors, 0 elements, 0 tensor bytes, payload region 0 bytes, block 64 bytes\n"
        );
    }
}
