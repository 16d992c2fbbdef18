package viewsync

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

// Etcd is one key of an etcd cluster, reached through the v3 JSON gateway of Endpoint
// ("http://127.0.0.1:2379").
type Etcd struct {
	Endpoint string
	Key      string
	// Client sends the requests; nil for one without an overall timeout (a watch is a request
	// that lasts) that gives up connecting after 5 s.
	Client *http.Client
}

// etcdRequestTimeout bounds every request but the watch.
const etcdRequestTimeout = 10 * time.Second

// watchIdle is how long a watch may stay silent before it is replaced by a full read and a new
// watch: a connection that died without closing (a peer that vanished, a proxy that dropped it)
// sends nothing, and would otherwise leave the follower on its last view without a word.
// Atomic, so that a test may shorten it while followers of other tests still run.
var watchIdle atomic.Int64

func init() { watchIdle.Store(int64(60 * time.Second)) }

// errWatchIdle ends a watch that stayed silent for watchIdle: not a source error.
var errWatchIdle = errors.New("viewsync: the etcd watch was silent too long")

// maxPublishTries bounds the compare-and-swaps one Publish tries before giving up.
const maxPublishTries = 16

var defaultClient = &http.Client{Transport: &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 4,
}}

// ErrContention is Publish's error when other publishers won maxPublishTries compare-and-swaps
// in a row.
var ErrContention = errors.New("viewsync: other publishers changed the key on every try")

func (e Etcd) client() *http.Client {
	if e.Client != nil {
		return e.Client
	}
	return defaultClient
}

type etcdKV struct {
	Key            []byte `json:"key"`
	Value          []byte `json:"value"`
	CreateRevision int64  `json:"create_revision,string"`
	ModRevision    int64  `json:"mod_revision,string"`
}

type etcdHeader struct {
	Revision int64 `json:"revision,string"`
}

// etcdError is an error status of the gateway.
type etcdError struct {
	Status  int
	Message string
}

func (e *etcdError) Error() string {
	return fmt.Sprintf("viewsync: etcd answered %d: %s", e.Status, e.Message)
}

// call posts one JSON request to the gateway and decodes its answer.
func (e Etcd) call(ctx context.Context, path string, req, resp any) error {
	ctx, cancel := context.WithTimeout(ctx, etcdRequestTimeout)
	defer cancel()
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.Endpoint, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	res, err := e.client().Do(r)
	if err != nil {
		return fmt.Errorf("viewsync: etcd %s: %w", path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("viewsync: etcd %s: %w", path, err)
	}
	if res.StatusCode != http.StatusOK {
		return &etcdError{Status: res.StatusCode, Message: strings.TrimSpace(string(raw))}
	}
	if err := json.Unmarshal(raw, resp); err != nil {
		return fmt.Errorf("viewsync: etcd %s: %w", path, err)
	}
	return nil
}

// maxResponseBytes bounds what one answer of the gateway may hold: a view document of the
// largest size VIEW.md allows, base64-encoded, with room for the rest.
const maxResponseBytes = 2<<30 - 1

// get reads the key: its value (nil, false when absent) and the revision of the read.
func (e Etcd) get(ctx context.Context) (kv *etcdKV, rev int64, err error) {
	var resp struct {
		Header etcdHeader `json:"header"`
		Kvs    []etcdKV   `json:"kvs"`
	}
	if err := e.call(ctx, "/v3/kv/range", map[string]any{"key": []byte(e.Key)}, &resp); err != nil {
		return nil, 0, err
	}
	if len(resp.Kvs) == 0 {
		return nil, resp.Header.Revision, nil
	}
	return &resp.Kvs[0], resp.Header.Revision, nil
}

// Follow reads the key, makes a LiveView of its view, and follows the key until ctx ends: a
// watch from the read's revision, and after a lost connection or a compaction a full read and a
// fresh watch. The first read's error (a missing key is ErrNotFound) is returned, with no
// LiveView.
func (e Etcd) Follow(ctx context.Context, opts ...Option) (*hrwhash.LiveView, error) {
	f := &follower{cfg: configure(opts)}
	kv, rev, err := e.get(ctx)
	if err != nil {
		return nil, err
	}
	if kv == nil {
		return nil, ErrNotFound
	}
	if err := f.first(kv.Value); err != nil {
		return nil, err
	}
	go e.follow(ctx, f, rev)
	return f.lv, nil
}

func (e Etcd) follow(ctx context.Context, f *follower, rev int64) {
	var b backoff
	for {
		err := e.watch(ctx, f, rev+1)
		if ctx.Err() != nil {
			return
		}
		// A compacted or silent watch needs no wait: etcd answered, or may simply have had
		// nothing to say. Only the compaction is worth reporting.
		wait := time.Duration(0)
		if !errors.Is(err, errWatchIdle) {
			f.sourceError(err)
			if !errors.Is(err, ErrCompacted) {
				wait = b.wait()
			}
		}
		for {
			if !sleep(ctx, wait) {
				return
			}
			var kv *etcdKV
			kv, rev, err = e.get(ctx)
			if err == nil {
				b.reset()
				if kv == nil {
					f.sourceError(ErrNotFound)
				} else {
					f.offer(kv.Value)
				}
				break
			}
			if ctx.Err() != nil {
				return
			}
			f.sourceError(err)
			wait = b.wait()
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// watch follows the key from revision start until the stream ends; it always returns an error
// (ErrCompacted when etcd compacted start away).
func (e Etcd) watch(ctx context.Context, f *follower, start int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"create_request": map[string]any{
		"key": []byte(e.Key), "start_revision": strconv.FormatInt(start, 10),
	}})
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.Endpoint, "/")+"/v3/watch", bytes.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/json")
	res, err := e.client().Do(r)
	if err != nil {
		return fmt.Errorf("viewsync: etcd watch: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return &etcdError{Status: res.StatusCode, Message: strings.TrimSpace(string(raw))}
	}
	// Every message restarts the idle timer; when it fires, the watch's context ends, which
	// closes the stream and ends Decode.
	var idle atomic.Bool
	idleFor := time.Duration(watchIdle.Load())
	timer := time.AfterFunc(idleFor, func() { idle.Store(true); cancel() })
	defer timer.Stop()
	dec := json.NewDecoder(bufio.NewReader(res.Body))
	for {
		var msg struct {
			Result *struct {
				Created         bool   `json:"created"`
				Canceled        bool   `json:"canceled"`
				CompactRevision int64  `json:"compact_revision,string"`
				CancelReason    string `json:"cancel_reason"`
				Events          []struct {
					Type string `json:"type"`
					KV   etcdKV `json:"kv"`
				} `json:"events"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := dec.Decode(&msg); err != nil {
			if idle.Load() {
				return errWatchIdle
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("viewsync: etcd watch: %w", err)
		}
		timer.Reset(idleFor)
		if msg.Error != nil {
			return &etcdError{Status: http.StatusOK, Message: msg.Error.Message}
		}
		res := msg.Result
		if res == nil {
			continue
		}
		if res.CompactRevision != 0 {
			return fmt.Errorf("%w at revision %d", ErrCompacted, res.CompactRevision)
		}
		if res.Canceled {
			return fmt.Errorf("viewsync: etcd canceled the watch: %s", res.CancelReason)
		}
		for _, ev := range res.Events {
			if ev.Type == "DELETE" {
				f.sourceError(fmt.Errorf("%w: the key was deleted", ErrNotFound))
				continue
			}
			f.offer(ev.KV.Value)
		}
	}
}

// Publish writes view to the key as the one authority (LIVE-VIEW.md, Publishing) and returns
// the view the key holds afterwards and whether Publish changed it. A key without a view gets
// the view at its own epoch (1 for epoch 0). A key whose view has the same fingerprint is left
// as it is (its epoch is kept). Otherwise the epoch becomes max(stored + 1, view's epoch) and
// the document is written only if the key has not changed since it was read (a compare-and-swap
// on its revision); a lost compare reads again, up to 16 times (then ErrContention). Two
// publishers therefore never give one epoch two views, and the epoch never goes back. A stored
// document that is not a view of the same seed is an error: Publish does not overwrite it.
func (e Etcd) Publish(ctx context.Context, view *hrwhash.View) (*hrwhash.View, bool, error) {
	if view == nil || view.Placement() == nil {
		return nil, false, hrwhash.ErrNullParameter
	}
	// encoding/json writes []byte in base64, as the gateway wants keys and values.
	key := []byte(e.Key)
	seed := hrwhash.WithSeed(view.Placement().Seed())
	for try := 0; try < maxPublishTries; try++ {
		kv, _, err := e.get(ctx)
		if err != nil {
			return nil, false, err
		}
		next := view
		var compare map[string]any
		if kv == nil {
			next, err = view.WithEpoch(firstEpoch(view.Epoch()))
			compare = map[string]any{"key": key, "target": "CREATE", "result": "EQUAL", "create_revision": "0"}
		} else {
			stored, err := hrwhash.ViewFromJSON(kv.Value, seed)
			if err != nil {
				return nil, false, fmt.Errorf("viewsync: the view stored at %q: %w", e.Key, err)
			}
			if stored.Fingerprint() == view.Fingerprint() {
				return stored, false, nil
			}
			epoch, err := nextEpoch(stored.Epoch(), view.Epoch())
			if err != nil {
				return nil, false, err
			}
			next, err = view.WithEpoch(epoch)
			if err != nil {
				return nil, false, err
			}
			compare = map[string]any{"key": key, "target": "MOD", "result": "EQUAL", "mod_revision": strconv.FormatInt(kv.ModRevision, 10)}
		}
		if err != nil {
			return nil, false, err
		}
		doc, err := next.ToJSON()
		if err != nil {
			return nil, false, err
		}
		var resp struct {
			Succeeded bool `json:"succeeded"`
		}
		txn := map[string]any{
			"compare": []any{compare},
			"success": []any{map[string]any{"request_put": map[string]any{"key": key, "value": doc}}},
		}
		if err := e.call(ctx, "/v3/kv/txn", txn, &resp); err != nil {
			return nil, false, err
		}
		if resp.Succeeded {
			return next, true, nil
		}
	}
	return nil, false, ErrContention
}
