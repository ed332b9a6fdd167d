//! Output files that appear all at once: a new temporary file next to the
//! target, renamed over it only when the whole output is written.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::Failure;

/// A new file next to OUT, renamed over OUT by [`TempOut::commit`] and
/// removed if the conversion stops first.
pub struct TempOut {
    /// The temporary file's path.
    pub path: PathBuf,
    target: PathBuf,
    file: Option<File>,
    done: bool,
}

impl TempOut {
    /// Creates a new temporary file next to `target`.
    pub fn create(target: &Path) -> Result<Self, Failure> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".to_string());
        let pid = std::process::id();
        let mut last = None;
        for k in 0..100u32 {
            let path = dir.join(format!(".{base}.kiln-tmp-{pid}-{k}"));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(TempOut {
                        path,
                        target: target.to_path_buf(),
                        file: Some(file),
                        done: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(Failure::io(
                        format!("cannot create a file next to {}", target.display()),
                        &e,
                    ))
                }
            }
        }
        let e = last.unwrap_or_else(|| io::Error::other("no free temporary name"));
        Err(Failure::io(
            format!("cannot create a file next to {}", target.display()),
            &e,
        ))
    }

    /// The open temporary file.
    pub fn file_ref(&self) -> Result<&File, Failure> {
        self.file
            .as_ref()
            .ok_or_else(|| Failure::Usage("the temporary output is closed".to_string()))
    }

    /// The open temporary file, to write.
    pub fn file(&mut self) -> Result<&mut File, Failure> {
        self.file
            .as_mut()
            .ok_or_else(|| Failure::Usage("the temporary output is closed".to_string()))
    }

    /// Syncs the file and renames it over the target.
    pub fn commit(&mut self) -> Result<(), Failure> {
        let err = |what: &str, e: &io::Error| Failure::io(what.to_string(), e);
        // Reopen by path: safetensors may have replaced the file we created.
        drop(self.file.take());
        let f = File::open(&self.path)
            .map_err(|e| err(&format!("cannot reopen {}", self.path.display()), &e))?;
        f.sync_all()
            .map_err(|e| err(&format!("cannot sync {}", self.path.display()), &e))?;
        drop(f);
        fs::rename(&self.path, &self.target).map_err(|e| {
            err(
                &format!(
                    "cannot rename {} to {}",
                    self.path.display(),
                    self.target.display()
                ),
                &e,
            )
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.done {
            drop(self.file.take());
            let _ = fs::remove_file(&self.path);
        }
    }
}
