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
    /// A weight is NaN, infinite, negative, at least 2^32, or positive but at most 2^-33 (so that it
    /// would round to 0 at 32 fractional bits).
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
    /// A string has no UTF-8 form (a lone UTF-16 surrogate), so it cannot be a key, id or domain.
    /// Raised by bindings whose strings are not byte strings; the core itself takes bytes.
    InvalidText {
        /// Position in the batch or node list, or `None` for a single argument.
        index: Option<usize>,
    },
    /// A count such as `k` is negative, fractional, not a number, or beyond the platform's range.
    /// Raised by bindings whose numbers are not unsigned integers.
    InvalidCount,
    /// The requested result cannot be produced: its size overflows or exceeds what can be
    /// allocated (for example keys x k for a batch ranking).
    ResultTooLarge,
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
            Error::InvalidWeight { value } => {
                // Name the one rule this value breaks, not the whole list.
                let why = if value.is_nan() {
                    "it is not a number"
                } else if value.is_infinite() {
                    "it is infinite"
                } else if *value < 0.0 {
                    "it is negative"
                } else if *value >= 4_294_967_296.0 {
                    "it is not below 2^32"
                } else {
                    "it is not above 2^-33, so it would round to 0 at 32 fractional bits (use 0 to drain a node)"
                };
                write!(f, "invalid weight {value}: {why}")
            }
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
            Error::InvalidText { index: Some(i) } => {
                write!(
                    f,
                    "the string at index {i} has no UTF-8 form (lone surrogate)"
                )
            }
            Error::InvalidText { index: None } => {
                f.write_str("the string has no UTF-8 form (lone surrogate)")
            }
            Error::InvalidCount => {
                f.write_str("a count must be a whole number >= 0 that fits the platform")
            }
            Error::ResultTooLarge => {
                f.write_str("the requested result is too large to be produced")
            }
        }
    }
}

impl core::error::Error for Error {}
