package redisring_test

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/redisring"
)

func TestAnswerDoesNotDependOnShardOrder(t *testing.T) {
	shards := make([]string, 12)
	for i := range shards {
		shards[i] = fmt.Sprintf("shard-%d", i)
	}
	ref := redisring.NewConsistentHash(shards)
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 20; round++ {
		shuffled := append([]string(nil), shards...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		h := redisring.NewConsistentHash(shuffled)
		for i := 0; i < 500; i++ {
			key := "key-" + strconv.Itoa(i)
			if a, b := ref.Get(key), h.Get(key); a != b || a == "" {
				t.Fatalf("order %v: %s -> %q, sorted order gives %q", shuffled, key, b, a)
			}
		}
	}
}

func TestNoShards(t *testing.T) {
	if got := redisring.NewConsistentHash(nil).Get("k"); got != "" {
		t.Errorf("Get on no shards = %q", got)
	}
	if _, err := redisring.New([]string{"a", "a"}); err == nil {
		t.Error("duplicate shard names accepted")
	}
}

// redisServer is a real redis-server on a loopback port, stopped at the end of the test.
func redisServer(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is required under CI: %v", err)
		}
		t.Skipf("redis-server not installed (make test-go installs it): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server on %s did not answer:\n%s", addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return addr
}

// keysOn lists every key stored on one server, asking it directly.
func keysOn(t *testing.T, ctx context.Context, addr string) map[string]string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	out := map[string]string{}
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		v, err := c.Get(ctx, iter.Val()).Result()
		if err != nil {
			t.Fatal(err)
		}
		out[iter.Val()] = v
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRingOnRealRedis(t *testing.T) {
	ctx := context.Background()
	addrs := map[string]string{
		"shard-a": redisServer(t),
		"shard-b": redisServer(t),
		"shard-c": redisServer(t),
	}
	ring := redis.NewRing(&redis.RingOptions{
		Addrs:             addrs,
		NewConsistentHash: redisring.NewConsistentHash,
	})
	defer ring.Close()

	// The expected owner comes from a placement built here, not from the adapter under test.
	names := []string{"shard-c", "shard-a", "shard-b"}
	placement, err := hrwhash.New(names...)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	owner := make(map[string]string, n)
	pipe := ring.Pipeline()
	for i := 0; i < n; i++ {
		key := "key-" + strconv.Itoa(i)
		owner[key] = placement.OwnerID(key)
		pipe.Set(ctx, key, "v1", 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	perShard := map[string]int{}
	for name, addr := range addrs {
		stored := keysOn(t, ctx, addr)
		perShard[name] = len(stored)
		for key := range stored {
			if owner[key] != name {
				t.Fatalf("%s is on %s, owner() says %s", key, name, owner[key])
			}
		}
	}
	if total := perShard["shard-a"] + perShard["shard-b"] + perShard["shard-c"]; total != n {
		t.Fatalf("servers hold %d keys, want %d (%v)", total, n, perShard)
	}
	t.Logf("keys per shard: %v", perShard)

	// Remove shard-c: only its keys may move, and they move to the shard owner() names now.
	removedAddr := addrs["shard-c"]
	ring.SetAddrs(map[string]string{"shard-a": addrs["shard-a"], "shard-b": addrs["shard-b"]})
	smaller, err := placement.WithoutNode("shard-c")
	if err != nil {
		t.Fatal(err)
	}
	pipe = ring.Pipeline()
	for i := 0; i < n; i++ {
		pipe.Set(ctx, "key-"+strconv.Itoa(i), "v2", 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, name := range []string{"shard-a", "shard-b"} {
		for key, v := range keysOn(t, ctx, addrs[name]) {
			if v != "v2" {
				continue
			}
			if owner[key] != name {
				if owner[key] != "shard-c" {
					t.Fatalf("%s moved from %s to %s, but only shard-c was removed", key, owner[key], name)
				}
				moved++
			}
			if o := smaller.OwnerID(key); o != name {
				t.Fatalf("%s is on %s, owner() without shard-c says %s", key, name, o)
			}
		}
	}
	if moved != perShard["shard-c"] {
		t.Fatalf("%d keys moved, shard-c held %d", moved, perShard["shard-c"])
	}
	for key, v := range keysOn(t, ctx, removedAddr) {
		if v != "v1" {
			t.Fatalf("%s was written to the removed shard", key)
		}
	}
}
