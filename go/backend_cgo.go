//go:build cgo && hrwhash_cgo

package hrwhash

/*
#cgo pkg-config: hrwhash
#include <stdlib.h>
#include <string.h>
#include <hrwhash.h>

// Returning the index by value keeps the out-param off the Go heap: a pointer to a Go local
// passed to C would make it escape and cost an allocation per lookup.
typedef struct { size_t index; hrw_status status; } hrw_go_owner_result;

static inline hrw_go_owner_result hrw_go_owner(const hrw_placement *p, const uint8_t *key, size_t len) {
	hrw_go_owner_result r = {0, 0};
	r.status = hrw_placement_owner(p, key, len, &r.index);
	return r;
}

// The same for rankings: the count comes back by value.
typedef struct { size_t count; hrw_status status; } hrw_go_top_result;

static inline hrw_go_top_result hrw_go_rank(const hrw_placement *p, const uint8_t *key, size_t len,
		size_t *out, size_t out_len) {
	hrw_go_top_result r = {0, 0};
	r.status = hrw_placement_rank(p, key, len, out_len, out, out_len, &r.count);
	return r;
}

static inline hrw_go_top_result hrw_go_replicas(const hrw_placement *p, const uint8_t *key, size_t len,
		size_t *out, size_t out_len) {
	hrw_go_top_result r = {0, 0};
	r.status = hrw_placement_replicas(p, key, len, out_len, out, out_len, &r.count);
	return r;
}
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// Backend names the implementation this program was built with: "cgo" (libhrwhash) or
// "purego" (hrw-v1 in Go).
const Backend = "cgo"

// The Go codes are the C statuses: a difference does not compile (a constant index out of range).
var _ = [1]struct{}{}[CodeNullParameter-C.HRW_STATUS_NULL_PARAMETER+
	CodeEmptyMembership-C.HRW_STATUS_EMPTY_MEMBERSHIP+
	CodeEmptyNodeID-C.HRW_STATUS_EMPTY_NODE_ID+
	CodeDuplicateNodeID-C.HRW_STATUS_DUPLICATE_NODE_ID+
	CodeInvalidWeight-C.HRW_STATUS_INVALID_WEIGHT+
	CodeAllWeightsZero-C.HRW_STATUS_ALL_WEIGHTS_ZERO+
	CodeInvalidSeedLength-C.HRW_STATUS_INVALID_SEED_LENGTH+
	CodeLengthMismatch-C.HRW_STATUS_LENGTH_MISMATCH+
	CodeUnknownNode-C.HRW_STATUS_UNKNOWN_NODE+
	CodeBufferTooSmall-C.HRW_STATUS_BUFFER_TOO_SMALL+
	CodeIndexOutOfRange-C.HRW_STATUS_INDEX_OUT_OF_RANGE+
	CodePanic-C.HRW_STATUS_PANIC+
	CodeUnknown-C.HRW_STATUS_UNKNOWN+
	CodeInvalidCount-C.HRW_STATUS_INVALID_COUNT+
	CodeResultTooLarge-C.HRW_STATUS_RESULT_TOO_LARGE+
	CodeInvalidText-C.HRW_STATUS_INVALID_TEXT+
	CodeInvalidJSON-C.HRW_STATUS_INVALID_JSON+
	CodeInvalidView-C.HRW_STATUS_INVALID_VIEW+
	CodeSeedMismatch-C.HRW_STATUS_SEED_MISMATCH+
	CodeInvalidMoveLimit-C.HRW_STATUS_INVALID_MOVE_LIMIT+
	CodeInvalidDomains-C.HRW_STATUS_INVALID_DOMAINS+
	CodeInvalidReplicaCount-C.HRW_STATUS_INVALID_REPLICA_COUNT+
	CodeInvalidBalanceFactor-C.HRW_STATUS_INVALID_BALANCE_FACTOR+
	CodeLoadOverflow-C.HRW_STATUS_LOAD_OVERFLOW+
	CodeInfeasibleReplicaWeights-C.HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS+
	CodeInvalidSlotCount-C.HRW_STATUS_INVALID_SLOT_COUNT+
	CodeSlotOutOfRange-C.HRW_STATUS_SLOT_OUT_OF_RANGE+
	CodeIO-C.HRW_STATUS_IO+
	CodeTooManyNodes-C.HRW_STATUS_TOO_MANY_NODES+
	CodeStaleView-C.HRW_STATUS_STALE_VIEW+
	CodeViewConflict-C.HRW_STATUS_VIEW_CONFLICT+
	CodeSource-C.HRW_STATUS_SOURCE]

// Version is the version of the linked libhrwhash.
func Version() string { return C.GoString(C.hrw_version()) }

// backend owns a C handle, released when the backend is garbage collected. For a small
// membership it also holds the Go implementation: one lookup then costs less than the cgo
// call alone (see bindings-c/BENCHMARKS.md, "Go"), so single-key owner lookups and rankings of up to hrw.TopMax
// nodes stay in Go; longer rankings, replicas, and every lookup of a larger membership go to
// libhrwhash.
type backend struct {
	h     *C.hrw_placement
	small *hrw.Placement
}

func newBackend(seed Seed, nodes []node) (*backend, int, error) {
	// Every byte the C call reads lives in C memory: cgo forbids passing Go memory that itself
	// holds Go pointers (the id pointers inside hrw_node).
	total := 0
	for _, n := range nodes {
		total += len(n.id) + len(n.domain)
	}
	count := len(nodes)
	nodeSize := C.size_t(unsafe.Sizeof(C.hrw_node{}))
	cNodes := (*C.hrw_node)(C.calloc(C.size_t(max(count, 1)), nodeSize))
	weights := (*C.double)(C.calloc(C.size_t(max(count, 1)), C.size_t(unsafe.Sizeof(C.double(0)))))
	data := (*C.uint8_t)(C.malloc(C.size_t(total + SeedLen + 1)))
	if cNodes == nil || weights == nil || data == nil {
		C.free(unsafe.Pointer(cNodes))
		C.free(unsafe.Pointer(weights))
		C.free(unsafe.Pointer(data))
		return nil, 0, &Error{Code: CodeResultTooLarge, Actual: count}
	}
	defer C.free(unsafe.Pointer(cNodes))
	defer C.free(unsafe.Pointer(weights))
	defer C.free(unsafe.Pointer(data))
	nodeSlice := unsafe.Slice(cNodes, max(count, 1))
	weightSlice := unsafe.Slice(weights, max(count, 1))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), total+SeedLen+1)
	off := 0
	put := func(s string) *C.uint8_t {
		p := (*C.uint8_t)(unsafe.Pointer(&buf[off]))
		off += copy(buf[off:], s)
		return p
	}
	for i, n := range nodes {
		nodeSlice[i].id = put(n.id)
		nodeSlice[i].id_len = C.size_t(len(n.id))
		if n.hasDomain {
			nodeSlice[i].domain = put(n.domain)
			nodeSlice[i].domain_len = C.size_t(len(n.domain))
		}
		weightSlice[i] = C.double(n.weight)
	}
	var options C.hrw_placement_options
	options.weights = weights
	options.weights_len = C.size_t(count)
	options.seed = put(string(seed[:]))
	options.seed_len = SeedLen
	var h *C.hrw_placement
	var detail C.hrw_error
	st := C.hrw_placement_new(cNodes, C.size_t(count), &options, &h, &detail)
	if st != C.HRW_STATUS_OK {
		return nil, 0, &Error{
			Code:       Code(st),
			Index:      int(detail.index),
			FirstIndex: int(detail.first_index),
			Weight:     float64(detail.value),
			Expected:   int(detail.expected),
			Actual:     int(detail.actual),
		}
	}
	return wrapBackend(h, seed, nodes)
}

// wrapBackend is the backend of a libhrwhash placement of nodes, which it then owns.
func wrapBackend(h *C.hrw_placement, seed Seed, nodes []node) (*backend, int, error) {
	var n, sel C.size_t
	C.hrw_placement_len(h, &n, &sel)
	b := &backend{h: h}
	runtime.SetFinalizer(b, func(b *backend) { C.hrw_placement_free(b.h) })
	if int(sel) <= goLookupMax {
		small, err := newGoPlacement(seed, nodes)
		if err != nil {
			// libhrwhash accepted what the Go implementation rejects: they disagree on hrw-v1.
			return nil, 0, &Error{Code: CodeUnknown}
		}
		b.small = small
	}
	return b, int(sel), nil
}

func statusError(st C.hrw_status) error { return &Error{Code: Code(st)} }

func keyPtr(key string) *C.uint8_t {
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(key)))
}

// sizes is the C view of a []int: a Go int has the size of a C size_t on every platform Go
// supports.
func sizes(s []int) *C.size_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.size_t)(unsafe.Pointer(unsafe.SliceData(s)))
}

// keyBatch is keys laid end to end for the batch calls, with each key's length. The bytes
// always have a first element, so that their pointer is valid even when every key is empty.
type keyBatch struct {
	bytes []byte
	lens  []int
	total int
}

func joinKeys(keys []string) keyBatch {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	joined := make([]byte, 0, total+1)
	lens := make([]int, len(keys))
	for i, k := range keys {
		joined = append(joined, k...)
		lens[i] = len(k)
	}
	return keyBatch{bytes: append(joined, 0), lens: lens, total: total}
}

// data is the C view of the keys' bytes.
func (k keyBatch) data() *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&k.bytes[0])) }

func (b *backend) owner(key string) int {
	if b.small != nil {
		return b.small.Owner(key)
	}
	r := C.hrw_go_owner(b.h, keyPtr(key), C.size_t(len(key)))
	runtime.KeepAlive(b)
	if r.status != C.HRW_STATUS_OK {
		mustUse(statusError(r.status))
	}
	return int(r.index)
}

func (b *backend) ownersInto(keys []string, out []int) error {
	if b.small != nil {
		for i, k := range keys {
			out[i] = b.small.Owner(k)
		}
		return nil
	}
	batch := joinKeys(keys)
	st := C.hrw_placement_owners(b.h, batch.data(), C.size_t(batch.total), sizes(batch.lens),
		C.size_t(len(keys)), sizes(out), C.size_t(len(out)))
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return statusError(st)
	}
	return nil
}

// topResult checks what hrw_go_rank or hrw_go_replicas returned for out.
func topResult(r C.hrw_go_top_result, out []int) error {
	if r.status != C.HRW_STATUS_OK {
		return statusError(r.status)
	}
	if int(r.count) != len(out) {
		return &Error{Code: CodeUnknown}
	}
	return nil
}

// outPtr is out as a C size_t array: a Go int has the size of a C size_t on every platform Go
// supports. out holds no Go pointers, so cgo lets C write into it.
func outPtr(out []int) *C.size_t { return (*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))) }

// rankInto fills out (at most the number of selectable nodes long). A small membership answers up
// to hrw.TopMax nodes in Go, like owner lookups: a top-3 of 100 nodes costs less there than the
// cgo call alone.
func (b *backend) rankInto(key string, out []int) error {
	if b.small != nil && len(out) <= hrw.TopMax {
		b.small.RankInto(key, out)
		return nil
	}
	r := C.hrw_go_rank(b.h, keyPtr(key), C.size_t(len(key)), outPtr(out), C.size_t(len(out)))
	runtime.KeepAlive(b)
	return topResult(r, out)
}

func (b *backend) replicasInto(key string, out []int) error {
	r := C.hrw_go_replicas(b.h, keyPtr(key), C.size_t(len(key)), outPtr(out), C.size_t(len(out)))
	runtime.KeepAlive(b)
	return topResult(r, out)
}

// score is given the node both ways; the C ABI scores by id.
func (b *backend) score(key, id string, _ int) (uint64, error) {
	var s C.uint64_t
	st := C.hrw_placement_score(b.h, keyPtr(key), C.size_t(len(key)), keyPtr(id), C.size_t(len(id)), &s, nil)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return uint64(s), nil
}

func (b *backend) find(id string) (int, bool) {
	var idx C.size_t
	st := C.hrw_placement_find(b.h, keyPtr(id), C.size_t(len(id)), &idx)
	runtime.KeepAlive(b)
	return int(idx), st == C.HRW_STATUS_OK
}

func weightToFixed(w float64) (uint64, bool) {
	var f C.uint64_t
	st := C.hrw_weight_to_fixed(C.double(w), &f, nil)
	return uint64(f), st == C.HRW_STATUS_OK
}

func seedPtr(seed *Seed) *C.uint8_t { return (*C.uint8_t)(unsafe.Pointer(&seed[0])) }

func keyDigest(seed Seed, key string) uint64 {
	var d C.uint64_t
	C.hrw_key_digest(seedPtr(&seed), SeedLen, keyPtr(key), C.size_t(len(key)), &d, nil)
	return uint64(d)
}

func nodeDigest(seed Seed, id string) uint64 {
	var d C.uint64_t
	C.hrw_node_digest(seedPtr(&seed), SeedLen, keyPtr(id), C.size_t(len(id)), &d, nil)
	return uint64(d)
}

func draw(s uint64) uint64 {
	var d C.uint64_t
	C.hrw_draw(C.uint64_t(s), &d)
	return uint64(d)
}
