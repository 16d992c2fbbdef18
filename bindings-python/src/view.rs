//! Views, transitions and ramps (conformance/VIEW.md) over the core's `View`, `Transition` and
//! `RampPlan`. Ids that come from a view document are str when they are valid UTF-8 and bytes
//! otherwise, the way the document itself writes them (`id` / `id_hex`).

use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyIterator, PyList, PyMemoryView, PyString, PyTuple};

use hrwhash::{Error, Lookup};

use crate::args::{
    self, cast_arg, check_int_or_float, items_iter, key_bytes, seed_arg, type_name, At,
};
use crate::error::{error, invalid_argument, invalid_count};
use crate::inner_getters;
use crate::profile::ProfilePlacement;
use crate::{stream_chunks, Placement, CHUNK_KEYS};

/// A str for bytes that are UTF-8, bytes otherwise (VIEW.md writes them as `id` / `id_hex`).
pub(crate) fn text_or_bytes(py: Python<'_>, bytes: &[u8]) -> Py<PyAny> {
    match std::str::from_utf8(bytes) {
        Ok(s) => PyString::new(py, s).into_any().unbind(),
        Err(_) => PyBytes::new(py, bytes).into_any().unbind(),
    }
}

/// The Python placement of a core placement, ids and domains as [`text_or_bytes`]. It shares
/// `p` (a reference count): building it again from the ids would hold a second copy of every id
/// and table, about twice the document for a loaded view (BENCHMARKS.md, "Loading a large view").
pub(crate) fn placement_of(py: Python<'_>, p: &hrwhash::Placement) -> Placement {
    let specs = p.node_specs();
    let ids = specs.iter().map(|n| text_or_bytes(py, n.id())).collect();
    let domains = specs.iter().any(|n| n.domain().is_some()).then(|| {
        specs
            .iter()
            .map(|n| n.domain().map(|d| text_or_bytes(py, d)))
            .collect()
    });
    Placement::wrap(p.clone(), ids, domains)
}

/// An epoch argument: an integer from 0 to 2**64 - 1, checked as a count is (API.md section 3):
/// a number that is not such an integer is `InvalidCountError`, as in Node and on the command
/// line; a bool or a non-number is `InvalidArgumentError`.
pub(crate) fn epoch_arg(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    check_int_or_float(obj, |t| format!("the epoch is {t}, not an int"))?;
    let invalid = |problem: &str| {
        invalid_count(
            py,
            format!(
                "epoch = {} is not in 0 ..= 2**64 - 1: {problem}",
                args::repr(obj)
            ),
            obj,
        )
    };
    crate::args::whole_u64(obj, invalid)
}

/// A membership view: a placement with an epoch and the identity of its seed, written and read as
/// the JSON document of VIEW.md.
#[pyclass(frozen, module = "hrwhash", name = "View")]
pub struct View {
    inner: hrwhash::View,
    pub(crate) placement: Py<Placement>,
}

impl View {
    /// The view `inner` whose placement the caller holds as `placement` (the same nodes).
    pub(crate) fn of(inner: hrwhash::View, placement: Py<Placement>) -> View {
        View { inner, placement }
    }

    /// The core view.
    pub(crate) fn core(&self) -> &hrwhash::View {
        &self.inner
    }

    pub(crate) fn loaded(py: Python<'_>, inner: hrwhash::View) -> PyResult<View> {
        let placement = Py::new(py, placement_of(py, inner.placement()))?;
        Ok(View { inner, placement })
    }

    fn load(
        py: Python<'_>,
        bytes: &[u8],
        seed: Option<&Bound<'_, PyAny>>,
        what: Option<&str>,
    ) -> PyResult<View> {
        let seed = args::seed(py, seed_arg(seed)?)?;
        let inner = hrwhash::View::from_json_bytes(bytes, seed)
            .map_err(|e| error(py, e, what.map(str::to_owned)))?;
        View::loaded(py, inner)
    }
}

#[pymethods]
impl View {
    #[new]
    #[pyo3(signature = (placement, epoch))]
    fn new(
        py: Python<'_>,
        placement: &Bound<'_, PyAny>,
        epoch: &Bound<'_, PyAny>,
    ) -> PyResult<View> {
        let placement = cast_arg::<Placement>(placement, |t| {
            format!("the placement is {t}, not a Placement")
        })?;
        let epoch = epoch_arg(py, epoch)?;
        let inner = hrwhash::View::new(placement.get().inner.clone(), epoch)
            .map_err(|e| error(py, e, None))?;
        Ok(View {
            inner,
            placement: placement.clone().unbind(),
        })
    }

    /// Loads a view document (str, or bytes of UTF-8 JSON); `seed` is the secret seed it was
    /// written for (default: the public seed).
    #[staticmethod]
    #[pyo3(signature = (document, *, seed=None))]
    fn from_json(
        py: Python<'_>,
        document: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<View> {
        if document.is_instance_of::<PyString>() {
            let text = key_bytes(document, At::one("the document"))?;
            return View::load(py, &text, seed, None);
        }
        if document.is_instance_of::<PyBytes>()
            || document.is_instance_of::<PyByteArray>()
            || document.is_instance_of::<PyMemoryView>()
        {
            let bytes = key_bytes(document, At::one("the document"))?;
            return View::load(py, &bytes, seed, None);
        }
        Err(invalid_argument(
            py,
            format!("the document is {}, not str or bytes", type_name(document)),
            None,
        ))
    }

    /// Loads the view document in the file at `path` (str or os.PathLike). At most 1 GiB is read
    /// (ResultTooLargeError past it), and no further than the first control byte, so an endless
    /// stream such as /dev/zero fails at once with InvalidJsonError at line 1, column 1.
    #[staticmethod]
    #[pyo3(signature = (path, *, seed=None))]
    fn from_file(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<View> {
        let (path, name) = path_arg(py, path)?;
        // OSError (FileNotFoundError, ...) is Python's own error for a file that cannot be read
        // (the C ABI's HRW_STATUS_IO); given errno, message and file name, OSError picks the
        // subclass and names the file. A path holding a NUL byte names no file: EINVAL (22 on
        // every platform Python runs on), as the operating system says for other unusable paths.
        const EINVAL: i32 = 22;
        let bytes = std::fs::File::open(&path)
            .and_then(hrwhash::view::read_document)
            .map_err(|e| {
                let message = e.to_string();
                let errno = match (e.raw_os_error(), e.kind()) {
                    (Some(errno), _) => errno,
                    (None, std::io::ErrorKind::InvalidInput) => EINVAL,
                    (None, _) => 0,
                };
                pyo3::exceptions::PyOSError::new_err((errno, message, name.clone().unbind()))
            })?
            .map_err(|e| error(py, e, None))?;
        View::load(py, &bytes, seed, Some(&format!("in {}", path.display())))
    }

    /// The canonical JSON form (VIEW.md section 3), ending in a newline.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The same membership at another epoch.
    fn with_epoch(&self, py: Python<'_>, epoch: &Bound<'_, PyAny>) -> PyResult<View> {
        let epoch = epoch_arg(py, epoch)?;
        Ok(View {
            inner: self.inner.with_epoch(epoch),
            placement: self.placement.clone_ref(py),
        })
    }

    /// The membership, ready for lookups.
    #[getter]
    fn placement(&self, py: Python<'_>) -> Py<Placement> {
        self.placement.clone_ref(py)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<View>() else {
            return Ok(py.NotImplemented());
        };
        let other = &other.get().inner;
        let equal =
            self.inner.epoch() == other.epoch() && self.inner.fingerprint() == other.fingerprint();
        Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind())
    }

    fn __hash__(&self) -> isize {
        let b = self.inner.fingerprint().to_bytes();
        let mut h = [0u8; 8];
        h.copy_from_slice(&b[..8]);
        (u64::from_le_bytes(h) ^ self.inner.epoch()) as isize
    }

    fn __repr__(&self) -> String {
        format!(
            "View(epoch={}, fingerprint='{}', nodes={})",
            self.inner.epoch(),
            self.inner.fingerprint().to_hex(),
            self.inner.placement().len()
        )
    }
}

inner_getters!(View {
    epoch: u64;
    /// The view fingerprint: 32 hex digits, equal for views that place every key alike.
    fingerprint: String => to_hex;
    /// The seed fingerprint: 16 hex digits that name the seed without revealing it.
    seed_fingerprint: String => to_hex;
    /// Whether the view uses the public default seed.
    has_default_seed: bool;
});

/// A view argument.
pub(crate) fn view_arg<'a, 'py>(
    obj: &'a Bound<'py, PyAny>,
    what: &str,
) -> PyResult<&'a Bound<'py, View>> {
    cast_arg(obj, |t| format!("{what} is {t}, not a View"))
}

/// A view or a placement argument: the Python placement (for its ids) and the core one.
/// One side of a transition, as the caller gave it: answers name its nodes by these ids.
enum Side {
    /// A placement, or the placement of a view.
    Hrw(Py<Placement>),
    /// An incumbent's profile placement.
    Profile(Py<ProfilePlacement>),
}

impl Side {
    fn of(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Side> {
        if let Ok(v) = obj.cast::<View>() {
            return Ok(Side::Hrw(v.get().placement.clone_ref(py)));
        }
        if let Ok(p) = obj.cast::<Placement>() {
            return Ok(Side::Hrw(p.clone().unbind()));
        }
        if let Ok(p) = obj.cast::<ProfilePlacement>() {
            return Ok(Side::Profile(p.clone().unbind()));
        }
        Err(invalid_argument(
            py,
            format!(
                "{what} is {}, not a Placement, View or ProfilePlacement",
                type_name(obj)
            ),
            None,
        ))
    }

    fn id(&self, py: Python<'_>, i: usize) -> Py<PyAny> {
        match self {
            Side::Hrw(p) => p.get().id(py, i),
            Side::Profile(p) => p.get().id(py, i),
        }
    }

    fn object(&self, py: Python<'_>) -> Py<PyAny> {
        match self {
            Side::Hrw(p) => p.clone_ref(py).into_any(),
            Side::Profile(p) => p.clone_ref(py).into_any(),
        }
    }

    fn lookup(&self) -> Box<dyn Lookup + Send + Sync> {
        match self {
            Side::Hrw(p) => Box::new(p.get().inner.clone()),
            Side::Profile(p) => Box::new(p.get().core().clone()),
        }
    }
}

/// A transition with a profile on either side: owners only.
type AnyTransition =
    hrwhash::Transition<Box<dyn Lookup + Send + Sync>, Box<dyn Lookup + Send + Sync>>;

/// The core transition: hrw-v1 on both sides (with replica routes and expected movement), or not.
enum Core {
    Hrw(hrwhash::Transition),
    Any(AnyTransition),
}

/// Counts the owner changes of `keys` (read in chunks, hashed without the GIL).
fn count<A, B>(
    py: Python<'_>,
    mut acc: hrwhash::transition::Diff<A, B>,
    keys: &Bound<'_, PyAny>,
) -> PyResult<hrwhash::transition::Diff<A, B>>
where
    A: Lookup + Send + Sync,
    B: Lookup + Send + Sync,
{
    stream_chunks(keys, CHUNK_KEYS, |chunk| {
        py.detach(|| chunk.iter().for_each(|k| acc.add(k)));
        Ok(())
    })?;
    Ok(acc)
}

/// Where one key is during a migration.
#[pyclass(frozen, module = "hrwhash", name = "Route")]
pub struct Route {
    /// The owner after the change: write here, read here first.
    #[pyo3(get)]
    new: Py<PyAny>,
    /// The owner before the change: read here on a miss.
    #[pyo3(get)]
    old: Py<PyAny>,
    /// Whether the two owners have different ids.
    #[pyo3(get)]
    moved: bool,
    /// Position of `old` in the old membership's node list.
    #[pyo3(get)]
    old_index: usize,
    /// Position of `new` in the new membership's node list.
    #[pyo3(get)]
    new_index: usize,
}

#[pymethods]
impl Route {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Route(new={}, old={}, moved={})",
            args::repr(self.new.bind(py)),
            args::repr(self.old.bind(py)),
            if self.moved { "True" } else { "False" }
        )
    }
}

/// The replica sets of one key before and after a change (`replicas(key, k)` of each side).
#[pyclass(frozen, module = "hrwhash", name = "RouteSet")]
pub struct RouteSet {
    #[pyo3(get)]
    before: Py<PyList>,
    #[pyo3(get)]
    after: Py<PyList>,
    /// Nodes of `after` not in `before`: the replicas to fill, in replica order.
    #[pyo3(get)]
    add: Py<PyList>,
    /// Nodes of `before` not in `after`: the replicas to drop once the new ones are filled.
    #[pyo3(get)]
    drop: Py<PyList>,
}

/// `hrwhash._results.NodeChange`, the class of a diff's rows (a tuple subclass, so that rows stay
/// the `(node, before, after)` tuples they were in 1.0).
static NODE_CHANGE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The counts of a diff over a stream of keys.
#[pyclass(frozen, module = "hrwhash", name = "Diff")]
pub struct Diff {
    /// Keys counted.
    #[pyo3(get)]
    keys: u64,
    /// Keys whose owner changed (with `k` above 1: whose replica set changed).
    #[pyo3(get)]
    moved: u64,
    /// `(from, to, count)` per pair of old and new owner, ordered by old then new build order;
    /// empty for `diff_top`.
    #[pyo3(get)]
    flows: Py<PyList>,
    /// `NodeChange` rows, each the tuple `(node, before, after)` with `old_index`, `new_index`,
    /// `added` and `dropped` beside: every old node in old order, then every new-only node.
    #[pyo3(get)]
    nodes: Py<PyList>,
    /// The replicas compared per key: 1 for `Transition.diff`, k for `Transition.diff_top`.
    #[pyo3(get)]
    k: usize,
    /// Copies to make: the replicas to add over every key (for `k = 1`, the moved keys).
    #[pyo3(get)]
    copies_added: u64,
    /// Copies to drop: the replicas to drop over every key (for `k = 1`, the moved keys).
    #[pyo3(get)]
    copies_dropped: u64,
    /// The expected fraction of all keys that move (VIEW.md 6.1); None unless both sides are
    /// hrw-v1.
    #[pyo3(get)]
    expected_moved: Option<f64>,
    /// The least fraction of keys any scheme must move (VIEW.md 6.2); None unless both sides are
    /// hrw-v1.
    #[pyo3(get)]
    optimum: Option<f64>,
}

#[pymethods]
impl Diff {
    fn __repr__(&self) -> String {
        format!(
            "Diff(keys={}, moved={}, expected_moved={:?}, optimum={:?})",
            self.keys, self.moved, self.expected_moved, self.optimum
        )
    }
}

/// The change from one membership (placement, view or profile placement) to another; nodes are
/// the same node when their ids are equal.
#[pyclass(frozen, module = "hrwhash", name = "Transition")]
pub struct Transition {
    inner: Core,
    old: Side,
    new: Side,
}

impl Transition {
    /// The transition between two views (a live view's previous and current ones).
    pub(crate) fn of_views(py: Python<'_>, old: &Py<View>, new: &Py<View>) -> PyResult<Transition> {
        let (a, b) = (
            old.get().placement.clone_ref(py),
            new.get().placement.clone_ref(py),
        );
        let inner = Core::Hrw(hrwhash::Transition::new(&a.get().inner, &b.get().inner));
        Ok(Transition {
            inner,
            old: Side::Hrw(a),
            new: Side::Hrw(b),
        })
    }

    fn old_id(&self, py: Python<'_>, i: usize) -> Py<PyAny> {
        self.old.id(py, i)
    }

    fn new_id(&self, py: Python<'_>, i: usize) -> Py<PyAny> {
        self.new.id(py, i)
    }

    fn route_of(&self, key: &[u8]) -> hrwhash::transition::Route {
        match &self.inner {
            Core::Hrw(t) => t.route(key),
            Core::Any(t) => t.route(key),
        }
    }

    /// The hrw-v1 transition, or `NotOffered` in the words of the profile on either side.
    fn hrw(&self, py: Python<'_>, what: &'static str) -> PyResult<&hrwhash::Transition> {
        match (&self.inner, &self.old, &self.new) {
            (Core::Hrw(t), _, _) => Ok(t),
            (_, Side::Profile(p), _) | (_, _, Side::Profile(p)) => {
                let profile = p.get().core().profile().name();
                Err(error(py, Error::NotOffered { profile, what }, None))
            }
            _ => unreachable!("a transition without a profile is hrw-v1 on both sides"),
        }
    }

    /// The Python form of a route set: nodes named by the caller's ids.
    fn route_set(&self, py: Python<'_>, r: &hrwhash::transition::RouteSet) -> PyResult<RouteSet> {
        let old = |v: &[usize]| PyList::new(py, v.iter().map(|&i| self.old_id(py, i)));
        let new = |v: &[usize]| PyList::new(py, v.iter().map(|&i| self.new_id(py, i)));
        Ok(RouteSet {
            before: old(&r.before)?.unbind(),
            after: new(&r.after)?.unbind(),
            add: new(&r.add)?.unbind(),
            drop: old(&r.drop)?.unbind(),
        })
    }

    fn hrw_only(&self) -> Option<&hrwhash::Transition> {
        match &self.inner {
            Core::Hrw(t) => Some(t),
            Core::Any(_) => None,
        }
    }

    /// The Python form of a diff: flows and rows name nodes by the caller's ids.
    fn diff_of<A: Lookup, B: Lookup>(
        &self,
        py: Python<'_>,
        acc: &hrwhash::transition::Diff<A, B>,
    ) -> PyResult<Diff> {
        let flows = acc
            .flows()
            .into_iter()
            .map(|(from, to, count)| {
                (self.old_id(py, from), self.new_id(py, to), count).into_pyobject(py)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let row = NODE_CHANGE
            .get_or_try_init(py, || {
                py.import("hrwhash._results")?
                    .getattr("NodeChange")
                    .map(Bound::unbind)
            })?
            .bind(py);
        let nodes = acc
            .nodes()
            .into_iter()
            .map(|n| {
                // A row always names a node of one side or the other.
                let id = match (n.old_index, n.new_index) {
                    (Some(i), _) => self.old_id(py, i),
                    (None, Some(j)) => self.new_id(py, j),
                    (None, None) => py.None(),
                };
                row.call1((
                    id,
                    n.before,
                    n.after,
                    n.old_index,
                    n.new_index,
                    n.added,
                    n.dropped,
                ))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let (flows, nodes) = (PyList::new(py, flows)?, PyList::new(py, nodes)?);
        Ok(Diff {
            keys: acc.keys(),
            moved: acc.moved(),
            flows: flows.unbind(),
            nodes: nodes.unbind(),
            k: acc.k(),
            copies_added: acc.copies_added(),
            copies_dropped: acc.copies_dropped(),
            expected_moved: self.hrw_only().map(|t| t.expected_moved()),
            optimum: self.hrw_only().map(|t| t.optimum()),
        })
    }
}

#[pymethods]
impl Transition {
    #[new]
    #[pyo3(signature = (old, new))]
    fn py_new(py: Python<'_>, old: &Bound<'_, PyAny>, new: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (old, new) = (Side::of(py, old, "old")?, Side::of(py, new, "new")?);
        let inner = match (&old, &new) {
            (Side::Hrw(a), Side::Hrw(b)) => {
                Core::Hrw(hrwhash::Transition::new(&a.get().inner, &b.get().inner))
            }
            _ => Core::Any(hrwhash::Transition::between(old.lookup(), new.lookup())),
        };
        Ok(Transition { inner, old, new })
    }

    /// The membership before: a Placement (a view's placement) or a ProfilePlacement.
    #[getter]
    fn old_placement(&self, py: Python<'_>) -> Py<PyAny> {
        self.old.object(py)
    }

    /// The membership after: a Placement (a view's placement) or a ProfilePlacement.
    #[getter]
    fn new_placement(&self, py: Python<'_>) -> Py<PyAny> {
        self.new.object(py)
    }

    /// The owners of `key` after and before, and whether it moved.
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Route> {
        let key = key_bytes(key, At::one("the key"))?;
        let r = self.route_of(&key);
        Ok(Route {
            new: self.new_id(py, r.new_index),
            old: self.old_id(py, r.old_index),
            moved: r.moved,
            old_index: r.old_index,
            new_index: r.new_index,
        })
    }

    /// The replicas of `key` before and after (`replicas(key, k)` of each side: spread over
    /// failure domains when a placement names them), with the replicas to add and to drop.
    fn route_top(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        k: &Bound<'_, PyAny>,
    ) -> PyResult<RouteSet> {
        let (key, k) = args::key_and_count(key, k)?;
        let r = self
            .hrw(py, "replica routes in a transition")?
            .route_top(&key, k.get()?);
        self.route_set(py, &r)
    }

    /// Counts the owner changes of every key of `keys` (any iterable, read in chunks and never
    /// held whole), without holding the GIL while hashing.
    fn diff(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Diff> {
        match &self.inner {
            Core::Hrw(t) => self.diff_of(py, &count(py, t.diff(), keys)?),
            Core::Any(t) => self.diff_of(py, &count(py, t.diff(), keys)?),
        }
    }

    /// Counts the changes of the replica sets (`replicas(key, k)` of each side) of every key of
    /// `keys`, read in chunks as `diff` reads them; `k = 1` counts what `diff` counts but the
    /// flows.
    fn diff_top(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        k: &Bound<'_, PyAny>,
    ) -> PyResult<Diff> {
        let k = args::count_arg(k, "k")?;
        let t = self.hrw(py, "replica diffs in a transition")?;
        let acc = t.diff_top(k.get()?);
        self.diff_of(py, &count(py, acc, keys)?)
    }

    /// The keys of `keys` whose set of `k` replicas changes, as `(key, RouteSet)` in input order:
    /// an iterator that reads one key at a time, so memory stays constant.
    fn plan_top(
        slf: &Bound<'_, Self>,
        keys: &Bound<'_, PyAny>,
        k: &Bound<'_, PyAny>,
    ) -> PyResult<PlanTop> {
        let py = slf.py();
        let k = args::count_arg(k, "k")?.get()?;
        slf.get().hrw(py, "replica plans in a transition")?;
        Ok(PlanTop {
            transition: slf.clone().unbind(),
            keys: items_iter(keys, "keys")?.unbind(),
            k,
            next_index: AtomicUsize::new(0),
        })
    }

    /// The keys of `keys` that change owner, as `(key, from, to)` in input order: an iterator
    /// that reads one key at a time, so memory stays constant.
    fn plan(slf: &Bound<'_, Self>, keys: &Bound<'_, PyAny>) -> PyResult<Plan> {
        Ok(Plan {
            transition: slf.clone().unbind(),
            keys: items_iter(keys, "keys")?.unbind(),
            next_index: AtomicUsize::new(0),
        })
    }

    /// The expected fraction of all keys whose owner changes (VIEW.md 6.1); None unless both
    /// sides are hrw-v1.
    #[getter]
    fn expected_moved(&self) -> Option<f64> {
        self.hrw_only().map(|t| t.expected_moved())
    }

    /// The least fraction of keys any scheme must move for the new shares (VIEW.md 6.2); None
    /// unless both sides are hrw-v1.
    #[getter]
    fn optimum(&self) -> Option<f64> {
        self.hrw_only().map(|t| t.optimum())
    }
}

/// A file path as `open()` takes it: str, bytes or os.PathLike of either. bytes are the name's
/// bytes, which on Linux need not be UTF-8 (a str name that is not comes with surrogate escapes,
/// which the file system encoding turns back into the same bytes).
/// Also returns what `os.fspath` made of it, the `filename` of an OSError as `open()` gives it.
fn path_arg<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
) -> PyResult<(std::path::PathBuf, Bound<'py, PyAny>)> {
    let refused = || {
        invalid_argument(
            py,
            format!(
                "the path is {}, not str, bytes or os.PathLike",
                type_name(path)
            ),
            None,
        )
    };
    let path = py
        .import("os")?
        .getattr("fspath")?
        .call1((path,))
        .map_err(|_| refused())?;
    if let Ok(b) = path.cast::<PyBytes>() {
        #[cfg(unix)]
        let buf = std::path::PathBuf::from(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b.as_bytes()),
        );
        #[cfg(not(unix))]
        let buf = std::path::PathBuf::from(String::from_utf8_lossy(b.as_bytes()).into_owned());
        return Ok((buf, path));
    }
    let buf = path.extract().map_err(|_| refused())?;
    Ok((buf, path))
}

/// The moved keys of a key stream; see `Transition.plan`.
///
/// Frozen, with the key position in an atomic: a `&mut self` method would hold a borrow while the
/// key source runs, so a source that advances its own plan, or a plan shared by threads, failed
/// with PyO3's untyped "Already borrowed". Without the borrow, the source's own rules apply (a
/// generator that advances its plan gets Python's "generator already executing" ValueError).
#[pyclass(frozen, module = "hrwhash", name = "Plan")]
pub struct Plan {
    transition: Py<Transition>,
    keys: Py<PyIterator>,
    next_index: AtomicUsize,
}

#[pymethods]
impl Plan {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let t = self.transition.get();
        next_row(py, &self.keys, &self.next_index, |key, bytes| {
            let r = t.route_of(bytes);
            if !r.moved {
                return Ok(None);
            }
            let row = [
                key.clone().unbind(),
                t.old_id(py, r.old_index),
                t.new_id(py, r.new_index),
            ];
            PyTuple::new(py, row).map(Some)
        })
    }
}

/// The next key of `keys` that `pick` makes a row of, reading one key at a time (each numbered by
/// `next_index`, for the error that names a bad one): the loop of `Plan` and `PlanTop`.
fn next_row<'py>(
    py: Python<'py>,
    keys: &Py<PyIterator>,
    next_index: &AtomicUsize,
    mut pick: impl FnMut(&Bound<'py, PyAny>, &[u8]) -> PyResult<Option<Bound<'py, PyTuple>>>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let mut keys = keys.bind(py).clone();
    loop {
        let Some(key) = keys.next() else {
            return Ok(None);
        };
        let key = key?;
        let at = At::item("the key", next_index.fetch_add(1, Ordering::Relaxed));
        if let Some(row) = pick(&key, &key_bytes(&key, at)?)? {
            return Ok(Some(row));
        }
    }
}

/// The keys of a key stream whose replica set changes; see `Transition.plan_top`. Frozen for the
/// reasons `Plan` is.
#[pyclass(frozen, module = "hrwhash", name = "PlanTop")]
pub struct PlanTop {
    transition: Py<Transition>,
    keys: Py<PyIterator>,
    k: usize,
    next_index: AtomicUsize,
}

#[pymethods]
impl PlanTop {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let t = self.transition.get();
        let hrw = t.hrw(py, "replica plans in a transition")?;
        next_row(py, &self.keys, &self.next_index, |key, bytes| {
            let r = hrw.route_top(bytes, self.k);
            if !r.changed() {
                return Ok(None);
            }
            let set = Py::new(py, t.route_set(py, &r)?)?.into_any();
            PyTuple::new(py, [key.clone().unbind(), set]).map(Some)
        })
    }
}

/// One step of a ramp.
#[pyclass(frozen, module = "hrwhash", name = "RampStep")]
pub struct RampStep {
    /// The epoch of the step's view.
    #[pyo3(get)]
    epoch: u64,
    /// Where the weights are on the line from old (0) to new (`RAMP_GRID`).
    #[pyo3(get)]
    position: u32,
    /// Expected fraction of all keys that change owner from the previous step.
    #[pyo3(get)]
    moved: f64,
    /// Whether this is the last step, which removes the drained leaving nodes.
    #[pyo3(get)]
    removes_drained: bool,
}

#[pymethods]
impl RampStep {
    fn __repr__(&self) -> String {
        format!(
            "RampStep(epoch={}, position={}, moved={:?}, removes_drained={})",
            self.epoch,
            self.position,
            self.moved,
            if self.removes_drained {
                "True"
            } else {
                "False"
            }
        )
    }
}

/// The limit of a ramp step: a real number (not a bool), checked by the core.
fn max_move_arg(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    check_int_or_float(obj, |t| format!("max_move is {t}, not a number"))?;
    // An int too large for a float is beyond 1 all the same.
    Ok(obj.extract::<f64>().unwrap_or(f64::INFINITY))
}

/// A gradual change from one view to another in steps that each move at most `max_move` of the
/// keys (VIEW.md section 7).
#[pyclass(frozen, module = "hrwhash", name = "RampPlan")]
pub struct RampPlan {
    inner: hrwhash::RampPlan,
}

#[pymethods]
impl RampPlan {
    #[new]
    #[pyo3(signature = (old, new, max_move))]
    fn new(
        py: Python<'_>,
        old: &Bound<'_, PyAny>,
        new: &Bound<'_, PyAny>,
        max_move: &Bound<'_, PyAny>,
    ) -> PyResult<RampPlan> {
        let (old, new) = (view_arg(old, "old")?, view_arg(new, "new")?);
        let max_move = max_move_arg(max_move)?;
        let (old, new) = (old.get().inner.clone(), new.get().inner.clone());
        let inner = py
            .detach(|| hrwhash::RampPlan::new(&old, &new, max_move))
            .map_err(|e| error(py, e, None))?;
        Ok(RampPlan { inner })
    }

    /// The steps, in order; empty when the two views already place keys alike.
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let steps = self.inner.steps().iter().map(|s| RampStep {
            epoch: s.epoch,
            position: s.position,
            moved: s.moved,
            removes_drained: s.removes_drained,
        });
        let steps = steps
            .map(|s| Py::new(py, s))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, steps)
    }

    /// The view of step `step` (0-based); the last one has the target view's membership.
    fn view(&self, py: Python<'_>, step: &Bound<'_, PyAny>) -> PyResult<View> {
        let step = args::count_arg(step, "step")?.get()?;
        let inner = self.inner.view(step).map_err(|e| error(py, e, None))?;
        View::loaded(py, inner)
    }

    /// Every step's view, in order.
    fn views(&self, py: Python<'_>) -> PyResult<Vec<View>> {
        (0..self.inner.steps().len())
            .map(|i| {
                let inner = self.inner.view(i).map_err(|e| error(py, e, None))?;
                View::loaded(py, inner)
            })
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.steps().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "RampPlan(steps={}, max_move={:?}, total_moved={:?}, direct_moved={:?})",
            self.inner.steps().len(),
            self.inner.max_move(),
            self.inner.total_moved(),
            self.inner.direct_moved()
        )
    }
}

inner_getters!(RampPlan {
    max_move: f64;
    /// Sum of the steps' expected movements (a key that moves twice counts twice).
    total_moved: f64;
    /// Expected movement of switching directly.
    direct_moved: f64;
    /// The least movement any scheme needs for the new shares.
    optimum: f64;
});

/// The ramp from `old` to `new` moving at most `max_move` of the keys per step.
#[pyfunction]
#[pyo3(signature = (old, new, max_move))]
pub(crate) fn ramp(
    py: Python<'_>,
    old: &Bound<'_, PyAny>,
    new: &Bound<'_, PyAny>,
    max_move: &Bound<'_, PyAny>,
) -> PyResult<RampPlan> {
    RampPlan::new(py, old, new, max_move)
}

/// Registers the classes and functions of this module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<View>()?;
    m.add_class::<Transition>()?;
    m.add_class::<Route>()?;
    m.add_class::<RouteSet>()?;
    m.add_class::<Diff>()?;
    m.add_class::<Plan>()?;
    m.add_class::<PlanTop>()?;
    m.add_class::<RampPlan>()?;
    m.add_class::<RampStep>()?;
    m.add_function(wrap_pyfunction!(ramp, m)?)?;
    m.add("VIEW_FORMAT", hrwhash::view::VIEW_FORMAT)?;
    m.add("RAMP_GRID", hrwhash::ramp::GRID)?;
    Ok(())
}
