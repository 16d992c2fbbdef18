// The installed shared library is found by its SONAME, not by the path it was linked from. The
// SONAME carries the ABI's major version (bindings-c/README.md, "ABI policy"): it changes only
// when a function of abi/libhrwhash.so.<major>.txt is removed or changes its declaration, and
// tools/check_abi.py holds the built library to that list.
const ABI_MAJOR: u32 = 1;

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "freebsd" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhrwhash.so.{ABI_MAJOR}");
    }
    // macOS's SONAME is the install name a program records; without one the linker records the
    // build directory's path. Relative to the program's rpath, so an unpacked tarball works
    // wherever it is.
    if os == "macos" {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libhrwhash.{ABI_MAJOR}.dylib"
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}
