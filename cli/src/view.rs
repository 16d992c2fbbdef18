//! View files (conformance/VIEW.md) and the node files that can stand in for one: reading them,
//! and errors that name the file.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use hrwhash::{Placement, Seed, View};

use crate::error::{from_core, CliError};
use crate::input::Membership;

/// Whether a membership file is a view: its first character other than whitespace is `{` (a node
/// file is lines of ids or a JSON array). An unreadable file is left to the node-file reader.
/// Reads only as far as that character.
pub fn is_view_file(path: &OsString) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut bytes = std::io::BufReader::new(file).bytes();
    bytes
        .find(|b| !b.as_ref().is_ok_and(u8::is_ascii_whitespace))
        .and_then(Result::ok)
        == Some(b'{')
}

/// Reads a JSON document file within the core's limits (`hrwhash::view::read_document`: at most
/// 1 GiB, no further than the first control byte); `core` words a limit's error.
pub fn read_document(
    path: &OsString,
    shown: &str,
    core: impl Fn(&hrwhash::Error) -> CliError,
) -> Result<Vec<u8>, CliError> {
    std::fs::File::open(path)
        .and_then(hrwhash::view::read_document)
        .map_err(|e| CliError::Input(format!("{shown}: {e}")))?
        .map_err(|e| core(&e))
}

/// Reads and checks a view file; errors name the file and, for a node, its 0-based index.
pub fn load(path: &OsString, seed: Seed) -> Result<View, CliError> {
    let shown = Path::new(path).display().to_string();
    let bytes = read_document(path, &shown, |e| in_file(&shown, e))?;
    View::from_json_bytes(&bytes, seed).map_err(|e| in_file(&shown, &e))
}

/// A core error about a view file, in the words of the command line.
pub fn in_file(shown: &str, e: &hrwhash::Error) -> CliError {
    let at = |i: usize| format!("nodes[{i}]");
    if let hrwhash::Error::DuplicateNodeId { index, first_index } = e {
        return CliError::input(
            "DuplicateNodeId",
            format!(
                "{shown}: {}: duplicate node id (already the id of {})",
                at(*index),
                at(*first_index)
            ),
        );
    }
    from_core(e, false, &|i| format!("of {}", at(i)), &at).at(shown)
}

/// The placement of a membership file: a view, or a node file.
pub fn placement_file(path: &OsString, seed: Seed) -> Result<Placement, CliError> {
    if is_view_file(path) {
        return Ok(load(path, seed)?.placement().clone());
    }
    Membership::from_file(path)?.build(seed)
}

/// A membership file as a view: a view as it is, a node file as the view of its nodes at
/// `epoch`.
pub fn view_file(path: &OsString, seed: Seed, epoch: u64) -> Result<View, CliError> {
    if is_view_file(path) {
        return load(path, seed);
    }
    let placement = Membership::from_file(path)?.build(seed)?;
    View::new(placement, epoch).map_err(|e| in_file(&Path::new(path).display().to_string(), &e))
}
