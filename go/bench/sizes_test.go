package bench_test

import (
	"reflect"
	"testing"
)

// HRWHASH_BENCH_N: counts are read in order, an empty list keeps the default, and anything that
// is not a positive integer is an error that names the entry.
func TestSizes(t *testing.T) {
	def := []int{5, 100, 1000}
	for list, want := range map[string][]int{"": def, "9": {9}, "9, 64 ,1000": {9, 64, 1000}} {
		got, err := sizes(list, def)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, %v; want %v", list, got, err, want)
		}
	}
	for list, entry := range map[string]string{"x": `"x"`, "5,,100": `""`, "0": `"0"`, "-3": `"-3"`, "5,1e3": `"1e3"`} {
		got, err := sizes(list, def)
		want := "HRWHASH_BENCH_N: " + entry + " is not a node count (a positive integer)"
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, %v; want the error %s", list, got, err, want)
		}
	}
}
