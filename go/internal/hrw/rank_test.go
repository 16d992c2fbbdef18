package hrw

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// rankMemberships are unweighted and weighted memberships of sizes on both sides of every
// strategy's bounds: a group taken whole (up to 2k + 2 lanes), a threshold pass, one lane per
// group, drained nodes.
func rankMemberships(t *testing.T) map[string]*Placement {
	t.Helper()
	rng := rand.New(rand.NewSource(7))
	out := map[string]*Placement{}
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 18, 19, 64, 100, 129, 300} {
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i] = Node{ID: fmt.Sprintf("node-%d", i)}
		}
		weightings := map[string]func(i int) float64{
			"unweighted":  func(int) float64 { return 1 },
			"1+i%4":       func(i int) float64 { return float64(1 + i%4) },
			"random":      func(int) float64 { return float64(rng.Intn(5)) + rng.Float64() },
			"drained":     func(i int) float64 { return float64(i % 3) },
			"one-heavy":   func(i int) float64 { return 1 + 99*float64(max(0, 1-i)) },
			"all-2.5":     func(int) float64 { return 2.5 },
			"per-node-wt": func(i int) float64 { return float64(i + 1) },
		}
		for name, w := range weightings {
			ws := make([]float64, n)
			for i := range ws {
				ws[i] = w(i)
			}
			ws[n-1] = max(ws[n-1], 0.5) // never all zero
			p, err := New(DefaultSeed, nodes, ws)
			if err != nil {
				t.Fatalf("N=%d %s: %v", n, name, err)
			}
			out[fmt.Sprintf("N=%d/%s", n, name)] = p
		}
	}
	return out
}

// reference is the whole ranking of key by a full sort, the path of the longest answers.
func (p *Placement) reference(key string) []int {
	order := p.ranking(fold(p.KeyDigest(key)), nil)
	r := make([]int, len(order))
	for i, c := range order {
		r[i] = p.node[c.lane]
	}
	return r
}

// Every strategy of RankInto gives a prefix of the full ranking: the whole-group and threshold
// passes, the scan (forced by claiming equal digests), the fallback when the threshold lets
// too few lanes through (hitStep 0) or too many (a threshold far below the top), and the sort
// of answers longer than TopMax.
func TestRankIntoStrategies(t *testing.T) {
	type variant struct {
		name     string
		distinct func(bool) bool
		hitStep  func(uint64) uint64
	}
	variants := []variant{
		{"as built", func(d bool) bool { return d }, func(h uint64) uint64 { return h }},
		{"scan", func(bool) bool { return false }, func(h uint64) uint64 { return h }},
		{"too few hits", func(d bool) bool { return d }, func(uint64) uint64 { return 0 }},
		{"too many hits", func(d bool) bool { return d }, func(uint64) uint64 { return math.MaxUint64 / (2*TopMax + 3) }},
	}
	ms := rankMemberships(t)
	for name, p := range ms {
		keys := 60
		if p.Selectable() > 100 {
			keys = 20
		}
		refs := make([][]int, keys)
		for i := range refs {
			refs[i] = p.reference(fmt.Sprintf("key-%d", i))
		}
		for _, v := range variants {
			q := *p
			q.groups = append([]group(nil), p.groups...)
			q.distinct = v.distinct(p.distinct)
			for g := range q.groups {
				q.groups[g].hitStep = v.hitStep(q.groups[g].hitStep)
			}
			for i, ref := range refs {
				key := fmt.Sprintf("key-%d", i)
				if o := q.Owner(key); o != ref[0] {
					t.Fatalf("%s %s %s: owner %d, ranking %v", name, v.name, key, o, ref)
				}
				for k := 0; k <= TopMax+2; k++ {
					out := make([]int, k+1)
					out[k] = -7 // past the buffer RankInto is given
					got := q.RankInto(key, out[:k])
					want := min(k, len(ref))
					if got != want || !reflect.DeepEqual(out[:got], ref[:want]) || out[k] != -7 {
						t.Fatalf("%s %s %s k=%d: %d %v, want %v", name, v.name, key, k, got, out[:got], ref[:want])
					}
				}
			}
		}
	}
}

// The tie vectors (equal node digests) in the memberships above: two ids with one digest
// cannot be made here, so equal digests are planted in a built placement, and the scan must
// then order their equal scores by id.
func TestRankIntoEqualDigests(t *testing.T) {
	for _, n := range []int{3, 5, 12, 40} {
		nodes := make([]Node, n)
		ws := make([]float64, n)
		for i := range nodes {
			nodes[i] = Node{ID: fmt.Sprintf("id-%02d", i)}
			ws[i] = 1
		}
		p, err := New(DefaultSeed, nodes, ws)
		if err != nil {
			t.Fatal(err)
		}
		// Lanes are in id order: give lanes 1 and 2 lane 0's digest.
		p.lanes[1], p.lanes[2] = p.lanes[0], p.lanes[0]
		p.distinct = false
		for i := 0; i < 200; i++ {
			key := fmt.Sprintf("key-%d", i)
			ref := p.reference(key)
			for k := 1; k <= min(n, TopMax); k++ {
				out := make([]int, k)
				p.RankInto(key, out)
				if !reflect.DeepEqual(out, ref[:k]) {
					t.Fatalf("N=%d %s k=%d: %v, want %v", n, key, k, out, ref[:k])
				}
			}
		}
	}
}

// RankInto allocates nothing, for every length of answer (the sort's buffer is pooled).
func TestRankIntoAllocatesNothing(t *testing.T) {
	ms := rankMemberships(t)
	for _, name := range []string{"N=5/unweighted", "N=100/unweighted", "N=100/1+i%4", "N=300/random"} {
		p := ms[name]
		for _, k := range []int{1, 2, 3, 5, 8, 9, p.Selectable()} {
			out := make([]int, k)
			p.RankInto("warm", out)
			if a := testing.AllocsPerRun(100, func() { p.RankInto("key", out) }); a != 0 {
				t.Errorf("%s k=%d: %v allocations per call", name, k, a)
			}
		}
	}
}

// ReplicasInto takes the top-k path when the first k nodes of the ranking are in distinct
// domains; it is section 6's walk over the whole ranking in every case: no domains, a domain per
// node, few domains (the walk skips and then fills), some nodes without one, drained nodes.
func TestReplicasIntoIsTheWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, n := range []int{1, 2, 3, 5, 9, 17, 40, 100, 300} {
		for _, domains := range []int{0, 1, 2, 3, 5, n} {
			nodes := make([]Node, n)
			ws := make([]float64, n)
			for i := range nodes {
				nodes[i] = Node{ID: fmt.Sprintf("node-%d", i)}
				if domains > 0 && rng.Intn(8) != 0 {
					nodes[i].Domain, nodes[i].HasDomain = fmt.Sprintf("zone-%d", rng.Intn(domains)), true
				}
				ws[i] = float64(rng.Intn(3))
				if rng.Intn(2) == 0 {
					ws[i] = 1
				}
			}
			ws[0] = 1
			p, err := New(DefaultSeed, nodes, ws)
			if err != nil {
				t.Fatal(err)
			}
			keys := 40
			if n > 100 {
				keys = 10
			}
			fast := 0
			for i := 0; i < keys; i++ {
				key := fmt.Sprintf("key-%d", i)
				for k := 0; k <= TopMax+2; k++ {
					want := make([]int, min(k, p.Selectable()))
					p.replicasByRanking(fold(p.KeyDigest(key)), want)
					out := make([]int, k+1)
					out[k] = -7
					got := p.ReplicasInto(key, out[:k])
					if got != len(want) || !reflect.DeepEqual(out[:got], want) || out[k] != -7 {
						t.Fatalf("N=%d domains=%d %s k=%d: %d %v, want %v", n, domains, key, k, got, out[:got], want)
					}
					rank := make([]int, len(want))
					p.RankInto(key, rank)
					if reflect.DeepEqual(rank, want) {
						fast++
					}
				}
			}
			if fast == 0 {
				t.Errorf("N=%d domains=%d: no answer was a prefix of the ranking", n, domains)
			}
		}
	}
}
