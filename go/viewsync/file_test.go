package viewsync_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

func TestFilePublishEpochRule(t *testing.T) {
	f := viewsync.File{Path: filepath.Join(t.TempDir(), "view.json")}
	got, changed, err := f.Publish(context.Background(), view(t, 0, nodes(3)...))
	if err != nil || !changed || got.Epoch() != 1 {
		t.Fatalf("first publish: %v %v", changed, err)
	}
	before, _ := os.Stat(f.Path)
	got, changed, err = f.Publish(context.Background(), view(t, 9, nodes(3)...))
	if err != nil || changed || got.Epoch() != 1 {
		t.Fatalf("same view: epoch %d changed %v err %v", got.Epoch(), changed, err)
	}
	if after, _ := os.Stat(f.Path); !os.SameFile(before, after) {
		t.Fatal("an unchanged publish replaced the file")
	}
	if got, changed, err = f.Publish(context.Background(), view(t, 0, nodes(4)...)); err != nil || !changed || got.Epoch() != 2 {
		t.Fatalf("another view: epoch %d changed %v err %v", got.Epoch(), changed, err)
	}
	if got, _, err = f.Publish(context.Background(), view(t, 30, nodes(5)...)); err != nil || got.Epoch() != 30 {
		t.Fatalf("offered 30: epoch %d err %v", got.Epoch(), err)
	}
	stored, err := hrwhash.ViewFromFile(f.Path)
	if err != nil || !stored.Equal(got) {
		t.Fatalf("the file holds %v (%v)", stored, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(f.Path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := os.WriteFile(f.Path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Publish(context.Background(), view(t, 1, "a")); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Fatalf("publishing over a non-view: %v", err)
	}
	if raw, _ := os.ReadFile(f.Path); string(raw) != "{" {
		t.Fatal("a non-view was overwritten")
	}
}

// replace puts doc at path the way publishers must: a rename over it.
func replace(t *testing.T, path string, doc []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestFileFollow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := viewsync.File{Path: filepath.Join(t.TempDir(), "view.json")}
	if _, err := f.Follow(ctx); !errors.Is(err, viewsync.ErrNotFound) {
		t.Fatalf("Follow of a missing file = %v", err)
	}
	v1, _, err := f.Publish(context.Background(), view(t, 1, nodes(5)...))
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	lv, err := f.Follow(ctx, viewsync.WithInterval(5*time.Millisecond), viewsync.WithEvents(rec.add))
	if err != nil || lv.Epoch() != 1 {
		t.Fatalf("Follow = %v", err)
	}
	v2, _, err := f.Publish(context.Background(), view(t, 0, nodes(6)...))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second view", func() bool { return lv.Epoch() == v2.Epoch() })
	if !lv.Moving() {
		t.Fatal("no move after a file change")
	}
	// A stale document renamed over the file is refused and the view kept.
	stale, _ := v1.ToJSON()
	replace(t, f.Path, stale)
	waitFor(t, "the stale document's refusal", func() bool { return errors.Is(lv.LastError(), hrwhash.ErrStaleView) })
	// The file removed: a source error, the view kept.
	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the missing file's error", func() bool { return errors.Is(lv.LastError(), viewsync.ErrNotFound) })
	if lv.Epoch() != v2.Epoch() || lv.Fingerprint() != v2.Fingerprint() {
		t.Fatal("the view changed while the file was bad")
	}
	v3 := view(t, 7, nodes(4)...)
	doc, _ := v3.ToJSON()
	replace(t, f.Path, doc)
	waitFor(t, "the third view", func() bool { return lv.Epoch() == 7 })
	waitFor(t, "the error to clear", func() bool { return lv.LastError() == nil })
	var kinds []string
	for _, ev := range rec.all() {
		if len(kinds) == 0 || kinds[len(kinds)-1] != ev.Kind.String() {
			kinds = append(kinds, ev.Kind.String())
		}
	}
	want := "[applied refused source_error applied]"
	if got := fmtList(kinds); got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func TestPublishRampStepByStep(t *testing.T) {
	ctx := context.Background()
	f := viewsync.File{Path: filepath.Join(t.TempDir(), "view.json")}
	old, _, err := f.Publish(ctx, view(t, 1, nodes(5)...))
	if err != nil {
		t.Fatal(err)
	}
	next := view(t, 0, nodes(6)...)
	plan, err := hrwhash.NewRampPlan(old, next, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Len() < 3 {
		t.Fatalf("a ramp of %d steps", plan.Len())
	}
	const interval = 20 * time.Millisecond
	start := time.Now()
	stored, err := viewsync.PublishRamp(ctx, f, plan, interval)
	elapsed := time.Since(start)
	if err != nil || len(stored) != plan.Len() {
		t.Fatalf("PublishRamp: %d views, %v", len(stored), err)
	}
	for i, s := range plan.Steps() {
		step, _ := plan.View(i)
		if stored[i].Epoch() != s.Epoch || stored[i].Fingerprint() != step.Fingerprint() {
			t.Fatalf("step %d stored at epoch %d, planned %d", i, stored[i].Epoch(), s.Epoch)
		}
	}
	final, err := hrwhash.ViewFromFile(f.Path)
	if err != nil || final.Fingerprint() != next.Fingerprint() {
		t.Fatalf("the file after the ramp: %v", err)
	}
	// The minimum interval is a promise to the stores: never less between two steps.
	if min := time.Duration(plan.Len()-1) * interval; elapsed < min {
		t.Fatalf("%d steps in %v, less than %v", plan.Len(), elapsed, min)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := viewsync.PublishRamp(cancelled, f, plan, interval); !errors.Is(err, context.Canceled) {
		t.Fatalf("PublishRamp with an ended context: %v", err)
	}
	if _, err := viewsync.PublishRamp(ctx, nil, plan, interval); !errors.Is(err, hrwhash.ErrNullParameter) {
		t.Fatalf("PublishRamp to nil: %v", err)
	}
}
