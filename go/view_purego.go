//go:build !cgo || !hrwhash_cgo

package hrwhash

import (
	"sort"

	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// The pure-Go build's views, transitions and ramps: conformance/VIEW.md in Go alone
// (internal/hrwview), over the Go placements.

type viewBackend struct {
	p     *Placement
	epoch uint64
}

func makeView(p *Placement, epoch uint64) *View {
	sfp := hrwview.SeedFingerprint(p.seed)
	return &View{
		b:               &viewBackend{p: p, epoch: epoch},
		placement:       p,
		epoch:           epoch,
		seedFingerprint: sfp,
		fingerprint:     hrwview.Fingerprint(sfp, weighted(p)),
	}
}

func viewFromJSON(doc []byte, seed Seed) (*View, error) {
	d, err := hrwview.Parse(doc)
	if err != nil {
		return nil, fromView(err)
	}
	nodes := make([]node, len(d.Nodes))
	for i, n := range d.Nodes {
		nodes[i] = node{id: n.ID, weight: n.Weight, domain: n.Domain, hasDomain: n.HasDomain}
	}
	p, err := build(seed, nodes)
	if err != nil {
		return nil, err
	}
	matches := seed == DefaultSeed()
	if d.Secret {
		matches = d.SeedFingerprint == hrwview.SeedFingerprint(seed)
	}
	if !matches {
		return nil, &Error{Code: CodeSeedMismatch}
	}
	return makeView(p, d.Epoch), nil
}

// Weights from float64s have at most 53 significant bits, so every Go placement can be a view.
func newView(p *Placement, epoch uint64) (*View, error) { return makeView(p, epoch), nil }

func (b *viewBackend) withEpoch(_ *View, epoch uint64) (*View, error) {
	return makeView(b.p, epoch), nil
}

func (b *viewBackend) json() ([]byte, error) {
	sfp := hrwview.SeedFingerprint(b.p.seed)
	return hrwview.Canonical(b.epoch, b.p.seed != DefaultSeed(), sfp, weighted(b.p)), nil
}

type transitionBackend struct {
	old, new           *Placement
	oldToNew, newToOld []int
}

func newTransition(old, new *Placement) (*Transition, error) {
	b := &transitionBackend{old: old, new: new, oldToNew: make([]int, len(old.nodes)), newToOld: make([]int, len(new.nodes))}
	byID := make(map[string]int, len(new.nodes))
	for j, n := range new.nodes {
		byID[n.id] = j
		b.newToOld[j] = -1
	}
	for i, n := range old.nodes {
		b.oldToNew[i] = -1
		if j, ok := byID[n.id]; ok {
			b.oldToNew[i], b.newToOld[j] = j, i
		}
	}
	wo, wn := weighted(old), weighted(new)
	var pairs []hrwview.Pair
	for i, n := range wo {
		p := hrwview.Pair{ID: n.ID, Old: n.Fixed}
		if j := b.oldToNew[i]; j >= 0 {
			p.New = wn[j].Fixed
		}
		pairs = append(pairs, p)
	}
	for j, n := range wn {
		if b.newToOld[j] < 0 {
			pairs = append(pairs, hrwview.Pair{ID: n.ID, New: n.Fixed})
		}
	}
	sort.Slice(pairs, func(a, c int) bool { return pairs[a].ID < pairs[c].ID })
	return &Transition{
		b: b, old: old, new: new,
		expectedMoved: hrwview.ExpectedMoved(pairs, old.seed == new.seed),
		optimum:       hrwview.Optimum(pairs),
	}, nil
}

func (b *transitionBackend) route(key string) (Route, error) {
	o, n := b.old.Owner(key), b.new.Owner(key)
	return Route{OldIndex: o, NewIndex: n, Moved: b.old.nodes[o].id != b.new.nodes[n].id}, nil
}

func (b *transitionBackend) routeTop(_ *Transition, key string, k int) (RouteSet, error) {
	// Each side's replica rule, as the sets are stored: spread over failure domains.
	before, err := b.old.Replicas(key, k)
	if err != nil {
		return RouteSet{}, err
	}
	after, err := b.new.Replicas(key, k)
	if err != nil {
		return RouteSet{}, err
	}
	s := RouteSet{Before: before, After: after, Add: []int{}, Drop: []int{}}
	inBefore := make(map[string]bool, len(before))
	for _, i := range before {
		inBefore[b.old.nodes[i].id] = true
	}
	inAfter := make(map[string]bool, len(after))
	for _, j := range after {
		inAfter[b.new.nodes[j].id] = true
		if !inBefore[b.new.nodes[j].id] {
			s.Add = append(s.Add, j)
		}
	}
	for _, i := range before {
		if !inAfter[b.old.nodes[i].id] {
			s.Drop = append(s.Drop, i)
		}
	}
	return s, nil
}

func (b *transitionBackend) plan(keys []string) ([]Move, error) {
	out := []Move{}
	for i, k := range keys {
		r, err := b.route(k)
		if err != nil {
			return nil, err
		}
		if r.Moved {
			out = append(out, Move{Key: k, Index: i, From: r.OldIndex, To: r.NewIndex})
		}
	}
	return out, nil
}

func (b *transitionBackend) match(fromNew bool, i int) (int, bool) {
	j := b.oldToNew[i]
	if fromNew {
		j = b.newToOld[i]
	}
	return j, j >= 0
}

type diffBackend struct {
	t *transitionBackend
	// top is the number of replicas compared per key for a DiffTop, -1 for a Diff of owners.
	top           int
	keysN, movedN uint64
	before, after []uint64
	// Per old node the moved keys (replicas) it gives up, per new node those it receives.
	dropped, added []uint64
	flowCounts     map[[2]int]uint64
}

func (b *transitionBackend) newDiff(t *Transition, top int) *Diff {
	return &Diff{t: t, b: &diffBackend{
		t:          b,
		top:        top,
		before:     make([]uint64, len(b.old.nodes)),
		after:      make([]uint64, len(b.new.nodes)),
		dropped:    make([]uint64, len(b.old.nodes)),
		added:      make([]uint64, len(b.new.nodes)),
		flowCounts: map[[2]int]uint64{},
	}}
}

func (b *transitionBackend) diff(t *Transition) (*Diff, error) { return b.newDiff(t, -1), nil }

func (b *transitionBackend) diffTop(t *Transition, k int) (*Diff, error) {
	return b.newDiff(t, k), nil
}

func (b *diffBackend) add(key string) error {
	if b.top >= 0 {
		return b.addTop(key)
	}
	r, err := b.t.route(key)
	if err != nil {
		return err
	}
	b.keysN++
	b.before[r.OldIndex]++
	b.after[r.NewIndex]++
	if r.Moved {
		b.movedN++
		b.dropped[r.OldIndex]++
		b.added[r.NewIndex]++
		b.flowCounts[[2]int{r.OldIndex, r.NewIndex}]++
	}
	return nil
}

func (b *diffBackend) addTop(key string) error {
	s, err := b.t.routeTop(nil, key, b.top)
	if err != nil {
		return err
	}
	b.keysN++
	for _, i := range s.Before {
		b.before[i]++
	}
	for _, j := range s.After {
		b.after[j]++
	}
	for _, i := range s.Drop {
		b.dropped[i]++
	}
	for _, j := range s.Add {
		b.added[j]++
	}
	if len(s.Add) > 0 || len(s.Drop) > 0 {
		b.movedN++
	}
	return nil
}

func (b *diffBackend) addMany(keys []string) error {
	for _, k := range keys {
		if err := b.add(k); err != nil {
			return err
		}
	}
	return nil
}

// merge adds a diff of the same transition value and k only, like libhrwhash.
func (b *diffBackend) merge(other *diffBackend) error {
	if other == b || other.t != b.t || other.top != b.top {
		return &Error{Code: CodeNullParameter}
	}
	b.keysN += other.keysN
	b.movedN += other.movedN
	for _, c := range [][2][]uint64{{b.before, other.before}, {b.after, other.after}, {b.dropped, other.dropped}, {b.added, other.added}} {
		for i, n := range c[1] {
			c[0][i] += n
		}
	}
	for k, c := range other.flowCounts {
		b.flowCounts[k] += c
	}
	return nil
}

func (b *diffBackend) keys() uint64 { return b.keysN }

func (b *diffBackend) moved() uint64 { return b.movedN }

func (b *diffBackend) k() int {
	if b.top < 0 {
		return 1
	}
	return b.top
}

func (b *diffBackend) copies(added bool) uint64 {
	counts := b.dropped
	if added {
		counts = b.added
	}
	var sum uint64
	for _, c := range counts {
		sum += c
	}
	return sum
}

func (b *diffBackend) flows() []Flow {
	out := make([]Flow, 0, len(b.flowCounts))
	for k, c := range b.flowCounts {
		out = append(out, Flow{From: k[0], To: k[1], Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

func (b *diffBackend) nodes() []NodeChange {
	var out []NodeChange
	for i, c := range b.before {
		r := NodeChange{OldIndex: i, NewIndex: b.t.oldToNew[i], Before: c, Dropped: b.dropped[i]}
		if r.NewIndex >= 0 {
			r.After, r.Added = b.after[r.NewIndex], b.added[r.NewIndex]
		}
		out = append(out, r)
	}
	for j, c := range b.after {
		if b.t.newToOld[j] < 0 {
			out = append(out, NodeChange{OldIndex: -1, NewIndex: j, After: c, Added: b.added[j]})
		}
	}
	return out
}

type rampBackend struct {
	r   *hrwview.Ramp
	new *View
}

func newRampPlan(old, new *View, maxMove float64) (*RampPlan, error) {
	if !(maxMove > 0 && maxMove <= 1) {
		return nil, &Error{Code: CodeInvalidMoveLimit, MaxMove: maxMove}
	}
	if old.placement.seed != new.placement.seed {
		return nil, &Error{Code: CodeSeedMismatch}
	}
	r, err := hrwview.Plan(old.epoch, weighted(old.placement), weighted(new.placement), old.fingerprint == new.fingerprint, maxMove)
	if err != nil {
		return nil, fromView(err)
	}
	plan := &RampPlan{b: &rampBackend{r: r, new: new}, maxMove: maxMove, direct: r.Direct, optim: r.Optimum}
	for _, s := range r.Steps {
		plan.steps = append(plan.steps, RampStep{Epoch: s.Epoch, Position: s.Position, Moved: s.Moved, RemovesDrained: s.RemovesDrained})
		// From +0 in step order (VIEW.md 7).
		plan.total += s.Moved
	}
	return plan, nil
}

func (b *rampBackend) view(i int) (*View, error) {
	s := b.r.Steps[i]
	leaving := false
	for _, t := range b.r.Tracks {
		leaving = leaving || t.Leaving
	}
	if i+1 == len(b.r.Steps) && (s.RemovesDrained || !leaving) {
		return b.new.WithEpoch(s.Epoch)
	}
	ws := b.r.StepNodes(i)
	nodes := make([]node, len(ws))
	for j, w := range ws {
		nodes[j] = node{id: w.ID, weight: w.Node.Weight, domain: w.Domain, hasDomain: w.HasDomain}
	}
	p, err := build(b.new.placement.seed, nodes)
	if err != nil {
		return nil, err
	}
	return makeView(p, s.Epoch), nil
}
