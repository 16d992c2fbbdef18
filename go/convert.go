package hrwhash

import "github.com/hrwhash/hrwhash/go/internal/hrw"

// version is the hrwhash release this package belongs to; the cgo build's tests check that it
// is the version of the libhrwhash they link.
const version = "1.0.0"

// goLookupMax is the largest number of selectable nodes for which the cgo build answers owner
// lookups in Go: below about 150 nodes the Go loop is cheaper than crossing into C (measured
// in bindings-c/BENCHMARKS.md, "Go"). The tests set it to -1 to send every lookup to libhrwhash.
var goLookupMax = 128

// fromHrw maps a build error of the Go implementation; its codes are the C statuses.
func fromHrw(err error) error {
	e, ok := err.(*hrw.Error)
	if !ok {
		return &Error{Code: CodeUnknown}
	}
	return &Error{Code: Code(e.Code), Index: e.Index, FirstIndex: e.FirstIndex, Weight: e.Value}
}
