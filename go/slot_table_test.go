package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of ../conformance/policies/slot-table.json through NewSlotTable.
type stNode struct {
	ID     string   `json:"id"`
	Weight *float64 `json:"weight"`
}

type stExpected struct {
	Capacities []int `json:"capacities"`
	Table      []int `json:"table"`
	Keys       []struct {
		Key   string `json:"key"`
		Slot  int    `json:"slot"`
		Owner int    `json:"owner"`
	} `json:"keys"`
}

type stCase struct {
	Name     string          `json:"name"`
	Seed     string          `json:"seed"`
	Nodes    []stNode        `json:"nodes"`
	Slots    json.RawMessage `json:"slots"`
	Overload *uint32         `json:"overload_ppm"`
	Slot     string          `json:"slot"`
	Error    string          `json:"error"`
	Expected stExpected      `json:"expected"`
	Changes  []struct {
		Op       string     `json:"op"`
		ID       string     `json:"id"`
		Weight   *float64   `json:"weight"`
		Expected stExpected `json:"expected"`
	} `json:"changes"`
}

func loadSlotTable(t *testing.T) (cases, errorCases []stCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "slot-table.json"))
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
	if v.Policy != hrwhash.SlotTablePolicy || v.MaxSlots != hrwhash.MaxSlots || len(v.Cases) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("slot-table.json: policy %q, max %d, %d cases, %d error cases", v.Policy, v.MaxSlots, len(v.Cases), len(v.ErrorCases))
	}
	return v.Cases, v.ErrorCases
}

func (c *stCase) placement(t *testing.T) *hrwhash.Placement {
	t.Helper()
	nodes := make([]hrwhash.Node, len(c.Nodes))
	for i, n := range c.Nodes {
		nodes[i] = hrwhash.Node{ID: n.ID, Weight: n.Weight}
	}
	var opts []hrwhash.Option
	if c.Seed != "" {
		b, err := hex.DecodeString(c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := hrwhash.SeedFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, hrwhash.WithSeed(s))
	}
	p, err := hrwhash.NewNodes(nodes, opts...)
	if err != nil {
		t.Fatalf("%s: build: %v", c.Name, err)
	}
	return p
}

// slots reads "slots", a JSON number or, beyond 2^53, a decimal string.
func (c *stCase) slots(t *testing.T) uint64 {
	t.Helper()
	var s string
	if json.Unmarshal(c.Slots, &s) != nil {
		s = string(c.Slots)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: slots %s: %v", c.Name, c.Slots, err)
	}
	return n
}

func (c *stCase) options() []hrwhash.SlotTableOption {
	if c.Overload == nil {
		return nil
	}
	return []hrwhash.SlotTableOption{hrwhash.WithOverloadPPM(*c.Overload)}
}

// checkTable compares a table with what the file expects of it: the capacities, the owner of
// every slot (through Assignments and OwnerOfSlot), the slot counts, and the keys.
func checkTable(t *testing.T, name string, st *hrwhash.SlotTable, want *stExpected) {
	t.Helper()
	caps, err := st.Capacities()
	if err != nil || !sameInts(caps, want.Capacities) {
		t.Errorf("%s: capacities %v, %v; want %v", name, caps, err, want.Capacities)
	}
	table, err := st.Assignments()
	if err != nil || !sameInts(table, want.Table) || st.Slots() != len(want.Table) {
		t.Errorf("%s: table of %d slots, %v; want %d", name, len(table), err, len(want.Table))
		return
	}
	counts := make([]int, st.Placement().Len())
	for s, o := range want.Table {
		counts[o]++
		if got, err := st.OwnerOfSlot(uint64(s)); err != nil || got != o {
			t.Errorf("%s: owner of slot %d: %d, %v; want %d", name, s, got, err, o)
			break
		}
	}
	if got, err := st.SlotCounts(); err != nil || !sameInts(got, counts) {
		t.Errorf("%s: slot counts %v, %v; want %v", name, got, err, counts)
	}
	for i := range counts {
		if counts[i] > want.Capacities[i] {
			t.Errorf("%s: node %d holds %d slots, above its capacity %d", name, i, counts[i], want.Capacities[i])
		}
	}
	for _, k := range want.Keys {
		if slot := st.Slot(k.Key); slot != k.Slot {
			t.Errorf("%s: slot of %q: %d; want %d", name, k.Key, slot, k.Slot)
		}
		if owner := st.Owner(k.Key); owner != k.Owner {
			t.Errorf("%s: owner of %q: %d; want %d", name, k.Key, owner, k.Owner)
		}
	}
}

func TestSlotTableVectors(t *testing.T) {
	cases, _ := loadSlotTable(t)
	for _, c := range cases {
		p := c.placement(t)
		st, err := hrwhash.NewSlotTable(p, c.slots(t), c.options()...)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		ppm, bounded := st.OverloadPPM()
		if bounded != (c.Overload != nil) || bounded && ppm != *c.Overload || st.Placement() != p {
			t.Errorf("%s: overload %d, %v", c.Name, ppm, bounded)
		}
		checkTable(t, c.Name, st, &c.Expected)
		for j, ch := range c.Changes {
			var next *hrwhash.SlotTable
			switch ch.Op {
			case "add":
				next, err = st.WithNode(hrwhash.Node{ID: ch.ID, Weight: ch.Weight})
			case "remove":
				next, err = st.WithoutNode(ch.ID)
			case "weight":
				next, err = st.WithWeight(ch.ID, *ch.Weight)
			default:
				t.Fatalf("%s: unknown op %q", c.Name, ch.Op)
			}
			name := c.Name + " change " + strconv.Itoa(j) + " (" + ch.Op + " " + ch.ID + ")"
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkTable(t, name, next, &ch.Expected)
			// The change left the table it came from as it was.
			checkTable(t, name+", the table before", st, tableBefore(&c, j))
			// The same table as a fresh build over the new membership.
			fresh, err := hrwhash.NewSlotTable(next.Placement(), c.slots(t), c.options()...)
			if err != nil {
				t.Fatalf("%s: fresh build: %v", name, err)
			}
			checkTable(t, name+", built anew", fresh, &ch.Expected)
			st = next
		}
	}
}

// tableBefore is what the file expects of the table that change j was applied to.
func tableBefore(c *stCase, j int) *stExpected {
	if j == 0 {
		return &c.Expected
	}
	return &c.Changes[j-1].Expected
}

func TestSlotTableErrorVectors(t *testing.T) {
	_, errorCases := loadSlotTable(t)
	codes := map[string]hrwhash.Code{
		"InvalidSlotCount": hrwhash.CodeInvalidSlotCount,
		"SlotOutOfRange":   hrwhash.CodeSlotOutOfRange,
	}
	for _, c := range errorCases {
		want, ok := codes[c.Error]
		if !ok {
			t.Fatalf("%s: unknown error %q", c.Name, c.Error)
		}
		slots := c.slots(t)
		st, err := hrwhash.NewSlotTable(c.placement(t), slots, c.options()...)
		var slot uint64
		if c.Slot != "" {
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if slot, err = strconv.ParseUint(c.Slot, 10, 64); err != nil {
				t.Fatal(err)
			}
			_, err = st.OwnerOfSlot(slot)
		} else if st != nil {
			t.Errorf("%s: a table and an error", c.Name)
		}
		var e *hrwhash.Error
		if !errors.As(err, &e) || e.Code != want || !errors.Is(err, &hrwhash.Error{Code: want}) || e.Code.String() != c.Error {
			t.Errorf("%s: got %v, want %s", c.Name, err, c.Error)
			continue
		}
		if e.Slots != slots || want == hrwhash.CodeSlotOutOfRange && e.Slot != slot {
			t.Errorf("%s: slots %d slot %d", c.Name, e.Slots, e.Slot)
		}
		if e.Error() == "" {
			t.Errorf("%s: no message", c.Name)
		}
	}
}

func TestSlotTableMisuse(t *testing.T) {
	if _, err := hrwhash.NewSlotTable(nil, 16); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewSlotTable(&hrwhash.Placement{}, 16); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	for _, st := range []*hrwhash.SlotTable{nil, {}} {
		if err := hrwhash.NullPanic(func() { st.Slot("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Slot: %v", err)
		}
		if err := hrwhash.NullPanic(func() { st.Owner("k") }); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Owner: %v", err)
		}
		if _, err := st.OwnerOfSlot(0); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("OwnerOfSlot: %v", err)
		}
		if _, err := st.Assignments(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Assignments: %v", err)
		}
		if _, err := st.SlotCounts(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("SlotCounts: %v", err)
		}
		if _, err := st.Capacities(); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("Capacities: %v", err)
		}
		if _, err := st.WithNode(hrwhash.Node{ID: "x"}); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithNode: %v", err)
		}
		if _, err := st.WithoutNode("a"); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithoutNode: %v", err)
		}
		if _, err := st.WithWeight("a", 1); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Errorf("WithWeight: %v", err)
		}
		if _, ok := st.OverloadPPM(); ok || st.Slots() != 0 {
			t.Errorf("zero table: slots %d", st.Slots())
		}
	}

	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	st, err := hrwhash.NewSlotTable(p, 8, hrwhash.WithOverloadPPM(0))
	if err != nil {
		t.Fatal(err)
	}
	var e *hrwhash.Error
	// Each bad change gets the error the same change of the placement gets, with its details.
	if _, err := st.WithNode(hrwhash.Node{ID: "b"}); !errors.As(err, &e) || e.Code != hrwhash.CodeDuplicateNodeID ||
		e.Index != 3 || e.FirstIndex != 1 || e.ID != "b" {
		t.Errorf("duplicate id: %v", err)
	}
	if _, err := st.WithNode(hrwhash.Node{ID: ""}); !errors.As(err, &e) || e.Code != hrwhash.CodeEmptyNodeID || e.Index != 3 {
		t.Errorf("empty id: %v", err)
	}
	if _, err := st.WithNode(hrwhash.Node{ID: "d", Weight: hrwhash.Weight(math.NaN())}); !errors.As(err, &e) ||
		e.Code != hrwhash.CodeInvalidWeight || e.Index != 3 {
		t.Errorf("NaN weight: %v", err)
	}
	if _, err := st.WithoutNode("zz"); !errors.As(err, &e) || e.Code != hrwhash.CodeUnknownNode || e.ID != "zz" {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := st.WithWeight("zz", 1); !errors.Is(err, hrwhash.ErrUnknownNode) {
		t.Errorf("weight of an unknown node: %v", err)
	}
	if _, err := st.WithWeight("c", -1); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidWeight || e.Index != 2 || e.Weight != -1 {
		t.Errorf("negative weight: %v", err)
	}
	one, err := st.WithoutNode("a")
	if err == nil {
		one, err = one.WithoutNode("b")
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.WithoutNode("c"); !errors.Is(err, hrwhash.ErrEmptyMembership) {
		t.Errorf("removing the last node: %v", err)
	}
	if _, err := one.WithWeight("c", 0); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
		t.Errorf("draining the last node: %v", err)
	}
	// A node with a domain and a drained one: the domain crosses into C, the drained node
	// holds no slot.
	grown, err := st.WithNode(hrwhash.Node{ID: "d", Domain: "rack-1"})
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
	if ppm, ok := grown.OverloadPPM(); !ok || ppm != 0 {
		t.Errorf("a change keeps the overload bound: %d, %v", ppm, ok)
	}
	if _, err := hrwhash.NewSlotTable(p, hrwhash.MaxSlots+1); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidSlotCount ||
		e.Slots != hrwhash.MaxSlots+1 {
		t.Errorf("2^24 + 1 slots: %v", err)
	}
	if _, err := st.OwnerOfSlot(8); !errors.As(err, &e) || e.Code != hrwhash.CodeSlotOutOfRange || e.Slot != 8 || e.Slots != 8 {
		t.Errorf("slot 8 of 8: %v", err)
	}
}
