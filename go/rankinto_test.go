package hrwhash_test

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// specRanking is the ranking of key by SPEC.md section 5.3 alone, from the placement's public
// scores, draws and fixed weights: the reference that RankInto and Rank are held to.
func specRanking(t *testing.T, p *hrwhash.Placement, key string) []int {
	t.Helper()
	type entry struct {
		index               int
		id                  string
		score, draw, weight uint64
	}
	var es []entry
	for i := 0; i < p.Len(); i++ {
		n, _ := p.Node(i)
		w, err := hrwhash.WeightToFixed(*n.Weight)
		if err != nil {
			t.Fatal(err)
		}
		if w == 0 {
			continue
		}
		s, err := p.Score(key, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, entry{index: i, id: n.ID, score: s, draw: hrwhash.Draw(s), weight: w})
	}
	sort.Slice(es, func(a, b int) bool {
		x, y := es[a], es[b]
		lh, ll := bits.Mul64(x.draw, y.weight)
		rh, rl := bits.Mul64(y.draw, x.weight)
		if lh != rh {
			return lh < rh
		}
		if ll != rl {
			return ll < rl
		}
		if x.score != y.score {
			return x.score > y.score
		}
		return x.id < y.id
	})
	r := make([]int, len(es))
	for i, e := range es {
		r[i] = e.index
	}
	return r
}

type rankMembership struct {
	name    string
	ids     []string
	weights []float64
}

// rankTestMemberships covers unweighted and weighted memberships on both sides of the cgo build's
// split (128 selectable nodes answered in Go) and of the Go strategies (a group of up to 2k + 2
// nodes taken whole, a threshold pass, one node per weight group, drained nodes).
func rankTestMemberships() []rankMembership {
	rng := rand.New(rand.NewSource(11))
	var ms []rankMembership
	for _, n := range []int{1, 2, 3, 5, 8, 9, 17, 40, 100, 128, 129, 300} {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("node-%d", i)
		}
		weightings := []struct {
			name string
			w    func(i int) float64
		}{
			{"unweighted", func(int) float64 { return 1 }},
			{"1+i%4", func(i int) float64 { return float64(1 + i%4) }},
			{"random", func(int) float64 { return float64(rng.Intn(4)) + rng.Float64() }},
			{"drained", func(i int) float64 { return float64(i % 3) }},
			{"all-3", func(int) float64 { return 3 }},
		}
		for _, wt := range weightings {
			ws := make([]float64, n)
			for i := range ws {
				ws[i] = wt.w(i)
			}
			ws[0] = max(ws[0], 0.25) // never all drained
			ms = append(ms, rankMembership{fmt.Sprintf("N=%d/%s", n, wt.name), ids, ws})
		}
	}
	return ms
}

// RankInto into buffers of every length up to 10 and past the membership gives Rank's answer
// and SPEC.md's ranking, leaves the rest of the buffer alone, and agrees between the two ways
// the cgo build answers (Go for small memberships, libhrwhash for all).
func TestRankIntoAgreesWithRank(t *testing.T) {
	for _, m := range rankTestMemberships() {
		var ps []*hrwhash.Placement
		def := hrwhash.SetGoLookupMax(-1)
		for _, limit := range []int{def, -1} {
			hrwhash.SetGoLookupMax(limit)
			p, err := hrwhash.NewWeighted(m.ids, m.weights)
			if err != nil {
				hrwhash.SetGoLookupMax(def)
				t.Fatalf("%s: %v", m.name, err)
			}
			ps = append(ps, p)
		}
		hrwhash.SetGoLookupMax(def)
		keys := 120
		if len(m.ids) > 128 {
			keys = 25
		}
		for i := 0; i < keys; i++ {
			key := fmt.Sprintf("key-%d", i)
			ref := specRanking(t, ps[0], key)
			lengths := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, len(ref), len(ref) + 3}
			for mode, p := range ps {
				for _, k := range lengths {
					buf := make([]int, k+1)
					for j := range buf {
						buf[j] = -1
					}
					n := p.RankInto(key, buf[:k])
					want := min(k, len(ref))
					if n != want || !reflect.DeepEqual(buf[:n], ref[:want]) {
						t.Fatalf("%s mode %d %s k=%d: %d %v, want %v", m.name, mode, key, k, n, buf[:n], ref[:want])
					}
					for j := n; j <= k; j++ {
						if buf[j] != -1 {
							t.Fatalf("%s mode %d %s k=%d: wrote out[%d] past the answer", m.name, mode, key, k, j)
						}
					}
					r, err := p.Rank(key, k)
					if err != nil || !reflect.DeepEqual(r, buf[:n]) {
						t.Fatalf("%s mode %d %s k=%d: Rank %v %v, RankInto %v", m.name, mode, key, k, r, err, buf[:n])
					}
				}
			}
		}
	}
}

// RankInto has no error: a nil or zero Placement, the one misuse, panics with ErrNullParameter
// (Rank returns it), checked before anything else, and an empty or nil buffer is an empty
// answer (Rank's k = 0). A negative count, Rank's other error, cannot be posed with a slice.
func TestRankIntoBadInputs(t *testing.T) {
	var nilp *hrwhash.Placement
	var zero hrwhash.Placement
	for name, p := range map[string]*hrwhash.Placement{"nil": nilp, "zero": &zero} {
		for _, out := range [][]int{nil, {}, make([]int, 3)} {
			err := hrwhash.NullPanic(func() { p.RankInto("k", out) })
			_, rankErr := p.Rank("k", len(out))
			if !errors.Is(err, hrwhash.ErrNullParameter) || !errors.Is(rankErr, hrwhash.ErrNullParameter) {
				t.Errorf("%s placement, out of %d: %v (Rank: %v)", name, len(out), err, rankErr)
			}
			var e *hrwhash.Error
			if !errors.As(err, &e) || e.Code != hrwhash.CodeNullParameter {
				t.Errorf("%s placement: %#v is not an *Error of CodeNullParameter", name, err)
			}
		}
	}
	p, err := hrwhash.NewWeighted([]string{"a", "b", "c"}, []float64{1, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range [][]int{nil, {}} {
		if n := p.RankInto("k", out); n != 0 {
			t.Errorf("out of %d: %d", len(out), n)
		}
	}
	// Longer than the selectable nodes: two answers (b is drained), the rest untouched.
	out := []int{-1, -1, -1, -1}
	if n := p.RankInto("k", out); n != 2 || out[2] != -1 || out[3] != -1 {
		t.Errorf("long out: %d, %v", n, out)
	}
	if _, err := p.Rank("k", -1); !errors.Is(err, hrwhash.ErrInvalidCount) {
		t.Errorf("Rank(-1): %v", err)
	}
}

// RankInto allocates nothing, in either build and on either side of the cgo build's split.
// With older Go toolchains (1.21) a cgo call itself allocates once: a ranking that goes to
// libhrwhash may then allocate what an owner lookup that goes there does, and nothing more.
func TestRankIntoAllocatesNothing(t *testing.T) {
	for _, n := range []int{5, 100, 1000} {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("node-%d", i)
		}
		p, err := hrwhash.New(ids...)
		if err != nil {
			t.Fatal(err)
		}
		def := hrwhash.SetGoLookupMax(-1)
		inC, err := hrwhash.New(ids...)
		hrwhash.SetGoLookupMax(def)
		if err != nil {
			t.Fatal(err)
		}
		cgoCall := testing.AllocsPerRun(100, func() { inC.Owner("key-1") })
		for _, k := range []int{1, 3, 8, 20} {
			out := make([]int, k)
			p.RankInto("warm", out)
			limit := cgoCall
			if hrwhash.Backend == "purego" || (n <= def && k <= 8) {
				limit = 0 // answered in Go
			}
			if a := testing.AllocsPerRun(100, func() { p.RankInto("key-1", out) }); a > limit {
				t.Errorf("N=%d k=%d: %v allocations per call (a cgo call: %v)", n, k, a, cgoCall)
			}
		}
	}
}
