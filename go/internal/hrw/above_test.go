package hrw

import (
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

// aboveByDefinition is above one lane at a time from the unfolded digests: the positions of the
// scores above below.
func aboveByDefinition(kd uint64, lanes []uint64, below uint64) []int32 {
	var ps []int32
	for i, l := range lanes {
		if Score(kd, l) > below {
			ps = append(ps, int32(i))
		}
	}
	return ps
}

func aboveKernelNames() []string {
	var names []string
	for name := range aboveKernels() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func checkAbove(t *testing.T, what string, kd uint64, lanes []uint64, below uint64) {
	t.Helper()
	want := aboveByDefinition(kd, lanes, below)
	folded := make([]uint64, len(lanes))
	for i, l := range lanes {
		folded[i] = fold(l)
	}
	ks := aboveKernels()
	for _, name := range aboveKernelNames() {
		var buf [hitCap]int32
		for i := range buf {
			buf[i] = -1
		}
		n := ks[name](fold(kd), folded, below, &buf)
		if len(want) >= hitMax {
			if n < hitMax {
				t.Fatalf("%s, %s kernel, N = %d, key digest %#x, below %#x: %d hits, want %d (hitMax or more)",
					what, name, len(lanes), kd, below, n, len(want))
			}
			continue
		}
		if n != len(want) || !reflect.DeepEqual(buf[:n], want[:n:n]) && n > 0 {
			t.Fatalf("%s, %s kernel, N = %d, key digest %#x, below %#x: %d hits %v, want %v",
				what, name, len(lanes), kd, below, n, buf[:min(max(n, 0), hitMax)], want)
		}
	}
}

// Every kernel of above finds the lanes a threshold lets through, as the definition does: for
// every count of lanes up to past a few of the kernels' blocks and steps, and bounds that let few,
// many and more than hitMax through.
func TestAboveRandomLanes(t *testing.T) {
	t.Logf("kernels of above: %v", aboveKernelNames())
	rng := rand.New(rand.NewSource(31))
	lanes := make([]uint64, 1100)
	for n := 1; n <= len(lanes); n++ {
		if n > 300 && n%97 != 0 && n != len(lanes) {
			continue
		}
		for i := range lanes[:n] {
			lanes[i] = rng.Uint64()
		}
		for _, c := range []uint64{0, 1, 3, 8, 20, 63, 64, 65, 100, 400} {
			below := uint64(math.MaxUint64)
			if c > 0 {
				below -= c * (math.MaxUint64 / uint64(n))
			}
			checkAbove(t, "random lanes", rng.Uint64(), lanes[:n], below)
		}
		checkAbove(t, "random bound", rng.Uint64(), lanes[:n], rng.Uint64())
	}
}

// Scores equal to the bound are not above it, the next one up is; and the bounds and scores on
// each side of the sign bit, which AVX2's signed compare flips, are ordered as unsigned.
func TestAboveEdges(t *testing.T) {
	rng := rand.New(rand.NewSource(37))
	edges := []uint64{0, 1, 2, 1<<63 - 2, 1<<63 - 1, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64,
		1<<32 - 1, 1 << 32, 0xFFFFFFFF00000000, 0x00000000FFFFFFFF}
	for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 129} {
		lanes := make([]uint64, n)
		for _, below := range edges {
			for trial := 0; trial < 4; trial++ {
				kd := rng.Uint64()
				for i := range lanes {
					s := edges[rng.Intn(len(edges))]
					if rng.Intn(3) == 0 {
						s = below + uint64(rng.Intn(3)) - 1
					}
					lanes[i] = digestFor(kd, s)
				}
				checkAbove(t, "edge scores", kd, lanes, below)
			}
		}
	}
}

// The hits cross hitMax at every step of the kernels: the count says so whatever the lanes after.
func TestAboveTooMany(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	for _, n := range []int{63, 64, 65, 66, 70, 79, 80, 81, 96, 100, 128, 200, 333} {
		lanes := make([]uint64, n)
		for trial := 0; trial < 40; trial++ {
			kd := rng.Uint64()
			hits := 60 + rng.Intn(10)
			for i := range lanes {
				s := uint64(rng.Int63n(1 << 62))
				if rng.Intn(n) < hits {
					s |= 1 << 63
				}
				lanes[i] = digestFor(kd, s)
			}
			checkAbove(t, "about hitMax hits", kd, lanes, 1<<63-1)
		}
	}
}
