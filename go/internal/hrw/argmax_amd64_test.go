//go:build amd64 && gc && !purego

package hrw

import (
	"cmp"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
)

// The dispatch finds what the kernel reports in /proc/cpuinfo (an independent reading of the
// same CPUID bits, masked by what the kernel enables), so the vector kernels are tested wherever
// the CPU has them instead of being skipped unnoticed.
func TestDetectAgreesWithProcCPUInfo(t *testing.T) {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Logf("no /proc/cpuinfo (%v): detected AVX2 %v, AVX-512 %v, VBMI2 %v", err, cpuAVX2, cpuAVX512, cpuVBMI2)
		return
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(raw), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(value) {
				flags[f] = true
			}
			break
		}
	}
	if flags == nil {
		t.Fatal("/proc/cpuinfo has no flags line")
	}
	if want := flags["avx2"]; cpuAVX2 != want {
		t.Errorf("AVX2 detected %v, /proc/cpuinfo says %v", cpuAVX2, want)
	}
	if want := flags["avx2"] && flags["avx512f"] && flags["avx512dq"] && flags["avx512vl"] && flags["popcnt"]; cpuAVX512 != want {
		t.Errorf("AVX-512 F/DQ/VL and POPCNT detected %v, /proc/cpuinfo says %v", cpuAVX512, want)
	}
	if want := flags["avx512_vbmi2"]; cpuVBMI2 != want {
		t.Errorf("VBMI2 detected %v, /proc/cpuinfo says %v", cpuVBMI2, want)
	}
	t.Logf("CPU: AVX2 %v, AVX-512 %v, VBMI2 %v; chosen: AVX2 %v, AVX-512 %v", cpuAVX2, cpuAVX512, cpuVBMI2, hasAVX2, hasAVX512)
}

// HRWHASH_KERNEL forces a kernel as in the core, falling back to the next one down the CPU has.
func TestChooseKernel(t *testing.T) {
	cases := []struct {
		forced       string
		avx2, avx512 bool
	}{
		{"scalar", false, false},
		{"avx2", cpuAVX2, false},
		{"avx512", cpuAVX2, cpuAVX512},
		{"", cpuAVX2, cpuAVX512 && cpuVBMI2},
		{"auto", cpuAVX2, cpuAVX512 && cpuVBMI2},
		{"sse9", cpuAVX2, cpuAVX512 && cpuVBMI2},
	}
	for _, c := range cases {
		if a2, a5 := choose(c.forced); a2 != c.avx2 || a5 != c.avx512 {
			t.Errorf("HRWHASH_KERNEL=%q: AVX2 %v, AVX-512 %v; want %v, %v", c.forced, a2, a5, c.avx2, c.avx512)
		}
	}
}

// topKeysAVX512 returns exactly the four highest keys (a score with its bits of low replaced by
// those of ^position), each computed here lane by lane, for every count of lanes from 8 to past
// topKeysMax (pairs of blocks, an odd block, a last part block), also where two lanes share a
// digest; topKeysNarrowAVX512 the four highest 32-bit keys (the high half of a score, keyed
// alike) from 16 lanes to past topKeysNarrowMax; and topKeyed declines where the best two scores
// are equal.
func TestTopKeysAVX512(t *testing.T) {
	if !cpuAVX512 {
		t.Skip("this CPU has no AVX-512 (F, DQ, VL): topKeysAVX512 cannot run here")
	}
	rng := rand.New(rand.NewSource(11))
	for n := 8; n <= topKeysNarrowMax+17; n++ {
		if n > topKeysMax+17 && n%7 != 0 && n%16 > 1 && n%16 < 15 {
			continue // past the wide kernel's range, a sample of the counts
		}
		lanes := make([]uint64, n)
		for i := range lanes {
			lanes[i] = rng.Uint64()
		}
		low := positionBits(n)
		for trial := 0; trial < 40; trial++ {
			fk := rng.Uint64()
			if trial%4 == 3 {
				// A repeated digest: equal scores, told apart only by the position bits.
				lanes[rng.Intn(n)] = lanes[rng.Intn(n)]
			}
			all := make([]uint64, n)
			for i, l := range lanes {
				all[i] = scoreF(fk, l)&^low | ^uint64(i)&low
			}
			slices.SortFunc(all, func(a, b uint64) int { return cmp.Compare(b, a) })
			var got [4]uint64
			topKeysAVX512(fk, lanes, low, &got)
			if want := [4]uint64(all[:4]); got != want {
				t.Fatalf("n=%d fk=%#x: keys %#x, want %#x", n, fk, got, want)
			}
			if n < 16 {
				continue
			}
			// The 32-bit keys: the high half of each score, keyed alike.
			for i, l := range lanes {
				all[i] = uint64(uint32(scoreF(fk, l)>>32)&^uint32(low) | ^uint32(i)&uint32(low))
			}
			slices.SortFunc(all, func(a, b uint64) int { return cmp.Compare(b, a) })
			topKeysNarrowAVX512(fk, lanes, low, &got)
			if want := [4]uint64(all[:4]); got != want {
				t.Fatalf("narrow n=%d fk=%#x: keys %#x, want %#x", n, fk, got, want)
			}
		}
		if hasAVX512 && n <= topKeysNarrowMax {
			fk := rng.Uint64()
			best, _ := argmaxGo(fk, lanes)
			tied := slices.Clone(lanes)
			for i, l := range lanes {
				if scoreF(fk, l) == best {
					tied[(i+1+rng.Intn(n-1))%n] = l
					break
				}
			}
			if _, ok := topKeyed(fk, tied, 2); ok {
				t.Fatalf("n=%d: the best score twice, and topKeyed answered", n)
			}
		}
	}
}
