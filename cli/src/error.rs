//! The tool's one error type. Its variant decides the exit status, so a script can tell a mistyped
//! command line (2) from input data that cannot be used (1).

use std::fmt;
use std::io;

#[derive(Debug)]
pub enum CliError {
    /// A flag or argument value is unusable. Exit status 2, like clap's own usage errors.
    Usage(String),
    /// A file or stdin could not be read or holds something unusable. Exit status 1.
    Input(String),
    /// Writing the result failed. Exit status 1.
    Output(io::Error),
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Input(_) | CliError::Output(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Input(m) => f.write_str(m),
            CliError::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        CliError::Output(e)
    }
}

/// Explains a core error in the words of the command line. `at(i)` names where node `i` came
/// from ("--nodes item 3", "nodes.txt line 4"), because the core only knows positions.
pub fn describe(err: &hrwhash::Error, at: &dyn Fn(usize) -> String) -> String {
    use hrwhash::Error;
    match err {
        Error::EmptyMembership => "no nodes given: a placement needs at least one node".to_string(),
        Error::EmptyNodeId { index } => format!("{}: node id is empty", at(*index)),
        Error::DuplicateNodeId { index, first_index } => format!(
            "{}: duplicate node id (already given at {})",
            at(*index),
            at(*first_index)
        ),
        Error::InvalidWeight { value } => format!(
            "invalid weight {value}: a weight must be a finite number >= 0 and < 4294967296 \
             (0 keeps a node but never selects it)"
        ),
        Error::AllWeightsZero => "every node has weight 0, so no node could own a key".to_string(),
        Error::InvalidSeedLength { len } => {
            format!("a seed is 16 bytes (32 hex digits), got {len} bytes")
        }
        Error::LengthMismatch { expected, actual } => {
            format!("expected {expected} items, got {actual}")
        }
        Error::UnknownNode => "no node with that id is in the placement".to_string(),
        // The enum is non-exhaustive: a newer core may add variants, which still explain themselves.
        other => other.to_string(),
    }
}
