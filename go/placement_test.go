package hrwhash_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

func TestBuildErrorsCarryDetails(t *testing.T) {
	_, err := hrwhash.New("a", "b", "a")
	var e *hrwhash.Error
	if !errors.As(err, &e) || e.Code != hrwhash.CodeDuplicateNodeID || e.Index != 2 || e.FirstIndex != 0 {
		t.Fatalf("duplicate: %#v", err)
	}
	if !strings.Contains(err.Error(), `duplicate node id "a" at index 2 (first at index 0)`) {
		t.Errorf("message %q", err)
	}
	if _, err := hrwhash.New(); !errors.Is(err, hrwhash.ErrEmptyMembership) {
		t.Errorf("empty: %v", err)
	}
	if _, err := hrwhash.New("a", ""); !errors.Is(err, hrwhash.ErrEmptyNodeID) {
		t.Errorf("empty id: %v", err)
	}
	for _, w := range []float64{-1, math.NaN(), math.Inf(1), 1 << 32, 1e-12} {
		_, err := hrwhash.NewWeighted([]string{"a", "b"}, []float64{1, w})
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 1 {
			t.Errorf("weight %v: %v", w, err)
		}
	}
	if _, err := hrwhash.NewWeighted([]string{"a", "b"}, []float64{0, 0}); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
		t.Errorf("all zero: %v", err)
	}
	if _, err := hrwhash.NewWeighted([]string{"a", "b"}, []float64{1}); !errors.Is(err, hrwhash.ErrLengthMismatch) {
		t.Errorf("short weights: %v", err)
	}
	_, err = hrwhash.SeedFromBytes(make([]byte, 15))
	if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidSeedLength || e.Actual != 15 || e.Expected != 16 {
		t.Errorf("seed: %v", err)
	}
}

func TestLookupErrors(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.NodeID(3); !errors.Is(err, hrwhash.ErrIndexOutOfRange) {
		t.Errorf("NodeID(3): %v", err)
	}
	if _, err := p.NodeID(-1); !errors.Is(err, hrwhash.ErrIndexOutOfRange) {
		t.Errorf("NodeID(-1): %v", err)
	}
	if _, err := p.Score("k", "zz"); !errors.Is(err, hrwhash.ErrUnknownNode) {
		t.Errorf("Score: %v", err)
	}
	if _, err := p.Rank("k", -1); err == nil {
		t.Error("negative k accepted")
	}
	if err := p.OwnersInto([]string{"x", "y"}, make([]int, 1)); !errors.Is(err, hrwhash.ErrBufferTooSmall) {
		t.Errorf("short out: %v", err)
	}
	if _, err := p.WithoutNode("zz"); !errors.Is(err, hrwhash.ErrUnknownNode) {
		t.Errorf("WithoutNode: %v", err)
	}
	if _, err := p.WithWeight("a", -3); !errors.Is(err, hrwhash.ErrInvalidWeight) {
		t.Errorf("WithWeight: %v", err)
	}
	var zero hrwhash.Placement
	if err := hrwhash.NullPanic(func() { zero.Owner("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero Placement: %v", err)
	}
	var nilp *hrwhash.Placement
	if _, err := nilp.Rank("k", 1); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil Placement: %v", err)
	}
}

func TestBytesAndRemoval(t *testing.T) {
	p, err := hrwhash.New("n\x00a", "n\x00b", "\xff\xfe")
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := p.Find("n\x00b"); !ok || i != 1 {
		t.Errorf("find: %d %v", i, ok)
	}
	q, err := p.WithoutNode("n\x00b")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		key := fmt.Sprintf("key-%d", i)
		before := p.OwnerID(key)
		after := q.OwnerID(key)
		if before != "n\x00b" && before != after {
			t.Fatalf("%s moved from %q to %q", key, before, after)
		}
	}
}

func TestConcurrentLookups(t *testing.T) {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = fmt.Sprintf("node-%d", i)
	}
	p, err := hrwhash.New(ids...)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 5000)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%d", i)
	}
	want, err := p.Owners(keys)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, k := range keys {
				if o := p.Owner(k); o != want[i] {
					errs <- k
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for k := range errs {
		t.Errorf("concurrent lookup of %s disagreed", k)
	}
}
