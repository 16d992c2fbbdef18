package hrwhash_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hrwhash/hrwhash/go"
)

// The bad-input contract (conformance/API.md): every case of conformance/api-cases.json that
// Go can pose and whose op Go offers.

const language = "go"

type apiCase struct {
	Name           string                     `json:"name"`
	Op             string                     `json:"op"`
	Placement      map[string]json.RawMessage `json:"placement"`
	Args           map[string]json.RawMessage `json:"args"`
	Error          string                     `json:"error"`
	Index          *int                       `json:"index"`
	FirstIndex     *int                       `json:"first_index"`
	Expected       *int                       `json:"expected"`
	Actual         *int                       `json:"actual"`
	Result         map[string]json.RawMessage `json:"result"`
	NotExpressible map[string]string          `json:"not_expressible"`
}

type apiFile struct {
	Version    string                     `json:"version"`
	Languages  []string                   `json:"languages"`
	NotOffered map[string]json.RawMessage `json:"not_offered"`
	Ops        map[string]string          `json:"ops"`
	Results    map[string]string          `json:"results"`
	Cases      []apiCase                  `json:"cases"`
}

// cannotPose marks an input this runner has no Go form for; a case that is not marked
// not_expressible for Go and needs one fails.
type cannotPose struct{ what string }

func (c cannotPose) Error() string { return "Go cannot pose " + c.what }

// value is a decoded value form of the file's "values" section.
type value struct {
	kind  string // "text", "int", "float", "bool", "null", "list"
	text  string
	int   *big.Int
	float float64
	list  []value
	node  *hrwhash.Node // a node object {"id": ..., "weight": ...}
}

func decode(raw json.RawMessage) (value, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return value{}, fmt.Errorf("empty value")
	case string(raw) == "null":
		return value{kind: "null"}, nil
	case string(raw) == "true" || string(raw) == "false":
		return value{kind: "bool"}, nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return value{}, err
		}
		return value{kind: "text", text: s}, nil
	case raw[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return value{}, err
		}
		v := value{kind: "list", list: []value{}}
		for _, it := range items {
			e, err := decode(it)
			if err != nil {
				return value{}, err
			}
			v.list = append(v.list, e)
		}
		return v, nil
	case raw[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return value{}, err
		}
		return decodeObject(obj)
	}
	// A number: an integer when written without a fraction or exponent.
	s := string(raw)
	if !strings.ContainsAny(s, ".eE") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return value{}, fmt.Errorf("bad integer %s", s)
		}
		return value{kind: "int", int: i}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return value{}, err
	}
	return value{kind: "float", float: f}, nil
}

func decodeObject(obj map[string]json.RawMessage) (value, error) {
	str := func(key string) (string, error) {
		var s string
		err := json.Unmarshal(obj[key], &s)
		return s, err
	}
	if len(obj) == 2 && obj["id"] != nil && obj["weight"] != nil {
		id, err := decode(obj["id"])
		if err != nil {
			return value{}, err
		}
		w, err := decode(obj["weight"])
		if err != nil {
			return value{}, err
		}
		if id.kind != "text" {
			return value{}, cannotPose{"a node object whose id is not text"}
		}
		wf, err := w.asFloat()
		if err != nil {
			return value{}, err
		}
		return value{kind: "node", node: &hrwhash.Node{ID: id.text, Weight: hrwhash.Weight(wf)}}, nil
	}
	if len(obj) != 1 {
		return value{}, fmt.Errorf("unknown value form %v", keys(obj))
	}
	switch {
	case obj["bytes"] != nil:
		s, err := str("bytes")
		if err != nil {
			return value{}, err
		}
		b, err := hex.DecodeString(s)
		return value{kind: "text", text: string(b)}, err
	case obj["utf16"] != nil:
		s, err := str("utf16")
		if err != nil {
			return value{}, err
		}
		var units []uint16
		for i := 0; i+4 <= len(s); i += 4 {
			u, err := strconv.ParseUint(s[i:i+4], 16, 16)
			if err != nil {
				return value{}, err
			}
			units = append(units, uint16(u))
		}
		for i := 0; i < len(units); i++ {
			if utf16.IsSurrogate(rune(units[i])) {
				if i+1 < len(units) && units[i] < 0xDC00 && units[i+1] >= 0xDC00 && units[i+1] < 0xE000 {
					i++
					continue
				}
				return value{}, cannotPose{"text with a lone surrogate (Go strings are bytes)"}
			}
		}
		text := string(utf16.Decode(units))
		return value{kind: "text", text: text}, nil
	case obj["float"] != nil:
		s, err := str("float")
		if err != nil {
			return value{}, err
		}
		switch s {
		case "nan":
			return value{kind: "float", float: math.NaN()}, nil
		case "inf":
			return value{kind: "float", float: math.Inf(1)}, nil
		case "-inf":
			return value{kind: "float", float: math.Inf(-1)}, nil
		}
		return value{}, fmt.Errorf("unknown float %q", s)
	case obj["int"] != nil:
		s, err := str("int")
		if err != nil {
			return value{}, err
		}
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return value{}, fmt.Errorf("bad int %q", s)
		}
		return value{kind: "int", int: i}, nil
	case obj["range"] != nil:
		var r struct {
			Prefix string `json:"prefix"`
			Count  int    `json:"count"`
		}
		if err := json.Unmarshal(obj["range"], &r); err != nil {
			return value{}, err
		}
		v := value{kind: "list", list: make([]value, r.Count)}
		for i := range v.list {
			v.list[i] = value{kind: "text", text: r.Prefix + strconv.Itoa(i)}
		}
		return v, nil
	case obj["released"] != nil:
		return value{}, cannotPose{"a released buffer"}
	case obj["array_length"] != nil:
		return value{}, cannotPose{"an array-like without elements"}
	}
	return value{}, fmt.Errorf("unknown value form %v", keys(obj))
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (v value) asText() (string, error) {
	if v.kind != "text" {
		return "", cannotPose{"a " + v.kind + " where Go takes a string"}
	}
	return v.text, nil
}

func (v value) asFloat() (float64, error) {
	switch v.kind {
	case "float":
		return v.float, nil
	case "int":
		f, _ := new(big.Float).SetInt(v.int).Float64()
		return f, nil
	}
	return 0, cannotPose{"a " + v.kind + " where Go takes a float64"}
}

func (v value) asInt() (int, error) {
	if v.kind != "int" {
		return 0, cannotPose{"a " + v.kind + " where Go takes an int"}
	}
	if !v.int.IsInt64() || v.int.Int64() != int64(int(v.int.Int64())) {
		return 0, cannotPose{"an integer beyond int"}
	}
	return int(v.int.Int64()), nil
}

func (v value) asTexts() ([]string, error) {
	if v.kind != "list" {
		return nil, cannotPose{"a " + v.kind + " where Go takes a []string"}
	}
	out := make([]string, len(v.list))
	for i, e := range v.list {
		s, err := e.asText()
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

type args map[string]json.RawMessage

func (a args) get(name string) (value, bool, error) {
	raw, ok := a[name]
	if !ok {
		return value{}, false, nil
	}
	v, err := decode(raw)
	return v, true, err
}

func (a args) text(name string) (string, error) {
	v, ok, err := a.get(name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("argument %s missing", name)
	}
	return v.asText()
}

// seedOption turns an optional seed argument into options; a seed of the wrong length fails
// here, when the Seed is made, before the nodes are looked at: the order of Go's API.
func seedOption(a args) ([]hrwhash.Option, *hrwhash.Seed, error) {
	v, ok, err := a.get("seed")
	if err != nil || !ok {
		return nil, nil, err
	}
	if v.kind == "null" {
		return nil, nil, cannotPose{"a null seed (the seed is a value type)"}
	}
	b, err := v.asText()
	if err != nil {
		return nil, nil, err
	}
	seed, err := hrwhash.SeedFromBytes([]byte(b))
	if err != nil {
		return nil, nil, err
	}
	return []hrwhash.Option{hrwhash.WithSeed(seed)}, &seed, nil
}

// newPlacement is the op "new" (and a case's "placement").
func newPlacement(a args) (*hrwhash.Placement, error) {
	for name := range a {
		switch name {
		case "nodes", "weights", "domains", "seed":
		case "options":
			return nil, cannotPose{"named options"}
		default:
			return nil, fmt.Errorf("unknown argument %q of new", name)
		}
	}
	opts, _, err := seedOption(a)
	if err != nil {
		return nil, err
	}
	nv, ok, err := a.get("nodes")
	if err != nil {
		return nil, err
	}
	if !ok || nv.kind != "list" {
		return nil, cannotPose{"a node list that is not a list"}
	}
	nodes := make([]hrwhash.Node, len(nv.list))
	for i, e := range nv.list {
		if e.kind == "node" {
			nodes[i] = *e.node
			continue
		}
		id, err := e.asText()
		if err != nil {
			return nil, err
		}
		nodes[i] = hrwhash.Node{ID: id}
	}
	if wv, ok, err := a.get("weights"); err != nil {
		return nil, err
	} else if ok {
		if wv.kind != "list" {
			return nil, cannotPose{"weights that are not a list"}
		}
		if len(wv.list) != len(nodes) {
			// Parallel lists of ids and weights are NewWeighted's, which checks their lengths.
			return newWeighted(a, nodes, wv)
		}
		for i, e := range wv.list {
			if nodes[i].Weight != nil {
				return nil, cannotPose{"a weight given twice"}
			}
			w, err := e.asFloat()
			if err != nil {
				return nil, err
			}
			nodes[i].Weight = hrwhash.Weight(w)
		}
	}
	if dv, ok, err := a.get("domains"); err != nil {
		return nil, err
	} else if ok {
		if dv.kind != "list" || len(dv.list) != len(nodes) {
			return nil, cannotPose{"a domains list beside the nodes (domains are Node fields)"}
		}
		for i, e := range dv.list {
			d, err := e.asText()
			if err != nil {
				return nil, err
			}
			nodes[i].Domain, nodes[i].HasDomain = d, true
		}
	}
	return hrwhash.NewNodes(nodes, opts...)
}

func newWeighted(a args, nodes []hrwhash.Node, wv value) (*hrwhash.Placement, error) {
	if _, ok := a["domains"]; ok {
		return nil, cannotPose{"parallel weights and domains"}
	}
	if _, ok := a["seed"]; ok {
		return nil, cannotPose{"parallel weights and a seed"}
	}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		if n.Weight != nil {
			return nil, cannotPose{"a weight given twice"}
		}
		ids[i] = n.ID
	}
	ws := make([]float64, len(wv.list))
	for i, e := range wv.list {
		w, err := e.asFloat()
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	return hrwhash.NewWeighted(ids, ws)
}

// outcome is what a call gave: a placement, a list, rows, a number, or an error.
type outcome struct {
	placement *hrwhash.Placement
	list      []int
	rows      [][]int
	fixed     *uint64
	score     *uint64
}

func run(c *apiCase) (outcome, error) {
	a := args(c.Args)
	var out outcome
	if c.Op == "new" {
		p, err := newPlacement(a)
		out.placement = p
		return out, err
	}
	var p *hrwhash.Placement
	if c.Placement != nil {
		var err error
		if p, err = newPlacement(c.Placement); err != nil {
			return out, fmt.Errorf("the case's placement does not build: %w", err)
		}
	}
	need := func() error {
		if p == nil {
			return fmt.Errorf("op %s needs a placement", c.Op)
		}
		return nil
	}
	k := func() (int, error) {
		v, ok, err := a.get("k")
		if err != nil || !ok {
			return 0, fmt.Errorf("k missing: %v", err)
		}
		return v.asInt()
	}
	// Every op on a key checks for the placement first, then reads the key, then k.
	placementKey := func() (string, error) {
		if err := need(); err != nil {
			return "", err
		}
		return a.text("key")
	}
	keyAndK := func() (string, int, error) {
		key, err := placementKey()
		if err != nil {
			return "", 0, err
		}
		n, err := k()
		return key, n, err
	}
	switch c.Op {
	case "owner":
		key, err := placementKey()
		if err != nil {
			return out, err
		}
		out.list = []int{p.Owner(key)}
		return out, nil
	case "rank", "replicas":
		key, n, err := keyAndK()
		if err != nil {
			return out, err
		}
		if c.Op == "rank" {
			out.list, err = p.Rank(key, n)
			if n >= 0 {
				// RankInto, given a buffer of k (of one more than the membership when k is
				// larger), must answer as Rank did.
				buf := make([]int, min(n, p.Len()+1))
				got := p.RankInto(key, buf)
				if err != nil || !sameInts(buf[:got], out.list) {
					return out, fmt.Errorf("RankInto: %v; Rank: %v, %v", buf[:got], out.list, err)
				}
			}
		} else {
			out.list, err = p.Replicas(key, n)
		}
		return out, err
	case "replicas_strict":
		key, n, err := keyAndK()
		if err != nil {
			return out, err
		}
		out.list, err = p.ReplicasStrict(key, n)
		return out, err
	case "score":
		key, err := placementKey()
		if err != nil {
			return out, err
		}
		id, err := a.text("node")
		if err != nil {
			return out, err
		}
		sc, err := p.Score(key, id)
		if err == nil {
			out.score = &sc
		}
		return out, err
	case "owners", "rank_many":
		if err := need(); err != nil {
			return out, err
		}
		kv, ok, err := a.get("keys")
		if err != nil || !ok {
			return out, fmt.Errorf("keys missing: %v", err)
		}
		keys, err := kv.asTexts()
		if err != nil {
			return out, err
		}
		if c.Op == "owners" {
			out.list, err = p.Owners(keys)
			return out, err
		}
		n, err := k()
		if err != nil {
			return out, err
		}
		out.rows, err = p.RankMany(keys, n)
		return out, err
	case "with_node":
		if err := need(); err != nil {
			return out, err
		}
		id, err := a.text("node")
		if err != nil {
			return out, err
		}
		n := hrwhash.Node{ID: id}
		if v, ok, err := a.get("weight"); err != nil {
			return out, err
		} else if ok {
			w, err := v.asFloat()
			if err != nil {
				return out, err
			}
			n.Weight = hrwhash.Weight(w)
		}
		if v, ok, err := a.get("domain"); err != nil {
			return out, err
		} else if ok {
			if n.Domain, err = v.asText(); err != nil {
				return out, err
			}
			n.HasDomain = true
		}
		out.placement, err = p.WithNode(n)
		return out, err
	case "without_node", "with_weight":
		if err := need(); err != nil {
			return out, err
		}
		id, err := a.text("node")
		if err != nil {
			return out, err
		}
		if c.Op == "without_node" {
			out.placement, err = p.WithoutNode(id)
			return out, err
		}
		v, _, err := a.get("weight")
		if err != nil {
			return out, err
		}
		w, err := v.asFloat()
		if err != nil {
			return out, err
		}
		out.placement, err = p.WithWeight(id, w)
		return out, err
	case "set_weight":
		// A reweight in place: the id, then the number as a weight (SLOT-HISTORY.md 7).
		if err := need(); err != nil {
			return out, err
		}
		id, err := a.text("node")
		if err != nil {
			return out, err
		}
		v, _, err := a.get("weight")
		if err != nil {
			return out, err
		}
		w, err := v.asFloat()
		if err != nil {
			return out, err
		}
		t, err := hrwhash.NewSlotTable(p, 64)
		if err != nil {
			return out, err
		}
		return out, t.SetWeight(id, w)
	case "weight_fixed":
		v, _, err := a.get("weight")
		if err != nil {
			return out, err
		}
		w, err := v.asFloat()
		if err != nil {
			return out, err
		}
		f, err := hrwhash.WeightToFixed(w)
		out.fixed = &f
		return out, err
	case "key_digest", "node_digest":
		_, seed, err := seedOption(a)
		if err != nil {
			return out, err
		}
		if seed == nil {
			d := hrwhash.DefaultSeed()
			seed = &d
		}
		name := "key"
		if c.Op == "node_digest" {
			name = "node"
		}
		s, err := a.text(name)
		if err != nil {
			return out, err
		}
		if c.Op == "key_digest" {
			hrwhash.KeyDigest(*seed, s)
		} else {
			hrwhash.NodeDigest(*seed, s)
		}
		return out, nil
	}
	return out, fmt.Errorf("unknown op %q", c.Op)
}

// The sentinel of each error name of the conformance files (api-cases.json and the vectors).
var variants = map[string]error{
	"EmptyMembership":     hrwhash.ErrEmptyMembership,
	"EmptyNodeId":         hrwhash.ErrEmptyNodeID,
	"DuplicateNodeId":     hrwhash.ErrDuplicateNodeID,
	"InvalidWeight":       hrwhash.ErrInvalidWeight,
	"AllWeightsZero":      hrwhash.ErrAllWeightsZero,
	"InvalidSeedLength":   hrwhash.ErrInvalidSeedLength,
	"LengthMismatch":      hrwhash.ErrLengthMismatch,
	"UnknownNode":         hrwhash.ErrUnknownNode,
	"InvalidText":         hrwhash.ErrInvalidText,
	"InvalidCount":        hrwhash.ErrInvalidCount,
	"ResultTooLarge":      hrwhash.ErrResultTooLarge,
	"TooManyNodes":        hrwhash.ErrTooManyNodes,
	"InvalidReplicaCount": hrwhash.ErrInvalidReplicaCount,
	// Go has no InvalidArgument: its types rule out every such input (API.md section 1).
}

func checkError(c *apiCase, err error) error {
	want, ok := variants[c.Error]
	if !ok {
		return fmt.Errorf("variant %q has no Go error", c.Error)
	}
	var e *hrwhash.Error
	if !errors.Is(err, want) || !errors.As(err, &e) {
		return fmt.Errorf("got %v, want %s", err, c.Error)
	}
	if e.Code.String() != c.Error {
		return fmt.Errorf("code %s, want %s", e.Code, c.Error)
	}
	details := []struct {
		name       string
		want       *int
		got        int
		meaningful bool
	}{
		{"index", c.Index, e.Index, true},
		{"first_index", c.FirstIndex, e.FirstIndex, true},
		{"expected", c.Expected, e.Expected, true},
		{"actual", c.Actual, e.Actual, true},
	}
	for _, d := range details {
		if d.want != nil && *d.want != d.got {
			return fmt.Errorf("%s: %s = %d, want %d", c.Error, d.name, d.got, *d.want)
		}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "hrwhash: ") {
		return fmt.Errorf("message %q does not start with the package name", msg)
	}
	if c.Index != nil && !strings.Contains(msg, "index "+strconv.Itoa(*c.Index)) && !strings.Contains(msg, "node "+strconv.Itoa(*c.Index)) {
		return fmt.Errorf("message %q does not name position %d", msg, *c.Index)
	}
	return nil
}

func checkResult(c *apiCase, out outcome) error {
	for name, raw := range c.Result {
		var err error
		switch name {
		case "ok":
			var ok bool
			if err = json.Unmarshal(raw, &ok); err == nil && !ok {
				err = fmt.Errorf("result ok: false is not a result")
			}
		case "len":
			var n int
			if err = json.Unmarshal(raw, &n); err == nil {
				got := len(out.list)
				if out.rows != nil {
					got = len(out.rows)
				}
				if got != n {
					err = fmt.Errorf("length %d, want %d", got, n)
				}
			}
		case "row_len":
			var n int
			if err = json.Unmarshal(raw, &n); err == nil {
				for i, r := range out.rows {
					if len(r) != n {
						err = fmt.Errorf("row %d has %d ids, want %d", i, len(r), n)
						break
					}
				}
			}
		case "selectable":
			var n int
			if err = json.Unmarshal(raw, &n); err == nil && out.placement.SelectableLen() != n {
				err = fmt.Errorf("%d selectable, want %d", out.placement.SelectableLen(), n)
			}
		case "weights":
			var ws []float64
			if err = json.Unmarshal(raw, &ws); err == nil {
				if out.placement.Len() != len(ws) {
					err = fmt.Errorf("%d nodes, want %d", out.placement.Len(), len(ws))
					break
				}
				for i, w := range ws {
					n, _ := out.placement.Node(i)
					if n.Weight == nil || *n.Weight != w {
						err = fmt.Errorf("node %d weighs %v, want %v", i, n.Weight, w)
					}
				}
			}
		case "owner_of_every_key":
			var id string
			if err = json.Unmarshal(raw, &id); err == nil {
				for i := 0; i < 64; i++ {
					if got := out.placement.OwnerID(strconv.Itoa(i)); got != id {
						err = fmt.Errorf("owner of %d is %q, want %q", i, got, id)
						break
					}
				}
			}
		case "fixed":
			var s string
			if err = json.Unmarshal(raw, &s); err == nil && (out.fixed == nil || strconv.FormatUint(*out.fixed, 10) != s) {
				err = fmt.Errorf("fixed %v, want %s", out.fixed, s)
			}
		case "score":
			var s string
			if err = json.Unmarshal(raw, &s); err == nil && (out.score == nil || strconv.FormatUint(*out.score, 10) != s) {
				err = fmt.Errorf("score %v, want %s", out.score, s)
			}
		case "default_seed":
			err = cannotPose{"a check of the default seed"}
		default:
			err = fmt.Errorf("unknown result key %q", name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func TestAPICases(t *testing.T) { eachLookupMode(t, testAPICases) }

func testAPICases(t *testing.T) {
	var f apiFile
	readConformance(t, &f, "api-cases.json")
	if f.Version != "hrwhash-api-v1" {
		t.Fatalf("version %q", f.Version)
	}
	known := map[string]bool{}
	for _, l := range f.Languages {
		known[l] = true
	}
	if !known[language] {
		t.Fatalf("languages %v do not include %s", f.Languages, language)
	}
	var offList []string
	if err := json.Unmarshal(f.NotOffered[language], &offList); err != nil {
		t.Fatalf("not_offered.%s: %v", language, err)
	}
	notOffered := map[string]bool{}
	for _, op := range offList {
		if _, ok := f.Ops[op]; !ok {
			t.Errorf("not_offered.%s names unknown op %q", language, op)
		}
		notOffered[op] = true
	}
	ran, inexpressible, unoffered := 0, 0, 0
	var unofferedNames []string
	for i := range f.Cases {
		c := &f.Cases[i]
		for l := range c.NotExpressible {
			if !known[l] {
				t.Errorf("%s: unknown language %q in not_expressible", c.Name, l)
			}
		}
		if _, ok := f.Ops[c.Op]; !ok {
			t.Errorf("%s: unknown op %q", c.Name, c.Op)
			continue
		}
		if _, ok := c.NotExpressible[language]; ok {
			inexpressible++
			continue
		}
		if notOffered[c.Op] {
			unoffered++
			unofferedNames = append(unofferedNames, c.Name)
			continue
		}
		if (c.Error == "") == (c.Result == nil) {
			t.Errorf("%s: a case has either error or result", c.Name)
			continue
		}
		ran++
		out, err := run(c)
		var cp cannotPose
		if errors.As(err, &cp) {
			t.Errorf("%s: %v, and the case is not marked not_expressible for %s", c.Name, cp, language)
			continue
		}
		if c.Error != "" {
			if err := checkError(c, err); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if err := checkResult(c, out); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	t.Logf("api-cases.json (%s build): ran %d cases, %d not expressible in Go, %d of ops Go does not offer %v",
		hrwhash.Backend, ran, inexpressible, unoffered, unofferedNames)
	if ran == 0 {
		t.Fatal("no case ran")
	}
}
