//! Element types (spec 5.3), quantization schemes (5.5) and the typed
//! element trait used by typed views and the builder.

use std::fmt;

/// The element type of a tensor: one of the 19 closed codes, or an opaque
/// block layout code in `4096..=32767` (spec 5.3 and 5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// Code 1: one byte per element (Kiln does not check the value).
    Bool,
    /// Code 2.
    U8,
    /// Code 3.
    I8,
    /// Code 4.
    U16,
    /// Code 5.
    I16,
    /// Code 6.
    U32,
    /// Code 7.
    I32,
    /// Code 8.
    U64,
    /// Code 9.
    I64,
    /// Code 10: IEEE half precision.
    F16,
    /// Code 11: bfloat16.
    Bf16,
    /// Code 12.
    F32,
    /// Code 13.
    F64,
    /// Code 14: OCP FP8 E4M3FN.
    F8E4M3,
    /// Code 15: OCP FP8 E5M2.
    F8E5M2,
    /// Code 16: E8M0 (MX scale).
    F8E8M0,
    /// Code 17: FP4 E2M1, two elements per byte.
    F4E2M1,
    /// Code 18: signed 4-bit integer, two elements per byte.
    I4,
    /// Code 19: unsigned 4-bit integer, two elements per byte.
    U4,
    /// An opaque block layout, code in `4096..=32767`. Build it with
    /// [`Dtype::opaque`] to have the range checked; a code outside the range
    /// is rejected with TYPE when a directory is built.
    Opaque(u16),
}

/// The first opaque layout code.
pub const OPAQUE_MIN: u16 = 4096;
/// The last opaque layout code.
pub const OPAQUE_MAX: u16 = 32767;

const TABLE: [(Dtype, &str, u32); 19] = [
    (Dtype::Bool, "bool", 8),
    (Dtype::U8, "u8", 8),
    (Dtype::I8, "i8", 8),
    (Dtype::U16, "u16", 16),
    (Dtype::I16, "i16", 16),
    (Dtype::U32, "u32", 32),
    (Dtype::I32, "i32", 32),
    (Dtype::U64, "u64", 64),
    (Dtype::I64, "i64", 64),
    (Dtype::F16, "f16", 16),
    (Dtype::Bf16, "bf16", 16),
    (Dtype::F32, "f32", 32),
    (Dtype::F64, "f64", 64),
    (Dtype::F8E4M3, "f8e4m3", 8),
    (Dtype::F8E5M2, "f8e5m2", 8),
    (Dtype::F8E8M0, "f8e8m0", 8),
    (Dtype::F4E2M1, "f4e2m1", 4),
    (Dtype::I4, "i4", 4),
    (Dtype::U4, "u4", 4),
];

/// The row of closed code `code` (1..=19): `TABLE` is in code order, so
/// an index, where a search took about 10 compares, once per descriptor
/// when a directory is validated.
fn row_of(code: u16) -> Option<&'static (Dtype, &'static str, u32)> {
    TABLE.get(usize::from(code).wrapping_sub(1))
}

impl Dtype {
    /// Every closed dtype (codes 1..=19), in code order.
    pub const ALL: [Dtype; 19] = [
        Dtype::Bool,
        Dtype::U8,
        Dtype::I8,
        Dtype::U16,
        Dtype::I16,
        Dtype::U32,
        Dtype::I32,
        Dtype::U64,
        Dtype::I64,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::F64,
        Dtype::F8E4M3,
        Dtype::F8E5M2,
        Dtype::F8E8M0,
        Dtype::F4E2M1,
        Dtype::I4,
        Dtype::U4,
    ];

    /// The dtype of a wire code, or `None` for a code the spec rejects
    /// (0, 20..=4095, 32768..=65535).
    ///
    /// # Examples
    ///
    /// ```
    /// use kiln_serde::tensors::Dtype;
    /// assert_eq!(Dtype::from_code(12), Some(Dtype::F32));
    /// assert_eq!(Dtype::from_code(5000), Some(Dtype::Opaque(5000)));
    /// assert_eq!(Dtype::from_code(20), None);
    /// ```
    pub const fn from_code(code: u16) -> Option<Dtype> {
        match code {
            1..=19 => Some(Self::ALL[(code - 1) as usize]),
            OPAQUE_MIN..=OPAQUE_MAX => Some(Dtype::Opaque(code)),
            _ => None,
        }
    }

    /// An opaque layout dtype, or `None` when `code` is not in `4096..=32767`.
    pub const fn opaque(code: u16) -> Option<Dtype> {
        match code {
            OPAQUE_MIN..=OPAQUE_MAX => Some(Dtype::Opaque(code)),
            _ => None,
        }
    }

    /// The wire code.
    pub const fn code(self) -> u16 {
        match self {
            Dtype::Bool => 1,
            Dtype::U8 => 2,
            Dtype::I8 => 3,
            Dtype::U16 => 4,
            Dtype::I16 => 5,
            Dtype::U32 => 6,
            Dtype::I32 => 7,
            Dtype::U64 => 8,
            Dtype::I64 => 9,
            Dtype::F16 => 10,
            Dtype::Bf16 => 11,
            Dtype::F32 => 12,
            Dtype::F64 => 13,
            Dtype::F8E4M3 => 14,
            Dtype::F8E5M2 => 15,
            Dtype::F8E8M0 => 16,
            Dtype::F4E2M1 => 17,
            Dtype::I4 => 18,
            Dtype::U4 => 19,
            Dtype::Opaque(c) => c,
        }
    }

    /// The spec name (`"f32"`, `"bf16"`, `"f8e4m3"`, ...); `"opaque"` for an
    /// opaque layout (its real name is the tensor's layout name).
    pub fn name(self) -> &'static str {
        self.row().map_or("opaque", |(_, n, _)| n)
    }

    /// The closed dtype with this spec name, or `None`.
    ///
    /// # Examples
    ///
    /// ```
    /// use kiln_serde::tensors::Dtype;
    /// assert_eq!(Dtype::from_name("bf16"), Some(Dtype::Bf16));
    /// assert_eq!(Dtype::from_name("float"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Dtype> {
        TABLE
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(d, _, _)| *d)
    }

    /// The width of one element in bits (4, 8, 16, 32 or 64); `None` for an
    /// opaque layout, whose size is given per block.
    pub fn bits(self) -> Option<u32> {
        self.row().map(|(_, _, b)| *b)
    }

    /// The element width of closed code `code` (1..=19), `None` for any
    /// other: [`Dtype::from_code`] then [`Dtype::bits`] in one lookup.
    pub(crate) fn closed_bits(code: u16) -> Option<u32> {
        row_of(code).map(|(_, _, b)| *b)
    }

    /// The closed dtype's row of `TABLE`.
    fn row(self) -> Option<&'static (Dtype, &'static str, u32)> {
        match self {
            // Any code, even one below 4096 (rejected when a directory is built).
            Dtype::Opaque(_) => None,
            d => row_of(d.code()),
        }
    }

    /// True for an opaque layout code.
    pub const fn is_opaque(self) -> bool {
        matches!(self, Dtype::Opaque(_))
    }

    /// True for the packed 4-bit dtypes (two elements per byte).
    pub const fn is_packed4(self) -> bool {
        matches!(self, Dtype::F4E2M1 | Dtype::I4 | Dtype::U4)
    }

    /// True when the dtype may hold quantized data (schemes 1..=3).
    pub const fn is_quant_data(self) -> bool {
        matches!(
            self,
            Dtype::U8
                | Dtype::I8
                | Dtype::U16
                | Dtype::I16
                | Dtype::F8E4M3
                | Dtype::F8E5M2
                | Dtype::F4E2M1
                | Dtype::I4
                | Dtype::U4
        )
    }

    /// True when the dtype may be a quantization scale.
    pub const fn is_quant_scale(self) -> bool {
        matches!(
            self,
            Dtype::F32 | Dtype::F16 | Dtype::Bf16 | Dtype::F8E4M3 | Dtype::F8E8M0
        )
    }

    /// True when the dtype may be an outer quantization scale.
    pub const fn is_quant_outer(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F16 | Dtype::Bf16)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtype::Opaque(c) => write!(f, "opaque({c})"),
            d => f.write_str(d.name()),
        }
    }
}

/// The quantization scheme code of a descriptor (spec 5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuantScheme {
    /// 0: not quantized.
    None,
    /// 1: one scale for the whole tensor.
    PerTensor,
    /// 2: one scale per block of `block_elems` elements.
    PerBlock,
    /// 3: per block, plus one outer scale.
    PerBlockOuter,
}

impl QuantScheme {
    /// The scheme of a wire code, or `None` for 4..=255.
    pub const fn from_code(code: u8) -> Option<QuantScheme> {
        match code {
            0 => Some(QuantScheme::None),
            1 => Some(QuantScheme::PerTensor),
            2 => Some(QuantScheme::PerBlock),
            3 => Some(QuantScheme::PerBlockOuter),
            _ => None,
        }
    }

    /// The scheme's name as `kiln inspect` prints it: `none`,
    /// `per_tensor`, `per_block` or `per_block_outer`.
    pub const fn name(self) -> &'static str {
        match self {
            QuantScheme::None => "none",
            QuantScheme::PerTensor => "per_tensor",
            QuantScheme::PerBlock => "per_block",
            QuantScheme::PerBlockOuter => "per_block_outer",
        }
    }

    /// The wire code.
    pub const fn code(self) -> u8 {
        match self {
            QuantScheme::None => 0,
            QuantScheme::PerTensor => 1,
            QuantScheme::PerBlock => 2,
            QuantScheme::PerBlockOuter => 3,
        }
    }
}

/// A tensor's quantization: the scheme with its links (tensor indices in the
/// same directory) and block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Quant {
    /// Not quantized (scheme 0).
    #[default]
    None,
    /// Scheme 1: `scale` is a one-element tensor.
    PerTensor {
        /// Index of the scale tensor.
        scale: u32,
    },
    /// Scheme 2: `scale` has `elements / block_elems` elements.
    PerBlock {
        /// Index of the scale tensor.
        scale: u32,
        /// Elements per block (>= 1, divides the element count).
        block_elems: u32,
    },
    /// Scheme 3: as [`Quant::PerBlock`] plus a one-element `outer` scale.
    PerBlockOuter {
        /// Index of the per-block scale tensor.
        scale: u32,
        /// Index of the one-element outer scale tensor.
        outer: u32,
        /// Elements per block (>= 1, divides the element count).
        block_elems: u32,
    },
}

impl Quant {
    /// The scheme.
    pub const fn scheme(&self) -> QuantScheme {
        match self {
            Quant::None => QuantScheme::None,
            Quant::PerTensor { .. } => QuantScheme::PerTensor,
            Quant::PerBlock { .. } => QuantScheme::PerBlock,
            Quant::PerBlockOuter { .. } => QuantScheme::PerBlockOuter,
        }
    }

    /// The scale tensor index (schemes 1..=3).
    pub const fn scale(&self) -> Option<u32> {
        match *self {
            Quant::None => None,
            Quant::PerTensor { scale }
            | Quant::PerBlock { scale, .. }
            | Quant::PerBlockOuter { scale, .. } => Some(scale),
        }
    }

    /// The outer scale tensor index (scheme 3).
    pub const fn outer(&self) -> Option<u32> {
        match *self {
            Quant::PerBlockOuter { outer, .. } => Some(outer),
            _ => None,
        }
    }

    /// Elements per block (schemes 2 and 3).
    pub const fn block_elems(&self) -> Option<u32> {
        match *self {
            Quant::PerBlock { block_elems, .. } | Quant::PerBlockOuter { block_elems, .. } => {
                Some(block_elems)
            }
            _ => None,
        }
    }

    /// The descriptor words `(scheme, scale, outer, block_elems)` as written.
    pub(crate) const fn wire(&self) -> (u8, u32, u32, u32) {
        match *self {
            Quant::None => (0, 0, 0, 0),
            Quant::PerTensor { scale } => (1, scale, 0, 0),
            Quant::PerBlock { scale, block_elems } => (2, scale, 0, block_elems),
            Quant::PerBlockOuter {
                scale,
                outer,
                block_elems,
            } => (3, scale, outer, block_elems),
        }
    }

    /// Rebuilds from the descriptor words (already checked).
    pub(crate) const fn from_wire(scheme: QuantScheme, scale: u32, outer: u32, be: u32) -> Quant {
        match scheme {
            QuantScheme::None => Quant::None,
            QuantScheme::PerTensor => Quant::PerTensor { scale },
            QuantScheme::PerBlock => Quant::PerBlock {
                scale,
                block_elems: be,
            },
            QuantScheme::PerBlockOuter => Quant::PerBlockOuter {
                scale,
                outer,
                block_elems: be,
            },
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust element type with a matching closed dtype, for typed payloads in
/// the builder ([`TensorSpec::from_slice`](super::TensorSpec::from_slice)).
///
/// Implemented for `u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`,
/// `f32`, `f64`, and with the feature `half`, `half::f16` and `half::bf16`.
/// Sealed. (Without the feature, write f16/bf16 data with
/// [`TensorSpec::from_pod_slice`](super::TensorSpec::from_pod_slice) and
/// read it with `to_vec::<u16>()` or any 2-byte `Pod` type.)
pub trait Element: bytemuck::Pod + sealed::Sealed {
    /// The dtype a slice of this type is written as.
    const DTYPE: Dtype;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: Dtype = Dtype::$d;
        }
    )*};
}

element!(
    u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32,
    u64 => U64, i64 => I64, f32 => F32, f64 => F64,
);

#[cfg(feature = "half")]
element!(half::f16 => F16, half::bf16 => Bf16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_names_bits_round_trip() {
        for (i, d) in Dtype::ALL.iter().enumerate() {
            let code = u16::try_from(i + 1).unwrap();
            assert_eq!(TABLE[i].0, *d, "TABLE is in code order");
            assert_eq!(d.code(), code);
            assert_eq!(Dtype::from_code(code), Some(*d));
            assert_eq!(Dtype::from_name(d.name()), Some(*d));
            assert_eq!(d.to_string(), d.name());
        }
        assert_eq!(Dtype::F8E4M3.name(), "f8e4m3");
        assert_eq!(Dtype::Bf16.bits(), Some(16));
        assert_eq!(Dtype::U4.bits(), Some(4));
        assert_eq!(Dtype::Opaque(4096).bits(), None);
        assert_eq!(Dtype::Opaque(32767).bits(), None);
        assert_eq!(Dtype::Opaque(0).bits(), None);
        assert_eq!(
            Dtype::Opaque(12).bits(),
            None,
            "an opaque code is never a row"
        );
        assert_eq!(Dtype::Opaque(12).name(), "opaque");
        for code in 0..=u16::MAX {
            let want = Dtype::from_code(code).and_then(Dtype::bits);
            assert_eq!(Dtype::closed_bits(code), want, "{code}");
        }
        assert_eq!(Dtype::Opaque(4096).name(), "opaque");
        assert_eq!(Dtype::Opaque(4096).to_string(), "opaque(4096)");
    }

    #[test]
    fn rejected_codes() {
        for c in [0u16, 20, 100, 4095, 32768, 65535] {
            assert_eq!(Dtype::from_code(c), None, "{c}");
        }
        assert_eq!(Dtype::from_code(4096), Some(Dtype::Opaque(4096)));
        assert_eq!(Dtype::from_code(32767), Some(Dtype::Opaque(32767)));
        assert_eq!(Dtype::opaque(19), None);
    }

    #[test]
    fn quant_wire_round_trip() {
        for q in [
            Quant::None,
            Quant::PerTensor { scale: 3 },
            Quant::PerBlock {
                scale: 1,
                block_elems: 32,
            },
            Quant::PerBlockOuter {
                scale: 1,
                outer: 2,
                block_elems: 16,
            },
        ] {
            let (s, sc, o, b) = q.wire();
            let scheme = QuantScheme::from_code(s).unwrap();
            assert_eq!(scheme, q.scheme());
            assert_eq!(scheme.code(), s);
            assert_eq!(Quant::from_wire(scheme, sc, o, b), q);
        }
        assert_eq!(QuantScheme::from_code(4), None);
    }
}
