//go:build !cgo || !hrwhash_cgo

package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/profile"

type profileBackend struct {
	p *profile.Placement
}

func newProfileBackend(name string, nodes []node) (*profileBackend, error) {
	p, err := goProfile(name, nodes)
	if err != nil {
		return nil, err
	}
	return &profileBackend{p: p}, nil
}

func (b *profileBackend) owner(key string) int { return b.p.Owner(key) }

func (b *profileBackend) ownersInto(keys []string, out []int) error {
	for i, k := range keys {
		out[i] = b.p.Owner(k)
	}
	return nil
}

func (b *profileBackend) replicas(key string, k int) ([]int, error) {
	if !b.p.OffersReplicas() {
		return nil, &Error{Code: CodeNotOffered, What: "top-k replicas (the incumbent has no top-k lookup)"}
	}
	return b.p.Replicas(key, k), nil
}
