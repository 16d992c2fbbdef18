//! Sets `hrwhash_avx512` when the compiler has stable AVX-512 intrinsics (Rust 1.89): the crate
//! supports older compilers (its rust-version), which build it without the AVX-512 kernels.

use std::process::Command;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(hrwhash_avx512)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|v| {
            // "rustc 1.95.0 (59807616e 2026-04-14)"
            let version = v.split_whitespace().nth(1)?;
            let mut parts = version.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            let minor: u32 = parts.next()?.parse().ok()?;
            Some(if major > 1 { u32::MAX } else { minor })
        });
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=hrwhash_avx512");
    }
}
