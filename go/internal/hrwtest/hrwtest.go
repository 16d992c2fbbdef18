// Package hrwtest holds what the tests of the Go package, of viewsync and of the follower
// command build the same way: views of a membership and numbered ids.
package hrwtest

import (
	"fmt"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

// View is the view at epoch of a membership of equal weights, failing the test on an error.
func View(t testing.TB, epoch uint64, ids ...string) *hrwhash.View {
	t.Helper()
	p, err := hrwhash.New(ids...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := hrwhash.NewView(p, epoch)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Numbered is prefix followed by the decimal of i, for i in 0..n.
func Numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}
