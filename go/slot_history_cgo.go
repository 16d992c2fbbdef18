//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <stdlib.h>
#include <hrwhash.h>
*/
import "C"

import (
	"encoding/hex"
	"runtime"
	"unsafe"
)

// SlotHistoryFormat is the format tag of a slot history document (conformance/SLOT-HISTORY.md).
const SlotHistoryFormat = "hrwhash-slot-history-v1"

// SlotHistory is the shared history of a LevelledSlotTable (conformance/SLOT-HISTORY.md): the
// first membership, the number of slots and the ordered changes, as one JSON document. Every
// client that loads the same history holds the same table; TableFingerprintHex compares tables
// cheaply. It never changes; WithNode, WithoutNode and WithWeight return a longer history. It
// needs libhrwhash, so only the cgo build has it; it is safe for concurrent use.
type SlotHistory struct {
	h *C.hrw_slot_history
}

func wrapSlotHistory(h *C.hrw_slot_history) *SlotHistory {
	s := &SlotHistory{h: h}
	runtime.SetFinalizer(s, func(s *SlotHistory) { C.hrw_slot_history_free(s.h) })
	return s
}

func (s *SlotHistory) usable() error {
	if s == nil || s.h == nil {
		return &Error{Code: CodeNullParameter}
	}
	return nil
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
	var h *C.hrw_slot_history
	var d C.hrw_error
	st := C.hrw_slot_history_from_json(bytesPtr(doc), C.size_t(len(doc)), seedPtr(&cfg.seed), SeedLen, &h, &d)
	runtime.KeepAlive(doc)
	if st != C.HRW_STATUS_OK {
		err := detailError(st, &d)
		if st == C.HRW_STATUS_INVALID_SLOT_COUNT {
			err.(*Error).Slots = uint64(d.actual)
		}
		return nil, err
	}
	return wrapSlotHistory(h), nil
}

// NewSlotHistory starts a history with no change: the first table of p with slots slots (1 to
// MaxSlots, else ErrInvalidSlotCount), at epoch.
func NewSlotHistory(p *Placement, slots, epoch uint64) (*SlotHistory, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var h *C.hrw_slot_history
	var d C.hrw_error
	st := C.hrw_slot_history_new(p.b.h, C.uint64_t(slots), C.uint64_t(epoch), &h, &d)
	runtime.KeepAlive(p.b)
	if st != C.HRW_STATUS_OK {
		err := detailError(st, &d)
		if st == C.HRW_STATUS_INVALID_SLOT_COUNT {
			err.(*Error).Slots = slots
		}
		return nil, err
	}
	return wrapSlotHistory(h), nil
}

// JSON is the canonical form (SLOT-HISTORY.md section 3), ending in a line feed.
func (s *SlotHistory) JSON() ([]byte, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var n C.size_t
	var d C.hrw_error
	C.hrw_slot_history_to_json(s.h, nil, 0, &n, &d)
	buf := make([]byte, int(d.expected))
	st := C.hrw_slot_history_to_json(s.h, bytesPtr(buf), C.size_t(len(buf)), &n, &d)
	runtime.KeepAlive(s)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &d)
	}
	return buf[:int(n)], nil
}

// Epoch is the history's epoch, that of its final membership's view.
func (s *SlotHistory) Epoch() uint64 {
	e, _ := s.counts()
	return e
}

// ChangeCount is the number of changes.
func (s *SlotHistory) ChangeCount() int {
	_, c := s.counts()
	return c
}

func (s *SlotHistory) counts() (uint64, int) {
	if s.usable() != nil {
		return 0, 0
	}
	var e C.uint64_t
	var c C.size_t
	C.hrw_slot_history_counts(s.h, &e, &c)
	runtime.KeepAlive(s)
	return uint64(e), int(c)
}

// TableFingerprint is the 16-byte table fingerprint (SLOT-HISTORY.md 4.1).
func (s *SlotHistory) TableFingerprint() [16]byte {
	var f [16]byte
	if s.usable() == nil {
		C.hrw_slot_history_table_fingerprint(s.h, (*C.uint8_t)(unsafe.Pointer(&f[0])), C.size_t(len(f)))
		runtime.KeepAlive(s)
	}
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
	var h *C.hrw_view
	if st := C.hrw_slot_history_view(s.h, &h); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	runtime.KeepAlive(s)
	return wrapView(h)
}

// Table is the table the changes lead to.
func (s *SlotHistory) Table() (*LevelledSlotTable, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var h *C.hrw_levelled_slot_table
	if st := C.hrw_slot_history_table(s.h, &h); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	runtime.KeepAlive(s)
	var ph *C.hrw_placement
	if st := C.hrw_levelled_slot_table_placement(h, &ph); st != C.HRW_STATUS_OK {
		C.hrw_levelled_slot_table_free(h)
		return nil, statusError(st)
	}
	p, err := placementOf(ph)
	if err != nil {
		C.hrw_levelled_slot_table_free(h)
		return nil, err
	}
	return newLevelledSlotTable(h, p), nil
}

// WithNode returns the history with one more change: n appended. ErrEmptyNodeID and
// ErrDuplicateNodeID have Index the change's position; ErrInvalidWeight.
func (s *SlotHistory) WithNode(n Node) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	w := 1.0
	if n.Weight != nil {
		w = *n.Weight
	}
	size := len(n.ID) + len(n.Domain) + 1
	// hrw_node holds pointers, so what it points to lives in C memory (cgo's pointer rules).
	data := (*C.uint8_t)(C.malloc(C.size_t(size)))
	if data == nil {
		return nil, &Error{Code: CodeResultTooLarge}
	}
	defer C.free(unsafe.Pointer(data))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), size)
	copy(buf, n.ID)
	copy(buf[len(n.ID):], n.Domain)
	cn := C.hrw_node{id: data, id_len: C.size_t(len(n.ID))}
	if n.HasDomain || n.Domain != "" {
		cn.domain = (*C.uint8_t)(unsafe.Pointer(&buf[len(n.ID)]))
		cn.domain_len = C.size_t(len(n.Domain))
	}
	var h *C.hrw_slot_history
	var d C.hrw_error
	st := C.hrw_slot_history_with_node(s.h, &cn, C.double(w), &h, &d)
	runtime.KeepAlive(s)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &d)
	}
	return wrapSlotHistory(h), nil
}

// WithoutNode returns the history with one more change: the node of this id removed
// (ErrUnknownNode, ErrEmptyMembership, ErrAllWeightsZero).
func (s *SlotHistory) WithoutNode(id string) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var h *C.hrw_slot_history
	var d C.hrw_error
	st := C.hrw_slot_history_without_node(s.h, keyPtr(id), C.size_t(len(id)), &h, &d)
	runtime.KeepAlive(s)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &d)
	}
	return wrapSlotHistory(h), nil
}

// WithWeight returns the history with one more change: the node of this id at another weight.
// As Placement.WithWeight, the node is looked up first in the current membership
// (ErrUnknownNode), then the weight is checked (ErrInvalidWeight, with the change's position in
// the history as Index), then the table's errors (ErrAllWeightsZero).
func (s *SlotHistory) WithWeight(id string, weight float64) (*SlotHistory, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var h *C.hrw_slot_history
	var d C.hrw_error
	st := C.hrw_slot_history_with_weight(s.h, keyPtr(id), C.size_t(len(id)), C.double(weight), &h, &d)
	runtime.KeepAlive(s)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &d)
	}
	return wrapSlotHistory(h), nil
}
