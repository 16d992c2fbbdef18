package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// A batch of sessions over three workers, none holding more than 1.25 times its share.
func ExampleBoundedLoad_Assign() {
	p, err := hrwhash.New("worker-a", "worker-b", "worker-c")
	if err != nil {
		panic(err)
	}
	bl, err := hrwhash.NewBoundedLoad(p, 125, 100)
	if err != nil {
		panic(err)
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("session:%d", i)
	}
	owners, err := bl.Assign(keys)
	if err != nil {
		panic(err)
	}
	counts := make([]int, p.Len())
	for _, o := range owners {
		counts[o]++
	}
	// ceil(1.25 * 1000 / 3) = 417
	fmt.Println(max(counts[0], counts[1], counts[2]) <= 417)
	// Output: true
}
