//! The tool's one error type. Its variant decides the exit status, so a script can tell a mistyped
//! command line (2) from input data that cannot be used (1), and an error that
//! `conformance/API.md` names carries that name, printed as `hrwhash: error[<Variant>]: ...`.

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
    /// A bad value of a kind the bad-input contract names (`variant` is the name of API.md
    /// section 1), given on the command line (`usage`, exit 2) or in input data (exit 1).
    Invalid {
        variant: &'static str,
        usage: bool,
        message: String,
    },
}

impl CliError {
    /// A contract error in a command-line value.
    pub fn usage(variant: &'static str, message: impl Into<String>) -> CliError {
        CliError::Invalid {
            variant,
            usage: true,
            message: message.into(),
        }
    }

    /// A contract error in a file or on stdin.
    pub fn input(variant: &'static str, message: impl Into<String>) -> CliError {
        CliError::Invalid {
            variant,
            usage: false,
            message: message.into(),
        }
    }

    /// The error with `place` (a file, a document) before the message of a contract error.
    pub fn at(self, place: &str) -> CliError {
        match self {
            CliError::Invalid {
                variant,
                usage,
                message,
            } => CliError::Invalid {
                variant,
                usage,
                message: format!("{place}: {message}"),
            },
            other => other,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Invalid { usage: true, .. } => 2,
            CliError::Input(_) | CliError::Output(_) | CliError::Invalid { usage: false, .. } => 1,
        }
    }

    /// The API.md variant, when the error is one the contract names.
    pub fn variant(&self) -> Option<&'static str> {
        match self {
            CliError::Invalid { variant, .. } => Some(variant),
            _ => None,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Input(m) | CliError::Invalid { message: m, .. } => {
                f.write_str(m)
            }
            CliError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                f.write_str("cannot write output: the reader of standard output closed it")
            }
            CliError::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        CliError::Output(e)
    }
}

/// The API.md section 1 name of a core error (conformance/errors.json).
pub fn variant_name(err: &hrwhash::Error) -> &'static str {
    err.kind().name()
}

/// A core error as a contract error, in the words of the command line. `at(i)` names where node
/// `i` came from ("--nodes index 3", "nodes.txt line 4"), because the core only knows positions.
pub fn from_core(
    err: &hrwhash::Error,
    usage: bool,
    ids: &dyn Fn(usize) -> String,
    at: &dyn Fn(usize) -> String,
) -> CliError {
    use hrwhash::Error;
    let message = match err {
        Error::EmptyMembership => "no nodes given".to_string(),
        Error::EmptyNodeId { index } => format!("{}: node id is empty", at(*index)),
        Error::DuplicateNodeId { index, first_index } => format!(
            "{}: node id {} is already the id at {}",
            at(*index),
            ids(*index),
            at(*first_index)
        ),
        Error::InvalidWeight { value } => weight_problem(&value.to_string(), *value),
        Error::AllWeightsZero => "every node has weight 0, so no node could own a key".to_string(),
        Error::InvalidSeedLength { len } => {
            format!("--seed is {len} bytes ({} hex digits), not 16", 2 * len)
        }
        Error::LengthMismatch { expected, actual } => {
            format!("{actual} items given where {expected} are needed")
        }
        other => other.to_string(),
    };
    CliError::Invalid {
        variant: variant_name(err),
        usage,
        message,
    }
}

/// What is wrong with a weight that `hrwhash::Weight::new` rejects or that parsing lost, written
/// as it was given: only the rule this value breaks.
pub fn weight_problem(text: &str, value: f64) -> String {
    let digits = text.split(['e', 'E']).next().unwrap_or("");
    if value.is_nan() {
        format!("weight {text} is not a number")
    } else if value < 0.0 || text.starts_with('-') {
        // `-1e-400` parses to -0.0, but the decimal is negative.
        format!("weight {text} is negative")
    } else if value.is_infinite() && !digits.bytes().any(|b| b.is_ascii_digit()) {
        format!("weight {text} is infinite")
    } else if value >= 4_294_967_296.0 {
        format!("weight {text} is 2^32 (4294967296) or more")
    } else if value == 0.0 {
        format!(
            "weight {text} is not 0 but is too small to be represented as a binary64 number; \
             it would silently drain the node (write 0 for that)"
        )
    } else {
        format!(
            "weight {text} is not above 2^-33, so it rounds to 0 at 32 fractional bits and would \
             silently drain the node (write 0 for that)"
        )
    }
}
