package hrwhash

import (
	"container/heap"
	"encoding/binary"
	"math/big"
	"math/bits"
	"slices"
	"strings"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// levelledSlotKeyPrefix starts the key whose digest is a slot's (POLICIES.md, "slot-table (v2)").
const levelledSlotKeyPrefix = "slot-table-v2:"

// levelled is the table of the levelled mode (conformance/POLICIES.md, "slot-table-v2"): a
// change moves only the changed node's slots while every node stays within about one slot of
// its share, so the table depends on the order of the changes. Its changes work in place.
type levelled struct {
	p           *Placement
	slotDigests []uint64
	nodeDigests []uint64
	table       []uint32   // slot -> node index
	slotsOf     [][]uint32 // node index -> its slots, in no particular order
	pos         []uint32   // slot -> its position in slotsOf[its node]
}

// newLevelled builds the first table of p (POLICIES.md, "First table"); slots is already
// checked.
func newLevelled(p *Placement, slots uint64) *levelled {
	seed := [hrw.SeedLen]byte(p.seed)
	t := &levelled{
		p:           p,
		slotDigests: make([]uint64, slots),
		nodeDigests: make([]uint64, len(p.nodes)),
		table:       make([]uint32, 0, slots),
		slotsOf:     make([][]uint32, len(p.nodes)),
		pos:         make([]uint32, 0, slots),
	}
	key := []byte(levelledSlotKeyPrefix)
	for s := range t.slotDigests {
		key = binary.LittleEndian.AppendUint32(key[:len(levelledSlotKeyPrefix)], uint32(s))
		t.slotDigests[s] = hrw.KeyDigest(seed, string(key))
	}
	for i, n := range p.nodes {
		t.nodeDigests[i] = hrw.NodeDigest(seed, n.id)
	}
	// The quotas floor(S * W_i / T), and one more for the R nodes of the largest remainders.
	weights := fixedWeights(p)
	total := new(big.Int)
	for _, w := range weights {
		total.Add(total, new(big.Int).SetUint64(w))
	}
	quota := make([]uint32, len(p.nodes))
	rest := make([]*big.Int, len(p.nodes))
	short := uint32(slots)
	for i, w := range weights {
		q, r := new(big.Int).QuoRem(new(big.Int).Mul(new(big.Int).SetUint64(slots), new(big.Int).SetUint64(w)), total, new(big.Int))
		quota[i], rest[i] = uint32(q.Uint64()), r
		short -= quota[i]
	}
	byID := func(a, b int) int {
		if t.nodeDigests[a] != t.nodeDigests[b] {
			if t.nodeDigests[a] < t.nodeDigests[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(p.nodes[a].id, p.nodes[b].id)
	}
	order := make([]int, len(p.nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := rest[b].Cmp(rest[a]); c != 0 {
			return c
		}
		return byID(a, b)
	})
	for _, i := range order[:short] {
		quota[i]++
	}
	slices.SortFunc(order, byID)
	for _, i := range order {
		for q := uint32(0); q < quota[i]; q++ {
			t.pos = append(t.pos, uint32(len(t.slotsOf[i])))
			t.slotsOf[i] = append(t.slotsOf[i], uint32(len(t.table)))
			t.table = append(t.table, uint32(i))
		}
	}
	return t
}

func fixedWeights(p *Placement) []uint64 {
	w := make([]uint64, len(p.nodes))
	for i, n := range p.nodes {
		w[i], _ = hrw.FixedWeight(n.weight) // valid: the placement was built
	}
	return w
}

func (t *levelled) placement() *Placement { return t.p }
func (t *levelled) owners() []uint32      { return t.table }

func (t *levelled) counts() []int {
	counts := make([]int, len(t.slotsOf))
	for i, l := range t.slotsOf {
		counts[i] = len(l)
	}
	return counts
}

func (t *levelled) clone() slotLayout {
	c := &levelled{
		p:           t.p,
		slotDigests: t.slotDigests, // never written after the build
		nodeDigests: slices.Clone(t.nodeDigests),
		table:       slices.Clone(t.table),
		slotsOf:     make([][]uint32, len(t.slotsOf)),
		pos:         slices.Clone(t.pos),
	}
	for i, l := range t.slotsOf {
		c.slotsOf[i] = slices.Clone(l)
	}
	return c
}

func (t *levelled) apply(c slotChange) error {
	switch c.op {
	case hrwview.OpAdd:
		return t.add(c.node)
	case hrwview.OpRemove:
		return t.remove(c.node.id)
	}
	return t.setWeight(c.node.id, c.node.weight)
}

// add appends n (Add, POLICIES.md "Changes"): it takes its share one slot at a time from the
// most loaded nodes. On an error (those of Placement.WithNode) the table is unchanged.
func (t *levelled) add(n node) error {
	p, err := t.p.WithNode(n.public())
	if err != nil {
		return err
	}
	t.p = p
	t.nodeDigests = append(t.nodeDigests, hrw.NodeDigest([hrw.SeedLen]byte(p.seed), p.nodes[len(p.nodes)-1].id))
	t.slotsOf = append(t.slotsOf, nil)
	t.level(len(p.nodes)-1, fixedWeights(p))
	return nil
}

// remove takes the node of this id out (later indices shift down by one): its slots go one at a
// time to the least loaded nodes. On an error (ErrUnknownNode, those of Placement.WithoutNode)
// the table is unchanged.
func (t *levelled) remove(id string) error {
	p, err := t.p.WithoutNode(id)
	if err != nil {
		return err
	}
	gone, _ := t.p.Find(id) // found: WithoutNode succeeded
	weights := fixedWeights(t.p)
	weights[gone] = 0
	t.level(gone, weights)
	t.slotsOf = slices.Delete(t.slotsOf, gone, gone+1)
	t.nodeDigests = slices.Delete(t.nodeDigests, gone, gone+1)
	for s, o := range t.table {
		if int(o) > gone {
			t.table[s] = o - 1
		}
	}
	t.p = p
	return nil
}

// setWeight gives the node of this id another weight: it takes or gives slots until it holds its
// new share. On an error (those of Placement.WithWeight) the table is unchanged.
func (t *levelled) setWeight(id string, weight float64) error {
	p, err := t.p.WithWeight(id, weight)
	if err != nil {
		return err
	}
	j, _ := p.Find(id) // found: WithWeight succeeded
	t.p = p
	t.level(j, fixedWeights(p))
	return nil
}

// loadHeap orders node indices by POLICIES.md's load order; most puts the most loaded on top,
// otherwise the least loaded.
type loadHeap struct {
	t       *levelled
	weights []uint64
	nodes   []int
	most    bool
}

func (h *loadHeap) Len() int { return len(h.nodes) }
func (h *loadHeap) Less(i, j int) bool {
	c := h.t.loadCmp(h.nodes[i], h.nodes[j], h.weights)
	if h.most {
		return c > 0
	}
	return c < 0
}
func (h *loadHeap) Swap(i, j int) { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *loadHeap) Push(x any)    { h.nodes = append(h.nodes, x.(int)) }
func (h *loadHeap) Pop() any {
	x := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return x
}

// loadCmp compares the loads of nodes a and b: c_a * W_b against c_b * W_a, then node digests,
// then ids.
func (t *levelled) loadCmp(a, b int, weights []uint64) int {
	ah, al := bits.Mul64(uint64(len(t.slotsOf[a])), weights[b])
	bh, bl := bits.Mul64(uint64(len(t.slotsOf[b])), weights[a])
	switch {
	case ah != bh:
		return cmpU64(ah, bh)
	case al != bl:
		return cmpU64(al, bl)
	case t.nodeDigests[a] != t.nodeDigests[b]:
		return cmpU64(t.nodeDigests[a], t.nodeDigests[b])
	}
	return strings.Compare(t.p.nodes[a].id, t.p.nodes[b].id)
}

func cmpU64(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// level is POLICIES.md's "Levelling node j" under the weights after the change. t.p holds the
// node ids (for a removal, still the node being removed).
func (t *levelled) level(j int, weights []uint64) {
	total := new(big.Int)
	for _, w := range weights {
		total.Add(total, new(big.Int).SetUint64(w))
	}
	// floor((2 * S * W'_j + T') / (2 * T'))
	num := new(big.Int).Mul(big.NewInt(int64(2*len(t.table))), new(big.Int).SetUint64(weights[j]))
	num.Add(num, total)
	target := int(num.Quo(num, total.Lsh(total, 1)).Int64())
	if len(t.slotsOf[j]) == target {
		return
	}
	h := &loadHeap{t: t, weights: weights, most: len(t.slotsOf[j]) < target}
	for i := range weights {
		if i != j && weights[i] > 0 {
			h.nodes = append(h.nodes, i)
		}
	}
	heap.Init(h)
	for len(t.slotsOf[j]) < target {
		donor := h.nodes[0]
		t.give(t.preferred(j, t.slotsOf[donor]), j)
		heap.Fix(h, 0)
	}
	for len(t.slotsOf[j]) > target {
		taker := h.nodes[0]
		t.give(t.preferred(taker, t.slotsOf[j]), taker)
		heap.Fix(h, 0)
	}
}

// preferred is the slot of list that node i scores highest; of equal scores the lower slot.
func (t *levelled) preferred(i int, list []uint32) uint32 {
	nd := t.nodeDigests[i]
	bestScore, best := uint64(0), ^uint32(0)
	for _, s := range list {
		sc := hrw.Score(t.slotDigests[s], nd)
		if sc > bestScore || (sc == bestScore && s < best) {
			bestScore, best = sc, s
		}
	}
	return best
}

// give moves slot to node to.
func (t *levelled) give(slot uint32, to int) {
	from := t.table[slot]
	at := t.pos[slot]
	list := t.slotsOf[from]
	last := len(list) - 1
	list[at] = list[last]
	t.pos[list[at]] = at
	t.slotsOf[from] = list[:last]
	t.pos[slot] = uint32(len(t.slotsOf[to]))
	t.slotsOf[to] = append(t.slotsOf[to], slot)
	t.table[slot] = uint32(to)
}
