package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// Where go-redis v9 Ring and the npm hashring package put a key, asked from Go.
func ExampleNewProfilePlacement() {
	ring, err := hrwhash.NewProfilePlacement("go-redis-ring-v9", []hrwhash.Node{
		{ID: "shard-a"}, {ID: "shard-b"}, {ID: "shard-c"},
	})
	if err != nil {
		panic(err)
	}
	a := ring.OwnerID("{user1000}.following")
	b := ring.OwnerID("{user1000}.followers")
	fmt.Println(a == b) // one hashtag, one shard

	nodes, _ := hrwhash.NewProfilePlacement("hashring-node-3", []hrwhash.Node{
		{ID: "cache-a:11211", Weight: hrwhash.Weight(2)}, {ID: "cache-b:11211"},
	})
	top, _ := nodes.Replicas("session:1234", 2)
	fmt.Println(len(top))

	_, err = hrwhash.NewProfilePlacement("pymemcache-rendezvous", []hrwhash.Node{
		{ID: "a:11211", Weight: hrwhash.Weight(2)},
	})
	fmt.Println(err)
	// Output:
	// true
	// 2
	// hrwhash: profile pymemcache-rendezvous does not offer weights (the incumbent is unweighted)
}
