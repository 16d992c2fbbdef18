package hrwhash_test

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// The fuzz targets check every answer of the package against internal/hrw, the Go
// implementation: in the cgo build that compares libhrwhash with hrw-v1 written in Go; in the
// purego build it checks the package's own layer. Run them with make -C go fuzz-go.

// Weights a fuzzer reaches by one byte: the edges of SPEC.md 5.1 and some ordinary values.
var fuzzWeights = []float64{
	1, 0, 2, 0.5, 3, 1e-9, math.Ldexp(1, -33), math.Nextafter(math.Ldexp(1, -33), 1),
	math.Ldexp(3, -33), math.Nextafter(1<<32, 0), 1 << 32, -1, math.Copysign(0, -1),
	math.NaN(), math.Inf(1), math.Inf(-1), 1e-12, 7, 1.0000000001,
}

// fuzzNodes makes at most 64 nodes: ids split at '|', a weight code per node (an index into
// fuzzWeights, or 8 raw bytes of a float64 after 0xff), domains split at '|' ("-" for none).
func fuzzNodes(ids string, weights []byte, domains string) []hrwhash.Node {
	parts := strings.Split(ids, "|")
	if ids == "" {
		parts = nil
	}
	if len(parts) > 64 {
		parts = parts[:64]
	}
	doms := strings.Split(domains, "|")
	nodes := make([]hrwhash.Node, len(parts))
	for i, id := range parts {
		nodes[i].ID = id
		if len(weights) > 0 {
			c := weights[0]
			weights = weights[1:]
			switch {
			case c == 0xff && len(weights) >= 8:
				nodes[i].Weight = hrwhash.Weight(math.Float64frombits(binary.LittleEndian.Uint64(weights)))
				weights = weights[8:]
			case int(c) < len(fuzzWeights):
				nodes[i].Weight = hrwhash.Weight(fuzzWeights[c])
			}
		}
		if i < len(doms) && doms[i] != "-" {
			nodes[i].Domain, nodes[i].HasDomain = doms[i], true
		}
	}
	return nodes
}

func reference(seed hrwhash.Seed, nodes []hrwhash.Node) (*hrw.Placement, error) {
	hn := make([]hrw.Node, len(nodes))
	ws := make([]float64, len(nodes))
	for i, n := range nodes {
		hn[i] = hrw.Node{ID: n.ID, Domain: n.Domain, HasDomain: n.HasDomain || n.Domain != ""}
		ws[i] = 1
		if n.Weight != nil {
			ws[i] = *n.Weight
		}
	}
	return hrw.New([hrw.SeedLen]byte(seed), hn, ws)
}

func sameWeight(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// compareBuild fails unless the package and the reference agree on the build's outcome.
func compareBuild(t *testing.T, p *hrwhash.Placement, err error, ref *hrw.Placement, rerr error) {
	t.Helper()
	if (err == nil) != (rerr == nil) {
		t.Fatalf("package: %v; reference: %v", err, rerr)
	}
	if err == nil {
		return
	}
	var e *hrwhash.Error
	re, ok := rerr.(*hrw.Error)
	if !errors.As(err, &e) || !ok {
		t.Fatalf("untyped errors: %v, %v", err, rerr)
	}
	if uint32(e.Code) != re.Code {
		t.Fatalf("package: %v; reference: code %d", err, re.Code)
	}
	switch e.Code {
	case hrwhash.CodeEmptyNodeID:
		if e.Index != re.Index {
			t.Fatalf("index %d, reference %d", e.Index, re.Index)
		}
	case hrwhash.CodeDuplicateNodeID:
		if e.Index != re.Index || e.FirstIndex != re.FirstIndex {
			t.Fatalf("%v; reference %d, %d", err, re.Index, re.FirstIndex)
		}
	case hrwhash.CodeInvalidWeight:
		if e.Index != re.Index || !sameWeight(e.Weight, re.Value) {
			t.Fatalf("%v; reference %d, %v", err, re.Index, re.Value)
		}
	}
	if !strings.HasPrefix(err.Error(), "hrwhash: ") {
		t.Fatalf("message %q", err)
	}
}

// compareLookups checks owner, rank, replicas, rank_many and scores for one key and k.
func compareLookups(t *testing.T, p *hrwhash.Placement, ref *hrw.Placement, key string, k int) {
	t.Helper()
	o := p.Owner(key)
	if o != ref.Owner(key) {
		t.Fatalf("owner(%q) = %d; reference %d", key, o, ref.Owner(key))
	}
	r, err := p.Rank(key, k)
	if k < 0 {
		if !errors.Is(err, hrwhash.ErrInvalidCount) {
			t.Fatalf("rank(k = %d): %v", k, err)
		}
		return
	}
	want := make([]int, min(k, ref.Selectable()))
	ref.RankInto(key, want)
	if err != nil || !reflect.DeepEqual(r, want) {
		t.Fatalf("rank(%q, %d) = %v, %v; reference %v", key, k, r, err, want)
	}
	if len(r) > 0 && r[0] != o {
		t.Fatalf("rank(%q)[0] = %d, owner %d", key, r[0], o)
	}
	rep, err := p.Replicas(key, k)
	ref.ReplicasInto(key, want)
	if err != nil || !reflect.DeepEqual(rep, want) {
		t.Fatalf("replicas(%q, %d) = %v, %v; reference %v", key, k, rep, err, want)
	}
	rows, err := p.RankMany([]string{key, key + "x"}, k)
	if err != nil || len(rows) != 2 || !reflect.DeepEqual(rows[0], r) {
		t.Fatalf("rank_many: %v, %v", rows, err)
	}
	owners, err := p.Owners([]string{key, "", key})
	if err != nil || owners[0] != o || owners[2] != o {
		t.Fatalf("owners: %v, %v", owners, err)
	}
	for i := 0; i < p.Len() && i < 8; i++ {
		id, _ := p.NodeID(i)
		s, err := p.Score(key, id)
		if err != nil || s != ref.Score(key, i) {
			t.Fatalf("score(%q, %d) = %d, %v; reference %d", key, i, s, err, ref.Score(key, i))
		}
	}
	if d := hrwhash.KeyDigest(p.Seed(), key); d != ref.KeyDigest(key) || d != hrw.KeyDigest(ref.Seed, key) {
		t.Fatalf("key digest of %q: %d; reference %d", key, d, ref.KeyDigest(key))
	}
	if d := hrwhash.NodeDigest(p.Seed(), key); d != hrw.NodeDigest(ref.Seed, key) {
		t.Fatalf("node digest of %q: %d", key, d)
	}
}

func FuzzBuild(f *testing.F) {
	// Every answer from libhrwhash in the cgo build: the Go implementation is the reference.
	defer hrwhash.SetGoLookupMax(hrwhash.SetGoLookupMax(-1))
	f.Add([]byte{}, "a|b|c", []byte{}, "-", "key", 2)
	f.Add([]byte("0123456789abcdef"), "a|b|c|d", []byte{0, 1, 2, 3}, "z|z|y|-", "k", 3)
	f.Add([]byte("short"), "a", []byte{13}, "", "", 1)
	f.Add([]byte{}, "a||b", []byte{11, 14}, "", "x", -1)
	f.Add([]byte{}, "a|b|a", []byte{1, 1, 1}, "", "x", 5)
	f.Add([]byte{}, "x|y", []byte{0xff, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 6}, "|", "\xff\x00", 9)
	f.Add([]byte{}, "n1|n2|n3|n4|n5|n6|n7|n8|n9", []byte{2, 3, 4, 5, 7, 8, 9, 17, 18}, "a|b|a|b|a|b|-|-|c", "key-1", 4)
	f.Fuzz(func(t *testing.T, seedBytes []byte, ids string, weights []byte, domains string, key string, k int) {
		seed := hrwhash.DefaultSeed()
		var opts []hrwhash.Option
		if len(seedBytes) > 0 {
			s, err := hrwhash.SeedFromBytes(seedBytes)
			var e *hrwhash.Error
			if len(seedBytes) != hrwhash.SeedLen {
				if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidSeedLength || e.Actual != len(seedBytes) {
					t.Fatalf("seed of %d bytes: %v", len(seedBytes), err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				seed = s
				opts = append(opts, hrwhash.WithSeed(s))
			}
		}
		nodes := fuzzNodes(ids, weights, domains)
		p, err := hrwhash.NewNodes(nodes, opts...)
		ref, rerr := reference(seed, nodes)
		compareBuild(t, p, err, ref, rerr)
		if err != nil {
			return
		}
		if p.Len() != len(nodes) || p.SelectableLen() != ref.Selectable() || p.Seed() != seed {
			t.Fatalf("len %d, selectable %d (reference %d)", p.Len(), p.SelectableLen(), ref.Selectable())
		}
		if k > 1<<20 || k < -(1<<20) {
			k %= 1 << 20
		}
		compareLookups(t, p, ref, key, k)
		for i, n := range nodes {
			if j, ok := p.Find(n.ID); !ok || j != i {
				t.Fatalf("find(%q) = %d, %v", n.ID, j, ok)
			}
		}
		// Membership changes agree with building the changed list from scratch.
		if len(nodes) > 0 {
			id := nodes[len(nodes)-1].ID
			q, err := p.WithoutNode(id)
			rq, rerr := reference(seed, nodes[:len(nodes)-1])
			compareBuild(t, q, err, rq, rerr)
			w := 0.0
			if len(weights) > 0 {
				w = fuzzWeights[int(weights[0])%len(fuzzWeights)]
			}
			q, err = p.WithWeight(id, w)
			changed := append([]hrwhash.Node(nil), nodes...)
			changed[len(changed)-1].Weight = hrwhash.Weight(w)
			rq, rerr = reference(seed, changed)
			compareBuild(t, q, err, rq, rerr)
			if err == nil {
				compareLookups(t, q, rq, key, 3)
			}
			q, err = p.WithNode(hrwhash.Node{ID: key, Domain: domains})
			rq, rerr = reference(seed, append(append([]hrwhash.Node(nil), nodes...), hrwhash.Node{ID: key, Domain: domains}))
			compareBuild(t, q, err, rq, rerr)
			if err == nil {
				compareLookups(t, q, rq, ids, 2)
			}
		}
	})
}

// Fixed memberships of every shape the lookups distinguish: unweighted (one group), two
// weights, many weights with drained nodes and domains.
func lookupPlacements() []struct {
	p   *hrwhash.Placement
	ref *hrw.Placement
} {
	var out []struct {
		p   *hrwhash.Placement
		ref *hrw.Placement
	}
	add := func(nodes []hrwhash.Node, seed hrwhash.Seed) {
		p, err := hrwhash.NewNodes(nodes, hrwhash.WithSeed(seed))
		ref, rerr := reference(seed, nodes)
		if err != nil || rerr != nil {
			panic(err)
		}
		out = append(out, struct {
			p   *hrwhash.Placement
			ref *hrw.Placement
		}{p, ref})
	}
	var uniform, two, many []hrwhash.Node
	for i := 0; i < 300; i++ {
		id := "node-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		if i < 7 {
			uniform = append(uniform, hrwhash.Node{ID: id})
		}
		if i < 40 {
			two = append(two, hrwhash.Node{ID: id, Weight: hrwhash.Weight(float64(1 + i%2))})
		}
		many = append(many, hrwhash.Node{ID: id, Weight: hrwhash.Weight(fuzzWeights[i%4] * float64(1+i%11)), Domain: string(rune('A' + i%5))})
	}
	add(uniform, hrwhash.DefaultSeed())
	add(two, hrwhash.Seed{1, 2, 3})
	add(many, hrwhash.DefaultSeed())
	return out
}

func FuzzLookup(f *testing.F) {
	// Every answer from libhrwhash in the cgo build: the Go implementation is the reference.
	defer hrwhash.SetGoLookupMax(hrwhash.SetGoLookupMax(-1))
	placements := lookupPlacements()
	f.Add("key", 1, uint8(0))
	f.Add("", 0, uint8(1))
	f.Add("\xff\xfe\x00", 300, uint8(2))
	f.Add("a long key that spans several SipHash words", 7, uint8(2))
	f.Add("k", -5, uint8(1))
	f.Fuzz(func(t *testing.T, key string, k int, which uint8) {
		c := placements[int(which)%len(placements)]
		if k > 1<<20 || k < -(1<<20) {
			if _, err := c.p.Rank(key, k); (k < 0) != errors.Is(err, hrwhash.ErrInvalidCount) {
				t.Fatalf("rank(k = %d): %v", k, err)
			}
			k %= 1 << 20
		}
		compareLookups(t, c.p, c.ref, key, k)
	})
}
