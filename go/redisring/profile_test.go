package redisring_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hrwhash/hrwhash/go"
)

// A go-redis Ring over shards that never connects: each shard gets a loopback address nothing
// listens on, and the health check is not due before the test ends. byAddr maps a shard's
// client back to its name.
func offlineRing(t testing.TB, shards []string) (*redis.Ring, map[string]string) {
	addrs := make(map[string]string, len(shards))
	byAddr := make(map[string]string, len(shards))
	for i, s := range shards {
		a := fmt.Sprintf("127.0.0.1:%d", 1+i)
		addrs[s] = a
		byAddr[a] = s
	}
	ring := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: time.Hour})
	t.Cleanup(func() { ring.Close() })
	return ring, byAddr
}

var keyPieces = []string{"user", ":", "42", "a", "z", "-", "é", "ß", "ж", "日本", "한", "😀", "🔑", "👩‍👩‍👧", " ", "{", "}"}

// randomKey is text of the pieces above, a {hashtag} form of it, or arbitrary bytes.
func randomKey(rng *rand.Rand) string {
	if rng.Intn(4) == 0 {
		b := make([]byte, rng.Intn(24))
		rng.Read(b)
		return string(b)
	}
	var sb strings.Builder
	for i, n := 0, 1+rng.Intn(8); i < n; i++ {
		sb.WriteString(keyPieces[rng.Intn(len(keyPieces))])
	}
	if rng.Intn(3) == 0 {
		return "prefix{" + sb.String() + "}." + keyPieces[rng.Intn(len(keyPieces))]
	}
	return sb.String()
}

// hrwhash's go-redis-ring-v9 profile beside go-redis's own Ring: 100,000 random keys over
// several memberships (non-ASCII and byte names), and not one disagreement.
func TestProfileAgreesWithRing(t *testing.T) {
	memberships := [][]string{
		{"only"},
		{"shard-a", "shard-b", "shard-c"},
		{"Zürich", "東京", "🚀", "ключ", "redis-5:6379"},
		{"\xff\xfe", "node-\x80", "plain"},
	}
	for n := 8; n <= 64; n *= 2 {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("cache-%02d.internal:6379", i)
		}
		memberships = append(memberships, names)
	}
	rng := rand.New(rand.NewSource(2024))
	const total = 100000
	compared, disagreements := 0, 0
	for mi, shards := range memberships {
		ring, byAddr := offlineRing(t, shards)
		nodes := make([]hrwhash.Node, len(shards))
		for i, s := range shards {
			nodes[i] = hrwhash.Node{ID: s}
		}
		p, err := hrwhash.NewProfilePlacement("go-redis-ring-v9", nodes)
		if err != nil {
			t.Fatal(err)
		}
		count := total / len(memberships)
		if mi == 0 {
			count += total % len(memberships)
		}
		keys := make([]string, count)
		for k := range keys {
			keys[k] = randomKey(rng)
		}
		// The batch call: in the cgo build it is libhrwhash's, while single lookups of a small
		// membership are answered in Go; both must agree with go-redis.
		batch, err := p.Owners(keys)
		if err != nil {
			t.Fatal(err)
		}
		for k, key := range keys {
			client, err := ring.GetShardClientForKey(key)
			if err != nil {
				t.Fatal(err)
			}
			ours := p.OwnerID(key)
			compared++
			theirs := byAddr[client.Options().Addr]
			if ours != theirs || shards[batch[k]] != theirs {
				if disagreements++; disagreements <= 5 {
					t.Errorf("%d shards, key %q: hrwhash %q (batch %q), go-redis Ring %q", len(shards), key, ours, shards[batch[k]], theirs)
				}
			}
		}
	}
	if compared != total || disagreements != 0 {
		t.Fatalf("%d of %d keys placed differently from go-redis", disagreements, compared)
	}
	t.Logf("%s build: %d keys, 0 disagreements with go-redis Ring", hrwhash.Backend, compared)
}

// Keys as go-redis applications name them; a quarter carry a {hashtag}.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d:profile", i)
		if i%4 == 0 {
			keys[i] = fmt.Sprintf("{user:%d}.followers", i)
		}
	}
	return keys
}

var sink int

// BenchmarkGoRedisRingV9 compares one lookup of the go-redis-ring-v9 profile with go-redis
// itself in the same binary: the Ring's consistent-hash object alone (Get of keys reduced
// beforehand), hashtag.Key then Get (what Ring computes for each command), and the Ring's whole
// routing (GetShardClientForKey, which adds a lock and the shard map).
func BenchmarkGoRedisRingV9(b *testing.B) {
	keys := benchKeys(4096)
	build := "build=" + hrwhash.Backend
	for _, n := range []int{3, 16, 64} {
		shards := make([]string, n)
		nodes := make([]hrwhash.Node, n)
		for i := range shards {
			shards[i] = fmt.Sprintf("shard-%d", i)
			nodes[i] = hrwhash.Node{ID: shards[i]}
		}
		b.Run(fmt.Sprintf("%s/lib=hrwhash/N=%d", build, n), func(b *testing.B) {
			p, err := hrwhash.NewProfilePlacement("go-redis-ring-v9", nodes)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o := p.Owner(keys[i%len(keys)])
				sink += o
			}
		})
		b.Run(fmt.Sprintf("%s/lib=go-redis-hash/N=%d", build, n), func(b *testing.B) {
			ring, _ := offlineRing(b, shards)
			hash := ring.Options().NewConsistentHash(shards)
			reduced := make([]string, len(keys))
			for i, k := range keys {
				reduced[i] = hashtagKey(k)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += len(hash.Get(reduced[i%len(reduced)]))
			}
		})
		b.Run(fmt.Sprintf("%s/lib=go-redis-hashtag-hash/N=%d", build, n), func(b *testing.B) {
			ring, _ := offlineRing(b, shards)
			hash := ring.Options().NewConsistentHash(shards)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink += len(hash.Get(hashtagKey(keys[i%len(keys)])))
			}
		})
		b.Run(fmt.Sprintf("%s/lib=go-redis-ring/N=%d", build, n), func(b *testing.B) {
			ring, _ := offlineRing(b, shards)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, _ := ring.GetShardClientForKey(keys[i%len(keys)])
				if c != nil {
					sink++
				}
			}
		})
	}
}

// hashtagKey is go-redis hashtag.Key, copied as it is (the package is internal to go-redis).
func hashtagKey(key string) string {
	if s := strings.IndexByte(key, '{'); s > -1 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			return key[s+1 : s+e+1]
		}
	}
	return key
}
