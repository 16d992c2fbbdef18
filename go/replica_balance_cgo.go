//go:build cgo && hrwhash_cgo

package hrwhash

/*
#include <hrwhash.h>
*/
import "C"

import (
	"math"
	"runtime"
	"unsafe"
)

// ReplicaBalancePolicy is the name and version of the policy ReplicaBalance implements, as
// written in conformance/POLICIES.md.
const ReplicaBalancePolicy = "replica-balance-v1"

// DefaultSamplesLog2 is the number of sample digests (2^18) the solver of NewReplicaBalance
// measures on unless WithSamplesLog2 says otherwise, as in every other language.
const DefaultSamplesLog2 = 18

// ReplicaBalance gives each key a set of k replicas whose share of replicas follows the weights
// (replica-balance-v1, conformance/POLICIES.md): the first replica is the key's hrw-v1 owner, the
// others come from its ranking under weights solved once, when the policy is built. Plain top-k
// gives light nodes more than their share (a node of weight 1 beside three of weight 3 is among
// the top 3 of 42% of keys, not 30%). It needs libhrwhash, so only the cgo build has it; it is
// immutable and safe for concurrent use.
type ReplicaBalance struct {
	h          *C.hrw_replica_balance
	p          *Placement
	k          int
	iterations int
	adjusted   []uint64
}

// ReplicaBalanceOption configures NewReplicaBalance.
type ReplicaBalanceOption func(*replicaBalanceConfig)

type replicaBalanceConfig struct {
	samplesLog2 int
}

// WithSamplesLog2 has the solver measure on 2^m sample digests, m from 8 to 22 (more is closer
// to the weights and slower to build).
func WithSamplesLog2(m int) ReplicaBalanceOption {
	return func(c *replicaBalanceConfig) { c.samplesLog2 = m }
}

// NewReplicaBalance builds replica sets of k nodes over p. ErrInvalidCount (What "k" or
// "samples_log2", Count the value) when k is below 1 or the samples are out of range;
// ErrInfeasibleReplicaWeights when a node has more than 1/k of the total weight (Index: the
// first such node, Count: k), which is also the error when k exceeds the nodes of weight above
// zero.
func NewReplicaBalance(p *Placement, k int, opts ...ReplicaBalanceOption) (*ReplicaBalance, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	cfg := replicaBalanceConfig{samplesLog2: DefaultSamplesLog2}
	for _, o := range opts {
		o(&cfg)
	}
	if k < 1 {
		return nil, &Error{Code: CodeInvalidCount, Count: k, What: "k"}
	}
	if cfg.samplesLog2 < 0 || uint64(cfg.samplesLog2) > math.MaxUint32 {
		return nil, &Error{Code: CodeInvalidCount, Count: cfg.samplesLog2, What: "samples_log2"}
	}
	var h *C.hrw_replica_balance
	var d C.hrw_error
	st := C.hrw_replica_balance_new(p.b.h, C.size_t(k), C.uint32_t(cfg.samplesLog2), &h, &d)
	runtime.KeepAlive(p.b)
	switch st {
	case C.HRW_STATUS_OK:
	case C.HRW_STATUS_INVALID_COUNT:
		// k >= 1 was checked above, so the samples are what the library rejects.
		return nil, &Error{Code: CodeInvalidCount, Count: cfg.samplesLog2, What: "samples_log2"}
	case C.HRW_STATUS_INFEASIBLE_REPLICA_WEIGHTS:
		return nil, &Error{Code: CodeInfeasibleReplicaWeights, Index: int(d.index), Count: int(d.expected)}
	default:
		return nil, statusError(st)
	}
	rb := &ReplicaBalance{h: h, p: p, k: k, adjusted: make([]uint64, p.Len())}
	runtime.SetFinalizer(rb, func(rb *ReplicaBalance) { C.hrw_replica_balance_free(rb.h) })
	var iterations C.uint32_t
	st = C.hrw_replica_balance_adjusted_fixed(h, (*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(rb.adjusted))),
		C.size_t(len(rb.adjusted)), &iterations)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	rb.iterations = int(iterations)
	return rb, nil
}

// Placement is the placement the replica sets are drawn from.
func (rb *ReplicaBalance) Placement() *Placement {
	if rb == nil {
		return nil
	}
	return rb.p
}

// K is the number of replicas of every key (0 for a zero ReplicaBalance).
func (rb *ReplicaBalance) K() int {
	if rb == nil {
		return 0
	}
	return rb.k
}

// Iterations is how many times the solver measured inclusion while it was built.
func (rb *ReplicaBalance) Iterations() int {
	if rb == nil {
		return 0
	}
	return rb.iterations
}

// AdjustedFixed returns the solved weights that rank replicas 2 to k, in fixed point
// (w * 2^32), one per node in build order.
func (rb *ReplicaBalance) AdjustedFixed() ([]uint64, error) {
	if rb == nil || rb.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	return append([]uint64(nil), rb.adjusted...), nil
}

// Replicas returns the replica set of key, primary first: K() distinct node indices.
func (rb *ReplicaBalance) Replicas(key string) ([]int, error) {
	if rb == nil || rb.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	out := make([]int, rb.k)
	var n C.size_t
	st := C.hrw_replica_balance_replicas(rb.h, keyPtr(key), C.size_t(len(key)),
		(*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))), C.size_t(len(out)), &n)
	runtime.KeepAlive(rb)
	if st != C.HRW_STATUS_OK {
		return nil, statusError(st)
	}
	return out[:n], nil
}
