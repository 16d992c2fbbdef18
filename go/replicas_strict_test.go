package hrwhash_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// zoned builds three zones of three nodes, leaving out the zone named lost.
func zoned(t *testing.T, lost string) *hrwhash.Placement {
	t.Helper()
	var nodes []hrwhash.Node
	for _, z := range []string{"a", "b", "c"} {
		if z == lost {
			continue
		}
		for i := 0; i < 3; i++ {
			nodes = append(nodes, hrwhash.Node{ID: fmt.Sprintf("%s%d", z, i), Domain: z})
		}
	}
	p, err := hrwhash.NewNodes(nodes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRouteTopFollowsReplicas(t *testing.T) {
	old, now := zoned(t, ""), zoned(t, "c")
	tr, err := hrwhash.NewTransition(old, now)
	if err != nil {
		t.Fatal(err)
	}
	rankedDifferently := 0
	for i := 0; i < 10000; i++ {
		k := fmt.Sprintf("key-%d", i)
		top, err := tr.RouteTop(k, 3)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := old.Replicas(k, 3)
		ra, _ := now.Replicas(k, 3)
		if !reflect.DeepEqual(top.Before, rb) || !reflect.DeepEqual(top.After, ra) {
			t.Fatalf("route top of %s: %+v, replicas %v and %v", k, top, rb, ra)
		}
		if rank, _ := old.Rank(k, 3); !reflect.DeepEqual(rank, rb) {
			rankedDifferently++
		}
	}
	// The plain ranking would route most keys from a set they are not stored on.
	if rankedDifferently < 5000 {
		t.Fatalf("only %d keys rank differently from their replicas", rankedDifferently)
	}
}

func TestReplicasStrict(t *testing.T) {
	whole, lost := zoned(t, ""), zoned(t, "b")
	for i := 0; i < 1000; i++ {
		k := fmt.Sprintf("key-%d", i)
		got, err := whole.ReplicasStrict(k, 3)
		want, _ := whole.Replicas(k, 3)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v, %v; want %v", k, got, err, want)
		}
		got, err = lost.ReplicasStrict(k, 2)
		want, _ = lost.Replicas(k, 2)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s of two zones: %v, %v; want %v", k, got, err, want)
		}
	}
	_, err := lost.ReplicasStrict("k", 3)
	var e *hrwhash.Error
	if !errors.Is(err, hrwhash.ErrInvalidReplicaCount) || !errors.As(err, &e) || e.Count != 3 || e.Expected != 2 {
		t.Fatalf("three replicas in two zones: %v", err)
	}
	if _, err := lost.ReplicasStrict("k", -1); !errors.Is(err, hrwhash.ErrInvalidCount) {
		t.Fatalf("negative k: %v", err)
	}
	if got, err := lost.ReplicasStrict("k", 0); err != nil || len(got) != 0 {
		t.Fatalf("k = 0: %v, %v", got, err)
	}
}
