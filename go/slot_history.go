package hrwhash

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"slices"
	"sort"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// SlotHistoryFormat is the format tag of a slot history document (conformance/SLOT-HISTORY.md).
const SlotHistoryFormat = hrwview.HistoryFormat

// SlotHistory is the shared history of a LevelledSlotTable (conformance/SLOT-HISTORY.md): the
// first membership, the number of slots and the ordered changes, as one JSON document. Every
// client that loads the same history holds the same table; TableFingerprintHex compares tables
// cheaply. It never changes; WithNode, WithoutNode and WithWeight return a longer history. It is
// safe for concurrent use.
type SlotHistory struct {
	initial *Placement
	epoch   uint64
	changes []slotChange
	table   *LevelledSlotTable
}

// slotChange is one change: the added node, or the id (and new weight) of the node changed.
type slotChange struct {
	op   string
	node node
}

func (s *SlotHistory) usable() error {
	if s == nil || s.table == nil {
		return &Error{Code: CodeNullParameter}
	}
	return nil
}

// representable says whether a weight's fixed-point value fits the 53 bits of a binary64, so
// that the document can carry it exactly.
func representable(w float64) bool {
	f, _ := hrw.FixedWeight(w)
	return f == 0 || bits.Len64(f)-bits.TrailingZeros64(f) <= 53
}

// SlotHistoryFromJSON loads and replays a history document, placing keys with the seed of
// WithSeed (the default seed without it). The errors, in the order SLOT-HISTORY.md section 5
// checks them: ErrInvalidJSON, ErrInvalidView (Field such as "changes.op", Index the position in
// "initial" or "changes" or -1, Reason), ErrInvalidSlotCount (Slots), the membership errors of
// "initial", ErrSeedMismatch, then the first failing change's error (ErrEmptyNodeID and
// ErrDuplicateNodeID with Index the change's position, ErrUnknownNode, ErrEmptyMembership,
// ErrAllWeightsZero).
func SlotHistoryFromJSON(doc []byte, opts ...Option) (*SlotHistory, error) {
	cfg := config{seed: DefaultSeed()}
	for _, o := range opts {
		o(&cfg)
	}
	d, err := hrwview.ParseHistory(doc)
	if err != nil {
		if e, ok := err.(*hrwview.Error); ok && e.Code == hrwview.CodeInvalidSlotCount {
			return nil, &Error{Code: CodeInvalidSlotCount, Slots: e.Slots}
		}
		return nil, fromView(err)
	}
	nodes := make([]node, len(d.Initial))
	for i, n := range d.Initial {
		nodes[i] = viewNode(n)
	}
	initial, err := build(cfg.seed, nodes)
	if err != nil {
		return nil, err
	}
	// "secret" names the seed by its fingerprint (which may be the default seed's).
	if (d.Secret && d.SeedFingerprint != hrwview.SeedFingerprint(cfg.seed)) || (!d.Secret && cfg.seed != DefaultSeed()) {
		return nil, &Error{Code: CodeSeedMismatch}
	}
	h, err := NewSlotHistory(initial, d.Slots, d.Epoch)
	if err != nil {
		return nil, err
	}
	h.changes = make([]slotChange, 0, len(d.Changes))
	for _, c := range d.Changes {
		if err := h.push(slotChange{op: c.Op, node: viewNode(c.Node)}); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func viewNode(n hrwview.Node) node {
	return node{id: n.ID, weight: n.Weight, domain: n.Domain, hasDomain: n.HasDomain}
}

// NewSlotHistory starts a history with no change: the first table of p with slots slots (1 to
// MaxSlots, else ErrInvalidSlotCount), at epoch.
func NewSlotHistory(p *Placement, slots, epoch uint64) (*SlotHistory, error) {
	t, err := NewLevelledSlotTable(p, slots)
	if err != nil {
		return nil, err
	}
	for i, n := range p.nodes {
		if !representable(n.weight) {
			return nil, &Error{Code: CodeInvalidView, Field: "initial.weight", Index: i, Reason: FaultNotRepresentable}
		}
	}
	return &SlotHistory{initial: p, epoch: epoch, table: t}, nil
}

// push applies c to the table in place and records it; on an error the history is unchanged
// (a table change checks everything before it changes anything).
func (s *SlotHistory) push(c slotChange) error {
	at := len(s.changes)
	if at >= hrwview.MaxChanges {
		return &Error{Code: CodeInvalidView, Field: "changes", Index: at, Reason: FaultOutOfRange}
	}
	if c.op != hrwview.OpRemove && !representable(c.node.weight) {
		return &Error{Code: CodeInvalidView, Field: "changes.weight", Index: at, Reason: FaultNotRepresentable}
	}
	t := s.table
	var err error
	switch c.op {
	case hrwview.OpAdd:
		if err = t.AddNode(c.node.public()); err != nil {
			if e, ok := err.(*Error); ok && (e.Code == CodeEmptyNodeID || e.Code == CodeDuplicateNodeID) {
				e.Index = at
			}
		}
	case hrwview.OpRemove:
		err = t.RemoveNode(c.node.id)
	default:
		err = t.SetWeight(c.node.id, c.node.weight)
	}
	if err != nil {
		return err
	}
	s.changes = append(s.changes, c)
	return nil
}

func (s *SlotHistory) with(c slotChange) (*SlotHistory, error) {
	next := &SlotHistory{initial: s.initial, epoch: s.epoch, changes: slices.Clip(s.changes), table: s.table.clone()}
	if err := next.push(c); err != nil {
		return nil, err
	}
	return next, nil
}

// JSON is the canonical form (SLOT-HISTORY.md section 3), ending in a line feed.
func (s *SlotHistory) JSON() ([]byte, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	changes := make([]hrwview.Weighted, len(s.changes))
	ops := make([]string, len(s.changes))
	for i, c := range s.changes {
		changes[i] = weightedNode(c.node)
		ops[i] = c.op
	}
	seed := s.initial.seed
	return hrwview.HistoryJSON(s.epoch, seed != DefaultSeed(), hrwview.SeedFingerprint(seed),
		uint64(len(s.table.table)), weighted(s.initial), changes, ops), nil
}

// Epoch is the history's epoch, that of its final membership's view.
func (s *SlotHistory) Epoch() uint64 {
	if s.usable() != nil {
		return 0
	}
	return s.epoch
}

// ChangeCount is the number of changes.
func (s *SlotHistory) ChangeCount() int {
	if s.usable() != nil {
		return 0
	}
	return len(s.changes)
}

// TableFingerprint is the 16-byte table fingerprint (SLOT-HISTORY.md 4.1).
func (s *SlotHistory) TableFingerprint() [16]byte {
	var f [16]byte
	if s.usable() != nil {
		return f
	}
	p := s.table.p
	byID := make([]int, len(p.nodes))
	for i := range byID {
		byID[i] = i
	}
	sort.Slice(byID, func(a, b int) bool { return p.nodes[byID[a]].id < p.nodes[byID[b]].id })
	rank := make([]uint32, len(p.nodes))
	for r, i := range byID {
		rank[i] = uint32(r)
	}
	h := sha256.New()
	var buf [8]byte
	h.Write(binary.LittleEndian.AppendUint64(buf[:0], uint64(len(LevelledSlotsPolicy))))
	h.Write([]byte(LevelledSlotsPolicy))
	vfp := hrwview.Fingerprint(hrwview.SeedFingerprint(p.seed), weighted(p))
	h.Write(vfp[:])
	h.Write(binary.LittleEndian.AppendUint64(buf[:0], uint64(len(s.table.table))))
	for _, o := range s.table.table {
		h.Write(binary.LittleEndian.AppendUint32(buf[:0], rank[o]))
	}
	copy(f[:], h.Sum(nil))
	return f
}

// TableFingerprintHex is the table fingerprint as 32 lowercase hex digits.
func (s *SlotHistory) TableFingerprintHex() string {
	f := s.TableFingerprint()
	return hex.EncodeToString(f[:])
}

// View is the final membership as a view at the history's epoch.
func (s *SlotHistory) View() (*View, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return NewView(s.table.p, s.epoch)
}

// Table is the table the changes lead to (a copy: changing it leaves the history as it is).
func (s *SlotHistory) Table() (*LevelledSlotTable, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.table.clone(), nil
}

// WithNode returns the history with one more change: n appended. ErrEmptyNodeID and
// ErrDuplicateNodeID have Index the change's position; ErrInvalidWeight.
func (s *SlotHistory) WithNode(n Node) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	r := resolve(n)
	if _, ok := hrw.FixedWeight(r.weight); !ok {
		return nil, &Error{Code: CodeInvalidWeight, Index: len(s.changes), Weight: r.weight}
	}
	return s.with(slotChange{op: hrwview.OpAdd, node: r})
}

// WithoutNode returns the history with one more change: the node of this id removed
// (ErrUnknownNode, ErrEmptyMembership, ErrAllWeightsZero).
func (s *SlotHistory) WithoutNode(id string) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.with(slotChange{op: hrwview.OpRemove, node: node{id: id}})
}

// WithWeight returns the history with one more change: the node of this id at another weight.
// As Placement.WithWeight, the node is looked up first in the current membership
// (ErrUnknownNode), then the weight is checked (ErrInvalidWeight, with the change's position in
// the history as Index), then the table's errors (ErrAllWeightsZero).
func (s *SlotHistory) WithWeight(id string, weight float64) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if _, ok := s.table.p.Find(id); !ok {
		return nil, &Error{Code: CodeUnknownNode, ID: id}
	}
	if _, ok := hrw.FixedWeight(weight); !ok {
		return nil, &Error{Code: CodeInvalidWeight, Index: len(s.changes), Weight: weight}
	}
	return s.with(slotChange{op: hrwview.OpWeight, node: node{id: id, weight: weight}})
}
