//! `Even`: a `u32` that refuses odd values through `#[serde(try_from)]`,
//! an error of a type's own conversion (`D::Error::custom`, MESSAGE).

#[derive(serde::Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(try_from = "u32")]
pub struct Even(pub u32);

impl TryFrom<u32> for Even {
    type Error = String;
    fn try_from(v: u32) -> Result<Self, String> {
        if v % 2 == 0 {
            Ok(Even(v))
        } else {
            Err(format!("{v} is odd"))
        }
    }
}
