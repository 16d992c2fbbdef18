//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <hrwhash.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

type boundedBackend struct {
	h *C.hrw_bounded_load
}

func newBoundedBackend(p *Placement, num, den uint32) (*boundedBackend, error) {
	var h *C.hrw_bounded_load
	var d C.hrw_error
	st := C.hrw_bounded_load_new(p.b.h, C.uint32_t(num), C.uint32_t(den), &h, &d)
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return nil, &Error{Code: Code(st), Factor: float64(d.value)}
	}
	b := &boundedBackend{h: h}
	runtime.SetFinalizer(b, func(b *boundedBackend) { C.hrw_bounded_load_free(b.h) })
	return b, nil
}

func (b *boundedBackend) owner(key string, loads []uint64) (int, error) {
	var idx C.size_t
	var d C.hrw_error
	st := C.hrw_bounded_load_owner(b.h, keyPtr(key), C.size_t(len(key)),
		(*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(loads))), C.size_t(len(loads)), &idx, &d)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return 0, &Error{Code: Code(st), Expected: int(d.expected), Actual: int(d.actual)}
	}
	return int(idx), nil
}

func (b *boundedBackend) assignInto(keys []string, out []int) error {
	batch := joinKeys(keys)
	var d C.hrw_error
	st := C.hrw_bounded_load_assign(b.h, batch.data(), C.size_t(batch.total), sizes(batch.lens),
		C.size_t(len(keys)), sizes(out), C.size_t(len(out)), &d)
	runtime.KeepAlive(b)
	if st != C.HRW_STATUS_OK {
		return &Error{Code: Code(st), Expected: int(d.expected), Actual: int(d.actual)}
	}
	return nil
}
