use alloc::string::String;
use core::fmt;

/// Every way an hrwhash call can fail. Bindings map each variant to their own error type, through
/// the one table of conformance/errors.json ([`Error::kind`]).
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
    /// The text is not one well-formed JSON value (a syntax error, characters after the value, a
    /// number beyond binary64, a string with no UTF-8 form, nesting more than 127 levels deep).
    InvalidJson {
        /// 1-based line of the input where parsing failed.
        line: usize,
        /// 1-based column (in bytes) where parsing failed; when the text ended too early, the
        /// column just past its last byte (1 for empty text).
        column: usize,
    },
    /// A view document is well-formed JSON but not a valid view (conformance/VIEW.md).
    InvalidView {
        /// The member at fault: `"format"`, `"epoch"`, `"nodes"`, `"weight"`, an unknown member's
        /// own name, or `""` for the document itself.
        field: String,
        /// 0-based position in `"nodes"` when the fault is inside a node.
        index: Option<usize>,
        /// What is wrong with it.
        reason: Fault,
    },
    /// The seed given is not the seed the view was written for: its fingerprint differs, or the
    /// view names the default seed and a secret one was given, or two views of one transition or
    /// ramp have different seeds.
    SeedMismatch,
    /// A ramp's per-step limit is not a fraction in (0, 1], or is too small for any step to move
    /// weights by one grid position (conformance/VIEW.md, "Ramps").
    InvalidMoveLimit {
        /// The rejected limit.
        value: f64,
    },
    /// No compatibility profile has this name (conformance/PROFILES.md).
    UnknownProfile {
        /// The name that was given.
        name: String,
    },
    /// A compatibility profile does not offer what was asked for, because its incumbent has no
    /// such thing or places it differently: weights on an unweighted incumbent, a weight the
    /// incumbent cannot take, a top-k lookup where it has none, failure domains
    /// (conformance/PROFILES.md).
    NotOffered {
        /// The profile's name.
        profile: &'static str,
        /// What it does not offer.
        what: &'static str,
    },
    /// A slot table's number of slots is not between 1 and 2^24 (conformance/POLICIES.md,
    /// "slot-table (v1)").
    InvalidSlotCount {
        /// The rejected number of slots.
        value: u64,
    },
    /// A slot number is not below the table's number of slots.
    SlotOutOfRange {
        /// The slot asked for.
        slot: u64,
        /// The table's number of slots.
        slots: u32,
    },
    /// An index (of a node in a placement, of a step in a ramp) is not below the number of items
    /// it indexes.
    IndexOutOfRange {
        /// The index asked for.
        index: usize,
        /// The number of items: valid indexes are 0 to `len - 1`.
        len: usize,
    },
    /// The domain paths or the spread level given to the `domains-v1` policy are not usable
    /// (conformance/POLICIES.md, "domains (v1)").
    InvalidDomains {
        /// 0-based position of the node at fault, or `None` when the fault is the spread level.
        index: Option<usize>,
        /// What is wrong.
        reason: Fault,
    },
    /// A policy was asked for a number of replicas that is 0 or more than its selectable nodes,
    /// or [`crate::Placement::replicas_strict`] for more than its failure domains hold.
    InvalidReplicaCount {
        /// The number asked for.
        requested: usize,
        /// The number of nodes that can be selected (weight above zero); for a strict replica
        /// set, the number of failure domains that hold one.
        available: usize,
    },
    /// A bounded-load balance factor is not a ratio `c = num / den` with `den >= 1` and
    /// `c >= 1` (conformance/POLICIES.md, bounded-load-v1); or, given as a float, it is NaN,
    /// infinite, below 1, or not below 2^32 / 10^6.
    InvalidBalanceFactor {
        /// The rejected factor (`num / den` as a float when it was given as a ratio).
        value: f64,
    },
    /// The loads given for a bounded-load lookup add up to more than 2^64 - 1.
    LoadOverflow,
    /// A replica-balanced placement cannot give a node its share: the node's weight is more than
    /// `1 / k` of the total, so it would have to hold more than one replica of some keys
    /// (conformance/POLICIES.md, replica-balance).
    InfeasibleReplicaWeights {
        /// Build-order position of the first such node.
        index: usize,
        /// The number of replicas asked for.
        k: usize,
    },
    /// A placement holds at most 2^32 - 1 nodes, and more were given.
    TooManyNodes {
        /// The number of nodes given.
        count: usize,
    },
    /// A live view was offered a view whose epoch is below its current epoch: an older
    /// membership, not applied (conformance/LIVE-VIEW.md).
    StaleView {
        /// The epoch of the view offered.
        epoch: u64,
        /// The live view's current epoch.
        current: u64,
    },
    /// A live view was offered a view at its current epoch with another fingerprint: two
    /// publishers disagree about one epoch, and neither is picked (conformance/LIVE-VIEW.md).
    ViewConflict {
        /// The epoch both views claim.
        epoch: u64,
    },
    /// What feeds a live view failed on its own terms (a lost connection, an unreadable file, a
    /// change callback that panicked or raised): a live view's last error
    /// ([`crate::LiveView::report_error`]), never returned by an hrwhash call.
    Source {
        /// The source's own name for the failure: `"Io"`, `"Http"`, `"Callback"`, `"Panic"`, a
        /// Python exception class.
        kind: String,
        /// The source's message.
        message: String,
    },
}

/// What is wrong with the input an error names: a member of a document ([`Error::InvalidView`]:
/// a view, a slot table's history) or a node's failure-domain path or the spread level
/// ([`Error::InvalidDomains`]). Its [`name`](Fault::name) is the one the vectors write.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A required member is absent.
    Missing,
    /// The member's JSON type is not the one the format requires.
    WrongType,
    /// The member is not part of the format.
    Unknown,
    /// The member appears twice in one object.
    Duplicate,
    /// The member excludes another one that is present (`id` and `id_hex`, ...).
    Conflict,
    /// The format tag or algorithm is not one this version supports.
    Unsupported,
    /// The value is malformed (an epoch that is not a canonical decimal, bad hex, an unknown seed
    /// kind).
    Invalid,
    /// The value is outside its range (an epoch above 2^64 - 1, an invalid weight).
    OutOfRange,
    /// A weight of a placement has more than 53 significant bits, so no JSON number written as a
    /// binary64 holds it exactly.
    NotRepresentable,
    /// A level of a node's domain path is empty (the domain is empty, or starts or ends with `/`,
    /// or has `//`).
    EmptyLevel,
    /// A node's domain path has another number of levels than the first node's.
    DepthMismatch,
    /// The spread level is not below the number of levels of the domain paths.
    LevelOutOfRange,
    /// The fixed-point weights of all nodes add up to 2^64 or more, so a domain's weight would
    /// not fit the exact comparison of hrw-v1.
    WeightOverflow,
}

impl Fault {
    /// The fault's name in conformance/views.json and policies/domains.json (`"missing"`,
    /// `"wrong_type"`, `"empty_level"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Fault::Missing => "missing",
            Fault::WrongType => "wrong_type",
            Fault::Unknown => "unknown",
            Fault::Duplicate => "duplicate",
            Fault::Conflict => "conflict",
            Fault::Unsupported => "unsupported",
            Fault::Invalid => "invalid",
            Fault::OutOfRange => "out_of_range",
            Fault::NotRepresentable => "not_representable",
            Fault::EmptyLevel => "empty_level",
            Fault::DepthMismatch => "depth_mismatch",
            Fault::LevelOutOfRange => "level_out_of_range",
            Fault::WeightOverflow => "weight_overflow",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fault::Missing => "is missing",
            Fault::WrongType => "has the wrong JSON type",
            Fault::Unknown => "is not a member of the view format",
            Fault::Duplicate => "appears twice",
            Fault::Conflict => "conflicts with another member that is present",
            Fault::Unsupported => "names a version this hrwhash does not support",
            Fault::Invalid => "is malformed",
            Fault::OutOfRange => "is out of range",
            Fault::NotRepresentable => "cannot be written exactly as a binary64 number",
            Fault::EmptyLevel => "has an empty level in its domain path",
            Fault::DepthMismatch => {
                "has a domain path with another number of levels than the first node's"
            }
            Fault::LevelOutOfRange => "the spread level is not below the depth of the paths",
            Fault::WeightOverflow => {
                "brings the sum of the weights to 2^32 or more, more than a domain weight can hold"
            }
        })
    }
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
            Error::InvalidJson { line, column } => {
                write!(f, "not well-formed JSON at line {line}, column {column}")
            }
            Error::InvalidView {
                field,
                index,
                reason,
            } => match (index, field.is_empty()) {
                // A slot history names members of its lists `initial.<member>` and
                // `changes.<member>` (conformance/SLOT-HISTORY.md); a view's are its nodes'.
                (Some(i), _) => match field.split_once('.') {
                    Some((list, _)) => write!(f, "{list}[{i}] member \"{field}\" {reason}"),
                    None if field == "initial" || field == "changes" => {
                        write!(f, "{field}[{i}] {reason}")
                    }
                    None => write!(f, "view: nodes[{i}] member \"{field}\" {reason}"),
                },
                (None, true) => write!(f, "view: the document {reason}"),
                (None, false) => write!(f, "view: member \"{field}\" {reason}"),
            },
            Error::SeedMismatch => f.write_str(
                "the seed does not match the view's seed (its fingerprint differs): \
                 placing keys with it would put them on other nodes",
            ),
            Error::InvalidMoveLimit { value } => write!(
                f,
                "invalid per-step move limit {value}: it must be a fraction in (0, 1] large \
                 enough to move weights by one ramp grid step"
            ),
            Error::UnknownProfile { name } => write!(
                f,
                "unknown profile {name:?} (conformance/PROFILES.md lists the profiles)"
            ),
            Error::NotOffered { profile, what } => {
                write!(f, "profile {profile} does not offer {what}")
            }
            Error::InvalidSlotCount { value } => write!(
                f,
                "invalid slot count {value}: a slot table has between 1 and 2^24 slots"
            ),
            Error::SlotOutOfRange { slot, slots } => write!(
                f,
                "slot {slot} is out of range: the table has {slots} slots (0 to {})",
                u64::from(*slots).saturating_sub(1)
            ),
            Error::IndexOutOfRange { index, len } => write!(
                f,
                "index {index} is out of range: there are {len} items (0 to {})",
                len.saturating_sub(1)
            ),
            // A node without a domain is missing its path, not a member.
            Error::InvalidDomains {
                index: Some(i),
                reason: Fault::Missing,
            } => write!(f, "domains: node {i} has no domain path"),
            Error::InvalidDomains {
                index: Some(i),
                reason,
            } => write!(f, "domains: node {i} {reason}"),
            Error::InvalidDomains {
                index: None,
                reason,
            } => write!(f, "domains: {reason}"),
            Error::InvalidReplicaCount {
                requested,
                available,
            } => write!(
                f,
                "asked for {requested} replicas: a count from 1 to {available} is needed (the \
                 nodes of weight above zero, or for a strict replica set the failure domains \
                 holding one)"
            ),
            Error::InvalidBalanceFactor { value } => write!(
                f,
                "invalid balance factor {value}: it must be a ratio num/den with den >= 1 and \
                 num/den >= 1 (below 2^32 / 10^6 when given as a float)"
            ),
            Error::LoadOverflow => f.write_str("the loads add up to more than 2^64 - 1"),
            Error::InfeasibleReplicaWeights { index, k } => write!(
                f,
                "the node at index {index} has more than 1/{k} of the total weight, so it cannot \
                 hold its share of {k} replicas without holding two replicas of one key"
            ),
            Error::TooManyNodes { count } => write!(
                f,
                "{count} nodes given: a placement holds at most 2^32 - 1 nodes"
            ),
            Error::StaleView { epoch, current } => write!(
                f,
                "stale view: epoch {epoch} is below the live view's epoch {current}; not applied"
            ),
            Error::ViewConflict { epoch } => write!(
                f,
                "view conflict: a view at epoch {epoch} has another fingerprint than the live \
                 view's; two publishers disagree, neither is applied"
            ),
            Error::Source { kind, message } => write!(f, "{kind}: {message}"),
        }
    }
}

impl core::error::Error for Error {}

/// A conversion that cannot fail (a [`crate::Weight`] given where a weight or a number is taken).
impl From<core::convert::Infallible> for Error {
    fn from(never: core::convert::Infallible) -> Error {
        match never {}
    }
}
