//! The `kiln` command-line tool (feature `cli`).

fn main() {
    eprintln!("kiln: no commands yet");
    std::process::exit(2);
}
