package hrwhash

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// Domains is a placement read through the domains-v1 policy (conformance/POLICIES.md, "domains
// (v1)") at one spread level: each node's domain is a path of levels separated by "/", and a
// key's replicas go to distinct domains of that level.
type Domains struct {
	seed       Seed
	selectable int
	units      []domainUnit
	top        []int32
}

// domainUnit is one domain of some level: its children, or at the deepest level its nodes as a
// placement of their own (index maps that placement's indices back to the whole membership's).
type domainUnit struct {
	prefix   string
	digest   uint64
	weight   uint64
	size     int
	children []int32
	nodes    *hrw.Placement
	index    []int
}

// domainDrawn is a unit's draw for one key: units are ordered by draw/weight, then by score
// (higher first), then by prefix, as a weighted placement orders nodes.
type domainDrawn struct {
	draw, score, weight uint64
	unit                int32
}

// domainPrefix frames a domain prefix before it is hashed (POLICIES.md, "domains (v1)").
const domainPrefix = "hrw-v1:domain"

func domainDigest(seed Seed, prefix string) uint64 {
	msg := make([]byte, 0, len(domainPrefix)+8+len(prefix))
	msg = append(msg, domainPrefix...)
	msg = binary.LittleEndian.AppendUint64(msg, uint64(len(prefix)))
	msg = append(msg, prefix...)
	return hrw.SipHash(1, 3, binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]), msg)
}

// NewDomains reads p through the policy, spreading over level (0-based: 0 is the outermost level
// of the paths). A bad path or level is CodeInvalidDomains, with Index the node at fault (-1
// when the level is) and DomainReason the POLICIES.md name of the fault.
func NewDomains(p *Placement, level int) (*Domains, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if level < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: level}
	}
	fault := func(i int, reason string) error {
		return &Error{Code: CodeInvalidDomains, Index: i, DomainReason: reason}
	}
	for i, n := range p.nodes {
		if !n.hasDomain {
			return nil, fault(i, "missing")
		}
	}
	for i, n := range p.nodes {
		if slices.Contains(strings.Split(n.domain, "/"), "") {
			return nil, fault(i, "empty_level")
		}
	}
	depth := strings.Count(p.nodes[0].domain, "/") + 1
	for i, n := range p.nodes {
		if strings.Count(n.domain, "/")+1 != depth {
			return nil, fault(i, "depth_mismatch")
		}
	}
	if level >= depth {
		return nil, fault(-1, "level_out_of_range")
	}
	fixed := make([]uint64, len(p.nodes))
	var total uint64
	for i, n := range p.nodes {
		fixed[i], _ = hrw.FixedWeight(n.weight) // valid: the placement was built
		var carry uint64
		total, carry = bits.Add64(total, fixed[i], 0)
		if carry != 0 {
			return nil, fault(i, "weight_overflow")
		}
	}
	// ends[i][l] is the length of node i's path up to the end of level l.
	ends := make([][]int, len(p.nodes))
	for i, n := range p.nodes {
		for j := 0; j < len(n.domain); j++ {
			if n.domain[j] == '/' {
				ends[i] = append(ends[i], j)
			}
		}
		ends[i] = append(ends[i], len(n.domain))
	}
	var members []int
	for i := range p.nodes {
		if fixed[i] != 0 {
			members = append(members, i)
		}
	}
	d := &Domains{seed: p.seed, selectable: p.selectable}
	top, err := d.buildLevel(p, fixed, ends, level, depth, members)
	if err != nil {
		return nil, err
	}
	d.top = top
	return d, nil
}

// buildLevel groups members by their path prefix up to level and returns the units it added.
func (d *Domains) buildLevel(p *Placement, fixed []uint64, ends [][]int, level, depth int, members []int) ([]int32, error) {
	prefix := func(i int) string { return p.nodes[i].domain[:ends[i][level]] }
	order := slices.Clone(members)
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(prefix(a), prefix(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var out []int32
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && prefix(order[end]) == prefix(order[start]) {
			end++
		}
		group := order[start:end:end] // in node order: sorted by prefix, then index
		start = end
		u := domainUnit{prefix: prefix(group[0]), size: len(group)}
		u.digest = domainDigest(d.seed, u.prefix)
		for _, i := range group {
			u.weight += fixed[i]
		}
		if level+1 == depth {
			nodes := make([]node, len(group))
			for j, i := range group {
				nodes[j] = p.nodes[i]
			}
			sub, err := newGoPlacement(d.seed, nodes)
			if err != nil {
				return nil, err
			}
			u.nodes, u.index = sub, group
		} else {
			children, err := d.buildLevel(p, fixed, ends, level+1, depth, group)
			if err != nil {
				return nil, err
			}
			u.children = children
		}
		d.units = append(d.units, u)
		out = append(out, int32(len(d.units)-1))
	}
	return out, nil
}

func (d *Domains) usable() error { return builtIf(d != nil && d.top != nil) }

// Owner returns the index of the owner of key: the first of its replicas. It cannot fail; a nil
// or zero Domains panics with ErrNullParameter.
func (d *Domains) Owner(key string) int {
	mustUse(d.usable())
	kd := hrw.KeyDigest([hrw.SeedLen]byte(d.seed), key)
	u := &d.units[d.best(kd, d.top)]
	for u.nodes == nil {
		u = &d.units[d.best(kd, u.children)]
	}
	return u.index[u.nodes.OwnerOfDigest(kd)]
}

// Replicas returns the indices of the first k replicas of key, in distinct domains of the spread
// level while there are enough. k runs from 1 to the nodes of weight above zero
// (CodeInvalidReplicaCount otherwise).
func (d *Domains) Replicas(key string, k int) ([]int, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: k}
	}
	if k == 0 || k > d.selectable {
		return nil, &Error{Code: CodeInvalidReplicaCount, Count: k}
	}
	kd := hrw.KeyDigest([hrw.SeedLen]byte(d.seed), key)
	return d.take(kd, d.top, k, make([]int, 0, k)), nil
}

func (d *Domains) drawn(kd uint64, unit int32) domainDrawn {
	u := &d.units[unit]
	s := hrw.Score(kd, u.digest)
	return domainDrawn{draw: hrw.Draw(s), score: s, weight: u.weight, unit: unit}
}

// order compares a.draw * b.weight with b.draw * a.weight in 128 bits.
func (d *Domains) order(a, b *domainDrawn) int {
	lh, ll := bits.Mul64(a.draw, b.weight)
	rh, rl := bits.Mul64(b.draw, a.weight)
	if lh != rh || ll != rl {
		if lh < rh || (lh == rh && ll < rl) {
			return -1
		}
		return 1
	}
	if a.score != b.score {
		return cmp.Compare(b.score, a.score)
	}
	return strings.Compare(d.units[a.unit].prefix, d.units[b.unit].prefix)
}

func (d *Domains) best(kd uint64, siblings []int32) int32 {
	best := d.drawn(kd, siblings[0])
	for _, u := range siblings[1:] {
		x := d.drawn(kd, u)
		if d.order(&x, &best) < 0 {
			best = x
		}
	}
	return best.unit
}

// take appends count replicas from the domains siblings: the first count domains in order, the
// count dealt round-robin among them up to each one's size, each domain's share taken from its
// own children, and the answer read round by round across the domains.
func (d *Domains) take(kd uint64, siblings []int32, count int, out []int) []int {
	ranked := make([]domainDrawn, len(siblings))
	for i, u := range siblings {
		ranked[i] = d.drawn(kd, u)
	}
	slices.SortFunc(ranked, func(a, b domainDrawn) int { return d.order(&a, &b) })
	ranked = ranked[:min(count, len(ranked))]
	share := make([]int, len(ranked))
	for left := count; left > 0; {
		for i, r := range ranked {
			if left > 0 && share[i] < d.units[r.unit].size {
				share[i]++
				left--
			}
		}
	}
	lists := make([][]int, len(ranked))
	rounds := 0
	for i, r := range ranked {
		u := &d.units[r.unit]
		if u.nodes == nil {
			lists[i] = d.take(kd, u.children, share[i], make([]int, 0, share[i]))
		} else {
			local := make([]int, share[i])
			got := u.nodes.RankDigestInto(kd, local)
			for _, l := range local[:got] {
				lists[i] = append(lists[i], u.index[l])
			}
		}
		rounds = max(rounds, share[i])
	}
	for r := 0; r < rounds; r++ {
		for _, list := range lists {
			if r < len(list) {
				out = append(out, list[r])
			}
		}
	}
	return out
}
