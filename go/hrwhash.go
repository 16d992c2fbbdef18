// Package hrwhash answers "which node owns this key?" with rendezvous (highest-random-weight)
// hashing, algorithm hrw-v1, identically to the Rust, Python, Node, C and C++ bindings.
//
// By default the package is Go alone: hrw-v1, views and the policies written from the
// specification, with nothing to install and no C toolchain needed. With cgo enabled and the
// build tag hrwhash_cgo, lookups of large memberships (and longer rankings) run in libhrwhash's
// SIMD kernels instead, linked through pkg-config (`pkg-config --cflags --libs hrwhash` must
// work). Both builds export the same API and give the same answers and the same errors for
// every input; [Backend] says which one a program was built with.
//
// A Placement is immutable and safe for concurrent use; node ids and keys are Go strings holding
// arbitrary bytes.
package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/hrw"

// Algorithm is the tag of the hash: placements agree across languages when their tags agree.
const Algorithm = "hrw-v1"

// SeedLen is the length of a seed in bytes.
const SeedLen = 16

// Seed is the 128-bit SipHash key of hrw-v1. Placements with different seeds are independent;
// use a secret seed when untrusted parties choose keys.
type Seed [SeedLen]byte

// DefaultSeed is the public default seed, the ASCII bytes "hrwhash-v1-seed.".
func DefaultSeed() Seed { return Seed(hrw.DefaultSeed) }

// SeedFromBytes makes a Seed of b, which must hold exactly 16 bytes.
func SeedFromBytes(b []byte) (Seed, error) {
	var s Seed
	if len(b) != SeedLen {
		return s, &Error{Code: CodeInvalidSeedLength, Expected: SeedLen, Actual: len(b)}
	}
	copy(s[:], b)
	return s, nil
}

// String never shows the bytes of a seed that is not the default one: seeds are secrets.
func (s Seed) String() string {
	if s == DefaultSeed() {
		return "hrwhash.DefaultSeed()"
	}
	return "hrwhash.Seed(<custom>)"
}

// GoString is String, so that %#v does not show a secret seed either.
func (s Seed) GoString() string { return s.String() }

// Node describes one node for NewNodes and WithNode.
type Node struct {
	ID string
	// Weight is the node's relative share of keys. nil, the zero value, means 1, as in every
	// other language; hrwhash.Weight(0) drains the node (it stays in the membership and is
	// never selected). A pointer, so that a forgotten field cannot silently mean 0.
	Weight *float64
	// Domain is the failure domain (rack, zone, host); replicas avoid sharing one. A node has a
	// domain when Domain is not empty or HasDomain is set (the empty string is then a domain
	// too); otherwise it is a domain of its own.
	Domain    string
	HasDomain bool
}

// Weight returns a pointer to w, for Node.Weight: Node{ID: "big", Weight: hrwhash.Weight(4)}.
func Weight(w float64) *float64 { return &w }

// node is a Node with its weight resolved.
type node struct {
	id        string
	weight    float64
	domain    string
	hasDomain bool
}

func resolve(n Node) node {
	r := node{id: n.ID, weight: 1, domain: n.Domain, hasDomain: n.HasDomain || n.Domain != ""}
	if n.Weight != nil {
		r.weight = *n.Weight
	}
	return r
}

func (n node) public() Node {
	return Node{ID: n.id, Weight: Weight(n.weight), Domain: n.domain, HasDomain: n.hasDomain}
}

// Option configures NewNodes.
type Option func(*config)

type config struct {
	seed Seed
}

// WithSeed sets the seed (the default is DefaultSeed()).
func WithSeed(seed Seed) Option {
	return func(c *config) { c.seed = seed }
}

// Placement is an immutable set of nodes. Lookups return node indices in the order the nodes were
// given. The zero Placement is not usable: its methods return ErrNullParameter.
type Placement struct {
	b          *backend
	nodes      []node
	seed       Seed
	selectable int
	// domains counts the failure domains holding a node of weight above zero (a node without a
	// domain is one of its own), for ReplicasStrict.
	domains int
}

// New builds an unweighted placement over ids with the default seed.
func New(ids ...string) (*Placement, error) {
	nodes := make([]node, len(ids))
	for i, id := range ids {
		nodes[i] = node{id: id, weight: 1}
	}
	return build(DefaultSeed(), nodes)
}

// NewWeighted builds a placement where ids[i] has weights[i] (0 drains a node).
func NewWeighted(ids []string, weights []float64) (*Placement, error) {
	if len(weights) != len(ids) {
		return nil, &Error{Code: CodeLengthMismatch, Expected: len(ids), Actual: len(weights)}
	}
	nodes := make([]node, len(ids))
	for i, id := range ids {
		nodes[i] = node{id: id, weight: weights[i]}
	}
	return build(DefaultSeed(), nodes)
}

// NewNodes builds a placement from node descriptions.
func NewNodes(nodes []Node, opts ...Option) (*Placement, error) {
	cfg := config{seed: DefaultSeed()}
	for _, o := range opts {
		o(&cfg)
	}
	resolved := make([]node, len(nodes))
	for i, n := range nodes {
		resolved[i] = resolve(n)
	}
	return build(cfg.seed, resolved)
}

func build(seed Seed, nodes []node) (*Placement, error) {
	b, selectable, err := newBackend(seed, nodes)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code == CodeDuplicateNodeID && e.Index < len(nodes) {
			e.ID = nodes[e.Index].id
		}
		return nil, err
	}
	return &Placement{b: b, nodes: nodes, seed: seed, selectable: selectable, domains: domainCount(nodes)}, nil
}

func domainCount(nodes []node) int {
	named := map[string]bool{}
	n := 0
	for _, nd := range nodes {
		switch {
		case nd.weight <= 0:
		case !nd.hasDomain:
			n++
		case !named[nd.domain]:
			named[nd.domain] = true
			n++
		}
	}
	return n
}

// mustUse panics with err, the misuse of a value that was never built (or, from libhrwhash, a
// failure a built value cannot have), where a lookup has no error to return.
func mustUse(err error) {
	if err != nil {
		panic(err)
	}
}

// builtIf is nil for a usable handle (ok), else ErrNullParameter: a nil handle, or a zero value
// that its constructor did not make.
func builtIf(ok bool) error {
	if ok {
		return nil
	}
	return &Error{Code: CodeNullParameter}
}

func (p *Placement) usable() error { return builtIf(p != nil && p.b != nil) }

// Owner returns the index of the node that owns key. A built placement always has one, so
// there is no error; a nil or zero Placement (not made by New, NewNodes, ...) panics with
// ErrNullParameter.
func (p *Placement) Owner(key string) int {
	mustUse(p.usable())
	return p.b.owner(key)
}

// OwnerID returns the id of the node that owns key (it panics as Owner does).
func (p *Placement) OwnerID(key string) string { return p.nodes[p.Owner(key)].id }

// Owners returns the owner of every key (in the hrwhash_cgo build, in one call into the library).
func (p *Placement) Owners(keys []string) ([]int, error) {
	return intoNew(keys, p.OwnersInto)
}

// intoNew is the allocating form of a batch call that writes one int per key into a
// caller's slice (into): a new slice of len(keys), or nil with into's error.
func intoNew(keys []string, into func(keys []string, out []int) error) ([]int, error) {
	out := make([]int, len(keys))
	if err := into(keys, out); err != nil {
		return nil, err
	}
	return out, nil
}

// OwnersInto writes the owner of keys[i] into out[i]; out must be at least as long as keys.
func (p *Placement) OwnersInto(keys []string, out []int) error {
	if err := p.usable(); err != nil {
		return err
	}
	if len(out) < len(keys) {
		return &Error{Code: CodeBufferTooSmall, Expected: len(keys), Actual: len(out)}
	}
	if len(keys) == 0 {
		return nil
	}
	return p.b.ownersInto(keys, out[:len(keys)])
}

// answerLen is how many nodes a ranking of k holds, or ErrInvalidCount for a negative k.
func (p *Placement) answerLen(k int) (int, error) {
	if k < 0 {
		return 0, &Error{Code: CodeInvalidCount, Count: k}
	}
	return min(k, p.selectable), nil
}

// Rank returns the first k nodes of the ranking of key, owner first (all selectable nodes when
// k exceeds their number). A negative k is ErrInvalidCount.
func (p *Placement) Rank(key string, k int) ([]int, error) {
	return p.answer(key, k, (*backend).rankInto)
}

// answer is the answer to key of the length answerLen(k) gives, as fill writes it.
func (p *Placement) answer(key string, k int, fill func(*backend, string, []int) error) ([]int, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	n, err := p.answerLen(k)
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	if err := fill(p.b, key, out); err != nil {
		return nil, err
	}
	return out, nil
}

// RankInto writes the first len(out) nodes of the ranking of key into out, owner first, and
// returns how many it wrote, n = min(len(out), SelectableLen()): out[:n] is Rank(key, len(out)),
// and out[n:] is left as it was. It allocates nothing (in the hrwhash_cgo build with a Go
// toolchain whose cgo calls allocate, 1.21, a ranking that crosses into libhrwhash costs what
// Owner's call does), so a caller that reuses out makes no garbage; an empty out gets 0 nodes.
// It cannot fail, so there is no error; a nil or zero Placement panics as Owner does.
func (p *Placement) RankInto(key string, out []int) int {
	mustUse(p.usable())
	n := min(len(out), p.selectable)
	if n == 0 {
		return 0
	}
	mustUse(p.b.rankInto(key, out[:n]))
	return n
}

// Replicas returns up to k nodes for replicas of key, spread over failure domains. A negative k
// is ErrInvalidCount. When fewer than k domains hold a node of weight above zero, some domain
// holds two of the replicas; ReplicasStrict refuses instead.
func (p *Placement) Replicas(key string, k int) ([]int, error) {
	return p.answer(key, k, (*backend).replicasInto)
}

// ReplicasStrict returns Replicas(key, k) in k distinct failure domains, or
// ErrInvalidReplicaCount (Count: k, Expected: the number of domains) when fewer than k domains
// hold a node of weight above zero. A negative k is ErrInvalidCount.
func (p *Placement) ReplicasStrict(key string, k int) ([]int, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: k}
	}
	if k > p.domains {
		return nil, &Error{Code: CodeInvalidReplicaCount, Count: k, Expected: p.domains}
	}
	return p.Replicas(key, k)
}

// maxResult bounds a batch answer, as in every language: 2^32 - 1 ids, far more than fit in
// memory as ints.
const maxResult uint64 = 1<<32 - 1

// RankMany returns Rank(keys[i], k) for every key. Every row has the same length, min(k, the
// number of selectable nodes), and all rows share one allocation. A negative k is
// ErrInvalidCount; an answer of more than 2^32 - 1 ids is ErrResultTooLarge, before anything is
// allocated.
func (p *Placement) RankMany(keys []string, k int) ([][]int, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	row, err := p.answerLen(k)
	if err != nil {
		return nil, err
	}
	if row > 0 && uint64(len(keys)) > maxResult/uint64(row) {
		return nil, &Error{Code: CodeResultTooLarge, Count: k, Actual: len(keys)}
	}
	flat := make([]int, len(keys)*row)
	rows := make([][]int, len(keys))
	for i, key := range keys {
		rows[i] = flat[i*row : (i+1)*row : (i+1)*row]
		if err := p.b.rankInto(key, rows[i]); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// Len returns the number of nodes, including those of weight zero.
func (p *Placement) Len() int {
	if p.usable() != nil {
		return 0
	}
	return len(p.nodes)
}

// SelectableLen returns the number of nodes that can be selected (weight above zero).
func (p *Placement) SelectableLen() int {
	if p.usable() != nil {
		return 0
	}
	return p.selectable
}

// Seed returns the placement's seed.
func (p *Placement) Seed() Seed {
	if p.usable() != nil {
		return Seed{}
	}
	return p.seed
}

func (p *Placement) checkIndex(index int) error {
	if err := p.usable(); err != nil {
		return err
	}
	if index < 0 || index >= len(p.nodes) {
		return &Error{Code: CodeIndexOutOfRange, Index: index, Expected: len(p.nodes)}
	}
	return nil
}

// NodeID returns the id of node index.
func (p *Placement) NodeID(index int) (string, error) {
	if err := p.checkIndex(index); err != nil {
		return "", err
	}
	return p.nodes[index].id, nil
}

// Node returns the description of node index, with its weight always set.
func (p *Placement) Node(index int) (Node, error) {
	if err := p.checkIndex(index); err != nil {
		return Node{}, err
	}
	return p.nodes[index].public(), nil
}

// Find returns the index of the node with this id.
func (p *Placement) Find(id string) (int, bool) {
	if p.usable() != nil {
		return 0, false
	}
	return p.b.find(id)
}

// Score returns the hrw-v1 score of key for the node of this id (ErrUnknownNode when there is
// none). It takes the id, as in every language: ids are what callers hold, and a canonical view
// orders nodes by id, so an index names different nodes in the two orders.
func (p *Placement) Score(key, id string) (uint64, error) {
	i, err := p.index(id)
	if err != nil {
		return 0, err
	}
	return p.b.score(key, id, i)
}

func (p *Placement) index(id string) (int, error) {
	if err := p.usable(); err != nil {
		return 0, err
	}
	i, ok := p.b.find(id)
	if !ok {
		return 0, &Error{Code: CodeUnknownNode, ID: id}
	}
	return i, nil
}

// WithNode returns a placement with one more node, appended: it gets index Len(). The errors
// are those of NewNodes, with the new node's Index.
func (p *Placement) WithNode(n Node) (*Placement, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	nodes := make([]node, len(p.nodes), len(p.nodes)+1)
	copy(nodes, p.nodes)
	return build(p.seed, append(nodes, resolve(n)))
}

// WithoutNode returns a placement without the node of this id; later indices shift down by one.
func (p *Placement) WithoutNode(id string) (*Placement, error) {
	i, err := p.index(id)
	if err != nil {
		return nil, err
	}
	nodes := make([]node, 0, len(p.nodes)-1)
	nodes = append(append(nodes, p.nodes[:i]...), p.nodes[i+1:]...)
	return build(p.seed, nodes)
}

// WithWeight returns a placement where the node of this id has another weight (0 drains it).
// An invalid weight is reported with that node's Index.
func (p *Placement) WithWeight(id string, weight float64) (*Placement, error) {
	i, err := p.index(id)
	if err != nil {
		return nil, err
	}
	nodes := make([]node, len(p.nodes))
	copy(nodes, p.nodes)
	nodes[i].weight = weight
	return build(p.seed, nodes)
}

// WeightToFixed returns the fixed-point form of a weight, round_half_even(w * 2^32).
func WeightToFixed(w float64) (uint64, error) {
	f, ok := weightToFixed(w)
	if !ok {
		return 0, &Error{Code: CodeInvalidWeight, Index: -1, Weight: w}
	}
	return f, nil
}

// KeyDigest returns the hrw-v1 digest of key under seed.
func KeyDigest(seed Seed, key string) uint64 { return keyDigest(seed, key) }

// NodeDigest returns the hrw-v1 digest of a node id under seed.
func NodeDigest(seed Seed, id string) uint64 { return nodeDigest(seed, id) }

// Score returns the hrw-v1 score of a key digest for a node digest: what Placement.Score gives
// for a node of weight 1. It is a few arithmetic operations in both builds, so it never crosses
// into libhrwhash.
func Score(keyDigest, nodeDigest uint64) uint64 { return hrw.Score(keyDigest, nodeDigest) }

// Draw returns the hrw-v1 draw of a score.
func Draw(score uint64) uint64 { return draw(score) }
