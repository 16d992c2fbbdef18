package hrwhash_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	hrwhash "github.com/hrwhash/hrwhash/go"
)

// conformance/transitions.json (VIEW.md 6): expected movement between seeds, RouteTop's sets and
// add/drop order, and the flows and rows of a diff, in every build.

type transitionSides struct {
	Name     string  `json:"name"`
	From     string  `json:"from"`
	To       string  `json:"to"`
	FromSeed *string `json:"from_seed"`
	ToSeed   *string `json:"to_seed"`
}

type transitionsFile struct {
	Format     string                     `json:"format"`
	Comment    string                     `json:"_comment"`
	NotOffered map[string]json.RawMessage `json:"not_offered"`
	Movement   []struct {
		transitionSides
		ExpectedMoved float64 `json:"expected_moved"`
		Optimum       float64 `json:"optimum"`
	} `json:"movement"`
	Routes []struct {
		transitionSides
		K      int `json:"k"`
		Routes []struct {
			Key    string `json:"key"`
			Before []int  `json:"before"`
			After  []int  `json:"after"`
			Add    []int  `json:"add"`
			Drop   []int  `json:"drop"`
		} `json:"routes"`
	} `json:"routes"`
	Diffs []struct {
		transitionSides
		K             int        `json:"k"`
		Keys          int        `json:"keys"`
		KeysCounted   uint64     `json:"keys_counted"`
		Moved         uint64     `json:"moved"`
		Flows         [][3]int64 `json:"flows"`
		CopiesAdded   uint64     `json:"copies_added"`
		CopiesDropped uint64     `json:"copies_dropped"`
		Nodes         []struct {
			ID       string `json:"id"`
			OldIndex *int   `json:"old_index"`
			NewIndex *int   `json:"new_index"`
			Before   uint64 `json:"before"`
			After    uint64 `json:"after"`
			Added    uint64 `json:"added"`
			Dropped  uint64 `json:"dropped"`
		} `json:"nodes"`
	} `json:"diffs"`
}

// Go runs every part.
var transitionsSkipped []string

func loadTransitions(t *testing.T) (transitionsFile, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "conformance", "transitions.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A member this suite does not read is a part the Go package is not checked against.
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var f transitionsFile
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if f.Format != hrwhash.ViewFormat || len(f.Movement) == 0 || len(f.Routes) == 0 || len(f.Diffs) == 0 {
		t.Fatalf("format %q, or a section is empty", f.Format)
	}
	var skipped map[string]string
	if err := json.Unmarshal(f.NotOffered["go"], &skipped); err != nil {
		t.Fatalf("not_offered.go: %v", err)
	}
	return f, skipped
}

func (s transitionSides) transition(t *testing.T) (*hrwhash.Transition, *hrwhash.Placement, *hrwhash.Placement) {
	t.Helper()
	load := func(doc string, seed *string) *hrwhash.Placement {
		var opts []hrwhash.Option
		if seed != nil {
			sd, err := hrwhash.SeedFromBytes(mustHex(t, *seed))
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, hrwhash.WithSeed(sd))
		}
		v, err := hrwhash.ViewFromJSON([]byte(doc), opts...)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		return v.Placement()
	}
	old, new := load(s.From, s.FromSeed), load(s.To, s.ToSeed)
	tr, err := hrwhash.NewTransition(old, new)
	if err != nil {
		t.Fatal(err)
	}
	return tr, old, new
}

func TestTransitionsNotOfferedIsWhatGoSkips(t *testing.T) {
	_, skipped := loadTransitions(t)
	var got []string
	for part := range skipped {
		got = append(got, part)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, transitionsSkipped) {
		t.Fatalf("not_offered.go names %v; this suite skips %v", got, transitionsSkipped)
	}
}

func TestTransitionsMovementBetweenSeeds(t *testing.T) {
	f, _ := loadTransitions(t)
	for _, c := range f.Movement {
		tr, _, _ := c.transition(t)
		if got := tr.ExpectedMoved(); got != c.ExpectedMoved {
			t.Errorf("%s: expected moved %v, want %v", c.Name, got, c.ExpectedMoved)
		}
		if got := tr.Optimum(); got != c.Optimum {
			t.Errorf("%s: optimum %v, want %v", c.Name, got, c.Optimum)
		}
	}
}

func TestTransitionsRouteTop(t *testing.T) {
	f, _ := loadTransitions(t)
	for _, c := range f.Routes {
		tr, _, _ := c.transition(t)
		for _, r := range c.Routes {
			got, err := tr.RouteTop(r.Key, c.K)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			want := hrwhash.RouteSet{Before: r.Before, After: r.After, Add: r.Add, Drop: r.Drop}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %q: %+v, want %+v", c.Name, r.Key, got, want)
			}
		}
	}
}

func TestTransitionsDiffRows(t *testing.T) {
	f, _ := loadTransitions(t)
	for _, c := range f.Diffs {
		tr, _, _ := c.transition(t)
		keys := make([]string, c.Keys)
		for i := range keys {
			keys[i] = fmt.Sprintf("key-%d", i)
		}
		// DiffTop with k = 1 counts what Diff counts, without the flows.
		var diffs []*hrwhash.Diff
		if c.K == 1 {
			d, err := tr.Diff()
			if err != nil {
				t.Fatal(err)
			}
			diffs = append(diffs, d)
		}
		top, err := tr.DiffTop(c.K)
		if err != nil {
			t.Fatal(err)
		}
		diffs = append(diffs, top)
		for _, d := range diffs {
			if err := d.AddMany(keys); err != nil {
				t.Fatal(err)
			}
			if d.K() != c.K || d.Keys() != c.KeysCounted || d.Moved() != c.Moved {
				t.Errorf("%s: k %d keys %d moved %d, want %d %d %d", c.Name, d.K(), d.Keys(), d.Moved(), c.K, c.KeysCounted, c.Moved)
			}
			copies := [2]uint64{c.CopiesAdded, c.CopiesDropped}
			if c.K == 1 {
				copies = [2]uint64{c.Moved, c.Moved}
			}
			if got := [2]uint64{d.CopiesAdded(), d.CopiesDropped()}; got != copies {
				t.Errorf("%s: copies %v, want %v", c.Name, got, copies)
			}
			var flows [][3]int64
			for _, fl := range d.Flows() {
				flows = append(flows, [3]int64{int64(fl.From), int64(fl.To), int64(fl.Count)})
			}
			wantFlows := c.Flows
			if d == top {
				wantFlows = nil
			}
			if !reflect.DeepEqual(flows, wantFlows) {
				t.Errorf("%s: flows %v, want %v", c.Name, flows, wantFlows)
			}
			index := func(i *int) int {
				if i == nil {
					return -1
				}
				return *i
			}
			var want []hrwhash.NodeChange
			for _, r := range c.Nodes {
				want = append(want, hrwhash.NodeChange{OldIndex: index(r.OldIndex), NewIndex: index(r.NewIndex), Before: r.Before, After: r.After, Added: r.Added, Dropped: r.Dropped})
			}
			if got := d.Nodes(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: rows %+v, want %+v", c.Name, got, want)
			}
		}
		// The plan lists exactly the keys the diff counts as changed, with RouteTop's sets.
		i := 0
		p := tr.PlanTop(func() (string, bool) {
			if i == len(keys) {
				return "", false
			}
			i++
			return keys[i-1], true
		}, c.K)
		var planned, added, dropped uint64
		for p.Next() {
			m := p.Move()
			want, err := tr.RouteTop(m.Key, c.K)
			if err != nil || !reflect.DeepEqual(m.Route, want) || keys[m.Index] != m.Key {
				t.Fatalf("%s: %+v, want %+v (%v)", c.Name, m, want, err)
			}
			planned++
			added += uint64(len(m.Route.Add))
			dropped += uint64(len(m.Route.Drop))
		}
		if p.Err() != nil || planned != c.Moved || added != top.CopiesAdded() || dropped != top.CopiesDropped() {
			t.Errorf("%s: planned %d (+%d -%d, %v), want %d", c.Name, planned, added, dropped, p.Err(), c.Moved)
		}
	}
}

func TestTransitionsDiffTopK(t *testing.T) {
	f, _ := loadTransitions(t)
	var c = f.Diffs[0]
	for _, d := range f.Diffs {
		if d.K > 1 {
			c = d
			break
		}
	}
	tr, old, new := c.transitionSides.transition(t)
	keys := []string{"a", "b", "c"}
	var e *hrwhash.Error
	if _, err := tr.DiffTop(-1); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidCount || e.Count != -1 {
		t.Errorf("DiffTop(-1): %v", err)
	}
	p := tr.PlanTop(func() (string, bool) { return "k", true }, -1)
	if p.Next() || !errors.As(p.Err(), &e) || e.Code != hrwhash.CodeInvalidCount {
		t.Errorf("PlanTop(-1): %v", p.Err())
	}
	if p := tr.PlanTop(nil, 2); p.Next() || !errors.Is(p.Err(), hrwhash.ErrNullParameter) {
		t.Errorf("PlanTop(nil): %v", p.Err())
	}
	// k = 0 compares empty sets; a k beyond the nodes compares every node.
	zero, _ := tr.DiffTop(0)
	big, _ := tr.DiffTop(1000)
	whole, _ := tr.DiffTop(old.Len() + new.Len())
	for _, d := range []*hrwhash.Diff{zero, big, whole} {
		if err := d.AddMany(keys); err != nil {
			t.Fatal(err)
		}
	}
	if zero.Moved() != 0 || zero.Keys() != 3 {
		t.Errorf("k = 0: moved %d keys %d", zero.Moved(), zero.Keys())
	}
	for _, r := range zero.Nodes() {
		if r.Before != 0 || r.After != 0 {
			t.Errorf("k = 0: row %+v", r)
		}
	}
	if big.K() != 1000 || !reflect.DeepEqual(big.Nodes(), whole.Nodes()) || whole.Nodes()[0].Before != 3 {
		t.Errorf("k = 1000: %+v, want %+v", big.Nodes(), whole.Nodes())
	}
	// Merge takes a diff of the same transition and k only.
	one, _ := tr.Diff()
	top1, _ := tr.DiffTop(1)
	two, _ := tr.DiffTop(2)
	for _, pair := range [][2]*hrwhash.Diff{{one, top1}, {top1, one}, {two, top1}, {big, whole}} {
		if err := pair[0].Merge(pair[1]); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("merge of k %d and k %d: %v", pair[0].K(), pair[1].K(), err)
		}
	}
	other, _ := tr.DiffTop(2)
	_ = other.AddMany(keys)
	if err := two.Merge(other); err != nil || two.Keys() != 3 {
		t.Errorf("merge of two k = 2 diffs: %v, keys %d", err, two.Keys())
	}
}
