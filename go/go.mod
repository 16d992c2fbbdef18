module github.com/hrwhash/hrwhash/go

go 1.21
