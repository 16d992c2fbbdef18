// Command hrwhash-follow follows a view published in etcd (or a file, or an HTTP URL) and
// prints what happens to it, one JSON object per line, as conformance/LIVE-VIEW.md's follower
// protocol says: the fleet tests run one per language and compare their lines.
//
//	hrwhash-follow --etcd http://127.0.0.1:2379 --key /fleet/view --keys keys.txt
//	hrwhash-follow --file view.json --keys keys.txt
//	hrwhash-follow --url https://config.example/view.json --keys keys.txt
//
// Lines:
//
//	{"event":"applied","epoch":"<dec>","fingerprint":"<32 hex>","owners":"<sha256 hex>","t_ns":<unix ns>}
//	{"event":"refused","kind":"<error kind>","epoch":"<dec>" or null,"t_ns":...}
//	{"event":"source_error","kind":"<error kind or Io>","message":"...","t_ns":...}
//	{"event":"unchanged","epoch":"<dec>","t_ns":...}
//
// owners is the SHA-256 of the owner of every key of the keys file (one key a line), each owner
// id in hex, joined by line feeds. It runs until its standard input closes or it gets SIGTERM.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		// Standard input closing is the other way to stop.
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hrwhash-follow:", err)
		os.Exit(2)
	}
}

// source is one of the viewsync followers.
type source interface {
	Follow(ctx context.Context, opts ...viewsync.Option) (*hrwhash.LiveView, error)
}

// run follows until ctx ends; it fails only on bad arguments.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hrwhash-follow", flag.ContinueOnError)
	etcd := fs.String("etcd", "", "etcd client URL (the v3 JSON gateway), with --key")
	key := fs.String("key", "", "the etcd key holding the view")
	file := fs.String("file", "", "follow a view file instead")
	url := fs.String("url", "", "follow a view served over HTTP instead")
	keysPath := fs.String("keys", "", "file of keys, one a line, whose owners each applied line hashes")
	seedHex := fs.String("seed", "", "the seed in 32 hex digits, for a view with a secret seed")
	interval := fs.Duration("interval", time.Second, "poll interval of --file and --url")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var src source
	switch {
	case *etcd != "" && *key != "" && *file == "" && *url == "":
		src = viewsync.Etcd{Endpoint: *etcd, Key: *key}
	case *file != "" && *etcd == "" && *url == "":
		src = viewsync.File{Path: *file}
	case *url != "" && *etcd == "" && *file == "":
		src = viewsync.HTTP{URL: *url}
	default:
		return errors.New("give one source: --etcd URL --key KEY, --file PATH or --url URL")
	}
	if *keysPath == "" {
		return errors.New("--keys FILE is required")
	}
	keys, err := readKeys(*keysPath)
	if err != nil {
		return err
	}
	opts := []viewsync.Option{viewsync.WithInterval(*interval)}
	if *seedHex != "" {
		b, err := hex.DecodeString(*seedHex)
		if err != nil {
			return fmt.Errorf("--seed: %w", err)
		}
		seed, err := hrwhash.SeedFromBytes(b)
		if err != nil {
			return fmt.Errorf("--seed: %w", err)
		}
		opts = append(opts, viewsync.WithSeed(seed))
	}
	out := &printer{w: bufio.NewWriter(stdout), keys: keys}
	opts = append(opts, viewsync.WithEvents(out.event))
	// The first read retries like the follower's own reconnects until it finds a view.
	wait := 100 * time.Millisecond
	for {
		_, err := src.Follow(ctx, opts...)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		out.event(viewsync.Event{Kind: viewsync.SourceError, Time: time.Now(), Err: err})
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
	<-ctx.Done()
	return nil
}

// readKeys splits the file on line feeds; a final empty line is not a key.
func readKeys(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	keys := strings.Split(string(raw), "\n")
	if keys[len(keys)-1] == "" {
		keys = keys[:len(keys)-1]
	}
	return keys, nil
}

type printer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	keys []string
}

// ownersDigest is the owners field: SHA-256 of every key's owner id in hex, joined by "\n".
func ownersDigest(v *hrwhash.View, keys []string) string {
	h := sha256.New()
	p := v.Placement()
	for i, k := range keys {
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		io.WriteString(h, hex.EncodeToString([]byte(p.OwnerID(k))))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// kind is the error kind a line names: the hrwhash error's, else Io (the source's own).
func kind(err error) string {
	var e *hrwhash.Error
	if errors.As(err, &e) {
		return e.Code.String()
	}
	return "Io"
}

func (p *printer) event(ev viewsync.Event) {
	line := map[string]any{"event": ev.Kind.String(), "t_ns": ev.Time.UnixNano()}
	switch ev.Kind {
	case viewsync.Applied:
		line["epoch"] = strconv.FormatUint(ev.View.Epoch(), 10)
		line["fingerprint"] = ev.View.FingerprintHex()
		line["owners"] = ownersDigest(ev.View, p.keys)
	case viewsync.Unchanged:
		line["epoch"] = strconv.FormatUint(ev.View.Epoch(), 10)
	case viewsync.Refused:
		line["kind"] = kind(ev.Err)
		line["epoch"] = nil
		if ev.EpochKnown {
			line["epoch"] = strconv.FormatUint(ev.Epoch, 10)
		}
	case viewsync.SourceError:
		line["kind"] = kind(ev.Err)
		line["message"] = ev.Err.Error()
	}
	b, _ := json.Marshal(line)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.w.Write(append(b, '\n'))
	p.w.Flush()
}
