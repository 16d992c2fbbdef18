use core::fmt;

/// Every way an hrwhash call can fail. Bindings map each variant to their own error type.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A placement needs at least one node.
    EmptyMembership,
    /// Node ids are non-empty byte strings.
    EmptyNodeId {
        /// Position of the offending node in the caller's list.
        index: usize,
    },
    /// Two nodes share an id.
    DuplicateNodeId {
        /// Position of the second occurrence.
        index: usize,
        /// Position of the first occurrence.
        first_index: usize,
    },
    /// A weight is NaN, infinite, negative, at least 2^32, or positive but below 2^-33.
    InvalidWeight {
        /// The rejected value.
        value: f64,
    },
    /// Every node has weight zero, so no node could ever be selected.
    AllWeightsZero,
    /// A seed must be exactly 16 bytes.
    InvalidSeedLength {
        /// Length that was given.
        len: usize,
    },
    /// Two sequences that must have equal lengths do not (weights vs nodes, keys vs outputs).
    LengthMismatch {
        /// Length required.
        expected: usize,
        /// Length given.
        actual: usize,
    },
    /// No node with the given id is in the placement.
    UnknownNode,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::EmptyMembership => f.write_str("a placement needs at least one node"),
            Error::EmptyNodeId { index } => write!(f, "node id at index {index} is empty"),
            Error::DuplicateNodeId { index, first_index } => write!(
                f,
                "node id at index {index} duplicates the id at index {first_index}"
            ),
            Error::InvalidWeight { value } => write!(
                f,
                "invalid weight {value}: weights must be finite, >= 0 and < 2^32, and a positive weight must be >= 2^-33"
            ),
            Error::AllWeightsZero => {
                f.write_str("every node has weight 0, so no node could be selected")
            }
            Error::InvalidSeedLength { len } => {
                write!(f, "a seed is exactly 16 bytes, got {len}")
            }
            Error::LengthMismatch { expected, actual } => {
                write!(f, "expected {expected} items, got {actual}")
            }
            Error::UnknownNode => f.write_str("no node with that id is in the placement"),
        }
    }
}

impl core::error::Error for Error {}
