package viewsync

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

// HTTP is a view document served at URL, polled with its ETag (If-None-Match): a server that
// answers 304 Not Modified sends nothing, and the live view is confirmed.
type HTTP struct {
	URL string
	// Client sends the requests; nil for one that gives up connecting after 5 s. Each request
	// is bounded by the poll interval or 10 s, whichever is longer.
	Client *http.Client
}

type httpPoller struct {
	h    HTTP
	etag string
	last []byte
}

// fetch gets the document: nil, nil when the server answered 304.
func (p *httpPoller) fetch(ctx context.Context, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.h.URL, nil)
	if err != nil {
		return nil, err
	}
	if p.etag != "" {
		req.Header.Set("If-None-Match", p.etag)
	}
	client := p.h.Client
	if client == nil {
		client = defaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusNotModified:
		return nil, nil
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s answered %s", ErrNotFound, p.h.URL, res.Status)
	default:
		return nil, &hrwhash.Error{Code: hrwhash.CodeIO, Err: fmt.Errorf("%s answered %s", p.h.URL, res.Status)}
	}
	doc, err := io.ReadAll(io.LimitReader(res.Body, maxDocumentBytes+1))
	if err != nil {
		return nil, &hrwhash.Error{Code: hrwhash.CodeIO, Err: err}
	}
	if len(doc) > maxDocumentBytes {
		return nil, fmt.Errorf("%s: %w", p.h.URL, hrwhash.ErrResultTooLarge)
	}
	p.etag = res.Header.Get("ETag")
	return doc, nil
}

// Follow gets the document, makes a LiveView of its view, and polls the URL until ctx ends
// (WithInterval, default 1 s). A failed request is a SourceError and the live view is kept; the
// next poll after a failure waits by the capped backoff when it is longer than the interval.
func (h HTTP) Follow(ctx context.Context, opts ...Option) (*hrwhash.LiveView, error) {
	f := &follower{cfg: configure(opts)}
	interval := f.cfg.interval
	if interval == 0 {
		interval = defaultInterval
	}
	timeout := max(interval, etcdRequestTimeout)
	p := &httpPoller{h: h}
	doc, err := p.fetch(ctx, timeout)
	if err != nil {
		return nil, err
	}
	if err := f.first(doc); err != nil {
		return nil, fmt.Errorf("%s: %w", h.URL, err)
	}
	p.last = doc
	go func() {
		var b backoff
		accepted := true
		wait := interval
		for sleep(ctx, wait) {
			doc, err := p.fetch(ctx, timeout)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				f.sourceError(err)
				wait = max(interval, b.wait())
				continue
			}
			b.reset()
			wait = interval
			switch {
			case doc == nil || string(doc) == string(p.last):
				// Not modified: the document offered again confirms the live view, or is
				// refused again.
				if accepted {
					f.offer(p.last)
				}
			default:
				p.last = doc
				accepted = f.offer(doc)
			}
		}
	}()
	return f.lv, nil
}
