//! `cfg(hrwhash_avx512)` when the compiler has the AVX-512 intrinsics (stable since Rust 1.89):
//! older compilers, down to the crate's minimum version, build without those kernels.

use std::process::Command;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(hrwhash_avx512)");
    println!("cargo:rerun-if-changed=build.rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| {
            // "rustc 1.89.0 (...)"
            let version = v.split_whitespace().nth(1)?.to_owned();
            let mut parts = version.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            Some(if major > 1 { u32::MAX } else { minor })
        });
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=hrwhash_avx512");
    }
}
