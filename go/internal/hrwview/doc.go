package hrwview

import (
	"encoding/hex"
	"math"
	"slices"
	"strings"
)

// Format and Algorithm are the tags a view document names.
const (
	Format    = "hrwhash-view-v1"
	Algorithm = "hrw-v1"
)

// Codes of the errors; the numbers are the C ABI's statuses.
const (
	CodeInvalidJSON      = 17
	CodeInvalidView      = 18
	CodeSeedMismatch     = 19
	CodeInvalidMoveLimit = 20
	CodeAllWeightsZero   = 6
	CodeResultTooLarge   = 15
)

// Error is a document or ramp that VIEW.md rejects.
type Error struct {
	Code         uint32
	Line, Column int
	Field        string
	Index        int // node position, -1 outside the nodes
	Reason       string
	Value        float64
	Slots        uint64 // CodeInvalidSlotCount
}

func (e *Error) Error() string { return "hrwview: " + e.Field + " " + e.Reason }

func viewError(field string, index int, reason string) *Error {
	return &Error{Code: CodeInvalidView, Field: field, Index: index, Reason: reason}
}

// Node is a node of a document: its id, its weight as the binary64 the document gave, and its
// failure domain.
type Node struct {
	ID        string
	Weight    float64
	Domain    string
	HasDomain bool
}

// Doc is a document that passed the checks of VIEW.md section 5 up to step 9; the membership
// checks (step 10) and the seed (step 11) belong to whoever builds the placement.
type Doc struct {
	Epoch uint64
	// Secret is false for "seed": "default"; then SeedFingerprint is zero.
	Secret          bool
	SeedFingerprint [8]byte
	Nodes           []Node
}

// fields checks the member names of an object in document order: unknown, then repeated.
func fields(obj value, known []string, index int) (map[string]value, error) {
	seen := make(map[string]value, len(obj.members))
	for _, m := range obj.members {
		ok := false
		for _, k := range known {
			ok = ok || k == m.name
		}
		if !ok {
			return nil, viewError(m.name, index, "unknown")
		}
		if _, dup := seen[m.name]; dup {
			return nil, viewError(m.name, index, "duplicate")
		}
		seen[m.name] = m.value
	}
	return seen, nil
}

func isHex(s string, even bool) bool {
	if even && len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func unhex(s string) string {
	b, _ := hex.DecodeString(strings.ToLower(s))
	return string(b)
}

// head reads a document's object and makes the checks a view and a slot history share, in
// order: its member names, its two tags (each name, then the values it may have), what after
// checks of the members the tags decide (nil: nothing), its epoch and its seed. It returns the
// members by name.
func head(doc []byte, members []string, tags [2][]string, after func(map[string]value) error, out *Doc, item func(value, int)) (map[string]value, error) {
	root, err := parse(doc, item)
	if err != nil {
		line, column := position(doc, err.(syntaxError).pos)
		return nil, &Error{Code: CodeInvalidJSON, Line: line, Column: column, Index: -1}
	}
	if root.kind != kObject {
		return nil, viewError("", -1, "wrong_type")
	}
	m, err := fields(root, members, -1)
	if err != nil {
		return nil, err
	}
	for _, tag := range tags {
		v, ok := m[tag[0]]
		switch {
		case !ok:
			return nil, viewError(tag[0], -1, "missing")
		case v.kind != kString:
			return nil, viewError(tag[0], -1, "wrong_type")
		case !slices.Contains(tag[1:], v.str):
			return nil, viewError(tag[0], -1, "unsupported")
		}
	}
	if after != nil {
		if err := after(m); err != nil {
			return nil, err
		}
	}
	if out.Epoch, err = epoch(m); err != nil {
		return nil, err
	}
	return m, seed(m, out)
}

// Parse reads a view document and runs the checks of VIEW.md section 5, steps 1 to 9, in
// order.
func Parse(doc []byte) (*Doc, error) {
	out := &Doc{}
	// The nodes are checked as they are parsed; the first node error is reported only after
	// every check that comes before the nodes in section 5 has passed.
	var nodeErr error
	// Nodes are gathered in blocks and copied once into a slice of their number: growing one
	// slice by append would allocate about five times its final size on the way.
	const block = 4096
	var blocks [][]Node
	item := func(v value, i int) {
		if i == 0 {
			// A repeated "nodes" member is an error of its own (fields): start again.
			blocks, nodeErr = blocks[:0], nil
		}
		if nodeErr != nil {
			return
		}
		n, err := node(v, i)
		if err != nil {
			nodeErr = err
			return
		}
		if len(blocks) == 0 || len(blocks[len(blocks)-1]) == block {
			blocks = append(blocks, make([]Node, 0, block))
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], n)
	}
	m, err := head(doc, []string{"format", "algorithm", "epoch", "seed", "seed_fingerprint", "nodes"},
		[2][]string{{"format", Format}, {"algorithm", Algorithm}}, nil, out, item)
	if err != nil {
		return nil, err
	}
	if _, err := required(m, "nodes", kArray); err != nil {
		return nil, err
	}
	if nodeErr != nil {
		return nil, nodeErr
	}
	if len(blocks) > 0 {
		out.Nodes = make([]Node, 0, (len(blocks)-1)*block+len(blocks[len(blocks)-1]))
		for _, b := range blocks {
			out.Nodes = append(out.Nodes, b...)
		}
	}
	return out, nil
}

// ParseError is the error Parse gives for doc, if it is one of this package's.
func ParseError(doc []byte) (*Error, bool) {
	_, err := Parse(doc)
	e, ok := err.(*Error)
	return e, ok
}

// required is the document's member name, which must be there and of kind want.
func required(m map[string]value, name string, want kind) (value, error) {
	v, ok := m[name]
	switch {
	case !ok:
		return value{}, viewError(name, -1, "missing")
	case v.kind != want:
		return value{}, viewError(name, -1, "wrong_type")
	}
	return v, nil
}

func epoch(m map[string]value) (uint64, error) {
	v, err := required(m, "epoch", kString)
	if err != nil {
		return 0, err
	}
	s := v.str
	if len(s) < 1 || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, viewError("epoch", -1, "invalid")
	}
	var e uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, viewError("epoch", -1, "invalid")
		}
		d := uint64(c - '0')
		if e > (math.MaxUint64-d)/10 {
			return 0, viewError("epoch", -1, "out_of_range")
		}
		e = e*10 + d
	}
	return e, nil
}

func seed(m map[string]value, out *Doc) error {
	v, ok := m["seed"]
	switch {
	case !ok:
		return viewError("seed", -1, "missing")
	case v.kind != kString:
		return viewError("seed", -1, "wrong_type")
	}
	fp, hasFP := m["seed_fingerprint"]
	switch v.str {
	case "default":
		if hasFP {
			return viewError("seed_fingerprint", -1, "conflict")
		}
		return nil
	case "secret":
	default:
		return viewError("seed", -1, "invalid")
	}
	switch {
	case !hasFP:
		return viewError("seed_fingerprint", -1, "missing")
	case fp.kind != kString:
		return viewError("seed_fingerprint", -1, "wrong_type")
	case len(fp.str) != 16 || !isHex(fp.str, true):
		return viewError("seed_fingerprint", -1, "invalid")
	}
	out.Secret = true
	copy(out.SeedFingerprint[:], unhex(fp.str))
	return nil
}

// nodeMembers are the members a node may have, in the order of nodeFields' slots.
var nodeMembers = [5]string{"id", "id_hex", "weight", "domain", "domain_hex"}

// nodeFields is fields for a node, into slots in the order of nodeMembers: without a map,
// since a view has one node object per node.
func nodeFields(obj value, index int) (slots [5]value, has [5]bool, err error) {
	for _, m := range obj.members {
		k := 0
		for k < len(nodeMembers) && nodeMembers[k] != m.name {
			k++
		}
		if k == len(nodeMembers) {
			return slots, has, viewError(m.name, index, "unknown")
		}
		if has[k] {
			return slots, has, viewError(m.name, index, "duplicate")
		}
		slots[k], has[k] = m.value, true
	}
	return slots, has, nil
}

func node(v value, i int) (Node, error) {
	if v.kind != kObject {
		return Node{}, viewError("nodes", i, "wrong_type")
	}
	m, has, err := nodeFields(v, i)
	if err != nil {
		return Node{}, err
	}
	var n Node
	id, hasID, err := textOrHex(m[0], m[1], has[0], has[1], "id", i)
	if err != nil {
		return Node{}, err
	}
	if !hasID {
		return Node{}, viewError("id", i, "missing")
	}
	n.ID = id
	n.Weight = 1
	if w, ok := m[2], has[2]; ok {
		if w.kind != kNumber {
			return Node{}, viewError("weight", i, "wrong_type")
		}
		if _, ok := FixedWeight(w.num); !ok {
			return Node{}, viewError("weight", i, "out_of_range")
		}
		n.Weight = w.num
	}
	n.Domain, n.HasDomain, err = textOrHex(m[3], m[4], has[3], has[4], "domain", i)
	if err != nil {
		return Node{}, err
	}
	return n, nil
}

// textOrHex is member name, or name_hex, of node i: the text of the one given (ok), nothing when
// neither is, and an error when both are, either is not a string, or name_hex is not hex.
func textOrHex(text, hex value, hasText, hasHex bool, name string, i int) (string, bool, error) {
	switch {
	case hasText && hasHex:
		return "", false, viewError(name+"_hex", i, "conflict")
	case hasText && text.kind != kString:
		return "", false, viewError(name, i, "wrong_type")
	case hasHex && hex.kind != kString:
		return "", false, viewError(name+"_hex", i, "wrong_type")
	case hasHex && !isHex(hex.str, true):
		return "", false, viewError(name+"_hex", i, "invalid")
	case hasText:
		return text.str, true, nil
	case hasHex:
		return unhex(hex.str), true, nil
	}
	return "", false, nil
}
