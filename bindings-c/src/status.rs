//! Status codes, error details and version.

use std::ffi::{c_char, CStr};

use hrwhash_core::{Error, Fault};

use crate::ffi::guard;

pub use crate::status_table::hrw_status;

impl From<&Error> for hrw_status {
    fn from(e: &Error) -> hrw_status {
        e.kind().into()
    }
}

/// Details of a failed call, for messages that name the offending node, value or length. Calls
/// that take an optional `hrw_error *` write it on failure only.
///
/// Only the fields that the status names are meaningful; the others are zero.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_error {
    /// Same as the returned status.
    pub status: hrw_status,
    /// EMPTY_NODE_ID, DUPLICATE_NODE_ID, INVALID_WEIGHT: position of the node (0-based; for
    /// `hrw_placement_with_node` the position it would get, the placement's length).
    /// NULL_PARAMETER: position of the node whose id or domain pointer is NULL.
    /// INFEASIBLE_REPLICA_WEIGHTS: position of the first node with too much weight.
    /// INDEX_OUT_OF_RANGE: the index asked for (a ramp's step).
    pub index: usize,
    /// DUPLICATE_NODE_ID: position of the first node with that id.
    pub first_index: usize,
    /// INVALID_WEIGHT: the rejected weight. INVALID_MOVE_LIMIT: the rejected limit.
    /// INVALID_BALANCE_FACTOR: the rejected factor (`num / den`, NaN or infinite when `den` is 0).
    pub value: f64,
    /// LENGTH_MISMATCH, INVALID_SEED_LENGTH: the length required. SLOT_OUT_OF_RANGE: the
    /// table's number of slots. INFEASIBLE_REPLICA_WEIGHTS: the number of replicas asked for.
    /// INDEX_OUT_OF_RANGE: the number of items (a ramp's steps).
    pub expected: usize,
    /// LENGTH_MISMATCH, INVALID_SEED_LENGTH: the length given. INVALID_SLOT_COUNT: the rejected
    /// number of slots; SLOT_OUT_OF_RANGE: the slot asked for (both saturated to `SIZE_MAX`).
    pub actual: usize,
    /// INVALID_JSON: the 1-based line where parsing stopped.
    pub line: usize,
    /// INVALID_JSON: the 1-based column (in bytes) where parsing stopped; when the text ended
    /// too early, the column just past its last byte.
    pub column: usize,
    /// INVALID_VIEW: whether `index` names a node (a position in `"nodes"`); when false the
    /// fault is outside the nodes and `index` is 0.
    pub has_index: bool,
    /// INVALID_VIEW: what is wrong with the member `field`.
    pub reason: hrw_view_fault,
    /// INVALID_VIEW: the length in bytes of the member name at fault (`"format"`, `"weight"`, an
    /// unknown member's own name, or empty for the document itself). The name may be longer
    /// than `field` holds: then `field` has its first `HRW_ERROR_FIELD_SIZE - 1` bytes.
    pub field_len: usize,
    /// INVALID_VIEW: the member name at fault, NUL-terminated (a name that itself contains NUL
    /// is cut there for `%s`; `field_len` is its real length).
    pub field: [u8; HRW_ERROR_FIELD_SIZE],
    /// IO: the operating system's error number (`errno`), or 0 when there is none.
    pub os_error: i32,
    /// STALE_VIEW: the epoch of the view offered. VIEW_CONFLICT: the epoch both views claim.
    pub epoch: u64,
    /// STALE_VIEW: the live view's current epoch.
    pub current_epoch: u64,
}

/// Capacity of `hrw_error.field`, its NUL included (`HRW_ERROR_FIELD_SIZE` in the header).
pub const HRW_ERROR_FIELD_SIZE: usize = 64;

/// What is wrong with a member of a view document (`hrw_error.reason` of INVALID_VIEW; its
/// name in conformance/views.json comes from `hrw_view_fault_name`). The numbers never change.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hrw_view_fault {
    /// Not an INVALID_VIEW error.
    None = 0,
    /// A required member is absent.
    Missing = 1,
    /// The member's JSON type is not the one the format requires.
    WrongType = 2,
    /// The member is not part of the format.
    Unknown = 3,
    /// The member appears twice in one object.
    Duplicate = 4,
    /// The member excludes another one that is present.
    Conflict = 5,
    /// The format tag or algorithm is not one this version supports.
    Unsupported = 6,
    /// The value is malformed.
    Invalid = 7,
    /// The value is outside its range.
    OutOfRange = 8,
    /// A weight has more than 53 significant bits: no JSON number holds it exactly.
    NotRepresentable = 9,
    /// A fault this version of the C ABI does not know by name.
    Other = 10,
}

impl From<Fault> for hrw_view_fault {
    fn from(f: Fault) -> hrw_view_fault {
        match f {
            Fault::Missing => hrw_view_fault::Missing,
            Fault::WrongType => hrw_view_fault::WrongType,
            Fault::Unknown => hrw_view_fault::Unknown,
            Fault::Duplicate => hrw_view_fault::Duplicate,
            Fault::Conflict => hrw_view_fault::Conflict,
            Fault::Unsupported => hrw_view_fault::Unsupported,
            Fault::Invalid => hrw_view_fault::Invalid,
            Fault::OutOfRange => hrw_view_fault::OutOfRange,
            Fault::NotRepresentable => hrw_view_fault::NotRepresentable,
            _ => hrw_view_fault::Other,
        }
    }
}

/// The name of a view fault as conformance/views.json spells it ("missing", "wrong_type", ...;
/// "" for NONE), static and NUL-terminated; never NULL, also for unknown numbers ("unknown fault").
#[no_mangle]
pub extern "C" fn hrw_view_fault_name(reason: u32) -> *const c_char {
    const NAMES: [&CStr; 10] = [
        c"",
        c"missing",
        c"wrong_type",
        c"unknown",
        c"duplicate",
        c"conflict",
        c"unsupported",
        c"invalid",
        c"out_of_range",
        c"not_representable",
    ];
    NAMES
        .get(reason as usize)
        .copied()
        .unwrap_or(c"unknown fault")
        .as_ptr()
}

impl From<hrw_status> for hrw_error {
    fn from(status: hrw_status) -> hrw_error {
        hrw_error::from_status(status)
    }
}

impl From<Error> for hrw_error {
    fn from(e: Error) -> hrw_error {
        hrw_error::from_core(&e)
    }
}

impl hrw_error {
    pub(crate) fn from_status(status: hrw_status) -> hrw_error {
        hrw_error {
            status,
            index: 0,
            first_index: 0,
            value: 0.0,
            expected: 0,
            actual: 0,
            line: 0,
            column: 0,
            has_index: false,
            reason: hrw_view_fault::None,
            field_len: 0,
            field: [0; HRW_ERROR_FIELD_SIZE],
            os_error: 0,
            epoch: 0,
            current_epoch: 0,
        }
    }

    /// This error, about the element at `index` of the caller's list.
    pub(crate) fn at(self, index: usize) -> hrw_error {
        hrw_error { index, ..self }
    }

    pub(crate) fn from_core(e: &Error) -> hrw_error {
        let mut d = hrw_error::from_status(e.into());
        match *e {
            Error::EmptyNodeId { index } => d.index = index,
            Error::DuplicateNodeId { index, first_index } => {
                d.index = index;
                d.first_index = first_index;
            }
            Error::InvalidWeight { value } => d.value = value,
            Error::InvalidSeedLength { len } => {
                d.expected = 16;
                d.actual = len;
            }
            Error::LengthMismatch { expected, actual } => {
                d.expected = expected;
                d.actual = actual;
            }
            Error::InvalidText { index: Some(index) } => d.index = index,
            Error::InvalidJson { line, column } => {
                d.line = line;
                d.column = column;
            }
            Error::InvalidView {
                ref field,
                index,
                reason,
            } => {
                d.has_index = index.is_some();
                d.index = index.unwrap_or(0);
                d.reason = reason.into();
                d.field_len = field.len();
                let kept = field.len().min(HRW_ERROR_FIELD_SIZE - 1);
                d.field[..kept].copy_from_slice(&field.as_bytes()[..kept]);
            }
            Error::InvalidMoveLimit { value } => d.value = value,
            Error::InvalidSlotCount { value } => {
                d.actual = usize::try_from(value).unwrap_or(usize::MAX)
            }
            Error::SlotOutOfRange { slot, slots } => {
                d.expected = slots as usize;
                d.actual = usize::try_from(slot).unwrap_or(usize::MAX);
            }
            Error::IndexOutOfRange { index, len } => {
                d.index = index;
                d.expected = len;
            }
            Error::InvalidBalanceFactor { value } => d.value = value,
            Error::InfeasibleReplicaWeights { index, k } => {
                d.index = index;
                d.expected = k;
            }
            Error::TooManyNodes { count } => d.actual = count,
            Error::StaleView { epoch, current } => {
                d.epoch = epoch;
                d.current_epoch = current;
            }
            Error::ViewConflict { epoch } => d.epoch = epoch,
            _ => {}
        }
        d
    }
}

/// A static, NUL-terminated English message for a status; never NULL, also for unknown numbers.
#[no_mangle]
pub extern "C" fn hrw_status_message(status: u32) -> *const c_char {
    // Takes the number rather than `hrw_status` so that an out-of-range value from C is not UB.
    let mut msg = c"hrwhash panicked (a bug: please report it)";
    guard(|| {
        msg = crate::status_table::message(status).unwrap_or(c"unknown status code");
        Ok(())
    });
    msg.as_ptr()
}

/// The library version (for example "1.0.0"), static and NUL-terminated; compare with
/// `HRW_VERSION_STRING` to detect a header/library mismatch.
#[no_mangle]
pub extern "C" fn hrw_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("version contains NUL"),
        };
    VERSION.as_ptr()
}

/// `HRW_ALGORITHM` of the header (cbindgen.toml), the C caller's algorithm tag.
const HEADER_ALGORITHM: &[u8] = b"hrw-v1";

const fn same_tag(tag: &[u8], core: &[u8]) -> bool {
    if tag.len() != core.len() {
        return false;
    }
    let mut i = 0;
    while i < core.len() {
        if tag[i] != core[i] {
            return false;
        }
        i += 1;
    }
    true
}

// The header promises "hrw-v1" (HRW_ALGORITHM); the build fails if the core ever disagrees.
const _: () = assert!(same_tag(
    HEADER_ALGORITHM,
    hrwhash_core::ALGORITHM.as_bytes()
));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status_table::STATUSES;
    use hrwhash_core::ErrorKind;

    #[test]
    fn every_core_kind_has_its_own_status() {
        let mut seen = Vec::new();
        for &kind in ErrorKind::ALL {
            let status = hrw_status::from(kind);
            assert_ne!(status, hrw_status::Unknown, "{kind:?} has no status");
            assert!(!seen.contains(&status), "{kind:?} shares {status:?}");
            seen.push(status);
        }
    }

    #[test]
    fn statuses_are_in_numeric_order_and_each_has_a_message() {
        for pair in STATUSES.windows(2) {
            assert!((pair[0] as u32) < (pair[1] as u32), "{pair:?}");
        }
        for &status in STATUSES {
            let msg = crate::status_table::message(status as u32);
            assert!(msg.is_some_and(|m| !m.is_empty()), "{status:?}");
        }
        let last = *STATUSES.last().expect("statuses") as u32;
        assert_eq!(crate::status_table::message(last + 1), None);
    }
}
