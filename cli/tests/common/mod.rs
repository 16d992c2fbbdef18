//! Helpers shared by the CLI's integration tests.

use std::path::PathBuf;

/// A fresh directory for one test's files, under cargo's scratch directory for integration tests
/// (target/tmp) rather than the system's: the same test reuses its directory on the next run, so
/// nothing piles up, and test binaries never collide because each is named after its file.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}-{name}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
