//go:build cgo && hrwhash_cgo

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

// Every case of ../conformance/policies/replica-balance.json through NewReplicaBalance (cgo
// build).
type rbCase struct {
	Name  string `json:"name"`
	Nodes []struct {
		ID          string  `json:"id"`
		Weight      float64 `json:"weight"`
		WeightFixed string  `json:"weight_fixed"`
	} `json:"nodes"`
	K           int    `json:"k"`
	SamplesLog2 int    `json:"samples_log2"`
	Error       string `json:"error"`
	Index       *int   `json:"index"`
	Expected    struct {
		AdjustedFixed []string `json:"adjusted_fixed"`
		Iterations    int      `json:"iterations"`
		Replicas      []struct {
			Key      string `json:"key"`
			Replicas []int  `json:"replicas"`
		} `json:"replicas"`
	} `json:"expected"`
}

func loadReplicaBalance(t *testing.T) (cases, errorCases []rbCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "replica-balance.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Policy     string   `json:"policy"`
		Cases      []rbCase `json:"cases"`
		ErrorCases []rbCase `json:"error_cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if v.Policy != hrwhash.ReplicaBalancePolicy || len(v.Cases) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("replica-balance.json: policy %q, %d cases, %d error cases", v.Policy, len(v.Cases), len(v.ErrorCases))
	}
	return v.Cases, v.ErrorCases
}

func (c *rbCase) placement(t *testing.T) *hrwhash.Placement {
	t.Helper()
	ids := make([]string, len(c.Nodes))
	weights := make([]float64, len(c.Nodes))
	for i, n := range c.Nodes {
		id, err := hex.DecodeString(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids[i], weights[i] = string(id), n.Weight
		// The file states each weight's fixed-point form; check that this one agrees.
		if f, err := hrwhash.WeightToFixed(n.Weight); err != nil || strconv.FormatUint(f, 10) != n.WeightFixed {
			t.Fatalf("%s: weight %v is %d, %v; the file says %s", c.Name, n.Weight, f, err, n.WeightFixed)
		}
	}
	p, err := hrwhash.NewWeighted(ids, weights)
	if err != nil {
		t.Fatalf("%s: build: %v", c.Name, err)
	}
	return p
}

func TestReplicaBalanceVectors(t *testing.T) {
	cases, _ := loadReplicaBalance(t)
	for _, c := range cases {
		p := c.placement(t)
		rb, err := hrwhash.NewReplicaBalance(p, c.K, hrwhash.WithSamplesLog2(c.SamplesLog2))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if rb.K() != c.K || rb.Placement() != p || rb.Iterations() != c.Expected.Iterations {
			t.Errorf("%s: k %d, iterations %d; want %d, %d", c.Name, rb.K(), rb.Iterations(), c.K, c.Expected.Iterations)
		}
		fixed, err := rb.AdjustedFixed()
		if err != nil || len(fixed) != len(c.Expected.AdjustedFixed) {
			t.Fatalf("%s: %d adjusted weights, %v", c.Name, len(fixed), err)
		}
		for i, f := range fixed {
			if strconv.FormatUint(f, 10) != c.Expected.AdjustedFixed[i] {
				t.Errorf("%s: adjusted_fixed[%d] = %d, want %s", c.Name, i, f, c.Expected.AdjustedFixed[i])
			}
		}
		// The copy is the caller's: changing it changes nothing.
		fixed[0]++
		if again, _ := rb.AdjustedFixed(); strconv.FormatUint(again[0], 10) != c.Expected.AdjustedFixed[0] {
			t.Errorf("%s: AdjustedFixed shares its slice", c.Name)
		}
		for _, r := range c.Expected.Replicas {
			got, err := rb.Replicas(r.Key)
			if err != nil || !sameInts(got, r.Replicas) {
				t.Errorf("%s: replicas of %q: %v, %v; want %v", c.Name, r.Key, got, err, r.Replicas)
			}
			// The primary is the hrw-v1 owner under the real weights.
			if owner := p.Owner(r.Key); len(got) == 0 || got[0] != owner {
				t.Errorf("%s: primary of %q is not its owner %d", c.Name, r.Key, owner)
			}
		}
	}
}

func TestReplicaBalanceErrorVectors(t *testing.T) {
	_, errorCases := loadReplicaBalance(t)
	for _, c := range errorCases {
		rb, err := hrwhash.NewReplicaBalance(c.placement(t), c.K, hrwhash.WithSamplesLog2(c.SamplesLog2))
		var e *hrwhash.Error
		if rb != nil || !errors.As(err, &e) || e.Code.String() != c.Error {
			t.Errorf("%s: got %v, want %s", c.Name, err, c.Error)
			continue
		}
		switch e.Code {
		case hrwhash.CodeInvalidCount:
			want, what := c.K, "k"
			if c.K >= 1 {
				want, what = c.SamplesLog2, "samples_log2"
			}
			if e.Count != want || e.What != what {
				t.Errorf("%s: count %s = %d", c.Name, e.What, e.Count)
			}
		case hrwhash.CodeInfeasibleReplicaWeights:
			if c.Index == nil || e.Index != *c.Index || e.Count != c.K {
				t.Errorf("%s: index %d k %d", c.Name, e.Index, e.Count)
			}
		default:
			t.Errorf("%s: unexpected code %s", c.Name, e.Code)
		}
		if !errors.Is(err, &hrwhash.Error{Code: e.Code}) || e.Error() == "" {
			t.Errorf("%s: %q", c.Name, e.Error())
		}
	}
}

func TestReplicaBalanceMisuse(t *testing.T) {
	if _, err := hrwhash.NewReplicaBalance(nil, 2); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewReplicaBalance(&hrwhash.Placement{}, 2); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	for _, rb := range []*hrwhash.ReplicaBalance{nil, {}} {
		if _, err := rb.Replicas("k"); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Replicas: %v", err)
		}
		if _, err := rb.AdjustedFixed(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("AdjustedFixed: %v", err)
		}
		if rb.K() != 0 || rb.Iterations() != 0 {
			t.Errorf("zero policy: k %d", rb.K())
		}
	}
	p, err := hrwhash.NewWeighted([]string{"a", "b", "c", "drained"}, []float64{1, 1, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	var e *hrwhash.Error
	for _, k := range []int{0, -1, math.MinInt} {
		if _, err := hrwhash.NewReplicaBalance(p, k); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidCount || e.Count != k || e.What != "k" {
			t.Errorf("k = %d: %v", k, err)
		}
	}
	for _, m := range []int{-1, 7, 23, math.MaxInt} {
		if _, err := hrwhash.NewReplicaBalance(p, 2, hrwhash.WithSamplesLog2(m)); !errors.As(err, &e) ||
			e.Code != hrwhash.CodeInvalidCount || e.Count != m || e.What != "samples_log2" {
			t.Errorf("samples_log2 = %d: %v", m, err)
		}
	}
	// Three live nodes of equal weight hold 1/3 each: k = 4 needs more than there are.
	if _, err := hrwhash.NewReplicaBalance(p, 4, hrwhash.WithSamplesLog2(8)); !errors.As(err, &e) ||
		e.Code != hrwhash.CodeInfeasibleReplicaWeights || e.Count != 4 || e.Index != 0 {
		t.Errorf("k = 4 of 3 live nodes: %v", err)
	}
	rb, err := hrwhash.NewReplicaBalance(p, 3, hrwhash.WithSamplesLog2(8))
	if err != nil {
		t.Fatal(err)
	}
	// k = 3 of 3 live nodes: every set is the three of them, never the drained one, the empty
	// key included.
	for _, key := range []string{"", "k", "\xff\x00"} {
		got, err := rb.Replicas(key)
		if err != nil || len(got) != 3 || got[0] == got[1] || got[1] == got[2] || got[0] == got[2] ||
			got[0] == 3 || got[1] == 3 || got[2] == 3 {
			t.Errorf("%q: %v, %v", key, got, err)
		}
	}
	if got, err := rb.AdjustedFixed(); err != nil || len(got) != 4 || got[3] != 0 {
		t.Errorf("adjusted weights with a drained node: %v, %v", got, err)
	}
}
