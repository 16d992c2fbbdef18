//! Levelled slot tables (conformance/POLICIES.md, "slot-table (v2)") over the core's
//! `LevelledSlotTable`: the Python placement is kept beside it, so lookups hand back node ids as
//! they were given.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList};

use hrwhash::policy::LevelledSlotTable as CoreTable;
use hrwhash::Error;

use crate::args::{count_arg, key_bytes, no_options, type_name, At};
use crate::error::{error, invalid_argument};
use crate::view::View;
use crate::Placement;

/// Keys hash to a fixed number of slots and a table maps each slot to a node, kept level by its
/// changes: a change moves only the changed node's slots, and the table depends on their order.
#[pyclass(frozen, module = "hrwhash", name = "LevelledSlotTable")]
pub struct LevelledSlotTable {
    inner: CoreTable,
    placement: Py<Placement>,
}

impl LevelledSlotTable {
    /// A table over the nodes of `placement` (the same nodes in the same order).
    pub(crate) fn of(inner: CoreTable, placement: Py<Placement>) -> LevelledSlotTable {
        LevelledSlotTable { inner, placement }
    }

    fn changed(
        &self,
        py: Python<'_>,
        placement: Placement,
        inner: Result<CoreTable, Error>,
    ) -> PyResult<LevelledSlotTable> {
        Ok(LevelledSlotTable {
            inner: inner.map_err(|e| error(py, e, None))?,
            placement: Py::new(py, placement)?,
        })
    }
}

#[pymethods]
impl LevelledSlotTable {
    #[new]
    #[pyo3(
        signature = (placement, slots, **options),
        text_signature = "(placement, slots)"
    )]
    fn new(
        py: Python<'_>,
        placement: &Bound<'_, PyAny>,
        slots: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<LevelledSlotTable> {
        let placement: Py<Placement> = if let Ok(p) = placement.cast::<Placement>() {
            p.clone().unbind()
        } else if placement.is_instance_of::<View>() {
            placement
                .getattr("placement")?
                .cast_into::<Placement>()?
                .unbind()
        } else {
            return Err(invalid_argument(
                py,
                format!(
                    "placement is {}, not a Placement or View",
                    type_name(placement)
                ),
                None,
            ));
        };
        let slots = count_arg(slots, "slots")?;
        no_options(options)?;
        let slots = slots.get()? as u64;
        let core = &placement.get().inner;
        let inner = py
            .detach(|| CoreTable::new(core, slots))
            .map_err(|e| error(py, e, None))?;
        Ok(LevelledSlotTable { inner, placement })
    }

    /// Number of slots.
    #[getter]
    fn slots(&self) -> u32 {
        self.inner.slots()
    }

    /// The placement of the table's nodes.
    #[getter]
    fn placement(&self, py: Python<'_>) -> Py<Placement> {
        self.placement.clone_ref(py)
    }

    /// The slot of `key`.
    fn slot(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.inner.slot(&key))
    }

    /// The node that owns `slot`.
    fn owner_of_slot(&self, py: Python<'_>, slot: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let s = count_arg(slot, "slot")?;
        let s = match s.get() {
            Ok(s) => s as u64,
            // An int beyond the platform's size is still a slot number, just out of range.
            Err(e) if slot.is_instance_of::<PyInt>() && slot.gt(0)? => {
                let _ = e;
                u64::MAX
            }
            Err(e) => return Err(e),
        };
        let index = self
            .inner
            .owner_index_of_slot(s)
            .map_err(|e| error(py, e, Some(format!("slot {slot}"))))?;
        Ok(self.placement.get().id(py, index))
    }

    /// The owner of `key`: the owner of its slot.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.placement.get().id(py, self.inner.owner_index(&key)))
    }

    /// The owner of every slot as an index into the placement's nodes, slot 0 first.
    fn assignments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.assignments())
    }

    /// How many slots each node holds, in node order.
    fn slot_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.slot_counts())
    }

    /// The table with one more node: it takes its share from the most loaded nodes.
    #[pyo3(
        signature = (node, weight=None, *, domain=None, **options),
        text_signature = "(self, node, weight=None, *, domain=None)"
    )]
    fn with_node(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        weight: Option<&Bound<'_, PyAny>>,
        domain: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<LevelledSlotTable> {
        let p = self
            .placement
            .get()
            .with_node(py, node, weight, domain, options)?;
        let added = p.inner.node_specs()[p.inner.len() - 1].clone();
        let inner = py.detach(|| self.inner.with_node(added));
        self.changed(py, p, inner)
    }

    /// The table without `node`: its slots go to the least loaded nodes.
    fn without_node(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<LevelledSlotTable> {
        let p = self.placement.get().without_node(py, node)?;
        let index = self.placement.get().index_of(py, node)?;
        let id = self.inner.placement().node_specs()[index].id().to_vec();
        let inner = py.detach(|| self.inner.without_node(&id));
        self.changed(py, p, inner)
    }

    /// The table where `node` has another weight: it takes or gives slots until it holds its share.
    fn with_weight(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        weight: &Bound<'_, PyAny>,
    ) -> PyResult<LevelledSlotTable> {
        let p = self.placement.get().with_weight(py, node, weight)?;
        let index = self.placement.get().index_of(py, node)?;
        let spec = p.inner.node_specs()[index].clone();
        let inner = py.detach(|| self.inner.with_weight(spec.id(), spec.weight()));
        self.changed(py, p, inner)
    }

    fn __len__(&self) -> usize {
        self.inner.slots() as usize
    }

    fn __repr__(&self) -> String {
        format!(
            "LevelledSlotTable(slots={}, nodes={})",
            self.inner.slots(),
            self.inner.placement().len()
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LevelledSlotTable>()?;
    m.add(
        "LEVELLED_SLOTS_POLICY",
        hrwhash::policy::LEVELLED_SLOTS_POLICY,
    )?;
    Ok(())
}
