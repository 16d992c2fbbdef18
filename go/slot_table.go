package hrwhash

import (
	"strconv"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// SlotTablePolicy is the tag of the levelled slot table, SlotTable's default mode
// (conformance/POLICIES.md, "slot-table (v2)").
const SlotTablePolicy = hrwview.LevelledPolicy

// RankedSlotTablePolicy is the tag of the ranked slot table (conformance/POLICIES.md,
// "slot-table (v1)").
const RankedSlotTablePolicy = hrwview.RankedPolicy

// SlotHistoryFormat is the format tag of a slot table's document (conformance/SLOT-HISTORY.md).
const SlotHistoryFormat = hrwview.HistoryFormat

// MaxSlots is the largest number of slots a SlotTable takes (2^24).
const MaxSlots = 1 << 24

// SlotMode says how a SlotTable gives slots to nodes.
type SlotMode int

const (
	// SlotModeLevelled (slot-table-v2, the default): each change moves only the changed node's
	// slots and every node stays within about one slot of its share, so the table depends on
	// the order of the changes.
	SlotModeLevelled SlotMode = iota
	// SlotModeRanked (slot-table-v1): every slot goes to the first node of its hrw-v1 ranking
	// that has room, so the table depends only on the current membership and a client holding
	// only a view can build it.
	SlotModeRanked
)

// String is "levelled" or "ranked".
func (m SlotMode) String() string {
	switch m {
	case SlotModeLevelled:
		return "levelled"
	case SlotModeRanked:
		return "ranked"
	}
	return "SlotMode(" + strconv.Itoa(int(m)) + ")"
}

// Policy is the mode's tag: SlotTablePolicy or RankedSlotTablePolicy ("" for no mode).
func (m SlotMode) Policy() string {
	switch m {
	case SlotModeLevelled:
		return SlotTablePolicy
	case SlotModeRanked:
		return RankedSlotTablePolicy
	}
	return ""
}

// SlotTable gives keys to a fixed number of slots and each slot to a node, so an owner lookup
// is one key digest and one array read whatever the number of nodes. Its state is its history
// (conformance/SLOT-HISTORY.md): the first membership, the number of slots, the mode, the
// ordered changes and an epoch, which JSON writes and SlotTableFromJSON reads back; every
// client that holds the same history holds the same table, which Fingerprint compares cheaply.
//
// AddNode, RemoveNode and SetWeight append a change in place; WithNode, WithoutNode,
// WithWeight and WithEpoch return a changed copy and leave the table as it was. A SlotTable is
// safe for concurrent use as long as no AddNode, RemoveNode or SetWeight runs at the same time
// as another method on the same table.
type SlotTable struct {
	mode    SlotMode
	initial *Placement
	epoch   uint64
	changes []slotChange
	cost    uint64 // what replaying changes costs, in maxSlotTableReplayCost units
	lay     slotLayout
}

// maxSlotTableReplayCost is the most one table's history may cost to replay (SLOT-HISTORY.md
// section 6): a levelled change costs the number of slots plus the number of nodes before it, a
// ranked one the number of nodes. A change past it, appended or loaded, is ErrResultTooLarge.
const maxSlotTableReplayCost = 1 << 25

// charged is the replay cost once one more change applies to a table of slots slots and nodes
// nodes that cost before, or ErrResultTooLarge past maxSlotTableReplayCost.
func charged(before uint64, mode SlotMode, slots, nodes int) (uint64, error) {
	cost := before + uint64(nodes)
	if mode == SlotModeLevelled {
		cost += uint64(slots)
	}
	if cost > maxSlotTableReplayCost {
		return 0, &Error{Code: CodeResultTooLarge}
	}
	return cost, nil
}

// slotLayout is the table of one mode: the current membership and the owner of every slot.
type slotLayout interface {
	placement() *Placement
	owners() []uint32 // slot -> node index
	counts() []int
	// apply makes c in place; on an error the table is unchanged.
	apply(c slotChange) error
	clone() slotLayout
}

// slotChange is one change: the added node, or the id (and new weight) of the node changed.
type slotChange struct {
	op   string
	node node
}

// SlotTableOption configures NewSlotTable.
type SlotTableOption func(*slotTableConfig)

type slotTableConfig struct {
	ranked   bool
	overload *uint32
	epoch    uint64
}

// Ranked selects SlotModeRanked without an overload bound: every slot goes to the first node of
// its hrw-v1 ranking (the plain HRW slot table).
func Ranked() SlotTableOption {
	return func(c *slotTableConfig) { c.ranked = true }
}

// WithOverloadPPM selects SlotModeRanked and bounds every node to about (1 + ppm / 10^6) times
// its share of the slots.
func WithOverloadPPM(ppm uint32) SlotTableOption {
	return func(c *slotTableConfig) { c.ranked, c.overload = true, &ppm }
}

// WithEpoch sets the table's epoch, that of the view of its membership (0 without it).
func WithEpoch(epoch uint64) SlotTableOption {
	return func(c *slotTableConfig) { c.epoch = epoch }
}

// NewSlotTable builds the table of p with slots slots and no change yet: levelled unless an
// option selects the ranked mode. The errors: ErrNullParameter for a nil Placement, and
// ErrInvalidSlotCount (with Slots the number given) unless 1 <= slots <= MaxSlots. (The
// document cannot carry a weight of more than 53 significant bits, SLOT-HISTORY.md section 3,
// but no float64 weight has more.)
func NewSlotTable(p *Placement, slots uint64, opts ...SlotTableOption) (*SlotTable, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var cfg slotTableConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	mode := SlotModeLevelled
	if cfg.ranked {
		mode = SlotModeRanked
	}
	if slots == 0 || slots > MaxSlots {
		return nil, &Error{Code: CodeInvalidSlotCount, Slots: slots}
	}
	t := &SlotTable{mode: mode, initial: p, epoch: cfg.epoch}
	if mode == SlotModeLevelled {
		t.lay = newLevelled(p, slots)
		return t, nil
	}
	r, err := newRanked(p, slots, cfg.overload)
	if err != nil {
		return nil, err
	}
	t.lay = r
	return t, nil
}

func (t *SlotTable) usable() error { return builtIf(t != nil && t.lay != nil) }

// Mode is how the table gives slots to nodes (SlotModeLevelled for a nil SlotTable).
func (t *SlotTable) Mode() SlotMode {
	if t.usable() != nil {
		return SlotModeLevelled
	}
	return t.mode
}

// OverloadPPM is the overload bound of a ranked table in parts per million, and false when
// there is none (a levelled table, the plain HRW table).
func (t *SlotTable) OverloadPPM() (uint32, bool) {
	if t.usable() != nil {
		return 0, false
	}
	if r, ok := t.lay.(*ranked); ok && r.overload != nil {
		return *r.overload, true
	}
	return 0, false
}

// Placement is the current membership, after every change: its indices are the ones the table
// answers with (nil for a nil SlotTable). A Placement taken before a change keeps the old one.
func (t *SlotTable) Placement() *Placement {
	if t.usable() != nil {
		return nil
	}
	return t.lay.placement()
}

// Initial is the first membership, before any change (nil for a nil SlotTable).
func (t *SlotTable) Initial() *Placement {
	if t.usable() != nil {
		return nil
	}
	return t.initial
}

// Slots is the number of slots (0 for a nil SlotTable).
func (t *SlotTable) Slots() int {
	if t.usable() != nil {
		return 0
	}
	return len(t.lay.owners())
}

// Epoch is the table's epoch, that of the view of its current membership.
func (t *SlotTable) Epoch() uint64 {
	if t.usable() != nil {
		return 0
	}
	return t.epoch
}

// ChangeCount is the number of changes since the first membership.
func (t *SlotTable) ChangeCount() int {
	if t.usable() != nil {
		return 0
	}
	return len(t.changes)
}

// Slot returns the slot of key. It cannot fail; a nil or zero SlotTable panics with
// ErrNullParameter.
func (t *SlotTable) Slot(key string) int {
	mustUse(t.usable())
	return slotOf(hrw.KeyDigest([hrw.SeedLen]byte(t.initial.seed), key), len(t.lay.owners()))
}

// Owner returns the index of the node that owns key: the owner of its slot (it panics as Slot
// does).
func (t *SlotTable) Owner(key string) int {
	s := t.Slot(key)
	return int(t.lay.owners()[s])
}

// OwnerOfSlot returns the index of the node that owns slot; ErrSlotOutOfRange (with Slot and
// Slots) when slot is not below Slots().
func (t *SlotTable) OwnerOfSlot(slot uint64) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	table := t.lay.owners()
	if slot >= uint64(len(table)) {
		return 0, &Error{Code: CodeSlotOutOfRange, Slot: slot, Slots: uint64(len(table))}
	}
	return int(table[slot]), nil
}

// Assignments returns the owner of every slot as a node index, slot 0 first (nil for a nil
// SlotTable).
func (t *SlotTable) Assignments() []int {
	if t.usable() != nil {
		return nil
	}
	table := t.lay.owners()
	out := make([]int, len(table))
	for i, o := range table {
		out[i] = int(o)
	}
	return out
}

// SlotCounts returns how many slots each node holds, in node order (nil for a nil SlotTable).
func (t *SlotTable) SlotCounts() []int {
	if t.usable() != nil {
		return nil
	}
	return t.lay.counts()
}

// Capacities returns the most slots each node may hold, in node order, for a ranked table with
// an overload bound; nil for any other table, whose nodes are bounded by their share (levelled)
// or not at all (the plain HRW table).
func (t *SlotTable) Capacities() []int {
	if t.usable() != nil {
		return nil
	}
	if r, ok := t.lay.(*ranked); ok && r.overload != nil {
		return append([]int(nil), r.caps...)
	}
	return nil
}

// AddNode appends n to the membership in place (it gets index Placement().Len()). The errors,
// with Index the change's position (ChangeCount()) where they have one: ErrInvalidWeight,
// ErrInvalidView (Field "changes", Reason FaultOutOfRange) past 65,536 changes, ErrEmptyNodeID
// and ErrDuplicateNodeID (FirstIndex the present node's). On an error the table is unchanged.
func (t *SlotTable) AddNode(n Node) error {
	if err := t.usable(); err != nil {
		return err
	}
	r := resolve(n)
	if _, ok := hrw.FixedWeight(r.weight); !ok {
		return &Error{Code: CodeInvalidWeight, Index: len(t.changes), Weight: r.weight}
	}
	return t.push(slotChange{op: hrwview.OpAdd, node: r})
}

// RemoveNode takes the node of this id out of the membership in place (later indices shift
// down by one). The errors: ErrInvalidView past 65,536 changes (as AddNode), ErrUnknownNode,
// then ErrEmptyMembership (the last node) or ErrAllWeightsZero (the last node of weight above
// 0). On an error the table is unchanged.
func (t *SlotTable) RemoveNode(id string) error {
	if err := t.usable(); err != nil {
		return err
	}
	return t.push(slotChange{op: hrwview.OpRemove, node: node{id: id}})
}

// SetWeight gives the node of this id another weight in place (0 drains it). As
// Placement.WithWeight, the node is looked up first (ErrUnknownNode), then the weight is checked
// (ErrInvalidWeight with Index the change's position), then ErrInvalidView past 65,536 changes
// (as AddNode) and ErrAllWeightsZero. On an error the table is unchanged.
func (t *SlotTable) SetWeight(id string, weight float64) error {
	if err := t.usable(); err != nil {
		return err
	}
	if _, ok := t.lay.placement().Find(id); !ok {
		return &Error{Code: CodeUnknownNode, ID: id}
	}
	if _, ok := hrw.FixedWeight(weight); !ok {
		return &Error{Code: CodeInvalidWeight, Index: len(t.changes), Weight: weight}
	}
	return t.push(slotChange{op: hrwview.OpWeight, node: node{id: id, weight: weight}})
}

// WithNode returns the table with n added (AddNode on a copy; the same errors).
func (t *SlotTable) WithNode(n Node) (*SlotTable, error) {
	return t.with(func(c *SlotTable) error { return c.AddNode(n) })
}

// WithoutNode returns the table without the node of this id (RemoveNode on a copy; the same
// errors).
func (t *SlotTable) WithoutNode(id string) (*SlotTable, error) {
	return t.with(func(c *SlotTable) error { return c.RemoveNode(id) })
}

// WithWeight returns the table where the node of this id has another weight (SetWeight on a
// copy; the same errors).
func (t *SlotTable) WithWeight(id string, weight float64) (*SlotTable, error) {
	return t.with(func(c *SlotTable) error { return c.SetWeight(id, weight) })
}

// WithEpoch returns the same table at another epoch. A change keeps the epoch: whoever
// publishes the table sets the epoch of the view it publishes with it.
func (t *SlotTable) WithEpoch(epoch uint64) (*SlotTable, error) {
	return t.with(func(c *SlotTable) error { c.epoch = epoch; return nil })
}

func (t *SlotTable) with(change func(*SlotTable) error) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	c := *t
	c.changes = c.changes[:len(c.changes):len(c.changes)] // an append copies
	c.lay = t.lay.clone()
	if err := change(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// push checks the document's limit on changes, applies c and records it; on an error the table
// is unchanged.
func (t *SlotTable) push(c slotChange) error {
	at := len(t.changes)
	if at >= hrwview.MaxChanges {
		return &Error{Code: CodeInvalidView, Field: "changes", Index: at, Reason: FaultOutOfRange}
	}
	cost, err := charged(t.cost, t.mode, len(t.lay.owners()), t.lay.placement().Len())
	if err != nil {
		return err
	}
	if err := t.lay.apply(c); err != nil {
		return atChange(err, at)
	}
	t.changes = append(t.changes, c)
	t.cost = cost
	return nil
}

// atChange gives an added node's id error the change's position.
func atChange(err error, at int) error {
	if e, ok := err.(*Error); ok && (e.Code == CodeEmptyNodeID || e.Code == CodeDuplicateNodeID) {
		e.Index = at
	}
	return err
}
