//! The native half of the `hrwhash` Python package: a thin layer over the Rust core.
//!
//! Node ids are kept as the caller's Python objects so that lookups hand back exactly what was
//! given (str in, str out; bytes in, bytes out); the core only ever sees their bytes. Arguments
//! are converted and checked in `args`, errors mapped in `error`.

mod args;
mod arrow;
mod arrow_import;
mod error;
#[rustfmt::skip]
mod error_table;
mod live_view;
mod policy;
mod policy_domains;
mod profile;
mod replica_balance;
mod slot_table;
mod view;

use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

use hrwhash::{Error, Node, Seed, Weight};

use args::{
    batch_keys, cast_arg, check_id, check_key, checked_weight, count_arg, free_weight, id_bytes,
    items_iter, key_bytes, key_count_methods, no_options, node_ids, node_methods, optional_weights,
    per_node_items, repr, seed_arg, At, NewNode, WeightArg,
};
use error::error;

/// The bytes of the keys `objs`, the first of which is key `start` of its batch; they stay valid
/// while the GIL is released.
fn chunk_bytes<'a>(objs: &'a [Bound<'_, PyAny>], start: usize) -> PyResult<Vec<Cow<'a, [u8]>>> {
    objs.iter()
        .enumerate()
        .map(|(i, obj)| key_bytes(obj, At::item("the key", start + i)))
        .collect()
}

/// Feeds the keys of a batch call, whose types are checked, to `f` in chunks of `chunk_len`, so
/// that each key object is touched while it is still in cache, and a key the caller mutates from
/// another thread is either seen whole or not at all.
fn for_each_chunk(
    keys: &[Bound<'_, PyAny>],
    chunk_len: usize,
    mut f: impl FnMut(&[Cow<'_, [u8]>]) -> PyResult<()>,
) -> PyResult<()> {
    for (c, objs) in keys.chunks(chunk_len).enumerate() {
        f(&chunk_bytes(objs, c * chunk_len)?)?;
    }
    Ok(())
}

/// [`for_each_chunk`] over an iterable of keys that is read chunk by chunk, never held whole. A
/// key of a wrong type fails when it is read; a key without a UTF-8 form fails only once every
/// key's type is checked (API.md 4), the keys after it being read but not hashed.
fn stream_chunks<'py>(
    keys: &Bound<'py, PyAny>,
    chunk_len: usize,
    mut f: impl FnMut(&[Cow<'_, [u8]>]) -> PyResult<()>,
) -> PyResult<()> {
    let mut iter = items_iter(keys, "keys")?;
    let mut objs: Vec<Bound<'py, PyAny>> = Vec::with_capacity(chunk_len);
    let mut start = 0;
    let mut text_error = None;
    loop {
        objs.clear();
        for obj in iter.by_ref().take(chunk_len) {
            let obj = obj?;
            // Once a text error is pending, keys are only type-checked; before that, key_bytes
            // checks each key's type as it reads it.
            if text_error.is_some() {
                check_key(&obj, At::item("the key", start + objs.len()))?;
            }
            objs.push(obj);
        }
        if text_error.is_none() && !objs.is_empty() {
            match chunk_bytes(&objs, start) {
                Ok(chunk) => f(&chunk)?,
                Err(e) => {
                    // The first key that failed, in this chunk, and every key after it in the
                    // chunk: a type error among them comes first.
                    let first = objs
                        .iter()
                        .enumerate()
                        .position(|(i, o)| key_bytes(o, At::item("the key", start + i)).is_err())
                        .unwrap_or(0);
                    for (i, obj) in objs.iter().enumerate().skip(first) {
                        check_key(obj, At::item("the key", start + i))?;
                    }
                    text_error = Some(e);
                }
            }
        }
        if objs.len() < chunk_len {
            return text_error.map_or(Ok(()), Err);
        }
        start += chunk_len;
    }
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

/// The longest answer a batch call makes: the longest JavaScript array, so that every binding
/// refuses the same requests, and far more ids than fit in memory.
const MAX_RESULT_IDS: usize = u32::MAX as usize;
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
            // Every id and domain passed id_bytes when it was given, so these never fail.
            let mut node = Node::new(id_bytes(id.bind(py), At::item("the node id", i))?)
                .with_weight(weights[i]);
            if let Some(Some(d)) = domains.as_ref().map(|d| &d[i]) {
                node = node.with_domain(id_bytes(d.bind(py), At::item("the failure domain", i))?);
            }
            nodes.push(node);
        }
        let inner =
            hrwhash::Placement::from_nodes(seed, nodes).map_err(|e| build_error(py, e, &ids))?;
        Ok(Placement::wrap(inner, ids, domains))
    }

    /// The placement `inner` whose nodes the caller named `ids` and `domains` (one per node, in
    /// its order, each already checked).
    fn wrap(
        inner: hrwhash::Placement,
        ids: Vec<Py<PyAny>>,
        domains: Option<Vec<Option<Py<PyAny>>>>,
    ) -> Placement {
        let mut h = DefaultHasher::new();
        inner.seed().to_bytes().hash(&mut h);
        inner.node_specs().hash(&mut h);
        Placement {
            inner,
            ids,
            domains,
            hash: h.finish() as isize,
        }
    }

    fn id(&self, py: Python<'_>, index: usize) -> Py<PyAny> {
        self.ids[index].clone_ref(py)
    }

    fn ids_list<'py>(&self, py: Python<'py>, indices: &[usize]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, indices.iter().map(|&i| self.ids[i].bind(py)))
    }

    fn index_of(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<usize> {
        let bytes = id_bytes(node, At::one("the node id"))?;
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

    /// `with_node` once its arguments are read.
    fn appended(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        new: NewNode<'_, '_>,
    ) -> PyResult<Placement> {
        let domain = new.domain;
        // The new node is appended, so its index is the current length (API.md 2).
        let w = match &new.weight {
            Some(w) => checked_weight(w, Some(self.ids.len()), node)?,
            None => Weight::ONE,
        };
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

    /// `with_weight` once its arguments are read.
    fn reweighted(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        (_, weight): (&[u8], WeightArg<'_>),
    ) -> PyResult<Placement> {
        let index = self.index_of(py, node)?;
        let mut weights = self.weights_vec();
        weights[index] = checked_weight(&weight, Some(index), node)?;
        Placement::build(
            py,
            self.inner.seed(),
            self.clone_ids(py),
            weights,
            self.clone_domains(py),
        )
    }
}

key_count_methods!(Placement {
    /// Up to `k` nodes for replicas of `key`, spread over failure domains first.
    fn replicas = |p: &Placement, key, k: usize| {
        let mut out = vec![0usize; k.min(p.inner.selectable_len())];
        let n = p.inner.replicas_into(key, &mut out);
        out.truncate(n);
        Ok(out)
    };
    /// `replicas(key, k)` in `k` distinct failure domains, or `InvalidReplicaCountError` when
    /// fewer than `k` domains hold a node of weight above zero.
    fn replicas_strict = |p: &Placement, key, k| {
        let nodes = p.inner.replicas_strict(key, k)?;
        Ok(nodes.iter().map(|n| n.index()).collect())
    };
});

node_methods!(Placement {
    /// A placement with one more node.
    fn with_node: new_node -> Placement = Placement::appended;
    /// A placement where `node` has another weight (0 drains it).
    fn with_weight: node_weight -> Placement = Placement::reweighted;
});

#[pymethods]
impl Placement {
    #[new]
    #[pyo3(
        signature = (nodes, weights=None, *, seed=None, domains=None, **options),
        text_signature = "(nodes, weights=None, *, seed=None, domains=None)"
    )]
    fn new(
        py: Python<'_>,
        nodes: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        domains: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Placement> {
        // API.md 4: every argument's type, then its text, then the lengths, then SPEC.md 7.
        let ids = node_ids(nodes)?;
        // Read no further than one weight or domain past the nodes: more is a length mismatch.
        let (weights, weights_read) = optional_weights(weights, ids.len())?;
        let (domains, domains_read) = match domains.filter(|d| !d.is_none()) {
            None => (None, None),
            Some(d) => {
                let mut d = per_node_items(d, "domains", ids.len())?;
                for (i, d) in d.items.iter().enumerate() {
                    if !d.is_none() {
                        check_id(d, At::item("the failure domain", i))?;
                    }
                }
                let items = std::mem::take(&mut d.items);
                (Some(items), Some(d))
            }
        };
        let seed = seed_arg(seed)?;
        no_options(options)?;

        for (i, id) in ids.iter().enumerate() {
            id_bytes(id, At::item("the node id", i))?;
        }
        for (i, d) in domains.iter().flatten().enumerate() {
            if !d.is_none() {
                id_bytes(d, At::item("the failure domain", i))?;
            }
        }

        for (given, what) in [(&weights_read, "weights"), (&domains_read, "domains")] {
            if let Some(given) = given {
                given.check_len(py, what, ids.len())?;
            }
        }

        let seed = args::seed(py, seed)?;
        let weights = match weights {
            None => vec![Weight::ONE; ids.len()],
            Some(w) => w
                .iter()
                .zip(&ids)
                .enumerate()
                .map(|(i, (w, id))| checked_weight(w, Some(i), id))
                .collect::<PyResult<Vec<_>>>()?,
        };
        let domains = domains.map(|d| {
            d.into_iter()
                .map(|d| (!d.is_none()).then(|| d.unbind()))
                .collect()
        });
        let ids = ids.into_iter().map(Bound::unbind).collect();
        Placement::build(py, seed, ids, weights, domains)
    }

    /// The owner of `key`: the node ranked first.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.id(py, self.inner.owner_index(&key)))
    }

    /// The first `k` nodes of the ranking of `key` (fewer if fewer nodes can be selected).
    fn rank<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
        k: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        // An exact str or bytes key passes the type check by being read below; any other key's
        // type is checked before k (API.md: types before values).
        if !(key.is_exact_instance_of::<PyString>() || key.is_exact_instance_of::<PyBytes>()) {
            check_key(key, At::one("the key"))?;
        }
        let k = count_arg(k, "k")?;
        let key = key_bytes(key, At::one("the key"))?;
        let k = k.get()?.min(self.inner.selectable_len());
        // Common k without a heap allocation per lookup.
        let mut stack = [0usize; 16];
        let mut heap = Vec::new();
        let out = if k <= stack.len() {
            &mut stack[..k]
        } else {
            heap.resize(k, 0);
            &mut heap[..]
        };
        let n = self.inner.rank_into(&key, out);
        self.ids_list(py, &out[..n])
    }

    /// Every selectable node, in ranking order for `key`.
    fn ranking(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Ranking> {
        let this = slf.get();
        let key = key_bytes(key, At::one("the key"))?;
        let order = this.inner.ranking(&key).map(|n| n.index()).collect();
        Ok(Ranking {
            placement: slf.clone().unbind(),
            order,
            next: 0,
        })
    }

    /// The 64-bit hrw-v1 score of `key` for `node`.
    fn score(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        node: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        check_key(key, At::one("the key"))?;
        check_id(node, At::one("the node id"))?;
        let key = key_bytes(key, At::one("the key"))?;
        let id = id_bytes(node, At::one("the node id"))?;
        self.inner
            .score(&key, id)
            .map_err(|e| error(py, e, Some(format!("node {}", repr(node)))))
    }

    /// Owners of many keys, computed without holding the GIL.
    fn owners<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Some(fast) = arrow::fast_keys(keys)? {
            let (indices, nulls) = arrow::owner_indices(py, &self.inner, fast)?;
            arrow::reject_nulls(py, &nulls)?;
            return PyList::new(py, indices.iter().map(|&i| self.ids[i as usize].bind(py)));
        }
        let mut out = Vec::new();
        let mut slots = vec![0usize; CHUNK_KEYS];
        stream_chunks(keys, CHUNK_KEYS, |chunk| {
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
        k: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Some(fast) = arrow::fast_keys(keys)? {
            let k = count_arg(k, "k")?.get()?.min(self.inner.selectable_len());
            let (flat, nulls, n) = arrow::rank_rows(py, &self.inner, fast, k)?;
            arrow::reject_nulls(py, &nulls)?;
            if k == 0 {
                return PyList::new(py, (0..n).map(|_| PyList::empty(py)));
            }
            let rows = flat
                .chunks_exact(k)
                .map(|row| PyList::new(py, row.iter().map(|&i| self.ids[i as usize].bind(py))));
            return PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?);
        }
        let keys = batch_keys(keys)?;
        let k = count_arg(k, "k")?;
        let keys = keys.text_checked()?;
        let asked = k.get()?;
        let k = asked.min(self.inner.selectable_len());
        if keys.len().checked_mul(k).is_none_or(|n| n > MAX_RESULT_IDS) {
            return Err(error(
                py,
                Error::ResultTooLarge,
                Some(format!(
                    "{} keys with k = {asked} on {} selectable nodes would be {} ids, more than 2**32 - 1",
                    keys.len(),
                    self.inner.selectable_len(),
                    keys.len() as u128 * k as u128
                )),
            ));
        }
        let rows = PyList::empty(py);
        let per_chunk = (CHUNK_SLOTS / k.max(1)).clamp(1, CHUNK_KEYS);
        let mut slots = vec![0usize; per_chunk * k];
        for_each_chunk(&keys, per_chunk, |chunk| {
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
        Ok(self
            .inner
            .find(id_bytes(node, At::one("the node id"))?)
            .is_some())
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

/// The `placement` argument of a policy's constructor, which must be a Placement.
pub(crate) fn policy_placement<'a, 'py>(
    placement: &'a Bound<'py, PyAny>,
) -> PyResult<&'a Bound<'py, Placement>> {
    cast_arg::<Placement>(placement, |t| {
        format!("placement must be a Placement, not {t}")
    })
}

/// Declares getters of `$class` that hand back what its core object `inner` answers (through
/// `$convert` where Python gets another form, such as a fingerprint's hex digits): one line of
/// the class's list each, where a method of its own would repeat the same four.
macro_rules! inner_getters {
    ($class:ty { $($(#[$doc:meta])* $name:ident: $ty:ty $(=> $convert:ident)?;)* }) => {
        #[::pyo3::pymethods]
        impl $class {
            $(
                $(#[$doc])*
                #[getter]
                fn $name(&self) -> $ty {
                    self.inner.$name()$(.$convert())?
                }
            )*
        }
    };
}
pub(crate) use inner_getters;

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

/// Declares a digest function of SPEC.md, `$name($arg, seed=None)`: both read their argument and
/// the seed in the order of API.md 4 (the argument's type, the seed's type, unknown keywords, the
/// argument's text, the seed's length), and differ only in what the argument is.
macro_rules! digest_function {
    ($(#[$doc:meta])* fn $name:ident($arg:ident, $what:literal) as $text_signature:tt,
     checked by $check:path, read by $bytes:path, digest $digest:path) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = ($arg, seed=None, **options), text_signature = $text_signature)]
        fn $name(
            py: Python<'_>,
            $arg: &Bound<'_, PyAny>,
            seed: Option<&Bound<'_, PyAny>>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<u64> {
            let at = At::one($what);
            $check($arg, at)?;
            let seed = seed_arg(seed)?;
            no_options(options)?;
            let bytes = $bytes($arg, at)?;
            let seed = args::seed(py, seed)?;
            Ok($digest(&seed, &bytes))
        }
    };
}

digest_function! {
    /// The hrw-v1 digest of a key (SPEC.md), for checking other implementations against this one.
    fn key_digest(key, "the key") as "(key, seed=None)",
    checked by check_key, read by key_bytes, digest hrwhash::v1::key_digest
}

digest_function! {
    /// The hrw-v1 digest of a node id.
    fn node_digest(node, "the node id") as "(node, seed=None)",
    checked by check_id, read by id_bytes, digest hrwhash::v1::node_digest
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
fn weight_to_fixed(weight: &Bound<'_, PyAny>) -> PyResult<u64> {
    free_weight(weight).map(Weight::to_fixed)
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
    m.add_function(wrap_pyfunction!(weight_to_fixed, m)?)?;
    view::register(m)?;
    live_view::register(m)?;
    profile::register(m)?;
    slot_table::register(m)?;
    policy_domains::register(m)?;
    policy::register(m)?;
    replica_balance::register(m)?;
    m.add("ALGORITHM", hrwhash::ALGORITHM)?;
    m.add("DEFAULT_SEED", PyBytes::new(py, &Seed::DEFAULT.to_bytes()))?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
