// hrwhash's Go slot in the cross-language peer harness (`run.sh` copies it beside the harness's
// main.go and points go.mod at go/). It uses the Go package as users do: Owner per
// key, and Rank through RankInto into a buffer the slot keeps between calls (the harness calls a
// placement from one goroutine), so a ranking allocates nothing. Up to 128 selectable nodes the
// package answers both in Go; above, each is one cgo call (run.sh builds with -tags hrwhash_cgo).
// Ids come from the harness's own list.
package main

import (
	hrwhash "github.com/hrwhash/hrwhash/go"
)

type hrwhashGo struct {
	p   *hrwhash.Placement
	ids []string
	top []int // RankInto's buffer, reused by every Rank
}

func (h *hrwhashGo) Owner(key string) string {
	return h.ids[h.p.Owner(key)]
}

func (h *hrwhashGo) Rank(key string, k int, out []string) []string {
	if cap(h.top) < k {
		h.top = make([]int, k)
	}
	n := h.p.RankInto(key, h.top[:k])
	for _, i := range h.top[:n] {
		out = append(out, h.ids[i])
	}
	return out
}

func init() {
	peers = append(peers, Peer{
		Lib: "hrwhash-go",
		Build: func(nodes []string) Placement {
			p, err := hrwhash.New(nodes...)
			if err != nil {
				panic(err)
			}
			return &hrwhashGo{p: p, ids: nodes}
		},
		BuildW: func(nodes []string, w []float64) Placement {
			p, err := hrwhash.NewWeighted(nodes, w)
			if err != nil {
				panic(err)
			}
			return &hrwhashGo{p: p, ids: nodes}
		},
	})
}
