// Package profile is conformance/PROFILES.md in Go alone: placements that answer as go-redis v9
// Ring, pymemcache, libmemcached and the npm hashring package do. It is the implementation
// behind hrwhash.ProfilePlacement when cgo is off, and its lookups when cgo is on (the cgo build
// checks its membership with libhrwhash and the tests compare the two).
package profile

import "github.com/hrwhash/hrwhash/go/internal/hrw"

// Codes of the errors; the numbers are the C ABI's statuses.
const (
	CodeEmptyMembership = 2
	CodeEmptyNodeID     = 3
	CodeDuplicateNodeID = 4
	CodeInvalidWeight   = 5
	CodeUnknownProfile  = 28
	CodeNotOffered      = 29
)

// Error is a failed build.
type Error struct {
	Code       uint32
	Index      int
	FirstIndex int
	Value      float64
	// What a profile does not offer (CodeNotOffered).
	What string
}

func (e *Error) Error() string { return "profile: build failed" }

// Names are the profiles in the order of PROFILES.md.
var Names = []string{"go-redis-ring-v9", "pymemcache-rendezvous", "ketama-libmemcached", "hashring-node-3"}

// Node is a member as the caller gives it.
type Node struct {
	ID        string
	Weight    float64
	HasDomain bool
}

// Placement is a built profile placement; lookups return positions in the caller's order.
type Placement struct {
	name     string
	goRedis  *goRedis
	pymemc   *pymemcache
	ring     *continuum
	hashring bool
	// lone is set for a placement of one node, which owns every key.
	lone bool
}

// New checks nodes as the core does (PROFILES.md, API.md section 4's order) and builds.
func New(name string, nodes []Node) (*Placement, error) {
	p := &Placement{name: name, lone: len(nodes) == 1}
	weighted := name == "ketama-libmemcached" || name == "hashring-node-3"
	if name != Names[0] && name != Names[1] && !weighted {
		return nil, &Error{Code: CodeUnknownProfile}
	}
	fixed := make([]uint64, len(nodes))
	for i, n := range nodes {
		f, ok := hrw.FixedWeight(n.Weight)
		if !ok {
			return nil, &Error{Code: CodeInvalidWeight, Index: i, Value: n.Weight}
		}
		fixed[i] = f
	}
	if len(nodes) == 0 {
		return nil, &Error{Code: CodeEmptyMembership}
	}
	for i, n := range nodes {
		if n.ID == "" {
			return nil, &Error{Code: CodeEmptyNodeID, Index: i}
		}
	}
	first := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if j, seen := first[n.ID]; seen {
			return nil, &Error{Code: CodeDuplicateNodeID, Index: i, FirstIndex: j}
		}
		first[n.ID] = i
	}
	for _, n := range nodes {
		if n.HasDomain {
			return nil, notOffered("failure domains")
		}
	}
	if !weighted {
		for _, f := range fixed {
			if f != 1<<32 {
				return nil, notOffered("weights (the incumbent is unweighted)")
			}
		}
	}
	switch name {
	case "go-redis-ring-v9":
		p.goRedis = newGoRedis(nodes)
	case "pymemcache-rendezvous":
		p.pymemc = newPymemcache(nodes)
	default:
		whole := make([]uint32, len(nodes))
		for i, n := range nodes {
			if fixed[i]&0xffffffff != 0 {
				return nil, notOffered("fractional weights")
			}
			if fixed[i] == 0 {
				return nil, notOffered("weight 0 (the incumbent places a node of weight 0 as weight 1)")
			}
			whole[i] = uint32(fixed[i] >> 32)
			if name == "ketama-libmemcached" {
				if _, _, why := ketamaServer(n.ID); why != "" {
					return nil, notOffered(why)
				}
			}
		}
		if name == "ketama-libmemcached" {
			p.ring = ketamaContinuum(nodes, whole)
		} else {
			p.ring = hashringContinuum(nodes, whole)
			p.hashring = true
		}
	}
	return p, nil
}

func notOffered(what string) *Error { return &Error{Code: CodeNotOffered, What: what} }

// Owner is the position of the node the incumbent gives key to.
func (p *Placement) Owner(key string) int {
	// Every incumbent gives every key to a lone server (libmemcached skips the hash there too).
	if p.lone {
		return 0
	}
	if g := p.goRedis; g != nil {
		// The hot loop of go-redis-ring-v9 lives here rather than one call further down: every
		// nanosecond counts against go-redis's own hash.
		kh := xxh64(hashtag(key))
		best, bestScore := 0, mix64(kh^g.hashes[0])
		for i := 1; i < len(g.hashes); i++ {
			if s := mix64(kh ^ g.hashes[i]); s > bestScore {
				best, bestScore = i, s
			}
		}
		return g.index[best]
	}
	switch {
	case p.pymemc != nil:
		return p.pymemc.owner(key)
	case p.hashring:
		return p.ring.owner(hashringFind(p.ring.values, keyValue(lossyUTF8(key))))
	default:
		return p.ring.owner(ketamaFind(p.ring.values, keyValue(key)))
	}
}

// OffersReplicas says whether the incumbent has a top-k lookup (hashring's range).
func (p *Placement) OffersReplicas() bool { return p.hashring }

// Replicas is hashring's range(key, k): the first k distinct nodes walking the ring from the
// key's point. Only for a profile that OffersReplicas.
func (p *Placement) Replicas(key string, k int) []int {
	out := []int{}
	if k <= 0 {
		return out
	}
	start := hashringFind(p.ring.values, keyValue(lossyUTF8(key)))
	n := len(p.ring.owners)
	for i := 0; i < n; i++ {
		o := int(p.ring.owners[(start+i)%n])
		dup := false
		for _, x := range out {
			dup = dup || x == o
		}
		if !dup {
			out = append(out, o)
			if len(out) == k {
				break
			}
		}
	}
	return out
}
