//! `ReplicaBalance` (replica-balance of conformance/POLICIES.md, tag `replica-balance-v2`) over a
//! `Placement`, answering with the placement's node ids.

use pyo3::prelude::*;
use pyo3::types::PyList;

use hrwhash::{policy, Weight};

use crate::args::{check_key, key_bytes, At};
use crate::error::error;
use crate::{inner_getters, policy_placement, Placement};

/// Replica sets of `k` nodes whose share of replicas follows the weights.
#[pyclass(frozen, module = "hrwhash", name = "ReplicaBalance")]
pub struct ReplicaBalance {
    inner: policy::ReplicaBalance,
    placement: Py<Placement>,
}

#[pymethods]
impl ReplicaBalance {
    #[new]
    #[pyo3(signature = (placement, k))]
    fn new(py: Python<'_>, placement: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>) -> PyResult<Self> {
        let placement = policy_placement(placement)?;
        let k = crate::args::count_arg(k, "k")?.get()?;
        let fleet = placement.get().inner.clone();
        let inner = py
            .detach(move || policy::ReplicaBalance::new(fleet, k))
            .map_err(|e| error(py, e, None))?;
        Ok(ReplicaBalance {
            inner,
            placement: placement.clone().unbind(),
        })
    }

    /// The weights that rank positions 2..k, build order.
    #[getter]
    fn adjusted_weights(&self) -> Vec<f64> {
        self.adjusted(Weight::to_f64)
    }

    /// The same weights in fixed point (`w * 2**32`), as
    /// conformance/policies/replica-balance-v2.json states them.
    #[getter]
    fn adjusted_fixed(&self) -> Vec<u64> {
        self.adjusted(Weight::to_fixed)
    }

    /// The build-order indices of the replica set of `key`, primary first.
    #[pyo3(signature = (key))]
    fn replica_indices(&self, key: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        check_key(key, At::one("the key"))?;
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.inner.replicas(&key))
    }

    /// The replica set of `key` as node ids, primary first.
    #[pyo3(signature = (key))]
    fn replicas<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let set = self.replica_indices(key)?;
        self.placement.get().ids_list(py, &set)
    }

    fn __repr__(&self) -> String {
        format!(
            "ReplicaBalance(k={}, nodes={})",
            self.inner.k(),
            self.inner.placement().len()
        )
    }
}

impl ReplicaBalance {
    /// `f` of each adjusted weight, build order.
    fn adjusted<T>(&self, f: fn(Weight) -> T) -> Vec<T> {
        self.inner
            .adjusted_weights()
            .iter()
            .map(|&w| f(w))
            .collect()
    }
}

inner_getters!(ReplicaBalance {
    /// The number of replicas per key.
    k: usize;
    /// How many times the solver evaluated the inclusion probabilities.
    iterations: u32;
    /// The solver's largest relative distance from a target at its stop.
    residual: f64;
});

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ReplicaBalance>()?;
    m.add("REPLICA_BALANCE_POLICY", policy::REPLICA_BALANCE_POLICY)?;
    Ok(())
}
