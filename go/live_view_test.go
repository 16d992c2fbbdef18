package hrwhash_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/hrwtest"
)

func newLive(t testing.TB, v *hrwhash.View, opts ...hrwhash.LiveOption) *hrwhash.LiveView {
	t.Helper()
	lv, err := hrwhash.NewLiveView(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return lv
}

func TestLiveViewNilView(t *testing.T) {
	if _, err := hrwhash.NewLiveView(nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Fatalf("NewLiveView(nil) = %v", err)
	}
	lv := newLive(t, hrwtest.View(t, 1, "a", "b"))
	if _, err := lv.Update(nil); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Fatalf("Update(nil) = %v", err)
	}
	if !errors.Is(lv.LastError(), hrwhash.ErrNullParameter) || lv.Epoch() != 1 {
		t.Fatalf("after Update(nil): last error %v, epoch %d", lv.LastError(), lv.Epoch())
	}
	// A LiveView not made by NewLiveView.
	for _, bad := range []*hrwhash.LiveView{nil, {}} {
		if _, err := bad.Update(hrwtest.View(t, 2, "a")); !errors.Is(err, hrwhash.ErrNullParameter) {
			t.Fatalf("Update on an unusable LiveView: %v", err)
		}
		if bad.FinishMove() || !errors.Is(bad.LastError(), hrwhash.ErrNullParameter) {
			t.Fatal("FinishMove or LastError on an unusable LiveView")
		}
		bad.OnChange(func(*hrwhash.Transition) {})
		bad.ReportError(errors.New("x"))
		for name, lookup := range map[string]func(){
			"Owner": func() { bad.Owner("k") }, "Route": func() { bad.Route("k") },
			"Snapshot": func() { bad.Snapshot() }, "Epoch": func() { bad.Epoch() },
			"SinceUpdate": func() { bad.SinceUpdate() }, "MoveDeadline": func() { bad.MoveDeadline() },
		} {
			func() {
				defer func() {
					if err, _ := recover().(error); !errors.Is(err, hrwhash.ErrNullParameter) {
						t.Errorf("%s on an unusable LiveView panicked with %v", name, err)
					}
				}()
				lookup()
			}()
		}
	}
}

func TestLiveViewRefusesAnotherSeed(t *testing.T) {
	v1 := hrwtest.View(t, 1, "a", "b", "c")
	lv := newLive(t, v1)
	seed, _ := hrwhash.SeedFromBytes([]byte("0123456789abcdef"))
	p, err := hrwhash.NewNodes([]hrwhash.Node{{ID: "a"}, {ID: "b"}, {ID: "c"}}, hrwhash.WithSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := hrwhash.NewView(p, 9)
	// The seed is checked first: a higher epoch does not make the view acceptable.
	_, err = lv.Update(other)
	if !errors.Is(err, hrwhash.ErrSeedMismatch) {
		t.Fatalf("Update(other seed) = %v", err)
	}
	if lv.Epoch() != 1 || lv.Fingerprint() != v1.Fingerprint() || lv.Moving() {
		t.Fatalf("a refused view changed the live view: epoch %d moving %v", lv.Epoch(), lv.Moving())
	}
	if !errors.Is(lv.LastError(), hrwhash.ErrSeedMismatch) {
		t.Fatalf("LastError = %v", lv.LastError())
	}
}

func TestLiveViewRefusesALowerEpoch(t *testing.T) {
	v5 := hrwtest.View(t, 5, "a", "b", "c")
	lv := newLive(t, v5)
	for _, stale := range []*hrwhash.View{hrwtest.View(t, 4, "a", "b", "c"), hrwtest.View(t, 0, "x", "y")} {
		_, err := lv.Update(stale)
		var e *hrwhash.Error
		if !errors.Is(err, hrwhash.ErrStaleView) || !errors.As(err, &e) {
			t.Fatalf("Update(epoch %d) = %v", stale.Epoch(), err)
		}
		if e.Epoch != stale.Epoch() || e.Current != 5 {
			t.Fatalf("StaleView fields: epoch %d current %d, want %d and 5", e.Epoch, e.Current, stale.Epoch())
		}
		if e.Code.String() != "StaleView" {
			t.Fatalf("code name %q", e.Code)
		}
		if lv.Epoch() != 5 || lv.Fingerprint() != v5.Fingerprint() || !errors.Is(lv.LastError(), hrwhash.ErrStaleView) {
			t.Fatalf("after a stale view: epoch %d, last error %v", lv.Epoch(), lv.LastError())
		}
	}
}

func TestLiveViewSameEpochSameViewIsUnchanged(t *testing.T) {
	v3 := hrwtest.View(t, 3, "a", "b")
	lv := newLive(t, v3)
	lv.ReportError(errors.New("connection refused"))
	calls := 0
	lv.OnChange(func(*hrwhash.Transition) { calls++ })
	// Built again from its ids: equal by content, not the same value.
	out, err := lv.Update(hrwtest.View(t, 3, "b", "a"))
	if err != nil || out != hrwhash.UpdateUnchanged || out.String() != "unchanged" {
		t.Fatalf("Update(same) = %v, %v", out, err)
	}
	if calls != 0 || lv.Moving() || lv.LastError() != nil {
		t.Fatalf("unchanged: %d callbacks, moving %v, last error %v", calls, lv.Moving(), lv.LastError())
	}
}

func TestLiveViewSameEpochOtherViewIsAConflict(t *testing.T) {
	v3 := hrwtest.View(t, 3, "a", "b")
	lv := newLive(t, v3)
	_, err := lv.Update(hrwtest.View(t, 3, "a", "b", "c"))
	var e *hrwhash.Error
	if !errors.Is(err, hrwhash.ErrViewConflict) || !errors.As(err, &e) || e.Epoch != 3 {
		t.Fatalf("Update(same epoch, other members) = %v", err)
	}
	if lv.Fingerprint() != v3.Fingerprint() || lv.Moving() || !errors.Is(lv.LastError(), hrwhash.ErrViewConflict) {
		t.Fatalf("a conflicting view changed the live view")
	}
}

func TestLiveViewAppliesAHigherEpochAndRoutesTheMove(t *testing.T) {
	v1 := hrwtest.View(t, 1, "a", "b", "c")
	v2 := hrwtest.View(t, 2, "a", "b", "c", "d")
	lv := newLive(t, v1)
	lv.ReportError(errors.New("an earlier source error"))
	var seen []*hrwhash.Transition
	lv.OnChange(func(tr *hrwhash.Transition) {
		// After the swap: the callback already sees the new view.
		if lv.Epoch() != 2 || !lv.Moving() {
			t.Errorf("in the callback: epoch %d moving %v", lv.Epoch(), lv.Moving())
		}
		seen = append(seen, tr)
	})
	out, err := lv.Update(v2)
	if err != nil || out != hrwhash.UpdateApplied || out.String() != "applied" {
		t.Fatalf("Update(higher) = %v, %v", out, err)
	}
	if len(seen) != 1 || seen[0].OldPlacement().Len() != 3 || seen[0].NewPlacement().Len() != 4 {
		t.Fatalf("callbacks: %d", len(seen))
	}
	if lv.LastError() != nil || lv.Epoch() != 2 || lv.Fingerprint() != v2.Fingerprint() || lv.FingerprintHex() != v2.FingerprintHex() || !lv.Moving() {
		t.Fatalf("after applying: last error %v epoch %d moving %v", lv.LastError(), lv.Epoch(), lv.Moving())
	}
	snap := lv.Snapshot()
	if snap.Current() != v2 || snap.Previous() != v1 || !snap.Moving() || snap.Transition() != seen[0] {
		t.Fatalf("Snapshot during the move: %+v", snap)
	}
	moved := 0
	for _, k := range hrwtest.Numbered("key-", 2000) {
		old, next := v1.Placement().OwnerID(k), v2.Placement().OwnerID(k)
		r := lv.Route(k)
		if r.Read != old || r.Write != next || r.Moved != (old != next) || lv.Owner(k) != next {
			t.Fatalf("Route(%s) = %+v, owners %s -> %s", k, r, old, next)
		}
		if r.Moved {
			moved++
		}
		if snap.Route(k) != r || snap.Owner(k) != next {
			t.Fatalf("the snapshot's Route(%s) = %+v, the live view's %+v", k, snap.Route(k), r)
		}
	}
	if moved == 0 || moved == 2000 {
		t.Fatalf("%d of 2000 keys moved from 3 to 4 nodes", moved)
	}

	if !lv.FinishMove() {
		t.Fatal("FinishMove found no move")
	}
	if lv.Current() != v2 || lv.Snapshot().Previous() != nil || lv.Snapshot().Transition() != nil || lv.Snapshot().Moving() || lv.Moving() {
		t.Fatalf("Snapshot after FinishMove: %+v", lv.Snapshot())
	}
	// The snapshot taken during the move still answers from both views.
	if !snap.Moving() || snap.Previous() != v1 {
		t.Fatal("an earlier snapshot changed")
	}
	for _, k := range hrwtest.Numbered("key-", 200) {
		w := v2.Placement().OwnerID(k)
		if r := lv.Route(k); r != (hrwhash.LiveRoute{Read: w, Write: w}) {
			t.Fatalf("Route(%s) after the move = %+v", k, r)
		}
	}
	if lv.FinishMove() || lv.Epoch() != 2 || lv.Moving() {
		t.Fatal("a second FinishMove changed the live view")
	}
}

func TestLiveViewHigherEpochSameMembersStillBeginsAMove(t *testing.T) {
	lv := newLive(t, hrwtest.View(t, 1, "a", "b"))
	calls := 0
	lv.OnChange(func(tr *hrwhash.Transition) {
		calls++
		if tr.ExpectedMoved() != 0 {
			t.Errorf("same members: expected moved %v", tr.ExpectedMoved())
		}
	})
	out, err := lv.Update(hrwtest.View(t, 7, "a", "b"))
	if err != nil || out != hrwhash.UpdateApplied || calls != 1 || lv.Epoch() != 7 || !lv.Moving() {
		t.Fatalf("Update(same members, higher epoch) = %v, %v; calls %d moving %v", out, err, calls, lv.Moving())
	}
	for _, k := range hrwtest.Numbered("key-", 100) {
		if r := lv.Route(k); r.Moved || r.Read != r.Write {
			t.Fatalf("nothing moves, yet Route(%s) = %+v", k, r)
		}
	}
}

func TestLiveViewANewUpdateReplacesTheMove(t *testing.T) {
	v1 := hrwtest.View(t, 1, "a", "b", "c")
	v2 := hrwtest.View(t, 2, "a", "b", "c", "d")
	v3 := hrwtest.View(t, 3, "a", "b", "c", "d", "e")
	lv := newLive(t, v1)
	for _, v := range []*hrwhash.View{v2, v3} {
		if _, err := lv.Update(v); err != nil {
			t.Fatal(err)
		}
	}
	snap := lv.Snapshot()
	if snap.Current() != v3 || snap.Previous() != v2 || !snap.Moving() {
		t.Fatalf("after two updates the move is %v -> %v, want epoch 2 -> 3", snap.Previous().Epoch(), snap.Current().Epoch())
	}
	for _, k := range hrwtest.Numbered("key-", 500) {
		if r := lv.Route(k); r.Read != v2.Placement().OwnerID(k) {
			t.Fatalf("Route(%s) reads from %s, the owner at epoch 2 is %s", k, r.Read, v2.Placement().OwnerID(k))
		}
	}
}

func TestLiveViewMoveDeadline(t *testing.T) {
	v1 := hrwtest.View(t, 1, "a", "b", "c")
	v2 := hrwtest.View(t, 2, "a", "b", "c", "d")
	// A deadline that has passed by the time Update returns: the move is over.
	lv := newLive(t, v1, hrwhash.WithMoveDeadline(time.Nanosecond))
	if _, err := lv.Update(v2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	if snap := lv.Snapshot(); snap.Moving() || snap.Previous() != nil || lv.Moving() || lv.MoveDeadline() != time.Nanosecond {
		t.Fatal("the move outlived its deadline")
	}
	if lv.FinishMove() {
		t.Fatal("FinishMove after the deadline reported a move in progress")
	}
	for _, k := range hrwtest.Numbered("key-", 300) {
		if r := lv.Route(k); r.Moved || r.Read != v2.Placement().OwnerID(k) {
			t.Fatalf("Route(%s) after the deadline = %+v", k, r)
		}
	}
	// One that has not: the move lasts.
	lv = newLive(t, v1, hrwhash.WithMoveDeadline(time.Hour))
	if _, err := lv.Update(v2); err != nil {
		t.Fatal(err)
	}
	if !lv.Moving() {
		t.Fatal("the move ended an hour early")
	}
	// Without a deadline (or with a non-positive one), only FinishMove ends it.
	lv = newLive(t, v1, hrwhash.WithMoveDeadline(-time.Second))
	if _, err := lv.Update(v2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	if !lv.Moving() || lv.MoveDeadline() != 0 {
		t.Fatal("a negative deadline ended the move")
	}
}

func TestLiveViewCallbackPanicIsRecorded(t *testing.T) {
	lv := newLive(t, hrwtest.View(t, 1, "a", "b"))
	after := 0
	lv.OnChange(func(*hrwhash.Transition) { panic("the cache is gone") })
	lv.OnChange(func(*hrwhash.Transition) { after++ })
	out, err := lv.Update(hrwtest.View(t, 2, "a", "b", "c"))
	if err != nil || out != hrwhash.UpdateApplied || lv.Epoch() != 2 {
		t.Fatalf("Update with a panicking callback = %v, %v", out, err)
	}
	if after != 1 || !errors.Is(lv.LastError(), hrwhash.ErrPanic) {
		t.Fatalf("later callbacks %d, last error %v", after, lv.LastError())
	}
	// The holder still works.
	if _, err := lv.Update(hrwtest.View(t, 2, "a", "b", "c")); err != nil || lv.LastError() != nil {
		t.Fatalf("confirming after the panic: %v, last error %v", err, lv.LastError())
	}
}

func TestLiveViewCallbackMayFinishTheMove(t *testing.T) {
	lv := newLive(t, hrwtest.View(t, 1, "a", "b"))
	lv.OnChange(func(*hrwhash.Transition) { lv.FinishMove() })
	if _, err := lv.Update(hrwtest.View(t, 2, "a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	if lv.Moving() {
		t.Fatal("FinishMove in the callback did not end the move")
	}
}

func TestLiveViewSinceUpdateAndReportError(t *testing.T) {
	lv := newLive(t, hrwtest.View(t, 1, "a", "b"))
	time.Sleep(20 * time.Millisecond)
	before := lv.SinceUpdate()
	if before < 20*time.Millisecond {
		t.Fatalf("SinceUpdate %v after sleeping 20ms", before)
	}
	source := errors.New("etcd: connection refused")
	lv.ReportError(source)
	lv.ReportError(nil)
	if lv.LastError() != source || lv.SinceUpdate() < before {
		t.Fatalf("ReportError: last error %v", lv.LastError())
	}
	// A refusal does not confirm the view.
	if _, err := lv.Update(hrwtest.View(t, 0, "a", "b")); err == nil || lv.SinceUpdate() < before {
		t.Fatalf("a refused update restarted SinceUpdate (%v)", err)
	}
	if _, err := lv.Update(hrwtest.View(t, 1, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if lv.SinceUpdate() >= before || lv.LastError() != nil {
		t.Fatalf("an unchanged update: SinceUpdate %v (was %v), last error %v", lv.SinceUpdate(), before, lv.LastError())
	}
}

// TestLiveViewReadersDuringUpdates checks under the race detector that lookups running while
// another goroutine updates see whole snapshots: the previous view is always the epoch before the
// current one, and every route is a pair of owners of two consecutive views.
func TestLiveViewReadersDuringUpdates(t *testing.T) {
	idsA := []string{"a", "b", "c", "d", "e"}
	idsB := []string{"a", "b", "c", "d", "e", "f"}
	const updates = 400
	views := make([]*hrwhash.View, updates+1)
	for e := range views {
		ids := idsA
		if e%2 == 1 {
			ids = idsB
		}
		views[e] = hrwtest.View(t, uint64(e), ids...)
	}
	keys := hrwtest.Numbered("key-", 64)
	ownerA := make(map[string]string)
	ownerB := make(map[string]string)
	for _, k := range keys {
		ownerA[k], ownerB[k] = views[0].Placement().OwnerID(k), views[1].Placement().OwnerID(k)
	}
	lv := newLive(t, views[0])
	var changes atomic.Int64
	lv.OnChange(func(*hrwhash.Transition) { changes.Add(1) })
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !done.Load() || n < 100; n++ {
				snap := lv.Snapshot()
				cur, prev := snap.Current(), snap.Previous()
				if snap.Moving() && (prev == nil || prev.Epoch()+1 != cur.Epoch() || snap.Transition() == nil) {
					errs <- fmt.Errorf("snapshot: moving from %v to epoch %d", prev, cur.Epoch())
					return
				}
				if cur.Fingerprint() != views[cur.Epoch()].Fingerprint() {
					errs <- fmt.Errorf("epoch %d holds another view", cur.Epoch())
					return
				}
				k := keys[n%len(keys)]
				route := lv.Route(k)
				a, b := ownerA[k], ownerB[k]
				ok := route == hrwhash.LiveRoute{Read: a, Write: a} ||
					route == hrwhash.LiveRoute{Read: a, Write: b, Moved: a != b} ||
					route == hrwhash.LiveRoute{Read: b, Write: a, Moved: a != b}
				if !ok {
					errs <- fmt.Errorf("Route(%s) = %+v, owners %s / %s", k, route, a, b)
					return
				}
				if o := lv.Owner(k); o != a && o != b {
					errs <- fmt.Errorf("Owner(%s) = %s", k, o)
					return
				}
				_ = lv.Epoch()
				_ = lv.Moving()
				_ = lv.LastError()
			}
		}()
	}
	for e := 1; e <= updates; e++ {
		if out, err := lv.Update(views[e]); err != nil || out != hrwhash.UpdateApplied {
			t.Fatalf("Update(epoch %d) = %v, %v", e, out, err)
		}
		// Refusals in between change nothing the readers can see.
		if _, err := lv.Update(views[e-1]); !errors.Is(err, hrwhash.ErrStaleView) {
			t.Fatalf("stale epoch %d: %v", e-1, err)
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if changes.Load() != updates || lv.Epoch() != updates {
		t.Fatalf("%d callbacks for %d updates, epoch %d", changes.Load(), updates, lv.Epoch())
	}
}

// The cost of a lookup through a LiveView beside the same lookup on its placement, with no move
// and during one, and with lookups on every CPU while one goroutine keeps updating.
func BenchmarkLiveView(b *testing.B) {
	ids := make([]string, 64)
	for i := range ids {
		ids[i] = fmt.Sprintf("node-%02d", i)
	}
	v1 := hrwtest.View(b, 1, ids...)
	v2 := hrwtest.View(b, 2, ids[:63]...)
	keys := hrwtest.Numbered("key-", 1024)
	b.Run("placement-owner", func(b *testing.B) {
		p := v1.Placement()
		for i := 0; i < b.N; i++ {
			_ = p.OwnerID(keys[i&1023])
		}
	})
	lv := newLive(b, v1)
	b.Run("owner", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = lv.Owner(keys[i&1023])
		}
	})
	b.Run("route", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = lv.Route(keys[i&1023])
		}
	})
	moving := newLive(b, v1)
	if _, err := moving.Update(v2); err != nil {
		b.Fatal(err)
	}
	b.Run("route-moving", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = moving.Route(keys[i&1023])
		}
	})
	b.Run("owner-parallel-with-updates", func(b *testing.B) {
		busy := newLive(b, v1)
		views := []*hrwhash.View{v1, v2}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for e := uint64(2); ; e++ {
				select {
				case <-stop:
					return
				default:
				}
				v, _ := views[e%2].WithEpoch(e)
				_, _ = busy.Update(v)
			}
		}()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				_ = busy.Owner(keys[i&1023])
				i++
			}
		})
		close(stop)
		<-done
	})
}
