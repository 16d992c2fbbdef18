package hrwhash

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// LiveView holds the view a process follows now and, while keys move, the view before it
// (conformance/LIVE-VIEW.md). Update accepts only a higher epoch; lookups never block and each
// reads one snapshot, so a lookup never sees half of an update. Safe for concurrent use. A
// LiveView not made by NewLiveView (nil, or the zero value) is not usable: Update returns
// ErrNullParameter and lookups panic with it, as Placement.Owner does.
type LiveView struct {
	state atomic.Pointer[liveState]
	// mu orders the writers (Update, FinishMove, OnChange); readers never take it.
	mu sync.Mutex
	// notify keeps the change callbacks in the order of the updates that caused them. An
	// updater takes it before it releases mu, and runs the callbacks without holding mu, so a
	// callback may read the live view and call FinishMove (but not Update).
	notify    sync.Mutex
	callbacks atomic.Pointer[[]func(*Transition)]
	// confirmed is when the last applied or unchanged update happened (nanoseconds on
	// liveClock: monotonic).
	confirmed atomic.Int64
	lastErr   atomic.Pointer[liveError]
	deadline  time.Duration
}

// liveState is one snapshot: every lookup reads exactly one.
type liveState struct {
	current *View
	// previous and transition are set while a move is in progress (until FinishMove or the
	// deadline).
	previous   *View
	transition *Transition
	// deadline ends the move by itself (on liveClock); 0 for none.
	deadline int64
}

type liveError struct{ err error }

// liveClock is the origin of the monotonic times a LiveView stores as integers.
var liveClock = time.Now()

func liveNow() int64 { return int64(time.Since(liveClock)) }

// load is the current state; it panics with ErrNullParameter for a LiveView not made by
// NewLiveView.
func (lv *LiveView) load() *liveState {
	if lv != nil {
		if s := lv.state.Load(); s != nil {
			return s
		}
	}
	panic(&Error{Code: CodeNullParameter})
}

func (lv *LiveView) usable() error { return builtIf(lv != nil && lv.state.Load() != nil) }

func (s *liveState) moving(now int64) bool {
	return s.previous != nil && (s.deadline == 0 || now < s.deadline)
}

// LiveOption configures NewLiveView.
type LiveOption func(*LiveView)

// WithMoveDeadline ends every move d after the update that began it, as FinishMove would; without
// it (or with d <= 0) a move lasts until FinishMove.
func WithMoveDeadline(d time.Duration) LiveOption {
	return func(lv *LiveView) {
		if d > 0 {
			lv.deadline = d
		}
	}
}

// UpdateOutcome is what an accepted LiveView.Update did.
type UpdateOutcome int

const (
	// UpdateUnchanged: the view has the live view's epoch and fingerprint; nothing changed, but
	// it confirms the live view (SinceUpdate restarts).
	UpdateUnchanged UpdateOutcome = iota
	// UpdateApplied: the view has a higher epoch and is now current; a move began.
	UpdateApplied
)

// String is "unchanged" or "applied", the names conformance/live-view.json uses.
func (o UpdateOutcome) String() string {
	switch o {
	case UpdateUnchanged:
		return "unchanged"
	case UpdateApplied:
		return "applied"
	}
	return fmt.Sprintf("UpdateOutcome(%d)", int(o))
}

// LiveRoute is where one key is while a move is in progress: read it from Read (the previous
// view's owner) and write it to Write (the current view's owner). With no move in progress both
// are the current owner.
type LiveRoute struct {
	Read, Write string
	// Moved says whether Read and Write differ.
	Moved bool
}

// NewLiveView follows view, the first one (a source reads it before it makes the live view).
// Its seed is the live view's from then on. ErrNullParameter for a nil View.
func NewLiveView(view *View, opts ...LiveOption) (*LiveView, error) {
	if err := view.usable(); err != nil {
		return nil, err
	}
	lv := &LiveView{}
	for _, o := range opts {
		o(lv)
	}
	lv.state.Store(&liveState{current: view})
	lv.confirmed.Store(liveNow())
	return lv, nil
}

// Update offers a view, compared with the current one in this order: another seed fingerprint is
// ErrSeedMismatch; a lower epoch is ErrStaleView (Epoch: the offered epoch, Current: the live
// one); the same epoch with the same fingerprint is UpdateUnchanged; the same epoch with another
// fingerprint is ErrViewConflict (two publishers disagree: neither is picked); a higher epoch is
// UpdateApplied, even when the fingerprint is the same. An applied view becomes current and
// begins a move from the view that was current (replacing a move in progress); the OnChange
// callbacks then run on this goroutine. A refused view changes nothing but LastError.
func (lv *LiveView) Update(view *View) (UpdateOutcome, error) {
	if err := lv.usable(); err != nil {
		return UpdateUnchanged, err
	}
	if err := view.usable(); err != nil {
		lv.setError(err)
		return UpdateUnchanged, err
	}
	lv.mu.Lock()
	s := lv.state.Load()
	cur := s.current
	var err error
	switch {
	case view.seedFingerprint != cur.seedFingerprint:
		err = &Error{Code: CodeSeedMismatch}
	case view.epoch < cur.epoch:
		err = &Error{Code: CodeStaleView, Epoch: view.epoch, Current: cur.epoch}
	case view.epoch == cur.epoch && view.fingerprint != cur.fingerprint:
		err = &Error{Code: CodeViewConflict, Epoch: view.epoch}
	}
	if err != nil {
		lv.mu.Unlock()
		lv.setError(err)
		return UpdateUnchanged, err
	}
	if view.epoch == cur.epoch {
		lv.mu.Unlock()
		lv.confirm()
		return UpdateUnchanged, nil
	}
	t, err := NewTransition(cur.placement, view.placement)
	if err != nil {
		lv.mu.Unlock()
		lv.setError(err)
		return UpdateUnchanged, err
	}
	now := liveNow()
	next := &liveState{current: view, previous: cur, transition: t}
	if lv.deadline > 0 {
		next.deadline = now + int64(lv.deadline)
	}
	lv.state.Store(next)
	lv.confirm()
	lv.notify.Lock()
	lv.mu.Unlock()
	defer lv.notify.Unlock()
	if cbs := lv.callbacks.Load(); cbs != nil {
		for _, f := range *cbs {
			lv.call(f, t)
		}
	}
	return UpdateApplied, nil
}

// call runs one change callback; a panic is recorded in LastError (wrapping ErrPanic) instead of
// reaching the updater, so a faulty callback cannot stop a source.
func (lv *LiveView) call(f func(*Transition), t *Transition) {
	defer func() {
		if r := recover(); r != nil {
			lv.setError(fmt.Errorf("hrwhash: a LiveView change callback panicked: %v: %w", r, ErrPanic))
		}
	}()
	f(t)
}

func (lv *LiveView) confirm() {
	lv.confirmed.Store(liveNow())
	lv.lastErr.Store(nil)
}

func (lv *LiveView) setError(err error) { lv.lastErr.Store(&liveError{err}) }

// FinishMove ends the move in progress: the previous view is dropped and every key is read where
// it is written. It reports whether a move was in progress (one whose deadline had passed was
// over already).
func (lv *LiveView) FinishMove() bool {
	if lv.usable() != nil {
		return false
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	s := lv.state.Load()
	if s.previous == nil {
		return false
	}
	lv.state.Store(&liveState{current: s.current})
	return s.moving(liveNow())
}

// OnChange registers f, called with the Transition from the previous view to the current one
// after every applied update, on the goroutine that called Update, after the swap (lookups
// already answer with the new view). f may read the live view and call FinishMove; it must not
// call Update. A panic in f is recorded in LastError and the other callbacks still run.
func (lv *LiveView) OnChange(f func(*Transition)) {
	if f == nil || lv.usable() != nil {
		return
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	var cbs []func(*Transition)
	if old := lv.callbacks.Load(); old != nil {
		cbs = append(cbs, *old...)
	}
	cbs = append(cbs, f)
	lv.callbacks.Store(&cbs)
}

// Owner is the id of the current view's owner of key: where to write it.
func (lv *LiveView) Owner(key string) string {
	return lv.load().current.placement.OwnerID(key)
}

// Route is where key is read and written: during a move, Read is its owner in the previous view
// and Write its owner in the current one; otherwise both are the current owner.
func (lv *LiveView) Route(key string) LiveRoute {
	s := lv.load()
	if !s.moving(liveNow()) {
		return route(s.current, nil, key)
	}
	return route(s.current, s.previous, key)
}

func route(current, previous *View, key string) LiveRoute {
	w := current.placement.OwnerID(key)
	if previous == nil {
		return LiveRoute{Read: w, Write: w}
	}
	r := previous.placement.OwnerID(key)
	return LiveRoute{Read: r, Write: w, Moved: r != w}
}

// Snapshot is one state of the live view, held whole: lookups on it all answer from the same
// views however many updates happen meanwhile, for a batch of lookups that must agree.
func (lv *LiveView) Snapshot() LiveSnapshot {
	s := lv.load()
	if !s.moving(liveNow()) {
		return LiveSnapshot{current: s.current}
	}
	return LiveSnapshot{current: s.current, previous: s.previous, transition: s.transition}
}

// Current is the current view.
func (lv *LiveView) Current() *View { return lv.load().current }

// Epoch is the current view's epoch.
func (lv *LiveView) Epoch() uint64 { return lv.load().current.epoch }

// Fingerprint is the current view's fingerprint.
func (lv *LiveView) Fingerprint() [16]byte { return lv.load().current.fingerprint }

// FingerprintHex is Fingerprint as 32 lowercase hex digits.
func (lv *LiveView) FingerprintHex() string { return lv.load().current.FingerprintHex() }

// Moving says whether a move is in progress: an update was applied and neither FinishMove nor
// the move deadline has ended it.
func (lv *LiveView) Moving() bool { return lv.load().moving(liveNow()) }

// MoveDeadline is the move deadline the live view was made with (WithMoveDeadline), 0 for none.
func (lv *LiveView) MoveDeadline() time.Duration {
	lv.load()
	return lv.deadline
}

// SinceUpdate is the time since the last applied or unchanged update (since NewLiveView before
// the first).
func (lv *LiveView) SinceUpdate() time.Duration {
	lv.load()
	return time.Duration(liveNow() - lv.confirmed.Load())
}

// LastError is the last refused update or source error (ReportError), nil when there is none;
// the next applied or unchanged update clears it.
func (lv *LiveView) LastError() error {
	if lv.usable() != nil {
		return &Error{Code: CodeNullParameter}
	}
	if e := lv.lastErr.Load(); e != nil {
		return e.err
	}
	return nil
}

// ReportError records err, a source's error (a lost connection, a document that cannot be read),
// as LastError without changing the view. A nil err is ignored.
func (lv *LiveView) ReportError(err error) {
	if err != nil && lv.usable() == nil {
		lv.setError(err)
	}
}

// LiveSnapshot is one state of a LiveView (LiveView.Snapshot): the current view, and while a
// move is in progress the previous one and the transition between them.
type LiveSnapshot struct {
	current, previous *View
	transition        *Transition
}

// Current is the current view.
func (s LiveSnapshot) Current() *View { return s.current }

// Previous is the previous view while a move is in progress, nil otherwise.
func (s LiveSnapshot) Previous() *View { return s.previous }

// Transition is the transition previous -> current while a move is in progress, nil otherwise.
func (s LiveSnapshot) Transition() *Transition { return s.transition }

// Moving says whether a move was in progress when the snapshot was taken.
func (s LiveSnapshot) Moving() bool { return s.previous != nil }

// Owner is the id of the owner of key in the current view.
func (s LiveSnapshot) Owner(key string) string { return s.current.placement.OwnerID(key) }

// Route is where key is read and written, as LiveView.Route answers, from this snapshot.
func (s LiveSnapshot) Route(key string) LiveRoute { return route(s.current, s.previous, key) }
