package viewsync_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/etcdtest"
	"github.com/hrwhash/hrwhash/go/internal/hrwtest"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

// The views and ids every test of this package builds.
var view = hrwtest.View

func nodes(n int) []string { return hrwtest.Numbered("node-", n) }

// recorder keeps a follower's events.
type recorder struct {
	mu     sync.Mutex
	events []viewsync.Event
}

func (r *recorder) add(ev viewsync.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []viewsync.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]viewsync.Event(nil), r.events...)
}

func (r *recorder) applied() []uint64 {
	var out []uint64
	for _, ev := range r.all() {
		if ev.Kind == viewsync.Applied {
			out = append(out, ev.Epoch)
		}
	}
	return out
}

// waitFor polls cond until it holds; a functional wait with a generous bound, not a timing check.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEtcdPublishEpochRule(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx := context.Background()
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/view"}

	if _, err := e.Follow(ctx); !errors.Is(err, viewsync.ErrNotFound) {
		t.Fatalf("Follow of a missing key = %v", err)
	}
	// An absent key takes the offered epoch, and 1 for epoch 0.
	got, changed, err := e.Publish(ctx, view(t, 0, nodes(5)...))
	if err != nil || !changed || got.Epoch() != 1 {
		t.Fatalf("first publish: %v changed %v err %v", got, changed, err)
	}
	// The same membership again, at any epoch: nothing is written and the stored epoch stays.
	for _, offered := range []uint64{0, 1, 50} {
		got, changed, err = e.Publish(ctx, view(t, offered, nodes(5)...))
		if err != nil || changed || got.Epoch() != 1 {
			t.Fatalf("publishing the same view at %d: epoch %d changed %v err %v", offered, got.Epoch(), changed, err)
		}
	}
	// Another membership: stored + 1, whatever lower epoch is offered.
	got, changed, err = e.Publish(ctx, view(t, 0, nodes(6)...))
	if err != nil || !changed || got.Epoch() != 2 {
		t.Fatalf("publishing 6 nodes: epoch %d changed %v err %v", got.Epoch(), changed, err)
	}
	// A higher offered epoch is a floor.
	got, changed, err = e.Publish(ctx, view(t, 40, nodes(5)...))
	if err != nil || !changed || got.Epoch() != 40 {
		t.Fatalf("publishing at offered epoch 40: epoch %d changed %v err %v", got.Epoch(), changed, err)
	}
	lv, err := e.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lv.Epoch() != 40 || lv.Fingerprint() != view(t, 0, nodes(5)...).Fingerprint() {
		t.Fatalf("the key holds epoch %d", lv.Epoch())
	}

	// A document that is no view is not overwritten.
	bad := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/garbage"}
	srv.Put(bad.Key, []byte("not a view"))
	if _, _, err := bad.Publish(ctx, view(t, 1, "a")); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Fatalf("publishing over a non-view: %v", err)
	}
}

// TestEtcdPublishersNeverShareAnEpoch races publishers of different memberships on one key:
// without the compare-and-swap two of them would read the same stored epoch and both write the
// next one.
func TestEtcdPublishersNeverShareAnEpoch(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx := context.Background()
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/race"}
	const publishers, rounds = 4, 25
	type result struct {
		epoch uint64
		fp    [16]byte
	}
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	errs := make(chan error, publishers)
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				// Two memberships per publisher, so that each publish changes the key.
				v := view(t, 0, nodes(3+p*2+r%2)...)
				got, changed, err := e.Publish(ctx, v)
				if errors.Is(err, viewsync.ErrContention) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				if changed {
					mu.Lock()
					results = append(results, result{got.Epoch(), got.Fingerprint()})
					mu.Unlock()
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[uint64][16]byte{}
	for _, r := range results {
		if fp, dup := seen[r.epoch]; dup {
			t.Fatalf("epoch %d was published twice (%x and %x)", r.epoch, fp, r.fp)
		}
		seen[r.epoch] = r.fp
	}
	// Every write advanced the epoch by one from 1: the epochs are exactly 1..len(results).
	for e := uint64(1); e <= uint64(len(results)); e++ {
		if _, ok := seen[e]; !ok {
			t.Fatalf("epoch %d missing among %d writes", e, len(results))
		}
	}
	if len(results) < publishers*rounds/2 {
		t.Fatalf("only %d of %d publishes changed the key", len(results), publishers*rounds)
	}
	t.Logf("%d writes by %d racing publishers, epochs 1..%d, none twice", len(results), publishers, len(results))
}

func TestEtcdWatchSeesEveryPublish(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/watch"}
	if _, _, err := e.Publish(ctx, view(t, 1, nodes(5)...)); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	lv, err := e.Follow(ctx, viewsync.WithEvents(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	var changes []uint64
	var cmu sync.Mutex
	lv.OnChange(func(tr *hrwhash.Transition) {
		cmu.Lock()
		changes = append(changes, lv.Epoch())
		cmu.Unlock()
	})
	want := []uint64{1}
	started := map[uint64]time.Time{}
	for i := 0; i < 20; i++ {
		start := time.Now()
		got, changed, err := e.Publish(ctx, view(t, 0, nodes(5+i%2+i%3)...))
		if err != nil {
			t.Fatal(err)
		}
		if changed {
			want = append(want, got.Epoch())
			started[got.Epoch()] = start
		}
	}
	last := want[len(want)-1]
	// The follower reports Applied after the swap and the OnChange callbacks: wait for the report
	// of the last epoch, not for the epoch alone, or the last report and change can be missing.
	waitFor(t, "the follower to report the last epoch applied", func() bool {
		a := rec.applied()
		return len(a) > 0 && a[len(a)-1] == last
	})
	got := rec.applied()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("applied epochs %v, published %v", got, want)
	}
	// For the record, not a check: from the start of Publish to the follower's swap.
	var lags []time.Duration
	for _, ev := range rec.all() {
		if start, ok := started[ev.Epoch]; ok && ev.Kind == viewsync.Applied {
			lags = append(lags, ev.Time.Sub(start))
		}
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	t.Logf("publish to applied, %d publishes: median %v, max %v", len(lags), lags[len(lags)/2], lags[len(lags)-1])
	cmu.Lock()
	defer cmu.Unlock()
	if fmt.Sprint(changes) != fmt.Sprint(want[1:]) {
		t.Fatalf("OnChange saw %v, published %v", changes, want[1:])
	}
	// A forged document: the same epoch, another membership, written behind the publisher.
	doc, _ := view(t, last, "forged-a", "forged-b").ToJSON()
	srv.Put(e.Key, doc)
	stale, _ := view(t, 1, nodes(5)...).ToJSON()
	srv.Put(e.Key, stale)
	srv.Put(e.Key, []byte(`{"format":"hrwhash-view-v1","epoch":"99"}`))
	waitFor(t, "three refusals", func() bool {
		n := 0
		for _, ev := range rec.all() {
			if ev.Kind == viewsync.Refused {
				n++
			}
		}
		return n == 3
	})
	var kinds []string
	for _, ev := range rec.all() {
		if ev.Kind == viewsync.Refused {
			kinds = append(kinds, fmt.Sprintf("%v@%d", ev.Err.(*hrwhash.Error).Code, ev.Epoch))
		}
	}
	if fmt.Sprint(kinds) != fmt.Sprintf("[ViewConflict@%d StaleView@1 InvalidView@99]", last) {
		t.Fatalf("refusals %v", kinds)
	}
	if lv.Epoch() != last || !errors.Is(lv.LastError(), hrwhash.ErrInvalidView) {
		t.Fatalf("after refusals: epoch %d, last error %v", lv.Epoch(), lv.LastError())
	}
}

func TestEtcdCompactedWatchRecoversWithAFullRead(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/compacted"}
	first, _, err := e.Publish(ctx, view(t, 1, nodes(5)...))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := first.ToJSON()
	rev := srv.Put("/unrelated", []byte("x")) - 1 // the revision that wrote the first view
	var last *hrwhash.View
	for i := 0; i < 3; i++ {
		if last, _, err = e.Publish(ctx, view(t, 0, nodes(6+i)...)); err != nil {
			t.Fatal(err)
		}
	}
	latest := srv.Put("/unrelated", []byte("y"))
	srv.Compact(latest)
	var rec recorder
	lv, err := viewsync.FollowFrom(ctx, e, doc, rev, viewsync.WithEvents(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the full read after the compaction", func() bool { return lv.Epoch() == last.Epoch() })
	evs := rec.all()
	compacted := false
	for _, ev := range evs {
		compacted = compacted || (ev.Kind == viewsync.SourceError && errors.Is(ev.Err, viewsync.ErrCompacted))
	}
	if !compacted {
		t.Fatalf("no compacted watch among %v", evs)
	}
	if got := rec.applied(); fmt.Sprint(got) != fmt.Sprint([]uint64{1, last.Epoch()}) {
		t.Fatalf("applied %v", got)
	}
	if lv.LastError() != nil {
		t.Fatalf("last error after recovering: %v", lv.LastError())
	}
	// The fresh watch follows the key.
	next, _, err := e.Publish(ctx, view(t, 0, nodes(4)...))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the publish after the recovery", func() bool { return lv.Epoch() == next.Epoch() })
}

func TestEtcdStoppedKeepsTheViewAndResumes(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/restart"}
	v1, _, err := e.Publish(ctx, view(t, 1, nodes(5)...))
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	lv, err := e.Follow(ctx, viewsync.WithEvents(rec.add))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	waitFor(t, "the follower to report the lost connection", func() bool { return lv.LastError() != nil })
	waitFor(t, "a failed reconnect", func() bool {
		n := 0
		for _, ev := range rec.all() {
			if ev.Kind == viewsync.SourceError {
				n++
			}
		}
		return n >= 2
	})
	if lv.Epoch() != v1.Epoch() || lv.Fingerprint() != v1.Fingerprint() {
		t.Fatal("the follower lost its view when etcd stopped")
	}
	for _, k := range []string{"a", "b", "c"} {
		if lv.Owner(k) != v1.Placement().OwnerID(k) {
			t.Fatal("lookups changed while etcd was down")
		}
	}
	srv.Restart()
	v2, _, err := e.Publish(ctx, view(t, 0, nodes(6)...))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the follower to resume", func() bool { return lv.Epoch() == v2.Epoch() })
	waitFor(t, "the error to clear", func() bool { return lv.LastError() == nil })
	// Still watching after the restart.
	v3, _, err := e.Publish(ctx, view(t, 0, nodes(7)...))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the next publish", func() bool { return lv.Epoch() == v3.Epoch() })
}

func TestEtcdFollowStopsWithItsContext(t *testing.T) {
	srv := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/hrwhash/cancel"}
	if _, _, err := e.Publish(ctx, view(t, 1, nodes(3)...)); err != nil {
		t.Fatal(err)
	}
	lv, err := e.Follow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(200 * time.Millisecond)
	if _, _, err := e.Publish(context.Background(), view(t, 0, nodes(4)...)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if lv.Epoch() != 1 {
		t.Fatalf("a follower whose context ended applied epoch %d", lv.Epoch())
	}
}
