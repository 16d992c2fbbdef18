package viewsync

import (
	"context"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

// FollowFrom follows e from a live view of doc read at revision rev, as Follow does after its
// first read: for a watch that starts at a revision etcd has compacted away.
func FollowFrom(ctx context.Context, e Etcd, doc []byte, rev int64, opts ...Option) (*hrwhash.LiveView, error) {
	f := &follower{cfg: configure(opts)}
	if err := f.first(doc); err != nil {
		return nil, err
	}
	go e.follow(ctx, f, rev)
	return f.lv, nil
}

// SetWatchIdle sets how long a watch may stay silent, for a test; it returns the previous value.
func SetWatchIdle(d time.Duration) time.Duration {
	return time.Duration(watchIdle.Swap(int64(d)))
}
