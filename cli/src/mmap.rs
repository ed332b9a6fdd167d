//! Reading an input file: large regular files are memory-mapped, small
//! ones (and standard input) are read into a 64-byte aligned buffer. This
//! is the only module of the tool with `unsafe` code, in one function.

use std::fs::File;
use std::io;
use std::path::Path;

use kiln_serde::tensors::AlignedBuf;
use memmap2::Mmap;

/// Files at least this large are mapped rather than read.
pub const MAP_MIN: u64 = 1 << 20;

/// The bytes of an input file.
pub enum Input {
    /// A mapped file (page aligned, so 64-byte aligned).
    Mapped(Mmap),
    /// A file read into memory.
    Read(AlignedBuf),
}

impl Input {
    /// Opens `path` (`-` is standard input) and maps or reads it.
    ///
    /// # Errors
    ///
    /// The I/O error of opening, reading or mapping the file; `path` names
    /// a directory.
    pub fn open(path: &Path) -> io::Result<Self> {
        if path.as_os_str() == "-" {
            return AlignedBuf::read_to_end_from(&mut io::stdin().lock()).map(Input::Read);
        }
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        if meta.is_file() && meta.len() >= MAP_MIN {
            map(&file).map(Input::Mapped)
        } else {
            AlignedBuf::read_to_end_from(&mut file).map(Input::Read)
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Read(b) => b.as_slice(),
        }
    }
}

/// Maps a whole file read-only.
#[allow(unsafe_code)]
fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: `Mmap::map` is unsafe because the mapped bytes change (or the
    // process gets SIGBUS) if another process modifies or truncates the
    // file while it is mapped. The tool only reads the mapping, never
    // writes to an input, and writes every output to a new temporary file
    // that is renamed into place, so it never truncates a file it (or
    // anyone) may have mapped. Inputs are taken to be left unmodified by
    // other processes while a command runs, as for any reader of a
    // memory-mapped model file; the mapping lives in `Input` and is dropped
    // before the command returns.
    unsafe { Mmap::map(file) }
}
