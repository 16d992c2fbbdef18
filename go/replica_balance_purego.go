//go:build !cgo || !hrwhash_cgo

package hrwhash

// replicaBalanceLib is libhrwhash's replica balance, which only the hrwhash_cgo build links.
type replicaBalanceLib struct{}

func newReplicaBalanceLib(*Placement, int, []uint64) (*replicaBalanceLib, int, float64, error) {
	return nil, 0, 0, nil
}

func (*replicaBalanceLib) replicasInto(string, []int) int { return 0 }
