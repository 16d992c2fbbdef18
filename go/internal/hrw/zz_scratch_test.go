//go:build amd64 && !purego

package hrw

import (
	"math/rand"
	"testing"
	"time"
)

var zzSink uint64

func BenchmarkZZKernelMin(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{16, 32, 100, 1000} {
		lanes := make([]uint64, n)
		for i := range lanes {
			lanes[i] = rng.Uint64()
		}
		kds := make([]uint64, 256)
		for i := range kds {
			kds[i] = rng.Uint64()
		}
		b.Run(itoa(n), func(b *testing.B) {
			best := [2]time.Duration{1 << 62, 1 << 62}
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				for _, kd := range kds {
					_, at := argmaxAVX2(fold(kd), lanes)
					zzSink += uint64(at)
				}
				t1 := time.Now()
				for _, kd := range kds {
					_, at := argmaxAVX512(fold(kd), lanes)
					zzSink += uint64(at)
				}
				t2 := time.Now()
				best[0] = min(best[0], t1.Sub(t0))
				best[1] = min(best[1], t2.Sub(t1))
			}
			b.ReportMetric(float64(best[0].Nanoseconds())/256, "avx2-ns")
			b.ReportMetric(float64(best[1].Nanoseconds())/256, "avx512-ns")
		})
	}
}
