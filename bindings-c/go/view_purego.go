//go:build !cgo || purego

package hrwhash

// The pure-Go build has no views, transitions or ramps: their constructors return
// ErrViewsNeedCgo, so no value of these types ever has a backend here and the methods below
// are never reached through a usable value.

type viewBackend struct{}

type transitionBackend struct{}

type diffBackend struct{}

type rampBackend struct{}

func viewFromJSON([]byte, Seed) (*View, error) { return nil, ErrViewsNeedCgo }

func newView(*Placement, uint64) (*View, error) { return nil, ErrViewsNeedCgo }

func newTransition(_, _ *Placement) (*Transition, error) { return nil, ErrViewsNeedCgo }

func newRampPlan(_, _ *View, _ float64) (*RampPlan, error) { return nil, ErrViewsNeedCgo }

func (*viewBackend) withEpoch(*View, uint64) (*View, error) { return nil, ErrViewsNeedCgo }

func (*viewBackend) json() ([]byte, error) { return nil, ErrViewsNeedCgo }

func (*transitionBackend) route(string) (Route, error) { return Route{}, ErrViewsNeedCgo }

func (*transitionBackend) routeTop(*Transition, string, int) (RouteSet, error) {
	return RouteSet{}, ErrViewsNeedCgo
}

func (*transitionBackend) plan([]string) ([]Move, error) { return nil, ErrViewsNeedCgo }

func (*transitionBackend) match(bool, int) (int, bool) { return 0, false }

func (*transitionBackend) diff(*Transition) (*Diff, error) { return nil, ErrViewsNeedCgo }

func (*diffBackend) add(string) error { return ErrViewsNeedCgo }

func (*diffBackend) addMany([]string) error { return ErrViewsNeedCgo }

func (*diffBackend) merge(*diffBackend) error { return ErrViewsNeedCgo }

func (*diffBackend) keys() uint64 { return 0 }

func (*diffBackend) moved() uint64 { return 0 }

func (*diffBackend) flows() []Flow { return nil }

func (*diffBackend) nodes() []NodeChange { return nil }

func (*rampBackend) view(int) (*View, error) { return nil, ErrViewsNeedCgo }
