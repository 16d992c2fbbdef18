//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <stdlib.h>
#include <hrwhash.h>
*/
import "C"

import (
	"runtime"
	"strings"
	"unsafe"

	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// detailError is the *Error of a failed call that filled an hrw_error.
func detailError(st C.hrw_status, d *C.hrw_error) error {
	e := &Error{
		Code:       Code(st),
		Index:      int(d.index),
		FirstIndex: int(d.first_index),
		Expected:   int(d.expected),
		Actual:     int(d.actual),
		Line:       int(d.line),
		Column:     int(d.column),
	}
	switch st {
	case C.HRW_STATUS_INVALID_WEIGHT:
		e.Weight = float64(d.value)
	case C.HRW_STATUS_INVALID_MOVE_LIMIT:
		e.MaxMove = float64(d.value)
	case C.HRW_STATUS_INVALID_VIEW:
		kept := min(int(d.field_len), C.HRW_ERROR_FIELD_SIZE-1)
		e.Field = string(C.GoBytes(unsafe.Pointer(&d.field[0]), C.int(kept)))
		e.Reason = ViewFault(C.GoString(C.hrw_view_fault_name(C.uint32_t(d.reason))))
		if !bool(d.has_index) {
			e.Index = -1
		}
	}
	return e
}

// bytesPtr is the C view of b; NULL for an empty slice (the C ABI takes NULL with length 0).
func bytesPtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

type viewBackend struct {
	h *C.hrw_view
}

// wrapView takes ownership of h and reads what the View keeps at hand.
func wrapView(h *C.hrw_view) (*View, error) {
	b := &viewBackend{h: h}
	runtime.SetFinalizer(b, func(b *viewBackend) { C.hrw_view_free(b.h) })
	v := &View{b: b}
	var figures C.hrw_view_figures
	if st := C.hrw_view_summary(h, &figures); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	v.epoch = uint64(figures.epoch)
	for i := range v.fingerprint {
		v.fingerprint[i] = byte(figures.fingerprint[i])
	}
	for i := range v.seedFingerprint {
		v.seedFingerprint[i] = byte(figures.seed_fingerprint[i])
	}
	var ph *C.hrw_placement
	if st := C.hrw_view_placement(h, &ph); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	p, err := placementOf(ph)
	runtime.KeepAlive(b)
	if err != nil {
		return nil, err
	}
	v.placement = p
	return v, nil
}

// placementOf is the Go Placement of a C placement, which it takes over (freeing it on an
// error): lookups go to that placement, which shares the view's nodes, and the Go side keeps the
// ids, weights and domains its accessors answer with. Building a second libhrwhash placement from
// them would hold every node twice more.
func placementOf(ph *C.hrw_placement) (p *Placement, err error) {
	defer func() {
		if err != nil {
			C.hrw_placement_free(ph)
		}
	}()
	var n C.size_t
	if st := C.hrw_placement_len(ph, &n, nil); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	var seed Seed
	if st := C.hrw_placement_seed(ph, seedPtr(&seed), SeedLen); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	nodes := make([]node, int(n))
	for i := range nodes {
		var n C.hrw_node
		var weight C.double
		if st := C.hrw_placement_node(ph, C.size_t(i), &n, &weight); st != C.HRW_STATUS_OK {
			return nil, statusError(st)
		}
		nodes[i] = node{id: C.GoStringN((*C.char)(unsafe.Pointer(n.id)), C.int(n.id_len)), weight: float64(weight)}
		// A NULL domain is none; a non-NULL one, even of length 0, is a domain.
		if n.domain != nil {
			nodes[i].hasDomain = true
			nodes[i].domain = C.GoStringN((*C.char)(unsafe.Pointer(n.domain)), C.int(n.domain_len))
		}
	}
	b, selectable, err := wrapBackend(ph, seed, nodes)
	if err != nil {
		// wrapBackend owns ph from its call on, whatever it answers.
		ph = nil
		return nil, err
	}
	return &Placement{b: b, nodes: nodes, seed: seed, selectable: selectable, domains: domainCount(nodes)}, nil
}

func viewFromJSON(doc []byte, seed Seed) (*View, error) {
	var h *C.hrw_view
	var detail C.hrw_error
	st := C.hrw_view_from_json(bytesPtr(doc), C.size_t(len(doc)), seedPtr(&seed), SeedLen, &h, &detail)
	runtime.KeepAlive(doc)
	if st != C.HRW_STATUS_OK {
		err := detailError(st, &detail)
		if e := err.(*Error); e.Code == CodeInvalidView && int(detail.field_len) > len(e.Field) {
			e.Field = fullField(doc, e, int(detail.field_len))
		}
		return nil, err
	}
	return wrapView(h)
}

// fullField recovers a member name longer than hrw_error.field holds: the Go implementation of
// VIEW.md (the pure-Go build's, held to the same answers by FuzzViewJSON and views.json) names
// the same member; it is used only when its name has the length and the start libhrwhash gave.
func fullField(doc []byte, e *Error, length int) string {
	g, ok := hrwview.ParseError(doc)
	if ok && g.Code == uint32(CodeInvalidView) && len(g.Field) == length && strings.HasPrefix(g.Field, e.Field) &&
		g.Index == e.Index && g.Reason == string(e.Reason) {
		return g.Field
	}
	return e.Field
}

func newView(p *Placement, epoch uint64) (*View, error) {
	var h *C.hrw_view
	var detail C.hrw_error
	st := C.hrw_view_new(p.b.h, C.uint64_t(epoch), &h, &detail)
	runtime.KeepAlive(p.b)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &detail)
	}
	return wrapView(h)
}

func (b *viewBackend) withEpoch(v *View, epoch uint64) (*View, error) {
	var h *C.hrw_view
	st := C.hrw_view_with_epoch(b.h, C.uint64_t(epoch), &h)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	nb := &viewBackend{h: h}
	runtime.SetFinalizer(nb, func(b *viewBackend) { C.hrw_view_free(b.h) })
	w := *v
	w.b = nb
	w.epoch = epoch
	return &w, nil
}

func (b *viewBackend) json() ([]byte, error) {
	var n, written C.size_t
	if st := C.hrw_view_to_json(b.h, nil, 0, &n, nil); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	out := make([]byte, int(n)+1) // +1: a valid pointer even for an empty answer
	var detail C.hrw_error
	st := C.hrw_view_to_json(b.h, (*C.uint8_t)(unsafe.Pointer(&out[0])), n, &written, &detail)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &detail)
	}
	return out[:int(written)], nil
}

type transitionBackend struct {
	h *C.hrw_transition
}

func newTransition(old, new *Placement) (*Transition, error) {
	var h *C.hrw_transition
	st := C.hrw_transition_new(old.b.h, new.b.h, &h)
	runtime.KeepAlive(old.b)
	runtime.KeepAlive(new.b)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	b := &transitionBackend{h: h}
	runtime.SetFinalizer(b, func(b *transitionBackend) { C.hrw_transition_free(b.h) })
	t := &Transition{b: b, old: old, new: new}
	var figures C.hrw_transition_figures
	if st := C.hrw_transition_summary(h, &figures); st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	runtime.KeepAlive(b)
	t.expectedMoved, t.optimum = float64(figures.expected_moved), float64(figures.optimum)
	return t, nil
}

func (b *transitionBackend) route(key string) (Route, error) {
	var r C.hrw_route
	st := C.hrw_transition_route(b.h, keyPtr(key), C.size_t(len(key)), &r)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return Route{}, statusError(st)
	}
	return Route{OldIndex: int(r.old_index), NewIndex: int(r.new_index), Moved: bool(r.moved)}, nil
}

func (b *transitionBackend) routeTop(t *Transition, key string, k int) (RouteSet, error) {
	capacity := max(min(k, t.old.SelectableLen()), min(k, t.new.SelectableLen()))
	buf := make([]int, 4*capacity)
	before, after, add, drop := buf[:capacity], buf[capacity:2*capacity], buf[2*capacity:3*capacity], buf[3*capacity:]
	var set C.hrw_route_set
	st := C.hrw_transition_route_top(b.h, keyPtr(key), C.size_t(len(key)), C.size_t(k),
		sizes(before), sizes(after), sizes(add), sizes(drop), C.size_t(capacity), &set)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return RouteSet{}, statusError(st)
	}
	return RouteSet{
		Before: before[:int(set.before_len):int(set.before_len)],
		After:  after[:int(set.after_len):int(set.after_len)],
		Add:    add[:int(set.add_len):int(set.add_len)],
		Drop:   drop[:int(set.drop_len):int(set.drop_len)],
	}, nil
}

func (b *transitionBackend) plan(keys []string) ([]Move, error) {
	batch := joinKeys(keys)
	moves := make([]C.hrw_move, len(keys))
	var n C.size_t
	st := C.hrw_transition_plan(b.h, batch.data(), C.size_t(batch.total), sizes(batch.lens),
		C.size_t(len(keys)), &moves[0], C.size_t(len(moves)), &n)
	runtime.KeepAlive(b)
	runtime.KeepAlive(batch)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	out := make([]Move, int(n))
	for i := range out {
		m := moves[i]
		out[i] = Move{Key: keys[int(m.key_index)], Index: int(m.key_index), From: int(m.from), To: int(m.to)}
	}
	return out, nil
}

func (b *transitionBackend) match(fromNew bool, i int) (int, bool) {
	var out C.size_t
	var st C.hrw_status
	if fromNew {
		st = C.hrw_transition_new_to_old(b.h, C.size_t(i), &out)
	} else {
		st = C.hrw_transition_old_to_new(b.h, C.size_t(i), &out)
	}
	runtime.KeepAlive(b)
	return int(out), st == C.HRW_STATUS_OK
}

type diffBackend struct {
	h *C.hrw_diff
	// k is the number of replicas compared per key (1 for a Diff of owners).
	top int
}

func (b *transitionBackend) diff(t *Transition) (*Diff, error) {
	var h *C.hrw_diff
	st := C.hrw_transition_diff(b.h, &h)
	return b.wrapDiff(t, h, 1, st)
}

func (b *transitionBackend) diffTop(t *Transition, k int) (*Diff, error) {
	var h *C.hrw_diff
	st := C.hrw_transition_diff_top(b.h, C.size_t(k), &h)
	return b.wrapDiff(t, h, k, st)
}

func (b *transitionBackend) wrapDiff(t *Transition, h *C.hrw_diff, k int, st C.hrw_status) (*Diff, error) {
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	db := &diffBackend{h: h, top: k}
	runtime.SetFinalizer(db, func(b *diffBackend) { C.hrw_diff_free(b.h) })
	return &Diff{b: db, t: t}, nil
}

func (b *diffBackend) k() int { return b.top }

// copies sums the moves of the rows: every added (dropped) copy is counted in one row.
func (b *diffBackend) copies(added bool) uint64 {
	var sum uint64
	for _, r := range b.nodes() {
		if added {
			sum += r.Added
		} else {
			sum += r.Dropped
		}
	}
	return sum
}

func (b *diffBackend) add(key string) error {
	n := C.size_t(len(key))
	st := C.hrw_diff_add_many(b.h, keyPtr(key), n, &n, 1)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return statusError(st)
	}
	return nil
}

func (b *diffBackend) addMany(keys []string) error {
	batch := joinKeys(keys)
	st := C.hrw_diff_add_many(b.h, batch.data(), C.size_t(batch.total), sizes(batch.lens), C.size_t(len(keys)))
	runtime.KeepAlive(b)
	runtime.KeepAlive(batch)
	if st != C.HRW_STATUS_OK {
		return statusError(st)
	}
	return nil
}

func (b *diffBackend) merge(other *diffBackend) error {
	st := C.hrw_diff_merge(b.h, other.h)
	runtime.KeepAlive(b)
	runtime.KeepAlive(other)
	if st != C.HRW_STATUS_OK {
		return statusError(st)
	}
	return nil
}

func (b *diffBackend) keys() uint64 {
	var f C.hrw_diff_figures
	C.hrw_diff_summary(b.h, &f)
	runtime.KeepAlive(b)
	return uint64(f.keys)
}

func (b *diffBackend) moved() uint64 {
	var f C.hrw_diff_figures
	C.hrw_diff_summary(b.h, &f)
	runtime.KeepAlive(b)
	return uint64(f.moved)
}

// diffRows is what fill (hrw_diff_flows or hrw_diff_nodes) gives: asked first for the count,
// then given room for it.
func diffRows[T any](b *diffBackend, fill func(rows *T, rowsLen C.size_t, n *C.size_t)) []T {
	var n C.size_t
	fill(nil, 0, &n)
	rows := make([]T, int(n)+1)
	fill(&rows[0], C.size_t(len(rows)), &n)
	runtime.KeepAlive(b)
	return rows[:int(n)]
}

func (b *diffBackend) flows() []Flow {
	rows := diffRows(b, func(rows *C.hrw_flow, rowsLen C.size_t, n *C.size_t) {
		C.hrw_diff_flows(b.h, rows, rowsLen, n)
	})
	out := make([]Flow, len(rows))
	for i := range out {
		out[i] = Flow{From: int(rows[i].from), To: int(rows[i].to), Count: uint64(rows[i].count)}
	}
	return out
}

func (b *diffBackend) nodes() []NodeChange {
	rows := diffRows(b, func(rows *C.hrw_node_change, rowsLen C.size_t, n *C.size_t) {
		C.hrw_diff_nodes(b.h, rows, rowsLen, n)
	})
	added, dropped := make([]C.uint64_t, len(rows)+1), make([]C.uint64_t, len(rows)+1)
	var n C.size_t
	C.hrw_diff_node_moves(b.h, &added[0], &dropped[0], C.size_t(len(added)), &n)
	runtime.KeepAlive(b)
	out := make([]NodeChange, len(rows))
	for i := range out {
		r := rows[i]
		out[i] = NodeChange{OldIndex: -1, NewIndex: -1, Before: uint64(r.before), After: uint64(r.after),
			Added: uint64(added[i]), Dropped: uint64(dropped[i])}
		if bool(r.has_old) {
			out[i].OldIndex = int(r.old_index)
		}
		if bool(r.has_new) {
			out[i].NewIndex = int(r.new_index)
		}
	}
	return out
}

type rampBackend struct {
	h *C.hrw_ramp
}

func newRampPlan(old, new *View, maxMove float64) (*RampPlan, error) {
	var h *C.hrw_ramp
	var detail C.hrw_error
	st := C.hrw_ramp_new(old.b.h, new.b.h, C.double(maxMove), &h, &detail)
	runtime.KeepAlive(old.b)
	runtime.KeepAlive(new.b)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &detail)
	}
	b := &rampBackend{h: h}
	runtime.SetFinalizer(b, func(b *rampBackend) { C.hrw_ramp_free(b.h) })
	r := &RampPlan{b: b}
	var sum C.hrw_ramp_figures
	C.hrw_ramp_summary(h, &sum)
	for i := 0; i < int(sum.len); i++ {
		var s C.hrw_ramp_step
		if st := C.hrw_ramp_get_step(h, C.size_t(i), &s, nil, &detail); st != C.HRW_STATUS_OK {
			return nil, detailError(st, &detail)
		}
		r.steps = append(r.steps, RampStep{Epoch: uint64(s.epoch), Position: uint32(s.position),
			Moved: float64(s.moved), RemovesDrained: bool(s.removes_drained)})
	}
	runtime.KeepAlive(b)
	r.maxMove, r.total, r.direct, r.optim = float64(sum.max_move), float64(sum.total_moved), float64(sum.direct_moved), float64(sum.optimum)
	return r, nil
}

func (b *rampBackend) view(i int) (*View, error) {
	var h *C.hrw_view
	var detail C.hrw_error
	var step C.hrw_ramp_step
	st := C.hrw_ramp_get_step(b.h, C.size_t(i), &step, &h, &detail)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return nil, detailError(st, &detail)
	}
	return wrapView(h)
}
