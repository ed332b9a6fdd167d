//! The `kiln` command-line tool as a library: check, inspect, hash and
//! convert Kiln tensor files and sharded checkpoints. The binary
//! (`src/main.rs`) calls [`main`]; the fuzz targets call the conversion
//! paths ([`st_header`], [`shard`]) directly.
//!
//! Exit status: 0 when all went well, 1 for a fault of an input file (a
//! Kiln error code, a safetensors error, a dtype with no counterpart), 2
//! for bad usage or an I/O error.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod convert;
pub mod dtypes;
pub mod inspect;
pub mod progress;
pub mod shard;
pub mod st_header;
pub mod tempout;
pub mod type_text;

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Check, inspect, hash and convert Kiln v2 tensor files.
#[derive(Parser, Debug)]
#[command(name = "kiln", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The subcommands (their doc comments are the help text).
#[allow(missing_docs)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate a tensor file (a checkpoint, or one tensor directory, bare
    /// or framed with the hash of `tensors`) or a sharded checkpoint (FILE
    /// named `<stem>.kiln.index.json`: every shard and the index).
    ///
    /// Prints `ok` or the error code (FRAME, LIMIT, EOF, TYPE, UTF8,
    /// TRAILING, SCHEMA, or INDEX for a shard that does not match its
    /// index) on the first line, then a sentence: for a fault
    /// `at byte N: ...` (and `shard: NAME` for a fault in a shard), for a
    /// valid file the tensor count and payload bytes.
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
    /// `tensors` or of a checkpoint); a checkpoint's metadata follows. For
    /// a sharded checkpoint's `.kiln.index.json`, every shard in turn. The table has one row per tensor: index, name, dtype,
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
    /// 0x5e8fcc49ab06d825. The text must be canonical (spec section 4: no
    /// whitespace but the one space after `struct`/`enum`, known names,
    /// balanced brackets, a tuple of equal elements written `[T;N]`,
    /// N >= 2); anything else is a fault of the input: the column and the
    /// reason on stderr, exit status 1, nothing on stdout.
    Hash {
        /// The canonical type text, for example `tensors`.
        text: String,
    },
    /// Convert between safetensors and Kiln.
    ///
    /// The direction follows the file extensions (`.safetensors`, `.kiln`)
    /// or `--from` / `--to`; an input with neither is recognized by its
    /// first bytes. Names, dtypes, shapes and payload bits are kept. A
    /// safetensors file with `__metadata__` (even `{}`) becomes a Kiln
    /// checkpoint that keeps it; one without becomes a framed directory;
    /// the way back writes `__metadata__` exactly when the input is a
    /// checkpoint. Tensors from safetensors are written in name order (by
    /// bytes). IN may be a sharded checkpoint's index
    /// (`<stem>.safetensors.index.json` or `<stem>.kiln.index.json`): OUT
    /// is then a directory that receives every converted shard and the
    /// index, all or nothing. Payloads are copied in bounded chunks, so
    /// memory use does not grow with the model. A dtype, quantization link or
    /// opaque layout with no counterpart in the target format stops the
    /// conversion with an error naming the tensor. The output is written
    /// to a temporary file in the same directory and renamed over OUT.
    Convert {
        /// The input file (`-` reads standard input, spooled to a
        /// temporary file next to OUT).
        input: PathBuf,
        /// The output file (`-` writes standard output, with `--to`; the
        /// summary then goes to stderr).
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
pub enum Format {
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
pub enum Failure {
    /// A fault of an input file: exit 1. The message is complete.
    Fault(String),
    /// Bad usage or an I/O error: exit 2.
    Usage(String),
    /// Standard output was closed (for example by `| head`): stop quietly.
    BrokenPipe,
}

impl Failure {
    /// Bad usage or I/O: `what: err`.
    pub fn io(what: impl fmt::Display, err: &io::Error) -> Self {
        Failure::Usage(format!("{what}: {err}"))
    }
}

/// What a command that prints returns.
pub type Outcome = Result<(), Failure>;

/// `1 tensor`, `2 tensors`.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Writes to standard output, turning a closed pipe into a quiet stop.
pub fn out(text: &str) -> Outcome {
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

/// Runs one parsed command.
///
/// # Errors
///
/// The command's [`Failure`].
pub fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Check { file } if shard::is_index(&file) => shard::check_or_inspect(&file, None),
        Command::Inspect { file, json } if shard::is_index(&file) => {
            shard::check_or_inspect(&file, Some(json))
        }
        Command::Check { file } => inspect::check(&file),
        Command::Inspect { file, json } => inspect::inspect(&file, json),
        Command::Hash { text } => {
            if let Err(e) = type_text::check_type_text(&text) {
                let pad = " ".repeat(e.column.saturating_sub(1));
                return Err(Failure::Fault(format!(
                    "not canonical type text: {e}\n  {text}\n  {pad}^"
                )));
            }
            out(&format!("{:#018x}\n", kiln_serde::schema::hash_text(&text)))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Convert {
            input,
            output,
            from,
            to,
            bare,
        } if shard::is_index(&input) => {
            if from.is_some() || to.is_some() || bare {
                return Err(Failure::Usage(
                    "--from, --to and --bare do not apply to a sharded checkpoint".to_string(),
                ));
            }
            let summary = shard::convert_sharded(&input, &output)?;
            out(&format!(
                "{} -> {}: {summary}\n",
                input.display(),
                output.display()
            ))?;
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

/// Parses the command line, runs it and gives the exit status.
pub fn main() -> ExitCode {
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
