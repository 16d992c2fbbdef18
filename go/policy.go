package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/hrw"

// BoundedLoadPolicy is the name and version of the policy BoundedLoad implements, as written in
// conformance/POLICIES.md.
const BoundedLoadPolicy = "bounded-load-v1"

// BoundedLoad is a placement with bounded loads (bounded-load-v1, conformance/POLICIES.md): a
// key goes to the first node of its ranking whose current load is below its cap, about c times
// its share of the total load, so a key leaves its owner only while the owner is full. Both
// builds implement it: with -tags hrwhash_cgo through libhrwhash, otherwise in Go. It is
// immutable and safe for concurrent use.
type BoundedLoad struct {
	p        *Placement
	num, den uint32
	b        *boundedBackend
}

// NewBoundedLoad is the policy over p with balance factor c = num/den, which needs den >= 1 and
// num >= den (else ErrInvalidBalanceFactor, with Factor = num/den). Envoy's
// hash_balance_factor of 125 is NewBoundedLoad(p, 125, 100).
func NewBoundedLoad(p *Placement, num, den uint32) (*BoundedLoad, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if den == 0 || num < den {
		return nil, &Error{Code: CodeInvalidBalanceFactor, Factor: float64(num) / float64(den)}
	}
	b, err := newBoundedBackend(p, num, den)
	if err != nil {
		return nil, err
	}
	return &BoundedLoad{p: p, num: num, den: den, b: b}, nil
}

// Placement is the placement whose rankings are probed.
func (bl *BoundedLoad) Placement() *Placement { return bl.p }

// Factor is the balance factor as given, num/den.
func (bl *BoundedLoad) Factor() (num, den uint32) { return bl.num, bl.den }

// Owner returns the index of the node that takes key, given loads[i], the current load of node
// i (one entry per node in build order, nodes of weight 0 included; a placement read from a view
// document has its nodes in id order, VIEW.md section 2, so match loads to nodes by id after a
// load). ErrLengthMismatch when
// len(loads) is not Len() of the placement; ErrLoadOverflow when the loads add up to more than
// 2^64 - 1. The zero BoundedLoad returns ErrNullParameter.
func (bl *BoundedLoad) Owner(key string, loads []uint64) (int, error) {
	if bl == nil || bl.b == nil {
		return 0, &Error{Code: CodeNullParameter}
	}
	return bl.b.owner(key, loads)
}

// Assign is the batch of bounded-load-v1: each key, in order, takes the first node of its
// ranking that holds fewer than ceil(c * len(keys) * share) of the keys before it, so no node
// ends with more than about c times its share. The answer depends on the order of the keys and
// on nothing else. With libhrwhash the whole batch is one call into it.
func (bl *BoundedLoad) Assign(keys []string) ([]int, error) {
	return intoNew(keys, bl.AssignInto)
}

// AssignInto writes the node of keys[i] under Assign into out[i]; out must be exactly as long
// as keys (else ErrLengthMismatch, with Expected the number of keys and Actual len(out), as
// POLICIES.md says), and nothing is written unless the call succeeds.
func (bl *BoundedLoad) AssignInto(keys []string, out []int) error {
	if bl == nil || bl.b == nil {
		return &Error{Code: CodeNullParameter}
	}
	if len(out) != len(keys) {
		return &Error{Code: CodeLengthMismatch, Expected: len(keys), Actual: len(out)}
	}
	if len(keys) == 0 {
		return nil
	}
	return bl.b.assignInto(keys, out)
}

// goPlacement is p as hrw-v1 in Go, for the policies that rank keys of their own (slot keys)
// in both builds.
func (p *Placement) goPlacement() (*hrw.Placement, error) { return newGoPlacement(p.seed, p.nodes) }

// newGoPlacement builds nodes as hrw-v1 in Go; the errors are NewNodes'.
func newGoPlacement(seed Seed, nodes []node) (*hrw.Placement, error) {
	hn := make([]hrw.Node, len(nodes))
	weights := make([]float64, len(nodes))
	for i, n := range nodes {
		hn[i] = hrw.Node{ID: n.id, Domain: n.domain, HasDomain: n.hasDomain}
		weights[i] = n.weight
	}
	hp, err := hrw.New([hrw.SeedLen]byte(seed), hn, weights)
	if err != nil {
		return nil, fromHrw(err)
	}
	return hp, nil
}
