package bench_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	rendezvous "github.com/dgryski/go-rendezvous"

	"github.com/hrwhash/hrwhash/go"
)

// The workload of the shared peer harness: nodes "node-i", keys "key-i", for 5, 100 and 1000
// nodes, or the counts HRWHASH_BENCH_N lists (comma-separated); a list that is not one stops the
// benchmark with the entry it could not read.
func benchSizes(b *testing.B) []int {
	counts, err := sizes(os.Getenv("HRWHASH_BENCH_N"), []int{5, 100, 1000})
	if err != nil {
		b.Fatal(err)
	}
	return counts
}

// sizes reads list, the node counts of HRWHASH_BENCH_N, or gives otherwise for an empty one.
func sizes(list string, otherwise []int) ([]int, error) {
	if list == "" {
		return otherwise, nil
	}
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("HRWHASH_BENCH_N: %q is not a node count (a positive integer)", f)
		}
		out = append(out, n)
	}
	return out, nil
}

const benchKeys = 4096

func benchInputs(n int) ([]string, []string) {
	nodes := make([]string, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%d", i)
	}
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%d", i)
	}
	return nodes, keys
}

var sink int

// build names hrwhash's build, cgo (libhrwhash) or purego (Go alone); go-rendezvous runs in
// both test binaries, so each build has a peer measured in its own process.
var build = "build=" + hrwhash.Backend

// BenchmarkOwner compares one lookup per call with go-rendezvous as go-redis configures it
// (xxhash), which is what Ring uses by default.
func BenchmarkOwner(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=hrwhash/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o := p.Owner(keys[i%benchKeys])
				sink += o
			}
		})
		b.Run(fmt.Sprintf("%s/lib=go-rendezvous/N=%d", build, n), func(b *testing.B) {
			r := rendezvous.New(nodes, xxhash.Sum64String)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += len(r.Lookup(keys[i%benchKeys]))
			}
		})
	}
}

// BenchmarkOwners amortises the cgo call over 256 keys (the purego build loops); ns/op is per
// key.
func BenchmarkOwners(b *testing.B) {
	const batch = 256
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=hrwhash-batch/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]int, batch)
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				start := i % (benchKeys - batch)
				if err := p.OwnersInto(keys[start:start+batch], out); err != nil {
					b.Fatal(err)
				}
				sink += out[0]
			}
		})
	}
}

// benchWeights is the harness's weighted workload: node i has weight 1 + i%4.
func benchWeights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = float64(1 + i%4)
	}
	return w
}

// BenchmarkRank is the harness's top-3: Rank(key, 3), a fresh slice per call.
func BenchmarkRank(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=hrwhash-rank3/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				top, _ := p.Rank(keys[i%benchKeys], 3)
				sink += top[0]
			}
		})
	}
}

// BenchmarkRankInto is the same top-3 into a reused buffer.
func BenchmarkRankInto(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=hrwhash-rankinto3/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				b.Fatal(err)
			}
			var out [3]int
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m := p.RankInto(keys[i%benchKeys], out[:])
				sink += out[0] + m
			}
		})
	}
}

// BenchmarkOwnerWeighted is the harness's weighted owner (weights 1, 2, 3, 4, 1, 2, ...).
func BenchmarkOwnerWeighted(b *testing.B) {
	for _, n := range benchSizes(b) {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=hrwhash-weighted/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.NewWeighted(nodes, benchWeights(n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o := p.Owner(keys[i%benchKeys])
				sink += o
			}
		})
	}
}

// BenchmarkOwnerLargeN is go-rendezvous at the fleet sizes of the slot-table study
// (bench/NOTES.md, "The slot-table policy (large fleets)"), where its lookup is O(N).
func BenchmarkOwnerLargeN(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		nodes, keys := benchInputs(n)
		b.Run(fmt.Sprintf("%s/lib=go-rendezvous/N=%d", build, n), func(b *testing.B) {
			r := rendezvous.New(nodes, xxhash.Sum64String)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += len(r.Lookup(keys[i%benchKeys]))
			}
		})
	}
}
