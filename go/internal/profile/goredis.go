package profile

import (
	"bytes"
	"sort"
	"strings"
)

// hashtag is go-redis hashtag.Key: the text between the first '{' and the first '}' after it
// when that text is not empty, the whole key otherwise.
func hashtag(key string) string {
	if s := strings.IndexByte(key, '{'); s > -1 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			return key[s+1 : s+e+1]
		}
	}
	return key
}

func mix64(x uint64) uint64 {
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	return x * 2685821657736338717
}

type goRedis struct {
	// XXH64 of each shard name in bytewise name order, and the caller's position of each: go-redis
	// visits shards in map order, so names whose XXH64 collide would win at random; in name order
	// with a strict > the smallest name wins (PROFILES.md).
	hashes []uint64
	index  []int
}

func newGoRedis(nodes []Node) *goRedis {
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return bytes.Compare([]byte(nodes[order[a]].ID), []byte(nodes[order[b]].ID)) < 0
	})
	g := &goRedis{hashes: make([]uint64, len(nodes)), index: order}
	for i, o := range order {
		g.hashes[i] = xxh64(nodes[o].ID)
	}
	return g
}
