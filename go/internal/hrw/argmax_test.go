package hrw

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// firstMax is argmax by its definition, one lane at a time: the highest score, and of equal
// scores the first lane.
func firstMax(kd uint64, lanes []uint64) (uint64, int) {
	best, at := Score(kd, lanes[0]), 0
	for i, l := range lanes {
		if s := Score(kd, l); s > best {
			best, at = s, i
		}
	}
	return best, at
}

// mixInverse is M^-1 mod 2^64 (M is odd), by Newton's iteration.
var mixInverse = func() uint64 {
	inv := uint64(Mix) // correct to 3 bits
	for i := 0; i < 5; i++ {
		inv *= 2 - Mix*inv
	}
	return inv
}()

// digestFor is the node digest whose score for kd is s: the score is x ^ (x >> 32) times M with
// x = kd ^ digest, and the fold keeps the top half of x, so it is undone by folding again.
func digestFor(kd, s uint64) uint64 {
	f := s * mixInverse
	return kd ^ f ^ f>>32
}

func sortedKernelNames() []string {
	var names []string
	for name := range kernels() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func checkKernels(t *testing.T, what string, kd uint64, lanes []uint64) {
	t.Helper()
	ws, wa := firstMax(kd, lanes)
	// The kernels take what a placement keeps: folded digests, and the folded key digest.
	folded := make([]uint64, len(lanes))
	for i, l := range lanes {
		folded[i] = fold(l)
	}
	for _, name := range sortedKernelNames() {
		if s, a := kernels()[name](fold(kd), folded); s != ws || a != wa {
			t.Fatalf("%s, %s kernel, N = %d, key digest %#x: (%#x, lane %d), want (%#x, lane %d)",
				what, name, len(lanes), kd, s, a, ws, wa)
		}
	}
}

func TestDigestForGivesTheScore(t *testing.T) {
	if Mix*mixInverse != 1 {
		t.Fatalf("M * M^-1 = %#x", uint64(Mix*mixInverse))
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 1000; i++ {
		kd, s := rng.Uint64(), rng.Uint64()
		if got := Score(kd, digestFor(kd, s)); got != s {
			t.Fatalf("score %#x, want %#x", got, s)
		}
	}
}

func TestKernelsRandomLanes(t *testing.T) {
	t.Logf("kernels: %v", sortedKernelNames())
	rng := rand.New(rand.NewSource(22))
	lanes := make([]uint64, 2000)
	for n := 1; n <= len(lanes); n++ {
		for i := range lanes[:n] {
			lanes[i] = rng.Uint64()
		}
		keys := 16
		if n > 200 {
			keys = 3
		}
		for k := 0; k < keys; k++ {
			checkKernels(t, "random lanes", rng.Uint64(), lanes[:n])
		}
	}
}

// Equal scores (lanes sharing a digest) go to the first lane, wherever the copies fall among
// the kernels' accumulators, blocks and tail; and the extreme scores, including those on each
// side of the sign bit that AVX2's signed compares flip, are ordered as unsigned.
func TestKernelsTiesAndExtremes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	lanes := make([]uint64, 300)
	extremes := []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 1<<63 - 1}
	for n := 1; n <= len(lanes); n++ {
		kd := rng.Uint64()
		for i := range lanes[:n] {
			lanes[i] = rng.Uint64()
		}
		// Every lane the same: lane 0.
		for i := range lanes[:n] {
			lanes[i] = lanes[0]
		}
		checkKernels(t, "one digest", kd, lanes[:n])
		for _, s := range extremes {
			for i := range lanes[:n] {
				lanes[i] = digestFor(kd, s)
			}
			checkKernels(t, "one extreme score", kd, lanes[:n])
		}
		// Random lanes with the highest digest copied to other lanes.
		for trial := 0; trial < 8; trial++ {
			for i := range lanes[:n] {
				lanes[i] = rng.Uint64()
			}
			_, w := firstMax(kd, lanes[:n])
			for c := rng.Intn(4); c >= 0; c-- {
				lanes[rng.Intn(n)] = lanes[w]
			}
			checkKernels(t, "copies of the highest", kd, lanes[:n])
		}
		// Extreme scores at random lanes, the rest random.
		for _, s := range extremes {
			for i := range lanes[:n] {
				lanes[i] = rng.Uint64()
			}
			for c := rng.Intn(3); c >= 0; c-- {
				lanes[rng.Intn(n)] = digestFor(kd, s)
			}
			checkKernels(t, "extreme scores", kd, lanes[:n])
		}
		// Scores in a narrow band just above or below the sign bit.
		for i := range lanes[:n] {
			base := uint64(1<<63) - 8
			if n%2 == 0 {
				base = math.MaxUint64 - 16
			}
			lanes[i] = digestFor(kd, base+uint64(rng.Intn(16)))
		}
		checkKernels(t, "a narrow band of scores", kd, lanes[:n])
	}
}

// A placement's owner comes from the same kernels: for every size the owner is the node of the
// highest score, and of equal scores the smallest id.
func TestOwnerIsTheHighestScore(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 5, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 100, 1000} {
		nodes := make([]Node, n)
		weights := make([]float64, n)
		for i := range nodes {
			nodes[i] = Node{ID: "node-" + string(rune('a'+i%26)) + itoa(i)}
			weights[i] = 1
		}
		p, err := New(DefaultSeed, nodes, weights)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 200; k++ {
			key := itoa(rng.Int())
			kd := KeyDigest(DefaultSeed, key)
			want := 0
			for i := range nodes {
				si, sw := Score(kd, NodeDigest(DefaultSeed, nodes[i].ID)), Score(kd, NodeDigest(DefaultSeed, nodes[want].ID))
				if si > sw || (si == sw && nodes[i].ID < nodes[want].ID) {
					want = i
				}
			}
			if got := p.Owner(key); got != want {
				t.Fatalf("N = %d, key %q: owner %d, want %d", n, key, got, want)
			}
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// BenchmarkKernels is each argmax implementation of this build on N random lanes.
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{5, 100, 1000} {
		lanes := make([]uint64, n)
		for i := range lanes {
			lanes[i] = rng.Uint64()
		}
		for _, name := range sortedKernelNames() {
			k := kernels()[name]
			b.Run(name+"/N="+itoa(n), func(b *testing.B) {
				kd := rng.Uint64()
				for i := 0; i < b.N; i++ {
					_, at := k(kd, lanes)
					kd += uint64(at) + 0x9E3779B97F4A7C15
				}
			})
		}
	}
}

// Scores that share their high 32 bits, the AVX2 kernel's first criterion, at random lanes across
// its windows of blocks, with copies of the best one: the full scores and then the first lane
// decide.
func TestKernelsEqualHighHalves(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, n := range []int{16, 17, 31, 100, 1000, 1023, 1024, 1025, 1040, 2100, 3000} {
		lanes := make([]uint64, n)
		for trial := 0; trial < 30; trial++ {
			kd := rng.Uint64()
			for i := range lanes {
				lanes[i] = rng.Uint64()
			}
			hi := uint64(math.MaxUint32) - uint64(rng.Intn(3))
			for c := 1 + rng.Intn(6); c > 0; c-- {
				lanes[rng.Intn(n)] = digestFor(kd, hi<<32|uint64(rng.Intn(4)))
			}
			if trial%3 == 0 {
				_, w := firstMax(kd, lanes)
				lanes[rng.Intn(n)] = lanes[w]
			}
			checkKernels(t, "equal high halves", kd, lanes)
		}
	}
}

// The winner at every lane of every count of lanes around a few blocks: in the last block, which
// overlaps the one before when 16 does not divide the count (the AVX2 kernel scores only its
// vectors of new lanes), in the lanes of the overlap, and with a second lane of the same high
// half or the same score placed before or after it.
func TestKernelsWinnerAtEveryLane(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for n := 16; n <= 80; n++ {
		lanes := make([]uint64, n)
		for w := 0; w < n; w++ {
			kd := rng.Uint64()
			for i := range lanes {
				lanes[i] = digestFor(kd, rng.Uint64()>>1)
			}
			lanes[w] = digestFor(kd, math.MaxUint64-5)
			checkKernels(t, "one winner", kd, lanes)
			o := rng.Intn(n)
			if o == w {
				continue
			}
			lanes[o] = digestFor(kd, math.MaxUint64-uint64(rng.Intn(11)))
			checkKernels(t, "a second lane of the winner's high half", kd, lanes)
			lanes[o] = lanes[w]
			checkKernels(t, "a second lane of the winner's score", kd, lanes)
		}
	}
}
