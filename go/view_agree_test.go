//go:build cgo && hrwhash_cgo

package hrwhash_test

import (
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/hrw"
	"github.com/hrwhash/hrwhash/go/internal/hrwview"
)

// The two implementations of VIEW.md, libhrwhash and internal/hrwview (the pure-Go build's),
// must agree on every document and every change of membership, not only on views.json.

// goLoad loads a document with the default seed the way the pure-Go build does: VIEW.md
// steps 1 to 9 in hrwview, the membership in internal/hrw, then the seed.
func goLoad(doc []byte) ([]byte, [16]byte, error) {
	d, err := hrwview.Parse(doc)
	if err != nil {
		return nil, [16]byte{}, err
	}
	nodes := make([]hrw.Node, len(d.Nodes))
	weights := make([]float64, len(d.Nodes))
	for i, n := range d.Nodes {
		nodes[i] = hrw.Node{ID: n.ID, Domain: n.Domain, HasDomain: n.HasDomain}
		weights[i] = n.Weight
	}
	if _, err := hrw.New(hrw.DefaultSeed, nodes, weights); err != nil {
		return nil, [16]byte{}, err
	}
	sfp := hrwview.SeedFingerprint(hrw.DefaultSeed)
	if d.Secret && d.SeedFingerprint != sfp {
		return nil, [16]byte{}, &hrwview.Error{Code: hrwview.CodeSeedMismatch}
	}
	w := hrwview.Fixed(d.Nodes)
	return hrwview.Canonical(d.Epoch, false, sfp, w), hrwview.Fingerprint(sfp, w), nil
}

func compareLoad(t *testing.T, doc []byte) {
	v, cErr := hrwhash.ViewFromJSON(doc)
	text, fp, gErr := goLoad(doc)
	if (cErr == nil) != (gErr == nil) {
		t.Fatalf("%q: libhrwhash %v, Go %v", doc, cErr, gErr)
	}
	if cErr == nil {
		ctext, _ := v.ToJSON()
		if string(ctext) != string(text) || v.Fingerprint() != fp {
			t.Fatalf("%q: canonical forms differ:\n%s\n%s", doc, ctext, text)
		}
		return
	}
	var e *hrwhash.Error
	if !errors.As(cErr, &e) {
		t.Fatalf("%v is not an *Error", cErr)
	}
	var code uint32
	switch g := gErr.(type) {
	case *hrwview.Error:
		code = g.Code
		if e.Code == hrwhash.CodeInvalidView && (g.Field != e.Field || g.Index != e.Index || g.Reason != string(e.Reason)) {
			t.Fatalf("%q: libhrwhash %v, Go %q %d %q", doc, cErr, g.Field, g.Index, g.Reason)
		}
	case *hrw.Error:
		code = g.Code
		if g.Index != e.Index || (e.Code == hrwhash.CodeDuplicateNodeID && g.FirstIndex != e.FirstIndex) {
			t.Fatalf("%q: libhrwhash %v, Go %+v", doc, cErr, g)
		}
	}
	if uint32(e.Code) != code {
		t.Fatalf("%q: libhrwhash %v, Go %v (code %d)", doc, cErr, gErr, code)
	}
}

func FuzzViewJSON(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "conformance", "views.json"))
	if err != nil {
		f.Fatal(err)
	}
	var file struct {
		Valid, Invalid, Equivalent []map[string]any
		Ramps                      []map[string]any
	}
	if err := json.Unmarshal(data, &file); err != nil {
		f.Fatal(err)
	}
	for _, group := range [][]map[string]any{file.Valid, file.Invalid, file.Equivalent, file.Ramps} {
		for _, c := range group {
			for _, k := range []string{"document", "a", "b", "from", "to"} {
				if s, ok := c[k].(string); ok && c["seed"] == nil {
					f.Add([]byte(s))
				}
			}
		}
	}
	f.Fuzz(compareLoad)
}

// randomMembership draws ids (some not UTF-8), weights (some 0, some fractional) and domains.
func randomMembership(r *rand.Rand) *hrwhash.Placement {
	for {
		n := 1 + r.Intn(8)
		nodes := make([]hrwhash.Node, n)
		for i := range nodes {
			id := []byte("n" + strconv.Itoa(r.Intn(12)))
			if r.Intn(6) == 0 {
				id = append(id, 0xff)
			}
			nodes[i] = hrwhash.Node{ID: string(id)}
			switch r.Intn(4) {
			case 0:
				nodes[i].Weight = hrwhash.Weight(0)
			case 1:
				nodes[i].Weight = hrwhash.Weight(r.Float64() * 5)
			case 2:
				nodes[i].Weight = hrwhash.Weight(float64(1 + r.Intn(4)))
			}
			if r.Intn(3) == 0 {
				nodes[i].Domain = "z" + strconv.Itoa(r.Intn(3))
			}
		}
		if p, err := hrwhash.NewNodes(nodes); err == nil {
			return p
		}
	}
}

func weightedOf(t *testing.T, v *hrwhash.View) []hrwview.Weighted {
	p := v.Placement()
	out := make([]hrwview.Weighted, p.Len())
	for i := range out {
		n, err := p.Node(i)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := hrwhash.WeightToFixed(*n.Weight)
		out[i] = hrwview.Weighted{Node: hrwview.Node{ID: n.ID, Weight: *n.Weight, Domain: n.Domain, HasDomain: n.HasDomain}, Fixed: w}
	}
	return out
}

func TestViewsAgreeWithGo(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 300; round++ {
		a, _ := hrwhash.NewView(randomMembership(r), uint64(r.Intn(100)))
		b, _ := hrwhash.NewView(randomMembership(r), uint64(r.Intn(100)))
		doc, _ := a.ToJSON()
		compareLoad(t, doc)
		tr, _ := hrwhash.NewTransition(a.Placement(), b.Placement())
		wa, wb := weightedOf(t, a), weightedOf(t, b)
		byID := map[string]*hrwview.Pair{}
		var ids []string
		for _, n := range wa {
			byID[n.ID] = &hrwview.Pair{ID: n.ID, Old: n.Fixed}
			ids = append(ids, n.ID)
		}
		for _, n := range wb {
			if p, ok := byID[n.ID]; ok {
				p.New = n.Fixed
			} else {
				byID[n.ID] = &hrwview.Pair{ID: n.ID, New: n.Fixed}
				ids = append(ids, n.ID)
			}
		}
		sort.Strings(ids)
		var pairs []hrwview.Pair
		for _, id := range ids {
			pairs = append(pairs, *byID[id])
		}
		if got := hrwview.ExpectedMoved(pairs, true); got != tr.ExpectedMoved() {
			t.Fatalf("round %d: expected moved %v, libhrwhash %v", round, got, tr.ExpectedMoved())
		}
		if got := hrwview.Optimum(pairs); got != tr.Optimum() {
			t.Fatalf("round %d: optimum %v, libhrwhash %v", round, got, tr.Optimum())
		}
		for _, limit := range []float64{0.05, 0.3, 1} {
			plan, cErr := hrwhash.NewRampPlan(a, b, limit)
			g, gErr := hrwview.Plan(a.Epoch(), wa, wb, a.Fingerprint() == b.Fingerprint(), limit)
			if (cErr == nil) != (gErr == nil) {
				t.Fatalf("round %d limit %v: libhrwhash %v, Go %v", round, limit, cErr, gErr)
			}
			if cErr != nil {
				continue
			}
			var steps []hrwhash.RampStep
			for _, s := range g.Steps {
				steps = append(steps, hrwhash.RampStep{Epoch: s.Epoch, Position: s.Position, Moved: s.Moved, RemovesDrained: s.RemovesDrained})
			}
			if !reflect.DeepEqual(steps, plan.Steps()) || g.Direct != plan.DirectMoved() || g.Optimum != plan.Optimum() {
				t.Fatalf("round %d limit %v: ramps differ:\n%v\n%v", round, limit, steps, plan.Steps())
			}
		}
	}
}

// Where the JSON reader of libhrwhash (serde_json) and internal/hrwview stop on a malformed
// document: the same line and column, for views and slot histories alike (they share the Go
// reader).
func TestJSONErrorPositionsAgree(t *testing.T) {
	docs := []string{
		"", "{", "{\n", `{"a"`, "[1,", "{}x", "{\n  \"format\": tru", `{"a": trux}`, `{"a": 1e400}`,
		`{"a": -}`, `{"a": 1.}`, `{"a": 1e}`, `{"a": 01}`, `{"a": "\u12"}`, "{\"a\": \"x\ny\"}",
		`{"a": "\ud800"}`, `{"a" 1}`, `{"a":1,}`, "[1,]", "{\"a\": \"\xff\"}", "  \n  nul",
		`{"a": 1e-400`, `{"a": 123456789012345678901234567890e300}`, `{"a": "\u12`, `{"a": "\x"}`,
		"\t\"", "{\"a\":\n\"\x01\"}", "{\"a\": \"\xc3\x28\"}", "{\"a\": \"\xe2\x82\"}",
		`{"a": "\ud800\u0041"}`, `{"a": "\udc00"}`, `{"a": "\uzzzz"}`, strings.Repeat("[", 130),
		"{\n\"a\": 1\n,\n}", "{\"a\":1\n\n", `{"a": 1.5e+}`, `{"a": -01}`, `{"a": 1, "b": nulx}`,
		"\r\n{x", `{"a": 1e99999999999}`, `{"a": 1.5e2147483648, "b": x}`, `{"a": 0e99999999999, "b": x}`,
		`{"a": 1e-99999999999, "b": x}`, "{\"a\": \"\xffb\\\"c\"}", "{\"a\": \"\xff", "{\"a\": \"\xff\n\"}",
		"[tru\n]", "[1e\n]", "\n\n[\"\\\n\"]",
		// The rules of VIEW.md 5 check 1, one each.
		`"\u12x4"`, `"\ud800x"`, `"\ud800\n"`, `[1e4000000000000000000000]`, "[\n1\n,\n]",
		"{\"nodes\":" + strings.Repeat("[", 127) + "]",
	}
	for _, d := range docs {
		_, err := hrwhash.ViewFromJSON([]byte(d))
		var lib *hrwhash.Error
		if !errors.As(err, &lib) || lib.Code != hrwhash.CodeInvalidJSON {
			t.Fatalf("%q: libhrwhash: %v", d, err)
		}
		goErr, ok := hrwview.ParseError([]byte(d))
		if !ok || goErr.Line != lib.Line || goErr.Column != lib.Column {
			t.Errorf("%q: libhrwhash at %d:%d, Go at %+v", d, lib.Line, lib.Column, goErr)
		}
		_, err = hrwhash.SlotTableFromJSON([]byte(d))
		var h *hrwhash.Error
		if !errors.As(err, &h) || h.Line != lib.Line || h.Column != lib.Column {
			t.Errorf("%q: slot history at %v, libhrwhash's view at %d:%d", d, err, lib.Line, lib.Column)
		}
	}
}

// brokenDocuments derives malformed (and some well-formed) documents from the documents of
// views.json: every prefix of each, and seeded edits (a byte replaced, inserted or deleted) with
// the bytes JSON readers decide on, so that every way a reader can stop is met at every depth.
func brokenDocuments(t *testing.T, edits int) [][]byte {
	data, err := os.ReadFile(filepath.Join("..", "conformance", "views.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Valid, Invalid []map[string]any
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var bases [][]byte
	for _, group := range [][]map[string]any{file.Valid, file.Invalid} {
		for _, c := range group {
			for _, k := range []string{"document", "canonical"} {
				if s, ok := c[k].(string); ok && len(s) < 4096 {
					bases = append(bases, []byte(s))
				}
			}
		}
	}
	interesting := []byte("\"\\\n\r\t ,:{}[]0123456789-+.eEux/tfn\x00\x01\x1f\x7f\xc3\xe2\xed\xf0\xff")
	var docs [][]byte
	for _, b := range bases {
		for i := 0; i <= len(b); i++ {
			docs = append(docs, b[:i])
		}
	}
	r := rand.New(rand.NewSource(20))
	for n := 0; n < edits; n++ {
		b := bases[r.Intn(len(bases))]
		d := append([]byte(nil), b...)
		for e := 1 + r.Intn(2); e > 0 && len(d) > 0; e-- {
			i := r.Intn(len(d))
			c := interesting[r.Intn(len(interesting))]
			switch r.Intn(3) {
			case 0:
				d[i] = c
			case 1:
				d = append(d[:i], append([]byte{c}, d[i:]...)...)
			default:
				d = append(d[:i], d[i+1:]...)
			}
		}
		if r.Intn(4) == 0 {
			d = d[:r.Intn(len(d)+1)]
		}
		docs = append(docs, d)
	}
	return docs
}

// The positions of TestJSONErrorPositionsAgree over thousands of generated broken documents:
// libhrwhash (the core's reader) and internal/hrwview report the same line and column, and
// agree on which documents are not JSON at all.
func TestJSONErrorPositionsAgreeOnBrokenDocuments(t *testing.T) {
	docs := brokenDocuments(t, 20000)
	malformed, differ := 0, 0
	for _, d := range docs {
		_, err := hrwhash.ViewFromJSON(d)
		var lib *hrwhash.Error
		libJSON := errors.As(err, &lib) && lib.Code == hrwhash.CodeInvalidJSON
		goErr, ok := hrwview.ParseError(d)
		goJSON := ok && goErr.Code == hrwview.CodeInvalidJSON
		if libJSON {
			malformed++
		}
		switch {
		case libJSON != goJSON:
			differ++
			if differ <= 20 {
				t.Errorf("%q: libhrwhash %v, Go %+v", d, err, goErr)
			}
		case libJSON && (goErr.Line != lib.Line || goErr.Column != lib.Column):
			differ++
			if differ <= 20 {
				t.Errorf("%q: libhrwhash at %d:%d, Go at %d:%d", d, lib.Line, lib.Column, goErr.Line, goErr.Column)
			}
		case libJSON && (lib.Line < 1 || lib.Column < 1):
			t.Errorf("%q: libhrwhash at %d:%d: VIEW.md positions are 1-based", d, lib.Line, lib.Column)
		}
	}
	t.Logf("%d documents, %d not JSON, %d positions differ", len(docs), malformed, differ)
	if differ > 0 {
		t.Errorf("%d of %d malformed documents have another position in Go", differ, malformed)
	}
	if malformed < 1000 {
		t.Errorf("only %d malformed documents", malformed)
	}
}
