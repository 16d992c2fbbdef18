package hrwhash

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Every case of ../conformance/policies/domains.json through NewDomains.
type domainsVectors struct {
	Policy string `json:"policy"`
	Cases  []struct {
		Name    string           `json:"name"`
		Seed    string           `json:"seed"`
		Nodes   []map[string]any `json:"nodes"`
		Level   int              `json:"level"`
		KMax    int              `json:"k_max"`
		Lookups []map[string]any `json:"lookups"`
	} `json:"cases"`
	ErrorCases []map[string]any `json:"error_cases"`
}

func textOf(t *testing.T, o map[string]any, name string) (string, bool) {
	if s, ok := o[name].(string); ok {
		return s, true
	}
	if h, ok := o[name+"_hex"].(string); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), true
	}
	return "", false
}

func domainsPlacement(t *testing.T, nodes []map[string]any, seed string) (*Placement, error) {
	ns := make([]Node, len(nodes))
	for i, n := range nodes {
		id, _ := textOf(t, n, "id")
		ns[i] = Node{ID: id}
		if w, ok := n["weight"].(float64); ok {
			ns[i].Weight = Weight(w)
		}
		if d, ok := textOf(t, n, "domain"); ok {
			ns[i].Domain, ns[i].HasDomain = d, true
		}
	}
	var opts []Option
	if seed != "" {
		b, _ := hex.DecodeString(seed)
		s, err := SeedFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, WithSeed(s))
	}
	return NewNodes(ns, opts...)
}

func loadDomainsVectors(t *testing.T) domainsVectors {
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "domains.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v domainsVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDomainsVectors(t *testing.T) {
	v := loadDomainsVectors(t)
	if v.Policy != "domains-v1" || len(v.Cases) < 15 {
		t.Fatalf("policy %q with %d cases", v.Policy, len(v.Cases))
	}
	for _, c := range v.Cases {
		p, err := domainsPlacement(t, c.Nodes, c.Seed)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		d, err := NewDomains(p, c.Level)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, l := range c.Lookups {
			key, _ := textOf(t, l, "key")
			if owner := d.Owner(key); owner != int(l["owner"].(float64)) {
				t.Errorf("%s: owner %d", c.Name, owner)
			}
			want := l["replicas"].([]any)
			for k := 1; k <= c.KMax; k++ {
				got, err := d.Replicas(key, k)
				if err != nil {
					t.Fatalf("%s k=%d: %v", c.Name, k, err)
				}
				for i := range got {
					if got[i] != int(want[i].(float64)) {
						t.Errorf("%s k=%d: %v", c.Name, k, got)
						break
					}
				}
			}
		}
	}
}

func TestDomainsErrorCases(t *testing.T) {
	v := loadDomainsVectors(t)
	for _, c := range v.ErrorCases {
		name := c["name"].(string)
		nodes := make([]map[string]any, 0)
		for _, n := range c["nodes"].([]any) {
			nodes = append(nodes, n.(map[string]any))
		}
		seed, _ := c["seed"].(string)
		var err error
		p, err := domainsPlacement(t, nodes, seed)
		if err == nil {
			var d *Domains
			d, err = NewDomains(p, int(c["level"].(float64)))
			if err == nil {
				key, _ := textOf(t, c, "key")
				_, err = d.Replicas(key, int(c["k"].(float64)))
			}
		}
		var e *Error
		if !errors.As(err, &e) || e.Code.String() != c["error"] {
			t.Errorf("%s: got %v, want %v", name, err, c["error"])
			continue
		}
		if e.Code == CodeInvalidDomains {
			want := -1
			if i, ok := c["index"].(float64); ok {
				want = int(i)
			}
			if e.Index != want || e.DomainReason != c["reason"] {
				t.Errorf("%s: index %d reason %q", name, e.Index, e.DomainReason)
			}
		}
	}
	p, _ := New("a", "b")
	if _, err := NewDomains(p, -1); !errors.Is(err, ErrInvalidCount) {
		t.Errorf("level -1: %v", err)
	}
	if _, err := NewDomains(nil, 0); !errors.Is(err, ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	var zero *Domains
	if err := NullPanic(func() { zero.Owner("k") }); !errors.Is(err, ErrNullParameter) {
		t.Errorf("nil Domains: %v", err)
	}
}
