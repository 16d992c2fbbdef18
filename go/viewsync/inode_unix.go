//go:build unix

package viewsync

import (
	"io/fs"
	"syscall"
)

// inode tells a file renamed over the path from the one before, even with the same size and
// modification time.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
