//! `generate-live-view PATH` writes live-view.json; `generate-live-view --check PATH` fails when
//! the file differs from what the generator produces now.
fn main() -> std::process::ExitCode {
    hrwhash_conformance::cli::run(
        "generate-live-view",
        "The cases follow LIVE-VIEW.md: a change of outcome is a change of the live view's rules.",
        hrwhash_conformance::live_view::generate,
    )
}
