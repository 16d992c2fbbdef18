// Package bench holds the Go benchmarks of hrwhash beside go-rendezvous, in a module of its own
// so that the hrwhash module needs no third-party code.
package bench
