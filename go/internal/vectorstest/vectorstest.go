// Package vectorstest reads the hrw-v1 conformance vectors (conformance/vectors.json and
// vectors-edge.json) for the tests of the Go package and of internal/hrw: one schema and one
// reader, so the two suites cannot read the files differently.
package vectorstest

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// Node is a node of a case's "nodes".
type Node struct {
	ID          string  `json:"id"`
	Weight      any     `json:"weight"`
	WeightFixed string  `json:"weight_fixed"`
	Domain      *string `json:"domain"`
}

// Case is one entry of "cases" or "error_cases".
type Case struct {
	Name        string    `json:"name"`
	Seed        *string   `json:"seed"`
	Nodes       []Node    `json:"nodes"`
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

// Vectors is a whole vectors file.
type Vectors struct {
	Algorithm   string                         `json:"algorithm"`
	Cases       []Case                         `json:"cases"`
	DrawCases   []struct{ Score, Draw string } `json:"draw_cases"`
	WeightCases []struct {
		Weight any    `json:"weight"`
		Fixed  string `json:"fixed"`
		Error  string `json:"error"`
	} `json:"weight_cases"`
	ErrorCases []Case `json:"error_cases"`
}

// Load reads the vectors file at path and fails the test unless it is of hrw-v1.
func Load(t testing.TB, path string) *Vectors {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	var v Vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	if v.Algorithm != "hrw-v1" {
		t.Fatalf("%s: algorithm %q", path, v.Algorithm)
	}
	return &v
}

// Unhex decodes the lowercase hex the files give bytes in.
func Unhex(t testing.TB, s string) string {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return string(b)
}

// U64 parses the decimal string the files give 64-bit integers in.
func U64(t testing.TB, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Weight is a weight of the files: a JSON number, or "NaN", "Infinity" or "-Infinity".
func Weight(t testing.TB, w any) float64 {
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
