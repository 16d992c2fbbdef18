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

var domainFaults = map[C.hrw_domain_fault]string{
	C.HRW_DOMAIN_FAULT_MISSING:            "missing",
	C.HRW_DOMAIN_FAULT_EMPTY_LEVEL:        "empty_level",
	C.HRW_DOMAIN_FAULT_DEPTH_MISMATCH:     "depth_mismatch",
	C.HRW_DOMAIN_FAULT_LEVEL_OUT_OF_RANGE: "level_out_of_range",
	C.HRW_DOMAIN_FAULT_WEIGHT_OVERFLOW:    "weight_overflow",
}

// Domains is a placement read through the domains-v1 policy (conformance/POLICIES.md, "domains
// (v1)") at one spread level: each node's domain is a path of levels separated by "/", and a
// key's replicas go to distinct domains of that level. It needs libhrwhash, so only the cgo build
// has it.
type Domains struct {
	h          *C.hrw_domains
	selectable int
}

// NewDomains reads p through the policy, spreading over level (0-based: 0 is the outermost level
// of the paths). A bad path or level is CodeInvalidDomains, with Index the node at fault (-1
// when the level is) and DomainReason the POLICIES.md name of the fault.
func NewDomains(p *Placement, level int) (*Domains, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if level < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: level}
	}
	var h *C.hrw_domains
	var detail C.hrw_domains_error
	st := C.hrw_domains_new(p.b.h, C.size_t(level), &h, &detail)
	runtime.KeepAlive(p.b)
	if st != C.HRW_STATUS_OK {
		err := &Error{Code: Code(st)}
		if st == C.HRW_STATUS_INVALID_DOMAINS {
			err.Index = -1
			if detail.index != C.size_t(^uint(0)) {
				err.Index = int(detail.index)
			}
			err.DomainReason = domainFaults[detail.reason]
		}
		return nil, err
	}
	d := &Domains{h: h, selectable: p.selectable}
	runtime.SetFinalizer(d, func(d *Domains) { C.hrw_domains_free(d.h) })
	return d, nil
}

// Owner returns the index of the owner of key: the first of its replicas.
func (d *Domains) Owner(key string) (int, error) {
	if d == nil || d.h == nil {
		return 0, &Error{Code: CodeNullParameter}
	}
	var i C.size_t
	st := C.hrw_domains_owner(d.h, keyPtr(key), C.size_t(len(key)), &i)
	runtime.KeepAlive(d)
	if st != C.HRW_STATUS_OK {
		return 0, statusError(st)
	}
	return int(i), nil
}

// Replicas returns the indices of the first k replicas of key, in distinct domains of the spread
// level while there are enough. k runs from 1 to the nodes of weight above zero
// (CodeInvalidReplicaCount otherwise).
func (d *Domains) Replicas(key string, k int) ([]int, error) {
	if d == nil || d.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	if k < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: k}
	}
	if k == 0 || k > d.selectable {
		return nil, &Error{Code: CodeInvalidReplicaCount, Count: k}
	}
	out := make([]int, k)
	st := C.hrw_domains_replicas(d.h, keyPtr(key), C.size_t(len(key)), C.size_t(k),
		(*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))), C.size_t(k))
	runtime.KeepAlive(d)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return out, nil
}
