// Package hrw is hrw-v1 (conformance/SPEC.md) in Go alone: the implementation behind the
// hrwhash package when cgo is off, and the independent side of the cgo build's differential
// tests.
package hrw

import (
	"math"
	"math/bits"
	"sort"
)

// Codes of the errors; the numbers are the C ABI's statuses.
const (
	CodeEmptyMembership = 2
	CodeEmptyNodeID     = 3
	CodeDuplicateNodeID = 4
	CodeInvalidWeight   = 5
	CodeAllWeightsZero  = 6
)

// Error is a failed build, with the details SPEC.md section 7 names.
type Error struct {
	Code       uint32
	Index      int
	FirstIndex int
	Value      float64
}

func (e *Error) Error() string { return "hrw: build failed" }

// FixedWeight is round_half_even(w * 2^32) (SPEC.md section 5.1), or false for an invalid w.
func FixedWeight(w float64) (uint64, bool) {
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
		return 0, false
	}
	x := w * (1 << 32) // exact: a power of two
	if x >= 1<<64 {
		return 0, false
	}
	t := uint64(x)
	frac := x - float64(t) // exact: x and t share their leading bits
	if frac > 0.5 || (frac == 0.5 && t&1 == 1) {
		t++
	}
	if t == 0 && w > 0 {
		return 0, false
	}
	return t, true
}

// Draw is -log2((s + 1) / 2^64) with 56 fractional bits (SPEC.md section 5.2).
func Draw(s uint64) uint64 {
	if s == math.MaxUint64 {
		return 0
	}
	v := s + 1
	shift := uint(bits.LeadingZeros64(v))
	m := v << shift
	j := (m >> 55) & 0xFF
	d := (m >> 23) & 0xFFFFFFFF
	t0, t1, bump := log2Table[j], log2Table[j+1], log2Bump[j]
	// P = t0 * 2^64 + (t1 - t0) * d * 2^32 + bump * d * (2^32 - d), in 128 bits; f = P >> 64.
	h, l := bits.Mul64(t1-t0, d)
	h, l = h<<32|l>>32, l<<32
	bh, bl := bits.Mul64(bump, d*(1<<32-d))
	lo, c := bits.Add64(l, bl, 0)
	_ = lo
	f := t0 + h + bh + c
	return uint64(shift)<<56 + (1<<56 - f)
}

// Node is one node of a membership; Fixed is its fixed-point weight.
type Node struct {
	ID        string
	Fixed     uint64
	Domain    string
	HasDomain bool
}

type group struct {
	weight     uint64
	start, end int
}

// Placement is a built membership. Selectable nodes are kept as lanes sorted by weight
// (heaviest first) and then by id, so that within a group of equal weights the first lane of
// the highest score is also the winner of SPEC.md's id tie rule.
type Placement struct {
	Seed   [SeedLen]byte
	Nodes  []Node
	hasher KeyHasher
	lanes  []uint64 // node digests
	node   []int    // lane -> node index
	weight []uint64 // lane -> fixed weight
	groups []group
	domain []int32 // lane -> domain number, -1 for none
	byID   []int   // node indices in id order, for Find
}

// checkWeights converts every weight, reporting the first invalid one in node order.
func checkWeights(weights []float64) ([]uint64, error) {
	fixed := make([]uint64, len(weights))
	for i, w := range weights {
		f, ok := FixedWeight(w)
		if !ok {
			return nil, &Error{Code: CodeInvalidWeight, Index: i, Value: w}
		}
		fixed[i] = f
	}
	return fixed, nil
}

// New validates and indexes a membership in SPEC.md section 7's order (the seed is a value, so
// its length is right by construction). weights[i] belongs to nodes[i]; nodes' Fixed is set.
func New(seed [SeedLen]byte, nodes []Node, weights []float64) (*Placement, error) {
	fixed, err := checkWeights(weights)
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, &Error{Code: CodeEmptyMembership}
	}
	for i := range nodes {
		if nodes[i].ID == "" {
			return nil, &Error{Code: CodeEmptyNodeID, Index: i}
		}
	}
	byID := make([]int, len(nodes))
	for i := range byID {
		byID[i] = i
	}
	sort.Slice(byID, func(a, b int) bool {
		x, y := nodes[byID[a]].ID, nodes[byID[b]].ID
		if x != y {
			return x < y
		}
		return byID[a] < byID[b]
	})
	dup := -1
	first := -1
	for r := 1; r < len(byID); r++ {
		a, b := byID[r-1], byID[r]
		// In each run of equal ids the second element is the first repeat in input order.
		if nodes[a].ID == nodes[b].ID && (r < 2 || nodes[byID[r-2]].ID != nodes[a].ID) {
			if dup < 0 || b < dup {
				dup, first = b, a
			}
		}
	}
	if dup >= 0 {
		return nil, &Error{Code: CodeDuplicateNodeID, Index: dup, FirstIndex: first}
	}
	p := &Placement{Seed: seed, Nodes: make([]Node, len(nodes)), hasher: NewKeyHasher(seed), byID: byID}
	copy(p.Nodes, nodes)
	for i := range p.Nodes {
		p.Nodes[i].Fixed = fixed[i]
	}
	for _, i := range byID {
		if fixed[i] != 0 {
			p.node = append(p.node, i)
		}
	}
	if len(p.node) == 0 {
		return nil, &Error{Code: CodeAllWeightsZero}
	}
	sort.SliceStable(p.node, func(a, b int) bool { return fixed[p.node[a]] > fixed[p.node[b]] })
	p.lanes = make([]uint64, len(p.node))
	p.weight = make([]uint64, len(p.node))
	p.domain = make([]int32, len(p.node))
	domains := map[string]int32{}
	for lane, i := range p.node {
		n := &p.Nodes[i]
		p.lanes[lane] = NodeDigest(seed, n.ID)
		p.weight[lane] = n.Fixed
		p.domain[lane] = -1
		if n.HasDomain {
			d, ok := domains[n.Domain]
			if !ok {
				d = int32(len(domains))
				domains[n.Domain] = d
			}
			p.domain[lane] = d
		}
		if g := len(p.groups) - 1; g >= 0 && p.groups[g].weight == n.Fixed {
			p.groups[g].end = lane + 1
		} else {
			p.groups = append(p.groups, group{weight: n.Fixed, start: lane, end: lane + 1})
		}
	}
	return p, nil
}

// Selectable is the number of nodes of weight above 0.
func (p *Placement) Selectable() int { return len(p.lanes) }

// KeyDigest is the key digest under the placement's seed.
func (p *Placement) KeyDigest(key string) uint64 { return p.hasher.Digest(key) }

// argmax returns the first lane of the highest score among lanes (ties keep the earlier lane).
// Four running maxima, one per lane modulo 4, keep four independent chains in flight; the merge
// keeps the earliest lane among equal scores.
func argmax(kd uint64, lanes []uint64) (uint64, int) {
	best, at := Score(kd, lanes[0]), 0
	i := 1
	if len(lanes) >= 8 {
		b0, b1, b2, b3 := best, Score(kd, lanes[1]), Score(kd, lanes[2]), Score(kd, lanes[3])
		a0, a1, a2, a3 := 0, 1, 2, 3
		for i = 4; i+4 <= len(lanes); i += 4 {
			l := lanes[i : i+4 : i+4]
			x0, x1, x2, x3 := kd^l[0], kd^l[1], kd^l[2], kd^l[3]
			s0, s1, s2, s3 := (x0^x0>>32)*Mix, (x1^x1>>32)*Mix, (x2^x2>>32)*Mix, (x3^x3>>32)*Mix
			if s0 > b0 {
				b0, a0 = s0, i
			}
			if s1 > b1 {
				b1, a1 = s1, i+1
			}
			if s2 > b2 {
				b2, a2 = s2, i+2
			}
			if s3 > b3 {
				b3, a3 = s3, i+3
			}
		}
		best, at = b0, a0
		if b1 > best || (b1 == best && a1 < at) {
			best, at = b1, a1
		}
		if b2 > best || (b2 == best && a2 < at) {
			best, at = b2, a2
		}
		if b3 > best || (b3 == best && a3 < at) {
			best, at = b3, a3
		}
	}
	for ; i < len(lanes); i++ {
		x := kd ^ lanes[i]
		if s := (x ^ x>>32) * Mix; s > best {
			best, at = s, i
		}
	}
	return best, at
}

type cand struct {
	score, draw, weight uint64
	lane                int
}

// before is SPEC.md section 5.3's order: smaller draw/weight first, then the higher score, then
// the smaller id.
func (p *Placement) before(a, b *cand) bool {
	if a.weight != b.weight {
		lh, ll := bits.Mul64(a.draw, b.weight)
		rh, rl := bits.Mul64(b.draw, a.weight)
		if lh != rh {
			return lh < rh
		}
		if ll != rl {
			return ll < rl
		}
	}
	if a.score != b.score {
		return a.score > b.score
	}
	return p.Nodes[p.node[a.lane]].ID < p.Nodes[p.node[b.lane]].ID
}

func (p *Placement) cand(kd uint64, lane int) cand {
	s := Score(kd, p.lanes[lane])
	c := cand{score: s, weight: p.weight[lane], lane: lane}
	if len(p.groups) > 1 {
		c.draw = Draw(s)
	}
	return c
}

// Owner is the node index of the owner of key.
func (p *Placement) Owner(key string) int {
	kd := p.hasher.Digest(key)
	if len(p.groups) == 1 {
		_, lane := argmax(kd, p.lanes)
		return p.node[lane]
	}
	return p.node[p.ownerLane(kd)]
}

func (p *Placement) ownerLane(kd uint64) int {
	if len(p.groups) == 1 {
		_, lane := argmax(kd, p.lanes)
		return lane
	}
	var best cand
	for gi, g := range p.groups {
		s, pos := argmax(kd, p.lanes[g.start:g.end])
		c := cand{score: s, draw: Draw(s), weight: g.weight, lane: g.start + pos}
		if gi == 0 || p.before(&c, &best) {
			best = c
		}
	}
	return best.lane
}

// RankInto writes the first len(out) nodes of the ranking of key (at most Selectable) and
// returns how many it wrote.
func (p *Placement) RankInto(key string, out []int) int {
	kd := p.hasher.Digest(key)
	want := len(out)
	if want > len(p.lanes) {
		want = len(p.lanes)
	}
	switch {
	case want == 0:
		return 0
	case want == 1:
		out[0] = p.node[p.ownerLane(kd)]
		return 1
	case want <= 8 && want*4 < len(p.lanes):
		// Keep the best want candidates by insertion: cheap for the small k of replica sets.
		top := make([]cand, 0, want+1)
		for lane := range p.lanes {
			c := p.cand(kd, lane)
			if len(top) == want && !p.before(&c, &top[want-1]) {
				continue
			}
			i := len(top)
			if i == want {
				i--
			} else {
				top = append(top, c)
			}
			for i > 0 && p.before(&c, &top[i-1]) {
				top[i] = top[i-1]
				i--
			}
			top[i] = c
		}
		for i, c := range top {
			out[i] = p.node[c.lane]
		}
		return want
	}
	order := p.ranking(kd)
	for i := 0; i < want; i++ {
		out[i] = p.node[order[i].lane]
	}
	return want
}

// ranking is every selectable lane in ranking order.
func (p *Placement) ranking(kd uint64) []cand {
	cs := make([]cand, len(p.lanes))
	for lane := range p.lanes {
		cs[lane] = p.cand(kd, lane)
	}
	sort.Slice(cs, func(a, b int) bool { return p.before(&cs[a], &cs[b]) })
	return cs
}

// ReplicasInto is SPEC.md section 6: up to len(out) nodes spread over failure domains.
func (p *Placement) ReplicasInto(key string, out []int) int {
	kd := p.hasher.Digest(key)
	want := len(out)
	if want > len(p.lanes) {
		want = len(p.lanes)
	}
	if want == 0 {
		return 0
	}
	order := p.ranking(kd)
	taken := make([]bool, len(order))
	used := map[int32]bool{}
	n := 0
	for pos, c := range order {
		if n == want {
			break
		}
		d := p.domain[c.lane]
		if d >= 0 && used[d] {
			continue
		}
		if d >= 0 {
			used[d] = true
		}
		out[n] = p.node[c.lane]
		taken[pos] = true
		n++
	}
	for pos, c := range order {
		if n == want {
			break
		}
		if !taken[pos] {
			out[n] = p.node[c.lane]
			n++
		}
	}
	return n
}

// Score is the score of key for node index i.
func (p *Placement) Score(key string, i int) uint64 {
	return Score(p.hasher.Digest(key), NodeDigest(p.Seed, p.Nodes[i].ID))
}

// Find returns the index of the node with this id.
func (p *Placement) Find(id string) (int, bool) {
	at := sort.Search(len(p.byID), func(i int) bool { return p.Nodes[p.byID[i]].ID >= id })
	if at < len(p.byID) && p.Nodes[p.byID[at]].ID == id {
		return p.byID[at], true
	}
	return 0, false
}
