//! Progress bars on stderr for work that can take more than a second. They are drawn only when
//! stderr is a terminal and `--quiet` is not given, so piped or logged output never holds them.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Items between two updates of a bar: updating costs an atomic operation and a clock check,
/// which would be noticeable per key at tens of millions of keys.
pub const EVERY: u64 = 4096;

/// How a bar measures progress.
pub enum Unit {
    /// A known number of items (keys, steps), named by the noun.
    Items(u64, &'static str),
    /// A known number of input bytes (a key file being read).
    Bytes(u64),
    /// An unknown amount: a counter of the items seen (keys from stdin).
    Open(&'static str),
}

/// A bar for `what` ("diff", "simulate", ...), or a hidden one that costs nothing to update.
pub fn bar(what: &str, unit: Unit, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match unit {
        Unit::Items(len, noun) => (
            ProgressBar::new(len),
            format!("{what} {{bar:30}} {{human_pos}}/{{human_len}} {noun} {{per_sec}} eta {{eta}}"),
        ),
        Unit::Bytes(len) => (
            ProgressBar::new(len),
            format!("{what} {{bar:30}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} eta {{eta}}"),
        ),
        Unit::Open(noun) => (
            ProgressBar::new_spinner(),
            format!("{what} {{spinner}} {{human_pos}} {noun} {{per_sec}}"),
        ),
    };
    bar.with_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    )
}
