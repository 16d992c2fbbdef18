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

// ReplicaBalanceV2Policy is the name and version of the policy ReplicaBalanceV2 implements, as
// written in conformance/POLICIES.md.
const ReplicaBalanceV2Policy = "replica-balance-v2"

// ReplicaBalanceV2 gives each key a set of k replicas whose share of replicas follows the weights
// to within the noise of the keys measured (replica-balance-v2, conformance/POLICIES.md): the
// first replica is the key's hrw-v1 owner, the others come from a ranking of a second key digest
// under weights that an exact solver computes once, when the policy is built. Unlike
// ReplicaBalance (v1), the solver samples nothing, so it takes milliseconds and has no option. It
// needs libhrwhash, so only the cgo build has it; it is immutable and safe for concurrent use.
type ReplicaBalanceV2 struct {
	h          *C.hrw_replica_balance_v2
	p          *Placement
	k          int
	iterations int
	residual   float64
	adjusted   []uint64
}

// NewReplicaBalanceV2 builds replica sets of k nodes over p. ErrInvalidCount (What "k", Count the
// value) when k is below 1; ErrInfeasibleReplicaWeights when a node has more than 1/k of the total
// weight (Index: the first such node, Count: k), which is also the error when k exceeds the nodes
// of weight above zero.
func NewReplicaBalanceV2(p *Placement, k int) (*ReplicaBalanceV2, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, &Error{Code: CodeInvalidCount, Count: k, What: "k"}
	}
	var h *C.hrw_replica_balance_v2
	var d C.hrw_error
	st := C.hrw_replica_balance_v2_new(p.b.h, C.size_t(k), &h, &d)
	runtime.KeepAlive(p.b)
	switch st {
	case C.HRW_STATUS_OK:
	case C.HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS:
		return nil, &Error{Code: CodeInfeasibleReplicaWeights, Index: int(d.index), Count: int(d.expected)}
	default:
		return nil, statusError(st)
	}
	rb := &ReplicaBalanceV2{h: h, p: p, k: k, adjusted: make([]uint64, p.Len())}
	runtime.SetFinalizer(rb, func(rb *ReplicaBalanceV2) { C.hrw_replica_balance_v2_free(rb.h) })
	var iterations C.uint32_t
	var residual C.double
	st = C.hrw_replica_balance_v2_adjusted_fixed(h, (*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(rb.adjusted))),
		C.size_t(len(rb.adjusted)), &iterations, &residual)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	rb.iterations, rb.residual = int(iterations), float64(residual)
	return rb, nil
}

// Placement is the placement the replica sets are drawn from.
func (rb *ReplicaBalanceV2) Placement() *Placement {
	if rb == nil {
		return nil
	}
	return rb.p
}

// K is the number of replicas of every key (0 for a zero ReplicaBalanceV2).
func (rb *ReplicaBalanceV2) K() int {
	if rb == nil {
		return 0
	}
	return rb.k
}

// Iterations is how many times the solver evaluated the inclusion probabilities.
func (rb *ReplicaBalanceV2) Iterations() int {
	if rb == nil {
		return 0
	}
	return rb.iterations
}

// Residual is the solver's largest relative distance from a node's target share when it stopped:
// below 2^-20 unless a node holds exactly 1/k of the weight, which no finite weights can serve.
func (rb *ReplicaBalanceV2) Residual() float64 {
	if rb == nil {
		return 0
	}
	return rb.residual
}

// AdjustedFixed returns the solved weights that rank replicas 2 to k, in fixed point
// (w * 2^32), one per node in build order.
func (rb *ReplicaBalanceV2) AdjustedFixed() ([]uint64, error) {
	if rb == nil || rb.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	return append([]uint64(nil), rb.adjusted...), nil
}

// Replicas returns the replica set of key, primary first: K() distinct node indices.
func (rb *ReplicaBalanceV2) Replicas(key string) ([]int, error) {
	if rb == nil || rb.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	out := make([]int, rb.k)
	var n C.size_t
	st := C.hrw_replica_balance_v2_replicas(rb.h, keyPtr(key), C.size_t(len(key)),
		(*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))), C.size_t(len(out)), &n)
	runtime.KeepAlive(rb)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return out[:n], nil
}
