// Command record answers the recording protocol (conformance/profiles/record/common.py) with a
// go-redis v9 Ring: for each key, the shard that Ring.GetShardClientForKey names. Ring is built
// with its default consistent hash and never connects: each shard gets an address nothing listens
// on and the health check is not due before the program ends.
//
// It also asks dgryski/go-rendezvous with xxhash (what go-redis used before v9.23) the same
// question of the Ring's hash object and fails on any disagreement.
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	rendezvous "github.com/dgryski/go-rendezvous"
	"github.com/redis/go-redis/v9"
)

func unhex(s string) string {
	if s == "-" {
		return ""
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		fail("bad hex %q: %v", s, err)
	}
	return string(b)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) != 3 || f[0] != "case" {
			fail("expected a case line, got %q", in.Text())
		}
		nNodes, _ := strconv.Atoi(f[1])
		nKeys, _ := strconv.Atoi(f[2])
		names := make([]string, nNodes)
		addrs := make(map[string]string, nNodes)
		byAddr := make(map[string]int, nNodes)
		for i := range names {
			in.Scan()
			f := strings.Fields(in.Text())
			names[i] = unhex(f[3])
			addr := fmt.Sprintf("127.0.0.1:%d", 20000+i)
			addrs[names[i]] = addr
			byAddr[addr] = i
		}
		ring := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: time.Hour})
		ringHash := ring.Options().NewConsistentHash(names)
		old := rendezvous.New(names, xxhash.Sum64String)
		for k := 0; k < nKeys; k++ {
			in.Scan()
			key := unhex(strings.Fields(in.Text())[1])
			client, err := ring.GetShardClientForKey(key)
			if err != nil {
				fail("GetShardClientForKey(%q): %v", key, err)
			}
			if got, want := old.Lookup(key), ringHash.Get(key); got != want {
				fail("go-rendezvous says %q, the Ring's hash %q for %q", got, want, key)
			}
			fmt.Fprintln(out, byAddr[client.Options().Addr])
		}
		ring.Close()
	}
}
