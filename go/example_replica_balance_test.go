package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// Three replicas on four disks of weights 3, 3, 3 and 1: with plain top-3 the small disk holds
// a replica of about 40% of keys; ReplicaBalance gives it its 30%.
func ExampleNewReplicaBalance() {
	p, err := hrwhash.NewWeighted([]string{"osd.0", "osd.1", "osd.2", "osd.3"}, []float64{3, 3, 3, 1})
	if err != nil {
		panic(err)
	}
	rb, err := hrwhash.NewReplicaBalance(p, 3)
	if err != nil {
		panic(err)
	}
	const keys = 20_000
	plain, balanced := 0, 0
	for i := 0; i < keys; i++ {
		key := fmt.Sprintf("object-%d", i)
		top, _ := p.Rank(key, 3)
		set := rb.Replicas(key)
		for j := range set {
			if top[j] == 3 {
				plain++
			}
			if set[j] == 3 {
				balanced++
			}
		}
	}
	fmt.Printf("%.1f %.1f\n", float64(plain)/keys, float64(balanced)/keys)
	// Output: 0.4 0.3
}
