// hrwhash's Go slot in the cross-language peer harness (`run.sh` copies it beside the harness's
// main.go and points go.mod at bindings-c/go). It uses the Go package exactly as users do: one
// cgo call per Owner, and Rank returns a fresh slice.
package main

import (
	hrwhash "github.com/hrwhash/hrwhash/bindings-c/go"
)

type hrwhashGo struct {
	p   *hrwhash.Placement
	ids []string
}

func (h hrwhashGo) Owner(key string) string {
	i, err := h.p.Owner(key)
	if err != nil {
		panic(err)
	}
	return h.ids[i]
}

func (h hrwhashGo) Rank(key string, k int, out []string) []string {
	top, err := h.p.Rank(key, k)
	if err != nil {
		panic(err)
	}
	for _, i := range top {
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
			return hrwhashGo{p, nodes}
		},
		BuildW: func(nodes []string, w []float64) Placement {
			p, err := hrwhash.NewWeighted(nodes, w)
			if err != nil {
				panic(err)
			}
			return hrwhashGo{p, nodes}
		},
	})
}
