package hrwhash_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// Every case of ../conformance/policies/slot-history-v1.json through SlotHistoryFromJSON
//, then appends and misuse.

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

func loadSlotHistoryVectors(t *testing.T) (valid, same, equivalent, invalid []shCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "conformance", "policies", "slot-history-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Format     string   `json:"format"`
		Valid      []shCase `json:"valid"`
		Same       []shCase `json:"same_membership"`
		Equivalent []shCase `json:"equivalent"`
		Invalid    []shCase `json:"invalid"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Valid) == 0 || len(v.Same) == 0 || len(v.Equivalent) == 0 || len(v.Invalid) == 0 {
		t.Fatal("a section of slot-history-v1.json is empty")
	}
	if v.Format != hrwhash.SlotHistoryFormat {
		t.Fatalf("format %q", v.Format)
	}
	return v.Valid, v.Same, v.Equivalent, v.Invalid
}

func (c shCase) load() (*hrwhash.SlotHistory, error) {
	var doc []byte
	if c.Document != nil {
		doc = []byte(*c.Document)
	} else {
		doc, _ = hex.DecodeString(*c.DocumentHex)
	}
	var opts []hrwhash.Option
	if c.Seed != nil {
		b, _ := hex.DecodeString(*c.Seed)
		var s hrwhash.Seed
		copy(s[:], b)
		opts = append(opts, hrwhash.WithSeed(s))
	}
	return hrwhash.SlotHistoryFromJSON(doc, opts...)
}

func TestSlotHistoryVectors(t *testing.T) {
	valid, same, equivalent, _ := loadSlotHistoryVectors(t)
	for _, c := range valid {
		h, err := c.load()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, err := h.JSON()
		if err != nil || string(text) != c.Canonical {
			t.Errorf("%s: canonical form (%v)", c.Name, err)
		}
		if h.TableFingerprintHex() != c.TableFingerprint || h.ChangeCount() != c.Changes {
			t.Errorf("%s: table fingerprint %s, changes %d", c.Name, h.TableFingerprintHex(), h.ChangeCount())
		}
		v, err := h.View()
		if err != nil || v.FingerprintHex() != c.ViewFingerprint || v.Epoch() != h.Epoch() {
			t.Errorf("%s: view (%v)", c.Name, err)
		}
		table, err := h.Table()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, o := range c.Owners {
			want := ""
			if o.Owner != nil {
				want = *o.Owner
			} else {
				b, _ := hex.DecodeString(*o.OwnerHex)
				want = string(b)
			}
			i, err := table.OwnerOfSlot(o.Slot)
			n, _ := table.Placement().Node(i)
			if err != nil || n.ID != want {
				t.Errorf("%s: owner of slot %d (%v)", c.Name, o.Slot, err)
			}
			if o.Key != nil {
				if s := table.Slot(*o.Key); uint64(s) != o.Slot {
					t.Errorf("%s: slot of %q is %d", c.Name, *o.Key, s)
				}
			}
		}
	}
	for _, c := range same {
		a, errA := hrwhash.SlotHistoryFromJSON([]byte(c.A))
		b, errB := hrwhash.SlotHistoryFromJSON([]byte(c.B))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", c.Name, errA, errB)
		}
		va, _ := a.View()
		vb, _ := b.View()
		if va.FingerprintHex() != c.ViewFingerprint || vb.FingerprintHex() != c.ViewFingerprint {
			t.Errorf("%s: final views differ", c.Name)
		}
		if a.TableFingerprintHex() != c.ATable || b.TableFingerprintHex() != c.BTable {
			t.Errorf("%s: table fingerprints", c.Name)
		}
	}
	for _, c := range equivalent {
		h, err := c.load()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, _ := h.JSON()
		if string(text) != c.Canonical || h.TableFingerprintHex() != c.TableFingerprint {
			t.Errorf("%s: canonical form or fingerprint", c.Name)
		}
	}
}

var shCodes = map[string]hrwhash.Code{
	"InvalidJson":      hrwhash.ErrInvalidJSON.Code,
	"InvalidView":      hrwhash.ErrInvalidView.Code,
	"InvalidSlotCount": hrwhash.ErrInvalidSlotCount.Code,
	"SeedMismatch":     hrwhash.ErrSeedMismatch.Code,
	"EmptyMembership":  hrwhash.ErrEmptyMembership.Code,
	"EmptyNodeId":      hrwhash.ErrEmptyNodeID.Code,
	"DuplicateNodeId":  hrwhash.ErrDuplicateNodeID.Code,
	"AllWeightsZero":   hrwhash.ErrAllWeightsZero.Code,
	"UnknownNode":      hrwhash.ErrUnknownNode.Code,
}

func TestSlotHistoryErrorVectors(t *testing.T) {
	_, _, _, invalid := loadSlotHistoryVectors(t)
	for _, c := range invalid {
		h, err := c.load()
		var e *hrwhash.Error
		if h != nil || !errors.As(err, &e) {
			t.Fatalf("%s: %v", c.Name, err)
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
		case "InvalidJson":
			if e.Line < 1 || e.Column < 1 {
				t.Errorf("%s: position %d:%d", c.Name, e.Line, e.Column)
			}
		}
	}
}

func TestSlotHistoryAppendsAndMisuse(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	first, err := hrwhash.NewSlotHistory(p, 64, 5)
	if err != nil {
		t.Fatal(err)
	}
	two := 2.0
	h, err := first.WithNode(hrwhash.Node{ID: "d", Weight: &two, Domain: "zone-9"})
	if err == nil {
		h, err = h.WithoutNode("a")
	}
	if err == nil {
		h, err = h.WithWeight("c", 0.5)
	}
	if err != nil {
		t.Fatal(err)
	}
	text, _ := h.JSON()
	again, err := hrwhash.SlotHistoryFromJSON(text)
	if err != nil || again.TableFingerprint() != h.TableFingerprint() || h.Epoch() != 5 || h.ChangeCount() != 3 {
		t.Fatalf("reload: %v", err)
	}
	if first.ChangeCount() != 0 || !bytes.Contains(text, []byte(`{"op": "add", "id": "d", "weight": 2, "domain": "zone-9"}`)) {
		t.Errorf("appends: %s", text)
	}
	for name, tc := range map[string]struct {
		err  error
		want error
	}{
		"remove unknown": {func() error { _, e := h.WithoutNode("zz"); return e }(), hrwhash.ErrUnknownNode},
		"add duplicate":  {func() error { _, e := h.WithNode(hrwhash.Node{ID: "b"}); return e }(), hrwhash.ErrDuplicateNodeID},
		"bad weight":     {func() error { _, e := h.WithWeight("b", -1); return e }(), hrwhash.ErrInvalidWeight},
		"zero slots":     {func() error { _, e := hrwhash.NewSlotHistory(p, 0, 0); return e }(), hrwhash.ErrInvalidSlotCount},
		"nil history":    {func() error { _, e := (*hrwhash.SlotHistory)(nil).WithoutNode("a"); return e }(), hrwhash.ErrNullParameter},
		"nil placement":  {func() error { _, e := hrwhash.NewSlotHistory(nil, 8, 0); return e }(), hrwhash.ErrNullParameter},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", name, tc.err, tc.want)
		}
	}
	var dup *hrwhash.Error
	_, err = h.WithNode(hrwhash.Node{ID: "b"})
	if !errors.As(err, &dup) || dup.Index != 3 || dup.FirstIndex != 0 {
		t.Errorf("duplicate add: %v", err)
	}
}

// API.md: the same bad input gets the same error in every API. An unknown node with an invalid
// weight is ErrUnknownNode for Placement, LevelledSlotTable and SlotHistory alike (the node is
// looked up first); a known node's invalid weight stays ErrInvalidWeight.
func TestSlotHistoryWithWeightLooksTheNodeUpFirst(t *testing.T) {
	p, err := hrwhash.New("a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	table, err := hrwhash.NewLevelledSlotTable(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hrwhash.NewSlotHistory(p, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(id string, w float64) error{
		"Placement":         func(id string, w float64) error { _, e := p.WithWeight(id, w); return e },
		"LevelledSlotTable": func(id string, w float64) error { _, e := table.WithWeight(id, w); return e },
		"SlotHistory":       func(id string, w float64) error { _, e := h.WithWeight(id, w); return e },
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
	// The history's current membership: a node it removed is unknown, one it added is known.
	later, err := h.WithoutNode("a")
	if err == nil {
		later, err = later.WithNode(hrwhash.Node{ID: "d"})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := later.WithWeight("a", math.NaN()); !errors.Is(err, hrwhash.ErrUnknownNode) {
		t.Errorf("removed node: %v, want ErrUnknownNode", err)
	}
	var bad *hrwhash.Error
	if _, err := later.WithWeight("d", math.NaN()); !errors.Is(err, hrwhash.ErrInvalidWeight) ||
		!errors.As(err, &bad) || bad.Index != 2 {
		t.Errorf("added node: %v, want ErrInvalidWeight at change 2", err)
	}
}
