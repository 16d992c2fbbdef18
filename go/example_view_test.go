package hrwhash_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/hrwhash/hrwhash/go"
)

func ExampleTransition() {
	current, _ := hrwhash.New("cache-a", "cache-b", "cache-c")
	next, _ := hrwhash.New("cache-a", "cache-b", "cache-c", "cache-d")
	v41, _ := hrwhash.NewView(current, 41)
	v42, _ := hrwhash.NewView(next, 42)
	doc, _ := v42.ToJSON() // what every client loads
	loaded, err := hrwhash.ViewFromJSON(doc)
	if err != nil {
		panic(err)
	}
	fmt.Println("epoch", loaded.Epoch(), "same view:", loaded.Equal(v42))

	// During the migration: write to the new owner, read from the old one on a miss.
	t, _ := hrwhash.NewTransition(v41.Placement(), loaded.Placement())
	r, _ := t.Route("user:42")
	oldID, _ := current.NodeID(r.OldIndex)
	newID, _ := next.NodeID(r.NewIndex)
	fmt.Println("moved means another id:", r.Moved == (oldID != newID), "expected share moved:", t.ExpectedMoved())

	// Count a stream of keys: memory does not grow with the keys.
	d, _ := t.Diff()
	for i := 0; i < 10000; i++ {
		_ = d.Add(fmt.Sprint("key-", i))
	}
	share := float64(d.Moved()) / float64(d.Keys())
	to := map[string]bool{}
	for _, f := range d.Flows() {
		id, _ := next.NodeID(f.To)
		to[id] = true
	}
	fmt.Println("measured within 2% of expected:", math.Abs(share-t.ExpectedMoved()) < 0.02, "moved to:", to)

	_, err = hrwhash.ViewFromJSON([]byte(`{"format": "hrwhash-view-v1", "epoch": 7}`))
	var e *hrwhash.Error
	fmt.Println(errors.Is(err, hrwhash.ErrInvalidView), errors.As(err, &e) && e.Field == "algorithm", err)
	// Output:
	// epoch 42 same view: true
	// moved means another id: true expected share moved: 0.25
	// measured within 2% of expected: true moved to: map[cache-d:true]
	// true true hrwhash: view: member "algorithm": missing
}
