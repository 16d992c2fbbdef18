//! Live views (conformance/LIVE-VIEW.md) over the core's `LiveView`: the holder, its checks and
//! its snapshots are the core's; this file turns views, ids, errors and change callbacks into
//! their Python forms. The sources that feed a live view are Python (`hrwhash.live`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::thread::{self, ThreadId};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyTuple};

use crate::args::{check_int_or_float, key_bytes, no_options, type_name, At};
use crate::error::{error, invalid_argument};
use crate::inner_getters;
use crate::view::{view_arg, Transition, View};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the Python side keeps beside the core holder, shared with the change callbacks.
struct Shared {
    /// The Python views of the recent states (at most a few), so that ids come back as the
    /// caller's views name them (str or bytes) rather than as a document would spell them.
    views: Mutex<Vec<Py<View>>>,
    /// The exception object behind the last error Python recorded, and the core's record of
    /// it: `last_error()` returns the object while the core still holds that record.
    reported: Mutex<Option<(hrwhash::Error, Py<PyAny>)>>,
    /// The thread running this live view's change callbacks, if one is: an update or an
    /// `on_change` from there would wait for the callback itself, so it is refused instead.
    callback_thread: Mutex<Option<ThreadId>>,
}

impl Shared {
    /// The Python view of a core view the holder returned.
    fn py_view(&self, py: Python<'_>, view: &hrwhash::View) -> PyResult<Py<View>> {
        let same = |v: &Py<View>| {
            let c = v.get().core();
            c.epoch() == view.epoch() && c.fingerprint() == view.fingerprint()
        };
        if let Some(v) = lock(&self.views).iter().find(|v| same(v)) {
            return Ok(v.clone_ref(py));
        }
        // Built outside the lock: building Python objects may run arbitrary Python code.
        let built = Py::new(py, View::loaded(py, view.clone())?)?;
        let mut views = lock(&self.views);
        if let Some(v) = views.iter().find(|v| same(v)) {
            return Ok(v.clone_ref(py));
        }
        views.push(built.clone_ref(py));
        Ok(built)
    }

    /// Keeps `view` (offered to `update`) for the states to come, unless a view of the same epoch
    /// and fingerprint is kept already; forgets the views no state can name any more.
    fn remember(&self, py: Python<'_>, view: &Bound<'_, View>, live: &hrwhash::LiveView) {
        let snapshot = live.snapshot();
        let held = |c: &hrwhash::View| {
            let is = |v: Option<&hrwhash::View>| {
                v.is_some_and(|v| v.epoch() == c.epoch() && v.fingerprint() == c.fingerprint())
            };
            is(Some(snapshot.current())) || is(snapshot.previous())
        };
        let offered = view.get().core();
        let mut views = lock(&self.views);
        views.retain(|v| held(v.get().core()));
        if !views.iter().any(|v| {
            let c = v.get().core();
            c.epoch() == offered.epoch() && c.fingerprint() == offered.fingerprint()
        }) {
            views.push(view.clone().unbind());
        }
        let _ = py;
    }

    /// Records the Python exception `exc` as the holder's last error.
    fn record(&self, py: Python<'_>, live: &hrwhash::LiveView, exc: &Bound<'_, PyAny>) {
        let record = hrwhash::Error::Source {
            kind: kind_of(exc),
            message: message_of(exc),
        };
        let mut reported = lock(&self.reported);
        live.report_error(record.clone());
        *reported = Some((record, exc.clone().unbind()));
        let _ = py;
    }

    fn in_callback(&self) -> bool {
        *lock(&self.callback_thread) == Some(thread::current().id())
    }
}

/// The error kind (conformance/errors.json) an exception stands for: the class name of an
/// `hrwhash.HrwError` without its `Error` suffix, `Io` for an `OSError`, else the class name.
fn kind_of(exc: &Bound<'_, PyAny>) -> String {
    let py = exc.py();
    let is = |module: &str, class: &str| -> bool {
        py.import(module)
            .and_then(|m| m.getattr(class))
            .and_then(|c| exc.is_instance(&c))
            .unwrap_or(false)
    };
    let name = exc
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".to_owned());
    if is("hrwhash.errors", "HrwError") {
        name.strip_suffix("Error").unwrap_or(&name).to_owned()
    } else if is("builtins", "OSError") {
        "Io".to_owned()
    } else {
        name
    }
}

fn message_of(exc: &Bound<'_, PyAny>) -> String {
    exc.str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "an exception whose str() failed".to_owned())
}

/// A duration argument in seconds: a finite number >= 0.
fn seconds_arg(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Duration> {
    check_int_or_float(obj, |t| format!("{what} is {t}, not a number of seconds"))?;
    let secs: f64 = obj.extract()?;
    Duration::try_from_secs_f64(secs).map_err(|_| {
        invalid_argument(
            py,
            format!("{what} = {secs} is not a finite number of seconds >= 0"),
            None,
        )
    })
}

/// The view a client follows: the current `View`, replaced by newer ones, with the previous one
/// kept while keys move (conformance/LIVE-VIEW.md).
#[pyclass(frozen, module = "hrwhash", name = "LiveView")]
pub struct LiveView {
    inner: Arc<hrwhash::LiveView>,
    shared: Arc<Shared>,
}

impl LiveView {
    fn not_from_callback(&self, py: Python<'_>, what: &str) -> PyResult<()> {
        if self.shared.in_callback() {
            return Err(invalid_argument(
                py,
                format!(
                    "{what} from a change callback of the same live view would wait for the \
                     callback itself; do it after the callback returns"
                ),
                None,
            ));
        }
        Ok(())
    }

    fn id(py: Python<'_>, view: &Py<View>, index: usize) -> Py<PyAny> {
        view.get().placement.get().id(py, index)
    }
}

#[pymethods]
impl LiveView {
    #[new]
    #[pyo3(signature = (view, *, move_deadline=None, **options))]
    fn new(
        py: Python<'_>,
        view: &Bound<'_, PyAny>,
        move_deadline: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<LiveView> {
        no_options(options)?;
        let view = view_arg(view, "the view")?;
        let core = view.get().core().clone();
        let inner = match move_deadline {
            None => hrwhash::LiveView::new(core),
            Some(d) if d.is_none() => hrwhash::LiveView::new(core),
            Some(d) => hrwhash::LiveView::with_move_deadline(
                core,
                seconds_arg(py, d, "the move deadline")?,
            ),
        };
        Ok(LiveView {
            inner: Arc::new(inner),
            shared: Arc::new(Shared {
                views: Mutex::new(vec![view.clone().unbind()]),
                reported: Mutex::new(None),
                callback_thread: Mutex::new(None),
            }),
        })
    }

    /// Offers `view`: ``"applied"`` (a higher epoch: it is current now, a move began and the
    /// change callbacks ran before this returns) or ``"unchanged"`` (the current epoch and
    /// fingerprint: a confirmation). Refused, changing nothing but ``last_error()``: another seed
    /// (SeedMismatchError), a lower epoch (StaleViewError), the current epoch with another
    /// fingerprint (ViewConflictError).
    fn update(&self, py: Python<'_>, view: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        let view = view_arg(view, "the view")?;
        self.not_from_callback(py, "update()")?;
        self.shared.remember(py, view, &self.inner);
        let core = view.get().core().clone();
        let inner = self.inner.clone();
        // Without the GIL: the update waits for another one in progress, whose callbacks need it.
        let outcome = py.detach(move || inner.update(core));
        outcome
            .map(|applied| if applied { "applied" } else { "unchanged" })
            .map_err(|e| error(py, e, None))
    }

    /// Ends the move in progress: every key is read where it is written. Returns whether a move
    /// was in progress.
    fn finish_move(&self, py: Python<'_>) -> bool {
        let inner = self.inner.clone();
        py.detach(move || inner.finish_move())
    }

    /// The owner of `key` in the current view: where to write it.
    fn owner(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let key = key_bytes(key, At::one("the key"))?;
        let snapshot = self.inner.snapshot();
        let index = snapshot.owner(&key).index();
        let view = self.shared.py_view(py, snapshot.current())?;
        Ok(LiveView::id(py, &view, index))
    }

    /// The owner of each key of `keys` in one current view, however many updates happen
    /// meanwhile (a list, as ``Placement.owners``).
    fn owners<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = self.shared.py_view(py, self.inner.snapshot().current())?;
        view.get()
            .placement
            .bind(py)
            .call_method1("owners", (keys,))
    }

    /// Where `key` is read and written: during a move, its owner in the previous view (read) and
    /// in the current one (write); otherwise the current owner twice.
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<LiveRoute> {
        let key = key_bytes(key, At::one("the key"))?;
        let snapshot = self.inner.snapshot();
        let current = self.shared.py_view(py, snapshot.current())?;
        match (snapshot.transition(), snapshot.previous()) {
            (Some(t), Some(previous)) => {
                let r = t.route(&key);
                let previous = self.shared.py_view(py, previous)?;
                Ok(LiveRoute {
                    read: LiveView::id(py, &previous, r.old_index),
                    write: LiveView::id(py, &current, r.new_index),
                    moved: r.moved,
                })
            }
            _ => {
                let owner = LiveView::id(py, &current, snapshot.owner(&key).index());
                Ok(LiveRoute {
                    read: owner.clone_ref(py),
                    write: owner,
                    moved: false,
                })
            }
        }
    }

    /// ``(current, previous, moving)`` of one state: the current view, the previous one while a
    /// move is in progress (else None), and whether one is.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let snapshot = self.inner.snapshot();
        let current = self.shared.py_view(py, snapshot.current())?;
        let previous = match snapshot.previous() {
            Some(p) => Some(self.shared.py_view(py, p)?),
            None => None,
        };
        (current, previous, snapshot.moving()).into_pyobject(py)
    }

    /// The current view.
    fn current(&self, py: Python<'_>) -> PyResult<Py<View>> {
        self.shared.py_view(py, self.inner.snapshot().current())
    }

    /// The move deadline in seconds, or None when only ``finish_move()`` ends a move.
    #[getter]
    fn move_deadline(&self) -> Option<f64> {
        self.inner.move_deadline().map(|d| d.as_secs_f64())
    }

    /// Seconds since the last update that was applied or unchanged (or since construction).
    fn since_update(&self) -> f64 {
        self.inner.since_update().as_secs_f64()
    }

    /// The last refusal, source error or callback exception, as an exception object (refusals:
    /// the hrwhash.errors class; what ``report_error`` was given: that object), until an update
    /// is applied or unchanged; None when there is none.
    fn last_error(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let reported = lock(&self.shared.reported);
        let Some(last) = self.inner.last_error() else {
            return Ok(None);
        };
        if let Some((record, exc)) = reported.as_ref() {
            if *record == last {
                return Ok(Some(exc.clone_ref(py)));
            }
        }
        drop(reported);
        // A source's own failure the core recorded is a SourceError (a RuntimeError) naming it.
        let err = error(py, last, None);
        Ok(Some(err.into_value(py).into_any()))
    }

    /// Records a source's error (an exception: a lost connection, a document that did not parse)
    /// as ``last_error()`` without changing the view.
    fn report_error(&self, py: Python<'_>, error: &Bound<'_, PyAny>) -> PyResult<()> {
        let base = py.get_type::<pyo3::exceptions::PyBaseException>();
        if !error.is_instance(&base)? {
            return Err(invalid_argument(
                py,
                format!("the error is {}, not an exception", type_name(error)),
                None,
            ));
        }
        self.shared.record(py, &self.inner, error);
        Ok(())
    }

    /// Calls ``callback(transition)`` after every applied update, on the updating thread, after
    /// the swap: ``transition`` is the Transition previous -> current (its ``plan(keys)`` lists
    /// the keys that move). An exception it raises is recorded as ``last_error()``; the live view
    /// and the other callbacks go on.
    fn on_change(&self, py: Python<'_>, callback: &Bound<'_, PyAny>) -> PyResult<()> {
        if !callback.is_callable() {
            return Err(invalid_argument(
                py,
                format!("the callback is {}, not callable", type_name(callback)),
                None,
            ));
        }
        self.not_from_callback(py, "on_change()")?;
        let callback = callback.clone().unbind();
        let shared = self.shared.clone();
        // Weak: the core holder owns this closure.
        let live: Weak<hrwhash::LiveView> = Arc::downgrade(&self.inner);
        let run = move |t: &hrwhash::Transition<hrwhash::View, hrwhash::View>| {
            Python::attach(|py| {
                *lock(&shared.callback_thread) = Some(thread::current().id());
                let ran = (|| -> PyResult<()> {
                    let old = shared.py_view(py, t.old_placement())?;
                    let new = shared.py_view(py, t.new_placement())?;
                    let transition = Transition::of_views(py, &old, &new)?;
                    callback.call1(py, (transition,))?;
                    Ok(())
                })();
                *lock(&shared.callback_thread) = None;
                if let (Err(e), Some(live)) = (ran, live.upgrade()) {
                    shared.record(py, &live, e.value(py).as_any());
                }
            })
        };
        let inner = self.inner.clone();
        py.detach(move || inner.on_change(run));
        Ok(())
    }

    fn __repr__(&self) -> String {
        let s = self.inner.snapshot();
        format!(
            "LiveView(epoch={}, fingerprint='{}', moving={})",
            s.current().epoch(),
            s.current().fingerprint().to_hex(),
            if s.moving() { "True" } else { "False" }
        )
    }
}

inner_getters!(LiveView {
    /// The current view's epoch.
    epoch: u64;
    /// The current view's fingerprint: 32 hex digits.
    fingerprint: String => to_hex;
    /// Whether a move is in progress.
    moving: bool;
});

/// Where one key is, as a live view routes it: read from ``read``, write to ``write``.
#[pyclass(frozen, module = "hrwhash", name = "LiveRoute")]
pub struct LiveRoute {
    /// The key's owner in the previous view while a move is in progress (else the current
    /// owner): where its data still is.
    #[pyo3(get)]
    read: Py<PyAny>,
    /// The key's owner in the current view: where to write.
    #[pyo3(get)]
    write: Py<PyAny>,
    /// Whether the two owners differ.
    #[pyo3(get)]
    moved: bool,
}

#[pymethods]
impl LiveRoute {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "LiveRoute(read={}, write={}, moved={})",
            self.read.bind(py).repr()?,
            self.write.bind(py).repr()?,
            if self.moved { "True" } else { "False" }
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.cast::<LiveRoute>() else {
            return Ok(py.NotImplemented());
        };
        let other = other.get();
        let equal = self.moved == other.moved
            && self.read.bind(py).eq(other.read.bind(py))?
            && self.write.bind(py).eq(other.write.bind(py))?;
        Ok(PyBool::new(py, equal).to_owned().into_any().unbind())
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        (
            self.read.clone_ref(py),
            self.write.clone_ref(py),
            self.moved,
        )
            .into_pyobject(py)?
            .hash()
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LiveView>()?;
    m.add_class::<LiveRoute>()?;
    Ok(())
}
