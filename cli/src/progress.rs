//! A progress bar over the bytes of a conversion, shown only on a terminal.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressStyle};

/// Conversions larger than this show a progress bar (on a terminal).
pub const PROGRESS_MIN: u64 = 256 << 20;

/// A progress bar for a conversion of `total` bytes, when stderr is a
/// terminal and the conversion is large.
pub fn progress(total: u64, what: &str) -> Option<ProgressBar> {
    if total <= PROGRESS_MIN || !io::stderr().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template(
        "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
    .map(|s| s.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::new(total).with_style(style);
    bar.set_message(what.to_string());
    Some(bar)
}
