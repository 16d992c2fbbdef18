package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

func Example() {
	p, err := hrwhash.New("10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379")
	if err != nil {
		panic(err)
	}
	owner := p.OwnerID("session:1234")
	top, _ := p.Rank("session:1234", 2)
	second, _ := p.NodeID(top[1])
	fmt.Println(owner, second)

	// A Node without a Weight weighs 1; hrwhash.Weight(0) drains a node.
	fleet, _ := hrwhash.NewNodes([]hrwhash.Node{
		{ID: "big-1", Weight: hrwhash.Weight(4), Domain: "zone-a"},
		{ID: "small-1", Domain: "zone-b"},
		{ID: "old-1", Weight: hrwhash.Weight(0), Domain: "zone-c"},
	})
	fmt.Println(fleet.SelectableLen(), "of", fleet.Len(), "nodes can be selected")

	_, err = hrwhash.NewWeighted([]string{"a", "b"}, []float64{1, -1})
	fmt.Println(err)
	// Output:
	// 10.0.0.2:6379 10.0.0.1:6379
	// 2 of 3 nodes can be selected
	// hrwhash: invalid weight -1 of node 1: negative
}
