//go:build !cgo || !hrwhash_cgo

package hrwhash

import (
	"math/big"
	"math/bits"
)

// boundedBackend is bounded-load-v1 written from conformance/POLICIES.md. The caps are exact
// integers: load * S < slots * W needs up to 161 bits, hence math/big.
type boundedBackend struct {
	p        *Placement
	num, den *big.Int
	weights  []*big.Int
	total    *big.Int
}

func newBoundedBackend(p *Placement, num, den uint32) (*boundedBackend, error) {
	b := &boundedBackend{
		p:       p,
		num:     new(big.Int).SetUint64(uint64(num)),
		den:     new(big.Int).SetUint64(uint64(den)),
		weights: make([]*big.Int, len(p.nodes)),
		total:   new(big.Int),
	}
	for i, n := range p.nodes {
		w, ok := weightToFixed(n.weight)
		if !ok {
			// The placement accepted this weight when it was built.
			return nil, &Error{Code: CodeUnknown}
		}
		b.weights[i] = new(big.Int).SetUint64(w)
		b.total.Add(b.total, b.weights[i])
	}
	return b, nil
}

func (b *boundedBackend) owner(key string, loads []uint64) (int, error) {
	if len(loads) != len(b.weights) {
		return 0, &Error{Code: CodeLengthMismatch, Expected: len(b.weights), Actual: len(loads)}
	}
	var sum, carry uint64
	for _, l := range loads {
		sum, carry = bits.Add64(sum, l, 0)
		if carry != 0 {
			return 0, &Error{Code: CodeLoadOverflow}
		}
	}
	// slots = ceil((L + 1) * num / den)
	slots := new(big.Int).SetUint64(sum)
	slots.Add(slots, big.NewInt(1)).Mul(slots, b.num).Add(slots, b.den).Sub(slots, big.NewInt(1))
	slots.Quo(slots, b.den)
	rank, err := b.p.Rank(key, b.p.selectable)
	if err != nil {
		return 0, err
	}
	var lhs, rhs big.Int
	for _, i := range rank {
		lhs.SetUint64(loads[i]).Mul(&lhs, b.total)
		rhs.Mul(slots, b.weights[i])
		if lhs.Cmp(&rhs) < 0 {
			return i, nil
		}
	}
	// POLICIES.md proves some node of the ranking accepts.
	return 0, &Error{Code: CodeUnknown}
}

// assignInto is POLICIES.md's batch: count * den * S < num * K * W, again exact in math/big.
func (b *boundedBackend) assignInto(keys []string, out []int) error {
	counts := make([]uint64, len(b.weights))
	demand := new(big.Int).SetUint64(uint64(len(keys)))
	demand.Mul(demand, b.num)
	scale := new(big.Int).Mul(b.den, b.total)
	var lhs, rhs big.Int
	fits := func(i int) bool {
		lhs.SetUint64(counts[i]).Mul(&lhs, scale)
		rhs.Mul(demand, b.weights[i])
		return lhs.Cmp(&rhs) < 0
	}
	chosen := make([]int, len(keys))
	for j, key := range keys {
		// Most keys stay with their owner: rank only when it is full.
		i := b.p.Owner(key)
		if !fits(i) {
			rank, err := b.p.Rank(key, b.p.selectable)
			if err != nil {
				return err
			}
			i = -1
			for _, n := range rank {
				if fits(n) {
					i = n
					break
				}
			}
			if i < 0 {
				// POLICIES.md proves some node of the ranking has room.
				return &Error{Code: CodeUnknown}
			}
		}
		counts[i]++
		chosen[j] = i
	}
	copy(out, chosen)
	return nil
}
