//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <stdlib.h>
#include <hrwhash.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// LevelledSlotsPolicy is the name and version of the policy LevelledSlotTable implements, as
// written in conformance/POLICIES.md.
const LevelledSlotsPolicy = "slot-table-v2"

// LevelledSlotTable is the slot-table-v2 policy (conformance/POLICIES.md, "slot-table-v2"):
// keys hash to a fixed number of slots and each slot has an owner, as in SlotTable, but a change
// moves only the changed node's slots while every node stays within about one slot of its share.
// The table therefore depends on the order of the changes: clients agree when they built the
// same first table and applied the same changes in the same order, not when they merely hold the
// same membership. WithNode, WithoutNode and WithWeight compute a new table from this one and
// leave it as it was; AddNode, RemoveNode and SetWeight make the same change to this table in
// place, without copying it. It needs libhrwhash, so only the cgo build has it. It is safe for
// concurrent use as long as no AddNode, RemoveNode or SetWeight runs at the same time as another
// method on the same table.
type LevelledSlotTable struct {
	h     *C.hrw_levelled_slot_table
	p     *Placement
	slots int
}

// NewLevelledSlotTable builds the first table of p with slots slots, 1 to MaxSlots (else
// ErrInvalidSlotCount, with Slots the number given). The table keeps its own copy of the
// membership.
func NewLevelledSlotTable(p *Placement, slots uint64) (*LevelledSlotTable, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var h *C.hrw_levelled_slot_table
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_new(p.b.h, C.uint64_t(slots), &h, &d)
	runtime.KeepAlive(p.b)
	if st != C.HRW_STATUS_OK {
		err := &Error{Code: Code(st)}
		if st == C.HRW_STATUS_INVALID_SLOT_COUNT {
			err.Slots = slots
		}
		return nil, err
	}
	return newLevelledSlotTable(h, p), nil
}

func newLevelledSlotTable(h *C.hrw_levelled_slot_table, p *Placement) *LevelledSlotTable {
	var n C.uint32_t
	C.hrw_levelled_slot_table_slots(h, &n)
	t := &LevelledSlotTable{h: h, p: p, slots: int(n)}
	runtime.SetFinalizer(t, func(t *LevelledSlotTable) { C.hrw_levelled_slot_table_free(t.h) })
	return t
}

func (t *LevelledSlotTable) usable() error {
	if t == nil || t.h == nil {
		return &Error{Code: CodeNullParameter}
	}
	return nil
}

// Placement is the table's membership: its indices are the ones the table answers with.
func (t *LevelledSlotTable) Placement() *Placement {
	if t == nil {
		return nil
	}
	return t.p
}

// Slots is the number of slots (0 for a zero LevelledSlotTable).
func (t *LevelledSlotTable) Slots() int {
	if t == nil {
		return 0
	}
	return t.slots
}

// Slot returns the slot of key.
func (t *LevelledSlotTable) Slot(key string) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var s C.uint32_t
	st := C.hrw_levelled_slot_table_slot(t.h, keyPtr(key), C.size_t(len(key)), &s)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return int(s), nil
}

// Owner returns the index of the node that owns key: the owner of its slot.
func (t *LevelledSlotTable) Owner(key string) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var i C.size_t
	st := C.hrw_levelled_slot_table_owner(t.h, keyPtr(key), C.size_t(len(key)), &i)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return int(i), nil
}

// OwnerOfSlot returns the index of the node that owns slot; ErrSlotOutOfRange (with Slot and
// Slots) when slot is not below Slots().
func (t *LevelledSlotTable) OwnerOfSlot(slot uint64) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var i C.size_t
	st := C.hrw_levelled_slot_table_owner_of_slot(t.h, C.uint64_t(slot), &i)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		err := &Error{Code: Code(st)}
		if st == C.HRW_STATUS_SLOT_OUT_OF_RANGE {
			err.Slot, err.Slots = slot, uint64(t.slots)
		}
		return 0, err
	}
	return int(i), nil
}

// Assignments returns the owner of every slot as a node index, slot 0 first.
func (t *LevelledSlotTable) Assignments() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	owners := make([]uint32, t.slots)
	st := C.hrw_levelled_slot_table_assignments(t.h,
		(*C.uint32_t)(unsafe.Pointer(unsafe.SliceData(owners))), C.size_t(len(owners)))
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return widen(owners), nil
}

// SlotCounts returns how many slots each node holds, in node order.
func (t *LevelledSlotTable) SlotCounts() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	counts := make([]uint32, t.p.Len())
	st := C.hrw_levelled_slot_table_slot_counts(t.h,
		(*C.uint32_t)(unsafe.Pointer(unsafe.SliceData(counts))), C.size_t(len(counts)))
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return widen(counts), nil
}

func widen(v []uint32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// WithNode returns the table with one more node, appended (it gets index Placement().Len()),
// computed from this one: the node takes its share one slot at a time from the most loaded
// nodes. The errors are those of Placement.WithNode.
func (t *LevelledSlotTable) WithNode(n Node) (*LevelledSlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	// The new membership first: it checks the node exactly as Placement.WithNode does.
	p, err := t.p.WithNode(n)
	if err != nil {
		return nil, err
	}
	cn, free, err := cNode(p.nodes[len(p.nodes)-1])
	if err != nil {
		return nil, err
	}
	defer free()
	var h *C.hrw_levelled_slot_table
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_with_node(t.h, &cn, C.double(p.nodes[len(p.nodes)-1].weight), &h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), Index: int(d.index)}
	}
	return newLevelledSlotTable(h, p), nil
}

// cNode is n as an hrw_node: hrw_node holds pointers, so what it points to lives in C memory
// (cgo's pointer rules) until free is called.
func cNode(n node) (C.hrw_node, func(), error) {
	data := (*C.uint8_t)(C.malloc(C.size_t(len(n.id) + len(n.domain) + 1)))
	if data == nil {
		return C.hrw_node{}, nil, &Error{Code: CodeResultTooLarge}
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), len(n.id)+len(n.domain)+1)
	copy(buf, n.id)
	copy(buf[len(n.id):], n.domain)
	cn := C.hrw_node{id: data, id_len: C.size_t(len(n.id))}
	if n.hasDomain {
		cn.domain = (*C.uint8_t)(unsafe.Pointer(&buf[len(n.id)]))
		cn.domain_len = C.size_t(len(n.domain))
	}
	return cn, func() { C.free(unsafe.Pointer(data)) }, nil
}

// WithoutNode returns the table without the node of this id (later indices shift down by one),
// computed from this one: its slots go one at a time to the least loaded nodes. ErrUnknownNode
// when there is no such node, and the errors of Placement.WithoutNode.
func (t *LevelledSlotTable) WithoutNode(id string) (*LevelledSlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithoutNode(id)
	if err != nil {
		return nil, err
	}
	var h *C.hrw_levelled_slot_table
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_without_node(t.h, keyPtr(id), C.size_t(len(id)), &h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), ID: id}
	}
	return newLevelledSlotTable(h, p), nil
}

// WithWeight returns the table where the node of this id has another weight (0 drains it),
// computed from this one: the node takes or gives slots until it holds its new share. The
// errors are those of Placement.WithWeight.
func (t *LevelledSlotTable) WithWeight(id string, weight float64) (*LevelledSlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithWeight(id, weight)
	if err != nil {
		return nil, err
	}
	var h *C.hrw_levelled_slot_table
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_with_weight(t.h, keyPtr(id), C.size_t(len(id)), C.double(weight),
		&h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), Index: int(d.index), Weight: float64(d.value)}
	}
	return newLevelledSlotTable(h, p), nil
}

// AddNode appends n to this table in place (it gets index Placement().Len()): the table becomes
// the one WithNode(n) returns, without copying it. On an error (those of Placement.WithNode) the
// table is unchanged. A Placement() taken before keeps the old membership.
func (t *LevelledSlotTable) AddNode(n Node) error {
	if err := t.usable(); err != nil {
		return err
	}
	p, err := t.p.WithNode(n)
	if err != nil {
		return err
	}
	added := p.nodes[len(p.nodes)-1]
	cn, free, err := cNode(added)
	if err != nil {
		return err
	}
	defer free()
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_add_node(t.h, &cn, C.double(added.weight), &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return &Error{Code: Code(st), Index: int(d.index)}
	}
	t.p = p
	return nil
}

// RemoveNode removes the node of this id from this table in place (later indices shift down by
// one): the table becomes the one WithoutNode(id) returns, without copying it. On an error
// (ErrUnknownNode, those of Placement.WithoutNode) the table is unchanged.
func (t *LevelledSlotTable) RemoveNode(id string) error {
	if err := t.usable(); err != nil {
		return err
	}
	p, err := t.p.WithoutNode(id)
	if err != nil {
		return err
	}
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_remove_node(t.h, keyPtr(id), C.size_t(len(id)), &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return &Error{Code: Code(st), ID: id}
	}
	t.p = p
	return nil
}

// SetWeight gives the node of this id another weight in this table, in place: the table becomes
// the one WithWeight(id, weight) returns, without copying it. On an error (those of
// Placement.WithWeight) the table is unchanged.
func (t *LevelledSlotTable) SetWeight(id string, weight float64) error {
	if err := t.usable(); err != nil {
		return err
	}
	p, err := t.p.WithWeight(id, weight)
	if err != nil {
		return err
	}
	var d C.hrw_error
	st := C.hrw_levelled_slot_table_set_weight(t.h, keyPtr(id), C.size_t(len(id)), C.double(weight), &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return &Error{Code: Code(st), Index: int(d.index), Weight: float64(d.value)}
	}
	t.p = p
	return nil
}
