//! Compatibility profiles (conformance/PROFILES.md): `ProfilePlacement`, which places keys the
//! way an incumbent library does; `Transition` measures a switch between it and any other
//! placement. Ids are handed back as the caller's own objects, as `Placement` does.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};

use hrwhash::Node;
use hrwhash_compat::Profile;

use crate::args::{
    check_key, checked_weight, id_bytes, items, key_bytes, key_count_methods, no_options, node_ids,
    optional_weights, repr, type_name, At,
};
use crate::error::{error, invalid_argument};

/// A membership placed the way an incumbent library places it.
#[pyclass(frozen, module = "hrwhash", name = "ProfilePlacement")]
pub struct ProfilePlacement {
    inner: hrwhash_compat::ProfilePlacement,
    ids: Vec<Py<PyAny>>,
}

/// What pymemcache formats into `f"{node}-{key}"` for a bytes or bytearray value: its `str()`,
/// which is its repr. A memoryview's text is its address, so it has no stable placement there.
fn pymemcache_text<'a>(obj: &'a Bound<'_, PyAny>, at: At<'_>) -> PyResult<Cow<'a, [u8]>> {
    if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
        let text = obj.str()?;
        return Ok(Cow::Owned(text.to_cow()?.as_bytes().to_vec()));
    }
    if obj.is_instance_of::<PyString>() {
        return key_bytes(obj, at);
    }
    check_key(obj, at)?;
    Err(invalid_argument(
        obj.py(),
        format!(
            "{at} is a {}: pymemcache hashes its text, which is its address",
            type_name(obj)
        ),
        at.index,
    ))
}

impl ProfilePlacement {
    fn key<'a>(&self, obj: &'a Bound<'_, PyAny>, at: At<'_>) -> PyResult<Cow<'a, [u8]>> {
        match self.inner.profile() {
            Profile::PymemcacheRendezvous => pymemcache_text(obj, at),
            _ => key_bytes(obj, at),
        }
    }

    fn ids_list<'py>(&self, py: Python<'py>, indices: &[usize]) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, indices.iter().map(|&i| self.ids[i].bind(py)))
    }

    /// The caller's id of node `i`.
    pub(crate) fn id(&self, py: Python<'_>, i: usize) -> Py<PyAny> {
        self.ids[i].clone_ref(py)
    }

    /// The core placement.
    pub(crate) fn core(&self) -> &hrwhash_compat::ProfilePlacement {
        &self.inner
    }
}

#[pymethods]
impl ProfilePlacement {
    #[new]
    #[pyo3(
        signature = (profile, nodes, weights=None, **options),
        text_signature = "(profile, nodes, weights=None)"
    )]
    fn new(
        py: Python<'_>,
        profile: &Bound<'_, PyAny>,
        nodes: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ProfilePlacement> {
        // API.md 4: every argument's type, then its text, then the lengths, then the values.
        let name = profile.cast::<PyString>().map_err(|_| {
            invalid_argument(
                py,
                format!(
                    "profile is {} {}, not a str",
                    type_name(profile),
                    repr(profile)
                ),
                None,
            )
        })?;
        let ids = node_ids(nodes)?;
        let (weights, weights_read) = optional_weights(weights, ids.len())?;
        no_options(options)?;
        let name = key_bytes(name.as_any(), At::one("profile"))?;
        let name = String::from_utf8_lossy(&name);
        let profile = Profile::from_name(&name).map_err(|e| error(py, e, None))?;
        let mut id_bytes_list = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let at = At::item("the node id", i);
            id_bytes_list.push(match profile {
                Profile::PymemcacheRendezvous => pymemcache_text(id, at)?.into_owned(),
                _ => id_bytes(id, at)?.to_vec(),
            });
        }
        if let Some(w) = &weights_read {
            w.check_len(py, "weights", ids.len())?;
        }
        let mut nodes = Vec::with_capacity(ids.len());
        for (i, bytes) in id_bytes_list.into_iter().enumerate() {
            let mut node = Node::new(bytes);
            if let Some(w) = &weights {
                node = node.with_weight(checked_weight(&w[i], Some(i), &ids[i])?);
            }
            nodes.push(node);
        }
        let inner = hrwhash_compat::ProfilePlacement::new(profile, nodes)
            .map_err(|e| error(py, e, None))?;
        Ok(ProfilePlacement {
            inner,
            ids: ids.into_iter().map(Bound::unbind).collect(),
        })
    }

    /// The profile's name.
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.profile().name()
    }

    /// The node ids, in the order given.
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.ids.iter().map(|id| id.bind(py)))
    }

    /// The node the incumbent gives `key` to.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = self.key(key, At::one("the key"))?;
        Ok(self.ids[self.inner.owner(&key)].clone_ref(py))
    }

    /// The owner of every key of `keys`, in order, hashed without the GIL.
    fn owners<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let objs = items(keys, "keys")?;
        for (i, k) in objs.iter().enumerate() {
            check_key(k, At::item("the key", i))?;
        }
        let bytes = objs
            .iter()
            .enumerate()
            .map(|(i, k)| self.key(k, At::item("the key", i)))
            .collect::<PyResult<Vec<_>>>()?;
        let owners = py.detach(|| self.inner.owners(&bytes));
        self.ids_list(py, &owners)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        const SHOWN: usize = 8;
        let mut ids: Vec<String> = self
            .ids
            .iter()
            .take(SHOWN)
            .map(|id| repr(id.bind(py)))
            .collect();
        if self.ids.len() > SHOWN {
            ids.push("...".into());
        }
        format!(
            "ProfilePlacement({:?}, [{}])",
            self.profile(),
            ids.join(", ")
        )
    }
}

key_count_methods!(ProfilePlacement, key_text: key {
    /// The first `k` distinct nodes of the incumbent's top-k lookup of `key`, owner first.
    fn replicas = |p: &ProfilePlacement, key, k| p.inner.replicas(key, k);
});

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ProfilePlacement>()?;
    Ok(())
}
