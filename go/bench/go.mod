module github.com/hrwhash/hrwhash/go/bench

go 1.21

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f
	github.com/hrwhash/hrwhash/go v1.0.0
)

// The benchmarks measure the hrwhash package beside them.
replace github.com/hrwhash/hrwhash/go => ../
