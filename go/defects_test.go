package hrwhash_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Regression tests for the Go defects of the bad-input contract. Each failed against the
// package as it was before (Node.Weight was a float64 whose zero value drained the node).

// A Node whose Weight is left out weighs 1, as in every other language; only an explicit
// Weight(0) drains.
func TestNodeWithoutWeightWeighsOne(t *testing.T) {
	p, err := hrwhash.NewNodes([]hrwhash.Node{{ID: "a"}, {ID: "b", Weight: hrwhash.Weight(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if p.SelectableLen() != 2 {
		t.Fatalf("%d selectable nodes, want 2", p.SelectableLen())
	}
	same, err := hrwhash.New("a", "b")
	if err != nil {
		t.Fatal(err)
	}
	owned := 0
	for i := 0; i < 1000; i++ {
		key := "key-" + strconv.Itoa(i)
		got := p.OwnerID(key)
		want := same.OwnerID(key)
		if got != want {
			t.Fatalf("%s: %s, the unweighted placement says %s", key, got, want)
		}
		if got == "a" {
			owned++
		}
	}
	if owned < 400 || owned > 600 {
		t.Errorf("a owns %d of 1000 keys", owned)
	}
	n, _ := p.Node(0)
	if n.Weight == nil || *n.Weight != 1 {
		t.Errorf("Node(0).Weight = %v, want 1", n.Weight)
	}

	drained, err := hrwhash.NewNodes([]hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(0)}, {ID: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if drained.SelectableLen() != 1 {
		t.Errorf("an explicit Weight(0) left %d selectable nodes, want 1", drained.SelectableLen())
	}
	for i := 0; i < 200; i++ {
		if id := drained.OwnerID("key-" + strconv.Itoa(i)); id != "b" {
			t.Fatalf("a drained node owns key-%d", i)
		}
	}
	// WithNode follows the same rule.
	q, err := drained.WithNode(hrwhash.Node{ID: "c"})
	if err != nil || q.SelectableLen() != 2 {
		t.Errorf("WithNode without a weight: %v, %d selectable", err, q.SelectableLen())
	}
}

// A non-empty Domain is a domain without HasDomain, so a forgotten flag cannot silently put
// two replicas in one zone.
func TestDomainWithoutHasDomain(t *testing.T) {
	p, err := hrwhash.NewNodes([]hrwhash.Node{{ID: "a", Domain: "z"}, {ID: "b", Domain: "z"}, {ID: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		r, err := p.Replicas("key-"+strconv.Itoa(i), 2)
		if err != nil {
			t.Fatal(err)
		}
		if r[0] != 2 && r[1] != 2 {
			t.Fatalf("key-%d: replicas %v share zone z while c is free", i, r)
		}
	}
}

func TestWithWeightErrorNamesTheNode(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.WithWeight("b", -1)
	var e *hrwhash.Error
	if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 1 || e.Weight != -1 {
		t.Fatalf("WithWeight(b, -1): %#v", err)
	}
	if msg := err.Error(); msg != "hrwhash: invalid weight -1 of node 1: negative" {
		t.Errorf("message %q", msg)
	}
	_, err = p.WithNode(hrwhash.Node{ID: "d", Weight: hrwhash.Weight(math.NaN())})
	if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 3 || !math.IsNaN(e.Weight) {
		t.Errorf("WithNode(NaN): %#v", err)
	}
	_, err = p.WithNode(hrwhash.Node{ID: "b"})
	if !errors.As(err, &e) || e.Code != hrwhash.CodeDuplicateNodeID || e.Index != 3 || e.FirstIndex != 1 || e.ID != "b" {
		t.Errorf("WithNode(b): %#v", err)
	}
	_, err = p.WithWeight("zz", 1)
	if !errors.As(err, &e) || e.Code != hrwhash.CodeUnknownNode || e.ID != "zz" || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("WithWeight(zz): %#v", err)
	}
}

func TestWeightToFixedErrorCarriesTheValue(t *testing.T) {
	for _, c := range []struct {
		w       float64
		message string
	}{
		{-2, "hrwhash: invalid weight -2: negative"},
		{math.NaN(), "hrwhash: invalid weight NaN: not a number"},
		{math.Inf(1), "hrwhash: invalid weight +Inf: infinite"},
		{1 << 32, "hrwhash: invalid weight 4.294967296e+09: 2^32 or more"},
		{1e-12, "hrwhash: invalid weight 1e-12: positive but rounds to 0 at 32 fractional bits (0 is the weight that drains a node)"},
		{math.Ldexp(1, -33), "hrwhash: invalid weight 1.1641532182693481e-10: positive but rounds to 0 at 32 fractional bits (0 is the weight that drains a node)"},
	} {
		_, err := hrwhash.WeightToFixed(c.w)
		var e *hrwhash.Error
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != -1 ||
			(e.Weight != c.w && !(math.IsNaN(c.w) && math.IsNaN(e.Weight))) {
			t.Errorf("WeightToFixed(%v): %#v", c.w, err)
			continue
		}
		if err.Error() != c.message {
			t.Errorf("WeightToFixed(%v): message %q, want %q", c.w, err, c.message)
		}
	}
}

func TestNegativeKIsInvalidCount(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Rank":     func() error { _, err := p.Rank("k", -1); return err },
		"Replicas": func() error { _, err := p.Replicas("k", -1); return err },
		"RankMany": func() error { _, err := p.RankMany([]string{"k"}, -1); return err },
	}
	for name, call := range calls {
		err := call()
		var e *hrwhash.Error
		if !errors.Is(err, hrwhash.ErrInvalidCount) || !errors.As(err, &e) || e.Count != -1 {
			t.Errorf("%s(k = -1): %v", name, err)
			continue
		}
		if err.Error() != "hrwhash: invalid count k = -1: negative" {
			t.Errorf("%s: message %q", name, err)
		}
	}
}

func TestRankManyTooLargeAllocatesNothing(t *testing.T) {
	ids := make([]string, 70000)
	for i := range ids {
		ids[i] = "n" + strconv.Itoa(i)
	}
	p, err := hrwhash.New(ids...)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 70000)
	// 70000 x 70000 = 4.9e9 ids: past 2^32 - 1, so the answer is refused before any allocation
	// (it would need 39 GB).
	_, err = p.RankMany(keys, math.MaxInt)
	var e *hrwhash.Error
	if !errors.Is(err, hrwhash.ErrResultTooLarge) || !errors.As(err, &e) || e.Actual != 70000 || e.Count != math.MaxInt {
		t.Fatalf("RankMany: %v", err)
	}
	rows, err := p.RankMany(keys[:3], math.MaxInt)
	if err != nil || len(rows) != 3 || len(rows[0]) != 70000 {
		t.Fatalf("RankMany of 3 keys: %v", err)
	}
}
