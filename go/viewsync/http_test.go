package viewsync_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

// viewServer serves one document with an ETag, or a failure status.
type viewServer struct {
	mu           sync.Mutex
	doc          []byte
	etag         string
	status       int
	full, cached int
}

func (s *viewServer) set(doc []byte, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.doc, s.status = doc, status
	s.etag = fmt.Sprintf(`"%x"`, len(doc)*31+int(doc[len(doc)-2]))
}

func (s *viewServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != http.StatusOK {
		w.WriteHeader(s.status)
		return
	}
	if r.Header.Get("If-None-Match") == s.etag {
		s.cached++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.full++
	w.Header().Set("ETag", s.etag)
	w.Write(s.doc)
}

func (s *viewServer) counts() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full, s.cached
}

func TestHTTPFollow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &viewServer{}
	v1 := view(t, 1, nodes(5)...)
	doc1, _ := v1.ToJSON()
	srv.set(doc1, http.StatusOK)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	lv, err := viewsync.HTTP{URL: ts.URL}.Follow(ctx, viewsync.WithInterval(5*time.Millisecond), viewsync.WithEvents(rec.add))
	if err != nil || lv.Epoch() != 1 {
		t.Fatalf("Follow = %v", err)
	}
	waitFor(t, "polls answered 304", func() bool { _, c := srv.counts(); return c >= 3 })
	if full, _ := srv.counts(); full != 1 {
		t.Fatalf("%d full answers for an unchanged document", full)
	}
	v2 := view(t, 2, nodes(6)...)
	doc2, _ := v2.ToJSON()
	srv.set(doc2, http.StatusOK)
	waitFor(t, "the second view", func() bool { return lv.Epoch() == 2 })
	srv.set(doc2, http.StatusServiceUnavailable)
	waitFor(t, "the failure to be recorded", func() bool { return lv.LastError() != nil })
	if !errors.Is(lv.LastError(), hrwhash.ErrIO) || lv.Epoch() != 2 {
		t.Fatalf("after a 503: %v, epoch %d", lv.LastError(), lv.Epoch())
	}
	srv.set(doc2, http.StatusOK)
	waitFor(t, "the error to clear", func() bool { return lv.LastError() == nil })
	conflict, _ := view(t, 2, "x", "y").ToJSON()
	srv.set(conflict, http.StatusOK)
	waitFor(t, "the conflict's refusal", func() bool { return errors.Is(lv.LastError(), hrwhash.ErrViewConflict) })
	if lv.Fingerprint() != v2.Fingerprint() {
		t.Fatal("a conflicting document was applied")
	}
	srv.set(doc2, http.StatusNotFound)
	if _, err := (viewsync.HTTP{URL: ts.URL}).Follow(ctx); !errors.Is(err, viewsync.ErrNotFound) {
		t.Fatalf("Follow of a URL answering 404 = %v", err)
	}
}
