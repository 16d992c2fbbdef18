package hrwhash

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"

	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// SlotTableFromJSON loads a slot table's document (conformance/SLOT-HISTORY.md) and replays its
// changes, placing keys with the seed of WithSeed (the default seed without it). The errors, in
// the order SLOT-HISTORY.md section 5 checks them: ErrInvalidJSON, ErrInvalidView (Field such
// as "changes.op", Index the position in "initial" or "changes" or -1, Reason),
// ErrInvalidSlotCount (Slots), the membership errors of "initial", ErrSeedMismatch, then the
// first failing change's error (ErrEmptyNodeID and ErrDuplicateNodeID with Index the change's
// position, ErrUnknownNode, ErrEmptyMembership, ErrAllWeightsZero), with ErrResultTooLarge for a
// history whose replay would cost more than maxSlotTableReplayCost.
func SlotTableFromJSON(doc []byte, opts ...Option) (*SlotTable, error) {
	cfg := config{seed: DefaultSeed()}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
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
	changes := make([]slotChange, len(d.Changes))
	for i, c := range d.Changes {
		changes[i] = slotChange{op: c.Op, node: viewNode(c.Node)}
	}
	if d.Policy == hrwview.RankedPolicy {
		return replayRanked(initial, d, changes)
	}
	// Every levelled change costs at least slots + 1: past the cap on that count alone, the
	// history fails before its first table is built (SLOT-HISTORY.md section 5, check 13).
	if d.Slots+1 != 0 && uint64(len(changes)) > maxSlotTableReplayCost/(d.Slots+1) {
		return nil, &Error{Code: CodeResultTooLarge}
	}
	t, err := NewSlotTable(initial, d.Slots, WithEpoch(d.Epoch))
	if err != nil {
		return nil, err
	}
	t.changes = make([]slotChange, 0, len(changes))
	for _, c := range changes {
		if err := t.push(c); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// replayRanked loads a ranked table: its table depends only on the final membership, so the
// changes replay on the membership alone and the table is built once, at the end.
func replayRanked(initial *Placement, d *hrwview.History, changes []slotChange) (*SlotTable, error) {
	p := initial
	var cost uint64
	for i, c := range changes {
		var err error
		if cost, err = charged(cost, SlotModeRanked, int(d.Slots), p.Len()); err != nil {
			return nil, err
		}
		if p, err = (&ranked{p: p}).membership(c); err != nil {
			return nil, atChange(err, i)
		}
	}
	r, err := newRanked(p, d.Slots, d.OverloadPPM)
	if err != nil {
		return nil, err
	}
	return &SlotTable{mode: SlotModeRanked, initial: initial, epoch: d.Epoch, changes: changes, cost: cost, lay: r}, nil
}

func viewNode(n hrwview.Node) node {
	return node{id: n.ID, weight: n.Weight, domain: n.Domain, hasDomain: n.HasDomain}
}

// ToJSON is the canonical form of the table's document (SLOT-HISTORY.md section 3), ending in a
// line feed. A secret seed is never written, only its fingerprint.
func (t *SlotTable) ToJSON() ([]byte, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	changes := make([]hrwview.Weighted, len(t.changes))
	ops := make([]string, len(t.changes))
	for i, c := range t.changes {
		changes[i] = weightedNode(c.node)
		ops[i] = c.op
	}
	seed := t.initial.seed
	ppm, bounded := t.OverloadPPM()
	var overload *uint32
	if bounded {
		overload = &ppm
	}
	return hrwview.HistoryJSON(t.mode.Policy(), overload, t.epoch, seed != DefaultSeed(), hrwview.SeedFingerprint(seed),
		uint64(t.Slots()), weighted(t.initial), changes, ops), nil
}

// Fingerprint is the 16-byte table fingerprint (SLOT-HISTORY.md 4.1): equal fingerprints mean
// the same mode and bound, seed, nodes and slot count, and every slot on the same node id,
// whatever the changes that led there. Zero for a nil SlotTable.
func (t *SlotTable) Fingerprint() [16]byte {
	var f [16]byte
	if t.usable() != nil {
		return f
	}
	p := t.lay.placement()
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
	policy := t.mode.Policy()
	h.Write(binary.LittleEndian.AppendUint64(buf[:0], uint64(len(policy))))
	h.Write([]byte(policy))
	if t.mode == SlotModeRanked {
		// The bound, with a flag so that no bound differs from every value.
		ppm, bounded := t.OverloadPPM()
		flag := byte(0)
		if bounded {
			flag = 1
		}
		h.Write([]byte{flag})
		h.Write(binary.LittleEndian.AppendUint32(buf[:0], ppm))
	}
	vfp := hrwview.Fingerprint(hrwview.SeedFingerprint(p.seed), weighted(p))
	h.Write(vfp[:])
	table := t.lay.owners()
	h.Write(binary.LittleEndian.AppendUint64(buf[:0], uint64(len(table))))
	for _, o := range table {
		h.Write(binary.LittleEndian.AppendUint32(buf[:0], rank[o]))
	}
	copy(f[:], h.Sum(nil))
	return f
}

// FingerprintHex is Fingerprint as 32 lowercase hex digits.
func (t *SlotTable) FingerprintHex() string {
	f := t.Fingerprint()
	return hex.EncodeToString(f[:])
}

// View is the current membership as a view at the table's epoch: a client that also loads the
// published view of a fleet checks that the table ends at it by comparing view fingerprints.
func (t *SlotTable) View() (*View, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return NewView(t.lay.placement(), t.epoch)
}
