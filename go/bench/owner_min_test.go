package bench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	rendezvous "github.com/dgryski/go-rendezvous"

	"github.com/hrwhash/hrwhash/go"
)

// burst is how many lookups one timed burst makes.
const burst = 256

// A run of burst lookups from the k-th key on, each added to sink so that none is optimised away.
type burstRun func(k int)

// fastestBursts runs the bursts in turn over the same keys, b.N times, and reports the fastest of
// each in ns per lookup under its metric name, and the ratio of the second (go-rendezvous, the
// reference) to the first. A burst lasts microseconds, so many of them run without being
// preempted, and every side is sampled under the same load; ns/op is the whole round.
func fastestBursts(b *testing.B, runs []burstRun, metrics []string) {
	best := make([]time.Duration, len(runs))
	for i := range best {
		best[i] = 1 << 62
	}
	k := 0
	for i := 0; i < b.N; i++ {
		for r, run := range runs {
			start := time.Now()
			run(k)
			best[r] = min(best[r], time.Since(start))
		}
		k += burst
	}
	ns := func(r int) float64 { return float64(best[r].Nanoseconds()) / burst }
	for r, m := range metrics {
		b.ReportMetric(ns(r), m)
	}
	b.ReportMetric(ns(1)/ns(0), "ratio")
}

// BenchmarkOwnerMin is BenchmarkOwner for a shared, loaded machine: hrwhash and go-rendezvous
// run in alternating bursts within one loop, and each reports the fastest of its bursts in ns
// per lookup (min-ns/key).
func BenchmarkOwnerMin(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			r := rendezvous.New(nodes, xxhash.Sum64String)
			fastestBursts(b, []burstRun{
				func(k int) {
					for j := 0; j < burst; j++ {
						sink += p.Owner(keys[(k+j)%benchKeys])
					}
				},
				func(k int) {
					for j := 0; j < burst; j++ {
						sink += len(r.Lookup(keys[(k+j)%benchKeys]))
					}
				},
			}, []string{"hrwhash-min-ns/key", "go-rendezvous-min-ns/key"})
		})
	}
}
