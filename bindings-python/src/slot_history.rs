//! Slot histories (conformance/SLOT-HISTORY.md, `hrwhash-slot-history-v1`) over the core's
//! `SlotHistory`. Ids that come from the document are str when they are valid UTF-8 and bytes
//! otherwise, as for views.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView, PyString};

use hrwhash::policy::{SlotChange, SlotHistory as CoreHistory};
use hrwhash::{Error, Node, Weight};

use crate::args::{self, check_id, id_bytes, key_bytes, no_options, seed_arg, type_name, At};
use crate::error::{error, invalid_argument};
use crate::levelled_slots::LevelledSlotTable;
use crate::view::{epoch_arg, text_or_bytes, View};

/// The shared history of a levelled slot table: the first membership, the number of slots and
/// the ordered changes, written and read as the JSON document of SLOT-HISTORY.md.
#[pyclass(frozen, module = "hrwhash", name = "SlotHistory")]
pub struct SlotHistory {
    inner: CoreHistory,
}

impl SlotHistory {
    fn changed(&self, py: Python<'_>, change: SlotChange) -> PyResult<SlotHistory> {
        let inner = py
            .detach(|| self.inner.with_change(change))
            .map_err(|e| error(py, e, None))?;
        Ok(SlotHistory { inner })
    }
}

fn document_bytes<'a>(
    py: Python<'_>,
    document: &'a Bound<'_, PyAny>,
) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if document.is_instance_of::<PyString>()
        || document.is_instance_of::<PyBytes>()
        || document.is_instance_of::<PyByteArray>()
        || document.is_instance_of::<PyMemoryView>()
    {
        return key_bytes(document, At::one("the document"));
    }
    Err(invalid_argument(
        py,
        format!("the document is {}, not str or bytes", type_name(document)),
        None,
    ))
}

/// A weight argument of a change: a real number SPEC.md 5.1 accepts.
fn weight(obj: &Bound<'_, PyAny>) -> PyResult<Weight> {
    args::free_weight(obj)
}

#[pymethods]
impl SlotHistory {
    /// A history with no change yet: the first table of `placement` with `slots` slots.
    #[new]
    #[pyo3(signature = (placement, slots, epoch=None))]
    fn new(
        py: Python<'_>,
        placement: &Bound<'_, PyAny>,
        slots: &Bound<'_, PyAny>,
        epoch: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<SlotHistory> {
        let placement = placement.cast::<crate::Placement>().map_err(|_| {
            invalid_argument(
                py,
                format!("the placement is {}, not a Placement", type_name(placement)),
                None,
            )
        })?;
        let slots = args::count_arg(slots, "slots")?.get()? as u64;
        let epoch = epoch.map(|e| epoch_arg(py, e)).transpose()?.unwrap_or(0);
        let core = placement.get().inner.clone();
        let inner = py
            .detach(|| CoreHistory::new(core, slots, epoch))
            .map_err(|e| error(py, e, None))?;
        Ok(SlotHistory { inner })
    }

    /// Loads and replays a history document (str, or bytes of UTF-8 JSON); `seed` is the secret
    /// seed it was written for (default: the public seed).
    #[staticmethod]
    #[pyo3(signature = (document, *, seed=None))]
    fn from_json(
        py: Python<'_>,
        document: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<SlotHistory> {
        let bytes = document_bytes(py, document)?;
        let seed = args::seed(py, seed_arg(seed)?)?;
        let inner = py
            .detach(|| CoreHistory::from_json_bytes(&bytes, seed))
            .map_err(|e| error(py, e, None))?;
        Ok(SlotHistory { inner })
    }

    /// The canonical JSON form (SLOT-HISTORY.md section 3), ending in a newline.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The number of slots.
    #[getter]
    fn slots(&self) -> u32 {
        self.inner.table().slots()
    }

    /// The epoch (that of the final membership's view).
    #[getter]
    fn epoch(&self) -> u64 {
        self.inner.epoch()
    }

    /// The number of changes.
    #[getter]
    fn change_count(&self) -> usize {
        self.inner.changes().len()
    }

    /// The table fingerprint: 32 hex digits.
    #[getter]
    fn table_fingerprint(&self) -> String {
        self.inner.table_fingerprint().to_hex()
    }

    /// The final membership as a view at the history's epoch.
    fn view(&self, py: Python<'_>) -> PyResult<View> {
        View::loaded(py, self.inner.view())
    }

    /// The table the changes lead to.
    fn table(&self, py: Python<'_>) -> PyResult<LevelledSlotTable> {
        let view = View::loaded(py, self.inner.view())?;
        Ok(LevelledSlotTable::of(
            self.inner.table().clone(),
            view.placement,
        ))
    }

    /// The slot of `key`.
    fn slot(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.inner.table().slot(&key))
    }

    /// The id of the node that owns `key`'s slot.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(text_or_bytes(py, self.inner.table().owner(&key).id()))
    }

    /// The history with one more change: `node` appended.
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
    ) -> PyResult<SlotHistory> {
        check_id(node, At::one("the node id"))?;
        let domain = domain.filter(|d| !d.is_none());
        if let Some(d) = domain {
            check_id(d, At::one("the failure domain"))?;
        }
        no_options(options)?;
        let mut n = Node::new(id_bytes(node, At::one("the node id"))?.to_vec());
        if let Some(w) = weight.filter(|w| !w.is_none()) {
            n = n.with_weight(self::weight(w)?);
        }
        if let Some(d) = domain {
            n = n.with_domain(id_bytes(d, At::one("the failure domain"))?.to_vec());
        }
        self.changed(py, SlotChange::Add(n))
    }

    /// The history with one more change: `node` removed.
    fn without_node(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<SlotHistory> {
        check_id(node, At::one("the node id"))?;
        let id = id_bytes(node, At::one("the node id"))?.to_vec();
        self.changed(py, SlotChange::Remove(id))
    }

    /// The history with one more change: `node` at another weight. As `Placement.with_weight`:
    /// the argument types, then the node (UnknownNodeError), then the weight's value.
    fn with_weight(
        &self,
        py: Python<'_>,
        node: &Bound<'_, PyAny>,
        weight: &Bound<'_, PyAny>,
    ) -> PyResult<SlotHistory> {
        check_id(node, At::one("the node id"))?;
        let weight = args::weight_arg(weight, At::one("the weight"))?;
        let id = id_bytes(node, At::one("the node id"))?.to_vec();
        if self.inner.table().placement().find(&id).is_none() {
            return Err(error(py, Error::UnknownNode, None));
        }
        let w = args::free_weight_value(&weight)?;
        self.changed(py, SlotChange::Weight(id, w))
    }

    /// The same history at another epoch.
    fn with_epoch(&self, py: Python<'_>, epoch: &Bound<'_, PyAny>) -> PyResult<SlotHistory> {
        Ok(SlotHistory {
            inner: self.inner.with_epoch(epoch_arg(py, epoch)?),
        })
    }

    fn __len__(&self) -> usize {
        self.inner.changes().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "SlotHistory(epoch={}, slots={}, changes={}, table_fingerprint='{}')",
            self.inner.epoch(),
            self.inner.table().slots(),
            self.inner.changes().len(),
            self.inner.table_fingerprint()
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SlotHistory>()?;
    m.add("SLOT_HISTORY_FORMAT", hrwhash::policy::SLOT_HISTORY_FORMAT)?;
    Ok(())
}
