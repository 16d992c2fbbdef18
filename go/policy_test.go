package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

type blCase struct {
	Name        string    `json:"name"`
	NodePrefix  string    `json:"node_prefix"`
	NodeCount   int       `json:"node_count"`
	WeightCycle []float64 `json:"weight_cycle"`
	Factor      struct {
		Num, Den uint32
	} `json:"factor"`
	Key       string   `json:"key"`
	Loads     []string `json:"loads"`
	KeyPrefix string   `json:"key_prefix"`
	KeyCount  int      `json:"key_count"`
	Error     string   `json:"error"`
	Expected  struct {
		Owner    int   `json:"owner"`
		Position int   `json:"position"`
		Owners   []int `json:"owners"`
		Counts   []int `json:"counts"`
	} `json:"expected"`
}

type blVectors struct {
	Policy     string   `json:"policy"`
	Online     []blCase `json:"online"`
	Batch      []blCase `json:"batch"`
	ErrorCases []blCase `json:"error_cases"`
}

// The bounded-load-v1 files: the main one and the cases on the caps; every vectors test runs both.
var boundedLoadFiles = []string{"bounded-load.json", "bounded-load-boundaries.json"}

func loadBoundedLoad(t *testing.T, file string) *blVectors {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "conformance", "policies", file))
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	var v blVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	if v.Policy != hrwhash.BoundedLoadPolicy || len(v.Online) == 0 || len(v.Batch) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("%s: policy %q, %d online, %d batch, %d error cases", file, v.Policy, len(v.Online), len(v.Batch), len(v.ErrorCases))
	}
	return &v
}

// forEachBoundedLoadFile runs check as a subtest per bounded-load-v1 vectors file.
func forEachBoundedLoadFile(t *testing.T, check func(t *testing.T, v *blVectors)) {
	for _, file := range boundedLoadFiles {
		t.Run(file, func(t *testing.T) { check(t, loadBoundedLoad(t, file)) })
	}
}

func (c *blCase) placement(t *testing.T) *hrwhash.Placement {
	t.Helper()
	prefix, err := hex.DecodeString(c.NodePrefix)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, c.NodeCount)
	weights := make([]float64, c.NodeCount)
	for i := range ids {
		ids[i] = string(prefix) + strconv.Itoa(i)
		weights[i] = 1
		if len(c.WeightCycle) > 0 {
			weights[i] = c.WeightCycle[i%len(c.WeightCycle)]
		}
	}
	p, err := hrwhash.NewWeighted(ids, weights)
	if err != nil {
		t.Fatalf("%s: build: %v", c.Name, err)
	}
	return p
}

func (c *blCase) inputs(t *testing.T) (string, []uint64) {
	t.Helper()
	key, err := hex.DecodeString(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	loads := make([]uint64, len(c.Loads))
	for i, s := range c.Loads {
		if loads[i], err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	return string(key), loads
}

func TestBoundedLoadVectors(t *testing.T) {
	forEachBoundedLoadFile(t, func(t *testing.T, v *blVectors) {
		for _, c := range v.Online {
			p := c.placement(t)
			bl, err := hrwhash.NewBoundedLoad(p, c.Factor.Num, c.Factor.Den)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			key, loads := c.inputs(t)
			got, err := bl.Owner(key, loads)
			if err != nil || got != c.Expected.Owner {
				t.Errorf("%s: owner %d, %v; want %d", c.Name, got, err, c.Expected.Owner)
				continue
			}
			rank, err := p.Rank(key, p.Len())
			if err != nil || c.Expected.Position >= len(rank) || rank[c.Expected.Position] != got {
				t.Errorf("%s: owner %d is not at position %d of %v", c.Name, got, c.Expected.Position, rank)
			}
		}
	})
}

func TestBoundedLoadBatchVectors(t *testing.T) {
	forEachBoundedLoadFile(t, func(t *testing.T, v *blVectors) {
		for _, c := range v.Batch {
			p := c.placement(t)
			bl, err := hrwhash.NewBoundedLoad(p, c.Factor.Num, c.Factor.Den)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			keys := make([]string, c.KeyCount)
			for i := range keys {
				keys[i] = c.KeyPrefix + strconv.Itoa(i)
			}
			got, err := bl.Assign(keys)
			if err != nil || len(got) != len(c.Expected.Owners) {
				t.Errorf("%s: %d owners, %v; want %d", c.Name, len(got), err, len(c.Expected.Owners))
				continue
			}
			counts := make([]int, p.Len())
			wrong := 0
			for i, o := range got {
				if o != c.Expected.Owners[i] {
					wrong++
				}
				counts[o]++
			}
			if wrong != 0 {
				t.Errorf("%s: %d of %d owners differ", c.Name, wrong, len(got))
			}
			for i := range counts {
				if i >= len(c.Expected.Counts) || counts[i] != c.Expected.Counts[i] {
					t.Errorf("%s: counts %v, want %v", c.Name, counts, c.Expected.Counts)
					break
				}
			}
			// An output of another length is rejected untouched.
			longer := make([]int, len(keys)+1)
			longer[0] = -7
			var e *hrwhash.Error
			if err := bl.AssignInto(keys, longer); !errors.As(err, &e) || e.Code != hrwhash.CodeLengthMismatch ||
				e.Expected != len(keys) || e.Actual != len(longer) || longer[0] != -7 {
				t.Errorf("%s: longer output: %v", c.Name, err)
			}
			short := make([]int, len(keys)-1)
			for i := range short {
				short[i] = -7
			}
			if err := bl.AssignInto(keys, short); !errors.As(err, &e) || e.Code != hrwhash.CodeLengthMismatch ||
				e.Expected != len(keys) || e.Actual != len(short) {
				t.Errorf("%s: short output: %v", c.Name, err)
			}
			exact := make([]int, len(keys))
			if err := bl.AssignInto(keys, exact); err != nil || !sameInts(exact, got) {
				t.Errorf("%s: AssignInto: %v", c.Name, err)
			}
			for _, o := range short {
				if o != -7 {
					t.Errorf("%s: a rejected call wrote its output", c.Name)
					break
				}
			}
		}
	})
}

func TestBoundedLoadErrorVectors(t *testing.T) {
	forEachBoundedLoadFile(t, func(t *testing.T, v *blVectors) {
		codes := map[string]hrwhash.Code{
			"LengthMismatch":       hrwhash.CodeLengthMismatch,
			"LoadOverflow":         hrwhash.CodeLoadOverflow,
			"InvalidBalanceFactor": hrwhash.CodeInvalidBalanceFactor,
		}
		for _, c := range v.ErrorCases {
			want, ok := codes[c.Error]
			if !ok {
				t.Fatalf("%s: unknown error %q", c.Name, c.Error)
			}
			p := c.placement(t)
			key, loads := c.inputs(t)
			bl, err := hrwhash.NewBoundedLoad(p, c.Factor.Num, c.Factor.Den)
			if err == nil {
				_, err = bl.Owner(key, loads)
			} else if bl != nil {
				t.Errorf("%s: a policy and an error", c.Name)
			}
			var e *hrwhash.Error
			if !errors.As(err, &e) || e.Code != want || !errors.Is(err, &hrwhash.Error{Code: want}) {
				t.Errorf("%s: got %v, want %s", c.Name, err, c.Error)
				continue
			}
			switch want {
			case hrwhash.CodeLengthMismatch:
				if e.Expected != c.NodeCount || e.Actual != len(loads) {
					t.Errorf("%s: expected %d actual %d", c.Name, e.Expected, e.Actual)
				}
			case hrwhash.CodeInvalidBalanceFactor:
				f := float64(c.Factor.Num) / float64(c.Factor.Den)
				if !(e.Factor == f || math.IsNaN(f) && math.IsNaN(e.Factor)) {
					t.Errorf("%s: factor %v, want %v", c.Name, e.Factor, f)
				}
			}
			if e.Error() == "" || e.Code.String() != c.Error {
				t.Errorf("%s: message %q, name %q", c.Name, e.Error(), e.Code)
			}
		}
	})
}

func TestBoundedLoadMisuse(t *testing.T) {
	if _, err := hrwhash.NewBoundedLoad(nil, 5, 4); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewBoundedLoad(&hrwhash.Placement{}, 5, 4); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	var zero hrwhash.BoundedLoad
	if _, err := zero.Owner("k", nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero BoundedLoad: %v", err)
	}
	var nilBL *hrwhash.BoundedLoad
	if _, err := nilBL.Owner("k", nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil BoundedLoad: %v", err)
	}
	p, err := hrwhash.NewWeighted([]string{"a", "b", "drained"}, []float64{1, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	bl, err := hrwhash.NewBoundedLoad(p, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n, d := bl.Factor(); n != 1 || d != 1 || bl.Placement() != p {
		t.Errorf("accessors: %d/%d", n, d)
	}
	// nil loads is an empty list: the wrong length, not a crash.
	var e *hrwhash.Error
	if _, err := bl.Owner("k", nil); !errors.As(err, &e) || e.Code != hrwhash.CodeLengthMismatch || e.Expected != 3 || e.Actual != 0 {
		t.Errorf("nil loads: %v", err)
	}
	if _, err := zero.Assign([]string{"k"}); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero BoundedLoad Assign: %v", err)
	}
	if err := nilBL.AssignInto(nil, nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil BoundedLoad AssignInto: %v", err)
	}
	if got, err := bl.Assign(nil); err != nil || len(got) != 0 {
		t.Errorf("no keys: %v, %v", got, err)
	}
	// Empty keys are keys. c = 1 with 4 keys: 2 per live node, so the drained one takes none
	// and the three copies of "" cannot all stay with their owner.
	got, err := bl.Assign([]string{"", "", "", "x"})
	if err != nil || got[0] != got[1] || got[2] == got[0] || got[3] == got[0] || got[0] == 2 || got[2] == 2 {
		t.Errorf("empty keys at c = 1: %v, %v", got, err)
	}
	// A drained node never takes a key, even when it is the only one with room.
	for _, key := range []string{"", "k", "another"} {
		got, err := bl.Owner(key, []uint64{1, 1, 0})
		if err != nil || got == 2 {
			t.Errorf("%q: %d, %v", key, got, err)
		}
	}
}

// With c = 1 and caps that are whole numbers, the caps add up to the number of keys, so every
// node ends with exactly its cap: c * K * share, from POLICIES.md alone.
func TestBoundedLoadBatchExactCaps(t *testing.T) {
	for _, tc := range []struct {
		weights []float64
		keys    int
		want    []int
	}{
		{[]float64{1, 1}, 10, []int{5, 5}},
		{[]float64{1, 1, 1, 1, 1}, 1000, []int{200, 200, 200, 200, 200}},
		{[]float64{1, 2, 3, 4}, 1000, []int{100, 200, 300, 400}},
		{[]float64{1, 0, 3}, 400, []int{100, 0, 300}},
	} {
		ids := make([]string, len(tc.weights))
		for i := range ids {
			ids[i] = "node-" + strconv.Itoa(i)
		}
		p, err := hrwhash.NewWeighted(ids, tc.weights)
		if err != nil {
			t.Fatal(err)
		}
		bl, err := hrwhash.NewBoundedLoad(p, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, tc.keys)
		for i := range keys {
			keys[i] = "k" + strconv.Itoa(i)
		}
		owners, err := bl.Assign(keys)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, len(tc.weights))
		for _, o := range owners {
			counts[o]++
		}
		if !sameInts(counts, tc.want) {
			t.Errorf("weights %v, %d keys: counts %v, want %v", tc.weights, tc.keys, counts, tc.want)
		}
	}
}
