//go:build !cgo || !hrwhash_cgo

package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/hrw"

// Backend names the implementation this program was built with: "purego" (hrw-v1 in Go) or
// "cgo" (libhrwhash).
const Backend = "purego"

// Version is the version of hrwhash this package implements.
func Version() string { return version }

type backend struct {
	p *hrw.Placement
}

func newBackend(seed Seed, nodes []node) (*backend, int, error) {
	p, err := newGoPlacement(seed, nodes)
	if err != nil {
		return nil, 0, err
	}
	return &backend{p: p}, p.Selectable(), nil
}

func (b *backend) owner(key string) int { return b.p.Owner(key) }

func (b *backend) ownersInto(keys []string, out []int) error {
	for i, k := range keys {
		out[i] = b.p.Owner(k)
	}
	return nil
}

func (b *backend) rankInto(key string, out []int) error {
	b.p.RankInto(key, out)
	return nil
}

func (b *backend) replicasInto(key string, out []int) error {
	b.p.ReplicasInto(key, out)
	return nil
}

// score is given the node both ways; this backend scores by its index.
func (b *backend) score(key, _ string, i int) (uint64, error) { return b.p.Score(key, i), nil }

func (b *backend) find(id string) (int, bool) { return b.p.Find(id) }

func weightToFixed(w float64) (uint64, bool) { return hrw.FixedWeight(w) }

func keyDigest(seed Seed, key string) uint64 { return hrw.KeyDigest([hrw.SeedLen]byte(seed), key) }

func nodeDigest(seed Seed, id string) uint64 { return hrw.NodeDigest([hrw.SeedLen]byte(seed), id) }

func draw(s uint64) uint64 { return hrw.Draw(s) }
