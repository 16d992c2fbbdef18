//go:build !amd64 || !gc || purego

package hrw

// Without the amd64 kernels argmax is the Go loop.
const useKernels = false

const kernelLanes = 16

// argmaxVector is never called: useKernels is false.
func argmaxVector(fk uint64, lanes []uint64) (uint64, int) {
	panic("hrw: no vector kernels in this build")
}

// kernels are the argmax implementations of this build, by name, for the tests.
func kernels() map[string]func(uint64, []uint64) (uint64, int) {
	return map[string]func(uint64, []uint64) (uint64, int){"go": argmaxGo, "few": argmaxFew}
}

// aboveVector is never called: useKernels is false.
func aboveVector(fk uint64, lanes []uint64, below uint64, buf *[hitCap]int32) (int, int) {
	panic("hrw: no vector kernels in this build")
}

// aboveKernels are the implementations of above in this build, by name, for the tests.
func aboveKernels() map[string]func(uint64, []uint64, uint64, *[hitCap]int32) int {
	return map[string]func(uint64, []uint64, uint64, *[hitCap]int32) int{"go": aboveGoAll, "dispatch": above}
}

// topKeys is never taken without the amd64 kernels.
func topKeys(fk uint64, lanes []uint64, low uint64, keys *[4]uint64) bool { return false }
