package hrwhash

import (
	"container/heap"
	"encoding/binary"
	"math/big"
	"math/bits"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// slotKeyPrefix starts the key whose hrw-v1 ranking is a slot's (POLICIES.md, "Slot ranking").
const slotKeyPrefix = "slot-table-v1:"

// ranked is the table of the ranked mode (conformance/POLICIES.md, "slot-table (v1)"): every slot
// goes to the first node of its hrw-v1 ranking that has room. It depends only on the
// membership, so a change builds the table of the new membership afresh.
type ranked struct {
	p        *Placement
	overload *uint32
	table    []uint32
	caps     []int
}

// newRanked builds the table of p; slots is already checked.
func newRanked(p *Placement, slots uint64, overload *uint32) (*ranked, error) {
	hp, err := p.goPlacement()
	if err != nil {
		return nil, err
	}
	t := &ranked{p: p, overload: overload}
	t.caps = slotCapacities(p, slots, overload)
	t.table = assignSlots(hp, uint32(slots), t.caps)
	return t, nil
}

func (t *ranked) placement() *Placement { return t.p }
func (t *ranked) owners() []uint32      { return t.table }
func (t *ranked) counts() []int         { return slotCounts(t.table, len(t.p.nodes)) }

// clone shares the table: a change replaces it instead of writing into it.
func (t *ranked) clone() slotLayout {
	c := *t
	return &c
}

func (t *ranked) apply(c slotChange) error {
	p, err := t.membership(c)
	if err != nil {
		return err
	}
	next, err := newRanked(p, uint64(len(t.table)), t.overload)
	if err != nil {
		return err
	}
	*t = *next
	return nil
}

// membership is the membership after c (the errors of the placement's change).
func (t *ranked) membership(c slotChange) (*Placement, error) {
	switch c.op {
	case hrwview.OpAdd:
		return t.p.WithNode(c.node.public())
	case hrwview.OpRemove:
		return t.p.WithoutNode(c.node.id)
	}
	return t.p.WithWeight(c.node.id, c.node.weight)
}

// slotKey is the key whose hrw-v1 ranking is the ranking of slot s.
func slotKey(s uint32) string {
	return string(binary.LittleEndian.AppendUint32([]byte(slotKeyPrefix), s))
}

// slotOf is floor(kd * slots / 2^64).
func slotOf(kd uint64, slots int) int {
	hi, _ := bits.Mul64(kd, uint64(slots))
	return int(hi)
}

// slotCapacities is POLICIES.md's "Capacities", in exact integers.
func slotCapacities(p *Placement, slots uint64, overload *uint32) []int {
	fixed := make([]uint64, len(p.nodes))
	total := new(big.Int)
	for i, n := range p.nodes {
		fixed[i], _ = hrw.FixedWeight(n.weight) // valid: the placement was built
		total.Add(total, new(big.Int).SetUint64(fixed[i]))
	}
	caps := make([]int, len(p.nodes))
	s := new(big.Int).SetUint64(slots)
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for i, n := range p.nodes {
		switch {
		case fixed[i] == 0:
			caps[i] = 0
		case overload == nil:
			caps[i] = int(slots)
		default:
			w := new(big.Int).SetUint64(fixed[i])
			sw := new(big.Int).Mul(s, w)
			share, r := new(big.Int).QuoRem(sw, total, new(big.Int))
			if r.Sign() != 0 {
				share.Add(share, big.NewInt(1))
			}
			a := new(big.Int).Mul(sw, big.NewInt(1_000_000+int64(*overload)))
			b := new(big.Int).Mul(big.NewInt(1_000_000), total)
			h := new(big.Int).SetUint64(hrw.NodeDigest([hrw.SeedLen]byte(p.seed), n.id))
			num := new(big.Int).Add(new(big.Int).Mul(a, two64), h.Mul(h, b))
			f := num.Quo(num, b.Mul(b, two64))
			if f.Cmp(share) < 0 {
				f = share
			}
			if f.Cmp(s) > 0 {
				f = s
			}
			caps[i] = int(f.Int64())
		}
	}
	return caps
}

// slotOffer is a slot held by a node: a node keeps its offers of higher score, then lower slot.
type slotOffer struct {
	score uint64
	slot  uint32
}

// offerHeap keeps a node's offers with its least preferred on top.
type offerHeap []slotOffer

func (h offerHeap) Len() int { return len(h) }
func (h offerHeap) Less(i, j int) bool {
	return h[i].score < h[j].score || (h[i].score == h[j].score && h[i].slot > h[j].slot)
}
func (h offerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *offerHeap) Push(x any)   { *h = append(*h, x.(slotOffer)) }
func (h *offerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// assignSlots finds the unique stable assignment of POLICIES.md's "Table" (slot-table-v1): the
// slots propose down their rankings and each node keeps its best caps[i] offers.
// Most slots are taken by their first choice, so a slot's ranking is computed only as far as its
// proposals reach, in prefixes that double.
func assignSlots(hp *hrw.Placement, slots uint32, caps []int) []uint32 {
	seed := hp.Seed
	nd := make([]uint64, len(hp.Nodes))
	for i, n := range hp.Nodes {
		nd[i] = hrw.NodeDigest(seed, n.ID)
	}
	next := make([]uint32, slots)
	owner := make([]uint32, slots)
	held := make([]offerHeap, len(caps))
	rankings := map[uint32][]int{}
	free := make([]uint32, slots)
	for i := range free {
		free[i] = slots - 1 - uint32(i)
	}
	selectable := hp.Selectable()
	for len(free) > 0 {
		slot := free[len(free)-1]
		free = free[:len(free)-1]
		key := slotKey(slot)
		sd := hrw.KeyDigest(seed, key)
		for {
			pos := int(next[slot])
			var n int
			if pos == 0 {
				n = hp.Owner(key)
			} else {
				list := rankings[slot]
				if pos >= len(list) {
					// caps sum to at least the slot count, so the whole ranking finds a node
					want := min(max(2*pos, 16), selectable)
					list = make([]int, want)
					list = list[:hp.RankInto(key, list)]
					rankings[slot] = list
				}
				n = list[pos]
			}
			next[slot]++
			if caps[n] == 0 {
				continue
			}
			offer := slotOffer{score: hrw.Score(sd, nd[n]), slot: slot}
			h := &held[n]
			if h.Len() < caps[n] {
				heap.Push(h, offer)
				owner[slot] = uint32(n)
				break
			}
			worst := (*h)[0]
			if worst.score < offer.score || (worst.score == offer.score && worst.slot > offer.slot) {
				(*h)[0] = offer
				heap.Fix(h, 0)
				owner[slot] = uint32(n)
				free = append(free, worst.slot)
				break
			}
		}
	}
	return owner
}

func slotCounts(table []uint32, nodes int) []int {
	counts := make([]int, nodes)
	for _, o := range table {
		counts[o]++
	}
	return counts
}
