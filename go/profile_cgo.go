//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <stdlib.h>
#include <hrwhash.h>

typedef struct { size_t index; hrw_status status; } hrw_go_profile_owner_result;

static inline hrw_go_profile_owner_result hrw_go_profile_owner(const hrw_profile_placement *p, const uint8_t *key, size_t len) {
	hrw_go_profile_owner_result r = {0, 0};
	r.status = hrw_profile_placement_owner(p, key, len, &r.index);
	return r;
}
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/hrwhash/hrwhash/go/internal/profile"
)

// The Go codes are the C statuses.
var _ = [1]struct{}{}[CodeUnknownProfile-C.HRW_STATUS_UNKNOWN_PROFILE+CodeNotOffered-C.HRW_STATUS_NOT_OFFERED]

// profileBackend owns the libhrwhash handle; for a small membership it also answers single-key
// lookups with the Go implementation, which costs less than the cgo call (as for Placement).
type profileBackend struct {
	h     *C.hrw_profile_placement
	small *profile.Placement
}

func newProfileBackend(name string, nodes []node) (*profileBackend, error) {
	// The Go implementation is built too: its error carries what a profile does not offer, and
	// a build that one side accepts and the other refuses means they disagree on PROFILES.md.
	goP, goErr := goProfile(name, nodes)
	count := len(nodes)
	total := len(name)
	for _, n := range nodes {
		total += len(n.id)
	}
	// Every byte the C call reads lives in C memory: the id pointer array may not hold Go pointers.
	data := (*C.uint8_t)(C.malloc(C.size_t(total + 1)))
	ptrs := (**C.uint8_t)(C.calloc(C.size_t(max(count, 1)), C.size_t(unsafe.Sizeof((*C.uint8_t)(nil)))))
	lens := (*C.size_t)(C.calloc(C.size_t(max(count, 1)), C.size_t(unsafe.Sizeof(C.size_t(0)))))
	weights := (*C.double)(C.calloc(C.size_t(max(count, 1)), C.size_t(unsafe.Sizeof(C.double(0)))))
	if data == nil || ptrs == nil || lens == nil || weights == nil {
		C.free(unsafe.Pointer(data))
		C.free(unsafe.Pointer(ptrs))
		C.free(unsafe.Pointer(lens))
		C.free(unsafe.Pointer(weights))
		return nil, &Error{Code: CodeResultTooLarge, Actual: count}
	}
	defer C.free(unsafe.Pointer(data))
	defer C.free(unsafe.Pointer(ptrs))
	defer C.free(unsafe.Pointer(lens))
	defer C.free(unsafe.Pointer(weights))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), total+1)
	ptrSlice := unsafe.Slice(ptrs, max(count, 1))
	lenSlice := unsafe.Slice(lens, max(count, 1))
	weightSlice := unsafe.Slice(weights, max(count, 1))
	off := copy(buf, name)
	for i, n := range nodes {
		ptrSlice[i] = (*C.uint8_t)(unsafe.Pointer(&buf[off]))
		off += copy(buf[off:], n.id)
		lenSlice[i] = C.size_t(len(n.id))
		weightSlice[i] = C.double(n.weight)
	}
	var h *C.hrw_profile_placement
	st := C.hrw_profile_placement_new(data, C.size_t(len(name)), ptrs, lens, weights, C.size_t(count), &h, nil)
	// A domain is a Go-side field the C call has no place for: the Go build's answer stands.
	if hasDomain(nodes) && st == C.HRW_STATUS_OK {
		C.hrw_profile_placement_free(h)
		return nil, goErr
	}
	if st != C.HRW_STATUS_OK {
		if e, ok := goErr.(*Error); ok && e.Code == Code(st) {
			return nil, e
		}
		return nil, &Error{Code: CodeUnknown}
	}
	if goErr != nil {
		C.hrw_profile_placement_free(h)
		return nil, &Error{Code: CodeUnknown}
	}
	b := &profileBackend{h: h}
	runtime.SetFinalizer(b, func(b *profileBackend) { C.hrw_profile_placement_free(b.h) })
	if count <= goLookupMax {
		b.small = goP
	}
	return b, nil
}

func hasDomain(nodes []node) bool {
	for _, n := range nodes {
		if n.hasDomain {
			return true
		}
	}
	return false
}

func (b *profileBackend) owner(key string) int {
	if b.small != nil {
		return b.small.Owner(key)
	}
	r := C.hrw_go_profile_owner(b.h, keyPtr(key), C.size_t(len(key)))
	runtime.KeepAlive(b)
	if r.status != C.HRW_STATUS_OK {
		mustUse(statusError(r.status))
	}
	return int(r.index)
}

func (b *profileBackend) ownersInto(keys []string, out []int) error {
	batch := joinKeys(keys)
	st := C.hrw_profile_placement_owners(b.h, batch.data(), C.size_t(batch.total), sizes(batch.lens),
		C.size_t(len(keys)), sizes(out), C.size_t(len(out)))
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return statusError(st)
	}
	return nil
}

func (b *profileBackend) replicas(key string, k int) ([]int, error) {
	out := make([]int, max(k, 1))
	var n C.size_t
	st := C.hrw_profile_placement_replicas(b.h, keyPtr(key), C.size_t(len(key)), C.size_t(k),
		(*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))), C.size_t(len(out)), &n)
	runtime.KeepAlive(b)
	if st == C.HRW_STATUS_NOT_OFFERED {
		return nil, &Error{Code: CodeNotOffered, What: "top-k replicas (the incumbent has no top-k lookup)"}
	}
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return out[:n], nil
}
