package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

type profileFile struct {
	Profile string `json:"profile"`
	Cases   []struct {
		Nodes   []map[string]json.RawMessage `json:"nodes"`
		Lookups []map[string]json.RawMessage `json:"lookups"`
	} `json:"cases"`
}

// textOrHex reads `name`, or `name_hex` decoded (the lossless form of the vector files).
func textOrHex(t *testing.T, m map[string]json.RawMessage, name string) string {
	t.Helper()
	var s string
	if raw, ok := m[name]; ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := json.Unmarshal(m[name+"_hex"], &s); err != nil {
		t.Fatalf("%s: neither text nor hex", name)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loadProfile(t *testing.T, name string) *profileFile {
	t.Helper()
	var f profileFile
	readConformance(t, &f, "profiles", name+".json")
	if f.Profile != name {
		t.Fatalf("%s.json names profile %q", name, f.Profile)
	}
	return &f
}

// Every lookup of every conformance/profiles/<name>.json, recorded from the incumbents; in the cgo
// build once with single-key lookups in Go and once with every lookup sent to libhrwhash.
func TestProfileVectors(t *testing.T) {
	runProfileVectors(t)
	defer hrwhash.SetGoLookupMax(hrwhash.SetGoLookupMax(-1))
	runProfileVectors(t)
}

func runProfileVectors(t *testing.T) {
	if got := hrwhash.Profiles(); !reflect.DeepEqual(got, []string{"go-redis-ring-v9", "pymemcache-rendezvous", "ketama-libmemcached", "hashring-node-3"}) {
		t.Fatalf("Profiles() = %v", got)
	}
	for _, name := range hrwhash.Profiles() {
		t.Run(name, func(t *testing.T) {
			f := loadProfile(t, name)
			lookups := 0
			for ci, c := range f.Cases {
				nodes := make([]hrwhash.Node, len(c.Nodes))
				pos := map[string]int{}
				for i, n := range c.Nodes {
					nodes[i].ID = textOrHex(t, n, "id")
					if raw, ok := n["weight"]; ok {
						w, err := strconv.ParseFloat(string(raw), 64)
						if err != nil {
							t.Fatal(err)
						}
						nodes[i].Weight = hrwhash.Weight(w)
					}
					pos[nodes[i].ID] = i
				}
				p, err := hrwhash.NewProfilePlacement(name, nodes)
				if err != nil {
					t.Fatalf("case %d: %v", ci, err)
				}
				if p.Profile() != name || p.Len() != len(nodes) {
					t.Fatalf("Profile() %q, Len() %d", p.Profile(), p.Len())
				}
				keys := make([]string, len(c.Lookups))
				want := make([]int, len(c.Lookups))
				for ki, lk := range c.Lookups {
					keys[ki] = textOrHex(t, lk, "key")
					want[ki] = pos[textOrHex(t, lk, "owner")]
					if got := p.Owner(keys[ki]); got != want[ki] {
						t.Errorf("case %d key %d %q: owner %d (%v), recorded %d", ci, ki, keys[ki], got, err, want[ki])
					}
					raw, ok := lk["replicas"]
					got, err := p.Replicas(keys[ki], len(nodes))
					if !ok {
						if !errors.Is(err, hrwhash.ErrNotOffered) {
							t.Errorf("Replicas where the incumbent has no top-k: %v", err)
						}
						continue
					}
					var ids []string
					if err := json.Unmarshal(raw, &ids); err != nil {
						t.Fatal(err)
					}
					wantR := make([]int, len(ids))
					for r, id := range ids {
						wantR[r] = pos[id]
					}
					if err != nil || !reflect.DeepEqual(got, wantR) {
						t.Errorf("case %d key %d: replicas %v (%v), recorded %v", ci, ki, got, err, wantR)
					}
				}
				lookups += len(keys)
				if got, err := p.Owners(keys); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("case %d: Owners disagrees with the recorded owners (%v)", ci, err)
				}
			}
			if lookups == 0 {
				t.Fatal("no lookups")
			}
		})
	}
}

// pymemcache's own test (test_rendezvous.py).
func TestPymemcacheOwnVectors(t *testing.T) {
	p, err := hrwhash.NewProfilePlacement("pymemcache-rendezvous", []hrwhash.Node{{ID: "0"}, {ID: "1"}, {ID: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"ok": "0", "mykey": "1", "wat": "2"} {
		if got := p.OwnerID(key); got != want {
			t.Errorf("%q: %q (%v), want %q", key, got, err, want)
		}
	}
}

func TestProfileBadInputs(t *testing.T) {
	two := []hrwhash.Node{{ID: "a:11211"}, {ID: "b:11211"}}
	cases := []struct {
		name    string
		profile string
		nodes   []hrwhash.Node
		want    *hrwhash.Error
	}{
		{"unknown profile", "go-redis-ring-v8", two, hrwhash.ErrUnknownProfile},
		{"empty name", "", two, hrwhash.ErrUnknownProfile},
		{"no nodes", "hashring-node-3", nil, hrwhash.ErrEmptyMembership},
		{"empty id", "go-redis-ring-v9", []hrwhash.Node{{ID: "a"}, {ID: ""}}, hrwhash.ErrEmptyNodeID},
		{"duplicate id", "ketama-libmemcached", []hrwhash.Node{{ID: "a"}, {ID: "b"}, {ID: "a"}}, hrwhash.ErrDuplicateNodeID},
		{"NaN weight", "hashring-node-3", []hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(math.NaN())}}, hrwhash.ErrInvalidWeight},
		{"weights on go-redis", "go-redis-ring-v9", []hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(2)}, {ID: "b"}}, hrwhash.ErrNotOffered},
		{"weights on pymemcache", "pymemcache-rendezvous", []hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(3)}}, hrwhash.ErrNotOffered},
		{"weight 0", "ketama-libmemcached", []hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(0)}}, hrwhash.ErrNotOffered},
		{"fractional weight", "hashring-node-3", []hrwhash.Node{{ID: "a", Weight: hrwhash.Weight(1.5)}}, hrwhash.ErrNotOffered},
		{"a domain", "hashring-node-3", []hrwhash.Node{{ID: "a", Domain: "zone-a"}}, hrwhash.ErrNotOffered},
		{"an empty host", "ketama-libmemcached", []hrwhash.Node{{ID: ":11212"}}, hrwhash.ErrNotOffered},
		{"a NUL in a host", "ketama-libmemcached", []hrwhash.Node{{ID: "a\x00b"}}, hrwhash.ErrNotOffered},
		// Ids that read as two different libmemcached servers (PROFILES.md 4, "Nodes").
		{"IPv6 last group 0", "ketama-libmemcached", []hrwhash.Node{{ID: "2001:db8::0"}}, hrwhash.ErrNotOffered},
		{"IPv6 last group 11211", "ketama-libmemcached", []hrwhash.Node{{ID: "2001:db8::11211"}}, hrwhash.ErrNotOffered},
		{"a socket path without a port", "ketama-libmemcached", []hrwhash.Node{{ID: "/run/memcached.sock"}}, hrwhash.ErrNotOffered},
		{"an unclosed bracket", "ketama-libmemcached", []hrwhash.Node{{ID: "[::1"}}, hrwhash.ErrNotOffered},
	}
	for _, c := range cases {
		p, err := hrwhash.NewProfilePlacement(c.profile, c.nodes)
		var e *hrwhash.Error
		if p != nil || !errors.As(err, &e) || !errors.Is(err, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, p, err, c.want.Code)
			continue
		}
		if e.Error() == "" {
			t.Errorf("%s: no message", c.name)
		}
	}
	_, err := hrwhash.NewProfilePlacement("go-redis-ring-v8", two)
	if e := new(hrwhash.Error); !errors.As(err, &e) || e.Profile != "go-redis-ring-v8" {
		t.Errorf("the error names the profile: %v", err)
	}
	_, err = hrwhash.NewProfilePlacement("ketama-libmemcached", []hrwhash.Node{{ID: "a"}, {ID: "b"}, {ID: "a"}})
	if e := new(hrwhash.Error); !errors.As(err, &e) || e.Index != 2 || e.FirstIndex != 0 || e.ID != "a" {
		t.Errorf("duplicate details: %+v", err)
	}

	p, err := hrwhash.NewProfilePlacement("pymemcache-rendezvous", two)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Replicas("k", 2); !errors.Is(err, hrwhash.ErrNotOffered) {
		t.Errorf("pymemcache top-k: %v", err)
	}
	if _, err := p.NodeID(2); !errors.Is(err, hrwhash.ErrIndexOutOfRange) {
		t.Errorf("NodeID past the end: %v", err)
	}
	h, err := hrwhash.NewProfilePlacement("hashring-node-3", two)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Replicas("k", -1); !errors.Is(err, hrwhash.ErrInvalidCount) {
		t.Errorf("negative k: %v", err)
	}
	if r, err := h.Replicas("k", 0); err != nil || len(r) != 0 {
		t.Errorf("k = 0: %v %v", r, err)
	}
	if r, err := h.Replicas("k", 99); err != nil || len(r) != 2 {
		t.Errorf("k above the node count: %v %v", r, err)
	}
	var zero *hrwhash.ProfilePlacement
	if err := hrwhash.NullPanic(func() { zero.Owner("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := (&hrwhash.ProfilePlacement{}).Owners([]string{"k"}); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
}

// Owner and Owners agree on random keys and memberships (in the cgo build these are the Go
// implementation and libhrwhash, or libhrwhash twice when every lookup is sent there).
func TestProfileOwnerAndOwnersAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, name := range hrwhash.Profiles() {
		for _, n := range []int{1, 3, 17, 200} {
			nodes := make([]hrwhash.Node, n)
			for i := range nodes {
				nodes[i] = hrwhash.Node{ID: "host-" + strconv.Itoa(i) + "é:" + strconv.Itoa(11211+i%3)}
				if name == "ketama-libmemcached" || name == "hashring-node-3" {
					nodes[i].Weight = hrwhash.Weight(float64(1 + rng.Intn(5)))
				}
			}
			p, err := hrwhash.NewProfilePlacement(name, nodes)
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 2000)
			for i := range keys {
				b := make([]byte, rng.Intn(20))
				rng.Read(b)
				keys[i] = string(b)
			}
			batch, err := p.Owners(keys)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				if one := p.Owner(k); one != batch[i] {
					t.Fatalf("%s, %d nodes, key %q: Owner %d, Owners %d", name, n, k, one, batch[i])
				}
			}
		}
	}
}
