//! Live views: the view a client follows, replaced as its publisher issues new epochs
//! (`conformance/LIVE-VIEW.md`).
//!
//! A [`LiveView`] holds the current [`View`] and, while keys move, the previous one. It accepts
//! only what a publisher with one authority can have issued: a higher epoch, or the same epoch
//! with the same fingerprint (a confirmation). A lower epoch is [`Error::StaleView`], the same
//! epoch with another membership is [`Error::ViewConflict`] (two publishers disagree: neither is
//! picked), another seed is [`Error::SeedMismatch`]. Readers load one snapshot per lookup without
//! waiting for a writer, so a lookup never sees half of an update.
//!
//! ```
//! use hrwhash::{LiveView, Placement, View};
//!
//! let live = LiveView::new(View::new(Placement::new(["a", "b", "c"])?, 1)?);
//! let moved = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
//! let counter = moved.clone();
//! live.on_change(move |t| {
//!     // Warm or copy exactly the keys that move, e.g. by streaming `t.plan(keys)`.
//!     counter.fetch_add(t.new_placement().epoch() as usize, std::sync::atomic::Ordering::SeqCst);
//! });
//!
//! let next = View::new(Placement::new(["a", "b", "c", "d"])?, 2)?;
//! assert!(live.update(next.clone())?); // applied
//! assert!(!live.update(next)?); // unchanged: a confirmation
//! assert_eq!(moved.load(std::sync::atomic::Ordering::SeqCst), 2);
//!
//! // During the move: write to the new owner, read from the old one on a miss.
//! let route = live.route("user:42");
//! assert_eq!(route.write, live.owner("user:42"));
//! assert_eq!(route.moved, route.read != route.write);
//! live.finish_move();
//! assert!(!live.route("user:42").moved);
//!
//! // An older epoch is refused and changes nothing but the last error.
//! let old = View::new(Placement::new(["a"])?, 1)?;
//! assert_eq!(
//!     live.update(old),
//!     Err(hrwhash::Error::StaleView { epoch: 1, current: 2 })
//! );
//! assert_eq!(live.epoch(), 2);
//! assert_eq!(live.last_error().unwrap().kind().name(), "StaleView");
//! # Ok::<(), hrwhash::Error>(())
//! ```

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;

use crate::view::Fingerprint;
use crate::{Error, Lookup, NodeRef, Transition, View};

type Callback = Box<dyn Fn(&Transition<View, View>) + Send + Sync>;

/// Where one key is, as a live view routes it: read from `read`, write to `write`. With no move
/// in progress both are the current owner.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LiveRoute {
    /// Id of the key's owner in the previous view (the current view's owner when no move is in
    /// progress): where the key's data still is.
    pub read: Vec<u8>,
    /// Id of the key's owner in the current view: where to write.
    pub write: Vec<u8>,
    /// Whether the two ids differ.
    pub moved: bool,
}

/// One immutable state of a live view. Readers hold it whole, so they never mix two updates.
struct State {
    current: View,
    /// The view the current one replaced, while a move is in progress.
    previous: Option<View>,
    transition: Option<Transition<View, View>>,
    /// When the move ends by itself (the move deadline), if it does.
    move_until: Option<Instant>,
}

impl State {
    fn moving_at(&self, now: impl FnOnce() -> Instant) -> bool {
        self.previous.is_some() && self.move_until.is_none_or(|until| now() < until)
    }
}

struct Status {
    confirmed: Instant,
    last_error: Option<Error>,
}

/// The view a client follows: a [`View`] replaced by newer ones, with the previous one kept while
/// keys move. `Send + Sync`: share it (in an `Arc`) between the threads that look keys up and the
/// one that feeds it views. See the [module documentation](self) and conformance/LIVE-VIEW.md.
///
/// Lookups ([`owner`](LiveView::owner), [`route`](LiveView::route),
/// [`snapshot`](LiveView::snapshot)) never wait for an update: each loads one snapshot of
/// (current, previous, transition) and answers from it alone. Updates and
/// [`finish_move`](LiveView::finish_move) are serialized among themselves.
pub struct LiveView {
    state: ArcSwap<State>,
    seed: Fingerprint<8>,
    move_deadline: Option<Duration>,
    /// Taken by every change of `state`: the checks of an update and its swap are one step.
    writer: Mutex<()>,
    /// Taken before the writer lock is released, so callbacks see transitions in epoch order.
    callbacks: Mutex<Vec<Callback>>,
    status: Mutex<Status>,
}

/// A lock whose holder panicked still guards consistent data here: every critical section
/// either completes its single store or does nothing.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl fmt::Debug for LiveView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.snapshot()
            .debug_views(f, "LiveView")
            .field("move_deadline", &self.move_deadline)
            .finish()
    }
}

impl LiveView {
    /// A live view of `initial`, whose seed it keeps for good. No move is in progress and moves
    /// end only by [`finish_move`](LiveView::finish_move).
    pub fn new(initial: View) -> LiveView {
        LiveView::build(initial, None)
    }

    /// A live view whose moves also end by themselves `deadline` after the update that began
    /// them (a move the application forgets to finish then does not keep old owners forever).
    pub fn with_move_deadline(initial: View, deadline: Duration) -> LiveView {
        LiveView::build(initial, Some(deadline))
    }

    fn build(initial: View, move_deadline: Option<Duration>) -> LiveView {
        LiveView {
            seed: initial.seed_fingerprint(),
            state: ArcSwap::from_pointee(State {
                current: initial,
                previous: None,
                transition: None,
                move_until: None,
            }),
            move_deadline,
            writer: Mutex::new(()),
            callbacks: Mutex::new(Vec::new()),
            status: Mutex::new(Status {
                confirmed: Instant::now(),
                last_error: None,
            }),
        }
    }

    /// Offers `view`, compared with the current view in this order (LIVE-VIEW.md, "Update"):
    /// another seed fingerprint is [`Error::SeedMismatch`]; a lower epoch is
    /// [`Error::StaleView`]; the same epoch and fingerprint is unchanged (`Ok(false)`: a
    /// confirmation, [`since_update`](LiveView::since_update) restarts and
    /// [`last_error`](LiveView::last_error) clears); the same epoch with another fingerprint is
    /// [`Error::ViewConflict`]; a higher epoch is applied (`Ok(true)`, even with the same
    /// fingerprint: a move begins in which no key moves). A refused view changes nothing but
    /// [`last_error`](LiveView::last_error).
    ///
    /// When applied, the change callbacks run on this thread after the swap, with the transition
    /// previous -> current, before `update` returns.
    pub fn update(&self, view: View) -> Result<bool, Error> {
        let writer = lock(&self.writer);
        let state = self.state.load_full();
        let current = &state.current;
        let refusal = if view.seed_fingerprint() != self.seed {
            Some(Error::SeedMismatch)
        } else if view.epoch() < current.epoch() {
            Some(Error::StaleView {
                epoch: view.epoch(),
                current: current.epoch(),
            })
        } else if view.epoch() == current.epoch() && view.fingerprint() != current.fingerprint() {
            Some(Error::ViewConflict {
                epoch: view.epoch(),
            })
        } else {
            None
        };
        if let Some(e) = refusal {
            lock(&self.status).last_error = Some(e.clone());
            return Err(e);
        }
        if view.epoch() == current.epoch() {
            self.confirm();
            return Ok(false);
        }
        let previous = current.clone();
        let transition = Transition::between(previous.clone(), view.clone());
        let now = Instant::now();
        self.state.store(Arc::new(State {
            current: view,
            previous: Some(previous),
            transition: Some(transition.clone()),
            move_until: self.move_deadline.and_then(|d| now.checked_add(d)),
        }));
        self.confirm();
        // Callbacks hold their own lock, taken before the writer's is released, so a second
        // update cannot overtake them; a callback may call `finish_move`.
        let callbacks = lock(&self.callbacks);
        drop(writer);
        for callback in callbacks.iter() {
            let ran =
                std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| callback(&transition)));
            if let Err(payload) = ran {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                lock(&self.status).last_error = Some(Error::Source {
                    kind: "Panic".into(),
                    message: alloc::format!("a change callback panicked: {what}"),
                });
            }
        }
        Ok(true)
    }

    fn confirm(&self) {
        let mut status = lock(&self.status);
        status.confirmed = Instant::now();
        status.last_error = None;
    }

    /// Ends the move in progress, if any: the previous view is dropped and every key is read
    /// where it is written. Returns whether a move was in progress (one whose deadline had
    /// passed counts as over already).
    pub fn finish_move(&self) -> bool {
        let _writer = lock(&self.writer);
        let state = self.state.load_full();
        if state.previous.is_none() {
            return false;
        }
        let was_moving = state.moving_at(Instant::now);
        self.state.store(Arc::new(State {
            current: state.current.clone(),
            previous: None,
            transition: None,
            move_until: None,
        }));
        was_moving
    }

    /// One consistent state, for a batch of lookups or for status: the current view, the
    /// previous one while a move is in progress, and the transition between them.
    pub fn snapshot(&self) -> LiveSnapshot {
        let state = self.state.load_full();
        let moving = state.moving_at(Instant::now);
        LiveSnapshot { state, moving }
    }

    /// Id of the owner of `key` in the current view: where to write it.
    pub fn owner(&self, key: impl AsRef<[u8]>) -> Vec<u8> {
        self.state
            .load()
            .current
            .placement()
            .owner(key)
            .id()
            .to_vec()
    }

    /// Where `key` is read and written: during a move, its owner in the previous view and in the
    /// current one; otherwise the current owner twice.
    pub fn route(&self, key: impl AsRef<[u8]>) -> LiveRoute {
        let state = self.state.load();
        let moving = state.moving_at(Instant::now);
        route_in(&state, moving, key.as_ref())
    }

    /// The current view's epoch.
    pub fn epoch(&self) -> u64 {
        self.state.load().current.epoch()
    }

    /// The current view's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint<16> {
        self.state.load().current.fingerprint()
    }

    /// The current view.
    pub fn current(&self) -> View {
        self.state.load().current.clone()
    }

    /// Whether a move is in progress: an update was applied and neither
    /// [`finish_move`](LiveView::finish_move) nor the move deadline has ended it.
    pub fn moving(&self) -> bool {
        self.state.load().moving_at(Instant::now)
    }

    /// The move deadline this live view was built with, if any.
    pub fn move_deadline(&self) -> Option<Duration> {
        self.move_deadline
    }

    /// Time since the last update that was applied or unchanged (or since construction): how
    /// long ago the source last confirmed the view.
    pub fn since_update(&self) -> Duration {
        lock(&self.status).confirmed.elapsed()
    }

    /// The last refusal or source error, until an update is applied or unchanged. A source's
    /// own failure is [`Error::Source`], which carries the source's name for it (`"Io"`).
    pub fn last_error(&self) -> Option<Error> {
        lock(&self.status).last_error.clone()
    }

    /// Records a source's error (a document that did not parse, a lost connection: an
    /// [`Error::Source`] naming its kind) as [`last_error`](LiveView::last_error), without
    /// changing the view.
    pub fn report_error(&self, error: Error) {
        lock(&self.status).last_error = Some(error);
    }

    /// Registers `callback`, called with the transition previous -> current after every applied
    /// update, on the updating thread, after the swap (lookups already answer from the new view).
    /// Callbacks run in registration order and, across updates, in epoch order.
    ///
    /// A callback must not panic: a panic is caught where the platform unwinds, recorded as a
    /// `"Panic"` [`last_error`](LiveView::last_error), and the other callbacks still run. It
    /// may call [`finish_move`](LiveView::finish_move) and lookups, but not
    /// [`update`](LiveView::update) or `on_change` on the same live view, which would wait for
    /// the callback itself to return.
    pub fn on_change(&self, callback: impl Fn(&Transition<View, View>) + Send + Sync + 'static) {
        lock(&self.callbacks).push(Box::new(callback));
    }
}

fn route_in(state: &State, moving: bool, key: &[u8]) -> LiveRoute {
    match (&state.transition, &state.previous) {
        (Some(t), Some(previous)) if moving => {
            let r = t.route(key);
            LiveRoute {
                read: Lookup::node_id(previous, r.old_index).to_vec(),
                write: Lookup::node_id(&state.current, r.new_index).to_vec(),
                moved: r.moved,
            }
        }
        _ => {
            let owner = state.current.placement().owner(key).id().to_vec();
            LiveRoute {
                read: owner.clone(),
                write: owner,
                moved: false,
            }
        }
    }
}

/// One state of a [`LiveView`], held whole: lookups on it all answer from the same views, however
/// many updates happen meanwhile. Cheap to clone.
#[derive(Clone)]
pub struct LiveSnapshot {
    state: Arc<State>,
    moving: bool,
}

impl fmt::Debug for LiveSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug_views(f, "LiveSnapshot")
            .field("moving", &self.moving)
            .finish()
    }
}

impl LiveSnapshot {
    /// The current view.
    pub fn current(&self) -> &View {
        &self.state.current
    }

    /// The previous view, while a move is in progress.
    pub fn previous(&self) -> Option<&View> {
        self.state.previous.as_ref().filter(|_| self.moving)
    }

    /// The transition previous -> current, while a move is in progress.
    pub fn transition(&self) -> Option<&Transition<View, View>> {
        self.state.transition.as_ref().filter(|_| self.moving)
    }

    /// Whether a move was in progress when the snapshot was taken.
    pub fn moving(&self) -> bool {
        self.moving
    }

    /// The owner of `key` in the current view.
    pub fn owner(&self, key: impl AsRef<[u8]>) -> NodeRef<'_> {
        self.state.current.placement().owner(key)
    }

    /// Where `key` is read and written, as [`LiveView::route`] answers.
    pub fn route(&self, key: impl AsRef<[u8]>) -> LiveRoute {
        route_in(&self.state, self.moving, key.as_ref())
    }

    /// The start of `name`'s debug output with this snapshot's views: a live view prints what
    /// its snapshot holds, so the two print their views alike.
    fn debug_views<'a, 'b>(
        &self,
        f: &'a mut fmt::Formatter<'b>,
        name: &str,
    ) -> fmt::DebugStruct<'a, 'b> {
        let mut d = f.debug_struct(name);
        d.field("current", self.current())
            .field("previous", &self.previous());
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, Node, Placement, Seed};
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
    use std::thread;

    fn view(ids: &[&str], epoch: u64) -> View {
        View::new(Placement::new(ids.iter().copied()).unwrap(), epoch).unwrap()
    }

    fn keys() -> Vec<String> {
        (0..500).map(|i| alloc::format!("key-{i}")).collect()
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<LiveView>();
        check::<LiveSnapshot>();
    }

    #[test]
    fn starts_with_the_initial_view_and_no_move() {
        let v = view(&["a", "b"], 5);
        let live = LiveView::new(v.clone());
        assert_eq!(live.epoch(), 5);
        assert_eq!(live.fingerprint(), v.fingerprint());
        assert!(!live.moving());
        assert!(live.last_error().is_none());
        assert!(!live.finish_move());
        for k in keys() {
            assert_eq!(live.owner(&k), v.placement().owner(&k).id());
            let r = live.route(&k);
            assert_eq!((r.read.as_slice(), r.moved), (r.write.as_slice(), false));
        }
    }

    #[test]
    fn another_seed_is_refused_before_the_epoch_is_looked_at() {
        let live = LiveView::new(view(&["a", "b"], 5));
        let secret = Placement::from_nodes(
            Seed::from_bytes(*b"0123456789abcdef"),
            [Node::new("a"), Node::new("b")],
        )
        .unwrap();
        // Stale and forged at once: the seed check comes first.
        for epoch in [1, 5, 6] {
            let forged = View::new(secret.clone(), epoch).unwrap();
            assert_eq!(live.update(forged), Err(Error::SeedMismatch));
            assert_eq!(live.last_error(), Some(Error::SeedMismatch));
            assert_eq!(live.epoch(), 5);
            assert!(!live.moving());
        }
    }

    #[test]
    fn a_lower_epoch_is_stale_and_changes_nothing_but_the_last_error() {
        let v = view(&["a", "b"], 5);
        let live = LiveView::new(v.clone());
        let err = live.update(view(&["a", "b", "c"], 4)).unwrap_err();
        assert_eq!(
            err,
            Error::StaleView {
                epoch: 4,
                current: 5
            }
        );
        let last = live.last_error().unwrap();
        assert_eq!(last, err);
        assert_eq!(live.fingerprint(), v.fingerprint());
        assert!(!live.moving());
        // The same membership at a lower epoch is stale too.
        assert!(matches!(
            live.update(v.with_epoch(0)),
            Err(Error::StaleView { epoch: 0, .. })
        ));
    }

    #[test]
    fn the_same_epoch_with_another_membership_is_a_conflict() {
        let v = view(&["a", "b"], 5);
        let live = LiveView::new(v.clone());
        assert_eq!(
            live.update(view(&["a", "c"], 5)),
            Err(Error::ViewConflict { epoch: 5 })
        );
        assert_eq!(live.fingerprint(), v.fingerprint());
        assert_eq!(live.last_error().unwrap().kind(), ErrorKind::ViewConflict);
    }

    #[test]
    fn the_same_epoch_and_fingerprint_is_unchanged_and_a_confirmation() {
        let v = view(&["b", "a"], 5);
        let live = LiveView::new(v.clone());
        live.report_error(Error::Source {
            kind: "Io".into(),
            message: "connection refused".into(),
        });
        thread::sleep(Duration::from_millis(200));
        let before = live.since_update();
        assert!(before >= Duration::from_millis(200));
        // Node order is not part of the fingerprint.
        assert_eq!(live.update(view(&["a", "b"], 5)), Ok(false));
        assert!(live.since_update() < before);
        assert!(live.last_error().is_none());
        assert!(!live.moving());
    }

    #[test]
    fn a_higher_epoch_is_applied_and_begins_a_move_until_finished() {
        let old = view(&["a", "b", "c"], 1);
        let new = view(&["a", "b", "c", "d"], 2);
        let live = LiveView::new(old.clone());
        live.report_error(Error::InvalidJson { line: 1, column: 1 });
        assert_eq!(live.update(new.clone()), Ok(true));
        assert!(live.last_error().is_none());
        assert_eq!(live.epoch(), 2);
        assert!(live.moving());
        let mut moved = 0;
        for k in keys() {
            let (o, n) = (
                old.placement().owner(&k).id(),
                new.placement().owner(&k).id(),
            );
            let r = live.route(&k);
            assert_eq!((r.read.as_slice(), r.write.as_slice()), (o, n));
            assert_eq!(r.moved, o != n);
            assert_eq!(live.owner(&k), n);
            moved += r.moved as usize;
        }
        assert!(moved > 0 && moved < 500, "{moved}");
        assert!(live.finish_move());
        assert!(!live.moving());
        assert!(!live.finish_move());
        for k in keys() {
            let r = live.route(&k);
            assert_eq!(r.read, new.placement().owner(&k).id());
            assert!(!r.moved);
        }
    }

    #[test]
    fn a_higher_epoch_with_the_same_fingerprint_moves_nothing() {
        let v = view(&["a", "b", "c"], 1);
        let live = LiveView::new(v.clone());
        assert_eq!(live.update(v.with_epoch(9)), Ok(true));
        assert_eq!(live.epoch(), 9);
        assert!(live.moving());
        assert!(keys().iter().all(|k| !live.route(k).moved));
    }

    #[test]
    fn an_update_during_a_move_replaces_it() {
        let (v1, v2, v3) = (
            view(&["a", "b"], 1),
            view(&["a", "b", "c"], 2),
            view(&["b", "c", "d"], 3),
        );
        let live = LiveView::new(v1);
        live.update(v2.clone()).unwrap();
        live.update(v3.clone()).unwrap();
        let s = live.snapshot();
        assert!(s.moving());
        assert_eq!(s.previous().unwrap().epoch(), 2);
        for k in keys() {
            let r = live.route(&k);
            assert_eq!(r.read, v2.placement().owner(&k).id());
            assert_eq!(r.write, v3.placement().owner(&k).id());
        }
    }

    #[test]
    fn a_move_deadline_ends_the_move_by_itself() {
        let live = LiveView::with_move_deadline(view(&["a", "b"], 1), Duration::from_secs(1));
        assert_eq!(live.move_deadline(), Some(Duration::from_secs(1)));
        live.update(view(&["a", "b", "c"], 2)).unwrap();
        let during = live.snapshot();
        assert!(live.moving());
        thread::sleep(Duration::from_millis(1100));
        assert!(!live.moving());
        assert!(keys().iter().all(|k| !live.route(k).moved));
        // A snapshot keeps the state it was taken in.
        assert!(during.moving() && during.previous().is_some());
        assert!(!live.snapshot().moving() && live.snapshot().previous().is_none());
        // Already over: finish_move reports no move in progress.
        assert!(!live.finish_move());
    }

    #[test]
    fn callbacks_get_each_transition_after_the_swap_and_a_panic_does_not_poison() {
        let v1 = view(&["a", "b"], 1);
        let v2 = view(&["a", "b", "c"], 2);
        let live = Arc::new(LiveView::new(v1.clone()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        {
            let (seen, live2) = (seen.clone(), Arc::downgrade(&live));
            live.on_change(move |t| {
                // Lookups already answer from the new view, and finish_move is allowed.
                let live = live2.upgrade().unwrap();
                assert_eq!(live.epoch(), t.new_placement().epoch());
                lock(&seen).push((t.old_placement().epoch(), t.new_placement().epoch()));
            });
        }
        live.on_change(|_| panic!("boom"));
        live.update(v2.clone()).unwrap();
        assert_eq!(*lock(&seen), [(1, 2)]);
        let Some(Error::Source { kind, message }) = live.last_error() else {
            panic!("a panic is a source error: {:?}", live.last_error());
        };
        assert_eq!(kind, "Panic");
        assert!(message.contains("boom"));
        // Still usable: unchanged clears the error, a later epoch runs the callbacks again.
        assert_eq!(live.update(v2.clone()), Ok(false));
        assert!(live.last_error().is_none());
        assert_eq!(live.update(v1.with_epoch(3)), Ok(true));
        assert_eq!(*lock(&seen), [(1, 2), (2, 3)]);
        // Refusals and confirmations call nothing.
        let _ = live.update(v1.with_epoch(2));
        let _ = live.update(v1.with_epoch(3));
        assert_eq!(lock(&seen).len(), 2);
    }

    #[test]
    fn a_callback_may_finish_the_move() {
        let live = Arc::new(LiveView::new(view(&["a"], 1)));
        let weak = Arc::downgrade(&live);
        live.on_change(move |_| {
            weak.upgrade().unwrap().finish_move();
        });
        live.update(view(&["a", "b"], 2)).unwrap();
        assert!(!live.moving());
    }

    /// Readers on other threads never see a half-swapped state: within one snapshot, the epoch,
    /// the fingerprint, the owners and the routes all belong to the same update.
    #[test]
    fn concurrent_readers_see_whole_states() {
        // Epoch e has the nodes n0..n(e % 4 + 2), so owners tell the epoch apart.
        let views: Vec<View> = (1..=200u64)
            .map(|e| {
                let ids: Vec<String> = (0..(e % 4 + 2)).map(|i| alloc::format!("n{i}")).collect();
                View::new(Placement::new(ids).unwrap(), e).unwrap()
            })
            .collect();
        let views = Arc::new(views);
        let live = Arc::new(LiveView::new(views[0].clone()));
        let done = Arc::new(AtomicBool::new(false));
        let checked = Arc::new(AtomicUsize::new(0));
        let last_seen = Arc::new(AtomicU64::new(0));
        let readers: Vec<_> = (0..3)
            .map(|r| {
                let (live, views, done, checked, last_seen) = (
                    live.clone(),
                    views.clone(),
                    done.clone(),
                    checked.clone(),
                    last_seen.clone(),
                );
                thread::spawn(move || {
                    let mut previous_epoch = 0;
                    let mut i = 0u64;
                    while !done.load(Ordering::Acquire) {
                        let s = live.snapshot();
                        let e = s.current().epoch();
                        assert!(
                            e >= previous_epoch,
                            "epochs went back: {previous_epoch} -> {e}"
                        );
                        previous_epoch = e;
                        let expected = &views[(e - 1) as usize];
                        assert_eq!(s.current().fingerprint(), expected.fingerprint());
                        let key = alloc::format!("k{r}-{i}");
                        assert_eq!(s.owner(&key).id(), expected.placement().owner(&key).id());
                        if let Some(p) = s.previous() {
                            assert_eq!(p.epoch(), e - 1);
                            let route = s.route(&key);
                            assert_eq!(
                                route.read,
                                views[(e - 2) as usize].placement().owner(&key).id()
                            );
                            assert_eq!(route.write, expected.placement().owner(&key).id());
                        }
                        // Single-call lookups take one snapshot each: their answer belongs to
                        // some epoch at or after the snapshot's.
                        let route = live.route(&key);
                        assert!((e as usize - 1..views.len()).any(|j| {
                            let w = views[j].placement().owner(&key).id();
                            route.write == w
                        }));
                        checked.fetch_add(1, Ordering::Relaxed);
                        last_seen.fetch_max(e, Ordering::Relaxed);
                        i += 1;
                    }
                })
            })
            .collect();
        for v in views.iter().skip(1) {
            assert_eq!(live.update(v.clone()), Ok(true));
            if v.epoch() % 3 == 0 {
                live.finish_move();
            }
            thread::yield_now();
        }
        // Let the readers see the last state before they stop.
        while last_seen.load(Ordering::Relaxed) < 200 {
            thread::yield_now();
        }
        done.store(true, Ordering::Release);
        for r in readers {
            r.join().unwrap();
        }
        assert!(checked.load(Ordering::Relaxed) > 0);
        assert_eq!(live.epoch(), 200);
    }
}
