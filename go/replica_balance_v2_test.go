//go:build cgo && hrwhash_cgo

package hrwhash_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of ../conformance/policies/replica-balance-v2.json through NewReplicaBalanceV2
// (cgo build). The cases have the shape of replica-balance.json's, without samples.
func loadReplicaBalanceV2(t *testing.T) (cases, errorCases []rbCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "replica-balance-v2.json"))
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
	if v.Policy != hrwhash.ReplicaBalanceV2Policy || len(v.Cases) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("replica-balance-v2.json: policy %q, %d cases, %d error cases", v.Policy, len(v.Cases), len(v.ErrorCases))
	}
	return v.Cases, v.ErrorCases
}

// atTheLimit reports whether a node holds exactly 1/k of the fixed-point weight.
func (c *rbCase) atTheLimit(t *testing.T) bool {
	t.Helper()
	total, fixed := new(big.Int), make([]*big.Int, len(c.Nodes))
	for i, n := range c.Nodes {
		f, ok := new(big.Int).SetString(n.WeightFixed, 10)
		if !ok {
			t.Fatalf("%s: weight_fixed %q", c.Name, n.WeightFixed)
		}
		fixed[i] = f
		total.Add(total, f)
	}
	for _, f := range fixed {
		if new(big.Int).Mul(f, big.NewInt(int64(c.K))).Cmp(total) == 0 {
			return true
		}
	}
	return false
}

func TestReplicaBalanceV2Vectors(t *testing.T) {
	cases, _ := loadReplicaBalanceV2(t)
	for _, c := range cases {
		p := c.placement(t)
		rb, err := hrwhash.NewReplicaBalanceV2(p, c.K)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if rb.K() != c.K || rb.Placement() != p || rb.Iterations() != c.Expected.Iterations {
			t.Errorf("%s: k %d, iterations %d; want %d, %d", c.Name, rb.K(), rb.Iterations(), c.K, c.Expected.Iterations)
		}
		// A node with exactly 1/k of the weight must be in every set, which no finite weight
		// gives unless every node is in every set: there the solver may stop at its cap of
		// rounds, short of the target.
		if r, limit := rb.Residual(), c.atTheLimit(t); !(r >= 0) || math.IsInf(r, 0) || (!limit && r > 0x1p-20) {
			t.Errorf("%s: residual %g, a node at 1/k of the weight: %v", c.Name, r, limit)
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
		fixed[0]++
		if again, _ := rb.AdjustedFixed(); strconv.FormatUint(again[0], 10) != c.Expected.AdjustedFixed[0] {
			t.Errorf("%s: AdjustedFixed shares its slice", c.Name)
		}
		for _, r := range c.Expected.Replicas {
			got, err := rb.Replicas(r.Key)
			if err != nil || !sameInts(got, r.Replicas) {
				t.Errorf("%s: replicas of %q: %v, %v; want %v", c.Name, r.Key, got, err, r.Replicas)
			}
			if owner := p.Owner(r.Key); len(got) == 0 || got[0] != owner {
				t.Errorf("%s: primary of %q is not its owner %d", c.Name, r.Key, owner)
			}
		}
	}
}

func TestReplicaBalanceV2ErrorVectors(t *testing.T) {
	_, errorCases := loadReplicaBalanceV2(t)
	for _, c := range errorCases {
		rb, err := hrwhash.NewReplicaBalanceV2(c.placement(t), c.K)
		var e *hrwhash.Error
		if rb != nil || !errors.As(err, &e) || e.Code.String() != c.Error {
			t.Errorf("%s: got %v, want %s", c.Name, err, c.Error)
			continue
		}
		switch e.Code {
		case hrwhash.CodeInvalidCount:
			if e.Count != c.K || e.What != "k" {
				t.Errorf("%s: count %s = %d", c.Name, e.What, e.Count)
			}
		case hrwhash.CodeInfeasibleReplicaWeights:
			if c.Index == nil || e.Index != *c.Index || e.Count != c.K {
				t.Errorf("%s: index %d k %d", c.Name, e.Index, e.Count)
			}
		default:
			t.Errorf("%s: unexpected code %s", c.Name, e.Code)
		}
	}
}

func TestReplicaBalanceV2Misuse(t *testing.T) {
	if _, err := hrwhash.NewReplicaBalanceV2(nil, 2); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewReplicaBalanceV2(&hrwhash.Placement{}, 2); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	for _, rb := range []*hrwhash.ReplicaBalanceV2{nil, {}} {
		if _, err := rb.Replicas("k"); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Replicas: %v", err)
		}
		if _, err := rb.AdjustedFixed(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("AdjustedFixed: %v", err)
		}
		if rb.K() != 0 || rb.Iterations() != 0 || rb.Residual() != 0 {
			t.Errorf("zero policy: k %d", rb.K())
		}
	}
	p, err := hrwhash.NewWeighted([]string{"a", "b", "c", "drained"}, []float64{1, 1, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	var e *hrwhash.Error
	for _, k := range []int{0, -1, math.MinInt} {
		if _, err := hrwhash.NewReplicaBalanceV2(p, k); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidCount || e.Count != k || e.What != "k" {
			t.Errorf("k = %d: %v", k, err)
		}
	}
	if _, err := hrwhash.NewReplicaBalanceV2(p, 4); !errors.As(err, &e) ||
		e.Code != hrwhash.CodeInfeasibleReplicaWeights || e.Count != 4 || e.Index != 0 {
		t.Errorf("k = 4 of 3 live nodes: %v", err)
	}
	rb, err := hrwhash.NewReplicaBalanceV2(p, 3)
	if err != nil {
		t.Fatal(err)
	}
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

// The point of v2: on fresh keys the light node's share of replicas is its weight's, where plain
// top-k gives it about 1.4 times that. 3,3,3,1 with k = 3: the light node's target is 3/10 of
// keys; 60,000 keys put 3.5 standard deviations at about 2.4% of it.
func TestReplicaBalanceV2Shares(t *testing.T) {
	p, err := hrwhash.NewWeighted([]string{"osd.0", "osd.1", "osd.2", "osd.3"}, []float64{3, 3, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := hrwhash.NewReplicaBalanceV2(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	const keys = 60000
	light := 0
	for i := 0; i < keys; i++ {
		set, err := rb.Replicas("fresh-" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range set {
			if n == 3 {
				light++
			}
		}
	}
	share := float64(light) / keys
	sd := math.Sqrt(0.3 * 0.7 / keys)
	if math.Abs(share-0.3) > 3.5*sd {
		t.Errorf("light node in %.4f of replica sets, want 0.3 ± %.4f", share, 3.5*sd)
	}
}
