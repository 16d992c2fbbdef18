//! The domains-v1 policy (conformance/POLICIES.md, "domains (v1)") over a `Placement`: failure
//! domains first, then nodes, with domain paths read from the placement's `domains`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::args::{cast_arg, check_id, count_arg, key_bytes, key_count_methods, At};
use crate::error::error;
use crate::{inner_getters, Placement};

/// A str for bytes that are UTF-8, bytes otherwise.
fn text_or_bytes(py: Python<'_>, bytes: &[u8]) -> Py<PyAny> {
    match std::str::from_utf8(bytes) {
        Ok(s) => PyString::new(py, s).into_any().unbind(),
        Err(_) => PyBytes::new(py, bytes).into_any().unbind(),
    }
}

/// A placement read through the domains-v1 policy at one spread level.
#[pyclass(frozen, module = "hrwhash", name = "Domains")]
pub struct Domains {
    inner: hrwhash::policy::Domains,
    placement: Py<Placement>,
}

#[pymethods]
impl Domains {
    #[new]
    #[pyo3(signature = (placement, level))]
    fn new(
        py: Python<'_>,
        placement: &Bound<'_, PyAny>,
        level: &Bound<'_, PyAny>,
    ) -> PyResult<Domains> {
        let placement = cast_arg::<Placement>(placement, |t| {
            format!("the placement is {t}, not a Placement")
        })?;
        let level = count_arg(level, "level")?.get()?;
        let inner = hrwhash::policy::Domains::new(&placement.get().inner, level)
            .map_err(|e| error(py, e, None))?;
        Ok(Domains {
            inner,
            placement: placement.clone().unbind(),
        })
    }

    /// The placement the policy reads.
    #[getter]
    fn placement(&self, py: Python<'_>) -> Py<Placement> {
        self.placement.clone_ref(py)
    }

    /// The owner of `key`: the first of its replicas.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.placement.get().id(py, self.inner.owner_index(&key)))
    }

    /// The domain of the spread level that `node` is in: its path up to that level.
    fn domain_of(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        check_id(node, At::one("the node id"))?;
        let index = self.placement.get().index_of(py, node)?;
        let domain = self.inner.domain_of(index).unwrap_or_default();
        Ok(text_or_bytes(py, domain))
    }

    fn __repr__(&self) -> String {
        format!(
            "Domains(level={}, depth={}, domains={}, nodes={})",
            self.inner.level(),
            self.inner.depth(),
            self.inner.domain_count(),
            self.inner.placement().len()
        )
    }
}

inner_getters!(Domains {
    /// The spread level (0-based).
    level: usize;
    /// The number of levels of every domain path.
    depth: usize;
    /// The number of domains of the spread level with a node of weight above zero.
    domain_count: usize;
});

impl Domains {
    /// The ids of nodes `indices` of the placement read, which answers with its own ids.
    fn ids_list<'py>(&self, py: Python<'py>, indices: &[usize]) -> PyResult<Bound<'py, PyList>> {
        self.placement.get().ids_list(py, indices)
    }
}

key_count_methods!(Domains {
    /// The first `k` replicas of `key`, in distinct domains of the spread level while there are
    /// enough; `k` from 1 to the number of nodes of weight above zero.
    fn replicas = |d: &Domains, key, k| d.inner.replica_indices(key, k);
});

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Domains>()?;
    m.add("DOMAINS_POLICY", hrwhash::policy::domains::DOMAINS_POLICY)?;
    Ok(())
}
