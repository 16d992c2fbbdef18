//! `BoundedLoad` (bounded-load-v1 of conformance/POLICIES.md) over a `Placement`, answering with
//! the placement's node ids.

use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyList, PyTuple};

use hrwhash::policy;

use crate::args::{check_key, key_bytes, try_push, type_name, At};
use crate::error::{error, invalid_argument, invalid_count_at};
use crate::{policy_placement, Placement};

/// Key affinity with an overload guard: a key goes to the first node of its ranking whose load is
/// below `ceil((total + 1) * c) * share`.
#[pyclass(frozen, module = "hrwhash", name = "BoundedLoad")]
pub struct BoundedLoad {
    inner: policy::BoundedLoad,
    placement: Py<Placement>,
}

/// A factor's `num` or `den`: an int or float (`None` otherwise, a type error), and `Err` with its
/// value when it is not an integer of 0..2**32, which no factor has (POLICIES.md:
/// InvalidBalanceFactor), as in Node.
fn ratio_part(x: &Bound<'_, PyAny>) -> Option<Result<u32, f64>> {
    if x.is_instance_of::<pyo3::types::PyBool>()
        || !(x.is_instance_of::<PyInt>() || x.is_instance_of::<PyFloat>())
    {
        return None;
    }
    if let Ok(v) = x.extract::<u32>() {
        return Some(Ok(v));
    }
    let v = x.extract::<f64>().unwrap_or(f64::INFINITY);
    Some(if v.fract() == 0.0 && (0.0..4_294_967_296.0).contains(&v) {
        Ok(v as u32)
    } else {
        Err(v)
    })
}

/// The balance factor: a number >= 1 (rounded to millionths), or an exact `(num, den)` pair.
fn factor(py: Python<'_>, c: &Bound<'_, PyAny>) -> PyResult<policy::BalanceFactor> {
    let made = if let Ok(t) = c.cast::<PyTuple>() {
        let parts: Option<Vec<Result<u32, f64>>> = (t.len() == 2)
            .then(|| t.iter().map(|x| ratio_part(&x)).collect())
            .flatten();
        match parts.as_deref() {
            Some([Ok(num), Ok(den)]) => policy::BalanceFactor::new(*num, *den),
            Some([num, den]) => Err(hrwhash::Error::InvalidBalanceFactor {
                value: num.map_or_else(|v| v, f64::from) / den.map_or_else(|v| v, f64::from),
            }),
            _ => {
                return Err(invalid_argument(
                    py,
                    "c as a tuple is (num, den), two integers".into(),
                    None,
                ))
            }
        }
    } else if c.is_instance_of::<PyFloat>()
        || (c.is_instance_of::<PyInt>() && !c.is_instance_of::<pyo3::types::PyBool>())
    {
        match c.extract::<f64>() {
            Ok(v) => policy::BalanceFactor::from_f64(v),
            Err(_) => policy::BalanceFactor::from_f64(f64::INFINITY),
        }
    } else {
        return Err(invalid_argument(
            py,
            format!(
                "c must be a number or a (num, den) tuple, not {}",
                type_name(c)
            ),
            None,
        ));
    };
    made.map_err(|e| error(py, e, None))
}

/// Load `i`: checked as a count is (API.md 3, POLICIES.md "Online lookup"), so an int or a float
/// that is a whole number in 0..2**64 is a load, any other number `InvalidCountError` and a bool or
/// a non-number `InvalidArgumentError`, each naming the position.
fn load_value(py: Python<'_>, i: usize, x: &Bound<'_, PyAny>) -> PyResult<u64> {
    if x.is_instance_of::<pyo3::types::PyBool>()
        || !(x.is_instance_of::<PyInt>() || x.is_instance_of::<PyFloat>())
    {
        return Err(invalid_argument(
            py,
            format!("loads[{i}] must be an int, not {}", type_name(x)),
            Some(i),
        ));
    }
    let invalid = |problem: &str| {
        invalid_count_at(
            py,
            format!(
                "loads[{i}] = {} is not a load in 0..2**64: {problem}",
                crate::args::repr(x)
            ),
            x,
            i,
        )
    };
    crate::args::whole_u64(x, invalid)
}

/// One load per node of the placement (`nodes` of them): an iterable that runs longer is refused
/// as soon as its first extra item is read.
fn loads_arg(py: Python<'_>, loads: &Bound<'_, PyAny>, nodes: usize) -> PyResult<Vec<u64>> {
    if crate::args::is_one_text(loads) {
        return Err(invalid_argument(
            py,
            "loads must be a sequence of ints".into(),
            None,
        ));
    }
    let items: Vec<Bound<'_, PyAny>> = match loads.try_iter() {
        Ok(it) => it.take(nodes.saturating_add(1)).collect::<PyResult<_>>()?,
        Err(_) => {
            return Err(invalid_argument(
                py,
                format!("loads must be a sequence of ints, not {}", type_name(loads)),
                None,
            ))
        }
    };
    let values = items
        .iter()
        .enumerate()
        .map(|(i, x)| load_value(py, i, x))
        .collect::<PyResult<Vec<u64>>>()?;
    if items.len() > nodes {
        let (actual, count) = match loads.len() {
            Ok(len) => (len, format!("{len} loads")),
            Err(_) => (items.len(), format!("at least {} loads", items.len())),
        };
        return Err(error(
            py,
            hrwhash::Error::LengthMismatch {
                expected: nodes,
                actual,
            },
            Some(format!("{count} for {nodes} nodes")),
        ));
    }
    Ok(values)
}

#[pymethods]
impl BoundedLoad {
    #[new]
    #[pyo3(signature = (placement, c))]
    fn new(py: Python<'_>, placement: &Bound<'_, PyAny>, c: &Bound<'_, PyAny>) -> PyResult<Self> {
        let placement = policy_placement(placement)?;
        let factor = factor(py, c)?;
        Ok(BoundedLoad {
            inner: policy::BoundedLoad::new(placement.get().inner.clone(), factor),
            placement: placement.clone().unbind(),
        })
    }

    /// The balance factor as an exact `(num, den)` pair.
    #[getter]
    fn factor(&self) -> (u32, u32) {
        let f = self.inner.factor();
        (f.num(), f.den())
    }

    /// The placement whose rankings are probed.
    #[getter]
    fn placement(&self, py: Python<'_>) -> Py<Placement> {
        self.placement.clone_ref(py)
    }

    /// The node for `key` given the current load of every node (build order).
    #[pyo3(signature = (key, loads))]
    fn owner(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        loads: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let i = self.owner_index(py, key, loads)?;
        Ok(self.placement.get().id(py, i))
    }

    /// The build-order index of the node for `key` given the current loads.
    #[pyo3(signature = (key, loads))]
    fn owner_index(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        loads: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        check_key(key, At::one("the key"))?;
        let loads = loads_arg(py, loads, self.inner.placement().len())?;
        let key = key_bytes(key, At::one("the key"))?;
        self.inner
            .owner_index(&key, &loads)
            .map_err(|e| error(py, e, None))
    }

    /// Batch assignment of `keys` in order: one build-order index per key.
    #[pyo3(signature = (keys))]
    fn assign_indices(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let keys = keys_vec(py, keys)?;
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        py.detach(|| self.inner.assign(&refs))
            .map_err(|e| error(py, e, None))
    }

    /// Batch assignment of `keys` in order: one node id per key.
    #[pyo3(signature = (keys))]
    fn assign<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let owners = self.assign_indices(py, keys)?;
        self.placement.get().ids_list(py, &owners)
    }

    fn __repr__(&self) -> String {
        let f = self.inner.factor();
        format!(
            "BoundedLoad(c={}/{}, nodes={})",
            f.num(),
            f.den(),
            self.inner.placement().len()
        )
    }
}

fn keys_vec(py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    if crate::args::is_one_text(keys) {
        return Err(invalid_argument(
            py,
            "keys must be a sequence of keys, not one key".into(),
            None,
        ));
    }
    let it = keys.try_iter().map_err(|_| {
        invalid_argument(
            py,
            format!("keys must be a sequence, not {}", type_name(keys)),
            None,
        )
    })?;
    let mut out = Vec::new();
    for (i, k) in it.enumerate() {
        let k = k?;
        check_key(&k, At::item("the key", i))?;
        try_push(
            &mut out,
            key_bytes(&k, At::item("the key", i))?.into_owned(),
        )?;
    }
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BoundedLoad>()?;
    m.add("BOUNDED_LOAD_POLICY", policy::BOUNDED_LOAD_POLICY)?;
    Ok(())
}
