package hrwhash

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// SetGoLookupMax lets the tests send every lookup of the cgo build to libhrwhash (-1) or to
// the Go implementation; it returns the previous value. Placements built before keep theirs.
func SetGoLookupMax(n int) int {
	old := goLookupMax
	goLookupMax = n
	return old
}

// NullPanic runs f, a lookup on a value that was never built, and returns what it panicked
// with (nil when it did not panic): lookups that cannot fail otherwise have no error to return.
func NullPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("panic %v", r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// The pure-Go build implements the release of the libhrwhash the cgo build links.
func TestVersion(t *testing.T) {
	if Version() != version {
		t.Errorf("%s build: Version() = %q, the Go implementation is %q", Backend, Version(), version)
	}
}

// make test-go says which build each run is meant to be; a run of the other one fails.
func TestBackend(t *testing.T) {
	want := os.Getenv("HRWHASH_EXPECT_BACKEND")
	if want == "" && os.Getenv("CI") == "true" {
		t.Fatal("HRWHASH_EXPECT_BACKEND is not set")
	}
	if want != "" && Backend != want {
		t.Fatalf("built as %s, expected %s", Backend, want)
	}
	t.Logf("backend %s", Backend)
}

// SecondDigest and ExpNeg are replica-balance's second key digest and e^-x, for the vectors of
// replica-balance-v2.json that check them alone.
var (
	SecondDigest = secondDigest
	ExpNeg       = expNeg
)

// ReadDocument is the file loaders' bounded reader, with a limit the tests can make small.
func ReadDocument(r io.Reader, limit int) ([]byte, error) { return readDocument(r, limit) }

// MaxSlotTableReplayCost is the cap on a slot table history's replay cost.
const MaxSlotTableReplayCost = maxSlotTableReplayCost

// SlotTableCost is what replaying t's history costs; SetSlotTableCost sets it, so the tests can
// reach the cap without 2^25 units of work.
func SlotTableCost(t *SlotTable) uint64       { return t.cost }
func SetSlotTableCost(t *SlotTable, c uint64) { t.cost = c }

// PlanRampWithin plans the pure-Go ramp from old to new under another cost cap and returns its
// number of steps.
func PlanRampWithin(old, new *View, maxMove float64, maxCost uint64) (int, error) {
	r, err := hrwview.PlanWithin(old.epoch, weighted(old.placement), weighted(new.placement), old.fingerprint == new.fingerprint, maxMove, maxCost)
	if err != nil {
		return 0, fromView(err)
	}
	return len(r.Steps), nil
}

// SolveReplicaBalanceWithin runs the pure-Go solver over weights (fixed point, total below
// 2^64) for k replicas under a work cap; it returns the evaluations made, or -1 when the first
// one is past the cap.
func SolveReplicaBalanceWithin(weights []uint64, k int, maxWork uint64) int {
	var total uint64
	for _, w := range weights {
		total += w
	}
	adjusted, iterations, _ := solveReplicaBalance(weights, 0, total, k, maxWork)
	if adjusted == nil {
		return -1
	}
	return iterations
}

// ReplicaBalanceWork is the work of the solver's first evaluation over weights (fixed point).
func ReplicaBalanceWork(weights []uint64, k int) uint64 {
	var heaviest uint64
	for _, w := range weights {
		heaviest = max(heaviest, w)
	}
	v := make([]float64, len(weights))
	for i, w := range weights {
		v[i] = float64(w) / float64(heaviest)
	}
	return rbWork(v, k)
}
