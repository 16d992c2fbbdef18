package viewsync_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

// A gateway whose watches answer "created" and then hang without closing, as a connection whose
// peer vanished does: the follower must notice the silence, read in full and watch again, and so
// see a view that only a full read can show it.
func TestEtcdSilentWatchIsReplacedByAFullRead(t *testing.T) {
	defer viewsync.SetWatchIdle(viewsync.SetWatchIdle(150 * time.Millisecond))
	var mu sync.Mutex
	doc := mustJSON(t, view(t, 1, "a", "b"))
	var watches atomic.Int32
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v3/kv/range":
			mu.Lock()
			body, _ := json.Marshal(map[string]any{
				"header": map[string]any{"revision": "7"},
				"kvs":    []map[string]any{{"key": []byte("/k"), "value": doc, "mod_revision": "7", "create_revision": "1"}},
			})
			mu.Unlock()
			w.Write(body)
		case "/v3/watch":
			watches.Add(1)
			w.Write([]byte(`{"result":{"header":{"revision":"7"},"created":true}}` + "\n"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live, err := viewsync.Etcd{Endpoint: srv.URL, Key: "/k"}.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The key changes while the watch says nothing (as a watch on a dead connection would).
	mu.Lock()
	doc = mustJSON(t, view(t, 2, "a", "b", "c"))
	mu.Unlock()
	waitFor(t, "the view of the full read after a silent watch", func() bool { return live.Epoch() == 2 })
	// The full read is applied before the new watch is sent, so wait for the watch too.
	waitFor(t, "a new watch after the silence", func() bool { return watches.Load() >= 2 })
	if err := live.LastError(); err != nil {
		t.Fatalf("a silent watch is not a source error: %v", err)
	}
}

func mustJSON(t *testing.T, v *hrwhash.View) []byte {
	t.Helper()
	b, err := v.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
