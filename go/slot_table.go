package hrwhash

import (
	"container/heap"
	"encoding/binary"
	"math/big"
	"math/bits"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// SlotTablePolicy is the name and version of the policy SlotTable implements, as written in
// conformance/POLICIES.md.
const SlotTablePolicy = "slot-table-v1"

// MaxSlots is the largest number of slots a SlotTable takes (2^24).
const MaxSlots = 1 << 24

// slotKeyPrefix starts the key whose hrw-v1 ranking is a slot's (POLICIES.md, "Slot ranking").
const slotKeyPrefix = "slot-table-v1:"

// SlotTable is the slot-table-v1 policy (conformance/POLICIES.md, "slot-table (v1)"): keys hash
// to a fixed number of slots and each slot has an owner, so an owner lookup is one key digest
// and one array read whatever the number of nodes. It never changes; WithNode, WithoutNode and
// WithWeight compute a new table, which is the table a fresh build over the new membership
// gives. It is safe for concurrent use.
type SlotTable struct {
	p        *Placement
	overload *uint32
	table    []uint32
	caps     []int
}

// SlotTableOption configures NewSlotTable.
type SlotTableOption func(*slotTableConfig)

type slotTableConfig struct {
	overload *uint32
}

// WithOverloadPPM bounds every node to about (1 + ppm / 10^6) times its share of the slots.
// Without it every slot goes to the first node of its hrw-v1 ranking (the plain HRW table).
func WithOverloadPPM(ppm uint32) SlotTableOption {
	return func(c *slotTableConfig) { c.overload = &ppm }
}

// NewSlotTable builds the table of p with slots slots, 1 to MaxSlots (else ErrInvalidSlotCount,
// with Slots the number given). The table keeps its own copy of the membership.
func NewSlotTable(p *Placement, slots uint64, opts ...SlotTableOption) (*SlotTable, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var cfg slotTableConfig
	for _, o := range opts {
		o(&cfg)
	}
	return newSlotTable(p, slots, cfg.overload)
}

func newSlotTable(p *Placement, slots uint64, overload *uint32) (*SlotTable, error) {
	if slots == 0 || slots > MaxSlots {
		return nil, &Error{Code: CodeInvalidSlotCount, Slots: slots}
	}
	hp, err := p.goPlacement()
	if err != nil {
		return nil, err
	}
	t := &SlotTable{p: p, overload: overload}
	t.caps = slotCapacities(p, slots, overload)
	t.table = assignSlots(hp, uint32(slots), t.caps, func(int, int) bool { return true })
	return t, nil
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
// slots propose down their rankings and each node keeps its best caps[i] offers. A node i for
// which admit(slot, i) is false is passed over (slot-table-v2 uses it for its levels).
// Most slots are taken by their first choice, so a slot's ranking is computed only as far as its
// proposals reach, in prefixes that double.
func assignSlots(hp *hrw.Placement, slots uint32, caps []int, admit func(slot, node int) bool) []uint32 {
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
			if caps[n] == 0 || !admit(int(slot), n) {
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

func (t *SlotTable) usable() error {
	if t == nil || t.table == nil {
		return &Error{Code: CodeNullParameter}
	}
	return nil
}

// Placement is the table's membership: its indices are the ones the table answers with.
func (t *SlotTable) Placement() *Placement {
	if t == nil {
		return nil
	}
	return t.p
}

// Slots is the number of slots (0 for a zero SlotTable).
func (t *SlotTable) Slots() int {
	if t == nil {
		return 0
	}
	return len(t.table)
}

// OverloadPPM is the overload bound in parts per million, and false for the plain HRW table.
func (t *SlotTable) OverloadPPM() (uint32, bool) {
	if t == nil || t.overload == nil {
		return 0, false
	}
	return *t.overload, true
}

// Slot returns the slot of key. It cannot fail; a nil or zero SlotTable panics with
// ErrNullParameter.
func (t *SlotTable) Slot(key string) int {
	mustUse(t.usable())
	return slotOf(hrw.KeyDigest([hrw.SeedLen]byte(t.p.seed), key), len(t.table))
}

// Owner returns the index of the node that owns key: the owner of its slot (it panics as Slot
// does).
func (t *SlotTable) Owner(key string) int { return int(t.table[t.Slot(key)]) }

// OwnerOfSlot returns the index of the node that owns slot; ErrSlotOutOfRange (with Slot and
// Slots) when slot is not below Slots().
func (t *SlotTable) OwnerOfSlot(slot uint64) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	return ownerOfSlot(t.table, slot)
}

func ownerOfSlot(table []uint32, slot uint64) (int, error) {
	if slot >= uint64(len(table)) {
		return 0, &Error{Code: CodeSlotOutOfRange, Slot: slot, Slots: uint64(len(table))}
	}
	return int(table[slot]), nil
}

// Assignments returns the owner of every slot as a node index, slot 0 first.
func (t *SlotTable) Assignments() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return widen(t.table), nil
}

func widen(table []uint32) []int {
	out := make([]int, len(table))
	for i, o := range table {
		out[i] = int(o)
	}
	return out
}

// SlotCounts returns how many slots each node holds, in node order.
func (t *SlotTable) SlotCounts() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return slotCounts(t.table, t.p.Len()), nil
}

func slotCounts(table []uint32, nodes int) []int {
	counts := make([]int, nodes)
	for _, o := range table {
		counts[o]++
	}
	return counts
}

// Capacities returns the most slots each node may hold, in node order.
func (t *SlotTable) Capacities() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return append([]int(nil), t.caps...), nil
}

// WithNode returns the table with one more node, appended (it gets index Placement().Len()).
// The errors are those of Placement.WithNode.
func (t *SlotTable) WithNode(n Node) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithNode(n)
	if err != nil {
		return nil, err
	}
	return newSlotTable(p, uint64(len(t.table)), t.overload)
}

// WithoutNode returns the table without the node of this id (later indices shift down by one);
// ErrUnknownNode when there is no such node.
func (t *SlotTable) WithoutNode(id string) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithoutNode(id)
	if err != nil {
		return nil, err
	}
	return newSlotTable(p, uint64(len(t.table)), t.overload)
}

// WithWeight returns the table where the node of this id has another weight (0 drains it). The
// errors are those of Placement.WithWeight.
func (t *SlotTable) WithWeight(id string, weight float64) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithWeight(id, weight)
	if err != nil {
		return nil, err
	}
	return newSlotTable(p, uint64(len(t.table)), t.overload)
}
