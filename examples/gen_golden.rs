//! Regenerates the golden conformance files in `spec/golden/`.
//!
//! Run: `cargo run --example gen_golden`. `tests/golden.rs` fails if the files
//! on disk differ from what this writes.

#[path = "../tests/support/golden_cases.rs"]
mod golden_cases;

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/golden");
    std::fs::create_dir_all(&dir)?;
    let cases = golden_cases::all_cases();
    for c in &cases {
        std::fs::write(dir.join(&c.file), &c.bytes)?;
    }
    std::fs::write(dir.join("cases.json"), golden_cases::manifest(&cases))?;
    println!("wrote {} cases to {}", cases.len(), dir.display());
    Ok(())
}
