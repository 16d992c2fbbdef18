package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/bindings-c/go"
)

type vnode struct {
	ID          string  `json:"id"`
	Weight      any     `json:"weight"`
	WeightFixed string  `json:"weight_fixed"`
	Domain      *string `json:"domain"`
}

type vcase struct {
	Name        string    `json:"name"`
	Seed        *string   `json:"seed"`
	Nodes       []vnode   `json:"nodes"`
	NodePrefix  *string   `json:"node_prefix"`
	NodeCount   int       `json:"node_count"`
	WeightCycle []float64 `json:"weight_cycle"`
	Key         string    `json:"key"`
	K           int       `json:"k"`
	Error       string    `json:"error"`
	Expected    struct {
		KeyDigest   string   `json:"key_digest"`
		Owner       int      `json:"owner"`
		Rank        []int    `json:"rank"`
		Replicas    []int    `json:"replicas"`
		NodeDigests []string `json:"node_digests"`
		Scores      []string `json:"scores"`
	} `json:"expected"`
}

type vectors struct {
	Algorithm   string                         `json:"algorithm"`
	Cases       []vcase                        `json:"cases"`
	DrawCases   []struct{ Score, Draw string } `json:"draw_cases"`
	WeightCases []struct {
		Weight any    `json:"weight"`
		Fixed  string `json:"fixed"`
		Error  string `json:"error"`
	} `json:"weight_cases"`
	ErrorCases []vcase `json:"error_cases"`
}

// loadVectors reads vectors.json and, beside it, vectors-edge.json (same format), as one set.
func loadVectors(t *testing.T) *vectors {
	t.Helper()
	path := os.Getenv("HRWHASH_VECTORS")
	if path == "" {
		path = filepath.Join("..", "..", "conformance", "vectors.json")
	}
	v := readVectors(t, path)
	edge := readVectors(t, filepath.Join(filepath.Dir(path), "vectors-edge.json"))
	if edge.Algorithm != v.Algorithm {
		t.Fatalf("vectors-edge.json is %q, vectors.json %q", edge.Algorithm, v.Algorithm)
	}
	for i := range edge.Cases {
		edge.Cases[i].Name = "edge:" + edge.Cases[i].Name
	}
	for i := range edge.ErrorCases {
		edge.ErrorCases[i].Name = "edge:" + edge.ErrorCases[i].Name
	}
	v.Cases = append(v.Cases, edge.Cases...)
	v.DrawCases = append(v.DrawCases, edge.DrawCases...)
	v.WeightCases = append(v.WeightCases, edge.WeightCases...)
	v.ErrorCases = append(v.ErrorCases, edge.ErrorCases...)
	return v
}

func readVectors(t *testing.T, path string) *vectors {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	var v vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("parsing vectors: %v", err)
	}
	return &v
}

func unhex(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return string(b)
}

func u64(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func build(t *testing.T, c *vcase) (*hrwhash.Placement, error) {
	var nodes []hrwhash.Node
	if c.NodePrefix != nil {
		prefix := unhex(t, *c.NodePrefix)
		for i := 0; i < c.NodeCount; i++ {
			n := hrwhash.Node{ID: prefix + strconv.Itoa(i), Weight: 1}
			if len(c.WeightCycle) > 0 {
				n.Weight = c.WeightCycle[i%len(c.WeightCycle)]
			}
			nodes = append(nodes, n)
		}
	}
	for _, vn := range c.Nodes {
		n := hrwhash.Node{ID: unhex(t, vn.ID), Weight: 1}
		if vn.Weight != nil {
			n.Weight = weightOf(t, vn.Weight)
		}
		if vn.Domain != nil {
			n.Domain, n.HasDomain = unhex(t, *vn.Domain), true
		}
		nodes = append(nodes, n)
	}
	var opts []hrwhash.Option
	if c.Seed != nil {
		opts = append(opts, hrwhash.WithSeed([]byte(unhex(t, *c.Seed))))
	}
	return hrwhash.NewNodes(nodes, opts...)
}

func TestVectors(t *testing.T) {
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
		var seed []byte
		if c.Seed != nil {
			seed = []byte(unhex(t, *c.Seed))
		}
		if d, err := hrwhash.KeyDigest(key, seed); err != nil || d != u64(t, c.Expected.KeyDigest) {
			t.Errorf("%s: key digest %d, %v", c.Name, d, err)
		}
		if o, err := p.Owner(key); err != nil || o != c.Expected.Owner {
			t.Errorf("%s: owner %d, %v; want %d", c.Name, o, err, c.Expected.Owner)
		}
		if o, err := p.Owners([]string{"", key}); err != nil || o[1] != c.Expected.Owner {
			t.Errorf("%s: owners %v, %v", c.Name, o, err)
		}
		if r, err := p.Rank(key, c.K); err != nil || !reflect.DeepEqual(r, c.Expected.Rank) {
			t.Errorf("%s: rank %v, %v; want %v", c.Name, r, err, c.Expected.Rank)
		}
		if c.Expected.Replicas != nil {
			if r, err := p.Replicas(key, c.K); err != nil || !reflect.DeepEqual(r, c.Expected.Replicas) {
				t.Errorf("%s: replicas %v, %v; want %v", c.Name, r, err, c.Expected.Replicas)
			}
		}
		for n, want := range c.Expected.Scores {
			if s, err := p.Score(key, n); err != nil || s != u64(t, want) {
				t.Errorf("%s: score %d: %d, %v", c.Name, n, s, err)
			}
		}
	}
	for _, d := range v.DrawCases {
		if got := hrwhash.Draw(u64(t, d.Score)); got != u64(t, d.Draw) {
			t.Errorf("draw(%s) = %d, want %s", d.Score, got, d.Draw)
		}
	}
}

func weightOf(t *testing.T, w any) float64 {
	t.Helper()
	switch x := w.(type) {
	case float64:
		return x
	case string:
		switch x {
		case "NaN":
			return math.NaN()
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
	}
	t.Fatalf("unexpected weight %v", w)
	return 0
}

var errorByName = map[string]error{
	"EmptyMembership":   hrwhash.ErrEmptyMembership,
	"EmptyNodeId":       hrwhash.ErrEmptyNodeID,
	"DuplicateNodeId":   hrwhash.ErrDuplicateNodeID,
	"InvalidWeight":     hrwhash.ErrInvalidWeight,
	"AllWeightsZero":    hrwhash.ErrAllWeightsZero,
	"InvalidSeedLength": hrwhash.ErrInvalidSeedLength,
	"LengthMismatch":    hrwhash.ErrLengthMismatch,
	"UnknownNode":       hrwhash.ErrUnknownNode,
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
		} else if !errors.Is(err, errorByName[c.Error]) {
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
		want, ok := errorByName[c.Error]
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
