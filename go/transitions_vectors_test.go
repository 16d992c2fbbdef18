package hrwhash_test

import (
	"encoding/json"
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

// The parts of the cases this suite does not run: NodeChange has no Added or Dropped, and
// Transition.Diff counts owners only.
var transitionsSkipped = []string{"diff_row_moves", "replica_diffs"}

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
	f, skipped := loadTransitions(t)
	for _, c := range f.Diffs {
		if c.K != 1 {
			if _, ok := skipped["replica_diffs"]; !ok {
				t.Fatalf("%s: a replica diff, which not_offered.go does not name", c.Name)
			}
			continue
		}
		tr, _, _ := c.transition(t)
		d, err := tr.Diff()
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, c.Keys)
		for i := range keys {
			keys[i] = fmt.Sprintf("key-%d", i)
		}
		if err := d.AddMany(keys); err != nil {
			t.Fatal(err)
		}
		if d.Keys() != c.KeysCounted || d.Moved() != c.Moved {
			t.Errorf("%s: keys %d moved %d, want %d %d", c.Name, d.Keys(), d.Moved(), c.KeysCounted, c.Moved)
		}
		var flows [][3]int64
		for _, fl := range d.Flows() {
			flows = append(flows, [3]int64{int64(fl.From), int64(fl.To), int64(fl.Count)})
		}
		if !reflect.DeepEqual(flows, c.Flows) {
			t.Errorf("%s: flows %v, want %v", c.Name, flows, c.Flows)
		}
		index := func(i *int) int {
			if i == nil {
				return -1
			}
			return *i
		}
		var want []hrwhash.NodeChange
		for _, r := range c.Nodes {
			want = append(want, hrwhash.NodeChange{OldIndex: index(r.OldIndex), NewIndex: index(r.NewIndex), Before: r.Before, After: r.After})
		}
		if got := d.Nodes(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rows %+v, want %+v", c.Name, got, want)
		}
	}
}
