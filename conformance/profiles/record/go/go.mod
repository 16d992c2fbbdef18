module github.com/hrwhash/hrwhash/conformance/profiles/record/go

go 1.26.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
