package hrwhash_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// SlotTable in both modes: every case of ../conformance/policies/slot-table.json (ranked) and
// slot-table-v2.json (levelled), every document of slot-history-v1.json, then the changes, their
// errors and misuse, each run for both modes where both have it.

// slotModes are the two policy files, one per mode; they have the same shape.
var slotModes = []struct {
	mode   hrwhash.SlotMode
	file   string
	policy string
}{
	{hrwhash.SlotModeRanked, "slot-table.json", hrwhash.RankedSlotTablePolicy},
	{hrwhash.SlotModeLevelled, "slot-table-v2.json", hrwhash.SlotTablePolicy},
}

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

type stChange struct {
	Op       string     `json:"op"`
	ID       string     `json:"id"`
	Weight   *float64   `json:"weight"`
	Expected stExpected `json:"expected"`
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
	Changes  []stChange      `json:"changes"`

	mode hrwhash.SlotMode
}

func loadSlotPolicy(t *testing.T, file, policy string, mode hrwhash.SlotMode) (cases, errorCases []stCase) {
	t.Helper()
	var v struct {
		Policy     string   `json:"policy"`
		MaxSlots   uint64   `json:"max_slots"`
		Cases      []stCase `json:"cases"`
		ErrorCases []stCase `json:"error_cases"`
	}
	readConformance(t, &v, "policies", file)
	if v.Policy != policy || mode.Policy() != policy || v.MaxSlots != hrwhash.MaxSlots || len(v.Cases) == 0 || len(v.ErrorCases) == 0 {
		t.Fatalf("%s: policy %q, max %d, %d cases, %d error cases", file, v.Policy, v.MaxSlots, len(v.Cases), len(v.ErrorCases))
	}
	for i := range v.Cases {
		v.Cases[i].mode = mode
	}
	for i := range v.ErrorCases {
		v.ErrorCases[i].mode = mode
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
	switch {
	case c.mode == hrwhash.SlotModeLevelled:
		return nil
	case c.Overload == nil:
		return []hrwhash.SlotTableOption{hrwhash.Ranked()}
	}
	return []hrwhash.SlotTableOption{hrwhash.WithOverloadPPM(*c.Overload)}
}

// checkTable compares a table with what the file expects of it: the owner of every slot
// (through Assignments and OwnerOfSlot), the slot counts, the keys and, for a bounded ranked
// table, the capacities.
func checkTable(t *testing.T, name string, st *hrwhash.SlotTable, want *stExpected) {
	t.Helper()
	_, bounded := st.OverloadPPM()
	caps := st.Capacities()
	switch {
	case bounded && !sameInts(caps, want.Capacities):
		t.Errorf("%s: capacities %v; want %v", name, caps, want.Capacities)
	case !bounded && caps != nil:
		t.Errorf("%s: capacities %v of a table without a bound", name, caps)
	}
	table := st.Assignments()
	if !sameInts(table, want.Table) || st.Slots() != len(want.Table) {
		t.Errorf("%s: table of %d slots; want %d", name, len(table), len(want.Table))
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
	if got := st.SlotCounts(); !sameInts(got, counts) {
		t.Errorf("%s: slot counts %v; want %v", name, got, counts)
	}
	for i := range counts {
		if want.Capacities != nil && counts[i] > want.Capacities[i] {
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

// change makes a change of a policy file: on a copy (With*) or, inPlace, on st itself.
func change(st *hrwhash.SlotTable, op, id string, weight *float64, inPlace bool) (*hrwhash.SlotTable, error) {
	if inPlace {
		var err error
		switch op {
		case "add":
			err = st.AddNode(hrwhash.Node{ID: id, Weight: weight})
		case "remove":
			err = st.RemoveNode(id)
		case "weight":
			err = st.SetWeight(id, *weight)
		default:
			panic("unknown op " + op)
		}
		return st, err
	}
	switch op {
	case "add":
		return st.WithNode(hrwhash.Node{ID: id, Weight: weight})
	case "remove":
		return st.WithoutNode(id)
	case "weight":
		return st.WithWeight(id, *weight)
	}
	panic("unknown op " + op)
}

// idsOf is the owner of every slot by node id: indices shift when a node goes.
func idsOf(t *testing.T, st *hrwhash.SlotTable) []string {
	t.Helper()
	out := make([]string, st.Slots())
	for s, i := range st.Assignments() {
		id, err := st.Placement().NodeID(i)
		if err != nil {
			t.Fatal(err)
		}
		out[s] = id
	}
	return out
}

// movedOnlyTheChanged checks the promise of a levelled change: every slot that changed hands
// went to or came from the changed node.
func movedOnlyTheChanged(t *testing.T, name, id string, before, after *hrwhash.SlotTable) {
	t.Helper()
	a, b := idsOf(t, before), idsOf(t, after)
	for s := range a {
		if a[s] != b[s] && a[s] != id && b[s] != id {
			t.Errorf("%s: slot %d moved from %s to %s, neither of them %s", name, s, a[s], b[s], id)
			return
		}
	}
}

func TestSlotTableVectors(t *testing.T) {
	for _, m := range slotModes {
		t.Run(m.mode.String(), func(t *testing.T) {
			cases, _ := loadSlotPolicy(t, m.file, m.policy, m.mode)
			finals := map[string][]int{}
			for _, c := range cases {
				p := c.placement(t)
				st, err := hrwhash.NewSlotTable(p, c.slots(t), c.options()...)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				ppm, bounded := st.OverloadPPM()
				if st.Mode() != m.mode || bounded != (c.Overload != nil) || bounded && ppm != *c.Overload ||
					st.Placement() != p || st.Initial() != p || st.ChangeCount() != 0 || st.Epoch() != 0 {
					t.Errorf("%s: mode %v, overload %d, %v", c.Name, st.Mode(), ppm, bounded)
				}
				checkTable(t, c.Name, st, &c.Expected)
				inPlace, err := hrwhash.NewSlotTable(p, c.slots(t), c.options()...)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for j, ch := range c.Changes {
					name := fmt.Sprintf("%s change %d (%s %s)", c.Name, j, ch.Op, ch.ID)
					next, err := change(st, ch.Op, ch.ID, ch.Weight, false)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkTable(t, name, next, &ch.Expected)
					if next.ChangeCount() != j+1 || next.Initial() != p {
						t.Errorf("%s: %d changes", name, next.ChangeCount())
					}
					// The same change in place gives the same table.
					if _, err := change(inPlace, ch.Op, ch.ID, ch.Weight, true); err != nil {
						t.Fatalf("%s in place: %v", name, err)
					}
					checkTable(t, name+" in place", inPlace, &ch.Expected)
					if inPlace.Fingerprint() != next.Fingerprint() || inPlace.ChangeCount() != j+1 {
						t.Errorf("%s in place: fingerprint or change count", name)
					}
					// The change left the table it came from as it was.
					checkTable(t, name+", the table before", st, tableBefore(&c, j))
					if st.ChangeCount() != j {
						t.Errorf("%s: the table before has %d changes", name, st.ChangeCount())
					}
					if m.mode == hrwhash.SlotModeLevelled {
						movedOnlyTheChanged(t, name, ch.ID, st, next)
					} else {
						// A ranked table is the one a fresh build over the new membership gives.
						fresh, err := hrwhash.NewSlotTable(next.Placement(), c.slots(t), c.options()...)
						if err != nil {
							t.Fatalf("%s: fresh build: %v", name, err)
						}
						checkTable(t, name+", built anew", fresh, &ch.Expected)
						if fresh.Fingerprint() != next.Fingerprint() {
							t.Errorf("%s: a fresh build has another fingerprint", name)
						}
					}
					st = next
				}
				finals[c.Name] = st.Assignments()
			}
			if m.mode == hrwhash.SlotModeLevelled {
				// The same changes in another order reach the same membership but another table.
				a, b := finals["order-a"], finals["order-b"]
				if a == nil || b == nil || sameInts(a, b) {
					t.Errorf("order-a and order-b: %v, %v", a, b)
				}
			}
		})
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
	codes := map[string]hrwhash.Code{
		"InvalidSlotCount": hrwhash.CodeInvalidSlotCount,
		"SlotOutOfRange":   hrwhash.CodeSlotOutOfRange,
		"UnknownNode":      hrwhash.CodeUnknownNode,
		"DuplicateNodeId":  hrwhash.CodeDuplicateNodeID,
		"EmptyMembership":  hrwhash.CodeEmptyMembership,
		"AllWeightsZero":   hrwhash.CodeAllWeightsZero,
	}
	for _, m := range slotModes {
		_, errorCases := loadSlotPolicy(t, m.file, m.policy, m.mode)
		for _, c := range errorCases {
			want, ok := codes[c.Error]
			if !ok {
				t.Fatalf("%s: unknown error %q", c.Name, c.Error)
			}
			slots := c.slots(t)
			st, err := hrwhash.NewSlotTable(c.placement(t), slots, c.options()...)
			var slot uint64
			switch {
			case c.Slot != "":
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if slot, err = strconv.ParseUint(c.Slot, 10, 64); err != nil {
					t.Fatal(err)
				}
				_, err = st.OwnerOfSlot(slot)
			case len(c.Changes) > 0:
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for j, ch := range c.Changes {
					var next *hrwhash.SlotTable
					next, err = change(st, ch.Op, ch.ID, ch.Weight, false)
					if j+1 < len(c.Changes) {
						if err != nil {
							t.Fatalf("%s: change %d: %v", c.Name, j, err)
						}
						st = next
						continue
					}
					if next != nil {
						t.Errorf("%s: a table and an error", c.Name)
					}
					// The same failing change in place: the same error, and the table as it was.
					before, fp, nodes := st.Assignments(), st.Fingerprint(), st.Placement().Len()
					_, inPlaceErr := change(st, ch.Op, ch.ID, ch.Weight, true)
					if !errors.Is(inPlaceErr, &hrwhash.Error{Code: want}) || !sameInts(before, st.Assignments()) ||
						st.Fingerprint() != fp || st.Placement().Len() != nodes || st.ChangeCount() != j {
						t.Errorf("%s: in place: %v, or the table changed", c.Name, inPlaceErr)
					}
				}
			default:
				if st != nil {
					t.Errorf("%s: a table and an error", c.Name)
				}
			}
			var e *hrwhash.Error
			if !errors.As(err, &e) || e.Code != want || !errors.Is(err, &hrwhash.Error{Code: want}) || e.Code.String() != c.Error {
				t.Errorf("%s %s: got %v, want %s", m.mode, c.Name, err, c.Error)
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
}

// The documents of ../conformance/policies/slot-history-v1.json through SlotTableFromJSON.

type shOwner struct {
	Slot     uint64  `json:"slot"`
	Key      *string `json:"key"`
	Owner    *string `json:"owner"`
	OwnerHex *string `json:"owner_hex"`
}

type shCase struct {
	Name             string    `json:"name"`
	Seed             *string   `json:"seed"`
	Document         *string   `json:"document"`
	DocumentHex      *string   `json:"document_hex"`
	Canonical        string    `json:"canonical"`
	TableFingerprint string    `json:"table_fingerprint"`
	ViewFingerprint  string    `json:"view_fingerprint"`
	View             string    `json:"view"`
	Changes          int       `json:"changes"`
	Owners           []shOwner `json:"owners"`
	A                string    `json:"a"`
	B                string    `json:"b"`
	ATable           string    `json:"a_table_fingerprint"`
	BTable           string    `json:"b_table_fingerprint"`
	Error            string    `json:"error"`
	Field            *string   `json:"field"`
	Index            *int      `json:"index"`
	Reason           string    `json:"reason"`
	FirstIndex       *int      `json:"first_index"`
	Value            string    `json:"value"`
}

func loadSlotHistoryVectors(t *testing.T) (valid, same, independent, equivalent, invalid []shCase) {
	t.Helper()
	var v struct {
		Format     string   `json:"format"`
		MaxChanges int      `json:"max_changes"`
		Valid      []shCase `json:"valid"`
		Same       []shCase `json:"same_membership"`
		Orderless  []shCase `json:"order_independent"`
		Equivalent []shCase `json:"equivalent"`
		Invalid    []shCase `json:"invalid"`
	}
	readConformance(t, &v, "policies", "slot-history-v1.json")
	if len(v.Valid) == 0 || len(v.Same) == 0 || len(v.Orderless) == 0 || len(v.Equivalent) == 0 || len(v.Invalid) == 0 {
		t.Fatal("a section of slot-history-v1.json is empty")
	}
	if v.Format != hrwhash.SlotHistoryFormat || v.MaxChanges != maxChanges {
		t.Fatalf("format %q, max changes %d", v.Format, v.MaxChanges)
	}
	return v.Valid, v.Same, v.Orderless, v.Equivalent, v.Invalid
}

// maxChanges is the most changes a table holds (SLOT-HISTORY.md section 6).
const maxChanges = 65_536

func (c shCase) load() (*hrwhash.SlotTable, error) {
	var doc []byte
	if c.Document != nil {
		doc = []byte(*c.Document)
	} else {
		doc, _ = hex.DecodeString(*c.DocumentHex)
	}
	return hrwhash.SlotTableFromJSON(doc, c.options()...)
}

// options holds the seed to load with, when the case names one.
func (c shCase) options() []hrwhash.Option {
	if c.Seed == nil {
		return nil
	}
	b, _ := hex.DecodeString(*c.Seed)
	var s hrwhash.Seed
	copy(s[:], b)
	return []hrwhash.Option{hrwhash.WithSeed(s)}
}

// policyOf is the mode a document names.
func policyOf(t *testing.T, doc string) hrwhash.SlotMode {
	t.Helper()
	var d struct {
		Policy string `json:"policy"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	if d.Policy == hrwhash.RankedSlotTablePolicy {
		return hrwhash.SlotModeRanked
	}
	return hrwhash.SlotModeLevelled
}

func TestSlotTableDocumentVectors(t *testing.T) {
	valid, same, independent, equivalent, _ := loadSlotHistoryVectors(t)
	modes := map[hrwhash.SlotMode]int{}
	for _, c := range valid {
		st, err := c.load()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, err := st.ToJSON()
		if err != nil || string(text) != c.Canonical {
			t.Errorf("%s: canonical form (%v)", c.Name, err)
		}
		if st.Mode() != policyOf(t, c.Canonical) {
			t.Errorf("%s: mode %v", c.Name, st.Mode())
		}
		modes[st.Mode()]++
		if st.FingerprintHex() != c.TableFingerprint || st.ChangeCount() != c.Changes {
			t.Errorf("%s: table fingerprint %s, changes %d", c.Name, st.FingerprintHex(), st.ChangeCount())
		}
		v, err := st.View()
		if err != nil || v.FingerprintHex() != c.ViewFingerprint || v.Epoch() != st.Epoch() {
			t.Errorf("%s: view (%v)", c.Name, err)
		} else if vj, err := v.ToJSON(); err != nil || string(vj) != c.View {
			t.Errorf("%s: the view's canonical form (%v)", c.Name, err)
		}
		for _, o := range c.Owners {
			want := ""
			if o.Owner != nil {
				want = *o.Owner
			} else {
				b, _ := hex.DecodeString(*o.OwnerHex)
				want = string(b)
			}
			i, err := st.OwnerOfSlot(o.Slot)
			n, _ := st.Placement().Node(i)
			if err != nil || n.ID != want {
				t.Errorf("%s: owner of slot %d (%v)", c.Name, o.Slot, err)
			}
			if o.Key != nil {
				if s := st.Slot(*o.Key); uint64(s) != o.Slot {
					t.Errorf("%s: slot of %q is %d", c.Name, *o.Key, s)
				}
				if id, _ := st.Placement().NodeID(st.Owner(*o.Key)); id != want {
					t.Errorf("%s: owner of %q is %s", c.Name, *o.Key, id)
				}
			}
		}
		// The canonical form loads to itself.
		again, err := hrwhash.SlotTableFromJSON(text, c.options()...)
		if err != nil || again.Fingerprint() != st.Fingerprint() {
			t.Errorf("%s: reloading the canonical form: %v", c.Name, err)
		}
	}
	for _, c := range same {
		a, b, va, vb := loadTwoHistories(t, c.Name, c.A, c.B)
		if va.FingerprintHex() != c.ViewFingerprint || vb.FingerprintHex() != c.ViewFingerprint {
			t.Errorf("%s: final views differ", c.Name)
		}
		if a.FingerprintHex() != c.ATable || b.FingerprintHex() != c.BTable {
			t.Errorf("%s: table fingerprints", c.Name)
		}
		if a.Mode() != hrwhash.SlotModeLevelled || b.Mode() != hrwhash.SlotModeLevelled || c.ATable == c.BTable {
			t.Errorf("%s: %v table, fingerprints %s and %s", c.Name, a.Mode(), c.ATable, c.BTable)
		}
	}
	// A ranked table depends on the final membership alone.
	for _, c := range independent {
		a, b, va, vb := loadTwoHistories(t, c.Name, c.A, c.B)
		if a.Mode() != hrwhash.SlotModeRanked || b.Mode() != hrwhash.SlotModeRanked ||
			va.FingerprintHex() != c.ViewFingerprint || vb.FingerprintHex() != c.ViewFingerprint ||
			a.FingerprintHex() != c.TableFingerprint || b.FingerprintHex() != c.TableFingerprint {
			t.Errorf("%s: %s and %s, want %s", c.Name, a.FingerprintHex(), b.FingerprintHex(), c.TableFingerprint)
		}
		if !equalStrings(idsOf(t, a), idsOf(t, b)) {
			t.Errorf("%s: the owners differ", c.Name)
		}
	}
	for _, c := range equivalent {
		st, err := c.load()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, _ := st.ToJSON()
		if string(text) != c.Canonical || st.FingerprintHex() != c.TableFingerprint {
			t.Errorf("%s: canonical form or fingerprint", c.Name)
		}
		modes[st.Mode()]++
	}
	if modes[hrwhash.SlotModeLevelled] == 0 || modes[hrwhash.SlotModeRanked] == 0 {
		t.Errorf("documents of each mode: %v", modes)
	}
}

var shCodes = map[string]hrwhash.Code{
	"InvalidJson":      hrwhash.CodeInvalidJSON,
	"InvalidView":      hrwhash.CodeInvalidView,
	"InvalidSlotCount": hrwhash.CodeInvalidSlotCount,
	"SeedMismatch":     hrwhash.CodeSeedMismatch,
	"EmptyMembership":  hrwhash.CodeEmptyMembership,
	"EmptyNodeId":      hrwhash.CodeEmptyNodeID,
	"DuplicateNodeId":  hrwhash.CodeDuplicateNodeID,
	"AllWeightsZero":   hrwhash.CodeAllWeightsZero,
	"UnknownNode":      hrwhash.CodeUnknownNode,
	"ResultTooLarge":   hrwhash.CodeResultTooLarge,
}

func TestSlotTableDocumentErrorVectors(t *testing.T) {
	_, _, _, _, invalid := loadSlotHistoryVectors(t)
	for _, c := range invalid {
		st, err := c.load()
		var e *hrwhash.Error
		if st != nil || !errors.As(err, &e) {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		code, ok := shCodes[c.Error]
		if !ok || e.Code != code {
			t.Errorf("%s: code %v, want %s", c.Name, e.Code, c.Error)
			continue
		}
		switch c.Error {
		case "InvalidView":
			want := -1
			if c.Index != nil {
				want = *c.Index
			}
			if e.Field != *c.Field || e.Index != want || string(e.Reason) != c.Reason {
				t.Errorf("%s: field %q index %d reason %q", c.Name, e.Field, e.Index, e.Reason)
			}
			// The message names the list and position, not a view's nodes.
			if list, _, _ := strings.Cut(e.Field, "."); want >= 0 && !strings.Contains(e.Error(), fmt.Sprintf("%s[%d]", list, want)) {
				t.Errorf("%s: message %q", c.Name, e.Error())
			}
		case "EmptyNodeId", "DuplicateNodeId":
			if e.Index != *c.Index || (c.FirstIndex != nil && e.FirstIndex != *c.FirstIndex) {
				t.Errorf("%s: index %d first %d", c.Name, e.Index, e.FirstIndex)
			}
		case "InvalidSlotCount":
			if strconv.FormatUint(e.Slots, 10) != c.Value {
				t.Errorf("%s: slots %d, want %s", c.Name, e.Slots, c.Value)
			}
		case "InvalidJson":
			if e.Line < 1 || e.Column < 1 {
				t.Errorf("%s: position %d:%d", c.Name, e.Line, e.Column)
			}
		}
	}
}

// A ranked table's history: built through changes, in place or by copies, it is the ranked
// table of its final membership, whatever the order of the changes; its document carries the
// bound and loads back to the same table.
func TestSlotTableRankedHistory(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c", "d")
	if err != nil {
		t.Fatal(err)
	}
	two := hrwhash.Weight(2)
	for _, opts := range [][]hrwhash.SlotTableOption{
		{hrwhash.Ranked()},
		{hrwhash.WithOverloadPPM(0)},
		{hrwhash.WithOverloadPPM(50_000), hrwhash.WithEpoch(9)},
		{hrwhash.WithOverloadPPM(math.MaxUint32)},
	} {
		first, err := hrwhash.NewSlotTable(p, 256, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ppm, bounded := first.OverloadPPM()
		name := fmt.Sprintf("overload %d, %v", ppm, bounded)
		inPlace, _ := hrwhash.NewSlotTable(p, 256, opts...)
		if err := inPlace.AddNode(hrwhash.Node{ID: "e", Weight: two, Domain: "zone-1"}); err != nil {
			t.Fatal(err)
		}
		for _, step := range []func() error{
			func() error { return inPlace.RemoveNode("a") },
			func() error { return inPlace.SetWeight("c", 0.5) },
			func() error { return inPlace.AddNode(hrwhash.Node{ID: "a"}) },
		} {
			if err := step(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		// The same membership through other changes in another order, by copies.
		other, err := first.WithWeight("c", 0.5)
		if err == nil {
			other, err = other.WithoutNode("a")
		}
		if err == nil {
			other, err = other.WithNode(hrwhash.Node{ID: "e", Weight: two, Domain: "zone-1"})
		}
		if err == nil {
			other, err = other.WithNode(hrwhash.Node{ID: "a"})
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fresh, err := hrwhash.NewSlotTable(inPlace.Placement(), 256, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if inPlace.ChangeCount() != 4 || other.ChangeCount() != 4 || first.ChangeCount() != 0 || inPlace.Mode() != hrwhash.SlotModeRanked {
			t.Errorf("%s: changes %d, %d, %d", name, inPlace.ChangeCount(), other.ChangeCount(), first.ChangeCount())
		}
		if !sameInts(inPlace.Assignments(), fresh.Assignments()) || inPlace.Fingerprint() != fresh.Fingerprint() {
			t.Errorf("%s: not the table of the final membership", name)
		}
		if !equalStrings(idsOf(t, other), idsOf(t, fresh)) || other.Fingerprint() != fresh.Fingerprint() {
			t.Errorf("%s: another order of changes gives another table", name)
		}
		if !sameInts(inPlace.Capacities(), fresh.Capacities()) || (inPlace.Capacities() != nil) != bounded {
			t.Errorf("%s: capacities %v", name, inPlace.Capacities())
		}
		// The document: the bound on the line after the policy, and back.
		text, err := inPlace.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		head := "{\n  \"format\": \"hrwhash-slot-history-v1\",\n  \"policy\": \"slot-table-v1\",\n"
		if bounded {
			head += fmt.Sprintf("  \"overload_ppm\": %d,\n", ppm)
		}
		head += fmt.Sprintf("  \"epoch\": \"%d\",\n", first.Epoch())
		if !strings.HasPrefix(string(text), head) {
			t.Errorf("%s: document %s", name, text)
		}
		back, err := hrwhash.SlotTableFromJSON(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		backText, _ := back.ToJSON()
		gotPPM, gotBounded := back.OverloadPPM()
		if !bytes.Equal(text, backText) || back.Fingerprint() != inPlace.Fingerprint() || back.Mode() != hrwhash.SlotModeRanked ||
			gotPPM != ppm || gotBounded != bounded || back.ChangeCount() != 4 || back.Epoch() != first.Epoch() ||
			!sameInts(back.Assignments(), inPlace.Assignments()) {
			t.Errorf("%s: the reloaded table differs", name)
		}
		// A change to the reloaded table is the one to the table it was written from.
		a, errA := back.WithoutNode("b")
		b, errB := inPlace.WithoutNode("b")
		if errA != nil || errB != nil || a.Fingerprint() != b.Fingerprint() {
			t.Errorf("%s: a change after reloading: %v %v", name, errA, errB)
		}
	}
	// The fingerprint tells the modes and the bounds apart, even where the owners agree.
	unbounded, _ := hrwhash.NewSlotTable(p, 64, hrwhash.Ranked())
	loosest, _ := hrwhash.NewSlotTable(p, 64, hrwhash.WithOverloadPPM(math.MaxUint32))
	zero, _ := hrwhash.NewSlotTable(p, 64, hrwhash.WithOverloadPPM(0))
	levelled, _ := hrwhash.NewSlotTable(p, 64)
	if !sameInts(unbounded.Assignments(), loosest.Assignments()) {
		t.Errorf("the loosest bound changed the plain table")
	}
	fps := map[[16]byte]bool{}
	for _, st := range []*hrwhash.SlotTable{unbounded, loosest, zero, levelled} {
		fps[st.Fingerprint()] = true
	}
	if len(fps) != 4 {
		t.Errorf("%d fingerprints for 4 tables", len(fps))
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The member overload_ppm: a whole number below 2^32, beside the ranked policy only.
func TestSlotTableOverloadMember(t *testing.T) {
	doc := func(policy, member string) []byte {
		if !strings.Contains(member, `"epoch"`) {
			member += `"epoch":"1",`
		}
		return []byte(`{"format":"hrwhash-slot-history-v1","policy":"` + policy + `",` + member +
			`"seed":"default","slots":16,"initial":[{"id":"a"},{"id":"b"}],"changes":[]}`)
	}
	for _, c := range []struct {
		policy, member string
		reason         hrwhash.ViewFault
		ppm            uint32
	}{
		{"slot-table-v1", `"overload_ppm":50000,`, "", 50_000},
		{"slot-table-v1", `"overload_ppm":0,`, "", 0},
		{"slot-table-v1", `"overload_ppm":4294967295,`, "", math.MaxUint32},
		{"slot-table-v1", `"overload_ppm":5e4,`, "", 50_000},
		{"slot-table-v1", `"overload_ppm":-0,`, "", 0},
		{"slot-table-v1", `"overload_ppm":4294967296,`, hrwhash.FaultOutOfRange, 0},
		{"slot-table-v1", `"overload_ppm":4294967295.5,`, hrwhash.FaultOutOfRange, 0},
		{"slot-table-v1", `"overload_ppm":1e300,`, hrwhash.FaultOutOfRange, 0},
		{"slot-table-v1", `"overload_ppm":-1,`, hrwhash.FaultInvalid, 0},
		{"slot-table-v1", `"overload_ppm":0.5,`, hrwhash.FaultInvalid, 0},
		{"slot-table-v1", `"overload_ppm":"5",`, hrwhash.FaultWrongType, 0},
		{"slot-table-v1", `"overload_ppm":null,`, hrwhash.FaultWrongType, 0},
		{"slot-table-v2", `"overload_ppm":5,`, hrwhash.FaultConflict, 0},
		{"slot-table-v2", `"overload_ppm":"x",`, hrwhash.FaultConflict, 0},
		// Checked right after the policy: before the epoch.
		{"slot-table-v2", `"overload_ppm":5,"epoch":"x",`, hrwhash.FaultConflict, 0},
		{"slot-table-v1", `"overload_ppm":-1,"epoch":"x",`, hrwhash.FaultInvalid, 0},
	} {
		name := c.policy + " " + c.member
		st, err := hrwhash.SlotTableFromJSON(doc(c.policy, c.member))
		if c.reason == "" {
			ppm, ok := st.OverloadPPM()
			if err != nil || !ok || ppm != c.ppm {
				t.Errorf("%s: %d, %v, %v", name, ppm, ok, err)
			}
			continue
		}
		var e *hrwhash.Error
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidView || e.Field != "overload_ppm" || e.Reason != c.reason || e.Index != -1 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Without the member, a ranked table has no bound.
	st, err := hrwhash.SlotTableFromJSON(doc("slot-table-v1", ""))
	if _, ok := st.OverloadPPM(); err != nil || ok || st.Mode() != hrwhash.SlotModeRanked || st.Capacities() != nil {
		t.Errorf("no bound: %v", err)
	}
}

// Each bad change gets its typed error, with the change's position where it has one, and
// leaves the table as it was, in both modes and in place or by copy.
func TestSlotTableChangeErrors(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]hrwhash.SlotTableOption{nil, {hrwhash.Ranked()}, {hrwhash.WithOverloadPPM(0)}} {
		base, err := hrwhash.NewSlotTable(p, 8, opts...)
		if err != nil {
			t.Fatal(err)
		}
		// One change already held, so that the change's position (1) differs from the node's.
		st, err := base.WithWeight("a", 2)
		if err != nil {
			t.Fatal(err)
		}
		one, err := st.WithoutNode("a")
		if err == nil {
			one, err = one.WithoutNode("b")
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			table   *hrwhash.SlotTable
			op, id  string
			weight  *float64
			want    hrwhash.Error
			compare func(e *hrwhash.Error) bool
		}{
			{"duplicate id", st, "add", "b", nil, hrwhash.Error{Code: hrwhash.CodeDuplicateNodeID, Index: 1, FirstIndex: 1, ID: "b"}, nil},
			{"empty id", st, "add", "", nil, hrwhash.Error{Code: hrwhash.CodeEmptyNodeID, Index: 1}, nil},
			{"NaN weight", st, "add", "d", hrwhash.Weight(math.NaN()), hrwhash.Error{Code: hrwhash.CodeInvalidWeight, Index: 1},
				func(e *hrwhash.Error) bool { return math.IsNaN(e.Weight) }},
			{"unknown node", st, "remove", "zz", nil, hrwhash.Error{Code: hrwhash.CodeUnknownNode, ID: "zz"}, nil},
			{"weight of an unknown node", st, "weight", "zz", hrwhash.Weight(1), hrwhash.Error{Code: hrwhash.CodeUnknownNode, ID: "zz"}, nil},
			{"negative weight", st, "weight", "c", hrwhash.Weight(-1), hrwhash.Error{Code: hrwhash.CodeInvalidWeight, Index: 1, Weight: -1}, nil},
			{"infinite weight", st, "weight", "c", hrwhash.Weight(math.Inf(1)), hrwhash.Error{Code: hrwhash.CodeInvalidWeight, Index: 1, Weight: math.Inf(1)}, nil},
			{"removing the last node", one, "remove", "c", nil, hrwhash.Error{Code: hrwhash.CodeEmptyMembership}, nil},
			{"draining the last node", one, "weight", "c", hrwhash.Weight(0), hrwhash.Error{Code: hrwhash.CodeAllWeightsZero}, nil},
		} {
			name := fmt.Sprintf("%v %s", c.table.Mode(), c.name)
			for _, inPlace := range []bool{false, true} {
				before, fp, count := c.table.Assignments(), c.table.Fingerprint(), c.table.ChangeCount()
				text, _ := c.table.ToJSON()
				got, err := change(c.table, c.op, c.id, c.weight, inPlace)
				var e *hrwhash.Error
				if !errors.As(err, &e) || e.Code != c.want.Code || e.Index != c.want.Index || e.FirstIndex != c.want.FirstIndex ||
					e.ID != c.want.ID || e.Field != c.want.Field || e.Reason != c.want.Reason ||
					(c.compare != nil && !c.compare(e)) || (c.compare == nil && e.Weight != c.want.Weight) {
					t.Errorf("%s (in place %v): %#v, want %#v", name, inPlace, err, c.want)
				}
				if !inPlace && got != nil {
					t.Errorf("%s: a table and an error", name)
				}
				after, _ := c.table.ToJSON()
				if !sameInts(before, c.table.Assignments()) || fp != c.table.Fingerprint() || count != c.table.ChangeCount() || !bytes.Equal(text, after) {
					t.Errorf("%s (in place %v): the failed change changed the table", name, inPlace)
				}
			}
		}
		// A node with a domain and a drained one: the domain reaches the placement and the
		// document, the drained node holds no slot.
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
		if counts := grown.SlotCounts(); len(counts) != 5 || counts[4] != 0 {
			t.Errorf("counts with a drained node: %v", counts)
		}
		if text, _ := grown.ToJSON(); !bytes.Contains(text, []byte(`{"op": "add", "id": "d", "domain": "rack-1"}`)) ||
			!bytes.Contains(text, []byte(`{"op": "add", "id": "e", "weight": 0}`)) {
			t.Errorf("the document of the changes: %s", text)
		}
		ppm, bounded := grown.OverloadPPM()
		wantPPM, wantBounded := base.OverloadPPM()
		if ppm != wantPPM || bounded != wantBounded || grown.Mode() != base.Mode() {
			t.Errorf("a change keeps the mode and bound: %d, %v", ppm, bounded)
		}
		if counts := one.SlotCounts(); !sameInts(counts, []int{8}) {
			t.Errorf("one node holds every slot: %v", counts)
		}
	}
}

// API.md: the same bad input gets the same error in every API. An unknown node with an invalid
// weight is ErrUnknownNode for Placement and SlotTable alike (the node is looked up first); a
// known node's invalid weight stays ErrInvalidWeight; the table's current membership decides
// which nodes are known.
func TestSlotTableWithWeightLooksTheNodeUpFirst(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	levelled, _ := hrwhash.NewSlotTable(p, 8)
	ranked, _ := hrwhash.NewSlotTable(p, 8, hrwhash.Ranked())
	calls := map[string]func(id string, w float64) error{
		"Placement":           func(id string, w float64) error { _, e := p.WithWeight(id, w); return e },
		"levelled WithWeight": func(id string, w float64) error { _, e := levelled.WithWeight(id, w); return e },
		"ranked WithWeight":   func(id string, w float64) error { _, e := ranked.WithWeight(id, w); return e },
		"levelled SetWeight":  func(id string, w float64) error { return levelled.SetWeight(id, w) },
		"ranked SetWeight":    func(id string, w float64) error { return ranked.SetWeight(id, w) },
	}
	for _, w := range []float64{math.NaN(), -1} {
		for api, withWeight := range calls {
			if err := withWeight("zz", w); !errors.Is(err, hrwhash.ErrUnknownNode) {
				t.Errorf("%s unknown node, weight %v: %v, want ErrUnknownNode", api, w, err)
			}
			if err := withWeight("b", w); !errors.Is(err, hrwhash.ErrInvalidWeight) {
				t.Errorf("%s known node, weight %v: %v, want ErrInvalidWeight", api, w, err)
			}
		}
	}
	for _, st := range []*hrwhash.SlotTable{levelled, ranked} {
		later, err := st.WithoutNode("a")
		if err == nil {
			later, err = later.WithNode(hrwhash.Node{ID: "d"})
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := later.WithWeight("a", math.NaN()); !errors.Is(err, hrwhash.ErrUnknownNode) {
			t.Errorf("%v removed node: %v, want ErrUnknownNode", st.Mode(), err)
		}
		var bad *hrwhash.Error
		if _, err := later.WithWeight("d", math.NaN()); !errors.As(err, &bad) || bad.Code != hrwhash.CodeInvalidWeight || bad.Index != 2 {
			t.Errorf("%v added node: %v, want ErrInvalidWeight at change 2", st.Mode(), err)
		}
	}
}

// Good changes in place and by copies, side by side, reach the same tables; each copy leaves
// its source as it was; draining or removing the last weighted node is refused in place too.
func TestSlotTableInPlaceAndCopies(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]hrwhash.SlotTableOption{nil, {hrwhash.WithOverloadPPM(100_000)}} {
		st, err := hrwhash.NewSlotTable(p, 64, append(opts, hrwhash.WithEpoch(3))...)
		if err != nil {
			t.Fatal(err)
		}
		copied := st
		steps := []struct{ op, id string }{{"add", "d"}, {"weight", "a"}, {"remove", "b"}, {"add", "e"}, {"remove", "a"}}
		for i, s := range steps {
			w := 2.0
			prev, prevFP := copied, copied.Fingerprint()
			if copied, err = change(copied, s.op, s.id, &w, false); err != nil {
				t.Fatalf("%s %s: %v", s.op, s.id, err)
			}
			if prev.Fingerprint() != prevFP || prev.ChangeCount() != i {
				t.Errorf("%s %s: the copy changed its source", s.op, s.id)
			}
			if _, err := change(st, s.op, s.id, &w, true); err != nil {
				t.Fatalf("%s %s in place: %v", s.op, s.id, err)
			}
			if !sameInts(st.Assignments(), copied.Assignments()) || st.Fingerprint() != copied.Fingerprint() ||
				st.ChangeCount() != i+1 || st.Epoch() != 3 || copied.Epoch() != 3 {
				t.Errorf("%s %s: in place and copying differ", s.op, s.id)
			}
			a, _ := st.ToJSON()
			b, _ := copied.ToJSON()
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: the documents differ", s.op, s.id)
			}
		}
		// An in-place change to a copy's source after the copy: the copy keeps its changes.
		fork, _ := st.WithEpoch(7)
		forkText, _ := fork.ToJSON()
		if err := st.AddNode(hrwhash.Node{ID: "f"}); err != nil {
			t.Fatal(err)
		}
		if after, _ := fork.ToJSON(); !bytes.Equal(forkText, after) || fork.Epoch() != 7 || st.Epoch() != 3 || fork.ChangeCount() != 5 {
			t.Errorf("a change to the source reached the copy")
		}
		if err := st.RemoveNode("f"); err != nil {
			t.Fatal(err)
		}
		// Down to one weighted node: draining or removing it is refused and changes nothing.
		if err := st.SetWeight("c", 0); err != nil {
			t.Fatal(err)
		}
		if err := st.SetWeight("d", 0); err != nil {
			t.Fatal(err)
		}
		before, count := st.Assignments(), st.ChangeCount()
		if err := st.SetWeight("e", 0); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
			t.Errorf("draining the last weighted node: %v", err)
		}
		if err := st.RemoveNode("e"); !errors.Is(err, hrwhash.ErrAllWeightsZero) {
			t.Errorf("removing the last weighted node: %v", err)
		}
		if !sameInts(before, st.Assignments()) || st.Placement().Len() != 3 || st.ChangeCount() != count {
			t.Errorf("refused drains changed the table")
		}
		for _, id := range []string{"c", "d"} {
			if err := st.RemoveNode(id); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.RemoveNode("e"); !errors.Is(err, hrwhash.ErrEmptyMembership) {
			t.Errorf("removing the last node: %v", err)
		}
		if counts := st.SlotCounts(); !sameInts(counts, []int{64}) {
			t.Errorf("one node holds every slot: %v", counts)
		}
		if st.Initial() != p || st.Initial().Len() != 3 {
			t.Errorf("the first membership changed")
		}
	}
}

// Each change is charged slots + nodes (levelled) or nodes (ranked), nodes counted before it
// (SLOT-HISTORY.md section 6); the change that would pass the cap is ErrResultTooLarge and leaves
// the table as it was, the one that reaches it is allowed, and a loaded history costs what its
// appends cost.
func TestSlotTableReplayCost(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	for _, ranked := range []bool{false, true} {
		mode := hrwhash.SlotModeLevelled
		var opts []hrwhash.SlotTableOption
		if ranked {
			mode, opts = hrwhash.SlotModeRanked, append(opts, hrwhash.Ranked())
		}
		per := func(nodes uint64) uint64 {
			if ranked {
				return nodes
			}
			return 64 + nodes
		}
		st, err := hrwhash.NewSlotTable(p, 64, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddNode(hrwhash.Node{ID: "x"}); err != nil {
			t.Fatal(err)
		}
		if err := st.RemoveNode("a"); err != nil {
			t.Fatal(err)
		}
		if got := hrwhash.SlotTableCost(st); got != per(3)+per(4) {
			t.Errorf("%v: cost %d, want %d", mode, got, per(3)+per(4))
		}
		doc, err := st.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := hrwhash.SlotTableFromJSON(doc)
		if err != nil || hrwhash.SlotTableCost(loaded) != hrwhash.SlotTableCost(st) {
			t.Errorf("%v: loaded: %v", mode, err)
		}
		hrwhash.SetSlotTableCost(st, hrwhash.MaxSlotTableReplayCost-per(3)+1)
		before := st.Fingerprint()
		if err := st.AddNode(hrwhash.Node{ID: "y"}); !errors.Is(err, hrwhash.ErrResultTooLarge) {
			t.Errorf("%v: past the cap: %v", mode, err)
		}
		if _, err := st.WithNode(hrwhash.Node{ID: "y"}); !errors.Is(err, hrwhash.ErrResultTooLarge) {
			t.Errorf("%v: a copy past the cap: %v", mode, err)
		}
		if st.Fingerprint() != before || st.ChangeCount() != 2 {
			t.Errorf("%v: a refused change changed the table", mode)
		}
		hrwhash.SetSlotTableCost(st, hrwhash.MaxSlotTableReplayCost-per(3))
		if err := st.AddNode(hrwhash.Node{ID: "y"}); err != nil || hrwhash.SlotTableCost(st) != hrwhash.MaxSlotTableReplayCost {
			t.Errorf("%v: at the cap: %v", mode, err)
		}
	}
}

// At most 65,536 changes (SLOT-HISTORY.md section 6): one more fails to load and to append.
func TestSlotTableChangeLimit(t *testing.T) {
	for _, policy := range []string{hrwhash.SlotTablePolicy, hrwhash.RankedSlotTablePolicy} {
		var b strings.Builder
		b.WriteString(`{"format":"hrwhash-slot-history-v1","policy":"` + policy + `","epoch":"0","seed":"default","slots":1,"initial":[{"id":"a"},{"id":"b"}],"changes":[`)
		for i := 0; i < maxChanges; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"op":"weight","id":"a","weight":%d}`, 1+i%2)
		}
		full, err := hrwhash.SlotTableFromJSON([]byte(b.String() + "]}"))
		if err != nil || full.ChangeCount() != maxChanges {
			t.Fatalf("%s: %d changes: %v", policy, maxChanges, err)
		}
		var e *hrwhash.Error
		_, err = hrwhash.SlotTableFromJSON([]byte(b.String() + `,{"op":"remove","id":"b"}]}`))
		if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidView || e.Field != "changes" || e.Index != maxChanges || e.Reason != hrwhash.FaultOutOfRange {
			t.Errorf("%s: one change too many: %v", policy, err)
		}
		before := full.Fingerprint()
		for name, err := range map[string]error{
			"AddNode":    full.AddNode(hrwhash.Node{ID: "c"}),
			"RemoveNode": full.RemoveNode("b"),
			"SetWeight":  full.SetWeight("b", 3),
		} {
			if !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidView || e.Field != "changes" || e.Index != maxChanges || e.Reason != hrwhash.FaultOutOfRange {
				t.Errorf("%s: %s past the limit: %v", policy, name, err)
			}
		}
		if full.Fingerprint() != before || full.ChangeCount() != maxChanges {
			t.Errorf("%s: a refused change changed the table", policy)
		}
	}
}

func TestSlotTableMisuse(t *testing.T) {
	if _, err := hrwhash.NewSlotTable(nil, 16); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("nil placement: %v", err)
	}
	if _, err := hrwhash.NewSlotTable(&hrwhash.Placement{}, 16, hrwhash.Ranked()); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Errorf("zero placement: %v", err)
	}
	for _, st := range []*hrwhash.SlotTable{nil, {}} {
		for name, f := range map[string]func(){
			"Slot":  func() { st.Slot("k") },
			"Owner": func() { st.Owner("k") },
		} {
			if err := hrwhash.NullPanic(f); !errors.Is(err, hrwhash.ErrNullParameter) {
				t.Errorf("%s: %v", name, err)
			}
		}
		for name, err := range map[string]error{
			"OwnerOfSlot": func() error { _, e := st.OwnerOfSlot(0); return e }(),
			"JSON":        func() error { _, e := st.ToJSON(); return e }(),
			"View":        func() error { _, e := st.View(); return e }(),
			"WithNode":    func() error { _, e := st.WithNode(hrwhash.Node{ID: "x"}); return e }(),
			"WithoutNode": func() error { _, e := st.WithoutNode("a"); return e }(),
			"WithWeight":  func() error { _, e := st.WithWeight("a", 1); return e }(),
			"WithEpoch":   func() error { _, e := st.WithEpoch(1); return e }(),
			"AddNode":     st.AddNode(hrwhash.Node{ID: "x"}),
			"RemoveNode":  st.RemoveNode("a"),
			"SetWeight":   st.SetWeight("a", 1),
		} {
			if !errors.Is(err, hrwhash.ErrNullParameter) {
				t.Errorf("%s: %v", name, err)
			}
		}
		// The lookups that cannot fail answer the zero value.
		if _, ok := st.OverloadPPM(); ok || st.Slots() != 0 || st.Assignments() != nil || st.SlotCounts() != nil ||
			st.Capacities() != nil || st.Placement() != nil || st.Initial() != nil || st.Epoch() != 0 ||
			st.ChangeCount() != 0 || st.Fingerprint() != [16]byte{} || st.Mode() != hrwhash.SlotModeLevelled ||
			st.FingerprintHex() != strings.Repeat("0", 32) {
			t.Errorf("zero table answers")
		}
	}

	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	var e *hrwhash.Error
	for _, opts := range [][]hrwhash.SlotTableOption{nil, {hrwhash.Ranked()}, {hrwhash.WithOverloadPPM(7), nil}} {
		for _, n := range []uint64{0, hrwhash.MaxSlots + 1, math.MaxUint64} {
			if _, err := hrwhash.NewSlotTable(p, n, opts...); !errors.As(err, &e) || e.Code != hrwhash.CodeInvalidSlotCount || e.Slots != n {
				t.Errorf("%d slots: %v", n, err)
			}
		}
		st, err := hrwhash.NewSlotTable(p, 8, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.OwnerOfSlot(8); !errors.As(err, &e) || e.Code != hrwhash.CodeSlotOutOfRange || e.Slot != 8 || e.Slots != 8 {
			t.Errorf("slot 8 of 8: %v", err)
		}
	}
	// WithOverloadPPM implies the ranked mode; options apply in order and nil ones are skipped.
	for _, opts := range [][]hrwhash.SlotTableOption{
		{hrwhash.WithOverloadPPM(5)}, {hrwhash.Ranked(), hrwhash.WithOverloadPPM(5)}, {hrwhash.WithOverloadPPM(5), hrwhash.Ranked()},
	} {
		st, err := hrwhash.NewSlotTable(p, 8, opts...)
		if ppm, ok := st.OverloadPPM(); err != nil || st.Mode() != hrwhash.SlotModeRanked || !ok || ppm != 5 {
			t.Errorf("%d options: %v %d %v", len(opts), st.Mode(), ppm, err)
		}
	}
	for m, want := range map[hrwhash.SlotMode][2]string{
		hrwhash.SlotModeLevelled: {"levelled", "slot-table-v2"},
		hrwhash.SlotModeRanked:   {"ranked", "slot-table-v1"},
		hrwhash.SlotMode(7):      {"SlotMode(7)", ""},
	} {
		if m.String() != want[0] || m.Policy() != want[1] {
			t.Errorf("%d: %q %q", int(m), m.String(), m.Policy())
		}
	}
}

// The two tables of a case that compares histories, and their final views.
func loadTwoHistories(t *testing.T, name, docA, docB string) (a, b *hrwhash.SlotTable, va, vb *hrwhash.View) {
	t.Helper()
	a, errA := hrwhash.SlotTableFromJSON([]byte(docA))
	b, errB := hrwhash.SlotTableFromJSON([]byte(docB))
	if errA != nil || errB != nil {
		t.Fatalf("%s: %v %v", name, errA, errB)
	}
	va, _ = a.View()
	vb, _ = b.View()
	return a, b, va, vb
}
