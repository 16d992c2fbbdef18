package profile

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The recorded files, relative to this package.
var vectorsDir = filepath.Join("..", "..", "..", "conformance", "profiles")

// field reads `name` or `name_hex` (the lossless form of the vector files).
func field(t *testing.T, m map[string]json.RawMessage, name string) string {
	t.Helper()
	if raw, ok := m[name]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var h string
	if err := json.Unmarshal(m[name+"_hex"], &h); err != nil {
		t.Fatalf("%s: neither text nor hex", name)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRecordedVectors(t *testing.T) {
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(vectorsDir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var file struct {
				Profile string `json:"profile"`
				Cases   []struct {
					Nodes   []map[string]json.RawMessage `json:"nodes"`
					Lookups []map[string]json.RawMessage `json:"lookups"`
				} `json:"cases"`
			}
			if err := json.Unmarshal(raw, &file); err != nil {
				t.Fatal(err)
			}
			if file.Profile != name {
				t.Fatalf("profile %q in %s.json", file.Profile, name)
			}
			lookups := 0
			for ci, c := range file.Cases {
				nodes := make([]Node, len(c.Nodes))
				pos := map[string]int{}
				for i, n := range c.Nodes {
					nodes[i] = Node{ID: field(t, n, "id"), Weight: 1}
					if w, ok := n["weight"]; ok {
						nodes[i].Weight, err = strconv.ParseFloat(string(w), 64)
						if err != nil {
							t.Fatal(err)
						}
					}
					pos[nodes[i].ID] = i
				}
				p, err := New(name, nodes)
				if err != nil {
					t.Fatalf("case %d: %+v", ci, err)
				}
				for ki, lk := range c.Lookups {
					key, want := field(t, lk, "key"), pos[field(t, lk, "owner")]
					if got := p.Owner(key); got != want {
						t.Errorf("case %d key %d (%q): owner %d, recorded %d", ci, ki, key, got, want)
					}
					if raw, ok := lk["replicas"]; ok {
						var ids []string
						if err := json.Unmarshal(raw, &ids); err != nil {
							t.Fatal(err)
						}
						got := p.Replicas(key, len(nodes))
						for r, id := range ids {
							if r >= len(got) || got[r] != pos[id] {
								t.Errorf("case %d key %d: replicas %v, recorded %v", ci, ki, got, ids)
								break
							}
						}
					} else if p.OffersReplicas() {
						t.Errorf("%s offers replicas but the file has none", name)
					}
					lookups++
				}
			}
			if lookups == 0 {
				t.Fatal("no lookups")
			}
		})
	}
}

// The incumbents' own published values.
func TestKnownValues(t *testing.T) {
	// pymemcache test_murmur3.py and the xxHash reference (XXH64, seed 0).
	if got := murmur3([]byte("6666")); got != 1361238019 {
		t.Errorf("murmur3_32(\"6666\") = %d", got)
	}
	for in, want := range map[string]uint64{
		"":  0xef46db3751d8e999,
		"a": 0xd24ec4f1a98c6e5b,
		"Nobody inspects the spammish repetition": 0xfbcea83c8a378bf1,
	} {
		if got := xxh64(in); got != want {
			t.Errorf("xxh64(%q) = %#x, want %#x", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"\xf0\x9f\x98": "\ufffd", "\xff\xfe": "\ufffd\ufffd", "a\xc3(": "a\ufffd(", "\xed\xa0\x80": "\ufffd\ufffd\ufffd",
	} {
		if got := lossyUTF8(in); got != want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pythonText("\xff'"); got != `b"\xff'"` {
		t.Errorf("repr = %s", got)
	}
}

func TestBadMemberships(t *testing.T) {
	for _, name := range Names {
		for _, c := range []struct {
			nodes []Node
			code  uint32
		}{
			{nil, CodeEmptyMembership},
			{[]Node{{ID: "a", Weight: 1}, {ID: "", Weight: 1}}, CodeEmptyNodeID},
			{[]Node{{ID: "a", Weight: 1}, {ID: "a", Weight: 1}}, CodeDuplicateNodeID},
			{[]Node{{ID: "a", Weight: -1}}, CodeInvalidWeight},
			{[]Node{{ID: "a", Weight: 1, HasDomain: true}}, CodeNotOffered},
			{[]Node{{ID: "a", Weight: 0}}, CodeNotOffered},
			{[]Node{{ID: "a", Weight: 1.5}}, CodeNotOffered},
		} {
			_, err := New(name, c.nodes)
			if e, ok := err.(*Error); !ok || e.Code != c.code {
				t.Errorf("%s %v: %v, want code %d", name, c.nodes, err, c.code)
			}
		}
	}
	if _, err := New("nope", []Node{{ID: "a", Weight: 1}}); err.(*Error).Code != CodeUnknownProfile {
		t.Errorf("unknown profile: %v", err)
	}
	if _, err := New("ketama-libmemcached", []Node{{ID: ":11211", Weight: 1}}); err.(*Error).Code != CodeNotOffered {
		t.Errorf("empty host: %v", err)
	}
}

// The short-key scan of hashtag is go-redis hashtag.Key (the strings.IndexByte form) too.
func TestHashtagShortAndLong(t *testing.T) {
	ref := func(key string) string {
		if s := strings.IndexByte(key, '{'); s > -1 {
			if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
				return key[s+1 : s+e+1]
			}
		}
		return key
	}
	pieces := []string{"{", "}", "a", "bc", "{}", "é"}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		if got, want := hashtag(prefix), ref(prefix); got != want {
			t.Fatalf("hashtag(%q) = %q, go-redis %q", prefix, got, want)
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			walk(prefix+p, depth-1)
		}
	}
	walk("", 5)
	walk(strings.Repeat("x", 30), 3)
}
