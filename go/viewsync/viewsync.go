// Package viewsync keeps the processes of a fleet on one hrwhash view: it publishes views (to
// etcd with a compare-and-swap, or to a file) and follows them into an hrwhash.LiveView (from
// etcd, a file or an HTTP URL), following conformance/LIVE-VIEW.md.
//
// Every follower does the same: one full read before Follow returns the LiveView, then a watch
// or a poll until its context ends. Each document read is parsed as a View (with the live view's
// seed) and offered to LiveView.Update; documents that cannot be parsed and refused updates are
// recorded (LiveView.LastError) and reported (WithEvents), never applied. A lost connection
// keeps the last view and retries with a capped backoff (100 ms doubling to 5 s); after it, and
// after a compacted etcd watch, the follower reads the whole document again and watches from
// that read's revision, so no change is missed.
//
// The package needs only the standard library: etcd is reached through its v3 JSON gateway
// (etcd 3.4 and later serve it on the client URL), not a gRPC client.
package viewsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

// Option configures a follower or ViewFromEndpointSlices; each ignores the options that are
// not about it.
type Option func(*config)

type config struct {
	seed     hrwhash.Seed
	live     []hrwhash.LiveOption
	events   func(Event)
	interval time.Duration
	// For ViewFromEndpointSlices.
	portName    *string
	readyWeight float64
}

func configure(opts []Option) config {
	c := config{seed: hrwhash.DefaultSeed(), readyWeight: 1}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithSeed parses documents with seed (the default seed without it): the seed of a view whose
// document names a secret seed by its fingerprint. For ViewFromEndpointSlices, the view's seed.
func WithSeed(seed hrwhash.Seed) Option { return func(c *config) { c.seed = seed } }

// WithLiveOptions passes options to the LiveView the follower makes (hrwhash.WithMoveDeadline).
func WithLiveOptions(opts ...hrwhash.LiveOption) Option {
	return func(c *config) { c.live = append(c.live, opts...) }
}

// WithEvents calls f with every event of the follower, on the follower's goroutine (the one
// that updates the LiveView), in order. f must not block for long: the follower waits for it.
func WithEvents(f func(Event)) Option { return func(c *config) { c.events = f } }

// WithInterval sets the poll interval of a file or HTTP follower (default 1 s).
func WithInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.interval = d
		}
	}
}

// EventKind says what happened to a follower.
type EventKind int

const (
	// Applied: a document with a higher epoch is the live view now.
	Applied EventKind = iota
	// Unchanged: a document confirmed the live view (same epoch, same fingerprint).
	Unchanged
	// Refused: a document was not applied: it could not be parsed, or Update refused it
	// (hrwhash.ErrStaleView, hrwhash.ErrViewConflict, hrwhash.ErrSeedMismatch).
	Refused
	// SourceError: the source could not be read (a lost connection, an HTTP status, a missing
	// key or file, a compacted watch); the live view is kept.
	SourceError
)

// String is the kind's name in the follower protocol: "applied", "unchanged", "refused",
// "source_error".
func (k EventKind) String() string {
	switch k {
	case Applied:
		return "applied"
	case Unchanged:
		return "unchanged"
	case Refused:
		return "refused"
	case SourceError:
		return "source_error"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one thing a follower did.
type Event struct {
	Kind EventKind
	// Time is when it happened (for Applied: just after the swap).
	Time time.Time
	// View is the document's view, when it could be parsed.
	View *hrwhash.View
	// Epoch is the document's epoch, when it has one that can be read (EpochKnown) even if the
	// document is otherwise refused.
	Epoch      uint64
	EpochKnown bool
	// Err is why a document was refused, or the source's error.
	Err error
}

// ErrCompacted is the SourceError of an etcd watch whose start revision was compacted away; the
// follower reads the key again and watches from there.
var ErrCompacted = errors.New("viewsync: the etcd watch was compacted")

// ErrNotFound is the SourceError of a read that found no document (no etcd key, no file).
var ErrNotFound = errors.New("viewsync: no view document")

// follower is what every source shares: it turns documents into updates and reports them.
type follower struct {
	cfg config
	lv  *hrwhash.LiveView
}

func (f *follower) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if f.cfg.events != nil {
		f.cfg.events(ev)
	}
}

// sourceError records err as the live view's last error and reports it.
func (f *follower) sourceError(err error) {
	if f.lv != nil {
		f.lv.ReportError(err)
	}
	f.emit(Event{Kind: SourceError, Err: err})
}

// first parses the first document and makes the live view of it.
func (f *follower) first(doc []byte) error {
	v, err := hrwhash.ViewFromJSON(doc, hrwhash.WithSeed(f.cfg.seed))
	if err != nil {
		return err
	}
	lv, err := hrwhash.NewLiveView(v, f.cfg.live...)
	if err != nil {
		return err
	}
	f.lv = lv
	f.emit(Event{Kind: Applied, View: v, Epoch: v.Epoch(), EpochKnown: true})
	return nil
}

// offer parses doc with the live view's seed and offers it to Update; it reports whether the
// document is now the live view (applied or unchanged).
func (f *follower) offer(doc []byte) bool {
	v, err := hrwhash.ViewFromJSON(doc, hrwhash.WithSeed(f.lv.Current().Placement().Seed()))
	if err != nil {
		f.lv.ReportError(err)
		epoch, ok := documentEpoch(doc)
		f.emit(Event{Kind: Refused, Err: err, Epoch: epoch, EpochKnown: ok})
		return false
	}
	out, err := f.lv.Update(v)
	ev := Event{View: v, Epoch: v.Epoch(), EpochKnown: true, Err: err}
	switch {
	case err != nil:
		ev.Kind = Refused
	case out == hrwhash.UpdateApplied:
		ev.Kind = Applied
	default:
		ev.Kind = Unchanged
	}
	f.emit(ev)
	return err == nil
}

// documentEpoch reads the epoch of a document that is not a valid view, for the report.
func documentEpoch(doc []byte) (uint64, bool) {
	var d struct {
		Epoch string `json:"epoch"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return 0, false
	}
	e, err := strconv.ParseUint(d.Epoch, 10, 64)
	return e, err == nil
}

// backoff is the wait before each retry: 100 ms doubling to 5 s, back to 100 ms after a success.
type backoff struct{ next time.Duration }

const (
	backoffMin = 100 * time.Millisecond
	backoffMax = 5 * time.Second
)

func (b *backoff) wait() time.Duration {
	if b.next < backoffMin {
		b.next = backoffMin
	}
	d := b.next
	b.next = min(2*b.next, backoffMax)
	return d
}

func (b *backoff) reset() { b.next = 0 }

// nextEpoch is the epoch a publisher gives a view that replaces stored (LIVE-VIEW.md,
// Publishing): one above the stored epoch, or the offered one when it is higher.
func nextEpoch(stored, offered uint64) (uint64, error) {
	if stored == ^uint64(0) {
		return 0, fmt.Errorf("viewsync: the stored epoch is 2^64 - 1 and cannot advance")
	}
	return max(stored+1, offered), nil
}

// firstEpoch is the epoch of the first view published where there was none.
func firstEpoch(offered uint64) uint64 { return max(offered, 1) }

// maxDocumentBytes is the largest view document a follower reads (VIEW.md, "Limits").
const maxDocumentBytes = 1 << 30

// Publisher is where a view is published: Etcd and File.
type Publisher interface {
	// Publish writes the view by the epoch rule and returns the view stored afterwards and
	// whether it changed.
	Publish(ctx context.Context, view *hrwhash.View) (*hrwhash.View, bool, error)
}

// PublishRamp publishes the views of plan's steps in order, waiting at least interval between
// two steps so that the stores behind the fleet absorb each step's movement before the next
// (VIEW.md section 7). It returns the views as stored, one per step published, and stops at the
// first error or when ctx ends.
func PublishRamp(ctx context.Context, to Publisher, plan *hrwhash.RampPlan, interval time.Duration) ([]*hrwhash.View, error) {
	if to == nil || plan == nil || plan.Len() == 0 && plan.MaxMove() == 0 {
		return nil, hrwhash.ErrNullParameter
	}
	var out []*hrwhash.View
	for i := 0; i < plan.Len(); i++ {
		if i > 0 && !sleep(ctx, interval) {
			return out, ctx.Err()
		}
		v, err := plan.View(i)
		if err != nil {
			return out, err
		}
		stored, _, err := to.Publish(ctx, v)
		if err != nil {
			return out, err
		}
		out = append(out, stored)
	}
	return out, nil
}
