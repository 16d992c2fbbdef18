//! Helpers shared by the CLI's integration tests.
// Each test binary compiles this module and uses the helpers it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

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

/// The hrwhash command, run from this crate's folder (where the testdata paths start).
pub fn command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hrwhash"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Runs hrwhash with `args` and nothing on stdin.
pub fn hrwhash<S: AsRef<OsStr>>(args: &[S]) -> Output {
    command()
        .args(args)
        .output()
        .expect("the hrwhash binary starts")
}

/// Runs hrwhash with `args`, writing `stdin` to it.
pub fn hrwhash_with_stdin<S: AsRef<OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    let mut child = command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hrwhash binary starts");
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// What a command that must succeed prints.
pub fn ok(args: &[&str]) -> String {
    let out = hrwhash(args);
    assert!(
        out.status.success(),
        "hrwhash {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON a command that must succeed prints.
pub fn json(args: &[&str]) -> Value {
    let text = ok(args);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?} printed invalid JSON ({e}):\n{text}"))
}
