// Package hrw is hrw-v1 (conformance/SPEC.md) in Go alone: the implementation behind the
// hrwhash package when cgo is off, and the independent side of the cgo build's differential
// tests.
package hrw

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
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
	// hitStep is MaxUint64 / the group's size: of its uniform scores, about c lie above
	// MaxUint64 - c*hitStep.
	hitStep uint64
}

// Placement is a built membership. Selectable nodes are kept as lanes sorted by weight
// (heaviest first) and then by id, so that within a group of equal weights the first lane of
// the highest score is also the winner of SPEC.md's id tie rule.
type Placement struct {
	Seed   [SeedLen]byte
	Nodes  []Node
	hasher KeyHasher
	// lanes are the node digests folded (fold): a score is then one xor and one multiply.
	lanes  []uint64
	node   []int    // lane -> node index
	weight []uint64 // lane -> fixed weight
	groups []group
	domain []int32 // lane -> domain number, -1 for none
	// nodeDomain is domain by node index; named: how many lanes have a named domain.
	nodeDomain []int32
	named      int
	byID       []int // node indices in id order, for Find
	// distinct: no two lanes share a digest, so no two scores of one key are equal (a score is
	// a bijection of the node digest) and SPEC.md's id tie rule never has to be applied.
	distinct bool
	// direct answers most weighted owner lookups of a few nodes (estimate.go); nil where it
	// does not pay.
	direct *direct
	// topDirect answers most weighted top-2 and top-3 lookups of up to directMax nodes the same
	// way; nil where there are more, or one weight.
	topDirect *direct
	// groupDirect orders the weight groups' top lists by the same estimates, one scale per
	// group; nil with one group or more than directAlways.
	groupDirect *direct
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
	return NewFixed(seed, nodes, fixed)
}

// NewFixed is New with the fixed-point weights given (fixed[i] belongs to nodes[i]), for weights
// that no binary64 weight converts to exactly, such as a policy's solved ones.
func NewFixed(seed [SeedLen]byte, nodes []Node, fixed []uint64) (*Placement, error) {
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
	p.nodeDomain = make([]int32, len(p.Nodes))
	for i := range p.nodeDomain {
		p.nodeDomain[i] = -1
	}
	domains := map[string]int32{}
	for lane, i := range p.node {
		n := &p.Nodes[i]
		p.lanes[lane] = fold(NodeDigest(seed, n.ID))
		p.weight[lane] = n.Fixed
		p.domain[lane] = -1
		if n.HasDomain {
			d, ok := domains[n.Domain]
			if !ok {
				d = int32(len(domains))
				domains[n.Domain] = d
			}
			p.domain[lane] = d
			p.nodeDomain[i] = d
			p.named++
		}
		if g := len(p.groups) - 1; g >= 0 && p.groups[g].weight == n.Fixed {
			p.groups[g].end = lane + 1
		} else {
			p.groups = append(p.groups, group{weight: n.Fixed, start: lane, end: lane + 1})
		}
	}
	for g := range p.groups {
		p.groups[g].hitStep = math.MaxUint64 / uint64(p.groups[g].end-p.groups[g].start)
	}
	p.direct = newDirect(p.weight, len(p.groups))
	// The owner's search, where there is one, has the same scales.
	p.topDirect = p.direct
	if p.topDirect == nil {
		p.topDirect = newTopDirect(p.weight, len(p.groups))
	}
	if len(p.groups) >= 2 && len(p.groups) <= directAlways {
		weights := make([]uint64, len(p.groups))
		for g := range p.groups {
			weights[g] = p.groups[g].weight
		}
		p.groupDirect = directFor(weights)
	}
	sorted := slices.Clone(p.lanes)
	slices.Sort(sorted)
	p.distinct = true
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			p.distinct = false
		}
	}
	return p, nil
}

// Selectable is the number of nodes of weight above 0.
func (p *Placement) Selectable() int { return len(p.lanes) }

// KeyDigest is the key digest under the placement's seed.
func (p *Placement) KeyDigest(key string) uint64 { return p.hasher.Digest(key) }

// fold is x ^ (x >> 32), the first step of a score (SPEC.md section 3). It distributes over xor,
// fold(kd ^ nd) = fold(kd) ^ fold(nd), so node digests are folded once when a placement is built
// and each key digest once per lookup.
func fold(x uint64) uint64 { return x ^ x>>32 }

// scoreF is Score(kd, nd) from fk = fold(kd) and a lane, fold(nd).
func scoreF(fk, lane uint64) uint64 { return (fk ^ lane) * Mix }

// argmax returns the highest score among lanes for the folded key digest fk, and the first lane
// that has it (SPEC.md section 4's id tie rule, as lanes of one weight are in id order): by the
// vector kernels of argmax_amd64.s where the build and the CPU have them and the lanes are
// enough, else in Go.
func argmax(fk uint64, lanes []uint64) (uint64, int) {
	if useKernels && len(lanes) >= kernelLanes {
		return argmaxVector(fk, lanes)
	}
	return argmaxGo(fk, lanes)
}

// argmaxGo is argmax in Go alone. It calls nothing, so it needs no stack frame checks: the few
// lanes of a small placement cost no more than they did before the kernels. Four running
// maxima, one per lane modulo 4, keep four independent chains in flight; the merge keeps the
// earliest lane among equal scores.
func argmaxGo(fk uint64, lanes []uint64) (uint64, int) {
	best, at := scoreF(fk, lanes[0]), 0
	i := 1
	if len(lanes) >= 8 {
		b0, b1, b2, b3 := best, scoreF(fk, lanes[1]), scoreF(fk, lanes[2]), scoreF(fk, lanes[3])
		a0, a1, a2, a3 := 0, 1, 2, 3
		for i = 4; i+4 <= len(lanes); i += 4 {
			l := lanes[i : i+4 : i+4]
			s0, s1, s2, s3 := (fk^l[0])*Mix, (fk^l[1])*Mix, (fk^l[2])*Mix, (fk^l[3])*Mix
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
		if s := (fk ^ lanes[i]) * Mix; s > best {
			best, at = s, i
		}
	}
	return best, at
}

// argmaxFew is argmax for fewer than 8 lanes: a leaf without the frame that argmaxGo's
// four-way loop needs, called from Owner for the small placements where the call is a visible
// part of a lookup.
//
//go:noinline
func argmaxFew(fk uint64, lanes []uint64) (uint64, int) {
	best, at := scoreF(fk, lanes[0]), 0
	for i := 1; i < len(lanes); i++ {
		if s := scoreF(fk, lanes[i]); s > best {
			best, at = s, i
		}
	}
	return best, at
}

type cand struct {
	score, draw, weight uint64
	lane                int
}

// compare is SPEC.md section 5.3's order: smaller draw/weight first, then the higher score,
// then the smaller id (negative when a comes first, 0 only for the same lane).
func (p *Placement) compare(a, b *cand) int {
	if a.weight != b.weight {
		lh, ll := bits.Mul64(a.draw, b.weight)
		rh, rl := bits.Mul64(b.draw, a.weight)
		if lh != rh {
			return cmp.Compare(lh, rh)
		}
		if ll != rl {
			return cmp.Compare(ll, rl)
		}
	}
	if a.score != b.score {
		return cmp.Compare(b.score, a.score)
	}
	return strings.Compare(p.Nodes[p.node[a.lane]].ID, p.Nodes[p.node[b.lane]].ID)
}

// before is compare(a, b) < 0.
func (p *Placement) before(a, b *cand) bool { return p.compare(a, b) < 0 }

func (p *Placement) cand(fk uint64, lane int) cand {
	s := scoreF(fk, p.lanes[lane])
	c := cand{score: s, weight: p.weight[lane], lane: lane}
	if len(p.groups) > 1 {
		c.draw = Draw(s)
	}
	return c
}

// Owner is the node index of the owner of key. It is OwnerOfDigest written out, with argmax's
// choice inline: the path of every lookup makes no call it can avoid.
func (p *Placement) Owner(key string) int {
	fk := fold(p.hasher.Digest(key))
	if len(p.groups) == 1 {
		var lane int
		if len(p.lanes) < 8 {
			_, lane = argmaxFew(fk, p.lanes)
		} else if useKernels && len(p.lanes) >= kernelLanes {
			_, lane = argmaxVector(fk, p.lanes)
		} else {
			_, lane = argmaxGo(fk, p.lanes)
		}
		return p.node[lane]
	}
	return p.node[p.ownerLane(fk)]
}

// OwnerOfDigest is the node index of the owner of the key whose digest is kd.
func (p *Placement) OwnerOfDigest(kd uint64) int {
	fk := fold(kd)
	if len(p.groups) == 1 {
		_, lane := argmax(fk, p.lanes)
		return p.node[lane]
	}
	return p.node[p.ownerLane(fk)]
}

func (p *Placement) ownerLane(fk uint64) int {
	if len(p.groups) == 1 {
		_, lane := argmax(fk, p.lanes)
		return lane
	}
	if p.direct != nil {
		if lane, ok := p.direct.ownerLane(fk, p.lanes); ok {
			return lane
		}
	}
	// Each group's best node, and of those the one first in section 5.3's order. Which group
	// wins is random, so the winner so far is replaced without a branch; the weights of two
	// groups differ, so the draw products decide unless they are equal, and only then are the
	// scores and ids compared.
	g := &p.groups[0]
	bs, bl := groupMax(fk, p.lanes, g.start, g.end)
	bd, bw := Draw(bs), g.weight
	for i := 1; i < len(p.groups); i++ {
		g := &p.groups[i]
		s, l := groupMax(fk, p.lanes, g.start, g.end)
		d := Draw(s)
		// s's group comes first when d * bw < bd * g.weight.
		lh, ll := bits.Mul64(d, bw)
		rh, rl := bits.Mul64(bd, g.weight)
		_, b := bits.Sub64(ll, rl, 0)
		_, b = bits.Sub64(lh, rh, b)
		if lh == rh && ll == rl {
			c, best := cand{score: s, draw: d, weight: g.weight, lane: l}, cand{score: bs, draw: bd, weight: bw, lane: bl}
			b = 0
			if p.before(&c, &best) {
				b = 1
			}
		}
		m := -b
		bs ^= (bs ^ s) & m
		bd ^= (bd ^ d) & m
		bw ^= (bw ^ g.weight) & m
		bl ^= (bl ^ l) & int(m)
	}
	return bl
}

// groupMax is argmax over the lanes start..end, as a score and a lane.
func groupMax(fk uint64, lanes []uint64, start, end int) (uint64, int) {
	if end-start == 1 {
		return scoreF(fk, lanes[start]), start
	}
	s, pos := argmax(fk, lanes[start:end])
	return s, start + pos
}

// TopMax is the largest count that RankInto selects in fixed arrays on the stack; a longer
// answer sorts every selectable node in a pooled scratch buffer.
const TopMax = 8

// RankInto writes the first len(out) nodes of the ranking of key (at most Selectable) and
// returns how many it wrote. It allocates nothing once the scratch pool is warm.
func (p *Placement) RankInto(key string, out []int) int {
	return p.RankDigestInto(p.hasher.Digest(key), out)
}

// RankDigestInto is RankInto for the key whose digest is kd.
func (p *Placement) RankDigestInto(kd uint64, out []int) int {
	fk := fold(kd)
	want := min(len(out), len(p.lanes))
	switch {
	case want == 0:
		return 0
	case want == 1:
		out[0] = p.node[p.ownerLane(fk)]
		return 1
	case want <= 3 && len(p.groups) == 1 && p.distinct && len(p.lanes) >= 3:
		// The common replica counts of an unweighted placement, straight into out.
		var p0, p1, p2 int32
		if len(p.lanes) <= 2*want+2 {
			_, _, _, p0, p1, p2 = best3(fk, p.lanes, allPositions[:len(p.lanes)])
		} else if ps, ok := topKeyed(fk, p.lanes, want); ok {
			p0, p1, p2 = ps[0], ps[1], ps[2]
		} else {
			var hits [hitCap]int32
			ps, ok := p.candidates(fk, p.lanes, want, p.groups[0].hitStep, &hits)
			if !ok || len(ps) < 3 {
				p.topInto(fk, out[:want])
				return want
			}
			_, _, _, p0, p1, p2 = best3(fk, p.lanes, ps)
		}
		out[0], out[1] = p.node[p0], p.node[p1]
		if want == 3 {
			out[2] = p.node[p2]
		}
		return want
	case want <= 3 && p.topDirect != nil:
		var lanes [3]int32
		if !p.topDirect.topLanes(fk, p.lanes, lanes[:want]) {
			p.topInto(fk, out[:want])
			return want
		}
		for i, lane := range lanes[:want] {
			out[i] = p.node[lane]
		}
		return want
	case want <= TopMax:
		p.topInto(fk, out[:want])
		return want
	}
	sp := scratch.Get().(*[]cand)
	order := p.ranking(fk, *sp)
	for i := 0; i < want; i++ {
		out[i] = p.node[order[i].lane]
	}
	*sp = order[:0]
	scratch.Put(sp)
	return want
}

// scratch holds the candidate buffers of long rankings, so that they are not allocated per call.
var scratch = sync.Pool{New: func() any { return new([]cand) }}

// topScores keeps the want (1..TopMax) highest scores of lanes in sc, highest first, with their
// lanes (base + position) in ln, and returns how many it kept: min(want, len(lanes)). Of equal
// scores the earlier lane stays first: within a weight group lanes are in id order, so this is
// SPEC.md's id tie rule.
func (p *Placement) topScores(fk uint64, lanes []uint64, base, want int, hitStep uint64, sc *[TopMax]uint64, ln *[TopMax]int) int {
	var hits [hitCap]int32
	ps, ok := p.candidates(fk, lanes, want, hitStep, &hits)
	if !ok {
		return scanTop(fk, lanes, base, want, sc, ln)
	}
	want = min(want, len(ps))
	if want <= 3 && len(ps) >= 3 {
		s0, s1, s2, p0, p1, p2 := best3(fk, lanes, ps)
		sc[0], sc[1], sc[2] = s0, s1, s2
		ln[0], ln[1], ln[2] = base+int(p0), base+int(p1), base+int(p2)
		return want
	}
	for i, q := range ps {
		s := scoreF(fk, lanes[q])
		j := min(i, want-1)
		if i >= want && s <= sc[j] {
			continue
		}
		for ; j > 0 && sc[j-1] < s; j-- {
			sc[j], ln[j] = sc[j-1], ln[j-1]
		}
		sc[j], ln[j] = s, base+int(q)
	}
	return want
}

// hitMax bounds the positions candidates collects; hitCap leaves room past them for the kernels,
// which store a vector of positions at a time.
const (
	hitMax = 64
	hitCap = hitMax + 16
)

// candidates returns, in increasing order, positions in lanes that hold the top want of them,
// or false where they must be found by scanTop: when two lanes share a digest (then the id tie
// rule applies), and for the few keys whose threshold below lets too few or too many through.
//
// Scores are uniform, so a threshold c*hitStep below the top lets about c lanes through, and
// the answer is among them when at least want get through (all but about 1.4% of keys for
// want = 3 and c = 2*want + 2). One pass without a branch per lane (above) collects their
// positions; past hitMax - 1 of them the caller scans instead. A group of at most c lanes is
// taken whole.
func (p *Placement) candidates(fk uint64, lanes []uint64, want int, hitStep uint64, hits *[hitCap]int32) ([]int32, bool) {
	if !p.distinct {
		return nil, false
	}
	c := uint64(2*want + 2)
	if c >= uint64(len(lanes)) {
		return allPositions[:len(lanes)], true
	}
	// A score is a hit when it is at least MaxUint64 - c*hitStep, that is above below.
	n := above(fk, lanes, math.MaxUint64-c*hitStep-1, hits)
	return hits[:n&(hitMax-1)], n >= want && n < hitMax
}

// above writes the positions of the lanes whose score is above below, in increasing order, to
// buf and returns how many there were, or hitMax or more when there were that many (then buf
// holds nothing of use): by the vector kernels of argmax_amd64.s where the build and the CPU
// have them and the lanes are enough (they return where they stopped), and in Go for the rest,
// which writes the n-th position at n & (hitMax-1).
func above(fk uint64, lanes []uint64, below uint64, buf *[hitCap]int32) int {
	n, i := 0, 0
	if useKernels && len(lanes) >= kernelLanes {
		n, i = aboveVector(fk, lanes, below, buf)
	}
	return aboveGo(fk, lanes, below, buf, n, i)
}

// aboveGoAll is above in Go alone, for the tests.
func aboveGoAll(fk uint64, lanes []uint64, below uint64, buf *[hitCap]int32) int {
	return aboveGo(fk, lanes, below, buf, 0, 0)
}

// aboveGo is above from lane i on, with n hits before it.
func aboveGo(fk uint64, lanes []uint64, below uint64, buf *[hitCap]int32, n, i int) int {
	h := buf[:hitMax]
	for ; i+4 <= len(lanes); i += 4 {
		l := lanes[i : i+4 : i+4]
		_, b := bits.Sub64(below, (fk^l[0])*Mix, 0)
		h[n&(hitMax-1)] = int32(i)
		n += int(b)
		_, b = bits.Sub64(below, (fk^l[1])*Mix, 0)
		h[n&(hitMax-1)] = int32(i + 1)
		n += int(b)
		_, b = bits.Sub64(below, (fk^l[2])*Mix, 0)
		h[n&(hitMax-1)] = int32(i + 2)
		n += int(b)
		_, b = bits.Sub64(below, (fk^l[3])*Mix, 0)
		h[n&(hitMax-1)] = int32(i + 3)
		n += int(b)
	}
	for ; i < len(lanes); i++ {
		h[n&(hitMax-1)] = int32(i)
		_, b := bits.Sub64(below, scoreF(fk, lanes[i]), 0)
		n += int(b)
	}
	return n
}

// allPositions are the positions of a group too small for a threshold: all of them.
var allPositions = [2*TopMax + 2]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}

// topKeyed returns the positions of the want (2 or 3) best lanes, best first, from the four
// highest keys of the vector kernel (topKeys): a key is a score with its bits of low (the
// positionBits of the lanes) replaced by those of ^position, so that keys order lanes as scores
// do and name them. It reports false where the kernel does not take these lanes, or where the
// keys do not settle the order (settle).
func topKeyed(fk uint64, lanes []uint64, want int) ([3]int32, bool) {
	low := positionBits(len(lanes))
	var keys [4]uint64
	if !topKeys(fk, lanes, low, &keys) {
		return [3]int32{}, false
	}
	return settle(&keys, low, want)
}

// settle returns the positions named by the first want of keys (the four highest, highest
// first), or false where two of the first want + 1 are equal outside low: there the position
// bits, not the scores, would have ordered them.
func settle(keys *[4]uint64, low uint64, want int) (ps [3]int32, ok bool) {
	for j := 0; j < want; j++ {
		if keys[j]&^low <= keys[j+1]&^low {
			return ps, false
		}
	}
	for j := 0; j < want; j++ {
		ps[j] = int32(low - keys[j]&low)
	}
	return ps, true
}

// positionBits is the mask of the low bits that hold every position among n (at least 1) lanes.
func positionBits(n int) uint64 {
	return math.MaxUint64 >> bits.LeadingZeros64(uint64(n-1))
}

// best3 returns the three highest scores of the lanes at positions ps (at least three, with
// distinct digests), highest first, and their positions. Which slot a score lands in is
// random, so the slots stay in registers and each score passes them by compare-exchanges
// without a branch.
func best3(fk uint64, lanes []uint64, ps []int32) (s0, s1, s2 uint64, p0, p1, p2 int32) {
	p0, p1, p2 = ps[0], ps[1], ps[2]
	s0, s1, s2 = scoreF(fk, lanes[p0]), scoreF(fk, lanes[p1]), scoreF(fk, lanes[p2])
	if s1 > s0 {
		s0, s1 = s1, s0
		p0, p1 = p1, p0
	}
	if s2 > s1 {
		s1, s2 = s2, s1
		p1, p2 = p2, p1
	}
	if s1 > s0 {
		s0, s1 = s1, s0
		p0, p1 = p1, p0
	}
	for _, q := range ps[3:] {
		s := scoreF(fk, lanes[q])
		if s > s0 {
			s0, s = s, s0
			p0, q = q, p0
		}
		if s > s1 {
			s1, s = s, s1
			p1, q = q, p1
		}
		if s > s2 {
			s2, p2 = s, q
		}
	}
	return
}

// scanTop is topScores by one pass with a running threshold: it applies the id tie rule, for
// placements where two lanes share a digest, and serves the keys that too few lanes pass.
func scanTop(fk uint64, lanes []uint64, base, want int, sc *[TopMax]uint64, ln *[TopMax]int) int {
	c, i := 0, 0
	for ; i < len(lanes) && c < want; i++ {
		s := scoreF(fk, lanes[i])
		j := c
		for ; j > 0 && sc[j-1] < s; j-- {
			sc[j], ln[j] = sc[j-1], ln[j-1]
		}
		sc[j], ln[j] = s, base+i
		c++
	}
	if c < want {
		return c
	}
	last := want - 1
	low := sc[last]
	for ; i < len(lanes); i++ {
		s := scoreF(fk, lanes[i])
		if s <= low {
			continue
		}
		j := last
		for ; j > 0 && sc[j-1] < s; j-- {
			sc[j], ln[j] = sc[j-1], ln[j-1]
		}
		sc[j], ln[j] = s, base+i
		low = sc[last]
	}
	return want
}

// topInto writes the first len(out) (2..TopMax) nodes of the ranking of fk. Within a weight
// group the ranking is by score (section 5.3 with equal weights), so the answer is drawn from
// each group's own top len(out), and only those candidates need a draw: they are merged in
// section 5.3's order, and a group stops at its first candidate that does not enter.
func (p *Placement) topInto(fk uint64, out []int) {
	want := len(out)
	var sc [TopMax]uint64
	var ln [TopMax]int
	if len(p.groups) == 1 {
		p.topScores(fk, p.lanes, 0, want, p.groups[0].hitStep, &sc, &ln)
		for i := range out {
			out[i] = p.node[ln[i]]
		}
		return
	}
	if want <= 3 && p.groupDirect != nil && p.topOfGroups(fk, out) {
		return
	}
	var top [TopMax]cand
	n := 0
	for _, g := range p.groups {
		c := p.topScores(fk, p.lanes[g.start:g.end], g.start, want, g.hitStep, &sc, &ln)
		for i := 0; i < c; i++ {
			x := cand{score: sc[i], draw: Draw(sc[i]), weight: g.weight, lane: ln[i]}
			j := n
			if n < want {
				n++
			} else if !p.before(&x, &top[want-1]) {
				break // the rest of this group ranks after x
			} else {
				j = want - 1
			}
			for ; j > 0 && p.before(&x, &top[j-1]); j-- {
				top[j] = top[j-1]
			}
			top[j] = x
		}
	}
	for i := range out {
		out[i] = p.node[top[i].lane]
	}
}

// topOfGroups is topInto for 2 or 3 nodes of a placement of a few weight groups: the groups' own
// top lists are ordered by their estimates (as topLanes orders lanes) instead of by exact draws,
// and it reports false where two of the first are too close for them. The first len(out) nodes
// are among the lists, and every node outside them ranks after its group's last one there, so
// the lists' own first len(out) + 1 decide.
func (p *Placement) topOfGroups(fk uint64, out []int) bool {
	want := len(out)
	var sc [TopMax]uint64
	var ln [TopMax]int
	var est [directMax]float64
	var lanes [directMax]int
	var t0, t1, t2, t3 uint64
	m := 0
	for gi, g := range p.groups {
		c := p.topScores(fk, p.lanes[g.start:g.end], g.start, want, g.hitStep, &sc, &ln)
		for i := 0; i < c; i++ {
			e := estimate(sc[i], p.groupDirect.scale[gi])
			est[m&(directMax-1)], lanes[m&(directMax-1)] = e, ln[i]
			t0, t1, t2, t3 = withKey(t0, t1, t2, t3, estimateKey(e, m))
			m++
		}
	}
	var first [3]int32
	if !p.groupDirect.first(&est, [4]uint64{t0, t1, t2, t3}, m, first[:want]) {
		return false
	}
	for i, j := range first[:want] {
		out[i] = p.node[lanes[j]]
	}
	return true
}

// ranking is every selectable lane in ranking order, in cs when it is large enough.
func (p *Placement) ranking(fk uint64, cs []cand) []cand {
	if cap(cs) < len(p.lanes) {
		cs = make([]cand, len(p.lanes))
	}
	cs = cs[:len(p.lanes)]
	for lane := range p.lanes {
		cs[lane] = p.cand(fk, lane)
	}
	slices.SortFunc(cs, func(a, b cand) int { return p.compare(&a, &b) })
	return cs
}

// ReplicasInto is SPEC.md section 6: up to len(out) nodes spread over failure domains.
func (p *Placement) ReplicasInto(key string, out []int) int {
	kd := p.hasher.Digest(key)
	want := min(len(out), len(p.lanes))
	if want == 0 {
		return 0
	}
	// When the first want nodes of the ranking are in distinct domains (or none), the walk takes
	// them and stops: they are the answer, from the top-k path.
	if want <= TopMax {
		p.RankDigestInto(kd, out[:want])
		if p.spread(out[:want]) {
			return want
		}
	}
	return p.replicasByRanking(fold(kd), out[:want])
}

// spread reports whether no two of nodes share a named domain.
func (p *Placement) spread(nodes []int) bool {
	if p.named == 0 {
		return true
	}
	for i, a := range nodes {
		d := p.nodeDomain[a]
		if d < 0 {
			continue
		}
		for _, b := range nodes[i+1:] {
			if p.nodeDomain[b] == d {
				return false
			}
		}
	}
	return true
}

// replicasByRanking is section 6's walk over the whole ranking, into all of out.
func (p *Placement) replicasByRanking(fk uint64, out []int) int {
	want := len(out)
	order := p.ranking(fk, nil)
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
