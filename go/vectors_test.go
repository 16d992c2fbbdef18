package hrwhash_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/vectorstest"
)

// The vectors' schema and readers, shared with the other suite that runs them.
type (
	vnode   = vectorstest.Node
	vcase   = vectorstest.Case
	vectors = vectorstest.Vectors
)

var (
	unhex    = vectorstest.Unhex
	u64      = vectorstest.U64
	weightOf = vectorstest.Weight
)

// loadVectors reads vectors.json and every other vectors file of that format beside it
// (vectors-edge.json once it exists) and merges their cases.
func loadVectors(t *testing.T) *vectors {
	t.Helper()
	path := os.Getenv("HRWHASH_VECTORS")
	if path == "" {
		path = filepath.Join("..", "conformance", "vectors.json")
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "vectors*.json"))
	var all vectors
	for _, f := range append([]string{path}, files...) {
		if f != path && filepath.Clean(f) == filepath.Clean(path) {
			continue
		}
		v := vectorstest.Load(t, f)
		all.Algorithm = v.Algorithm
		all.Cases = append(all.Cases, v.Cases...)
		all.DrawCases = append(all.DrawCases, v.DrawCases...)
		all.WeightCases = append(all.WeightCases, v.WeightCases...)
		all.ErrorCases = append(all.ErrorCases, v.ErrorCases...)
	}
	return &all
}

func build(t *testing.T, c *vcase) (*hrwhash.Placement, error) {
	var nodes []hrwhash.Node
	if c.NodePrefix != nil {
		prefix := unhex(t, *c.NodePrefix)
		for i := 0; i < c.NodeCount; i++ {
			n := hrwhash.Node{ID: prefix + strconv.Itoa(i)}
			if len(c.WeightCycle) > 0 {
				n.Weight = hrwhash.Weight(c.WeightCycle[i%len(c.WeightCycle)])
			}
			nodes = append(nodes, n)
		}
	}
	for _, vn := range c.Nodes {
		n := hrwhash.Node{ID: unhex(t, vn.ID)}
		if vn.Weight != nil {
			n.Weight = hrwhash.Weight(weightOf(t, vn.Weight))
		}
		if vn.Domain != nil {
			n.Domain, n.HasDomain = unhex(t, *vn.Domain), true
		}
		nodes = append(nodes, n)
	}
	var opts []hrwhash.Option
	if c.Seed != nil {
		seed, err := hrwhash.SeedFromBytes([]byte(unhex(t, *c.Seed)))
		if err != nil {
			return nil, err
		}
		opts = append(opts, hrwhash.WithSeed(seed))
	}
	return hrwhash.NewNodes(nodes, opts...)
}

// sameInts is reflect.DeepEqual that takes an empty slice and a JSON [] as equal.
func sameInts(a, b []int) bool {
	return (len(a) == 0 && len(b) == 0) || reflect.DeepEqual(a, b)
}

// eachLookupMode runs f with the cgo build's default split of lookups between Go and
// libhrwhash, and again with every lookup sent to libhrwhash (the purego build runs the same
// thing twice).
func eachLookupMode(t *testing.T, f func(t *testing.T)) {
	def := hrwhash.SetGoLookupMax(-1)
	defer hrwhash.SetGoLookupMax(def)
	for _, m := range []struct {
		name string
		max  int
	}{{"default", def}, {"library", -1}} {
		hrwhash.SetGoLookupMax(m.max)
		t.Run(m.name, f)
	}
}

func TestVectors(t *testing.T) { eachLookupMode(t, testVectors) }

func testVectors(t *testing.T) {
	v := loadVectors(t)
	if v.Algorithm != hrwhash.Algorithm || len(v.Cases) == 0 {
		t.Fatalf("algorithm %q, %d cases", v.Algorithm, len(v.Cases))
	}
	for i := range v.Cases {
		c := &v.Cases[i]
		p, err := build(t, c)
		if err != nil {
			t.Errorf("%s: build: %v", c.Name, err)
			continue
		}
		key := unhex(t, c.Key)
		if d := hrwhash.KeyDigest(p.Seed(), key); d != u64(t, c.Expected.KeyDigest) {
			t.Errorf("%s: key digest %d", c.Name, d)
		}
		for n, want := range c.Expected.NodeDigests {
			id, _ := p.NodeID(n)
			if d := hrwhash.NodeDigest(p.Seed(), id); d != u64(t, want) {
				t.Errorf("%s: node digest %d: %d", c.Name, n, d)
			}
		}
		if o := p.Owner(key); o != c.Expected.Owner {
			t.Errorf("%s: owner %d, %v; want %d", c.Name, o, err, c.Expected.Owner)
		}
		if o, err := p.Owners([]string{"", key}); err != nil || o[1] != c.Expected.Owner {
			t.Errorf("%s: owners %v, %v", c.Name, o, err)
		}
		if r, err := p.Rank(key, c.K); err != nil || !sameInts(r, c.Expected.Rank) {
			t.Errorf("%s: rank %v, %v; want %v", c.Name, r, err, c.Expected.Rank)
		}
		// RankInto into a buffer of k, and into each shorter one (each of its strategies).
		for k := c.K; k >= 0; k-- {
			if k < c.K && k > 12 {
				k = 12
			}
			out := make([]int, k)
			n := p.RankInto(key, out)
			if want := c.Expected.Rank[:min(k, len(c.Expected.Rank))]; !sameInts(out[:n], want) {
				t.Errorf("%s: RankInto k=%d: %v; want %v", c.Name, k, out[:n], want)
			}
		}
		if c.Expected.Replicas != nil {
			if r, err := p.Replicas(key, c.K); err != nil || !sameInts(r, c.Expected.Replicas) {
				t.Errorf("%s: replicas %v, %v; want %v", c.Name, r, err, c.Expected.Replicas)
			}
		}
		for n, want := range c.Expected.Scores {
			id, _ := p.NodeID(n)
			if s, err := p.Score(key, id); err != nil || s != u64(t, want) {
				t.Errorf("%s: score %d: %d, %v", c.Name, n, s, err)
			}
			kd, nd := u64(t, c.Expected.KeyDigest), u64(t, c.Expected.NodeDigests[n])
			if s := hrwhash.Score(kd, nd); s != u64(t, want) {
				t.Errorf("%s: Score(key digest, node digest %d) = %d, want %s", c.Name, n, s, want)
			}
		}
	}
	for _, d := range v.DrawCases {
		if got := hrwhash.Draw(u64(t, d.Score)); got != u64(t, d.Draw) {
			t.Errorf("draw(%s) = %d, want %s", d.Score, got, d.Draw)
		}
	}
}

func TestWeightVectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.WeightCases {
		w := weightOf(t, c.Weight)
		got, err := hrwhash.WeightToFixed(w)
		if c.Fixed != "" {
			if err != nil || got != u64(t, c.Fixed) {
				t.Errorf("weight %v: %d, %v; want %s", w, got, err, c.Fixed)
			}
		} else if !errors.Is(err, variants[c.Error]) {
			t.Errorf("weight %v: error %v, want %s", w, err, c.Error)
		}
	}
}

func TestErrorVectors(t *testing.T) {
	v := loadVectors(t)
	if len(v.ErrorCases) == 0 {
		t.Fatal("no error cases")
	}
	for i := range v.ErrorCases {
		c := &v.ErrorCases[i]
		want, ok := variants[c.Error]
		if !ok {
			t.Fatalf("%s: unknown error name %s", c.Name, c.Error)
		}
		p, err := build(t, c)
		var e *hrwhash.Error
		if p != nil || !errors.Is(err, want) || !errors.As(err, &e) {
			t.Errorf("%s: got %v, %v; want %s", c.Name, p, err, c.Error)
		}
	}
}
