package viewsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

// File is a view document in a file that publishers replace by renaming a new file over it
// (File.Publish does).
type File struct {
	Path string
}

// defaultInterval is how often file and HTTP followers poll.
const defaultInterval = time.Second

// fileStamp is what tells a replaced file from the one read last without reading it.
type fileStamp struct {
	size  int64
	mtime time.Time
	inode uint64
}

func stampOf(fi fs.FileInfo) fileStamp {
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	s.inode = inode(fi)
	return s
}

func (f File) read() ([]byte, fileStamp, error) {
	fi, err := os.Stat(f.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fileStamp{}, fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return nil, fileStamp{}, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, fileStamp{}, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	defer file.Close()
	doc, err := io.ReadAll(io.LimitReader(file, maxDocumentBytes+1))
	if err != nil {
		return nil, fileStamp{}, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	if len(doc) > maxDocumentBytes {
		return nil, fileStamp{}, fmt.Errorf("%s: %w", f.Path, hrwhash.ErrResultTooLarge)
	}
	return doc, stampOf(fi), nil
}

// Follow reads the file, makes a LiveView of its view, and polls the file until ctx ends
// (WithInterval, default 1 s): when its size, modification time or inode changed, it reads it
// again and offers the document when its bytes changed. An unreadable or missing file is a
// SourceError; the live view is kept.
func (f File) Follow(ctx context.Context, opts ...Option) (*hrwhash.LiveView, error) {
	fo := &follower{cfg: configure(opts)}
	doc, stamp, err := f.read()
	if err != nil {
		return nil, err
	}
	if err := fo.first(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	interval := fo.cfg.interval
	if interval == 0 {
		interval = defaultInterval
	}
	go func() {
		last, accepted := doc, true
		failing := false
		for sleep(ctx, interval) {
			fi, err := os.Stat(f.Path)
			if err == nil && stampOf(fi) == stamp && !failing {
				if accepted {
					// The file is the live view still: a confirmation.
					fo.lv.Update(fo.lv.Current())
				}
				continue
			}
			next, st, err := f.read()
			if err != nil {
				// Reported once per failure, not at every poll.
				if !failing {
					fo.sourceError(err)
				}
				failing = true
				continue
			}
			failing = false
			stamp = st
			if bytes.Equal(next, last) {
				if accepted {
					fo.lv.Update(fo.lv.Current())
				}
				continue
			}
			last = next
			accepted = fo.offer(next)
		}
	}()
	return fo.lv, nil
}

// Publish writes view to the file by the epoch rule of Etcd.Publish (a file without a view gets
// the view at its epoch, 1 for 0; the same fingerprint leaves the file as it is; otherwise the
// epoch becomes max(stored + 1, view's epoch)), through a temporary file in the same directory,
// synced, then renamed over the path, so a follower reads the old document or the new one,
// never a part. A file that holds no view of the same seed is an error and is left alone. One
// process publishes a file: the rename has no compare-and-swap.
func (f File) Publish(ctx context.Context, view *hrwhash.View) (*hrwhash.View, bool, error) {
	if view == nil || view.Placement() == nil {
		return nil, false, hrwhash.ErrNullParameter
	}
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	next, err := view.WithEpoch(firstEpoch(view.Epoch()))
	if err != nil {
		return nil, false, err
	}
	stored, err := hrwhash.ViewFromFile(f.Path, hrwhash.WithSeed(view.Placement().Seed()))
	switch {
	case err == nil:
		if stored.Fingerprint() == view.Fingerprint() {
			return stored, false, nil
		}
		epoch, err := nextEpoch(stored.Epoch(), view.Epoch())
		if err != nil {
			return nil, false, err
		}
		if next, err = view.WithEpoch(epoch); err != nil {
			return nil, false, err
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, false, err
	}
	doc, err := next.ToJSON()
	if err != nil {
		return nil, false, err
	}
	if err := writeAtomically(f.Path, doc); err != nil {
		return nil, false, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	return next, true, nil
}

func writeAtomically(path string, doc []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(doc); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename itself survives a crash once the directory is synced.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
