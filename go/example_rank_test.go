package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// RankInto fills a buffer the caller keeps, so asking for the same few replicas of every key
// allocates nothing.
func ExamplePlacement_RankInto() {
	p, err := hrwhash.New("cache-a", "cache-b", "cache-c", "cache-d")
	if err != nil {
		panic(err)
	}
	replicas := make([]int, 2)
	for _, key := range []string{"user:2", "user:5", "x"} {
		n := p.RankInto(key, replicas)
		first, _ := p.NodeID(replicas[0])
		second, _ := p.NodeID(replicas[1])
		fmt.Println(key, n, first, second)
	}
	// Output:
	// user:2 2 cache-d cache-c
	// user:5 2 cache-a cache-c
	// x 2 cache-d cache-b
}
