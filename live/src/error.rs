//! The one error type of the sources and publishers: a core error for a document (its kind comes
//! from conformance/errors.json), `Io` for everything between here and the document.

use std::fmt;

/// What went wrong while reading, watching or publishing a view.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The server, the file or the connection failed, or answered something that is not its
    /// protocol (an HTTP status other than success, a gateway reply that is not the JSON etcd
    /// writes, a key that is absent). Kind name `Io`. Sources retry these with backoff.
    Io {
        /// What was being done, with the address or path.
        context: String,
        /// What failed.
        message: String,
    },
    /// A document, or an update of the live view, was refused by the core: `InvalidJson`,
    /// `InvalidView`, `SeedMismatch`, `StaleView`, `ViewConflict`, ...
    View(hrwhash::Error),
    /// A publisher lost the compare-and-swap on the key this many times in a row, because other
    /// publishers kept writing it. Kind name `Io` (the write can be tried again).
    Contended {
        /// The key.
        key: String,
        /// The compare-and-swaps tried.
        tries: u32,
    },
    /// An argument is unusable (an endpoint that is not an `http://` URL, an empty key, a step
    /// interval that is not finite). Kind name `InvalidArgument`.
    InvalidArgument {
        /// Which argument, and why.
        message: String,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, message: impl fmt::Display) -> Error {
        Error::Io {
            context: context.into(),
            message: message.to_string(),
        }
    }

    /// The error's kind name: the core kind's name (conformance/errors.json) for a document, `Io`
    /// for a server, file or connection, `InvalidArgument` for an argument.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Error::Io { .. } | Error::Contended { .. } => "Io",
            Error::View(e) => e.kind().name(),
            Error::InvalidArgument { .. } => "InvalidArgument",
        }
    }

    /// The core error, when the error is about a document.
    pub fn core(&self) -> Option<&hrwhash::Error> {
        match self {
            Error::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<hrwhash::Error> for Error {
    fn from(e: hrwhash::Error) -> Error {
        Error::View(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { context, message } => write!(f, "{context}: {message}"),
            Error::View(e) => e.fmt(f),
            Error::Contended { key, tries } => write!(
                f,
                "{key}: another publisher changed the key during each of {tries} compare-and-swaps; \
                 nothing was written"
            ),
            Error::InvalidArgument { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::View(e) => Some(e),
            _ => None,
        }
    }
}
