//! Core error variants and binding-level misuse as the exception classes of `hrwhash/errors.py`,
//! one class per variant of conformance/API.md section 1, with the details of its section 2. Both
//! the classes and the variant-to-class table (`error_table.rs`) are generated from
//! conformance/errors.json.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use hrwhash::Error;

/// Raises `class` from `hrwhash.errors` with `message` and the keyword attributes in `fields`.
fn raise(py: Python<'_>, class: &str, message: String, fields: &Bound<'_, PyDict>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("hrwhash.errors")?;
        let exc = module.getattr(class)?.call((message,), Some(fields))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

/// `raise` of `class` with `message` and the attributes given as `name => value`.
macro_rules! raise_with {
    ($py:expr, $class:literal, $message:expr $(, $name:literal => $value:expr)*) => {{
        let fields = PyDict::new($py);
        $(let _ = fields.set_item($name, $value);)*
        raise($py, $class, $message, &fields)
    }};
}

/// Maps a core error variant to its Python exception class, with the variant's fields as
/// attributes and `detail` naming the offending value.
pub(crate) fn error(py: Python<'_>, err: Error, detail: Option<String>) -> PyErr {
    let message = match &detail {
        Some(d) => format!("{err} ({d})"),
        None => err.to_string(),
    };
    let fields = PyDict::new(py);
    let class = match crate::error_table::class_of(&err, &fields) {
        Ok(class) => class,
        Err(e) => return e,
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
    raise_with!(py, "InvalidWeightError", message, "value" => value, "index" => index)
}

/// `InvalidTextError`: a str with a lone surrogate, at `index` when it is an element of a list.
pub(crate) fn invalid_text(py: Python<'_>, message: String, index: Option<usize>) -> PyErr {
    raise_with!(py, "InvalidTextError", message, "index" => index)
}

/// `InvalidCountError` for the count object `value`.
pub(crate) fn invalid_count(py: Python<'_>, message: String, value: &Bound<'_, PyAny>) -> PyErr {
    raise_with!(py, "InvalidCountError", message, "value" => value)
}

/// `InvalidCountError` for `value`, item `index` of a list (a load).
pub(crate) fn invalid_count_at(
    py: Python<'_>,
    message: String,
    value: &Bound<'_, PyAny>,
    index: usize,
) -> PyErr {
    raise_with!(py, "InvalidCountError", message, "value" => value, "index" => index)
}

/// `InvalidArgumentError` (a `TypeError`): a wrong type, a released buffer or an unknown keyword.
pub(crate) fn invalid_argument(py: Python<'_>, message: String, index: Option<usize>) -> PyErr {
    raise_with!(py, "InvalidArgumentError", message, "index" => index)
}
