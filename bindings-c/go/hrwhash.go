// Package hrwhash answers "which node owns this key?" with rendezvous (highest-random-weight)
// hashing, algorithm hrw-v1, identically to the Rust, Python, Node, C and C++ bindings.
//
// It links libhrwhash through cgo and pkg-config (`pkg-config --cflags --libs hrwhash` must
// work). A Placement is immutable and safe for concurrent use; node ids and keys are Go strings
// holding arbitrary bytes.
package hrwhash

/*
#cgo pkg-config: hrwhash
#include <stdlib.h>
#include <string.h>
#include <hrwhash.h>

// Returning the index by value keeps the out-param off the Go heap: a pointer to a Go local
// passed to C would make it escape and cost an allocation per lookup.
typedef struct { size_t index; hrw_status status; } hrw_go_owner_result;

static inline hrw_go_owner_result hrw_go_owner(const hrw_placement *p, const uint8_t *key, size_t len) {
	hrw_go_owner_result r = {0, 0};
	r.status = hrw_placement_owner(p, key, len, &r.index);
	return r;
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Algorithm is the tag of the hash: placements agree across languages when their tags agree.
const Algorithm = "hrw-v1"

// Version is the version of the linked libhrwhash.
func Version() string { return C.GoString(C.hrw_version()) }

// Placement is an immutable set of nodes. Lookups return node indices in the order the nodes were
// given. The C handle is released when the Placement is garbage collected.
type Placement struct {
	h *C.hrw_placement
}

// Node describes one node for NewNodes.
type Node struct {
	ID string
	// Weight is the node's relative share of keys; 0 keeps it in the membership without ever
	// selecting it. Use 1 for an ordinary node.
	Weight float64
	// Domain is the failure domain (rack, zone, host); replicas avoid sharing one. Ignored unless
	// HasDomain is set, so that the empty string can be a domain too.
	Domain    string
	HasDomain bool
}

// Option configures NewNodes.
type Option func(*config)

type config struct {
	seed    []byte
	hasSeed bool
}

// WithSeed sets the 16-byte seed (placements with different seeds are independent).
func WithSeed(seed []byte) Option {
	return func(c *config) {
		c.seed = seed
		c.hasSeed = true
	}
}

// New builds an unweighted placement over ids with the default seed.
func New(ids ...string) (*Placement, error) {
	nodes := make([]Node, len(ids))
	for i, id := range ids {
		nodes[i] = Node{ID: id, Weight: 1}
	}
	return NewNodes(nodes)
}

// NewWeighted builds a placement where ids[i] has weights[i].
func NewWeighted(ids []string, weights []float64) (*Placement, error) {
	if len(weights) != len(ids) {
		return nil, &Error{Code: CodeLengthMismatch, Expected: len(ids), Actual: len(weights)}
	}
	nodes := make([]Node, len(ids))
	for i, id := range ids {
		nodes[i] = Node{ID: id, Weight: weights[i]}
	}
	return NewNodes(nodes)
}

// NewNodes builds a placement from node descriptions.
func NewNodes(nodes []Node, opts ...Option) (*Placement, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	// Every byte the C call reads lives in C memory: cgo forbids passing Go memory that itself
	// holds Go pointers (the id pointers inside hrw_node).
	total := 0
	for _, n := range nodes {
		total += len(n.ID) + len(n.Domain)
	}
	count := len(nodes)
	nodeSize := C.size_t(unsafe.Sizeof(C.hrw_node{}))
	cNodes := (*C.hrw_node)(C.calloc(C.size_t(max(count, 1)), nodeSize))
	weights := (*C.double)(C.calloc(C.size_t(max(count, 1)), C.size_t(unsafe.Sizeof(C.double(0)))))
	data := (*C.uint8_t)(C.malloc(C.size_t(total + len(cfg.seed) + 1)))
	defer C.free(unsafe.Pointer(cNodes))
	defer C.free(unsafe.Pointer(weights))
	defer C.free(unsafe.Pointer(data))
	nodeSlice := unsafe.Slice(cNodes, max(count, 1))
	weightSlice := unsafe.Slice(weights, max(count, 1))
	buf := unsafe.Slice((*byte)(unsafe.Pointer(data)), total+len(cfg.seed)+1)
	off := 0
	put := func(s string) *C.uint8_t {
		p := (*C.uint8_t)(unsafe.Pointer(&buf[off]))
		off += copy(buf[off:], s)
		return p
	}
	for i, n := range nodes {
		nodeSlice[i].id = put(n.ID)
		nodeSlice[i].id_len = C.size_t(len(n.ID))
		if n.HasDomain {
			nodeSlice[i].domain = put(n.Domain)
			nodeSlice[i].domain_len = C.size_t(len(n.Domain))
		}
		weightSlice[i] = C.double(n.Weight)
	}
	var options C.hrw_placement_options
	options.weights = weights
	options.weights_len = C.size_t(count)
	if cfg.hasSeed {
		options.seed = put(string(cfg.seed))
		options.seed_len = C.size_t(len(cfg.seed))
	}
	var h *C.hrw_placement
	var detail C.hrw_error
	st := C.hrw_placement_new(cNodes, C.size_t(count), &options, &h, &detail)
	if st != C.HRW_STATUS_OK {
		return nil, errorFromDetail(st, &detail)
	}
	return wrap(h), nil
}

func wrap(h *C.hrw_placement) *Placement {
	p := &Placement{h: h}
	runtime.SetFinalizer(p, func(p *Placement) { C.hrw_placement_free(p.h) })
	return p
}

// handle returns the C handle, or an error for a Placement not made by a constructor.
func (p *Placement) handle() (*C.hrw_placement, error) {
	if p == nil || p.h == nil {
		return nil, &Error{Code: CodeNullParameter}
	}
	return p.h, nil
}

func keyPtr(key string) *C.uint8_t {
	return (*C.uint8_t)(unsafe.Pointer(unsafe.StringData(key)))
}

// Owner returns the index of the node that owns key.
func (p *Placement) Owner(key string) (int, error) {
	h, err := p.handle()
	if err != nil {
		return 0, err
	}
	r := C.hrw_go_owner(h, keyPtr(key), C.size_t(len(key)))
	runtime.KeepAlive(p)
	if r.status != C.HRW_STATUS_OK {
		return 0, errorFromStatus(r.status)
	}
	return int(r.index), nil
}

// OwnerID returns the id of the node that owns key.
func (p *Placement) OwnerID(key string) (string, error) {
	idx, err := p.Owner(key)
	if err != nil {
		return "", err
	}
	return p.NodeID(idx)
}

// Owners returns the owner of every key, in one call into the library.
func (p *Placement) Owners(keys []string) ([]int, error) {
	out := make([]int, len(keys))
	if err := p.OwnersInto(keys, out); err != nil {
		return nil, err
	}
	return out, nil
}

// OwnersInto writes the owner of keys[i] into out[i]; out must be at least as long as keys.
func (p *Placement) OwnersInto(keys []string, out []int) error {
	h, err := p.handle()
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	joined := make([]byte, 0, total+1)
	lens := make([]int, len(keys))
	for i, k := range keys {
		joined = append(joined, k...)
		lens[i] = len(k)
	}
	joined = append(joined, 0) // keeps &joined[0] valid when every key is empty
	// A Go int has the size of a C size_t on every platform Go supports.
	st := C.hrw_placement_owners(h, (*C.uint8_t)(unsafe.Pointer(&joined[0])), C.size_t(total),
		(*C.size_t)(unsafe.Pointer(&lens[0])), C.size_t(len(keys)),
		(*C.size_t)(unsafe.Pointer(unsafe.SliceData(out))), C.size_t(len(out)))
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return errorFromStatus(st)
	}
	return nil
}

type topFunc func(*C.hrw_placement, *C.uint8_t, C.size_t, C.size_t, *C.size_t, C.size_t, *C.size_t) C.hrw_status

func (p *Placement) top(key string, k int, fill topFunc) ([]int, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &Error{Code: CodeBufferTooSmall}
	}
	var sel C.size_t
	C.hrw_placement_selectable_len(h, &sel)
	out := make([]int, min(k, int(sel))+1)
	var n C.size_t
	st := fill(h, keyPtr(key), C.size_t(len(key)), C.size_t(k),
		(*C.size_t)(unsafe.Pointer(&out[0])), C.size_t(len(out)), &n)
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return nil, errorFromStatus(st)
	}
	return out[:n], nil
}

// Rank returns the first k nodes of the ranking of key, owner first (fewer when fewer nodes can
// be selected).
func (p *Placement) Rank(key string, k int) ([]int, error) {
	return p.top(key, k, func(h *C.hrw_placement, key *C.uint8_t, kl C.size_t, k C.size_t, out *C.size_t, ol C.size_t, n *C.size_t) C.hrw_status {
		return C.hrw_placement_rank(h, key, kl, k, out, ol, n)
	})
}

// Replicas returns up to k nodes for replicas of key, spread over failure domains.
func (p *Placement) Replicas(key string, k int) ([]int, error) {
	return p.top(key, k, func(h *C.hrw_placement, key *C.uint8_t, kl C.size_t, k C.size_t, out *C.size_t, ol C.size_t, n *C.size_t) C.hrw_status {
		return C.hrw_placement_replicas(h, key, kl, k, out, ol, n)
	})
}

// Len returns the number of nodes, including those of weight zero.
func (p *Placement) Len() int {
	h, err := p.handle()
	if err != nil {
		return 0
	}
	var n C.size_t
	C.hrw_placement_len(h, &n)
	runtime.KeepAlive(p)
	return int(n)
}

// NodeID returns the id of node index.
func (p *Placement) NodeID(index int) (string, error) {
	h, err := p.handle()
	if err != nil {
		return "", err
	}
	if index < 0 {
		return "", &Error{Code: CodeIndexOutOfRange}
	}
	var id *C.uint8_t
	var n C.size_t
	st := C.hrw_placement_node_id(h, C.size_t(index), &id, &n)
	var s string
	if st == C.HRW_STATUS_OK {
		s = C.GoStringN((*C.char)(unsafe.Pointer(id)), C.int(n))
	}
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return "", errorFromStatus(st)
	}
	return s, nil
}

// Find returns the index of the node with this id.
func (p *Placement) Find(id string) (int, bool) {
	h, err := p.handle()
	if err != nil {
		return 0, false
	}
	var idx C.size_t
	st := C.hrw_placement_find(h, keyPtr(id), C.size_t(len(id)), &idx)
	runtime.KeepAlive(p)
	return int(idx), st == C.HRW_STATUS_OK
}

// Score returns the hrw-v1 score of key for node index.
func (p *Placement) Score(key string, index int) (uint64, error) {
	h, err := p.handle()
	if err != nil {
		return 0, err
	}
	if index < 0 {
		return 0, &Error{Code: CodeIndexOutOfRange}
	}
	var s C.uint64_t
	st := C.hrw_placement_score(h, keyPtr(key), C.size_t(len(key)), C.size_t(index), &s)
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return 0, errorFromStatus(st)
	}
	return uint64(s), nil
}

// WithoutNode returns a placement without the node of this id; later indices shift down by one.
func (p *Placement) WithoutNode(id string) (*Placement, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	var out *C.hrw_placement
	st := C.hrw_placement_without_node(h, keyPtr(id), C.size_t(len(id)), &out, nil)
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return nil, errorFromStatus(st)
	}
	return wrap(out), nil
}

// WithWeight returns a placement where the node of this id has another weight.
func (p *Placement) WithWeight(id string, weight float64) (*Placement, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	var out *C.hrw_placement
	st := C.hrw_placement_with_weight(h, keyPtr(id), C.size_t(len(id)), C.double(weight), &out, nil)
	runtime.KeepAlive(p)
	if st != C.HRW_STATUS_OK {
		return nil, errorFromStatus(st)
	}
	return wrap(out), nil
}

// WeightToFixed returns the fixed-point form of a weight, round_half_even(w * 2^32).
func WeightToFixed(w float64) (uint64, error) {
	var f C.uint64_t
	if st := C.hrw_weight_to_fixed(C.double(w), &f, nil); st != C.HRW_STATUS_OK {
		return 0, errorFromStatus(st)
	}
	return uint64(f), nil
}

// KeyDigest returns the hrw-v1 digest of key under seed (nil: the default seed).
func KeyDigest(key string, seed []byte) (uint64, error) {
	var d C.uint64_t
	var sp *C.uint8_t
	if seed != nil {
		buf := append(append([]byte(nil), seed...), 0)
		sp = (*C.uint8_t)(unsafe.Pointer(&buf[0]))
	}
	st := C.hrw_key_digest(sp, C.size_t(len(seed)), keyPtr(key), C.size_t(len(key)), &d, nil)
	if st != C.HRW_STATUS_OK {
		return 0, errorFromStatus(st)
	}
	return uint64(d), nil
}

// Draw returns the hrw-v1 draw of a score.
func Draw(score uint64) uint64 {
	var d C.uint64_t
	C.hrw_draw(C.uint64_t(score), &d)
	return uint64(d)
}
