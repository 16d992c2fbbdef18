package viewsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/hrwhash/hrwhash/go"
)

// WithPortName makes ViewFromEndpointSlices name each node address:port ([address]:port for
// IPv6), with the port of this name in each slice's ports ("" for an unnamed port); a slice
// without it is left out.
func WithPortName(name string) Option { return func(c *config) { c.portName = &name } }

// WithReadyWeight is the weight ViewFromEndpointSlices gives a ready endpoint (default 1).
func WithReadyWeight(w float64) Option { return func(c *config) { c.readyWeight = w } }

// ViewFromEndpointSlices is the view of a Kubernetes Service at epoch, from its EndpointSlices
// (discovery.k8s.io/v1; LIVE-VIEW.md section 8): doc is a JSON array of EndpointSlice objects or
// a List with them in "items" (`kubectl get endpointslices -o json`). Only the slices labelled
// kubernetes.io/service-name: service count. A ready endpoint (or one whose readiness is not
// given) is a node at the ready weight (WithReadyWeight); one that is not ready but serving and
// terminating is a node at weight 0 (draining); the others are left out. A node's id is its first
// address (WithPortName: with the port), its zone its failure domain; an address found twice is
// one node, ready before draining, then the first.
//
// Errors: ErrInvalidJSON for text that is not JSON, ErrInvalidView for JSON that does not have
// the shape of EndpointSlices, ErrEmptyMembership when no endpoint is left, ErrAllWeightsZero
// when all are draining, ErrInvalidWeight for a bad ready weight.
//
// Watching the cluster is the caller's part: on each change of the Service's slices, convert
// the current list and Publish it (a new epoch is issued only when the membership changed).
func ViewFromEndpointSlices(doc []byte, service string, epoch uint64, opts ...Option) (*hrwhash.View, error) {
	cfg := configure(opts)
	if !utf8.Valid(doc) {
		return nil, &hrwhash.Error{Code: hrwhash.CodeInvalidJSON, Line: 1, Column: 1}
	}
	if !json.Valid(doc) {
		var v any
		return nil, jsonError(doc, json.Unmarshal(doc, &v))
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, jsonError(doc, err)
	}
	if obj, ok := top.(map[string]any); ok {
		top = obj["items"]
	}
	list, ok := top.([]any)
	if !ok {
		return nil, shapeError("items")
	}
	slices := make([]map[string]any, len(list))
	for i, s := range list {
		if slices[i], ok = s.(map[string]any); !ok {
			return nil, shapeError("items")
		}
	}
	found, err := convertSlices(slices, service, cfg.portName)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, &hrwhash.Error{Code: hrwhash.CodeEmptyMembership}
	}
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	nodes := make([]hrwhash.Node, len(ids))
	for i, id := range ids {
		e := found[id]
		w := cfg.readyWeight
		if !e.ready {
			w = 0
		}
		nodes[i] = hrwhash.Node{ID: id, Weight: hrwhash.Weight(w)}
		if e.zone != nil {
			nodes[i].Domain, nodes[i].HasDomain = *e.zone, true
		}
	}
	p, err := hrwhash.NewNodes(nodes, hrwhash.WithSeed(cfg.seed))
	if err != nil {
		return nil, err
	}
	return hrwhash.NewView(p, epoch)
}

type sliceNode struct {
	ready bool
	zone  *string
}

// shape is a member of another JSON type than Kubernetes gives it.
type shape string

func shapeError(field string) error {
	return &hrwhash.Error{Code: hrwhash.CodeInvalidView, Field: field, Index: -1, Reason: hrwhash.FaultWrongType}
}

func jsonError(doc []byte, err error) error {
	offset := int64(len(doc))
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		offset = syn.Offset
	}
	line, col := 1, 1
	for _, b := range doc[:min(int(offset), len(doc))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &hrwhash.Error{Code: hrwhash.CodeInvalidJSON, Line: line, Column: col}
}

// member is obj[name] when it has type T, nil when absent or null, and a shape error otherwise.
func member[T any](obj map[string]any, name string) (*T, error) {
	v, ok := obj[name]
	if !ok || v == nil {
		return nil, nil
	}
	t, ok := v.(T)
	if !ok {
		return nil, shape(name)
	}
	return &t, nil
}

func (s shape) Error() string { return string(s) }

// arrayOf is the array obj[name] whose items all have type T (empty when absent).
func arrayOf[T any](obj map[string]any, name string) ([]T, error) {
	arr, err := member[[]any](obj, name)
	if err != nil || arr == nil {
		return nil, err
	}
	out := make([]T, len(*arr))
	for i, v := range *arr {
		t, ok := v.(T)
		if !ok {
			return nil, shape(name)
		}
		out[i] = t
	}
	return out, nil
}

// portNumber is a port: an integer from 0 to 65535, nil when absent.
func portNumber(p map[string]any) (*int, error) {
	n, err := member[json.Number](p, "port")
	if err != nil || n == nil {
		return nil, err
	}
	v, err := strconv.ParseInt(string(*n), 10, 64)
	if err != nil {
		// A fraction or an exponent: not an integer. An integer too large for int64 is out
		// of range all the same.
		if bytes.ContainsAny([]byte(*n), ".eE") {
			return nil, shape("port")
		}
		v = -1
	}
	if v < 0 || v > 65535 {
		return nil, shape("port")
	}
	port := int(v)
	return &port, nil
}

func convertSlices(slices []map[string]any, service string, portName *string) (map[string]sliceNode, error) {
	nodes := map[string]sliceNode{}
	fail := func(err error) (map[string]sliceNode, error) {
		return nil, shapeError(err.Error())
	}
	for _, s := range slices {
		meta, err := member[map[string]any](s, "metadata")
		if err != nil {
			return fail(err)
		}
		var labels *map[string]any
		if meta != nil {
			if labels, err = member[map[string]any](*meta, "labels"); err != nil {
				return fail(err)
			}
		}
		if labels == nil {
			continue
		}
		name, err := member[string](*labels, "kubernetes.io/service-name")
		if err != nil {
			return fail(err)
		}
		if name == nil || *name != service {
			continue
		}
		var port *int
		if portName != nil {
			ports, err := arrayOf[map[string]any](s, "ports")
			if err != nil {
				return fail(err)
			}
			for _, p := range ports {
				n, err := member[string](p, "name")
				if err != nil {
					return fail(err)
				}
				if (n == nil && *portName != "") || (n != nil && *n != *portName) {
					continue
				}
				if port, err = portNumber(p); err != nil {
					return fail(err)
				}
				if port != nil {
					break
				}
			}
			if port == nil {
				continue
			}
		}
		addressType, err := member[string](s, "addressType")
		if err != nil {
			return fail(err)
		}
		v6 := addressType != nil && *addressType == "IPv6"
		endpoints, err := arrayOf[map[string]any](s, "endpoints")
		if err != nil {
			return fail(err)
		}
		for _, e := range endpoints {
			addresses, err := arrayOf[string](e, "addresses")
			if err != nil {
				return fail(err)
			}
			conditions, err := member[map[string]any](e, "conditions")
			if err != nil {
				return fail(err)
			}
			var ready, serving, terminating *bool
			if conditions != nil {
				for _, c := range []struct {
					name string
					to   **bool
				}{{"ready", &ready}, {"serving", &serving}, {"terminating", &terminating}} {
					if *c.to, err = member[bool](*conditions, c.name); err != nil {
						return fail(err)
					}
				}
			}
			zone, err := member[string](e, "zone")
			if err != nil {
				return fail(err)
			}
			if len(addresses) == 0 {
				continue
			}
			var isReady bool
			switch {
			case ready == nil || *ready:
				isReady = true
			case serving != nil && *serving && terminating != nil && *terminating:
			default:
				continue
			}
			id := addresses[0]
			if port != nil {
				if v6 {
					id = "[" + id + "]:" + strconv.Itoa(*port)
				} else {
					id = id + ":" + strconv.Itoa(*port)
				}
			}
			if old, ok := nodes[id]; !ok || (isReady && !old.ready) {
				nodes[id] = sliceNode{ready: isReady, zone: zone}
			}
		}
	}
	return nodes, nil
}
