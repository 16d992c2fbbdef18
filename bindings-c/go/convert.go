package hrwhash

import "github.com/hrwhash/hrwhash/bindings-c/go/internal/hrw"

// version is the hrwhash release this package belongs to; the cgo build's tests check that it
// is the version of the libhrwhash they link.
const version = "0.1.0"

// fromHrw maps a build error of the Go implementation; its codes are the C statuses.
func fromHrw(err error) error {
	e, ok := err.(*hrw.Error)
	if !ok {
		return &Error{Code: CodeUnknown}
	}
	return &Error{Code: Code(e.Code), Index: e.Index, FirstIndex: e.FirstIndex, Weight: e.Value}
}
