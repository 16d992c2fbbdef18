//! Slot tables (conformance/POLICIES.md, "slot-table (v1)" and "slot-table (v2)") and their
//! shared history (conformance/SLOT-HISTORY.md) over the core's `SlotTable`.
//!
//! The Python placements of the first and the current membership are kept beside the core table,
//! so lookups hand back node ids as they were given; ids that come from a document are str when
//! they are valid UTF-8 and bytes otherwise, as for views.
//!
//! `add_node`, `remove_node` and `set_weight` change a table in place while other threads may be
//! reading it, so the state sits behind a lock. Every lock is taken through pyo3's
//! `*_py_attached`, which waits with the interpreter released: a thread that waits never holds
//! the GIL that the holder of the lock may need. Arguments are read before the lock is taken, so
//! no Python code runs while it is held.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use pyo3::prelude::*;
use pyo3::sync::RwLockExt;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyInt, PyList, PyMemoryView, PyString};

use hrwhash::policy::{SlotChange, SlotMode, SlotTable as CoreTable};
use hrwhash::{Error, Node};

use crate::args::{
    self, check_id, count_arg, id_bytes, key_bytes, no_options, node_methods, seed_arg, type_name,
    At, NewNode, WeightArg,
};
use crate::error::{error, invalid_argument, invalid_count};
use crate::view::{epoch_arg, placement_of, View};
use crate::Placement;

/// A change as the binding hands it to the core: a weight change goes as the id and the number,
/// so that the core's `set_weight` decides the order of its checks (SLOT-HISTORY.md 7).
enum Change {
    Push(SlotChange),
    Weight(Vec<u8>, f64),
}

/// What a change does to the list of nodes.
enum Edit {
    Add,
    Remove(Option<usize>),
    Weight,
}

/// The core table with the Python placements of its first and current membership.
struct State {
    inner: CoreTable,
    placement: Py<Placement>,
    initial: Py<Placement>,
}

impl State {
    /// A copy, the table copied with the interpreter released (it may hold 2**24 slots).
    fn clone_ref(&self, py: Python<'_>) -> State {
        let inner = &self.inner;
        State {
            inner: py.detach(|| inner.clone()),
            placement: self.placement.clone_ref(py),
            initial: self.initial.clone_ref(py),
        }
    }

    /// Applies `change` in place; on error nothing changes. `id` is the Python object of the
    /// changed node's id, `domain` that of an added node's failure domain. The core's error is
    /// handed back to be raised once the lock is released: raising runs Python code.
    fn apply(
        &mut self,
        py: Python<'_>,
        change: Change,
        id: &Bound<'_, PyAny>,
        domain: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Result<(), Error>> {
        // The position of a removed node, read before the change takes it away.
        let edit = match &change {
            Change::Push(SlotChange::Add(_)) => Edit::Add,
            Change::Push(SlotChange::Remove(id)) => {
                Edit::Remove(self.inner.placement().find(id).map(|n| n.index()))
            }
            Change::Push(SlotChange::Weight(..)) | Change::Weight(..) => Edit::Weight,
        };
        let inner = &mut self.inner;
        let done = py.detach(|| match change {
            Change::Push(change) => inner.push(change),
            Change::Weight(id, weight) => inner.set_weight(id, weight),
        });
        if let Err(e) = done {
            return Ok(Err(e));
        }
        // The change is in: the placement follows it, ids kept as the caller gave them.
        let old = self.placement.get();
        let mut ids = old.clone_ids(py);
        let mut domains = old.clone_domains(py);
        match edit {
            Edit::Add => {
                let domain = domain.map(|d| d.clone().unbind());
                match domains.as_mut() {
                    Some(ds) => ds.push(domain),
                    None if domain.is_some() => {
                        let mut ds: Vec<Option<Py<PyAny>>> = ids.iter().map(|_| None).collect();
                        ds.push(domain);
                        domains = Some(ds);
                    }
                    None => {}
                }
                ids.push(id.clone().unbind());
            }
            // The core found the node, so the binding did too.
            Edit::Remove(Some(i)) => {
                ids.remove(i);
                if let Some(ds) = domains.as_mut() {
                    ds.remove(i);
                }
            }
            Edit::Remove(None) | Edit::Weight => {}
        }
        let placement = Placement::wrap(self.inner.placement().clone(), ids, domains);
        self.placement = Py::new(py, placement)?;
        Ok(Ok(()))
    }
}

/// Keys hash to a fixed number of slots and a table maps each slot to a node: an owner lookup
/// costs one key digest and one table read whatever the number of nodes. The table's state is
/// its history: the first membership, the ordered changes and an epoch.
#[pyclass(frozen, module = "hrwhash", name = "SlotTable")]
pub struct SlotTable {
    state: RwLock<State>,
}

impl SlotTable {
    fn of(state: State) -> SlotTable {
        SlotTable {
            state: RwLock::new(state),
        }
    }

    fn read(&self, py: Python<'_>) -> RwLockReadGuard<'_, State> {
        // Only a panic poisons the lock, and the core's changes do not panic: they check first and
        // then change the table.
        self.state
            .read_py_attached(py)
            .unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self, py: Python<'_>) -> RwLockWriteGuard<'_, State> {
        self.state
            .write_py_attached(py)
            .unwrap_or_else(|e| e.into_inner())
    }

    /// A copy with the change `read` applied.
    fn changed<'a, 'py: 'a>(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        read: impl ReadChange<'a, 'py>,
    ) -> PyResult<SlotTable> {
        let read = read.pending()?;
        let mut state = self.read(py).clone_ref(py);
        state
            .apply(py, read.change, id, read.domain)?
            .map_err(|e| raised(py, e, id, read.weight.as_ref()))?;
        Ok(SlotTable::of(state))
    }

    /// This table with the change `read` applied.
    fn change<'a, 'py: 'a>(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        read: impl ReadChange<'a, 'py>,
    ) -> PyResult<()> {
        let read = read.pending()?;
        let applied = self.write(py).apply(py, read.change, id, read.domain)?;
        applied.map_err(|e| raised(py, e, id, read.weight.as_ref()))
    }
}

/// The exception for the core's error of a change; a weight change's id and weight are named
/// in the message (the core decided which of them is at fault).
fn raised(
    py: Python<'_>,
    e: Error,
    node: &Bound<'_, PyAny>,
    weight: Option<&WeightArg<'_>>,
) -> PyErr {
    match (e, weight) {
        (Error::UnknownNode, Some(_)) => error(
            py,
            Error::UnknownNode,
            Some(format!("node {}", args::repr(node))),
        ),
        (Error::InvalidWeight { value }, Some(w)) => match args::free_weight_value(w) {
            Err(raised) => raised,
            Ok(_) => error(py, Error::InvalidWeight { value }, None),
        },
        (e, _) => error(py, e, None),
    }
}

/// A placement argument: a Placement, or a View, whose placement is taken.
fn placement_arg(py: Python<'_>, placement: &Bound<'_, PyAny>) -> PyResult<Py<Placement>> {
    if let Ok(p) = placement.cast::<Placement>() {
        Ok(p.clone().unbind())
    } else if placement.is_instance_of::<View>() {
        Ok(placement
            .getattr("placement")?
            .cast_into::<Placement>()?
            .unbind())
    } else {
        Err(invalid_argument(
            py,
            format!(
                "placement is {}, not a Placement or View",
                type_name(placement)
            ),
            None,
        ))
    }
}

/// A mode argument: "levelled" (the default) or "ranked", whose bound is read after it.
fn mode_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<SlotMode> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(SlotMode::Levelled);
    };
    let Ok(text) = obj.cast::<PyString>() else {
        return Err(invalid_argument(
            py,
            format!("mode is {}, not a str", type_name(obj)),
            None,
        ));
    };
    match text.to_str() {
        Ok("levelled") => Ok(SlotMode::Levelled),
        Ok("ranked") => Ok(SlotMode::Ranked { overload_ppm: None }),
        _ => Err(invalid_argument(
            py,
            format!(
                "mode is {}, not \"levelled\" or \"ranked\"",
                args::repr(obj)
            ),
            None,
        )),
    }
}

fn mode_name(mode: SlotMode) -> &'static str {
    match mode {
        SlotMode::Levelled => "levelled",
        SlotMode::Ranked { .. } => "ranked",
    }
}

/// An overload bound: None (the plain HRW slot table) or an int of parts per million below 2**32.
fn overload_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let k = count_arg(obj, "overload_ppm")?.get()?;
    u32::try_from(k).map(Some).map_err(|_| {
        invalid_count(
            py,
            format!("overload_ppm is {k}: above the largest, 2**32 - 1"),
            obj,
        )
    })
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

/// A change whose arguments are read and checked as far as the binding checks them: the change,
/// an added node's failure domain, and a changed weight, which the message of a refused change
/// names.
struct Pending<'a, 'py> {
    change: Change,
    domain: Option<&'a Bound<'py, PyAny>>,
    weight: Option<WeightArg<'py>>,
}

/// The arguments of a change, as a method reads them, made into the change they ask for: the
/// in-place method and the copying one of each change take the same arguments.
trait ReadChange<'a, 'py> {
    fn pending(self) -> PyResult<Pending<'a, 'py>>;
}

impl<'a, 'py> ReadChange<'a, 'py> for Pending<'a, 'py> {
    fn pending(self) -> PyResult<Pending<'a, 'py>> {
        Ok(self)
    }
}

/// The change that appends a node, with the failure domain it names.
impl<'a, 'py> ReadChange<'a, 'py> for NewNode<'a, 'py> {
    fn pending(self) -> PyResult<Pending<'a, 'py>> {
        let mut n = Node::new(self.id);
        if let Some(d) = self.domain_id {
            n = n.with_domain(d);
        }
        if let Some(w) = &self.weight {
            n = n.with_weight(args::free_weight_value(w)?);
        }
        Ok(Pending {
            change: Change::Push(SlotChange::Add(n)),
            domain: self.domain,
            weight: None,
        })
    }
}

/// The change that gives a node another weight: the core's `set_weight` checks the node
/// (UnknownNodeError) and then the weight's value, in its order.
impl<'a, 'py> ReadChange<'a, 'py> for (&'a [u8], WeightArg<'py>) {
    fn pending(self) -> PyResult<Pending<'a, 'py>> {
        let (id, weight) = self;
        Ok(Pending {
            change: Change::Weight(id.to_vec(), weight.value),
            domain: None,
            weight: Some(weight),
        })
    }
}

fn remove_change<'a, 'py>(node: &Bound<'_, PyAny>) -> PyResult<Pending<'a, 'py>> {
    check_id(node, At::one("the node id"))?;
    Ok(Pending {
        change: Change::Push(SlotChange::Remove(
            id_bytes(node, At::one("the node id"))?.to_vec(),
        )),
        domain: None,
        weight: None,
    })
}

#[pymethods]
impl SlotTable {
    /// The first table of `placement` (a Placement, or a View's placement) with `slots` slots.
    #[new]
    #[pyo3(
        signature = (placement, slots, *, mode=None, overload_ppm=None, epoch=None, **options),
        text_signature = "(placement, slots, *, mode=\"levelled\", overload_ppm=None, epoch=0)"
    )]
    fn new(
        py: Python<'_>,
        placement: &Bound<'_, PyAny>,
        slots: &Bound<'_, PyAny>,
        mode: Option<&Bound<'_, PyAny>>,
        overload_ppm: Option<&Bound<'_, PyAny>>,
        epoch: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<SlotTable> {
        let placement = placement_arg(py, placement)?;
        let slots = count_arg(slots, "slots")?;
        let mode = mode_arg(py, mode)?;
        // The conflict before the value, as in Node: a bound given to a levelled table is
        // InvalidArgument whatever the bound.
        if mode == SlotMode::Levelled && overload_ppm.is_some_and(|o| !o.is_none()) {
            return Err(invalid_argument(
                py,
                "overload_ppm is only for mode=\"ranked\"".to_owned(),
                None,
            ));
        }
        let overload = overload_arg(py, overload_ppm)?;
        let epoch = epoch.map(|e| epoch_arg(py, e)).transpose()?.unwrap_or(0);
        no_options(options)?;
        let slots = slots.get()? as u64;
        let core = &placement.get().inner;
        let inner = py
            .detach(|| {
                let table = match mode {
                    SlotMode::Levelled => CoreTable::new(core, slots),
                    SlotMode::Ranked { .. } => CoreTable::ranked(core, slots, overload),
                }?;
                Ok::<_, Error>(if epoch == 0 {
                    table
                } else {
                    table.with_epoch(epoch)
                })
            })
            .map_err(|e| error(py, e, None))?;
        Ok(SlotTable::of(State {
            inner,
            initial: placement.clone_ref(py),
            placement,
        }))
    }

    /// Loads and replays a history document (str, or bytes of UTF-8 JSON); `seed` is the secret
    /// seed it was written for (default: the public seed).
    #[staticmethod]
    #[pyo3(signature = (document, seed=None))]
    fn from_json(
        py: Python<'_>,
        document: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<SlotTable> {
        let bytes = document_bytes(py, document)?;
        let seed = args::seed(py, seed_arg(seed)?)?;
        let inner = py
            .detach(|| CoreTable::from_json_bytes(&bytes, seed))
            .map_err(|e| error(py, e, None))?;
        let placement = Py::new(py, placement_of(py, inner.placement()))?;
        let initial = Py::new(py, placement_of(py, inner.initial()))?;
        Ok(SlotTable::of(State {
            inner,
            placement,
            initial,
        }))
    }

    /// The canonical JSON form of the history (SLOT-HISTORY.md section 3), ending in a newline.
    fn to_json(&self, py: Python<'_>) -> String {
        self.read(py).inner.to_json()
    }

    /// The number of slots.
    #[getter]
    fn slots(&self, py: Python<'_>) -> u32 {
        self.read(py).inner.slots()
    }

    /// "levelled" (slot-table-v2) or "ranked" (slot-table-v1).
    #[getter]
    fn mode(&self, py: Python<'_>) -> &'static str {
        mode_name(self.read(py).inner.mode())
    }

    /// The overload bound of a ranked table in parts per million; None for a levelled table and
    /// for the plain HRW slot table.
    #[getter]
    fn overload_ppm(&self, py: Python<'_>) -> Option<u32> {
        self.read(py).inner.overload_ppm()
    }

    /// The current membership.
    #[getter]
    fn placement(&self, py: Python<'_>) -> Py<Placement> {
        self.read(py).placement.clone_ref(py)
    }

    /// The first membership, before any change.
    #[getter]
    fn initial(&self, py: Python<'_>) -> Py<Placement> {
        self.read(py).initial.clone_ref(py)
    }

    /// The epoch (that of the final membership's view).
    #[getter]
    fn epoch(&self, py: Python<'_>) -> u64 {
        self.read(py).inner.epoch()
    }

    /// The number of changes since the first membership.
    #[getter]
    fn change_count(&self, py: Python<'_>) -> usize {
        self.read(py).inner.changes().len()
    }

    /// The table fingerprint: 32 hex digits.
    #[getter]
    fn fingerprint(&self, py: Python<'_>) -> String {
        let state = self.read(py);
        let inner = &state.inner;
        py.detach(|| inner.fingerprint().to_hex())
    }

    /// The current membership as a view at the table's epoch.
    fn view(&self, py: Python<'_>) -> PyResult<View> {
        let state = self.read(py);
        Ok(View::of(state.inner.view(), state.placement.clone_ref(py)))
    }

    /// The slot of `key`.
    fn slot(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = key_bytes(key, At::one("the key"))?;
        Ok(self.read(py).inner.slot(&key))
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
        // The guard goes before the error is raised: a slot's str() may be Python code.
        let owner = {
            let state = self.read(py);
            let index = state.inner.owner_index_of_slot(s);
            index.map(|i| state.placement.get().id(py, i))
        };
        owner.map_err(|e| error(py, e, Some(format!("slot {slot}"))))
    }

    /// The owner of `key`: the owner of its slot.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        let state = self.read(py);
        let index = state.inner.owner_index(&key);
        Ok(state.placement.get().id(py, index))
    }

    /// The owner of every slot as an index into the current placement's nodes, slot 0 first.
    fn assignments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.read(py).inner.assignments())
    }

    /// How many slots each node holds, in node order.
    fn slot_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.read(py).inner.slot_counts())
    }

    /// The most slots each node may hold, in node order: None but for a ranked table with an
    /// overload bound.
    fn capacities<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.read(py)
            .inner
            .capacities()
            .map(|caps| PyList::new(py, caps))
            .transpose()
    }

    /// Removes `node` from this table.
    fn remove_node(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<()> {
        self.change(py, node, remove_change(node)?)
    }

    /// A copy of this table without `node`.
    fn without_node(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<SlotTable> {
        self.changed(py, node, remove_change(node)?)
    }

    /// A copy of this table at another epoch.
    fn with_epoch(&self, py: Python<'_>, epoch: &Bound<'_, PyAny>) -> PyResult<SlotTable> {
        let epoch = epoch_arg(py, epoch)?;
        let state = self.read(py);
        let inner = &state.inner;
        Ok(SlotTable::of(State {
            inner: py.detach(|| inner.with_epoch(epoch)),
            placement: state.placement.clone_ref(py),
            initial: state.initial.clone_ref(py),
        }))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let state = self.read(py);
        let t = &state.inner;
        let overload = match t.overload_ppm() {
            Some(p) => format!(", overload_ppm={p}"),
            None => String::new(),
        };
        format!(
            "SlotTable(mode='{}'{overload}, slots={}, nodes={}, changes={}, epoch={}, fingerprint='{}')",
            mode_name(t.mode()),
            t.slots(),
            t.placement().len(),
            t.changes().len(),
            t.epoch(),
            t.fingerprint()
        )
    }
}

node_methods!(SlotTable {
    /// Appends `node` to this table.
    fn add_node: new_node -> () = SlotTable::change;
    /// A copy of this table with `node` appended.
    fn with_node: new_node -> SlotTable = SlotTable::changed;
    /// Gives `node` another weight in this table (0 drains it).
    fn set_weight: node_weight -> () = SlotTable::change;
    /// A copy of this table where `node` has another weight.
    fn with_weight: node_weight -> SlotTable = SlotTable::changed;
});

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SlotTable>()?;
    m.add("SLOT_TABLE_POLICY", SlotMode::Levelled.policy())?;
    m.add(
        "RANKED_SLOT_TABLE_POLICY",
        SlotMode::Ranked { overload_ppm: None }.policy(),
    )?;
    m.add("SLOT_HISTORY_FORMAT", hrwhash::policy::SLOT_HISTORY_FORMAT)?;
    Ok(())
}
