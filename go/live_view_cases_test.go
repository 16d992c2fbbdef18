package hrwhash_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/hrwhash/hrwhash/go"
)

type liveCaseFile struct {
	Version string     `json:"version"`
	Keys    []string   `json:"keys"`
	Cases   []liveCase `json:"cases"`
}

type liveCase struct {
	Name    string     `json:"name"`
	Seed    string     `json:"seed"`
	Initial string     `json:"initial"`
	Steps   []liveStep `json:"steps"`
}

type liveStep struct {
	Update      *string         `json:"update"`
	Seed        string          `json:"seed"`
	FinishMove  bool            `json:"finish_move"`
	Returns     *bool           `json:"returns"`
	ReportError string          `json:"report_error"`
	Expect      json.RawMessage `json:"expect"`
	State       struct {
		Epoch       string   `json:"epoch"`
		Fingerprint string   `json:"fingerprint"`
		Moving      bool     `json:"moving"`
		LastError   *string  `json:"last_error"`
		Routes      [][3]any `json:"routes"`
	} `json:"state"`
}

func liveSeed(t *testing.T, h string) hrwhash.Seed {
	t.Helper()
	if h == "" {
		return hrwhash.DefaultSeed()
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	s, err := hrwhash.SeedFromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// errorKind is the kind name of an error as the cases write it: the code's name.
func errorKind(err error) string {
	var e *hrwhash.Error
	if errors.As(err, &e) {
		return e.Code.String()
	}
	return "not an hrwhash error: " + err.Error()
}

// TestLiveViewCases runs conformance/live-view.json.
func TestLiveViewCases(t *testing.T) {
	var file liveCaseFile
	readConformance(t, &file, "live-view.json")
	if file.Version != "hrwhash-live-view-v1" || len(file.Cases) == 0 {
		t.Fatalf("live-view.json: version %q, %d cases", file.Version, len(file.Cases))
	}
	steps := 0
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			seed := liveSeed(t, c.Seed)
			initial, err := hrwhash.ViewFromJSON([]byte(c.Initial), hrwhash.WithSeed(seed))
			if err != nil {
				t.Fatal(err)
			}
			lv, err := hrwhash.NewLiveView(initial)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range c.Steps {
				steps++
				where := fmt.Sprintf("step %d", i)
				switch {
				case s.Update != nil:
					stepSeed := seed
					if s.Seed != "" {
						stepSeed = liveSeed(t, s.Seed)
					}
					var got string
					v, err := hrwhash.ViewFromJSON([]byte(*s.Update), hrwhash.WithSeed(stepSeed))
					if err != nil {
						lv.ReportError(err)
						got = fmt.Sprintf(`{"error":%q}`, errorKind(err))
					} else if out, err := lv.Update(v); err != nil {
						got = liveErrorJSON(err)
					} else {
						got = strconv.Quote(out.String())
					}
					if !sameJSON(t, got, s.Expect) {
						t.Fatalf("%s: update gave %s, want %s", where, got, s.Expect)
					}
				case s.FinishMove:
					if got := lv.FinishMove(); s.Returns == nil || got != *s.Returns {
						t.Fatalf("%s: FinishMove() = %v, want %v", where, got, s.Returns)
					}
				case s.ReportError != "":
					lv.ReportError(liveKindError(t, s.ReportError))
				default:
					t.Fatalf("%s: unknown step", where)
				}
				st := s.State
				if got := strconv.FormatUint(lv.Epoch(), 10); got != st.Epoch {
					t.Fatalf("%s: epoch %s, want %s", where, got, st.Epoch)
				}
				if fp := lv.Fingerprint(); hex.EncodeToString(fp[:]) != st.Fingerprint {
					t.Fatalf("%s: fingerprint %x, want %s", where, fp, st.Fingerprint)
				}
				if lv.Moving() != st.Moving {
					t.Fatalf("%s: moving %v", where, lv.Moving())
				}
				switch le := lv.LastError(); {
				case st.LastError == nil && le != nil:
					t.Fatalf("%s: last error %v, want none", where, le)
				case st.LastError != nil && (le == nil || errorKind(le) != *st.LastError):
					t.Fatalf("%s: last error %v, want %s", where, le, *st.LastError)
				}
				if len(st.Routes) != len(file.Keys) {
					t.Fatalf("%s: %d routes for %d keys", where, len(st.Routes), len(file.Keys))
				}
				snap := lv.Snapshot()
				for k, key := range file.Keys {
					want := hrwhash.LiveRoute{Read: st.Routes[k][0].(string), Write: st.Routes[k][1].(string), Moved: st.Routes[k][2].(bool)}
					if got := lv.Route(key); got != want || snap.Route(key) != want || lv.Owner(key) != want.Write {
						t.Fatalf("%s: Route(%q) = %+v, want %+v", where, key, got, want)
					}
				}
			}
		})
	}
	t.Logf("%d cases, %d steps", len(file.Cases), steps)
}

// liveErrorJSON writes a refusal as the cases do: its kind and details.
func liveErrorJSON(err error) string {
	var e *hrwhash.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	switch e.Code {
	case hrwhash.CodeStaleView:
		return fmt.Sprintf(`{"error":"StaleView","epoch":"%d","current":"%d"}`, e.Epoch, e.Current)
	case hrwhash.CodeViewConflict:
		return fmt.Sprintf(`{"error":"ViewConflict","epoch":"%d"}`, e.Epoch)
	}
	return fmt.Sprintf(`{"error":%q}`, e.Code.String())
}

// liveKindError is a source error of the named kind.
func liveKindError(t *testing.T, kind string) error {
	t.Helper()
	for c := hrwhash.Code(1); c < 256; c++ {
		if c.String() == kind {
			return &hrwhash.Error{Code: c}
		}
	}
	t.Fatalf("no error kind %q", kind)
	return nil
}

func sameJSON(t *testing.T, got string, want json.RawMessage) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
