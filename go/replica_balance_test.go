package hrwhash_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of ../conformance/policies/replica-balance-v2.json through NewReplicaBalance, in
// every build.
type rbCase struct {
	Name  string `json:"name"`
	Nodes []struct {
		ID          string  `json:"id"`
		Weight      float64 `json:"weight"`
		WeightFixed string  `json:"weight_fixed"`
	} `json:"nodes"`
	K        int    `json:"k"`
	Error    string `json:"error"`
	Index    *int   `json:"index"`
	Expected struct {
		AdjustedFixed []string `json:"adjusted_fixed"`
		Iterations    int      `json:"iterations"`
		Replicas      []struct {
			Key      string `json:"key"`
			Replicas []int  `json:"replicas"`
		} `json:"replicas"`
	} `json:"expected"`
}

type rbFile struct {
	Policy        string   `json:"policy"`
	Cases         []rbCase `json:"cases"`
	ErrorCases    []rbCase `json:"error_cases"`
	SecondDigests []struct {
		Key          string `json:"key"`
		KeyDigest    string `json:"key_digest"`
		SecondDigest string `json:"second_digest"`
	} `json:"second_digests"`
	ExpNeg []struct {
		X      string `json:"x"`
		ExpNeg string `json:"exp_neg"`
	} `json:"exp_neg"`
}

func loadReplicaBalance(t *testing.T) rbFile {
	t.Helper()
	var v rbFile
	readConformance(t, &v, "policies", "replica-balance-v2.json")
	if v.Policy != hrwhash.ReplicaBalancePolicy || len(v.Cases) == 0 || len(v.ErrorCases) == 0 ||
		len(v.SecondDigests) == 0 || len(v.ExpNeg) == 0 {
		t.Fatalf("replica-balance-v2.json: policy %q, %d cases, %d error cases", v.Policy, len(v.Cases), len(v.ErrorCases))
	}
	return v
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

// inEveryBackend runs f with the lookups of every placement built in it answered in Go, then
// (in the hrwhash_cgo build, where replica balance then solves and answers in libhrwhash too)
// with none of them.
func inEveryBackend(t *testing.T, f func(t *testing.T)) {
	for _, goMax := range []struct {
		name string
		max  int
	}{{"go", math.MaxInt}, {"lib", -1}} {
		t.Run(goMax.name, func(t *testing.T) {
			defer hrwhash.SetGoLookupMax(hrwhash.SetGoLookupMax(goMax.max))
			f(t)
		})
	}
}

func TestReplicaBalanceVectors(t *testing.T) { inEveryBackend(t, replicaBalanceVectors) }

func replicaBalanceVectors(t *testing.T) {
	for _, c := range loadReplicaBalance(t).Cases {
		p := c.placement(t)
		rb, err := hrwhash.NewReplicaBalance(p, c.K)
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
		fixed := rb.AdjustedFixed()
		if len(fixed) != len(c.Expected.AdjustedFixed) {
			t.Fatalf("%s: %d adjusted weights", c.Name, len(fixed))
		}
		for i, f := range fixed {
			if strconv.FormatUint(f, 10) != c.Expected.AdjustedFixed[i] {
				t.Errorf("%s: adjusted_fixed[%d] = %d, want %s", c.Name, i, f, c.Expected.AdjustedFixed[i])
			}
		}
		for i, w := range rb.AdjustedWeights() {
			want, _ := strconv.ParseUint(c.Expected.AdjustedFixed[i], 10, 64)
			if w != float64(want)/(1<<32) {
				t.Errorf("%s: AdjustedWeights()[%d] = %v, want %s / 2^32", c.Name, i, w, c.Expected.AdjustedFixed[i])
			}
		}
		// The copy is the caller's: changing it changes nothing.
		fixed[0]++
		if again := rb.AdjustedFixed(); strconv.FormatUint(again[0], 10) != c.Expected.AdjustedFixed[0] {
			t.Errorf("%s: AdjustedFixed shares its slice", c.Name)
		}
		for _, r := range c.Expected.Replicas {
			got := rb.Replicas(r.Key)
			if !sameInts(got, r.Replicas) {
				t.Errorf("%s: replicas of %q: %v; want %v", c.Name, r.Key, got, r.Replicas)
			}
			// The primary is the hrw-v1 owner under the real weights.
			if owner := p.Owner(r.Key); len(got) == 0 || got[0] != owner {
				t.Errorf("%s: primary of %q is not its owner %d", c.Name, r.Key, owner)
			}
			// A shorter buffer gets the set's first nodes; the rest of a longer one is untouched.
			for m := 0; m <= c.K+1; m++ {
				buf := make([]int, m)
				for i := range buf {
					buf[i] = -1
				}
				n := rb.ReplicasInto(r.Key, buf)
				want := min(m, len(r.Replicas))
				if n != want || !sameInts(buf[:n], r.Replicas[:want]) || (m > n && buf[n] != -1) {
					t.Errorf("%s: ReplicasInto(%q, %d slots) = %d, %v", c.Name, r.Key, m, n, buf)
				}
			}
		}
	}
}

func TestReplicaBalanceErrorVectors(t *testing.T) { inEveryBackend(t, replicaBalanceErrorVectors) }

func replicaBalanceErrorVectors(t *testing.T) {
	for _, c := range loadReplicaBalance(t).ErrorCases {
		rb, err := hrwhash.NewReplicaBalance(c.placement(t), c.K)
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
		if !errors.Is(err, &hrwhash.Error{Code: e.Code}) || e.Error() == "" {
			t.Errorf("%s: %q", c.Name, e.Error())
		}
	}
}

// The second digest and exp_neg bit for bit, on the file's own inputs.
func TestReplicaBalanceDigestAndExp(t *testing.T) {
	v := loadReplicaBalance(t)
	for _, d := range v.SecondDigests {
		kd := hrwhash.KeyDigest(hrwhash.DefaultSeed(), d.Key)
		if strconv.FormatUint(kd, 10) != d.KeyDigest {
			t.Errorf("key digest of %q = %d, want %s", d.Key, kd, d.KeyDigest)
		}
		if got := hrwhash.SecondDigest(kd); strconv.FormatUint(got, 10) != d.SecondDigest {
			t.Errorf("second digest of %q = %d, want %s", d.Key, got, d.SecondDigest)
		}
	}
	for _, c := range v.ExpNeg {
		x, err1 := strconv.ParseUint(c.X, 16, 64)
		want, err2 := strconv.ParseUint(c.ExpNeg, 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("exp_neg case %v", c)
		}
		if got := math.Float64bits(hrwhash.ExpNeg(math.Float64frombits(x))); got != want {
			t.Errorf("exp_neg(%016x) = %016x, want %016x", x, got, want)
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
		if err := hrwhash.NullPanic(func() { rb.Replicas("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Replicas: %v", err)
		}
		if err := hrwhash.NullPanic(func() { rb.ReplicasInto("k", make([]int, 2)) }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("ReplicasInto: %v", err)
		}
		if err := hrwhash.NullPanic(func() { rb.AdjustedWeights() }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("AdjustedWeights: %v", err)
		}
		if err := hrwhash.NullPanic(func() { rb.AdjustedFixed() }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("AdjustedFixed: %v", err)
		}
		if rb.K() != 0 || rb.Iterations() != 0 || rb.Residual() != 0 || rb.Placement() != nil {
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
	// Three live nodes of equal weight hold 1/3 each: k = 4 needs more than there are, and a
	// k near the top of int allocates nothing for k before it is refused.
	for _, k := range []int{4, math.MaxInt} {
		if _, err := hrwhash.NewReplicaBalance(p, k); !errors.As(err, &e) ||
			e.Code != hrwhash.CodeInfeasibleReplicaWeights || e.Count != k || e.Index != 0 {
			t.Errorf("k = %d of 3 live nodes: %v", k, err)
		}
	}
	rb, err := hrwhash.NewReplicaBalance(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	// k = 3 of 3 live nodes: every set is the three of them, never the drained one, the empty
	// key included.
	for _, key := range []string{"", "k", "\xff\x00"} {
		got := rb.Replicas(key)
		if len(got) != 3 || got[0] == got[1] || got[1] == got[2] || got[0] == got[2] ||
			got[0] == 3 || got[1] == 3 || got[2] == 3 {
			t.Errorf("%q: %v", key, got)
		}
	}
	if got := rb.AdjustedFixed(); len(got) != 4 || got[3] != 0 {
		t.Errorf("adjusted weights with a drained node: %v", got)
	}
	// k = 1: the set is the owner, and the weights are the real ones.
	one, err := hrwhash.NewReplicaBalance(p, 1)
	if err != nil || one.Iterations() != 0 || one.Residual() != 0 {
		t.Fatalf("k = 1: %v", err)
	}
	if got := one.Replicas("k"); len(got) != 1 || got[0] != p.Owner("k") {
		t.Errorf("k = 1: %v", got)
	}
	if got := one.AdjustedFixed(); len(got) != 4 || got[0] != 1<<32 || got[3] != 0 {
		t.Errorf("k = 1: adjusted %v", got)
	}
}

// The point of the policy: on fresh keys the light node's share of replicas is its weight's,
// where plain top-k gives it about 1.4 times that. 3,3,3,1 with k = 3: the light node's target
// is 3/10 of keys; 60,000 keys put 3.5 standard deviations at about 2.4% of it.
func TestReplicaBalanceShares(t *testing.T) {
	p, err := hrwhash.NewWeighted([]string{"osd.0", "osd.1", "osd.2", "osd.3"}, []float64{3, 3, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := hrwhash.NewReplicaBalance(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	const keys = 60000
	light := 0
	for i := 0; i < keys; i++ {
		for _, n := range rb.Replicas("fresh-" + strconv.Itoa(i)) {
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

// A membership above the Go lookups' limit, solved and answered in Go and (in the hrwhash_cgo
// build) in libhrwhash: the same weights, solver rounds, residual and replica sets.
func TestReplicaBalanceLibAgrees(t *testing.T) {
	build := func(goMax int) *hrwhash.ReplicaBalance {
		defer hrwhash.SetGoLookupMax(hrwhash.SetGoLookupMax(goMax))
		ids := make([]string, 1000)
		weights := make([]float64, len(ids))
		for i := range ids {
			ids[i], weights[i] = "node-"+strconv.Itoa(i), float64(1+i%3)
		}
		p, err := hrwhash.NewWeighted(ids, weights)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := hrwhash.NewReplicaBalance(p, 3)
		if err != nil {
			t.Fatal(err)
		}
		return rb
	}
	inGo, inLib := build(math.MaxInt), build(-1)
	if !slices.Equal(inGo.AdjustedFixed(), inLib.AdjustedFixed()) || inGo.Iterations() != inLib.Iterations() ||
		inGo.Residual() != inLib.Residual() {
		t.Fatalf("solved weights differ: %d, %g rounds and residual in Go; %d, %g", inGo.Iterations(),
			inGo.Residual(), inLib.Iterations(), inLib.Residual())
	}
	short := make([]int, 2)
	for i := 0; i < 2000; i++ {
		key := "key-" + strconv.Itoa(i)
		want := inGo.Replicas(key)
		if got := inLib.Replicas(key); !sameInts(got, want) {
			t.Fatalf("%q: %v, in Go %v", key, got, want)
		}
		// A buffer shorter than k is answered in Go in every build.
		if n := inLib.ReplicasInto(key, short); n != 2 || !sameInts(short, want[:2]) {
			t.Fatalf("%q: %v, in Go %v", key, short, want)
		}
	}
}

// The solver's work cap (POLICIES.md, replica-balance, "Solver"): a build whose first
// evaluation is past 2^28 units is ErrResultTooLarge before it starts (2,048 equal nodes with
// k = 2,048: 99 grid points x 2,048 x 2,052), and a solver that reaches the cap stops like one
// that reaches 64 evaluations.
func TestReplicaBalanceWorkCap(t *testing.T) {
	ids := make([]string, 2048)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i)
	}
	p, err := hrwhash.New(ids...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hrwhash.NewReplicaBalance(p, 2048); !errors.Is(err, hrwhash.ErrResultTooLarge) {
		t.Errorf("2,048 nodes, k = 2,048: %v", err)
	}
	equal := make([]uint64, 2048)
	for i := range equal {
		equal[i] = 1 << 32
	}
	if w := hrwhash.ReplicaBalanceWork(equal, 2048); w != 99*2048*2052 {
		t.Errorf("work %d", w)
	}
	lopsided := []uint64{2 << 32, 1 << 32, 1 << 32}
	first := hrwhash.ReplicaBalanceWork(lopsided, 2)
	for _, c := range []struct {
		cap  uint64
		want int
	}{{1 << 62, 64}, {first - 1, -1}, {first, 1}} {
		if got := hrwhash.SolveReplicaBalanceWithin(lopsided, 2, c.cap); got != c.want {
			t.Errorf("cap %d: %d evaluations, want %d", c.cap, got, c.want)
		}
	}
	if got := hrwhash.SolveReplicaBalanceWithin(lopsided, 2, 5*first); got <= 1 || got >= 64 {
		t.Errorf("cap of five evaluations: %d evaluations", got)
	}
}
