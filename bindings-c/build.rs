// The installed shared library is found by its SONAME, not by the path it was linked from.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "freebsd" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhrwhash.so.0");
    }
}
