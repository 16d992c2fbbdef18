package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/bindings-c/go"
)

func Example() {
	p, err := hrwhash.New("10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379")
	if err != nil {
		panic(err)
	}
	owner, _ := p.OwnerID("session:1234")
	top, _ := p.Rank("session:1234", 2)
	second, _ := p.NodeID(top[1])
	fmt.Println(owner, second)

	_, err = hrwhash.NewWeighted([]string{"a", "b"}, []float64{1, -1})
	fmt.Println(err)
	// Output:
	// 10.0.0.2:6379 10.0.0.1:6379
	// hrwhash: invalid weight: a weight is finite, >= 0 and < 2^32, and a positive weight is > 2^-33 (node 1: -1)
}
