//! The `kiln` binary: see the `kiln_cli` library for everything it does.

fn main() -> std::process::ExitCode {
    kiln_cli::main()
}
