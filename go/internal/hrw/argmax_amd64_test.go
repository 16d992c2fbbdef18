//go:build amd64 && gc && !purego

package hrw

import (
	"os"
	"strings"
	"testing"
)

// The dispatch finds what the kernel reports in /proc/cpuinfo (an independent reading of the
// same CPUID bits, masked by what the kernel enables), so the vector kernels are tested wherever
// the CPU has them instead of being skipped unnoticed.
func TestDetectAgreesWithProcCPUInfo(t *testing.T) {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Logf("no /proc/cpuinfo (%v): detected AVX2 %v, AVX-512 %v", err, hasAVX2, hasAVX512)
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
	if want := flags["avx2"]; hasAVX2 != want {
		t.Errorf("AVX2 detected %v, /proc/cpuinfo says %v", hasAVX2, want)
	}
	if want := flags["avx2"] && flags["avx512f"] && flags["avx512dq"] && flags["avx512vl"] && flags["avx512_vbmi2"]; hasAVX512 != want {
		t.Errorf("AVX-512 detected %v, /proc/cpuinfo says %v", hasAVX512, want)
	}
	t.Logf("AVX2 %v, AVX-512 %v", hasAVX2, hasAVX512)
}
