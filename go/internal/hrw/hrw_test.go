package hrw

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go/internal/hrw/tablegen"
	"github.com/hrwhash/hrwhash/go/internal/vectorstest"
)

var repo = filepath.Join("..", "..", "..")

// The vector of the SipHash paper, appendix A: SipHash-2-4, key 00..0f, message 00..0e.
func TestSipHashPaperVector(t *testing.T) {
	key := make([]byte, 16)
	msg := make([]byte, 15)
	for i := range key {
		key[i] = byte(i)
	}
	for i := range msg {
		msg[i] = byte(i)
	}
	got := SipHash(2, 4, binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:]), msg)
	if got != 0xa129ca6149be45e5 {
		t.Fatalf("SipHash-2-4 of the paper's vector = %#x, want 0xa129ca6149be45e5", got)
	}
}

// The per-seed shortcuts of KeyHasher (the state after "hrw-v1:k", and after the length word for
// keys shorter than shortKeys) must equal the plain SipHash-1-3 of the framed message for every
// length class of the key (below, at and across each 8-byte boundary and shortKeys).
func TestKeyHasherEqualsPlainSipHash(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 40; round++ {
		// The default seed's prepared states are shared; every other seed prepares its own.
		seed := DefaultSeed
		if round > 0 {
			rng.Read(seed[:])
		}
		h := NewKeyHasher(seed)
		for n := 0; n <= 200; n++ {
			b := make([]byte, n)
			rng.Read(b)
			if got, want := h.Digest(string(b)), KeyDigest(seed, string(b)); got != want {
				t.Fatalf("seed %x, key of %d bytes: %#x, plain SipHash gives %#x", seed, n, got, want)
			}
		}
	}
}

func TestTablesAreGenerated(t *testing.T) {
	src, err := tablegen.Source()
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, have) {
		t.Fatal("tables.go is stale: go run ./internal/hrw/tablegen/cmd > internal/hrw/tables.go")
	}
}

// The Rust core derives the same tables on its own (core/src/log2_*.in).
func TestTablesEqualTheCore(t *testing.T) {
	read := func(name string) []uint64 {
		data, err := os.ReadFile(filepath.Join(repo, "core", "src", name))
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, m := range regexp.MustCompile(`0x([0-9a-fA-F_]+)`).FindAllSubmatch(data, -1) {
			v, err := strconv.ParseUint(string(bytes.ReplaceAll(m[1], []byte("_"), nil)), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	if got := read("log2_table.in"); !reflect.DeepEqual(got, log2Table[:]) {
		t.Errorf("log2Table differs from core/src/log2_table.in (%d entries there)", len(got))
	}
	if got := read("log2_bump.in"); !reflect.DeepEqual(got, log2Bump[:]) {
		t.Errorf("log2Bump differs from core/src/log2_bump.in (%d entries there)", len(got))
	}
}

func TestFixedWeightEdges(t *testing.T) {
	cases := []struct {
		w     float64
		fixed uint64
		ok    bool
	}{
		{0, 0, true},
		{math.Copysign(0, -1), 0, true},
		{1, 1 << 32, true},
		{0.5, 1 << 31, true},
		{math.Ldexp(1, -33), 0, false},                   // exactly half a unit rounds to even 0
		{math.Nextafter(math.Ldexp(1, -33), 1), 1, true}, // just above half a unit
		{math.Ldexp(3, -33), 2, true},                    // 1.5 units round to even 2
		{math.Ldexp(5, -33), 2, true},                    // 2.5 units round to even 2
		{math.Nextafter(1<<32, 0), math.MaxUint64 - (1 << 11) + 1, true},
		{1 << 32, 0, false},
		{-1, 0, false},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
	}
	for _, c := range cases {
		f, ok := FixedWeight(c.w)
		if ok != c.ok || (ok && f != c.fixed) {
			t.Errorf("FixedWeight(%v) = %d, %v; want %d, %v", c.w, f, ok, c.fixed, c.ok)
		}
	}
}

func build(t *testing.T, c *vectorstest.Case) (*Placement, error) {
	var nodes []Node
	var weights []float64
	if c.NodePrefix != nil {
		prefix := vectorstest.Unhex(t, *c.NodePrefix)
		for i := 0; i < c.NodeCount; i++ {
			w := 1.0
			if len(c.WeightCycle) > 0 {
				w = c.WeightCycle[i%len(c.WeightCycle)]
			}
			nodes = append(nodes, Node{ID: prefix + strconv.Itoa(i)})
			weights = append(weights, w)
		}
	}
	for _, vn := range c.Nodes {
		n := Node{ID: vectorstest.Unhex(t, vn.ID)}
		w := 1.0
		if vn.Weight != nil {
			w = vectorstest.Weight(t, vn.Weight)
		}
		if vn.Domain != nil {
			n.Domain, n.HasDomain = vectorstest.Unhex(t, *vn.Domain), true
		}
		nodes = append(nodes, n)
		weights = append(weights, w)
	}
	seed := DefaultSeed
	if c.Seed != nil {
		copy(seed[:], vectorstest.Unhex(t, *c.Seed))
	}
	return New(seed, nodes, weights)
}

var codeByName = map[string]uint32{
	"EmptyMembership": CodeEmptyMembership,
	"EmptyNodeId":     CodeEmptyNodeID,
	"DuplicateNodeId": CodeDuplicateNodeID,
	"InvalidWeight":   CodeInvalidWeight,
	"AllWeightsZero":  CodeAllWeightsZero,
}

// Every vectors file beside SPEC.md in this format: vectors.json, and vectors-edge.json once it
// exists.
func TestVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repo, "conformance", "vectors*.json"))
	if len(files) == 0 {
		t.Fatal("no conformance/vectors*.json")
	}
	for _, f := range files {
		v := vectorstest.Load(t, f)
		for i := range v.Cases {
			checkCase(t, &v.Cases[i])
		}
		for _, d := range v.DrawCases {
			if got := Draw(vectorstest.U64(t, d.Score)); got != vectorstest.U64(t, d.Draw) {
				t.Errorf("draw(%s) = %d, want %s", d.Score, got, d.Draw)
			}
		}
		for _, c := range v.WeightCases {
			w := vectorstest.Weight(t, c.Weight)
			got, ok := FixedWeight(w)
			if c.Fixed != "" && (!ok || got != vectorstest.U64(t, c.Fixed)) {
				t.Errorf("weight %v: %d, %v; want %s", w, got, ok, c.Fixed)
			}
			if c.Fixed == "" && (ok || c.Error != "InvalidWeight") {
				t.Errorf("weight %v: %d, %v; want %s", w, got, ok, c.Error)
			}
		}
		skippedSeeds := 0
		for i := range v.ErrorCases {
			c := &v.ErrorCases[i]
			if c.Error == "InvalidSeedLength" {
				// A seed here is a [16]byte: the public package checks lengths (its own test).
				skippedSeeds++
				continue
			}
			want, ok := codeByName[c.Error]
			if !ok {
				t.Fatalf("%s: unknown error %s", c.Name, c.Error)
			}
			_, err := build(t, c)
			if e, ok := err.(*Error); !ok || e.Code != want {
				t.Errorf("%s: %v, want %s", c.Name, err, c.Error)
			}
		}
		t.Logf("%s: %d cases, %d draw cases, %d weight cases, %d error cases (%d seed-length cases run by the hrwhash package)",
			filepath.Base(f), len(v.Cases), len(v.DrawCases), len(v.WeightCases), len(v.ErrorCases), skippedSeeds)
	}
}

func checkCase(t *testing.T, c *vectorstest.Case) {
	p, err := build(t, c)
	if err != nil {
		t.Errorf("%s: build: %v", c.Name, err)
		return
	}
	key := vectorstest.Unhex(t, c.Key)
	if d := p.KeyDigest(key); d != vectorstest.U64(t, c.Expected.KeyDigest) {
		t.Errorf("%s: key digest %d", c.Name, d)
	}
	if d := KeyDigest(p.Seed, key); d != vectorstest.U64(t, c.Expected.KeyDigest) {
		t.Errorf("%s: plain key digest %d", c.Name, d)
	}
	if o := p.Owner(key); o != c.Expected.Owner {
		t.Errorf("%s: owner %d, want %d", c.Name, o, c.Expected.Owner)
	}
	out := make([]int, c.K)
	if r := out[:p.RankInto(key, out)]; !reflect.DeepEqual(r, c.Expected.Rank) && !(len(r) == 0 && len(c.Expected.Rank) == 0) {
		t.Errorf("%s: rank %v, want %v", c.Name, r, c.Expected.Rank)
	}
	// Every prefix of the ranking is the ranking of a smaller k (this exercises each strategy).
	for k := 0; k <= len(c.Expected.Rank) && k <= 12; k++ {
		part := make([]int, k)
		if r := part[:p.RankInto(key, part)]; !reflect.DeepEqual(r, c.Expected.Rank[:k]) && k > 0 {
			t.Errorf("%s: rank k=%d %v, want %v", c.Name, k, r, c.Expected.Rank[:k])
		}
	}
	if c.Expected.Replicas != nil {
		out := make([]int, c.K)
		if r := out[:p.ReplicasInto(key, out)]; !reflect.DeepEqual(r, c.Expected.Replicas) && !(len(r) == 0 && len(c.Expected.Replicas) == 0) {
			t.Errorf("%s: replicas %v, want %v", c.Name, r, c.Expected.Replicas)
		}
	}
	for n, want := range c.Expected.NodeDigests {
		if d := NodeDigest(p.Seed, p.Nodes[n].ID); d != vectorstest.U64(t, want) {
			t.Errorf("%s: node digest %d: %d", c.Name, n, d)
		}
	}
	for n, want := range c.Expected.Scores {
		if s := p.Score(key, n); s != vectorstest.U64(t, want) {
			t.Errorf("%s: score %d: %d", c.Name, n, s)
		}
	}
}
