package hrwhash

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// ViewFormat is the format tag of a view document (conformance/VIEW.md).
const ViewFormat = "hrwhash-view-v1"

// RampGrid is the number of positions of a ramp's line from the old weights (0) to the new
// ones (RampGrid).
const RampGrid = 65536

// View is a membership with its epoch and seed identity: the JSON document every client of a
// fleet loads (conformance/VIEW.md). A View is immutable and safe for concurrent use. In the
// hrwhash_cgo build views, transitions and ramps are libhrwhash's; in the pure-Go build they are VIEW.md written
// in Go alone (internal/hrwview). Both pass every case of conformance/views.json.
type View struct {
	b               *viewBackend
	placement       *Placement
	epoch           uint64
	fingerprint     [16]byte
	seedFingerprint [8]byte
}

// ViewFromJSON loads a view document, placing keys with the seed of WithSeed (the default
// seed without it). The errors, in the order VIEW.md section 5 checks them: ErrInvalidJSON
// (Line, Column), ErrInvalidView (Field, Index, Reason), the membership errors
// (ErrEmptyMembership, ErrEmptyNodeID, ErrDuplicateNodeID, ErrAllWeightsZero), and
// ErrSeedMismatch when the view was written for another seed. Node indices of the view's
// Placement are positions in the document's "nodes".
func ViewFromJSON(doc []byte, opts ...Option) (*View, error) {
	cfg := config{seed: DefaultSeed()}
	for _, o := range opts {
		o(&cfg)
	}
	return viewFromJSON(doc, cfg.seed)
}

// ViewFromFile loads the view document in the file at path. A file that cannot be read (or a
// path holding a NUL) gives ErrIO wrapping the *fs.PathError of os.ReadFile; a bad document gives
// the errors of ViewFromJSON, wrapped with the path (errors.Is and errors.As see through it).
func ViewFromFile(path string, opts ...Option) (*View, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Code: CodeIO, Err: err}
	}
	defer f.Close()
	doc, err := readDocument(f, maxDocumentBytes)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, &Error{Code: CodeIO, Err: err}
	}
	v, err := ViewFromJSON(doc, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// maxDocumentBytes is the largest document a file loader reads (VIEW.md, "Limits"), as in the
// core: a longer file is ErrResultTooLarge once the loader has read past it.
const maxDocumentBytes = 1 << 30

// readDocument reads at most limit bytes of r, and no further than the first byte no JSON text
// may hold anywhere (a control character other than tab, line feed and carriage return): the
// parser then rejects the bytes up to it with the position it gives the whole file, so
// /dev/zero fails at line 1, column 1 after one read instead of filling memory.
func readDocument(r io.Reader, limit int) ([]byte, error) {
	var doc []byte
	// A regular file is read into one buffer of its size: growing one by append copies the
	// document again and again, and the copies are garbage the parse then runs beside.
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() <= int64(limit) {
			doc = make([]byte, 0, int(info.Size()))
		}
	}
	chunk := make([]byte, 64*1024)
	for {
		n, err := r.Read(chunk)
		read := chunk[:n]
		for i, b := range read {
			if b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
				return append(doc, read[:i+1]...), nil
			}
		}
		if len(doc)+n > limit {
			return nil, &Error{Code: CodeResultTooLarge}
		}
		doc = append(doc, read...)
		if err == io.EOF {
			return doc, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// NewView makes a view of p at epoch. It fails only on a nil Placement (ErrNullParameter).
func NewView(p *Placement, epoch uint64) (*View, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	return newView(p, epoch)
}

func (v *View) usable() error { return builtIf(v != nil && v.b != nil) }

// WithEpoch returns the same membership at another epoch.
func (v *View) WithEpoch(epoch uint64) (*View, error) {
	if err := v.usable(); err != nil {
		return nil, err
	}
	return v.b.withEpoch(v, epoch)
}

// ToJSON returns the canonical form (VIEW.md section 3): the bytes every writer produces for
// this view, ending in a line feed. A secret seed is never written, only its fingerprint.
func (v *View) ToJSON() ([]byte, error) {
	if err := v.usable(); err != nil {
		return nil, err
	}
	return v.b.json()
}

// Epoch is the view's epoch (0 for a nil or zero View: the other accessors answer their zero
// values too, and the methods that can fail ErrNullParameter).
func (v *View) Epoch() uint64 {
	if v.usable() != nil {
		return 0
	}
	return v.epoch
}

// Placement is the membership, for lookups (nil for a nil View).
func (v *View) Placement() *Placement {
	if v.usable() != nil {
		return nil
	}
	return v.placement
}

// Fingerprint is the 128-bit digest of what decides placements (not the epoch): two views with
// equal fingerprints place every key on the same node id.
func (v *View) Fingerprint() [16]byte {
	if v.usable() != nil {
		return [16]byte{}
	}
	return v.fingerprint
}

// FingerprintHex is Fingerprint as 32 lowercase hex digits.
func (v *View) FingerprintHex() string {
	fp := v.Fingerprint()
	return hex.EncodeToString(fp[:])
}

// SeedFingerprint names the view's seed without revealing it.
func (v *View) SeedFingerprint() [8]byte {
	if v.usable() != nil {
		return [8]byte{}
	}
	return v.seedFingerprint
}

// SeedFingerprintHex is SeedFingerprint as 16 lowercase hex digits, as a view writes it.
func (v *View) SeedFingerprintHex() string {
	fp := v.SeedFingerprint()
	return hex.EncodeToString(fp[:])
}

// HasDefaultSeed says whether the view uses the public default seed.
func (v *View) HasDefaultSeed() bool {
	return v.usable() == nil && v.placement.Seed() == DefaultSeed()
}

// Equal says whether two views have the same fingerprint and epoch.
func (v *View) Equal(o *View) bool {
	return v.usable() == nil && o.usable() == nil && v.epoch == o.epoch && v.fingerprint == o.fingerprint
}

// Route is where one key is during a migration: read from New and, on a miss, from Old; write
// to New.
type Route struct {
	// OldIndex and NewIndex are the owner's index in the old and the new membership.
	OldIndex, NewIndex int
	// Moved says whether the two owners have different ids.
	Moved bool
}

// RouteSet is the replica sets of one key before and after.
type RouteSet struct {
	// Before and After are the key's Replicas in the old placement (old indices) and in the new
	// one (new indices).
	Before, After []int
	// Add are the nodes of After whose id is not in Before (new indices, replica order): the
	// replicas to fill. Drop are the nodes of Before whose id is not in After (old indices):
	// the replicas to drop once the new ones are filled.
	Add, Drop []int
}

// Move is one key that changes owner.
type Move struct {
	Key string
	// Index is the key's position in the batch or stream (0-based).
	Index int
	// From is the old node to copy the key from, To the new node to copy it to.
	From, To int
}

// Flow counts the keys that moved from one old node to one new node.
type Flow struct {
	From, To int
	Count    uint64
}

// NodeChange is one id of either membership with the keys it owns before and after (for a
// DiffTop: the keys it holds a replica of). OldIndex and NewIndex are its indices, -1 where the
// id is absent.
type NodeChange struct {
	OldIndex, NewIndex int
	Before, After      uint64
	// Added and Dropped are the moved keys it receives and gives up (for a DiffTop: how often it
	// is in a key's RouteSet.Add and RouteSet.Drop).
	Added, Dropped uint64
}

// ReplicaMove is one key whose replica set changes, as PlanTop lists it.
type ReplicaMove struct {
	Key string
	// Index is the key's position in the stream (0-based).
	Index int
	// Route is the key's RouteSet: fill Route.Add, then drop Route.Drop.
	Route RouteSet
}

// Transition is the change from an old membership to a new one; nodes are the same node when
// their ids are equal. Immutable and safe for concurrent use.
type Transition struct {
	b             *transitionBackend
	old, new      *Placement
	expectedMoved float64
	optimum       float64
}

// NewTransition is the transition from placement old to placement new (of a view:
// View.Placement).
func NewTransition(old, new *Placement) (*Transition, error) {
	if err := old.usable(); err != nil {
		return nil, err
	}
	if err := new.usable(); err != nil {
		return nil, err
	}
	return newTransition(old, new)
}

func (t *Transition) usable() error { return builtIf(t != nil && t.b != nil) }

// OldPlacement is the membership before, NewPlacement the membership after (nil for a nil
// Transition).
func (t *Transition) OldPlacement() *Placement {
	if t.usable() != nil {
		return nil
	}
	return t.old
}

// NewPlacement is the membership after.
func (t *Transition) NewPlacement() *Placement {
	if t.usable() != nil {
		return nil
	}
	return t.new
}

// ExpectedMoved is the expected fraction of all keys whose owner changes, from the weights
// alone (VIEW.md 6.1); the same float64 in every language.
func (t *Transition) ExpectedMoved() float64 {
	if t.usable() != nil {
		return 0
	}
	return t.expectedMoved
}

// Optimum is the least fraction of keys any scheme must move for the new shares (VIEW.md 6.2).
func (t *Transition) Optimum() float64 {
	if t.usable() != nil {
		return 0
	}
	return t.optimum
}

// Route gives the owners of key before and after.
func (t *Transition) Route(key string) (Route, error) {
	if err := t.usable(); err != nil {
		return Route{}, err
	}
	return t.b.route(key)
}

// RouteTop gives key's replicas before and after (Replicas(key, k) of each side: spread over
// failure domains when a placement names them), and the replicas to add and to drop.
// ErrInvalidCount for a negative k.
func (t *Transition) RouteTop(key string, k int) (RouteSet, error) {
	if err := t.usable(); err != nil {
		return RouteSet{}, err
	}
	if k < 0 {
		return RouteSet{}, &Error{Code: CodeInvalidCount, Count: k}
	}
	return t.b.routeTop(t, key, k)
}

// PlanKeys lists the keys of a batch that change owner, in batch order (one call into the
// library per batch).
func (t *Transition) PlanKeys(keys []string) ([]Move, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, nil
	}
	return t.b.plan(keys)
}

// OldToNew is the index in the new membership of the id of old node i; false when the new
// membership lacks it or i is out of range.
func (t *Transition) OldToNew(i int) (int, bool) {
	if t.usable() != nil || i < 0 || i >= t.old.Len() {
		return 0, false
	}
	return t.b.match(false, i)
}

// NewToOld is the index in the old membership of the id of new node i.
func (t *Transition) NewToOld(i int) (int, bool) {
	if t.usable() != nil || i < 0 || i >= t.new.Len() {
		return 0, false
	}
	return t.b.match(true, i)
}

// Plan streams the moved keys of a stream of keys: next returns each key and true, then false
// at the end. Use it like bufio.Scanner:
//
//	p := t.Plan(next)
//	for p.Next() { m := p.Move(); ... }
//	if err := p.Err(); err != nil { ... }
//
// It reads a key only when Next needs one, so the stream may be endless.
type Plan struct {
	keyScan
	t   *Transition
	cur Move
}

// keyScan is the key stream of a plan: it reads keys until found takes one, the stream ends or
// an error stops it (kept in err).
type keyScan struct {
	next func() (string, bool)
	read int
	err  error
}

func (s *keyScan) scan(found func(key string, index int) (bool, error)) bool {
	if s.err != nil {
		return false
	}
	for {
		key, ok := s.next()
		if !ok {
			return false
		}
		i := s.read
		s.read++
		hit, err := found(key, i)
		if err != nil {
			s.err = err
			return false
		}
		if hit {
			return true
		}
	}
}

// Plan starts a plan over the keys that next yields.
func (t *Transition) Plan(next func() (string, bool)) *Plan {
	p := &Plan{t: t, keyScan: keyScan{next: next}}
	if err := t.usable(); err != nil {
		p.err = err
	} else if next == nil {
		p.err = &Error{Code: CodeNullParameter}
	}
	return p
}

// Next advances to the next moved key; false at the end of the stream or on an error.
func (p *Plan) Next() bool {
	return p.scan(func(key string, i int) (bool, error) {
		r, err := p.t.b.route(key)
		if r.Moved {
			p.cur = Move{Key: key, Index: i, From: r.OldIndex, To: r.NewIndex}
		}
		return r.Moved, err
	})
}

// Move is the moved key Next stopped at.
func (p *Plan) Move() Move { return p.cur }

// Err is the error that stopped the plan, or nil.
func (p *Plan) Err() error { return p.err }

// PlanTop streams the keys of a stream whose set of k replicas changes (RouteSet.Add or Drop not
// empty), in stream order, like Plan:
//
//	p := t.PlanTop(next, 3)
//	for p.Next() { m := p.Move(); ... }
//	if err := p.Err(); err != nil { ... }
//
// ErrInvalidCount (from Err) for a negative k.
type PlanTop struct {
	keyScan
	t   *Transition
	k   int
	cur ReplicaMove
}

// PlanTop starts a plan over the keys that next yields whose set of k replicas changes.
func (t *Transition) PlanTop(next func() (string, bool), k int) *PlanTop {
	p := &PlanTop{t: t, k: k, keyScan: keyScan{next: next}}
	if err := t.usable(); err != nil {
		p.err = err
	} else if next == nil {
		p.err = &Error{Code: CodeNullParameter}
	} else if k < 0 {
		p.err = &Error{Code: CodeInvalidCount, Count: k}
	}
	return p
}

// Next advances to the next key whose replica set changes; false at the end of the stream or on
// an error.
func (p *PlanTop) Next() bool {
	return p.scan(func(key string, i int) (bool, error) {
		r, err := p.t.b.routeTop(p.t, key, p.k)
		changed := err == nil && (len(r.Add) > 0 || len(r.Drop) > 0)
		if changed {
			p.cur = ReplicaMove{Key: key, Index: i, Route: r}
		}
		return changed, err
	})
}

// Move is the key Next stopped at, with its replica sets.
func (p *PlanTop) Move() ReplicaMove { return p.cur }

// Err is the error that stopped the plan, or nil.
func (p *PlanTop) Err() error { return p.err }

// Diff counts owner changes over any number of keys in memory independent of their number.
// A Diff is not safe for concurrent use: give each goroutine its own (Transition.Diff) and
// combine them with Merge.
type Diff struct {
	b *diffBackend
	t *Transition
}

// Diff starts an empty count of this transition.
func (t *Transition) Diff() (*Diff, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return t.b.diff(t)
}

// DiffTop starts an empty count of the replica sets of this transition: each key's Replicas(key,
// k) on either side, compared as sets. Moved counts the keys whose set changed, Flows is empty,
// and Nodes' rows count replicas; k = 1 counts the keys Diff counts. ErrInvalidCount for a negative
// k; a k beyond the nodes compares every selectable node.
func (t *Transition) DiffTop(k int) (*Diff, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: k}
	}
	return t.b.diffTop(t, k)
}

func (d *Diff) usable() error { return builtIf(d != nil && d.b != nil) }

// Add counts one key.
func (d *Diff) Add(key string) error {
	if err := d.usable(); err != nil {
		return err
	}
	return d.b.add(key)
}

// AddMany counts a batch of keys in one call into the library.
func (d *Diff) AddMany(keys []string) error {
	if err := d.usable(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	return d.b.addMany(keys)
}

// Merge adds the counts of other, a Diff of the same Transition value and K (ErrNullParameter,
// adding nothing, for another transition, another K or d itself).
func (d *Diff) Merge(other *Diff) error {
	if err := d.usable(); err != nil {
		return err
	}
	if err := other.usable(); err != nil {
		return err
	}
	return d.b.merge(other.b)
}

// Keys is the number of keys counted.
func (d *Diff) Keys() uint64 {
	if d.usable() != nil {
		return 0
	}
	return d.b.keys()
}

// Moved is the number of counted keys whose owner changed (for K above 1: whose replica set
// changed).
func (d *Diff) Moved() uint64 {
	if d.usable() != nil {
		return 0
	}
	return d.b.moved()
}

// K is the number of replicas compared per key: 1 for Transition.Diff, k for DiffTop.
func (d *Diff) K() int {
	if d.usable() != nil {
		return 0
	}
	return d.b.k()
}

// CopiesAdded is the number of copies to make: Moved for K = 1, the replicas to add over every
// key otherwise.
func (d *Diff) CopiesAdded() uint64 {
	if d.usable() != nil {
		return 0
	}
	return d.b.copies(true)
}

// CopiesDropped is the number of copies to drop: Moved for K = 1, the replicas to drop over every
// key otherwise.
func (d *Diff) CopiesDropped() uint64 {
	if d.usable() != nil {
		return 0
	}
	return d.b.copies(false)
}

// Flows are the moved keys per (old node, new node), ordered by old index then new index;
// their counts add up to Moved. Empty for a DiffTop.
func (d *Diff) Flows() []Flow {
	if d.usable() != nil {
		return nil
	}
	return d.b.flows()
}

// Nodes are the key counts of every old node in old order, then of every node only in the new
// membership in new order.
func (d *Diff) Nodes() []NodeChange {
	if d.usable() != nil {
		return nil
	}
	return d.b.nodes()
}

// ExpectedMoved is the transition's ExpectedMoved, to compare with Moved / Keys.
func (d *Diff) ExpectedMoved() float64 {
	if d.usable() != nil {
		return 0
	}
	return d.t.ExpectedMoved()
}

// Optimum is the transition's Optimum.
func (d *Diff) Optimum() float64 {
	if d.usable() != nil {
		return 0
	}
	return d.t.Optimum()
}

// RampStep is one step of a ramp.
type RampStep struct {
	// Epoch is the step view's epoch: the old view's epoch plus the step's 1-based number.
	Epoch uint64
	// Position is where the weights are on the line, 0 to RampGrid.
	Position uint32
	// Moved is the expected fraction of keys that change owner from the previous step.
	Moved float64
	// RemovesDrained marks the last step, which removes the drained leaving nodes.
	RemovesDrained bool
}

// RampPlan is a change of view split into steps that each move at most MaxMove of the keys
// (VIEW.md section 7). Immutable and safe for concurrent use.
type RampPlan struct {
	b                             *rampBackend
	steps                         []RampStep
	maxMove, total, direct, optim float64
}

// NewRampPlan plans the ramp from old to new. ErrInvalidMoveLimit (MaxMove) for a limit outside
// (0, 1] or too small to advance; ErrSeedMismatch when the views have different seeds;
// ErrInvalidView (Field "epoch") when the step epochs would pass 2^64 - 1; ErrResultTooLarge
// before a step that would take the plan past 2^21 steps times ids (VIEW.md section 7, "Cost").
func NewRampPlan(old, new *View, maxMove float64) (*RampPlan, error) {
	if err := old.usable(); err != nil {
		return nil, err
	}
	if err := new.usable(); err != nil {
		return nil, err
	}
	return newRampPlan(old, new, maxMove)
}

func (r *RampPlan) usable() error { return builtIf(r != nil && r.b != nil) }

// Steps are the steps in order; none when the two views already place every key alike.
func (r *RampPlan) Steps() []RampStep {
	if r.usable() != nil {
		return nil
	}
	return append([]RampStep(nil), r.steps...)
}

// Len is the number of steps.
func (r *RampPlan) Len() int {
	if r.usable() != nil {
		return 0
	}
	return len(r.steps)
}

// View is the view of step i (0-based); the last one has the new view's membership.
// ErrIndexOutOfRange (Index: i, Expected: the number of steps) before the first or past the
// last step.
func (r *RampPlan) View(i int) (*View, error) {
	if err := r.usable(); err != nil {
		return nil, err
	}
	if i < 0 || i >= len(r.steps) {
		return nil, &Error{Code: CodeIndexOutOfRange, Index: i, Expected: len(r.steps)}
	}
	return r.b.view(i)
}

// MaxMove is the per-step limit.
func (r *RampPlan) MaxMove() float64 { return r.figure(r.maxMove) }

// TotalMoved is the sum of the steps' expected movements (a key that moves twice counts twice).
func (r *RampPlan) TotalMoved() float64 { return r.figure(r.total) }

// DirectMoved is the expected movement of switching directly.
func (r *RampPlan) DirectMoved() float64 { return r.figure(r.direct) }

// Optimum is the least movement any scheme needs for the new shares.
func (r *RampPlan) Optimum() float64 { return r.figure(r.optim) }

func (r *RampPlan) figure(f float64) float64 {
	if r.usable() != nil {
		return 0
	}
	return f
}

// fromView is the error of a document or ramp that internal/hrwview rejects.
func fromView(err error) error {
	e, ok := err.(*hrwview.Error)
	if !ok {
		return &Error{Code: CodeUnknown}
	}
	out := &Error{Code: Code(e.Code), Line: e.Line, Column: e.Column}
	switch out.Code {
	case CodeInvalidView:
		out.Field, out.Index, out.Reason = e.Field, e.Index, ViewFault(e.Reason)
	case CodeInvalidMoveLimit:
		out.MaxMove = e.Value
	}
	return out
}

// weighted is the membership of p with its fixed-point weights.
func weighted(p *Placement) []hrwview.Weighted {
	out := make([]hrwview.Weighted, len(p.nodes))
	for i, n := range p.nodes {
		out[i] = weightedNode(n)
	}
	return out
}

// weightedNode is n with its fixed-point weight (valid: n belongs to a built placement).
func weightedNode(n node) hrwview.Weighted {
	w, _ := hrw.FixedWeight(n.weight)
	return hrwview.Weighted{
		Node:  hrwview.Node{ID: n.id, Weight: n.weight, Domain: n.domain, HasDomain: n.hasDomain},
		Fixed: w,
	}
}
