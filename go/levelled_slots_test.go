package hrwhash_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of ../conformance/policies/slot-table-v2.json through NewLevelledSlotTable . The file has the shape of slot-table.json, so its case types are shared.
func loadLevelledSlots(t *testing.T) (cases, errorCases []stCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "slot-table-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Policy     string   `json:"policy"`
		MaxSlots   uint64   `json:"max_slots"`
		Cases      []stCase `json:"cases"`
		ErrorCases []stCase `json:"error_cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if v.Policy != hrwhash.LevelledSlotsPolicy || v.MaxSlots != hrwhash.MaxSlots || len(v.Cases) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("slot-table-v2.json: policy %q, max %d, %d cases, %d error cases", v.Policy, v.MaxSlots, len(v.Cases), len(v.ErrorCases))
	}
	return v.Cases, v.ErrorCases
}

// checkLevelled compares a table with what the file expects of it: the owner of every slot
// (through Assignments and OwnerOfSlot), the slot counts, and the keys.
func checkLevelled(t *testing.T, name string, lt *hrwhash.LevelledSlotTable, want *stExpected) {
	t.Helper()
	table, err := lt.Assignments()
	if err != nil || !sameInts(table, want.Table) || lt.Slots() != len(want.Table) {
		t.Errorf("%s: table %v, %v; want %v", name, table, err, want.Table)
		return
	}
	counts := make([]int, lt.Placement().Len())
	for s, o := range want.Table {
		counts[o]++
		if got, err := lt.OwnerOfSlot(uint64(s)); err != nil || got != o {
			t.Errorf("%s: owner of slot %d: %d, %v; want %d", name, s, got, err, o)
			break
		}
	}
	if got, err := lt.SlotCounts(); err != nil || !sameInts(got, counts) {
		t.Errorf("%s: slot counts %v, %v; want %v", name, got, err, counts)
	}
	for _, k := range want.Keys {
		if slot := lt.Slot(k.Key); slot != k.Slot {
			t.Errorf("%s: slot of %q: %d; want %d", name, k.Key, slot, k.Slot)
		}
		if owner := lt.Owner(k.Key); owner != k.Owner {
			t.Errorf("%s: owner of %q: %d; want %d", name, k.Key, owner, k.Owner)
		}
	}
}

func applyLevelled(lt *hrwhash.LevelledSlotTable, op, id string, weight *float64) (*hrwhash.LevelledSlotTable, error) {
	switch op {
	case "add":
		return lt.WithNode(hrwhash.Node{ID: id, Weight: weight})
	case "remove":
		return lt.WithoutNode(id)
	case "weight":
		return lt.WithWeight(id, *weight)
	}
	panic("unknown op " + op)
}

func applyLevelledInPlace(lt *hrwhash.LevelledSlotTable, op, id string, weight *float64) error {
	switch op {
	case "add":
		return lt.AddNode(hrwhash.Node{ID: id, Weight: weight})
	case "remove":
		return lt.RemoveNode(id)
	case "weight":
		return lt.SetWeight(id, *weight)
	}
	panic("unknown op " + op)
}

// movedOnlyTheChanged checks the promise of a change: every slot that changed hands went to or
// came from the changed node. Indices are compared by node id, as removing renumbers them.
func movedOnlyTheChanged(t *testing.T, name, id string, before, after *hrwhash.LevelledSlotTable) {
	t.Helper()
	a, _ := before.Assignments()
	b, _ := after.Assignments()
	idOf := func(p *hrwhash.Placement, i int) string {
		n, err := p.Node(i)
		if err != nil {
			t.Fatalf("%s: node %d: %v", name, i, err)
		}
		return n.ID
	}
	for s := range a {
		was, is := idOf(before.Placement(), a[s]), idOf(after.Placement(), b[s])
		if was != is && was != id && is != id {
			t.Errorf("%s: slot %d moved from %s to %s, neither of them %s", name, s, was, is, id)
			return
		}
	}
}

func TestLevelledSlotTableVectors(t *testing.T) {
	cases, _ := loadLevelledSlots(t)
	finals := map[string][]int{}
	for _, c := range cases {
		p := c.placement(t)
		lt, err := hrwhash.NewLevelledSlotTable(p, c.slots(t))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if lt.Placement() != p {
			t.Errorf("%s: placement", c.Name)
		}
		checkLevelled(t, c.Name, lt, &c.Expected)
		inPlace, err := hrwhash.NewLevelledSlotTable(p, c.slots(t))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for j, ch := range c.Changes {
			name := c.Name + " change " + strconv.Itoa(j) + " (" + ch.Op + " " + ch.ID + ")"
			next, err := applyLevelled(lt, ch.Op, ch.ID, ch.Weight)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkLevelled(t, name, next, &ch.Expected)
			// The same change in place gives the same table.
			if err := applyLevelledInPlace(inPlace, ch.Op, ch.ID, ch.Weight); err != nil {
				t.Fatalf("%s in place: %v", name, err)
			}
			checkLevelled(t, name+" in place", inPlace, &ch.Expected)
			if inPlace.Placement().Len() != next.Placement().Len() {
				t.Errorf("%s in place: %d nodes, want %d", name, inPlace.Placement().Len(), next.Placement().Len())
			}
			// The change left the table it came from as it was.
			checkLevelled(t, name+", the table before", lt, tableBefore(&c, j))
			movedOnlyTheChanged(t, name, ch.ID, lt, next)
			lt = next
		}
		finals[c.Name], _ = lt.Assignments()
	}
	// The same changes in another order reach the same membership but another table.
	a, b := finals["order-a"], finals["order-b"]
	if a == nil || b == nil || sameInts(a, b) {
		t.Errorf("order-a and order-b: %v, %v", a, b)
	}
}

func TestLevelledSlotTableErrorVectors(t *testing.T) {
	_, errorCases := loadLevelledSlots(t)
	codes := map[string]hrwhash.Code{
		"InvalidSlotCount": hrwhash.CodeInvalidSlotCount,
		"SlotOutOfRange":   hrwhash.CodeSlotOutOfRange,
		"UnknownNode":      hrwhash.CodeUnknownNode,
		"DuplicateNodeId":  hrwhash.CodeDuplicateNodeID,
		"EmptyMembership":  hrwhash.CodeEmptyMembership,
		"AllWeightsZero":   hrwhash.CodeAllWeightsZero,
	}
	for _, c := range errorCases {
		want, ok := codes[c.Error]
		if !ok {
			t.Fatalf("%s: unknown error %q", c.Name, c.Error)
		}
		slots := c.slots(t)
		lt, err := hrwhash.NewLevelledSlotTable(c.placement(t), slots)
		var slot uint64
		switch {
		case c.Slot != "":
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if slot, err = strconv.ParseUint(c.Slot, 10, 64); err != nil {
				t.Fatal(err)
			}
			_, err = lt.OwnerOfSlot(slot)
		case len(c.Changes) > 0:
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			for j, ch := range c.Changes {
				var next *hrwhash.LevelledSlotTable
				next, err = applyLevelled(lt, ch.Op, ch.ID, ch.Weight)
				if j+1 < len(c.Changes) {
					if err != nil {
						t.Fatalf("%s: change %d: %v", c.Name, j, err)
					}
					lt = next
				} else {
					if next != nil {
						t.Errorf("%s: a table and an error", c.Name)
					}
					// The same failing change in place: the same error, and the table as it was.
					before, _ := lt.Assignments()
					nodes := lt.Placement().Len()
					inPlaceErr := applyLevelledInPlace(lt, ch.Op, ch.ID, ch.Weight)
					after, _ := lt.Assignments()
					if !errors.Is(inPlaceErr, &hrwhash.Error{Code: want}) || !sameInts(before, after) || lt.Placement().Len() != nodes {
						t.Errorf("%s: in place: %v, the table changed: %v", c.Name, inPlaceErr, !sameInts(before, after))
					}
				}
			}
		default:
			if lt != nil {
				t.Errorf("%s: a table and an error", c.Name)
			}
		}
		var e *hrwhash.Error
		if !errors.As(err, &e) || e.Code != want || !errors.Is(err, &hrwhash.Error{Code: want}) || e.Code.String() != c.Error {
			t.Errorf("%s: got %v, want %s", c.Name, err, c.Error)
			continue
		}
		if want == hrwhash.CodeInvalidSlotCount && e.Slots != slots ||
			want == hrwhash.CodeSlotOutOfRange && (e.Slot != slot || e.Slots != slots) {
			t.Errorf("%s: slots %d slot %d", c.Name, e.Slots, e.Slot)
		}
		if e.Error() == "" {
			t.Errorf("%s: no message", c.Name)
		}
	}
}

func TestLevelledSlotTableMisuse(t *testing.T) {
	if _, err := hrwhash.NewLevelledSlotTable(nil, 16); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewLevelledSlotTable(&hrwhash.Placement{}, 16); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	for _, lt := range []*hrwhash.LevelledSlotTable{nil, {}} {
		if err := hrwhash.NullPanic(func() { lt.Slot("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Slot: %v", err)
		}
		if err := hrwhash.NullPanic(func() { lt.Owner("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Owner: %v", err)
		}
		if _, err := lt.OwnerOfSlot(0); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("OwnerOfSlot: %v", err)
		}
		if _, err := lt.Assignments(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Assignments: %v", err)
		}
		if _, err := lt.SlotCounts(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("SlotCounts: %v", err)
		}
		if _, err := lt.WithNode(hrwhash.Node{ID: "x"}); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithNode: %v", err)
		}
		if _, err := lt.WithoutNode("a"); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithoutNode: %v", err)
		}
		if _, err := lt.WithWeight("a", 1); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithWeight: %v", err)
		}
		if err := lt.AddNode(hrwhash.Node{ID: "x"}); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("AddNode: %v", err)
		}
		if err := lt.RemoveNode("a"); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("RemoveNode: %v", err)
		}
		if err := lt.SetWeight("a", 1); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("SetWeight: %v", err)
		}
		if lt.Slots() != 0 {
			t.Errorf("zero table: slots %d", lt.Slots())
		}
	}

	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := hrwhash.NewLevelledSlotTable(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	var e *hrwhash.Error
	// Each bad change gets the error the same change of the placement gets, with its details.
	if _, err := lt.WithNode(hrwhash.Node{ID: "b"}); !errors.As(err, &e) || e.Code != hrwhash.CodeDuplicateNodeID ||
		e.Index != 3 || e.FirstIndex != 1 || e.ID != "b" {
		t.Errorf("duplicate id: %v", err)
	}
	if _, err := lt.WithNode(hrwhash.Node{ID: ""}); !errors.As(err, &e) || e.Code != hrwhash.CodeEmptyNodeID || e.Index != 3 {
		t.Errorf("empty id: %v", err)
	}
	if _, err := lt.WithNode(hrwhash.Node{ID: "d", Weight: hrwhash.Weight(math.NaN())}); !errors.As(err, &e) ||
		e.Code != hrwhash.CodeInvalidWeight || e.Index != 3 {
		t.Errorf("NaN weight: %v", err)
	}
	if _, err := lt.WithoutNode("zz"); !errors.As(err, &e) || e.Code != hrwhash.CodeUnknownNode || e.ID != "zz" {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := lt.WithWeight("zz", 1); !errors.Is(err, hrwhash.ErrUnknownNode) {
		t.Errorf("weight of an unknown node: %v", err)
	}
	if _, err := lt.WithWeight("c", -1); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 2 || e.Weight != -1 {
		t.Errorf("negative weight: %v", err)
	}
	if _, err := lt.WithWeight("c", math.Inf(1)); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 2 {
		t.Errorf("infinite weight: %v", err)
	}
	one, err := lt.WithoutNode("a")
	if err == nil {
		one, err = one.WithoutNode("b")
	}
	if err != nil {
		t.Fatal(err)
	}
	if counts, err := one.SlotCounts(); err != nil || !sameInts(counts, []int{8}) {
		t.Errorf("one node holds every slot: %v, %v", counts, err)
	}
	if _, err := one.WithoutNode("c"); !errors.Is(err, hrwhash.ErrEmptyMembership) {
		t.Errorf("removing the last node: %v", err)
	}
	if _, err := one.WithWeight("c", 0); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
		t.Errorf("draining the last node: %v", err)
	}
	// A node with a domain and a drained one: the domain crosses into C, the drained node
	// holds no slot.
	grown, err := lt.WithNode(hrwhash.Node{ID: "d", Domain: "rack-1"})
	if err == nil {
		grown, err = grown.WithNode(hrwhash.Node{ID: "e", Weight: hrwhash.Weight(0)})
	}
	if err != nil {
		t.Fatal(err)
	}
	if n, err := grown.Placement().Node(3); err != nil || n.Domain != "rack-1" {
		t.Errorf("domain of the added node: %+v, %v", n, err)
	}
	if counts, err := grown.SlotCounts(); err != nil || len(counts) != 5 || counts[4] != 0 {
		t.Errorf("counts with a drained node: %v, %v", counts, err)
	}
	for _, n := range []uint64{0, hrwhash.MaxSlots + 1, math.MaxUint64} {
		if _, err := hrwhash.NewLevelledSlotTable(p, n); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidSlotCount ||
			e.Slots != n {
			t.Errorf("%d slots: %v", n, err)
		}
	}
	if _, err := lt.OwnerOfSlot(8); !errors.As(err, &e) || e.Code != hrwhash.CodeSlotOutOfRange || e.Slot != 8 || e.Slots != 8 {
		t.Errorf("slot 8 of 8: %v", err)
	}
}

// The in-place changes: each bad one is the error the copying change gives and leaves the table
// as it was; the good ones reach the tables the copying changes reach.
func TestLevelledSlotTableInPlace(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := hrwhash.NewLevelledSlotTable(p, 64)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := lt.Assignments()
	var e *hrwhash.Error
	bad := []struct {
		name string
		err  error
		want hrwhash.Code
	}{
		{"duplicate id", lt.AddNode(hrwhash.Node{ID: "b"}), hrwhash.CodeDuplicateNodeID},
		{"empty id", lt.AddNode(hrwhash.Node{ID: ""}), hrwhash.CodeEmptyNodeID},
		{"NaN weight", lt.AddNode(hrwhash.Node{ID: "d", Weight: hrwhash.Weight(math.NaN())}), hrwhash.CodeInvalidWeight},
		{"unknown node", lt.RemoveNode("zz"), hrwhash.CodeUnknownNode},
		{"weight of an unknown node", lt.SetWeight("zz", 1), hrwhash.CodeUnknownNode},
		{"negative weight", lt.SetWeight("c", -1), hrwhash.CodeInvalidWeight},
	}
	for _, b := range bad {
		if !errors.As(b.err, &e) || e.Code != b.want {
			t.Errorf("%s: %v", b.name, b.err)
		}
	}
	if after, _ := lt.Assignments(); !sameInts(before, after) || lt.Placement().Len() != 3 {
		t.Errorf("failed changes changed the table")
	}
	// A sequence of good changes, in place and copying, side by side.
	copied := lt
	two := hrwhash.Weight(2)
	steps := []struct{ op, id string }{{"add", "d"}, {"weight", "a"}, {"remove", "b"}, {"add", "e"}, {"remove", "a"}}
	for _, st := range steps {
		w := 2.0
		if copied, err = applyLevelled(copied, st.op, st.id, &w); err != nil {
			t.Fatalf("%s %s: %v", st.op, st.id, err)
		}
		if st.op == "add" {
			err = lt.AddNode(hrwhash.Node{ID: st.id, Weight: two})
		} else {
			err = applyLevelledInPlace(lt, st.op, st.id, &w)
		}
		if err != nil {
			t.Fatalf("%s %s in place: %v", st.op, st.id, err)
		}
		a, _ := lt.Assignments()
		b, _ := copied.Assignments()
		if !sameInts(a, b) || lt.Placement().Len() != copied.Placement().Len() {
			t.Errorf("%s %s: in place and copying differ", st.op, st.id)
		}
	}
	// Down to one weighted node: draining or removing it is refused and changes nothing.
	if err := lt.SetWeight("c", 0); err != nil {
		t.Fatal(err)
	}
	if err := lt.SetWeight("d", 0); err != nil {
		t.Fatal(err)
	}
	before, _ = lt.Assignments()
	if err := lt.SetWeight("e", 0); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
		t.Errorf("draining the last weighted node: %v", err)
	}
	if err := lt.RemoveNode("e"); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
		t.Errorf("removing the last weighted node: %v", err)
	}
	if after, _ := lt.Assignments(); !sameInts(before, after) || lt.Placement().Len() != 3 {
		t.Errorf("refused drains changed the table")
	}
	for _, id := range []string{"c", "d"} {
		if err := lt.RemoveNode(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := lt.RemoveNode("e"); !errors.Is(err, hrwhash.ErrEmptyMembership) {
		t.Errorf("removing the last node: %v", err)
	}
	if counts, err := lt.SlotCounts(); err != nil || !sameInts(counts, []int{64}) {
		t.Errorf("one node holds every slot: %v, %v", counts, err)
	}
}
