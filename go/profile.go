package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/profile"

// Profiles are the names of the compatibility profiles (conformance/PROFILES.md), in its order.
func Profiles() []string { return append([]string(nil), profile.Names...) }

// ProfilePlacement is a membership placed exactly as an incumbent library places it: a
// go-redis v9 Ring ("go-redis-ring-v9"), pymemcache's HashClient ("pymemcache-rendezvous"),
// libmemcached's weighted ketama ("ketama-libmemcached") or the npm hashring package
// ("hashring-node-3"). Lookups return node positions in the order the nodes were given. It is
// immutable and safe for concurrent use. The zero ProfilePlacement is not usable: its methods
// return ErrNullParameter.
type ProfilePlacement struct {
	b       *profileBackend
	profile string
	ids     []string
}

// NewProfilePlacement builds the placement of profile over nodes. Weights are taken where the
// incumbent is weighted (ketama-libmemcached and hashring-node-3: whole numbers from 1);
// elsewhere, and for a domain, a weight 0, a fractional weight or a node id the incumbent
// cannot take, the error is ErrNotOffered. An unknown name is ErrUnknownProfile.
func NewProfilePlacement(profile string, nodes []Node) (*ProfilePlacement, error) {
	resolved := make([]node, len(nodes))
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		resolved[i] = resolve(n)
		ids[i] = n.ID
	}
	b, err := newProfileBackend(profile, resolved)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code == CodeDuplicateNodeID && e.Index < len(nodes) {
			e.ID = nodes[e.Index].ID
		}
		if e, ok := err.(*Error); ok && (e.Code == CodeUnknownProfile || e.Code == CodeNotOffered) {
			e.Profile = profile
		}
		return nil, err
	}
	return &ProfilePlacement{b: b, profile: profile, ids: ids}, nil
}

func (p *ProfilePlacement) usable() error { return builtIf(p != nil && p.b != nil) }

// Profile is the profile's name.
func (p *ProfilePlacement) Profile() string {
	if p == nil {
		return ""
	}
	return p.profile
}

// Len is the number of nodes (0 for an unusable placement).
func (p *ProfilePlacement) Len() int {
	if p == nil {
		return 0
	}
	return len(p.ids)
}

// NodeID is the id of the node at index.
func (p *ProfilePlacement) NodeID(index int) (string, error) {
	if err := p.usable(); err != nil {
		return "", err
	}
	if index < 0 || index >= len(p.ids) {
		return "", &Error{Code: CodeIndexOutOfRange, Index: index, Expected: len(p.ids)}
	}
	return p.ids[index], nil
}

// Owner is the position of the node the incumbent gives key to. It cannot fail; a nil or zero
// ProfilePlacement panics with ErrNullParameter.
func (p *ProfilePlacement) Owner(key string) int {
	mustUse(p.usable())
	return p.b.owner(key)
}

// OwnerID is the id of that node (it panics as Owner does).
func (p *ProfilePlacement) OwnerID(key string) string { return p.ids[p.Owner(key)] }

// Owners are the owners of many keys, in key order.
func (p *ProfilePlacement) Owners(keys []string) ([]int, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	out := make([]int, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if err := p.b.ownersInto(keys, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Replicas is the incumbent's top-k lookup for key: the first k distinct nodes, owner first
// (fewer when fewer nodes are reached). ErrNotOffered where the incumbent has none (only
// hashring-node-3 has one, its range()); ErrInvalidCount for a negative k.
func (p *ProfilePlacement) Replicas(key string, k int) ([]int, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &Error{Code: CodeInvalidCount, Count: k}
	}
	r, err := p.b.replicas(key, min(k, len(p.ids)))
	if e, ok := err.(*Error); ok && e.Code == CodeNotOffered {
		e.Profile = p.profile
	}
	return r, err
}

// goProfile builds the Go implementation of a profile, mapping its errors to this package's.
func goProfile(name string, nodes []node) (*profile.Placement, error) {
	pn := make([]profile.Node, len(nodes))
	for i, n := range nodes {
		pn[i] = profile.Node{ID: n.id, Weight: n.weight, HasDomain: n.hasDomain}
	}
	p, err := profile.New(name, pn)
	if err != nil {
		e, ok := err.(*profile.Error)
		if !ok {
			return nil, &Error{Code: CodeUnknown}
		}
		return nil, &Error{Code: Code(e.Code), Index: e.Index, FirstIndex: e.FirstIndex, Weight: e.Value, What: e.What}
	}
	return p, nil
}
