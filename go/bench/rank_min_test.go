package bench_test

import (
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"
	rendezvous "github.com/dgryski/go-rendezvous"

	"github.com/hrwhash/hrwhash/go"
)

// BenchmarkRankMin is BenchmarkOwnerMin for top-3: RankInto(key, out[:3]) into a reused buffer,
// and Replicas(key, 3) (no failure domains; it allocates its answer). go-rendezvous has no
// ranking: its owner lookup runs in the bursts between, as the same reference under the same
// load, so that runs of different builds and kernels compare through it (the ratio column, of
// go-rendezvous's owner to hrwhash's top-3).
func BenchmarkRankMin(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			r := rendezvous.New(nodes, xxhash.Sum64String)
			var out [3]int
			fastestBursts(b, []burstRun{
				func(k int) {
					for j := 0; j < burst; j++ {
						sink += p.RankInto(keys[(k+j)%benchKeys], out[:])
					}
				},
				func(k int) {
					for j := 0; j < burst; j++ {
						sink += len(r.Lookup(keys[(k+j)%benchKeys]))
					}
				},
				func(k int) {
					for j := 0; j < burst; j++ {
						set, _ := p.Replicas(keys[(k+j)%benchKeys], 3)
						sink += set[0]
					}
				},
			}, []string{"hrwhash-top3-min-ns/key", "go-rendezvous-owner-min-ns/key", "hrwhash-replicas3-min-ns/key"})
		})
	}
}
