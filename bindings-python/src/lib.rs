//! The native half of the `hrwhash` Python package: a thin layer over the Rust core.
//!
//! Node ids are kept as the caller's Python objects so that lookups hand back exactly what was
//! given (str in, str out; bytes in, bytes out); the core only ever sees their bytes.

use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::os::raw::c_char;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyByteArray, PyBytes, PyDict, PyIterator, PyList, PyMemoryView, PyString, PyTuple, PyType,
};

use hrwhash::{Error, Node, Seed, Weight};

mod arrow;

extern "C" {
    // Part of the stable ABI since 3.10 and exported by every CPython 3 before that, so the
    // abi3 (3.9) wheel may call it; pyo3 hides it below 3.10. It avoids a temporary bytes
    // object per str key, which would otherwise cost more than the lookup itself.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const c_char;
}

/// The UTF-8 bytes of a str, cached inside the str object and valid as long as it lives.
fn str_utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live str; on success CPython returns a buffer owned by `s` of `size` bytes.
    let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if ptr.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), size as usize) })
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// The bytes of a key. str and bytes are immutable and borrowed; a bytearray or memoryview may
/// change while the GIL is released, so it is copied.
fn key_bytes<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return str_utf8(s).map(Cow::Borrowed);
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Cow::Owned(b.to_vec()));
    }
    if obj.cast::<PyMemoryView>().is_ok() {
        let copy = obj.call_method0("tobytes")?;
        return Ok(Cow::Owned(copy.cast::<PyBytes>()?.as_bytes().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "a key must be str, bytes, bytearray or memoryview, not {}",
        type_name(obj)
    )))
}

/// The bytes of a node id or failure domain, which must be str or bytes (immutable, hashable).
fn id_bytes<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<&'a [u8]> {
    if let Ok(s) = obj.cast::<PyString>() {
        return str_utf8(s);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes());
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        type_name(obj)
    )))
}

/// An iterator over an iterable argument that must not be a single str or bytes-like value, which
/// Python would otherwise happily iterate character by character.
fn iterate<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyIterator>> {
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyMemoryView>()
    {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an iterable of items, not a single {}",
            type_name(obj)
        )));
    }
    obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be an iterable, not {}",
            type_name(obj)
        ))
    })
}

/// The items of an iterable argument (see [`iterate`]).
fn items<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    iterate(obj, what)?.collect()
}

/// Feeds the keys of a batch call to `f` in chunks of `chunk_len`, as byte slices that stay valid
/// while the GIL is released. Keys are read chunk by chunk, so each key object is touched while it
/// is still in cache, and a key the caller mutates from another thread is either seen whole or
/// not at all.
fn for_each_chunk<'py>(
    keys: &Bound<'py, PyAny>,
    chunk_len: usize,
    mut f: impl FnMut(&[Cow<'_, [u8]>]) -> PyResult<()>,
) -> PyResult<()> {
    let mut iter = iterate(keys, "keys")?;
    let mut objs: Vec<Bound<'py, PyAny>> = Vec::with_capacity(chunk_len);
    loop {
        objs.clear();
        for obj in iter.by_ref().take(chunk_len) {
            objs.push(obj?);
        }
        if objs.is_empty() {
            return Ok(());
        }
        let chunk = objs.iter().map(key_bytes).collect::<PyResult<Vec<_>>>()?;
        f(&chunk)?;
        if objs.len() < chunk_len {
            return Ok(());
        }
    }
}

fn weight(py: Python<'_>, obj: &Bound<'_, PyAny>, node: &Bound<'_, PyAny>) -> PyResult<Weight> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "the weight of node {} must be a float, not {}",
            repr(node),
            type_name(obj)
        )));
    }
    let value: f64 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "the weight of node {} must be a float, not {}",
            repr(node),
            type_name(obj)
        ))
    })?;
    checked_weight(py, value, node)
}

fn checked_weight(py: Python<'_>, value: f64, node: &Bound<'_, PyAny>) -> PyResult<Weight> {
    Weight::new(value).map_err(|e| error(py, e, Some(format!("node {}", repr(node)))))
}

fn seed(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Seed> {
    let Some(obj) = obj else {
        return Ok(Seed::DEFAULT);
    };
    if obj.is_none() {
        return Ok(Seed::DEFAULT);
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "a seed must be 16 bytes (bytes, bytearray or memoryview), not str",
        ));
    }
    let bytes = key_bytes(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "a seed must be 16 bytes (bytes, bytearray or memoryview), not {}",
            type_name(obj)
        ))
    })?;
    // The seed may be secret, so the message gives its length and never its bytes.
    Seed::from_slice(&bytes).map_err(|e| error(py, e, None))
}

fn count(k: isize) -> PyResult<usize> {
    usize::try_from(k).map_err(|_| PyValueError::new_err(format!("k must be >= 0, got {k}")))
}

fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_owned())
}

/// Maps a core error variant to its Python exception class (defined in `hrwhash/_errors.py`),
/// with the variant's fields as attributes and `detail` naming the offending value.
fn error(py: Python<'_>, err: Error, detail: Option<String>) -> PyErr {
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
        // A variant added to the core after this binding was written.
        _ => "HrwError",
    };
    let build = || -> PyResult<PyErr> {
        let module = py.import("hrwhash._errors")?;
        let exc = module.getattr(class)?.call((message,), Some(&fields))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

/// Adds the offending node ids to a build error's message.
fn build_error(py: Python<'_>, err: Error, ids: &[Py<PyAny>]) -> PyErr {
    let id = |i: usize| repr(ids[i].bind(py));
    let detail = match &err {
        Error::EmptyNodeId { index } => Some(format!("node {}", id(*index))),
        Error::DuplicateNodeId { index, .. } => Some(format!("node {}", id(*index))),
        _ => None,
    };
    error(py, err, detail)
}

/// Keys per GIL-free section of a batch call: enough that releasing the GIL costs next to nothing
/// per key, few enough that the key slices and results stay in cache.
const CHUNK_KEYS: usize = 1024;
/// Result slots per GIL-free section of `rank_many`.
const CHUNK_SLOTS: usize = 16 * 1024;

/// An immutable set of nodes that answers "which node owns this key?" with hrw-v1.
#[pyclass(frozen, module = "hrwhash", name = "Placement")]
pub struct Placement {
    inner: hrwhash::Placement,
    ids: Vec<Py<PyAny>>,
    /// One entry per node when the caller named failure domains.
    domains: Option<Vec<Option<Py<PyAny>>>>,
    hash: isize,
}

impl Placement {
    fn build(
        py: Python<'_>,
        seed: Seed,
        ids: Vec<Py<PyAny>>,
        weights: Vec<Weight>,
        domains: Option<Vec<Option<Py<PyAny>>>>,
    ) -> PyResult<Placement> {
        let mut nodes = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let mut node = Node::new(id_bytes(id.bind(py), "a node id")?).with_weight(weights[i]);
            if let Some(Some(d)) = domains.as_ref().map(|d| &d[i]) {
                node = node.with_domain(id_bytes(d.bind(py), "a failure domain")?);
            }
            nodes.push(node);
        }
        let inner =
            hrwhash::Placement::from_nodes(seed, nodes).map_err(|e| build_error(py, e, &ids))?;
        let mut h = DefaultHasher::new();
        inner.seed().to_bytes().hash(&mut h);
        inner.node_specs().hash(&mut h);
        Ok(Placement {
            inner,
            ids,
            domains,
            hash: h.finish() as isize,
        })
    }

    fn id(&self, py: Python<'_>, index: usize) -> Py<PyAny> {
        self.ids[index].clone_ref(py)
    }

    fn ids_list<'py>(&self, py: Python<'py>, indices: &[usize]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, indices.iter().map(|&i| self.ids[i].bind(py)))
    }

    fn index_of(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<usize> {
        let bytes = id_bytes(node, "a node id")?;
        match self.inner.find(bytes) {
            Some(n) => Ok(n.index()),
            None => Err(error(
                py,
                Error::UnknownNode,
                Some(format!("node {}", repr(node))),
            )),
        }
    }

    fn weights_vec(&self) -> Vec<Weight> {
        self.inner.node_specs().iter().map(|n| n.weight()).collect()
    }

    fn clone_ids(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.ids.iter().map(|i| i.clone_ref(py)).collect()
    }

    fn clone_domains(&self, py: Python<'_>) -> Option<Vec<Option<Py<PyAny>>>> {
        self.domains.as_ref().map(|ds| {
            ds.iter()
                .map(|d| d.as_ref().map(|d| d.clone_ref(py)))
                .collect()
        })
    }

    fn same_kinds(&self, other: &Placement, py: Python<'_>) -> bool {
        let kind = |o: &Py<PyAny>| o.bind(py).is_instance_of::<PyString>();
        let kinds_eq = |a: &[Py<PyAny>], b: &[Py<PyAny>]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| kind(x) == kind(y))
        };
        if !kinds_eq(&self.ids, &other.ids) {
            return false;
        }
        match (&self.domains, &other.domains) {
            (Some(a), Some(b)) => a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => kind(x) == kind(y),
                (None, None) => true,
                _ => false,
            }),
            (None, None) => true,
            // Naming no domain at all and naming None for every node are the same placement.
            (Some(d), None) | (None, Some(d)) => d.iter().all(Option::is_none),
        }
    }
}

#[pymethods]
impl Placement {
    #[new]
    #[pyo3(signature = (nodes, weights=None, *, seed=None, domains=None))]
    fn new(
        py: Python<'_>,
        nodes: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        domains: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Placement> {
        // SPEC.md 7 checks the seed first, then the weights, then the ids.
        let seed = self::seed(py, seed)?;
        let ids = items(nodes, "nodes")?;
        for (i, id) in ids.iter().enumerate() {
            id_bytes(id, &format!("the node id at index {i}"))?;
        }
        let weights = match weights.filter(|w| !w.is_none()) {
            None => vec![Weight::ONE; ids.len()],
            Some(w) => {
                let w = items(w, "weights")?;
                if w.len() != ids.len() {
                    return Err(error(
                        py,
                        Error::LengthMismatch {
                            expected: ids.len(),
                            actual: w.len(),
                        },
                        Some("one weight per node".to_owned()),
                    ));
                }
                w.iter()
                    .zip(&ids)
                    .map(|(w, id)| weight(py, w, id))
                    .collect::<PyResult<Vec<_>>>()?
            }
        };
        let domains = match domains.filter(|d| !d.is_none()) {
            None => None,
            Some(d) => {
                let d = items(d, "domains")?;
                if d.len() != ids.len() {
                    return Err(error(
                        py,
                        Error::LengthMismatch {
                            expected: ids.len(),
                            actual: d.len(),
                        },
                        Some("one domain (or None) per node".to_owned()),
                    ));
                }
                let mut out = Vec::with_capacity(d.len());
                for (i, d) in d.into_iter().enumerate() {
                    if d.is_none() {
                        out.push(None);
                    } else {
                        id_bytes(&d, &format!("the failure domain at index {i}"))?;
                        out.push(Some(d.unbind()));
                    }
                }
                Some(out)
            }
        };
        let ids = ids.into_iter().map(Bound::unbind).collect();
        Placement::build(py, seed, ids, weights, domains)
    }

    /// The owner of `key`: the node ranked first.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key)?;
        Ok(self.id(py, self.inner.owner_index(&key)))
    }

    /// The first `k` nodes of the ranking of `key` (fewer if fewer nodes can be selected).
    fn rank<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
        k: isize,
    ) -> PyResult<Bound<'py, PyList>> {
        let k = count(k)?.min(self.inner.selectable_len());
        let key = key_bytes(key)?;
        let mut out = vec![0usize; k];
        let n = self.inner.rank_into(&key, &mut out);
        self.ids_list(py, &out[..n])
    }

    /// Every selectable node, in ranking order for `key`.
    fn ranking(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Ranking> {
        let this = slf.get();
        let key = key_bytes(key)?;
        let order = this.inner.ranking(&key).map(|n| n.index()).collect();
        Ok(Ranking {
            placement: slf.clone().unbind(),
            order,
            next: 0,
        })
    }

    /// Up to `k` nodes for replicas of `key`, spread over failure domains first.
    fn replicas<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
        k: isize,
    ) -> PyResult<Bound<'py, PyList>> {
        let k = count(k)?.min(self.inner.selectable_len());
        let key = key_bytes(key)?;
        let mut out = vec![0usize; k];
        let n = self.inner.replicas_into(&key, &mut out);
        self.ids_list(py, &out[..n])
    }

    /// The 64-bit hrw-v1 score of `key` for `node`.
    fn score(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        node: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let index = self.index_of(py, node)?;
        let key = key_bytes(key)?;
        self.inner
            .score(&key, index)
            .ok_or_else(|| error(py, Error::UnknownNode, Some(format!("node {}", repr(node)))))
    }

    /// Owners of many keys, computed without holding the GIL.
    fn owners<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let fast @ (arrow::Keys::Arrow(_) | arrow::Keys::NumpyFixed { .. }) = arrow::keys(keys)?
        {
            let (indices, nulls) = arrow::owner_indices(py, &self.inner, fast)?;
            arrow::reject_nulls(&nulls)?;
            return PyList::new(py, indices.iter().map(|&i| self.ids[i as usize].bind(py)));
        }
        let mut out = Vec::new();
        let mut slots = vec![0usize; CHUNK_KEYS];
        for_each_chunk(keys, CHUNK_KEYS, |chunk| {
            let slots = &mut slots[..chunk.len()];
            py.detach(|| self.inner.owners_into(chunk, slots))
                .map_err(|e| error(py, e, None))?;
            out.extend_from_slice(slots);
            Ok(())
        })?;
        self.ids_list(py, &out)
    }

    /// The first `k` nodes of the ranking of each of many keys, computed without holding the GIL.
    fn rank_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        k: isize,
    ) -> PyResult<Bound<'py, PyList>> {
        let k = count(k)?.min(self.inner.selectable_len());
        if let fast @ (arrow::Keys::Arrow(_) | arrow::Keys::NumpyFixed { .. }) = arrow::keys(keys)?
        {
            let (flat, nulls, n) = arrow::rank_rows(py, &self.inner, fast, k)?;
            arrow::reject_nulls(&nulls)?;
            let rows = flat.chunks_exact(k.max(1)).map(|row| {
                let row: Vec<usize> = row.iter().map(|&i| i as usize).collect();
                self.ids_list(py, &row)
            });
            if k == 0 {
                return PyList::new(py, (0..n).map(|_| PyList::empty(py)));
            }
            return PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?);
        }
        let rows = PyList::empty(py);
        let per_chunk = (CHUNK_SLOTS / k.max(1)).clamp(1, CHUNK_KEYS);
        let mut slots = vec![0usize; per_chunk * k];
        for_each_chunk(keys, per_chunk, |chunk| {
            let slots = &mut slots[..chunk.len() * k];
            let per_key = py
                .detach(|| self.inner.rank_many_into(chunk, k, slots))
                .map_err(|e| error(py, e, None))?;
            if k == 0 {
                for _ in chunk {
                    rows.append(PyList::empty(py))?;
                }
            }
            for row in slots.chunks_exact(k.max(1)) {
                rows.append(self.ids_list(py, &row[..per_key])?)?;
            }
            Ok(())
        })?;
        Ok(rows)
    }

    /// A placement with one more node.
    #[pyo3(signature = (node, weight=1.0, *, domain=None))]
    fn with_node(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        weight: f64,
        domain: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Placement> {
        id_bytes(node, "a node id")?;
        let w = checked_weight(py, weight, node)?;
        let domain = domain.filter(|d| !d.is_none());
        if let Some(d) = domain {
            id_bytes(d, "a failure domain")?;
        }
        let mut ids = self.clone_ids(py);
        ids.push(node.clone().unbind());
        let mut weights = self.weights_vec();
        weights.push(w);
        let domains = match (self.clone_domains(py), domain) {
            (None, None) => None,
            (Some(mut ds), d) => {
                ds.push(d.map(|d| d.clone().unbind()));
                Some(ds)
            }
            (None, Some(d)) => {
                let mut ds: Vec<Option<Py<PyAny>>> = (0..self.ids.len()).map(|_| None).collect();
                ds.push(Some(d.clone().unbind()));
                Some(ds)
            }
        };
        Placement::build(py, self.inner.seed(), ids, weights, domains)
    }

    /// A placement without `node`; the other nodes keep their order.
    fn without_node(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<Placement> {
        let index = self.index_of(py, node)?;
        let mut ids = self.clone_ids(py);
        ids.remove(index);
        let mut weights = self.weights_vec();
        weights.remove(index);
        let domains = self.clone_domains(py).map(|mut ds| {
            ds.remove(index);
            ds
        });
        Placement::build(py, self.inner.seed(), ids, weights, domains)
    }

    /// A placement where `node` has another weight (0 drains it).
    fn with_weight(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        weight: f64,
    ) -> PyResult<Placement> {
        let index = self.index_of(py, node)?;
        let mut weights = self.weights_vec();
        weights[index] = checked_weight(py, weight, node)?;
        Placement::build(
            py,
            self.inner.seed(),
            self.clone_ids(py),
            weights,
            self.clone_domains(py),
        )
    }

    /// The node ids, in the order the placement was built from.
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.ids.iter().map(|i| i.bind(py)))
    }

    /// The weights, in node order.
    #[getter]
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            self.inner.node_specs().iter().map(|n| n.weight().to_f64()),
        )
    }

    /// The failure domains in node order, or None when none were named.
    #[getter]
    fn domains<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.domains
            .as_ref()
            .map(|ds| PyTuple::new(py, ds.iter().map(|d| d.as_ref().map(|d| d.bind(py)))))
            .transpose()
    }

    /// The 16-byte seed.
    #[getter]
    fn seed<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.seed().to_bytes())
    }

    /// Whether any two selectable nodes have different weights.
    #[getter]
    fn is_weighted(&self) -> bool {
        self.inner.is_weighted()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, node: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.find(id_bytes(node, "a node id")?).is_some())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.nodes(py)?.into_any().try_iter()?.into_any())
    }

    fn __hash__(&self) -> isize {
        self.hash
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<Placement>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.hash == other.hash
            && self.inner.seed() == other.inner.seed()
            && self.inner.node_specs() == other.inner.node_specs()
            && self.same_kinds(other, py);
        Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        const SHOWN: usize = 8;
        let list = |items: Vec<String>| {
            let mut s = items.join(", ");
            if self.ids.len() > SHOWN {
                s.push_str(", ...");
            }
            format!("[{s}]")
        };
        let mut out = format!(
            "Placement({}",
            list(
                self.ids
                    .iter()
                    .take(SHOWN)
                    .map(|i| repr(i.bind(py)))
                    .collect()
            )
        );
        if self.ids.len() > SHOWN {
            out.push_str(&format!(" <{} nodes>", self.ids.len()));
        }
        if self
            .inner
            .node_specs()
            .iter()
            .any(|n| n.weight() != Weight::ONE)
        {
            let ws = self.inner.node_specs().iter().take(SHOWN);
            out.push_str(", weights=");
            out.push_str(&list(
                ws.map(|n| format!("{:?}", n.weight().to_f64())).collect(),
            ));
        }
        if let Some(ds) = &self.domains {
            let ds = ds.iter().take(SHOWN).map(|d| match d {
                Some(d) => repr(d.bind(py)),
                None => "None".to_owned(),
            });
            out.push_str(", domains=");
            out.push_str(&list(ds.collect()));
        }
        // A custom seed may be a secret, so it never appears in logs.
        if self.inner.seed() != Seed::DEFAULT {
            out.push_str(", seed=<custom>");
        }
        out.push(')');
        out
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("seed", self.seed(py))?;
        kwargs.set_item("domains", self.domains(py)?)?;
        let args = (self.nodes(py)?, self.weights(py)?);
        let newobj = py.import("copyreg")?.getattr("__newobj_ex__")?;
        let cls = py.get_type::<Placement>();
        Ok((newobj, (cls, args, kwargs)).into_pyobject(py)?.into_any())
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    #[classmethod]
    fn __class_getitem__<'py>(
        cls: &Bound<'py, PyType>,
        item: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let alias = cls.py().import("types")?.getattr("GenericAlias")?;
        alias.call1((cls, item))
    }
}

/// The full ranking of one key, as an iterator of node ids.
#[pyclass(module = "hrwhash", name = "Ranking")]
pub struct Ranking {
    placement: Py<Placement>,
    order: Vec<usize>,
    next: usize,
}

#[pymethods]
impl Ranking {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> Option<Py<PyAny>> {
        let index = *self.order.get(self.next)?;
        self.next += 1;
        Some(self.placement.get().id(py, index))
    }

    fn __length_hint__(&self) -> usize {
        self.order.len() - self.next
    }
}

/// The hrw-v1 digest of a key (SPEC.md), for checking other implementations against this one.
#[pyfunction]
#[pyo3(signature = (key, seed=None))]
fn key_digest(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let seed = self::seed(py, seed)?;
    Ok(hrwhash::v1::key_digest(&seed, &key_bytes(key)?))
}

/// The hrw-v1 digest of a node id.
#[pyfunction]
#[pyo3(signature = (node, seed=None))]
fn node_digest(
    py: Python<'_>,
    node: &Bound<'_, PyAny>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let seed = self::seed(py, seed)?;
    Ok(hrwhash::v1::node_digest(
        &seed,
        id_bytes(node, "a node id")?,
    ))
}

/// The hrw-v1 score of a key digest for a node digest.
#[pyfunction]
#[pyo3(name = "score")]
fn v1_score(key_digest: u64, node_digest: u64) -> u64 {
    hrwhash::v1::score(key_digest, node_digest)
}

/// The hrw-v1 draw of a score (the fixed-point stand-in for -ln(u) that weighted ranking uses).
#[pyfunction]
fn draw(score: u64) -> u64 {
    hrwhash::v1::draw(score)
}

/// The fixed-point form of a weight (`round_half_even(weight * 2**32)`) that hrw-v1 compares.
#[pyfunction]
fn weight_fixed(py: Python<'_>, weight: f64) -> PyResult<u64> {
    Weight::new(weight)
        .map(Weight::to_fixed)
        .map_err(|e| error(py, e, None))
}

#[pymodule]
fn _hrwhash(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Placement>()?;
    m.add_class::<Ranking>()?;
    m.add_function(wrap_pyfunction!(key_digest, m)?)?;
    m.add_function(wrap_pyfunction!(node_digest, m)?)?;
    m.add_function(wrap_pyfunction!(v1_score, m)?)?;
    m.add_function(wrap_pyfunction!(draw, m)?)?;
    m.add_function(wrap_pyfunction!(weight_fixed, m)?)?;
    m.add("ALGORITHM", hrwhash::ALGORITHM)?;
    m.add("DEFAULT_SEED", PyBytes::new(py, &Seed::DEFAULT.to_bytes()))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
