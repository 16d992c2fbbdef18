// Package redisring plugs hrwhash into go-redis v9 Ring:
//
//	ring := redis.NewRing(&redis.RingOptions{
//		Addrs:             addrs,
//		NewConsistentHash: redisring.NewConsistentHash,
//	})
//
// Keys then live on the shard that hrwhash names in every language, so a Python, Node, C or C++
// process can find the same key without going through Ring.
package redisring

import (
	"sort"

	"github.com/redis/go-redis/v9"

	"github.com/hrwhash/hrwhash/go"
)

// Hash is a redis.ConsistentHash over shard names.
type Hash struct {
	placement *hrwhash.Placement
	shards    []string
}

var _ redis.ConsistentHash = (*Hash)(nil)

// NewConsistentHash is a RingOptions.NewConsistentHash. Ring calls it after every change of
// shard health with the live shards in map order, so the shards are sorted first: the answer for
// a key depends only on the set of shards, never on their order.
func NewConsistentHash(shards []string) redis.ConsistentHash {
	h, err := New(shards)
	if err != nil {
		// Ring asks for a hash over no shards when all are down; it treats "" as "no shard".
		return &Hash{}
	}
	return h
}

// New is NewConsistentHash with the build error (an empty or duplicate shard name) returned.
func New(shards []string) (*Hash, error) {
	sorted := append([]string(nil), shards...)
	sort.Strings(sorted)
	p, err := hrwhash.New(sorted...)
	if err != nil {
		return nil, err
	}
	return &Hash{placement: p, shards: sorted}, nil
}

// Get returns the shard that owns key, or "" when there is no shard.
func (h *Hash) Get(key string) string {
	if h.placement == nil {
		return ""
	}
	return h.shards[h.placement.Owner(key)]
}

// Placement is the placement behind the hash (shard names in sorted order).
func (h *Hash) Placement() *hrwhash.Placement { return h.placement }
