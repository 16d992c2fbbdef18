//go:build !amd64 || !gc || purego

package hrw

// argmax returns the highest score among lanes and the first lane that has it (SPEC.md
// section 4's id tie rule, as lanes of one weight are in id order).
func argmax(kd uint64, lanes []uint64) (uint64, int) { return argmaxGo(kd, lanes) }

// kernels are the argmax implementations of this build, by name, for the tests.
func kernels() map[string]func(uint64, []uint64) (uint64, int) {
	return map[string]func(uint64, []uint64) (uint64, int){"go": argmaxGo}
}
