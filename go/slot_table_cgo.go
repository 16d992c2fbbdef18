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

// SlotTablePolicy is the name and version of the policy SlotTable implements, as written in
// conformance/POLICIES.md.
const SlotTablePolicy = "slot-table-v1"

// MaxSlots is the largest number of slots a SlotTable takes (2^24).
const MaxSlots = 1 << 24

// SlotTable is the slot-table-v1 policy (conformance/POLICIES.md, "slot-table (v1)"): keys hash
// to a fixed number of slots and each slot has an owner, so an owner lookup is one key digest
// and one array read whatever the number of nodes. It never changes; WithNode, WithoutNode and
// WithWeight compute a new table from this one, which is the table a fresh build over the new
// membership gives. It needs libhrwhash, so only the cgo build has it; it is safe for concurrent
// use.
type SlotTable struct {
	h        *C.hrw_slot_table
	p        *Placement
	slots    int
	overload *uint32
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
	var ppm *C.uint32_t
	if cfg.overload != nil {
		v := C.uint32_t(*cfg.overload)
		ppm = &v
	}
	var h *C.hrw_slot_table
	var d C.hrw_error
	st := C.hrw_slot_table_new(p.b.h, C.uint64_t(slots), ppm, &h, &d)
	runtime.KeepAlive(p.b)
	if st != C.HRW_STATUS_OK {
		err := &Error{Code: Code(st)}
		if st == C.HRW_STATUS_INVALID_SLOT_COUNT {
			err.Slots = slots
		}
		return nil, err
	}
	return newSlotTable(h, p, cfg.overload), nil
}

func newSlotTable(h *C.hrw_slot_table, p *Placement, overload *uint32) *SlotTable {
	var n C.uint32_t
	C.hrw_slot_table_slots(h, &n)
	t := &SlotTable{h: h, p: p, slots: int(n), overload: overload}
	runtime.SetFinalizer(t, func(t *SlotTable) { C.hrw_slot_table_free(t.h) })
	return t
}

func (t *SlotTable) usable() error {
	if t == nil || t.h == nil {
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
	return t.slots
}

// OverloadPPM is the overload bound in parts per million, and false for the plain HRW table.
func (t *SlotTable) OverloadPPM() (uint32, bool) {
	if t == nil || t.overload == nil {
		return 0, false
	}
	return *t.overload, true
}

// Slot returns the slot of key.
func (t *SlotTable) Slot(key string) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var s C.uint32_t
	st := C.hrw_slot_table_slot(t.h, keyPtr(key), C.size_t(len(key)), &s)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return int(s), nil
}

// Owner returns the index of the node that owns key: the owner of its slot.
func (t *SlotTable) Owner(key string) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var i C.size_t
	st := C.hrw_slot_table_owner(t.h, keyPtr(key), C.size_t(len(key)), &i)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return int(i), nil
}

// OwnerOfSlot returns the index of the node that owns slot; ErrSlotOutOfRange (with Slot and
// Slots) when slot is not below Slots().
func (t *SlotTable) OwnerOfSlot(slot uint64) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	var i C.size_t
	st := C.hrw_slot_table_owner_of_slot(t.h, C.uint64_t(slot), &i)
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
func (t *SlotTable) Assignments() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	owners := make([]uint32, t.slots)
	st := C.hrw_slot_table_assignments(t.h, (*C.uint32_t)(unsafe.Pointer(unsafe.SliceData(owners))),
		C.size_t(len(owners)))
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	out := make([]int, len(owners))
	for i, o := range owners {
		out[i] = int(o)
	}
	return out, nil
}

// SlotCounts returns how many slots each node holds, in node order.
func (t *SlotTable) SlotCounts() ([]int, error) {
	owners, err := t.Assignments()
	if err != nil {
		return nil, err
	}
	counts := make([]int, t.p.Len())
	for _, o := range owners {
		counts[o]++
	}
	return counts, nil
}

// Capacities returns the most slots each node may hold, in node order.
func (t *SlotTable) Capacities() ([]int, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	caps := make([]int, t.p.Len())
	for i := range caps {
		var c C.uint32_t
		st := C.hrw_slot_table_capacity(t.h, C.size_t(i), &c)
		if st != C.HRW_STATUS_OK {
			return nil, statusError(st)
		}
		caps[i] = int(c)
	}
	runtime.KeepAlive(t)
	return caps, nil
}

// WithNode returns the table with one more node, appended (it gets index Placement().Len()),
// computed from this one. The errors are those of Placement.WithNode.
func (t *SlotTable) WithNode(n Node) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	// The new membership first: it checks the node exactly as Placement.WithNode does.
	p, err := t.p.WithNode(n)
	if err != nil {
		return nil, err
	}
	added := p.nodes[len(p.nodes)-1]
	// hrw_node holds pointers, so what it points to lives in C memory (cgo's pointer rules).
	data := (*C.uint8_t)(C.malloc(C.size_t(len(added.id) + len(added.domain) + 1)))
	if data == nil {
		return nil, &Error{Code: CodeResultTooLarge}
	}
	defer C.free(unsafe.Pointer(data))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), len(added.id)+len(added.domain)+1)
	copy(buf, added.id)
	copy(buf[len(added.id):], added.domain)
	cn := C.hrw_node{id: data, id_len: C.size_t(len(added.id))}
	if added.hasDomain {
		cn.domain = (*C.uint8_t)(unsafe.Pointer(&buf[len(added.id)]))
		cn.domain_len = C.size_t(len(added.domain))
	}
	var h *C.hrw_slot_table
	var d C.hrw_error
	st := C.hrw_slot_table_with_node(t.h, &cn, C.double(added.weight), &h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), Index: int(d.index)}
	}
	return newSlotTable(h, p, t.overload), nil
}

// WithoutNode returns the table without the node of this id (later indices shift down by one),
// computed from this one; ErrUnknownNode when there is no such node.
func (t *SlotTable) WithoutNode(id string) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithoutNode(id)
	if err != nil {
		return nil, err
	}
	var h *C.hrw_slot_table
	var d C.hrw_error
	st := C.hrw_slot_table_without_node(t.h, keyPtr(id), C.size_t(len(id)), &h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), ID: id}
	}
	return newSlotTable(h, p, t.overload), nil
}

// WithWeight returns the table where the node of this id has another weight (0 drains it),
// computed from this one. The errors are those of Placement.WithWeight.
func (t *SlotTable) WithWeight(id string, weight float64) (*SlotTable, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	p, err := t.p.WithWeight(id, weight)
	if err != nil {
		return nil, err
	}
	var h *C.hrw_slot_table
	var d C.hrw_error
	st := C.hrw_slot_table_with_weight(t.h, keyPtr(id), C.size_t(len(id)), C.double(weight), &h, &d)
	runtime.KeepAlive(t)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), Index: int(d.index), Weight: float64(d.value)}
	}
	return newSlotTable(h, p, t.overload), nil
}
