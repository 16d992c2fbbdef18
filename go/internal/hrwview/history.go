package hrwview

import (
	"math"
	"strconv"
	"strings"
)

// The slot history document, hrwhash-slot-history-v1 (conformance/SLOT-HISTORY.md): its
// checks, in the order the core makes them, and its canonical form.

// Tags a slot history document names: its format, and the policy of its table, levelled or
// ranked.
const (
	HistoryFormat  = "hrwhash-slot-history-v1"
	LevelledPolicy = "slot-table-v2"
	RankedPolicy   = "slot-table-v1"
)

// MaxChanges is the most changes a history holds.
const MaxChanges = 65_536

// CodeInvalidSlotCount is the C ABI's status of a slot count out of range; Error.Slots holds it.
const CodeInvalidSlotCount = 26

// Change ops.
const (
	OpAdd    = "add"
	OpRemove = "remove"
	OpWeight = "weight"
)

// Change is one change of a history: Node is the added node, or the id (and the new weight) of
// the node removed or weighed.
type Change struct {
	Op   string
	Node Node
}

// History is a document that passed the checks of SLOT-HISTORY.md up to the membership checks.
type History struct {
	Policy string
	// OverloadPPM is the bound of a ranked table, nil when it has none (and for a levelled one).
	OverloadPPM     *uint32
	Epoch           uint64
	Secret          bool
	SeedFingerprint [8]byte
	Slots           uint64
	Initial         []Node
	Changes         []Change
}

var (
	historyMembers = []string{"format", "policy", "overload_ppm", "epoch", "seed", "seed_fingerprint", "slots", "initial", "changes"}
	changeMembers  = []string{"op", "id", "id_hex", "weight", "domain", "domain_hex"}
)

// within names a node member's fault as a member of list.
func within(list string, err error) error {
	if e, ok := err.(*Error); ok && e.Code == CodeInvalidView {
		e.Field = list + "." + e.Field
	}
	return err
}

// ParseHistory reads a slot history document and makes every check before the membership's.
func ParseHistory(doc []byte) (*History, error) {
	var d Doc
	out := &History{}
	m, err := head(doc, historyMembers, [2][]string{{"format", HistoryFormat}, {"policy", LevelledPolicy, RankedPolicy}},
		func(m map[string]value) (err error) {
			out.Policy = m["policy"].str
			out.OverloadPPM, err = overload(m, out.Policy)
			return err
		}, &d, nil)
	if err != nil {
		return nil, err
	}
	out.Epoch, out.Secret, out.SeedFingerprint = d.Epoch, d.Secret, d.SeedFingerprint
	s, err := required(m, "slots", kNumber)
	if err != nil {
		return nil, err
	}
	if !(s.num >= 0 && s.num < 1<<64 && float64(uint64(s.num)) == s.num) {
		return nil, viewError("slots", -1, "invalid")
	}
	out.Slots = uint64(s.num)
	if out.Slots == 0 || out.Slots > 1<<24 {
		return nil, &Error{Code: CodeInvalidSlotCount, Index: -1, Slots: out.Slots}
	}
	initial, err := list(m, "initial")
	if err != nil {
		return nil, err
	}
	for i, item := range initial {
		if item.kind != kObject {
			return nil, viewError("initial", i, "wrong_type")
		}
		n, err := node(item, i)
		if err != nil {
			return nil, within("initial", err)
		}
		out.Initial = append(out.Initial, n)
	}
	changes, err := list(m, "changes")
	if err != nil {
		return nil, err
	}
	out.Changes = make([]Change, 0, min(len(changes), MaxChanges))
	for i, item := range changes {
		if i >= MaxChanges {
			return nil, viewError("changes", i, "out_of_range")
		}
		c, err := change(item, i)
		if err != nil {
			return nil, err
		}
		out.Changes = append(out.Changes, c)
	}
	return out, nil
}

// overload reads the bound of a ranked table (SLOT-HISTORY.md section 5, right after the
// policy): a whole number of parts per million that fits 32 bits, and only beside the ranked
// policy (a levelled table has no bound, as a default seed has no fingerprint).
func overload(m map[string]value, policy string) (*uint32, error) {
	v, ok := m["overload_ppm"]
	switch {
	case !ok:
		return nil, nil
	case policy != RankedPolicy:
		return nil, viewError("overload_ppm", -1, "conflict")
	case v.kind != kNumber:
		return nil, viewError("overload_ppm", -1, "wrong_type")
	case v.num > math.MaxUint32:
		return nil, viewError("overload_ppm", -1, "out_of_range")
	case !(v.num >= 0 && float64(uint32(v.num)) == v.num):
		// a negative number or a fraction is not a bound at all; -0 is 0
		return nil, viewError("overload_ppm", -1, "invalid")
	}
	ppm := uint32(v.num)
	return &ppm, nil
}

func list(m map[string]value, name string) ([]value, error) {
	v, err := required(m, name, kArray)
	if err != nil {
		return nil, err
	}
	return v.items, nil
}

func change(v value, i int) (Change, error) {
	if v.kind != kObject {
		return Change{}, viewError("changes", i, "wrong_type")
	}
	m, err := fields(v, changeMembers, i)
	if err != nil {
		return Change{}, within("changes", err)
	}
	op, ok := m["op"]
	switch {
	case !ok:
		return Change{}, viewError("changes.op", i, "missing")
	case op.kind != kString:
		return Change{}, viewError("changes.op", i, "wrong_type")
	}
	// Which of weight, domain and domain_hex the op takes.
	var allowed [3]bool
	switch op.str {
	case OpAdd:
		allowed = [3]bool{true, true, true}
	case OpRemove:
	case OpWeight:
		allowed = [3]bool{true, false, false}
	default:
		return Change{}, viewError("changes.op", i, "invalid")
	}
	for k, name := range []string{"weight", "domain", "domain_hex"} {
		if _, present := m[name]; present && !allowed[k] {
			return Change{}, viewError("changes."+name, i, "unknown")
		}
	}
	// The node's members, without op, read as a node of a view.
	rest := value{kind: kObject}
	for _, mb := range v.members {
		if mb.name != "op" {
			rest.members = append(rest.members, mb)
		}
	}
	n, err := node(rest, i)
	if err != nil {
		return Change{}, within("changes", err)
	}
	if _, hasWeight := m["weight"]; op.str == OpWeight && !hasWeight {
		return Change{}, viewError("changes.weight", i, "missing")
	}
	return Change{Op: op.str, Node: n}, nil
}

// HistoryJSON is the canonical form of a history (SLOT-HISTORY.md section 3); initial holds the
// first membership with its fixed-point weights, and a change's Fixed its node's. A ranked
// table's bound, when it has one, is the line after the policy.
func HistoryJSON(policy string, overloadPPM *uint32, epoch uint64, secret bool, seedFP [8]byte, slots uint64, initial []Weighted, changes []Weighted, ops []string) []byte {
	var b strings.Builder
	extra := ""
	if overloadPPM != nil {
		extra = "  \"overload_ppm\": " + strconv.FormatUint(uint64(*overloadPPM), 10) + ",\n"
	}
	canonicalHead(&b, HistoryFormat, "policy", policy, extra, epoch, secret, seedFP)
	b.WriteString("  \"slots\": " + strconv.FormatUint(slots, 10) + ",\n  \"initial\": [\n")
	sorted := byID(initial)
	for i, n := range sorted {
		b.WriteString("    {")
		writeNode(&b, n)
		if i+1 < len(sorted) {
			b.WriteString("},\n")
		} else {
			b.WriteString("}\n")
		}
	}
	if len(changes) == 0 {
		b.WriteString("  ],\n  \"changes\": []\n}\n")
		return []byte(b.String())
	}
	b.WriteString("  ],\n  \"changes\": [\n")
	for i, c := range changes {
		b.WriteString(`    {"op": "` + ops[i] + `", `)
		switch ops[i] {
		case OpAdd:
			writeNode(&b, c)
		case OpRemove:
			textMember(&b, "id", c.ID)
		default:
			textMember(&b, "id", c.ID)
			b.WriteString(`, "weight": ` + Decimal(c.Fixed))
		}
		if i+1 < len(changes) {
			b.WriteString("},\n")
		} else {
			b.WriteString("}\n")
		}
	}
	b.WriteString("  ]\n}\n")
	return []byte(b.String())
}

func writeNode(b *strings.Builder, n Weighted) {
	textMember(b, "id", n.ID)
	if n.Fixed != one {
		b.WriteString(`, "weight": ` + Decimal(n.Fixed))
	}
	if n.HasDomain {
		b.WriteString(", ")
		textMember(b, "domain", n.Domain)
	}
}
