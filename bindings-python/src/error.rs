//! Core error variants and binding-level misuse as the exception classes of `hrwhash/_errors.py`,
//! one class per variant of conformance/API.md section 1, with the details of its section 2.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use hrwhash::Error;

/// Raises `class` from `hrwhash._errors` with `message` and the keyword attributes in `fields`.
fn raise(py: Python<'_>, class: &str, message: String, fields: &Bound<'_, PyDict>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("hrwhash._errors")?;
        let exc = module.getattr(class)?.call((message,), Some(fields))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

/// Maps a core error variant to its Python exception class, with the variant's fields as
/// attributes and `detail` naming the offending value.
pub(crate) fn error(py: Python<'_>, err: Error, detail: Option<String>) -> PyErr {
    let message = match &detail {
        Some(d) => format!("{err} ({d})"),
        None => err.to_string(),
    };
    let fields = PyDict::new(py);
    let class = match &err {
        Error::EmptyMembership => "EmptyMembershipError",
        Error::EmptyNodeId { index } => {
            let _ = fields.set_item("index", index);
            "EmptyNodeIdError"
        }
        Error::DuplicateNodeId { index, first_index } => {
            let _ = fields.set_item("index", index);
            let _ = fields.set_item("first_index", first_index);
            "DuplicateNodeIdError"
        }
        Error::InvalidWeight { value } => {
            let _ = fields.set_item("value", value);
            "InvalidWeightError"
        }
        Error::AllWeightsZero => "AllWeightsZeroError",
        Error::InvalidSeedLength { len } => {
            let _ = fields.set_item("length", len);
            "InvalidSeedLengthError"
        }
        Error::LengthMismatch { expected, actual } => {
            let _ = fields.set_item("expected", expected);
            let _ = fields.set_item("actual", actual);
            "LengthMismatchError"
        }
        Error::UnknownNode => "UnknownNodeError",
        Error::InvalidText { index } => {
            let _ = fields.set_item("index", index);
            "InvalidTextError"
        }
        Error::InvalidCount => "InvalidCountError",
        Error::ResultTooLarge => "ResultTooLargeError",
        Error::InvalidJson { line, column } => {
            let _ = fields.set_item("line", line);
            let _ = fields.set_item("column", column);
            "InvalidJsonError"
        }
        Error::InvalidView {
            field,
            index,
            reason,
        } => {
            let _ = fields.set_item("field", field);
            let _ = fields.set_item("index", index);
            let _ = fields.set_item("reason", reason.name());
            "InvalidViewError"
        }
        Error::SeedMismatch => "SeedMismatchError",
        Error::InvalidMoveLimit { value } => {
            let _ = fields.set_item("value", value);
            "InvalidMoveLimitError"
        }
        Error::UnknownProfile { name } => {
            let _ = fields.set_item("name", name);
            "UnknownProfileError"
        }
        Error::NotOffered { profile, what } => {
            let _ = fields.set_item("profile", profile);
            let _ = fields.set_item("what", what);
            "NotOfferedError"
        }
        Error::InvalidSlotCount { value } => {
            let _ = fields.set_item("value", value);
            "InvalidSlotCountError"
        }
        Error::SlotOutOfRange { slot, slots } => {
            let _ = fields.set_item("slot", slot);
            let _ = fields.set_item("slots", slots);
            "SlotOutOfRangeError"
        }
        Error::InvalidDomains { index, reason } => {
            let _ = fields.set_item("index", index);
            let _ = fields.set_item("reason", reason.name());
            "InvalidDomainsError"
        }
        Error::InvalidReplicaCount {
            requested,
            available,
        } => {
            let _ = fields.set_item("requested", requested);
            let _ = fields.set_item("available", available);
            "InvalidReplicaCountError"
        }
        Error::InvalidBalanceFactor { value } => {
            let _ = fields.set_item("value", value);
            "InvalidBalanceFactorError"
        }
        Error::LoadOverflow => "LoadOverflowError",
        Error::InfeasibleReplicaWeights { index, k } => {
            let _ = fields.set_item("index", index);
            let _ = fields.set_item("k", k);
            "InfeasibleReplicaWeightsError"
        }
        // A variant added to the core after this binding was written.
        _ => "HrwError",
    };
    raise(py, class, message, &fields)
}

/// `InvalidWeightError` for the weight object `value` (kept as given, so an int too large for a
/// float is reported as that int), at node `index` when the weight belongs to a node.
pub(crate) fn invalid_weight(
    py: Python<'_>,
    message: String,
    value: &Bound<'_, PyAny>,
    index: Option<usize>,
) -> PyErr {
    let fields = PyDict::new(py);
    let _ = fields.set_item("value", value);
    let _ = fields.set_item("index", index);
    raise(py, "InvalidWeightError", message, &fields)
}

/// `InvalidTextError`: a str with a lone surrogate, at `index` when it is an element of a list.
pub(crate) fn invalid_text(py: Python<'_>, message: String, index: Option<usize>) -> PyErr {
    let fields = PyDict::new(py);
    let _ = fields.set_item("index", index);
    raise(py, "InvalidTextError", message, &fields)
}

/// `InvalidCountError` for the count object `value`.
pub(crate) fn invalid_count(py: Python<'_>, message: String, value: &Bound<'_, PyAny>) -> PyErr {
    let fields = PyDict::new(py);
    let _ = fields.set_item("value", value);
    raise(py, "InvalidCountError", message, &fields)
}

/// `InvalidArgumentError` (a `TypeError`): a wrong type, a released buffer or an unknown keyword.
pub(crate) fn invalid_argument(py: Python<'_>, message: String, index: Option<usize>) -> PyErr {
    let fields = PyDict::new(py);
    let _ = fields.set_item("index", index);
    raise(py, "InvalidArgumentError", message, &fields)
}
