//! The dtypes safetensors and Kiln share, and why the others do not map.

use kiln_serde::Dtype;

/// The Kiln dtype of a safetensors dtype, or why there is none.
pub fn kiln_dtype(d: safetensors::Dtype) -> Result<Dtype, &'static str> {
    use safetensors::Dtype as S;
    Ok(match d {
        S::BOOL => Dtype::Bool,
        S::U8 => Dtype::U8,
        S::I8 => Dtype::I8,
        S::U16 => Dtype::U16,
        S::I16 => Dtype::I16,
        S::U32 => Dtype::U32,
        S::I32 => Dtype::I32,
        S::U64 => Dtype::U64,
        S::I64 => Dtype::I64,
        S::F16 => Dtype::F16,
        S::BF16 => Dtype::Bf16,
        S::F32 => Dtype::F32,
        S::F64 => Dtype::F64,
        S::F8_E4M3 => Dtype::F8E4M3,
        S::F8_E5M2 => Dtype::F8E5M2,
        S::F8_E8M0 => Dtype::F8E8M0,
        S::F4 => {
            return Err(
                "safetensors F4 does not define the order of the two values in a \
                        byte, so it is not mapped to Kiln's f4e2m1",
            )
        }
        S::F8_E4M3FNUZ | S::F8_E5M2FNUZ => {
            return Err("Kiln has no FNUZ float8 dtype (its f8e4m3/f8e5m2 are the OCP formats)")
        }
        S::F6_E2M3 | S::F6_E3M2 => return Err("Kiln has no 6-bit float dtype"),
        S::C64 => return Err("Kiln has no complex dtype"),
        _ => return Err("Kiln has no dtype with this code"),
    })
}

/// The safetensors dtype of a Kiln dtype, or why there is none.
pub fn safetensors_dtype(d: Dtype) -> Result<safetensors::Dtype, &'static str> {
    use safetensors::Dtype as S;
    Ok(match d {
        Dtype::Bool => S::BOOL,
        Dtype::U8 => S::U8,
        Dtype::I8 => S::I8,
        Dtype::U16 => S::U16,
        Dtype::I16 => S::I16,
        Dtype::U32 => S::U32,
        Dtype::I32 => S::I32,
        Dtype::U64 => S::U64,
        Dtype::I64 => S::I64,
        Dtype::F16 => S::F16,
        Dtype::Bf16 => S::BF16,
        Dtype::F32 => S::F32,
        Dtype::F64 => S::F64,
        Dtype::F8E4M3 => S::F8_E4M3,
        Dtype::F8E5M2 => S::F8_E5M2,
        Dtype::F8E8M0 => S::F8_E8M0,
        Dtype::F4E2M1 => {
            return Err(
                "safetensors F4 does not define the order of the two values in a \
                        byte, so Kiln's packed f4e2m1 is not mapped to it",
            )
        }
        Dtype::I4 | Dtype::U4 => return Err("safetensors has no 4-bit integer dtype"),
        Dtype::Opaque(_) => return Err("safetensors has no opaque block layouts"),
    })
}
