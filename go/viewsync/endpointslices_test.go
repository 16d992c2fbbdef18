package viewsync_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
	"github.com/hrwhash/hrwhash/go/viewsync"
)

// TestEndpointSlicesCases runs conformance/endpointslices.json.
func TestEndpointSlicesCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "conformance", "endpointslices.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Version string `json:"version"`
		Cases   []struct {
			Name      string          `json:"name"`
			Service   string          `json:"service"`
			PortName  *string         `json:"port_name"`
			Weight    *float64        `json:"weight"`
			Epoch     string          `json:"epoch"`
			Input     json.RawMessage `json:"input"`
			InputText *string         `json:"input_text"`
			Expected  *string         `json:"expected"`
			Error     string          `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			doc := []byte(c.Input)
			if c.InputText != nil {
				doc = []byte(*c.InputText)
			}
			epoch, err := strconv.ParseUint(c.Epoch, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			var opts []viewsync.Option
			if c.PortName != nil {
				opts = append(opts, viewsync.WithPortName(*c.PortName))
			}
			if c.Weight != nil {
				opts = append(opts, viewsync.WithReadyWeight(*c.Weight))
			}
			v, err := viewsync.ViewFromEndpointSlices(doc, c.Service, epoch, opts...)
			if c.Error != "" {
				var e *hrwhash.Error
				if !errors.As(err, &e) || e.Code.String() != c.Error {
					t.Fatalf("error %v, want %s", err, c.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := v.ToJSON()
			if string(got) != *c.Expected {
				t.Fatalf("view\n%s\nwant\n%s", got, *c.Expected)
			}
		})
	}
	t.Logf("%d cases", len(file.Cases))
}

func TestEndpointSlicesEdges(t *testing.T) {
	slice := func(port string) []byte {
		return []byte(`[{"metadata":{"labels":{"kubernetes.io/service-name":"s"}},"ports":[{"name":"p","port":` + port +
			`}],"endpoints":[{"addresses":["10.0.0.1"]}]}]`)
	}
	for _, port := range []string{"80.5", "1e2", "-1", "65536", "99999999999999999999", `"80"`, "true"} {
		if _, err := viewsync.ViewFromEndpointSlices(slice(port), "s", 1, viewsync.WithPortName("p")); !errors.Is(err, hrwhash.ErrInvalidView) {
			t.Errorf("port %s: %v", port, err)
		}
	}
	v, err := viewsync.ViewFromEndpointSlices(slice("65535"), "s", 1, viewsync.WithPortName("p"))
	if err != nil || v.Placement().OwnerID("k") != "10.0.0.1:65535" {
		t.Fatalf("port 65535: %v", err)
	}
	// The port is not read without a port name.
	if _, err := viewsync.ViewFromEndpointSlices(slice(`"x"`), "s", 1); err != nil {
		t.Fatalf("without a port name: %v", err)
	}
	for _, w := range []float64{math.NaN(), -1, math.Inf(1)} {
		if _, err := viewsync.ViewFromEndpointSlices(slice("80"), "s", 1, viewsync.WithReadyWeight(w)); !errors.Is(err, hrwhash.ErrInvalidWeight) {
			t.Errorf("ready weight %v: %v", w, err)
		}
	}
	if _, err := viewsync.ViewFromEndpointSlices([]byte("[] []"), "s", 1); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Errorf("two documents: %v", err)
	}
	if _, err := viewsync.ViewFromEndpointSlices([]byte("[\"\xff\"]"), "s", 1); !errors.Is(err, hrwhash.ErrInvalidJSON) {
		t.Errorf("not UTF-8: %v", err)
	}
	var e *hrwhash.Error
	if _, err := viewsync.ViewFromEndpointSlices([]byte("[\n  {\"a\": }]"), "s", 1); !errors.As(err, &e) || e.Line != 2 {
		t.Errorf("syntax error position: %v", err)
	}
	seed, _ := hrwhash.SeedFromBytes([]byte("0123456789abcdef"))
	v, err = viewsync.ViewFromEndpointSlices(slice("80"), "s", 3, viewsync.WithSeed(seed))
	if err != nil || v.Placement().Seed() != seed || v.HasDefaultSeed() {
		t.Fatalf("with a seed: %v", err)
	}
}
