package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/internal/etcdtest"
	"github.com/hrwhash/hrwhash/go/internal/hrwtest"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

func testView(t *testing.T, epoch uint64, n int) *hrwhash.View {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "node-" + string(rune('a'+i))
	}
	return hrwtest.View(t, epoch, ids...)
}

func keysFile(t *testing.T) (string, []string) {
	t.Helper()
	keys := []string{"user:1", "user:2", "", "caf\u00e9", "session:42"}
	path := filepath.Join(t.TempDir(), "keys.txt")
	// A final line feed ends the last key, it does not add an empty one.
	if err := os.WriteFile(path, []byte(strings.Join(keys, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, keys
}

// wantOwners is the protocol's owners digest, computed here from each key's owner.
func wantOwners(v *hrwhash.View, keys []string) string {
	var hexIDs []string
	for _, k := range keys {
		hexIDs = append(hexIDs, hex.EncodeToString([]byte(v.Placement().OwnerID(k))))
	}
	sum := sha256.Sum256([]byte(strings.Join(hexIDs, "\n")))
	return hex.EncodeToString(sum[:])
}

type lines struct {
	t  *testing.T
	ch chan map[string]any
}

func readLines(t *testing.T, r io.Reader) *lines {
	l := &lines{t: t, ch: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not a JSON line: %q", sc.Text())
				continue
			}
			l.ch <- m
		}
		close(l.ch)
	}()
	return l
}

// next returns the next line whose event is one of events, skipping others.
func (l *lines) next(events ...string) map[string]any {
	l.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-l.ch:
			if !ok {
				l.t.Fatalf("output ended waiting for %v", events)
			}
			if _, ok := m["t_ns"].(float64); !ok {
				l.t.Fatalf("line without t_ns: %v", m)
			}
			for _, e := range events {
				if m["event"] == e {
					return m
				}
			}
		case <-timeout:
			l.t.Fatalf("no %v line", events)
		}
	}
}

func TestFollowerProtocolOnEtcd(t *testing.T) {
	srv := etcdtest.Start(t)
	keysPath, keys := keysFile(t)
	e := viewsync.Etcd{Endpoint: srv.URL(), Key: "/fleet/view"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--etcd", srv.URL(), "--key", e.Key, "--keys", keysPath}, w)
		w.Close()
	}()
	out := readLines(t, r)
	// No view yet: source errors until one is published.
	if m := out.next("source_error", "applied"); m["event"] != "source_error" || m["kind"] != "Io" || m["message"] == "" {
		t.Fatalf("before any publish: %v", m)
	}
	v1, _, err := e.Publish(ctx, testView(t, 1, 5))
	if err != nil {
		t.Fatal(err)
	}
	m := out.next("applied")
	if m["epoch"] != "1" || m["fingerprint"] != v1.FingerprintHex() || m["owners"] != wantOwners(v1, keys) {
		t.Fatalf("first applied line %v", m)
	}
	v2, _, err := e.Publish(ctx, testView(t, 0, 6))
	if err != nil {
		t.Fatal(err)
	}
	m = out.next("applied", "refused")
	if m["event"] != "applied" || m["epoch"] != "2" || m["owners"] != wantOwners(v2, keys) || m["owners"] == wantOwners(v1, keys) {
		t.Fatalf("second line %v", m)
	}
	stale, _ := v1.ToJSON()
	srv.Put(e.Key, stale)
	if m = out.next("refused", "applied"); m["kind"] != "StaleView" || m["epoch"] != "1" {
		t.Fatalf("stale document: %v", m)
	}
	srv.Put(e.Key, []byte("{"))
	if m = out.next("refused", "applied"); m["kind"] != "InvalidJson" || m["epoch"] != nil {
		t.Fatalf("broken document: %v", m)
	}
	conflict, _ := testView(t, 2, 3).ToJSON()
	srv.Put(e.Key, conflict)
	if m = out.next("refused", "applied"); m["kind"] != "ViewConflict" || m["epoch"] != "2" {
		t.Fatalf("conflicting document: %v", m)
	}
	srv.Stop()
	if m = out.next("source_error", "applied"); m["event"] != "source_error" || m["kind"] != "Io" {
		t.Fatalf("etcd stopped: %v", m)
	}
	srv.Restart()
	// The key still holds the conflicting document: the full read after the reconnect refuses it.
	if m = out.next("refused", "applied", "unchanged"); m["event"] != "refused" || m["kind"] != "ViewConflict" {
		t.Fatalf("after the restart: %v", m)
	}
	v3, _, err := e.Publish(ctx, testView(t, 0, 4))
	if err != nil {
		t.Fatal(err)
	}
	if m = out.next("applied"); m["epoch"] != "3" || m["owners"] != wantOwners(v3, keys) {
		t.Fatalf("after the restart: %v", m)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the follower did not stop with its context")
	}
}

func TestFollowerArguments(t *testing.T) {
	keysPath, _ := keysFile(t)
	for _, args := range [][]string{
		{"--keys", keysPath},
		{"--etcd", "http://127.0.0.1:1", "--keys", keysPath},
		{"--etcd", "http://127.0.0.1:1", "--key", "k", "--file", "f", "--keys", keysPath},
		{"--file", "f"},
		{"--file", "f", "--keys", filepath.Join(t.TempDir(), "absent")},
		{"--file", "f", "--keys", keysPath, "--seed", "00"},
		{"--no-such-flag"},
	} {
		if err := run(context.Background(), args, io.Discard); err == nil {
			t.Errorf("run(%q) accepted", args)
		}
	}
}

// TestFollowerStopsWhenStdinCloses runs the built command on a file.
func TestFollowerStopsWhenStdinCloses(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hrwhash-follow")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	keysPath, keys := keysFile(t)
	v := testView(t, 4, 3)
	if _, _, err := (viewsync.File{Path: filepath.Join(dir, "view.json")}).Publish(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--file", filepath.Join(dir, "view.json"), "--keys", keysPath, "--interval", "10ms")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := readLines(t, stdout)
	if m := out.next("applied"); m["epoch"] != "4" || m["owners"] != wantOwners(v, keys) {
		t.Fatalf("applied line %v", m)
	}
	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the follower ran on after its standard input closed")
	}
}
