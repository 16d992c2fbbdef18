package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of conformance/views.json, transitions against plain lookups, and the errors of
// every view, transition, diff and ramp call, in both builds: libhrwhash with cgo, the Go
// implementation of VIEW.md (internal/hrwview) without.

type viewOwner struct {
	Key   string `json:"key"`
	Owner int    `json:"owner"`
}

type viewCase struct {
	Name            string      `json:"name"`
	Document        *string     `json:"document"`
	DocumentHex     *string     `json:"document_hex"`
	Seed            *string     `json:"seed"`
	Canonical       string      `json:"canonical"`
	Fingerprint     string      `json:"fingerprint"`
	SeedFingerprint string      `json:"seed_fingerprint"`
	Epoch           string      `json:"epoch"`
	Owners          []viewOwner `json:"owners"`
	A               string      `json:"a"`
	B               string      `json:"b"`
	Error           string      `json:"error"`
	Field           *string     `json:"field"`
	Index           *int        `json:"index"`
	Reason          string      `json:"reason"`
	FirstIndex      *int        `json:"first_index"`
}

type movementCase struct {
	Name  string `json:"name"`
	Nodes []struct {
		ID  string `json:"id"`
		Old string `json:"old"`
		New string `json:"new"`
	} `json:"nodes"`
	ExpectedMoved float64 `json:"expected_moved"`
	Optimum       float64 `json:"optimum"`
}

type rampCase struct {
	Name    string  `json:"name"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	MaxMove float64 `json:"max_move"`
	Grid    int     `json:"grid"`
	Steps   []struct {
		Epoch          string  `json:"epoch"`
		Position       uint32  `json:"position"`
		Moved          float64 `json:"moved"`
		RemovesDrained bool    `json:"removes_drained"`
		Weights        []struct {
			ID     string `json:"id"`
			Weight string `json:"weight"`
		} `json:"weights"`
	} `json:"steps"`
	TotalMoved  float64 `json:"total_moved"`
	DirectMoved float64 `json:"direct_moved"`
	Optimum     float64 `json:"optimum"`
	Error       string  `json:"error"`
	// The details of an InvalidView (a step epoch past 2^64 - 1).
	Field  *string `json:"field"`
	Index  *int    `json:"index"`
	Reason string  `json:"reason"`
}

type viewsFile struct {
	Format                 string         `json:"format"`
	Comment                string         `json:"_comment"`
	DefaultSeedFingerprint string         `json:"default_seed_fingerprint"`
	Valid                  []viewCase     `json:"valid"`
	Equivalent             []viewCase     `json:"equivalent"`
	Invalid                []viewCase     `json:"invalid"`
	Movement               []movementCase `json:"movement"`
	Ramps                  []rampCase     `json:"ramps"`
}

func loadViews(t *testing.T) viewsFile {
	t.Helper()
	path := os.Getenv("HRWHASH_VIEWS")
	if path == "" {
		path = filepath.Join("..", "conformance", "views.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A member this suite does not read is a kind or field the Go package is not checked
	// against: the decoder rejects it.
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var f viewsFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if f.Format != hrwhash.ViewFormat {
		t.Fatalf("format %q", f.Format)
	}
	if len(f.Valid) == 0 || len(f.Equivalent) == 0 || len(f.Invalid) == 0 || len(f.Movement) == 0 || len(f.Ramps) == 0 {
		t.Fatal("a kind of case is empty")
	}
	return f
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (c viewCase) doc(t *testing.T) []byte {
	if c.DocumentHex != nil {
		return mustHex(t, *c.DocumentHex)
	}
	return []byte(*c.Document)
}

func (c viewCase) opts(t *testing.T) []hrwhash.Option {
	if c.Seed == nil {
		return nil
	}
	seed, err := hrwhash.SeedFromBytes(mustHex(t, *c.Seed))
	if err != nil {
		t.Fatal(err)
	}
	return []hrwhash.Option{hrwhash.WithSeed(seed)}
}

// The file's error names, mapped here rather than by the package.
var viewCodes = map[string]hrwhash.Code{
	"EmptyMembership":  hrwhash.CodeEmptyMembership,
	"EmptyNodeId":      hrwhash.CodeEmptyNodeID,
	"DuplicateNodeId":  hrwhash.CodeDuplicateNodeID,
	"InvalidWeight":    hrwhash.CodeInvalidWeight,
	"AllWeightsZero":   hrwhash.CodeAllWeightsZero,
	"InvalidJson":      hrwhash.CodeInvalidJSON,
	"InvalidView":      hrwhash.CodeInvalidView,
	"SeedMismatch":     hrwhash.CodeSeedMismatch,
	"InvalidMoveLimit": hrwhash.CodeInvalidMoveLimit,
}

var viewSentinels = map[string]error{
	"EmptyMembership":  hrwhash.ErrEmptyMembership,
	"EmptyNodeId":      hrwhash.ErrEmptyNodeID,
	"DuplicateNodeId":  hrwhash.ErrDuplicateNodeID,
	"AllWeightsZero":   hrwhash.ErrAllWeightsZero,
	"InvalidJson":      hrwhash.ErrInvalidJSON,
	"InvalidView":      hrwhash.ErrInvalidView,
	"SeedMismatch":     hrwhash.ErrSeedMismatch,
	"InvalidMoveLimit": hrwhash.ErrInvalidMoveLimit,
}

func checkViewError(t *testing.T, c viewCase, err error) {
	t.Helper()
	var e *hrwhash.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *hrwhash.Error", err)
	}
	code, ok := viewCodes[c.Error]
	if !ok {
		t.Fatalf("error %s is not known to this suite", c.Error)
	}
	if e.Code != code || e.Code.String() != c.Error {
		t.Fatalf("code %v, want %s (%v)", e.Code, c.Error, err)
	}
	if !errors.Is(err, viewSentinels[c.Error]) {
		t.Errorf("errors.Is(%v, %s) is false", err, c.Error)
	}
	switch {
	case c.Error == "InvalidView":
		want := -1
		if c.Index != nil {
			want = *c.Index
		}
		if e.Field != *c.Field || e.Index != want || string(e.Reason) != c.Reason {
			t.Errorf("field %q index %d reason %q, want %q %d %q", e.Field, e.Index, e.Reason, *c.Field, want, c.Reason)
		}
		if !strings.Contains(err.Error(), c.Reason) {
			t.Errorf("message %q does not name %s", err, c.Reason)
		}
	case c.Index != nil:
		if e.Index != *c.Index {
			t.Errorf("index %d, want %d", e.Index, *c.Index)
		}
	}
	if c.FirstIndex != nil && e.FirstIndex != *c.FirstIndex {
		t.Errorf("first index %d, want %d", e.FirstIndex, *c.FirstIndex)
	}
	if c.Error == "InvalidJson" {
		where := "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column)
		if e.Line < 1 || !strings.Contains(err.Error(), where) {
			t.Errorf("position %d:%d, message %q", e.Line, e.Column, err)
		}
	}
}

func TestViewsValid(t *testing.T) {
	f := loadViews(t)
	p, _ := hrwhash.New("a")
	v, err := hrwhash.NewView(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.SeedFingerprintHex() != f.DefaultSeedFingerprint || !v.HasDefaultSeed() {
		t.Errorf("default seed fingerprint %s", v.SeedFingerprintHex())
	}
	for _, c := range f.Valid {
		t.Run(c.Name, func(t *testing.T) {
			v, err := hrwhash.ViewFromJSON(c.doc(t), c.opts(t)...)
			if err != nil {
				t.Fatal(err)
			}
			text, err := v.ToJSON()
			if err != nil || string(text) != c.Canonical {
				t.Fatalf("canonical form %q (%v)", text, err)
			}
			if v.FingerprintHex() != c.Fingerprint || v.SeedFingerprintHex() != c.SeedFingerprint {
				t.Errorf("fingerprints %s %s", v.FingerprintHex(), v.SeedFingerprintHex())
			}
			fp := v.Fingerprint()
			if !reflect.DeepEqual(fp[:], mustHex(t, c.Fingerprint)) {
				t.Errorf("fingerprint bytes %x", fp)
			}
			if strconv.FormatUint(v.Epoch(), 10) != c.Epoch {
				t.Errorf("epoch %d", v.Epoch())
			}
			if v.HasDefaultSeed() != strings.Contains(c.Canonical, `"seed": "default"`) {
				t.Errorf("HasDefaultSeed %v", v.HasDefaultSeed())
			}
			for _, o := range c.Owners {
				if got := v.Placement().Owner(o.Key); got != o.Owner {
					t.Errorf("owner of %q: %d (%v), want %d", o.Key, got, err, o.Owner)
				}
			}
			path := filepath.Join(t.TempDir(), "view.json")
			if err := os.WriteFile(path, c.doc(t), 0o600); err != nil {
				t.Fatal(err)
			}
			fromFile, err := hrwhash.ViewFromFile(path, c.opts(t)...)
			if err != nil || !fromFile.Equal(v) {
				t.Errorf("from file: %v", err)
			}
			again, err := hrwhash.ViewFromJSON([]byte(c.Canonical), c.opts(t)...)
			if err != nil || !again.Equal(v) {
				t.Fatalf("canonical form read back: %v", err)
			}
			built, err := hrwhash.NewView(v.Placement(), v.Epoch())
			if err != nil {
				t.Fatal(err)
			}
			if text2, _ := built.ToJSON(); string(text2) != c.Canonical {
				t.Errorf("NewView of the placement writes %q", text2)
			}
			other, err := v.WithEpoch(v.Epoch() ^ 1)
			if err != nil || other.Fingerprint() != v.Fingerprint() || other.Epoch() != v.Epoch()^1 || other.Equal(v) {
				t.Errorf("WithEpoch: %v", err)
			}
		})
	}
}

func TestViewsEquivalent(t *testing.T) {
	for _, c := range loadViews(t).Equivalent {
		t.Run(c.Name, func(t *testing.T) {
			a, errA := hrwhash.ViewFromJSON([]byte(c.A))
			b, errB := hrwhash.ViewFromJSON([]byte(c.B))
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if a.FingerprintHex() != c.Fingerprint || b.FingerprintHex() != c.Fingerprint {
				t.Errorf("fingerprints %s %s", a.FingerprintHex(), b.FingerprintHex())
			}
			a0, _ := a.WithEpoch(0)
			b0, _ := b.WithEpoch(0)
			ta, _ := a0.ToJSON()
			tb, _ := b0.ToJSON()
			if string(ta) != string(tb) {
				t.Errorf("canonical forms differ:\n%s\n%s", ta, tb)
			}
		})
	}
}

func TestViewsInvalid(t *testing.T) {
	for _, c := range loadViews(t).Invalid {
		t.Run(c.Name, func(t *testing.T) {
			v, err := hrwhash.ViewFromJSON(c.doc(t), c.opts(t)...)
			if err == nil || v != nil {
				t.Fatalf("loaded: %v", v)
			}
			checkViewError(t, c, err)
			path := filepath.Join(t.TempDir(), "view.json")
			if err := os.WriteFile(path, c.doc(t), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = hrwhash.ViewFromFile(path, c.opts(t)...)
			checkViewError(t, c, err)
			if !strings.Contains(err.Error(), path) {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

func TestViewsMovement(t *testing.T) {
	for _, c := range loadViews(t).Movement {
		t.Run(c.Name, func(t *testing.T) {
			side := func(old bool) *hrwhash.Placement {
				var ids []string
				var weights []float64
				for _, n := range c.Nodes {
					s := n.New
					if old {
						s = n.Old
					}
					w, err := strconv.ParseUint(s, 10, 64)
					if err != nil {
						t.Fatal(err)
					}
					if w == 0 {
						continue
					}
					// Every W of the file has at most 53 significant bits: W / 2^32 is exact.
					weight := float64(w) / (1 << 32)
					if fixed, err := hrwhash.WeightToFixed(weight); err != nil || fixed != w {
						t.Fatalf("weight %d: %d %v", w, fixed, err)
					}
					ids = append(ids, n.ID)
					weights = append(weights, weight)
				}
				p, err := hrwhash.NewWeighted(ids, weights)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			old, now := side(true), side(false)
			tr, err := hrwhash.NewTransition(old, now)
			if err != nil {
				t.Fatal(err)
			}
			if tr.ExpectedMoved() != c.ExpectedMoved || tr.Optimum() != c.Optimum {
				t.Errorf("expected %v optimum %v, want %v %v", tr.ExpectedMoved(), tr.Optimum(), c.ExpectedMoved, c.Optimum)
			}
			vo, _ := hrwhash.NewView(old, 1)
			vn, _ := hrwhash.NewView(now, 2)
			tv, err := hrwhash.NewTransition(vo.Placement(), vn.Placement())
			if err != nil || tv.ExpectedMoved() != c.ExpectedMoved {
				t.Errorf("from views: %v %v", tv, err)
			}
			d, err := tr.Diff()
			if err != nil || d.ExpectedMoved() != c.ExpectedMoved || d.Optimum() != c.Optimum {
				t.Errorf("diff: %v", err)
			}
		})
	}
}

func TestViewsRamps(t *testing.T) {
	for _, c := range loadViews(t).Ramps {
		t.Run(c.Name, func(t *testing.T) {
			old, errO := hrwhash.ViewFromJSON([]byte(c.From))
			now, errN := hrwhash.ViewFromJSON([]byte(c.To))
			if errO != nil || errN != nil {
				t.Fatal(errO, errN)
			}
			plan, err := hrwhash.NewRampPlan(old, now, c.MaxMove)
			if c.Error != "" {
				if plan != nil {
					t.Fatal("planned")
				}
				checkViewError(t, viewCase{Error: c.Error, Field: c.Field, Index: c.Index, Reason: c.Reason}, err)
				var e *hrwhash.Error
				if errors.As(err, &e) && c.Error == "InvalidMoveLimit" && e.MaxMove != c.MaxMove {
					t.Errorf("MaxMove %v", e.MaxMove)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Grid != hrwhash.RampGrid || plan.MaxMove() != c.MaxMove {
				t.Errorf("grid %d, max move %v", c.Grid, plan.MaxMove())
			}
			steps := plan.Steps()
			if len(steps) != len(c.Steps) || plan.Len() != len(c.Steps) {
				t.Fatalf("%d steps, want %d", len(steps), len(c.Steps))
			}
			for i, want := range c.Steps {
				s := steps[i]
				if strconv.FormatUint(s.Epoch, 10) != want.Epoch || s.Position != want.Position ||
					s.Moved != want.Moved || s.RemovesDrained != want.RemovesDrained || s.Moved > c.MaxMove {
					t.Errorf("step %d: %+v, want %+v", i, s, want)
				}
				v, err := plan.View(i)
				if err != nil {
					t.Fatal(err)
				}
				p := v.Placement()
				if v.Epoch() != s.Epoch || p.Len() != len(want.Weights) {
					t.Fatalf("step %d view: epoch %d, %d nodes", i, v.Epoch(), p.Len())
				}
				for j, w := range want.Weights {
					n, _ := p.Node(j)
					fixed, _ := hrwhash.WeightToFixed(*n.Weight)
					if n.ID != w.ID || strconv.FormatUint(fixed, 10) != w.Weight {
						t.Errorf("step %d node %d: %q %d, want %q %s", i, j, n.ID, fixed, w.ID, w.Weight)
					}
				}
			}
			if plan.TotalMoved() != c.TotalMoved || plan.DirectMoved() != c.DirectMoved || plan.Optimum() != c.Optimum {
				t.Errorf("totals %v %v %v", plan.TotalMoved(), plan.DirectMoved(), plan.Optimum())
			}
			if len(steps) == 0 {
				if old.Fingerprint() != now.Fingerprint() {
					t.Error("no steps between different views")
				}
			} else if last, _ := plan.View(len(steps) - 1); last.Fingerprint() != now.Fingerprint() ||
				last.Epoch() != old.Epoch()+uint64(len(steps)) {
				t.Error("the last step is not the new view")
			}
			var past *hrwhash.Error
			if _, err := plan.View(len(steps)); !errors.As(err, &past) || past.Code != hrwhash.CodeIndexOutOfRange ||
				past.Index != len(steps) || past.Expected != len(steps) {
				t.Errorf("view past the end: %v", err)
			}
		})
	}
}

func TestViewsTransitionAgreesWithLookups(t *testing.T) {
	old, _ := hrwhash.New("a", "b", "c", "d", "e")
	now, err := hrwhash.NewNodes([]hrwhash.Node{
		{ID: "f"}, {ID: "b", Weight: hrwhash.Weight(2)}, {ID: "a", Weight: hrwhash.Weight(0)}, {ID: "d"}, {ID: "c", Domain: "z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	vo, _ := hrwhash.NewView(old, 1)
	vn, _ := hrwhash.NewView(now, 2)
	tr, err := hrwhash.NewTransition(vo.Placement(), vn.Placement())
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := tr.OldToNew(0); !ok || i != 2 {
		t.Errorf("a -> %d %v", i, ok)
	}
	if _, ok := tr.OldToNew(4); ok {
		t.Error("e is not in the new membership")
	}
	if _, ok := tr.NewToOld(0); ok {
		t.Error("f is not in the old membership")
	}
	if _, ok := tr.OldToNew(5); ok {
		t.Error("old index 5 is out of range")
	}
	d, _ := tr.Diff()
	h1, _ := tr.Diff()
	h2, _ := tr.Diff()
	batch, _ := tr.Diff()
	var keys []string
	flows := map[[2]int]uint64{}
	before, after := make([]uint64, 5), make([]uint64, 5)
	var moved []hrwhash.Move
	id := func(p *hrwhash.Placement, i int) string { s, _ := p.NodeID(i); return s }
	for i := 0; i < 2000; i++ {
		k := "key-" + strconv.Itoa(i)
		keys = append(keys, k)
		o := old.Owner(k)
		n := now.Owner(k)
		r, err := tr.Route(k)
		if err != nil || r.OldIndex != o || r.NewIndex != n || r.Moved != (id(old, o) != id(now, n)) {
			t.Fatalf("route of %s: %+v %v", k, r, err)
		}
		before[o]++
		after[n]++
		if r.Moved {
			flows[[2]int{o, n}]++
			moved = append(moved, hrwhash.Move{Key: k, Index: i, From: o, To: n})
		}
		if err := d.Add(k); err != nil {
			t.Fatal(err)
		}
		h := h1
		if i%2 == 0 {
			h = h2
		}
		_ = h.Add(k)
		top, err := tr.RouteTop(k, 3)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := old.Rank(k, 3)
		ra, _ := now.Rank(k, 3)
		if !reflect.DeepEqual(top.Before, rb) || !reflect.DeepEqual(top.After, ra) {
			t.Fatalf("route top of %s: %+v", k, top)
		}
		in := func(p *hrwhash.Placement, i int, q *hrwhash.Placement, list []int) bool {
			for _, j := range list {
				if id(p, i) == id(q, j) {
					return true
				}
			}
			return false
		}
		var add, drop []int
		for _, a := range ra {
			if !in(now, a, old, rb) {
				add = append(add, a)
			}
		}
		for _, b := range rb {
			if !in(old, b, now, ra) {
				drop = append(drop, b)
			}
		}
		if len(add) != len(top.Add) || len(drop) != len(top.Drop) ||
			(len(add) > 0 && !reflect.DeepEqual(add, top.Add)) || (len(drop) > 0 && !reflect.DeepEqual(drop, top.Drop)) {
			t.Fatalf("add/drop of %s: %+v, want %v %v", k, top, add, drop)
		}
	}
	if err := batch.AddMany(keys); err != nil {
		t.Fatal(err)
	}
	if err := h1.Merge(h2); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*hrwhash.Diff{d, h1, batch} {
		if x.Keys() != uint64(len(keys)) || x.Moved() != uint64(len(moved)) {
			t.Errorf("keys %d moved %d, want %d %d", x.Keys(), x.Moved(), len(keys), len(moved))
		}
		got := map[[2]int]uint64{}
		var sum uint64
		for _, f := range x.Flows() {
			got[[2]int{f.From, f.To}] = f.Count
			sum += f.Count
		}
		if !reflect.DeepEqual(got, flows) || sum != x.Moved() {
			t.Errorf("flows %v, want %v", got, flows)
		}
		rows := x.Nodes()
		if len(rows) != 6 {
			t.Errorf("%d node rows, want 6", len(rows))
		}
		for _, r := range rows {
			var b, a uint64
			if r.OldIndex >= 0 {
				b = before[r.OldIndex]
			}
			if r.NewIndex >= 0 {
				a = after[r.NewIndex]
			}
			if r.Before != b || r.After != a {
				t.Errorf("row %+v, want %d %d", r, b, a)
			}
		}
	}
	planned, err := tr.PlanKeys(keys)
	if err != nil || !reflect.DeepEqual(planned, moved) {
		t.Errorf("PlanKeys: %d moves, want %d (%v)", len(planned), len(moved), err)
	}
	// The streaming plan reads a key only when it needs one.
	read := 0
	p := tr.Plan(func() (string, bool) {
		read++
		return "key-" + strconv.Itoa(read-1), true // endless
	})
	var streamed []hrwhash.Move
	for len(streamed) < 10 && p.Next() {
		streamed = append(streamed, p.Move())
	}
	if p.Err() != nil || !reflect.DeepEqual(streamed, moved[:10]) || read != moved[9].Index+1 {
		t.Errorf("streamed %v after reading %d keys (%v)", streamed, read, p.Err())
	}
	other, _ := hrwhash.NewTransition(vo.Placement(), vn.Placement())
	foreign, _ := other.Diff()
	if err := d.Merge(foreign); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("merge across transitions: %v", err)
	}
	if err := d.Merge(d); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("merge with itself: %v", err)
	}
	if d.Keys() != uint64(len(keys)) {
		t.Error("a failed merge changed the counts")
	}
}

func TestViewsErrors(t *testing.T) {
	p, _ := hrwhash.New("a", "b")
	v, _ := hrwhash.NewView(p, 3)
	text, _ := v.ToJSON()
	secret, _ := hrwhash.SeedFromBytes([]byte("0123456789abcdef"))
	if _, err := hrwhash.ViewFromJSON(text, hrwhash.WithSeed(secret)); !errors.Is(err, hrwhash.ErrSeedMismatch) {
		t.Errorf("secret seed for a default view: %v", err)
	}
	sp, _ := hrwhash.NewNodes([]hrwhash.Node{{ID: "a"}, {ID: "b"}}, hrwhash.WithSeed(secret))
	sv, _ := hrwhash.NewView(sp, 3)
	stext, _ := sv.ToJSON()
	if strings.Contains(string(stext), "0123456789abcdef") || sv.HasDefaultSeed() {
		t.Error("a secret seed was written")
	}
	if _, err := hrwhash.ViewFromJSON(stext); !errors.Is(err, hrwhash.ErrSeedMismatch) {
		t.Errorf("secret view, default seed: %v", err)
	}
	if back, err := hrwhash.ViewFromJSON(stext, hrwhash.WithSeed(secret)); err != nil || !back.Equal(sv) {
		t.Errorf("secret view, its seed: %v", err)
	}
	if _, err := hrwhash.ViewFromJSON([]byte("{\"format\": \"\xff\"}")); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Errorf("bad UTF-8: %v", err)
	}
	if _, err := hrwhash.ViewFromJSON(nil); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Errorf("no text: %v", err)
	}
	var e *hrwhash.Error
	if _, err := hrwhash.ViewFromJSON([]byte(`{"format": 1}`)); !errors.As(err, &e) || e.Field != "format" ||
		e.Reason != hrwhash.FaultWrongType || e.Index != -1 {
		t.Errorf("wrong type: %v", err)
	}
	// A member name longer than the C ABI's hrw_error.field: both builds give it whole.
	long := strings.Repeat("z", 100)
	if _, err := hrwhash.ViewFromJSON([]byte(`{"` + long + `": 1}`)); !errors.As(err, &e) || e.Field != long ||
		e.Reason != hrwhash.FaultUnknown {
		t.Errorf("long member name: %v", err)
	}
	if _, err := hrwhash.NewRampPlan(v, sv, 0.5); !errors.Is(err, hrwhash.ErrSeedMismatch) {
		t.Errorf("ramp across seeds: %v", err)
	}
	for _, bad := range []float64{0, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		_, err := hrwhash.NewRampPlan(v, v, bad)
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidMoveLimit ||
			(!math.IsNaN(bad) && e.MaxMove != bad) {
			t.Errorf("limit %v: %v", bad, err)
		}
	}
	last, _ := v.WithEpoch(math.MaxUint64)
	grown, _ := hrwhash.New("a", "b", "c")
	gv, _ := hrwhash.NewView(grown, 1)
	if _, err := hrwhash.NewRampPlan(last, gv, 1); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidView ||
		e.Field != "epoch" || e.Reason != hrwhash.FaultOutOfRange {
		t.Errorf("epochs past 2^64 - 1: %v", err)
	}
	// Files that cannot be read are ErrIO (C status 30, as in every language), wrapping the
	// *fs.PathError; not view errors.
	_, err := hrwhash.ViewFromFile("/nonexistent/view.json")
	var pe *fs.PathError
	if !errors.Is(err, hrwhash.ErrIO) || !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) ||
		!errors.As(err, &e) || e.Code != 30 || e.Code.String() != "Io" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := hrwhash.ViewFromFile(t.TempDir()); !errors.Is(err, hrwhash.ErrIO) || !errors.Is(err, syscall.EISDIR) {
		t.Errorf("a directory: %v", err)
	}
	// A NUL inside the path names no file: ErrIO, as the C ABI says for the same bytes.
	if _, err := hrwhash.ViewFromFile("view\x00.json"); !errors.Is(err, hrwhash.ErrIO) || errors.Is(err, hrwhash.ErrInvalidView) {
		t.Errorf("a NUL in the path: %v", err)
	}
	// nil and zero values: ErrNullParameter, never a panic.
	var nv *hrwhash.View
	var zv hrwhash.View
	if _, err := hrwhash.NewView(nil, 1); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("NewView(nil): %v", err)
	}
	if _, err := nv.ToJSON(); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil view: %v", err)
	}
	if _, err := zv.WithEpoch(1); !errors.Is(err, hrwhash.ErrNullParameter) || zv.Placement() != nil || zv.Epoch() != 0 {
		t.Errorf("zero view: %v", err)
	}
	if _, err := hrwhash.NewTransition(v.Placement(), nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("transition to nil: %v", err)
	}
	if _, err := hrwhash.NewTransition(nil, p); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("transition from nil: %v", err)
	}
	if _, err := hrwhash.NewRampPlan(nil, v, 0.5); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("ramp from nil: %v", err)
	}
	var nt *hrwhash.Transition
	if _, err := nt.Route("k"); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil transition: %v", err)
	}
	if nt.Plan(nil).Next() || !errors.Is(nt.Plan(nil).Err(), hrwhash.ErrNullParameter) {
		t.Error("plan of a nil transition")
	}
	tr, _ := hrwhash.NewTransition(v.Placement(), v.Placement())
	if tr.Plan(nil).Next() || !errors.Is(tr.Plan(nil).Err(), hrwhash.ErrNullParameter) {
		t.Error("plan without keys")
	}
	if _, err := tr.RouteTop("k", -1); !errors.Is(err, hrwhash.ErrInvalidCount) {
		t.Errorf("k = -1: %v", err)
	}
	if top, err := tr.RouteTop("k", math.MaxInt); err != nil || len(top.Before) != 2 {
		t.Errorf("k = MaxInt: %v %v", top, err)
	}
	var nd *hrwhash.Diff
	if err := nd.Add("k"); !errors.Is(err, hrwhash.ErrNullParameter) || nd.Keys() != 0 || nd.Flows() != nil {
		t.Errorf("nil diff: %v", err)
	}
	d, _ := tr.Diff()
	if err := d.Merge(nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("merge nil: %v", err)
	}
	var nr *hrwhash.RampPlan
	if _, err := nr.View(0); !errors.Is(err, hrwhash.ErrNullParameter) || nr.Len() != 0 {
		t.Errorf("nil ramp: %v", err)
	}
	if err := d.AddMany([]string{"", "", ""}); err != nil || d.Keys() != 3 {
		t.Errorf("empty keys: %v", err)
	}
	if moves, err := tr.PlanKeys(nil); err != nil || moves != nil {
		t.Errorf("empty plan: %v", err)
	}
}

// File loaders read a bounded document and stop at the first byte no JSON text may hold, as the
// core's loaders do: /dev/zero is InvalidJSON at line 1 after one read, not an exhausted memory.
func TestViewFromFileIsBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := hrwhash.ViewFromFile("/dev/zero")
		var e *hrwhash.Error
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidJSON || e.Line != 1 || e.Column != 1 {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	doc, err := hrwhash.ReadDocument(strings.NewReader("{\"a\"\x00 never read"), 1<<20)
	if err != nil || string(doc) != "{\"a\"\x00" {
		t.Errorf("stops at the first control byte: %q, %v", doc, err)
	}
	doc, err = hrwhash.ReadDocument(strings.NewReader("{\t\r\n}"), 1<<20)
	if err != nil || string(doc) != "{\t\r\n}" {
		t.Errorf("tab, CR and LF are JSON white space: %q, %v", doc, err)
	}
	if _, err := hrwhash.ReadDocument(strings.NewReader(strings.Repeat(" ", 65)), 64); !errors.Is(err, hrwhash.ErrResultTooLarge) {
		t.Errorf("past the limit: %v", err)
	}
	if doc, err := hrwhash.ReadDocument(strings.NewReader(strings.Repeat(" ", 64)), 64); err != nil || len(doc) != 64 {
		t.Errorf("at the limit: %d bytes, %v", len(doc), err)
	}
}

// Every step that moves keys is charged the number of ids on the ramp before it is searched
// (VIEW.md section 7, "Cost"): five steps over five ids fit a cap of 25 and fail at 24.
func TestRampPlanIsCapped(t *testing.T) {
	old, err := hrwhash.New("a", "b", "c", "d")
	if err != nil {
		t.Fatal(err)
	}
	grown, err := hrwhash.New("a", "b", "c", "d", "e")
	if err != nil {
		t.Fatal(err)
	}
	from, _ := hrwhash.NewView(old, 10)
	to, _ := hrwhash.NewView(grown, 11)
	plan, err := hrwhash.NewRampPlan(from, to, 0.05)
	if err != nil || len(plan.Steps()) != 5 {
		t.Fatalf("plan: %v", err)
	}
	if n, err := hrwhash.PlanRampWithin(from, to, 0.05, 25); err != nil || n != 5 {
		t.Errorf("at the cap: %d steps, %v", n, err)
	}
	if _, err := hrwhash.PlanRampWithin(from, to, 0.05, 24); !errors.Is(err, hrwhash.ErrResultTooLarge) {
		t.Errorf("past the cap: %v", err)
	}
	if _, err := hrwhash.PlanRampWithin(from, to, 1e-300, 0); !errors.Is(err, hrwhash.ErrResultTooLarge) {
		t.Errorf("the cap before the search: %v", err)
	}
}

// A zero View (declared, never built) is a nil-like value: every method that can fail is
// ErrNullParameter, the others answer their documented zero, and none panics.
func TestZeroViewIsTypedNeverAPanic(t *testing.T) {
	var zero hrwhash.View
	p, _ := hrwhash.New("a", "b")
	built, _ := hrwhash.NewView(p, 1)
	for name, err := range map[string]error{
		"WithEpoch": func() error { _, err := zero.WithEpoch(2); return err }(),
		"JSON":      func() error { _, err := zero.ToJSON(); return err }(),
		"Transition from": func() error {
			_, err := hrwhash.NewTransition(zero.Placement(), built.Placement())
			return err
		}(),
		"Transition to": func() error {
			_, err := hrwhash.NewTransition(built.Placement(), zero.Placement())
			return err
		}(),
		"RampPlan": func() error { _, err := hrwhash.NewRampPlan(&zero, built, 0.5); return err }(),
	} {
		if !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("%s on a zero View: %v", name, err)
		}
	}
	if zero.Epoch() != 0 || zero.Placement() != nil || zero.Fingerprint() != [16]byte{} ||
		zero.SeedFingerprint() != [8]byte{} || zero.HasDefaultSeed() || zero.Equal(built) ||
		built.Equal(&zero) || zero.FingerprintHex() != strings.Repeat("0", 32) {
		t.Error("a zero View answers other than its documented zeros")
	}
}

// The pure-Go loader copies a string without escapes once and shares repeated member names:
// a 1,000-node document took 11.1 allocations per node (a string grew byte by byte, and every
// "id" was its own copy) and takes about 5.1 now. A 22 MB view of a million nodes peaked at
// 755 MB and now at 663 MB; the placement alone, built without a document, takes 445 MB.
func TestViewLoadingAllocatesLittlePerNode(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"hrwhash-view-v1","algorithm":"hrw-v1","epoch":"1","seed":"default","nodes":[`)
	for i := 0; i < 1000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"node-%07d","weight":2}`, i)
	}
	b.WriteString("]}")
	doc := []byte(b.String())
	var err error
	allocs := testing.AllocsPerRun(3, func() { _, err = hrwhash.ViewFromJSON(doc) })
	if err != nil {
		t.Fatal(err)
	}
	if hrwhash.Backend == "purego" && allocs > 6*1000 {
		t.Errorf("%.0f allocations for 1,000 nodes", allocs)
	}
}

// Loading a view allocates a small multiple of the document: its nodes become Nodes as they are
// parsed (no JSON tree of the whole document), the fingerprint is hashed as it is made, node
// digests leave no garbage, and the cgo build keeps libhrwhash's placement of the view instead
// of building a second one. A 112 MB view of a million nodes with 90-byte ids took 2.2 GB of
// allocations and a 1,084 MB peak in pure Go, and takes about 4 times the document (596 MB
// peak) now; `bash bench/view-memory.sh` measures every language.
func TestViewLoadingAllocatesInProportionToTheDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "1", "seed": "default", "nodes": [`)
	const nodes = 30000
	for i := 0; i < nodes; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "cache-%09d.%s", "weight": 2.5, "domain": "rack-%d"}`, i, strings.Repeat("x", 74), i%64)
	}
	b.WriteString("]}")
	doc := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := hrwhash.ViewFromJSON(doc)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(v)
	allocated := after.TotalAlloc - before.TotalAlloc
	ratio := float64(allocated) / float64(len(doc))
	t.Logf("%d bytes of document, %d bytes allocated (%.1fx)", len(doc), allocated, ratio)
	if ratio > 8 {
		t.Errorf("loading a %d-byte view allocated %d bytes (%.1fx its size; at most 8x)", len(doc), allocated, ratio)
	}
}
