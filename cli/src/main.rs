//! The `kiln` command-line tool: check, inspect, hash and
//! convert Kiln tensor files.
//!
//! Exit status: 0 when all went well, 1 for a fault of an input file (a
//! Kiln error code, a safetensors error, a dtype with no counterpart), 2
//! for bad usage or an I/O error.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod convert;
mod inspect;
mod mmap;

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Check, inspect, hash and convert Kiln v2 tensor files.
#[derive(Parser, Debug)]
#[command(name = "kiln", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate a file holding one tensor directory (bare, or framed with
    /// the hash of `tensors`).
    ///
    /// Prints `ok` or the error code (FRAME, LIMIT, EOF, TYPE, UTF8,
    /// TRAILING, SCHEMA) on the first line, then a sentence: for a fault
    /// `at byte N: ...`, for a valid file the tensor count and payload bytes.
    /// Exit status 0 for ok, 1 for a fault of the file, 2 for usage or I/O
    /// errors (for example a missing file). FILE `-` reads standard input.
    Check {
        /// The file to check.
        file: PathBuf,
    },
    /// Show the frame and the tensor directory of a file as a table.
    ///
    /// The frame line says whether the 16-byte frame is present, its
    /// version and profile, and its hash (and whether it is the hash of
    /// `tensors`). The table has one row per tensor: index, name, dtype,
    /// shape, offset (the descriptor's byte_offset, from the start of the
    /// payload region), bytes (byte_length), the quantization scheme with
    /// its scale index, outer index and block_elems, and the opaque layout
    /// name; then totals. A faulty file is reported as `kiln check` does
    /// (code, then `at byte N: ...`) with exit status 1.
    #[command(after_long_help = inspect::JSON_HELP)]
    Inspect {
        /// The file to inspect (`-` reads standard input).
        file: PathBuf,
        /// Print a machine-readable JSON document instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Print the FNV-1a 64 hash of a canonical type text as 0x%016x.
    ///
    /// Example: `kiln hash 'struct Point{x:i32,y:i32}'` prints
    /// 0x5e8fcc49ab06d825. The text is hashed as given (no whitespace is
    /// removed).
    Hash {
        /// The canonical type text, for example `tensors`.
        text: String,
    },
    /// Convert between safetensors and Kiln.
    ///
    /// The direction follows the file extensions (`.safetensors`, `.kiln`)
    /// or `--from` / `--to`; an input with neither is recognized by its
    /// first bytes. Names, shapes and payload bits are kept; safetensors
    /// `__metadata__` is dropped with a warning. Tensors from safetensors
    /// are written in name order (by bytes). A dtype, quantization link or
    /// opaque layout with no counterpart in the target format stops the
    /// conversion with an error naming the tensor. The output is written
    /// to a temporary file in the same directory and renamed over OUT.
    Convert {
        /// The input file.
        input: PathBuf,
        /// The output file.
        output: PathBuf,
        /// The input format (default: from the extension or the magic).
        #[arg(long, value_enum)]
        from: Option<Format>,
        /// The output format (default: from the extension).
        #[arg(long, value_enum)]
        to: Option<Format>,
        /// Write a bare directory (no 16-byte frame) when writing Kiln.
        #[arg(long)]
        bare: bool,
    },
}

/// A file format `convert` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A safetensors file.
    Safetensors,
    /// A Kiln file: one tensor directory, framed or bare.
    Kiln,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Safetensors => "safetensors",
            Format::Kiln => "kiln",
        })
    }
}

/// Why a command failed, and so its exit status.
#[derive(Debug)]
enum Failure {
    /// A fault of an input file: exit 1. The message is complete.
    Fault(String),
    /// Bad usage or an I/O error: exit 2.
    Usage(String),
    /// Standard output was closed (for example by `| head`): stop quietly.
    BrokenPipe,
}

impl Failure {
    fn io(what: impl fmt::Display, err: &io::Error) -> Self {
        Failure::Usage(format!("{what}: {err}"))
    }
}

type Outcome = Result<(), Failure>;

/// `1 tensor`, `2 tensors`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Writes to standard output, turning a closed pipe into a quiet stop.
fn out(text: &str) -> Outcome {
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(|e| {
            if e.kind() == io::ErrorKind::BrokenPipe {
                Failure::BrokenPipe
            } else {
                Failure::io("cannot write to standard output", &e)
            }
        })
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Check { file } => inspect::check(&file),
        Command::Inspect { file, json } => inspect::inspect(&file, json),
        Command::Hash { text } => {
            out(&format!("{:#018x}\n", kiln_serde::schema::hash_text(&text)))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Convert {
            input,
            output,
            from,
            to,
            bare,
        } => {
            convert::convert(&input, &output, from, to, bare)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    // A panic would be a bug: report it in one line, never a dump.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        eprintln!("kiln: internal error (please report): {msg}");
    }));
    let cli = Cli::parse();
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(code)) => code,
        Ok(Err(Failure::Fault(msg))) => {
            eprintln!("kiln: {msg}");
            ExitCode::from(1)
        }
        Ok(Err(Failure::Usage(msg))) => {
            eprintln!("kiln: {msg}");
            ExitCode::from(2)
        }
        Ok(Err(Failure::BrokenPipe)) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}
