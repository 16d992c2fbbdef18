module github.com/hrwhash/hrwhash/bindings-c/go

go 1.21
