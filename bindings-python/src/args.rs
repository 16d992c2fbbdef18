//! Python arguments to the core's values, with the checks of conformance/API.md section 3.
//!
//! Each argument is checked in two steps so that a call can report the first failure in the order
//! of API.md section 4: first its type and shape (`InvalidArgumentError`), then its text
//! (`InvalidTextError`), and only then the values the core rules on.

use std::borrow::Cow;
use std::fmt;
use std::os::raw::c_char;

use pyo3::exceptions::{
    PyMemoryError, PyOverflowError, PyTypeError, PyUnicodeEncodeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyMemoryView, PyString,
};

use hrwhash::{Seed, Weight};

use crate::error::{error, invalid_argument, invalid_count, invalid_text, invalid_weight};

extern "C" {
    // Part of the stable ABI since 3.10 and exported by every CPython 3 before that, so the
    // abi3 (3.9) wheel may call it; pyo3 hides it below 3.10. It avoids a temporary bytes
    // object per str key, which would otherwise cost more than the lookup itself.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const c_char;
}

/// What an argument is and where it sits, for messages and the `index` of an error.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub what: &'a str,
    pub index: Option<usize>,
}

impl<'a> At<'a> {
    /// A single argument.
    pub fn one(what: &'a str) -> At<'a> {
        At { what, index: None }
    }

    /// Element `index` of a list argument.
    pub fn item(what: &'a str, index: usize) -> At<'a> {
        At {
            what,
            index: Some(index),
        }
    }
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{} at index {i}", self.what),
            None => f.write_str(self.what),
        }
    }
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// `obj` as a `T`, or an InvalidArgumentError whose text `message` makes of `obj`'s type name.
pub(crate) fn cast_arg<'a, 'py, T: pyo3::type_object::PyTypeCheck>(
    obj: &'a Bound<'py, PyAny>,
    message: impl FnOnce(String) -> String,
) -> PyResult<&'a Bound<'py, T>> {
    obj.cast::<T>()
        .map_err(|_| invalid_argument(obj.py(), message(type_name(obj)), None))
}

/// The type check of a number given as an int or a float, not a bool (which Python counts as an
/// int): an InvalidArgumentError whose text `message` makes of `obj`'s type name otherwise. An
/// epoch, a duration and a ramp's limit are checked alike before their values are.
pub(crate) fn check_int_or_float(
    obj: &Bound<'_, PyAny>,
    message: impl FnOnce(String) -> String,
) -> PyResult<()> {
    if obj.is_instance_of::<PyBool>()
        || !(obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>())
    {
        return Err(invalid_argument(obj.py(), message(type_name(obj)), None));
    }
    Ok(())
}

pub(crate) fn repr(obj: &Bound<'_, PyAny>) -> String {
    const SHOWN: usize = 80;
    let r = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_owned());
    // A 16 MiB key must not make a 16 MiB message.
    match r.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}...", &r[..cut]),
        None => r,
    }
}

fn wrong_type(obj: &Bound<'_, PyAny>, at: At<'_>, wanted: &str) -> PyErr {
    invalid_argument(
        obj.py(),
        format!("{at} is {} {}, not {wanted}", type_name(obj), repr(obj)),
        at.index,
    )
}

/// The UTF-8 bytes of a str, cached inside the str object and valid as long as it lives.
fn str_utf8<'a>(s: &'a Bound<'_, PyString>, at: At<'_>) -> PyResult<&'a [u8]> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live str; on success CPython returns a buffer owned by `s` of `size` bytes.
    let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if ptr.is_null() {
        let py = s.py();
        let err = PyErr::fetch(py);
        if err.is_instance_of::<PyUnicodeEncodeError>(py) {
            return Err(invalid_text(
                py,
                format!(
                    "{at} {} has no UTF-8 form: it holds a lone surrogate",
                    repr(s.as_any())
                ),
                at.index,
            ));
        }
        return Err(err);
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), size as usize) })
}

/// Whether a memoryview was released: every attribute of a released one raises ValueError.
fn is_released(view: &Bound<'_, PyAny>) -> PyResult<bool> {
    match view.getattr(pyo3::intern!(view.py(), "nbytes")) {
        Ok(_) => Ok(false),
        Err(e) if e.is_instance_of::<PyValueError>(view.py()) => Ok(true),
        Err(e) => Err(e),
    }
}

/// The type check of a key: str, bytes, bytearray or a memoryview that is not released.
pub(crate) fn check_key(obj: &Bound<'_, PyAny>, at: At<'_>) -> PyResult<()> {
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return Ok(());
    }
    if obj.is_instance_of::<PyMemoryView>() {
        if is_released(obj)? {
            return Err(invalid_argument(
                obj.py(),
                format!("{at} is a released memoryview"),
                at.index,
            ));
        }
        return Ok(());
    }
    Err(wrong_type(obj, at, "str, bytes, bytearray or memoryview"))
}

/// The bytes of a key. str and bytes are immutable and borrowed; a bytearray or memoryview may
/// change while the GIL is released, so it is copied.
pub(crate) fn key_bytes<'a>(obj: &'a Bound<'_, PyAny>, at: At<'_>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return str_utf8(s, at).map(Cow::Borrowed);
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Cow::Owned(b.to_vec()));
    }
    check_key(obj, at)?;
    let copy = obj.call_method0(pyo3::intern!(obj.py(), "tobytes"))?;
    Ok(Cow::Owned(copy.cast::<PyBytes>()?.as_bytes().to_vec()))
}

/// The type check of a node id or failure domain: str or bytes (immutable, hashable).
pub(crate) fn check_id(obj: &Bound<'_, PyAny>, at: At<'_>) -> PyResult<()> {
    if is_one_text(obj) {
        return Ok(());
    }
    Err(wrong_type(obj, at, "str or bytes"))
}

/// Whether `obj` is a str or bytes: one id or key, where a sequence of them is wanted.
pub(crate) fn is_one_text(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>()
}

/// The bytes of a node id or failure domain.
pub(crate) fn id_bytes<'a>(obj: &'a Bound<'_, PyAny>, at: At<'_>) -> PyResult<&'a [u8]> {
    if let Ok(s) = obj.cast::<PyString>() {
        return str_utf8(s, at);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes());
    }
    Err(wrong_type(obj, at, "str or bytes"))
}

/// The items of a list argument: any iterable but a single str or bytes-like value, which Python
/// would otherwise iterate character by character (`Placement("abc")` would be nodes a, b, c).
pub(crate) fn items<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut items = Vec::new();
    for item in items_iter(obj, what)? {
        try_push(&mut items, item?)?;
    }
    Ok(items)
}

/// Appends to a list read from a Python iterable, with `MemoryError` where Python's own list would
/// raise it: an endless iterable must not abort the process when the allocation fails.
pub(crate) fn try_push<T>(items: &mut Vec<T>, item: T) -> PyResult<()> {
    if items.len() == items.capacity() {
        items.try_reserve(items.len().max(16)).map_err(|_| {
            PyMemoryError::new_err(format!("{} items do not fit in memory", items.len() * 2))
        })?;
    }
    items.push(item);
    Ok(())
}

/// The items of a list argument that must have one item per node (weights, domains, loads), read no
/// further than one past `expected`: a longer iterable, endless ones included, is refused as
/// soon as that item is read, never collected. `len` is the argument's own length where it has
/// one (`range(10**10)`), else the items read, and then `at_least` says there may be more.
pub(crate) struct PerNode<'py> {
    pub items: Vec<Bound<'py, PyAny>>,
    pub len: usize,
    pub at_least: bool,
}

impl PerNode<'_> {
    /// "3 weights", or "at least 3 weights" for an iterable that was not read to its end.
    pub fn count(&self, what: &str) -> String {
        match self.at_least {
            true => format!("at least {} {what}", self.len),
            false => format!("{} {what}", self.len),
        }
    }

    /// A LengthMismatchError unless one item `what` was read for each of `nodes` nodes.
    pub fn check_len(&self, py: Python<'_>, what: &str, nodes: usize) -> PyResult<()> {
        if self.len == nodes {
            return Ok(());
        }
        Err(error(
            py,
            hrwhash::Error::LengthMismatch {
                expected: nodes,
                actual: self.len,
            },
            Some(format!("{} for {nodes} nodes", self.count(what))),
        ))
    }
}

pub(crate) fn per_node_items<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    expected: usize,
) -> PyResult<PerNode<'py>> {
    let mut items = Vec::new();
    for item in items_iter(obj, what)?.take(expected.saturating_add(1)) {
        try_push(&mut items, item?)?;
    }
    let (len, at_least) = match (items.len() > expected, obj.len()) {
        (false, _) => (items.len(), false),
        (true, Ok(len)) => (len.max(items.len()), false),
        (true, Err(_)) => (items.len(), true),
    };
    Ok(PerNode {
        items,
        len,
        at_least,
    })
}

/// An iterator over the items of a list argument (see [`items`]).
pub(crate) fn items_iter<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyIterator>> {
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
    {
        return Err(invalid_argument(
            obj.py(),
            format!(
                "{what} is a single {} {}, not an iterable of items",
                type_name(obj),
                repr(obj)
            ),
            None,
        ));
    }
    obj.try_iter().map_err(|_| {
        invalid_argument(
            obj.py(),
            format!(
                "{what} is {} {}, not an iterable",
                type_name(obj),
                repr(obj)
            ),
            None,
        )
    })
}

/// The key objects of a batch call, with the first text error found among them, if any.
pub(crate) struct Batch<'py> {
    keys: Vec<Bound<'py, PyAny>>,
    text_error: Option<PyErr>,
}

impl<'py> Batch<'py> {
    /// The keys, once every argument's type has been checked (API.md 4): the first key that has
    /// no UTF-8 form fails here.
    pub fn text_checked(self) -> PyResult<Vec<Bound<'py, PyAny>>> {
        match self.text_error {
            None => Ok(self.keys),
            Some(e) => Err(e),
        }
    }
}

/// Reads the keys of a batch call in one pass, each while it is in cache: a key of a wrong type
/// fails at once; the first str without a UTF-8 form is kept for [`Batch::text_checked`], and the
/// UTF-8 form of every other str is cached in it for the lookups.
pub(crate) fn batch_keys<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Batch<'py>> {
    let mut keys = Vec::new();
    let mut text_error = None;
    for (i, key) in items_iter(obj, "keys")?.enumerate() {
        let key = key?;
        let at = At::item("the key", i);
        check_key(&key, at)?;
        if text_error.is_none() {
            if let Ok(s) = key.cast::<PyString>() {
                text_error = str_utf8(s, at).err();
            }
        }
        keys.push(key);
    }
    Ok(Batch { keys, text_error })
}

/// The node ids of `nodes`, each type-checked.
pub(crate) fn node_ids<'py>(nodes: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let ids = items(nodes, "nodes")?;
    for (i, id) in ids.iter().enumerate() {
        check_id(id, At::item("the node id", i))?;
    }
    Ok(ids)
}

/// [`weights_arg`] of `weights` unless they are absent or None.
pub(crate) fn optional_weights<'py>(
    weights: Option<&Bound<'py, PyAny>>,
    nodes: usize,
) -> PyResult<(Option<Vec<WeightArg<'py>>>, Option<PerNode<'py>>)> {
    match weights.filter(|w| !w.is_none()) {
        None => Ok((None, None)),
        Some(w) => {
            let (checked, read) = weights_arg(w, nodes)?;
            Ok((Some(checked), Some(read)))
        }
    }
}

/// A key and a count `k` in the order of API.md section 4: the key's type, k's type, the key's
/// text. The count's value is left to be read last.
pub(crate) fn key_and_count<'a>(
    key: &'a Bound<'_, PyAny>,
    k: &Bound<'_, PyAny>,
) -> PyResult<(Cow<'a, [u8]>, Count)> {
    key_and_count_as(key, k, key_bytes)
}

/// [`key_and_count`] with the key's text read by `text` (a profile's own key form).
pub(crate) fn key_and_count_as<'a, 'py>(
    key: &'a Bound<'py, PyAny>,
    k: &Bound<'_, PyAny>,
    text: impl FnOnce(&'a Bound<'py, PyAny>, At<'_>) -> PyResult<Cow<'a, [u8]>>,
) -> PyResult<(Cow<'a, [u8]>, Count)> {
    let at = At::one("the key");
    check_key(key, at)?;
    let k = count_arg(k, "k")?;
    let key = text(key, at)?;
    Ok((key, k))
}

/// Declares methods of `$class` that answer a key and a count `k` with a list of node ids (the
/// `replicas` of every class): each reads `key` and `k` with [`key_and_count_as`] (the key's text
/// by `key_text` where the class has its own key form), asks `$indices(self, key, k)` for
/// build-order indices, raises the core's refusal and hands the ids back through `ids_list`.
macro_rules! key_count_methods {
    ($class:ty $(, key_text: $key_text:ident)? { $($methods:tt)* }) => {
        $crate::args::key_count_methods!(@methods $class, [$($key_text)?], $($methods)*);
    };
    (@methods $class:ty, $text:tt, $($(#[$doc:meta])* fn $name:ident = $indices:expr;)*) => {
        #[::pyo3::pymethods]
        impl $class {
            $(
                $(#[$doc])*
                fn $name<'py>(
                    &self,
                    py: ::pyo3::Python<'py>,
                    key: &::pyo3::Bound<'_, ::pyo3::PyAny>,
                    k: &::pyo3::Bound<'_, ::pyo3::PyAny>,
                ) -> ::pyo3::PyResult<::pyo3::Bound<'py, ::pyo3::types::PyList>> {
                    let (key, k) = $crate::args::key_and_count_as(key, k, |key, at| {
                        $crate::args::key_count_methods!(@text self $text, key, at)
                    })?;
                    let indices: Result<Vec<usize>, ::hrwhash::Error> =
                        ($indices)(self, &key, k.get()?);
                    let indices = indices.map_err(|e| $crate::error::error(py, e, None))?;
                    self.ids_list(py, &indices)
                }
            )*
        }
    };
    (@text $this:ident [], $key:ident, $at:ident) => {
        $crate::args::key_bytes($key, $at)
    };
    (@text $this:ident [$key_text:ident], $key:ident, $at:ident) => {
        $this.$key_text($key, $at)
    };
}
pub(crate) use key_count_methods;

/// The arguments of a node to append (`with_node`, `add_node`), read in the order of API.md
/// section 4: the id's type, the weight's type, the domain's type (None is no domain), unknown
/// keywords, then the id's and the domain's text. The weight's value is left to the caller,
/// which knows whose weight it is.
pub(crate) struct NewNode<'a, 'py> {
    pub(crate) id: &'a [u8],
    pub(crate) weight: Option<WeightArg<'py>>,
    pub(crate) domain: Option<&'a Bound<'py, PyAny>>,
    pub(crate) domain_id: Option<&'a [u8]>,
}

pub(crate) fn new_node<'a, 'py>(
    node: &'a Bound<'py, PyAny>,
    weight: Option<&Bound<'py, PyAny>>,
    domain: Option<&'a Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<NewNode<'a, 'py>> {
    check_id(node, At::one("the node id"))?;
    let weight = weight
        .filter(|w| !w.is_none())
        .map(|w| weight_arg(w, At::one("the weight")))
        .transpose()?;
    let domain = domain.filter(|d| !d.is_none());
    if let Some(d) = domain {
        check_id(d, At::one("the failure domain"))?;
    }
    no_options(options)?;
    let id = id_bytes(node, At::one("the node id"))?;
    let domain_id = domain
        .map(|d| id_bytes(d, At::one("the failure domain")))
        .transpose()?;
    Ok(NewNode {
        id,
        weight,
        domain,
        domain_id,
    })
}

/// A node and its new weight (`with_weight`, `set_weight`), read in the order of API.md section
/// 4: the id's type, the weight's type, then the id's text. The weight's value is left to the
/// caller, which knows whose weight it is (or leaves the order of that check to the core).
pub(crate) fn node_weight<'a, 'py>(
    node: &'a Bound<'py, PyAny>,
    weight: &Bound<'py, PyAny>,
) -> PyResult<(&'a [u8], WeightArg<'py>)> {
    check_id(node, At::one("the node id"))?;
    let weight = weight_arg(weight, At::one("the weight"))?;
    Ok((id_bytes(node, At::one("the node id"))?, weight))
}

/// Declares methods of `$class` that change one node, each answering `$body(self, py, node,
/// read)`. Every class spells such a method's arguments alike (API.md), so their Python
/// signature and the reading of the arguments live here once: `new_node` methods take
/// `(node, weight=None, *, domain=None)` read by [`new_node`], `node_weight` methods take
/// `(node, weight)` read by [`node_weight`].
macro_rules! node_methods {
    ($class:ty { $($(#[$doc:meta])* fn $name:ident: $kind:ident -> $ret:ty = $body:path;)* }) => {
        $($crate::args::node_methods!(@$kind $class, $(#[$doc])* $name, $ret, $body);)*
    };
    (@new_node $class:ty, $(#[$doc:meta])* $name:ident, $ret:ty, $body:path) => {
        #[::pyo3::pymethods]
        impl $class {
            $(#[$doc])*
            #[pyo3(
                signature = (node, weight=None, *, domain=None, **options),
                text_signature = "(self, node, weight=None, *, domain=None)"
            )]
            fn $name(
                &self,
                py: ::pyo3::Python<'_>,
                node: &::pyo3::Bound<'_, ::pyo3::PyAny>,
                weight: Option<&::pyo3::Bound<'_, ::pyo3::PyAny>>,
                domain: Option<&::pyo3::Bound<'_, ::pyo3::PyAny>>,
                options: Option<&::pyo3::Bound<'_, ::pyo3::types::PyDict>>,
            ) -> ::pyo3::PyResult<$ret> {
                let read = $crate::args::new_node(node, weight, domain, options)?;
                $body(self, py, node, read)
            }
        }
    };
    (@node_weight $class:ty, $(#[$doc:meta])* $name:ident, $ret:ty, $body:path) => {
        #[::pyo3::pymethods]
        impl $class {
            $(#[$doc])*
            fn $name(
                &self,
                py: ::pyo3::Python<'_>,
                node: &::pyo3::Bound<'_, ::pyo3::PyAny>,
                weight: &::pyo3::Bound<'_, ::pyo3::PyAny>,
            ) -> ::pyo3::PyResult<$ret> {
                let read = $crate::args::node_weight(node, weight)?;
                $body(self, py, node, read)
            }
        }
    };
}
pub(crate) use node_methods;

/// The weights of `nodes` nodes, each type-checked, read as [`per_node_items`] reads them.
pub(crate) fn weights_arg<'py>(
    obj: &Bound<'py, PyAny>,
    nodes: usize,
) -> PyResult<(Vec<WeightArg<'py>>, PerNode<'py>)> {
    let read = per_node_items(obj, "weights", nodes)?;
    let checked = read
        .items
        .iter()
        .enumerate()
        .map(|(i, w)| weight_arg(w, At::item("the weight", i)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((checked, read))
}

/// A weight that passed the type check, with the object it came from for error reports.
pub(crate) struct WeightArg<'py> {
    pub(crate) value: f64,
    obj: Bound<'py, PyAny>,
}

/// The type check of a weight: a real number (int, float, or anything with `__float__`), not a
/// bool, None or text.
pub(crate) fn weight_arg<'py>(obj: &Bound<'py, PyAny>, at: At<'_>) -> PyResult<WeightArg<'py>> {
    let py = obj.py();
    let number = || wrong_type(obj, at, "a number");
    if obj.is_instance_of::<PyBool>()
        || obj.is_none()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return Err(number());
    }
    let value = match obj.extract::<f64>() {
        Ok(v) => v,
        // An int too large for a float is a number, and far above every valid weight.
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => f64::INFINITY,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => return Err(number()),
        Err(e) => return Err(e),
    };
    Ok(WeightArg {
        value,
        obj: obj.clone(),
    })
}

/// The value check of a weight (SPEC.md 5.1); `index` is the node's position, `node` its id.
pub(crate) fn checked_weight(
    arg: &WeightArg<'_>,
    index: Option<usize>,
    node: &Bound<'_, PyAny>,
) -> PyResult<Weight> {
    let v = arg.value;
    Weight::new(v).map_err(|_| {
        let problem = if v.is_nan() {
            "not a number"
        } else if v.is_infinite() && !arg.obj.is_instance_of::<PyFloat>() {
            "too large for a float"
        } else if v.is_infinite() {
            "infinite"
        } else if v < 0.0 {
            "negative"
        } else if v >= 4294967296.0 {
            "not below 2**32"
        } else {
            "positive but at most 2**-33, so it rounds to 0 at 32 fractional bits"
        };
        let whose = match index {
            Some(i) => format!("the weight of node {} (index {i})", repr(node)),
            None => "the weight".to_owned(),
        };
        invalid_weight(
            node.py(),
            format!("{whose} is {}: {problem}", repr(&arg.obj)),
            &arg.obj,
            index,
        )
    })
}

/// A weight that is not a member's own: `weight_to_fixed`'s argument.
pub(crate) fn free_weight(obj: &Bound<'_, PyAny>) -> PyResult<Weight> {
    free_weight_value(&weight_arg(obj, At::one("the weight"))?)
}

/// The value check of a weight that belongs to no node index (`free_weight` after its type
/// check), for callers that check something else in between.
pub(crate) fn free_weight_value(arg: &WeightArg<'_>) -> PyResult<Weight> {
    checked_weight(arg, None, &arg.obj)
}

/// A count that passed the type check; its value is checked by [`Count::get`], after the
/// arguments before it have had their text checked.
pub(crate) enum Count {
    Valid(usize),
    Invalid(PyErr),
}

impl Count {
    pub fn get(self) -> PyResult<usize> {
        match self {
            Count::Valid(k) => Ok(k),
            Count::Invalid(e) => Err(e),
        }
    }
}

/// A count such as `k`: an int, an integral float, or anything with `__index__` (numpy ints), but
/// never a bool, None or text.
pub(crate) fn count_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Count> {
    // The common case, an exact int that fits: one type check and one conversion, where the
    // general path below (bool, float, subclass and __index__ checks) costs about a tenth of a
    // lookup at small N. A bool is a subclass of int, never an exact one. A negative or too large
    // int falls through, and the general path words its error.
    if obj.is_exact_instance_of::<PyInt>() {
        if let Ok(k) = obj.extract::<usize>() {
            return Ok(Count::Valid(k));
        }
    }
    let py = obj.py();
    let invalid = |problem: &str| {
        Count::Invalid(invalid_count(
            py,
            format!("{what} is {}: {problem}", repr(obj)),
            obj,
        ))
    };
    if obj.is_instance_of::<PyBool>() {
        return Err(wrong_type(obj, At::one(what), "an int"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Ok(if v.is_nan() {
            invalid("not a number")
        } else if v.is_infinite() {
            invalid("infinite")
        } else if v < 0.0 {
            invalid("negative")
        } else if v.fract() != 0.0 {
            invalid("not an integer")
        } else if v >= usize::MAX as f64 {
            invalid("above the largest size of this platform")
        } else {
            Count::Valid(v as usize)
        });
    }
    let int = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else {
        let index = py.import("operator")?.getattr("index")?;
        match index.call1((obj,)) {
            Ok(i) => i,
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                return Err(wrong_type(obj, At::one(what), "an int"))
            }
            Err(e) => return Err(e),
        }
    };
    Ok(match int.extract::<usize>() {
        Ok(k) => Count::Valid(k),
        Err(_) if int.lt(0)? => invalid("negative"),
        Err(_) => invalid(&format!(
            "above the largest size of this platform, {}",
            usize::MAX
        )),
    })
}

/// The type check of a seed: None (the default seed) or bytes-like, but not a str, whose bytes
/// would depend on an encoding.
pub(crate) fn seed_arg<'a>(obj: Option<&'a Bound<'_, PyAny>>) -> PyResult<Option<Cow<'a, [u8]>>> {
    let at = At::one("the seed");
    match obj {
        None => Ok(None),
        Some(obj) if obj.is_none() => Ok(None),
        Some(obj) if obj.is_instance_of::<PyString>() => {
            // The seed may be secret, so the message never shows it.
            Err(invalid_argument(
                obj.py(),
                "the seed is a str, not 16 bytes (bytes, bytearray or memoryview)".to_owned(),
                None,
            ))
        }
        Some(obj) => {
            if obj.is_instance_of::<PyMemoryView>() && is_released(obj)? {
                return Err(invalid_argument(
                    obj.py(),
                    "the seed is a released memoryview".to_owned(),
                    None,
                ));
            }
            key_bytes(obj, at).map(Some).map_err(|_| {
                invalid_argument(
                    obj.py(),
                    format!(
                        "the seed is {}, not 16 bytes (bytes, bytearray or memoryview)",
                        type_name(obj)
                    ),
                    None,
                )
            })
        }
    }
}

/// The length check of a seed; the message gives its length and never its bytes.
pub(crate) fn seed(py: Python<'_>, bytes: Option<Cow<'_, [u8]>>) -> PyResult<Seed> {
    match bytes {
        None => Ok(Seed::DEFAULT),
        Some(b) => Seed::from_slice(&b).map_err(|e| error(py, e, None)),
    }
}

/// Rejects keyword arguments a call does not have: a misspelled `domains` must not be ignored.
pub(crate) fn no_options(options: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let Some(options) = options else {
        return Ok(());
    };
    match options.keys().iter().next() {
        None => Ok(()),
        Some(name) => Err(invalid_argument(
            options.py(),
            format!("unknown keyword argument {}", repr(&name)),
            None,
        )),
    }
}

/// A whole number in 0..2**64 given as an int or a whole float (an epoch, a load): the checks of
/// a count, each failure named by `invalid` with the problem.
pub(crate) fn whole_u64(obj: &Bound<'_, PyAny>, invalid: impl Fn(&str) -> PyErr) -> PyResult<u64> {
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return if v.is_nan() {
            Err(invalid("not a number"))
        } else if v.is_infinite() {
            Err(invalid("infinite"))
        } else if v < 0.0 {
            Err(invalid("negative"))
        } else if v.fract() != 0.0 {
            Err(invalid("not an integer"))
        } else if v >= 18_446_744_073_709_551_616.0 {
            Err(invalid("2**64 or more"))
        } else {
            Ok(v as u64)
        };
    }
    obj.extract::<u64>().map_err(|_| match obj.lt(0) {
        Ok(true) => invalid("negative"),
        _ => invalid("2**64 or more"),
    })
}
