package hrwview

import (
	"math"
	"math/bits"
	"sort"
)

// Grid is the number of positions of a ramp's line (VIEW.md section 7).
const Grid = 1 << 16

// Track is one id on a ramp: a node of the new view (or of the old one for a leaving node)
// with its weight at both ends.
type Track struct {
	Node     Node
	Old, New uint64
	Leaving  bool
}

// Step is one step of a ramp.
type Step struct {
	Epoch          uint64
	Position       uint32
	Moved          float64
	RemovesDrained bool
}

// Tracks are every node of the new membership in its order, then the leaving nodes in the old
// order.
func Tracks(old, new []Weighted) []Track {
	inOld := make(map[string]uint64, len(old))
	for _, n := range old {
		inOld[n.ID] = n.Fixed
	}
	inNew := make(map[string]bool, len(new))
	var out []Track
	for _, n := range new {
		inNew[n.ID] = true
		out = append(out, Track{Node: n.Node, Old: inOld[n.ID], New: n.Fixed})
	}
	for _, n := range old {
		if !inNew[n.ID] {
			out = append(out, Track{Node: n.Node, Old: n.Fixed, Leaving: true})
		}
	}
	return out
}

// WeightAt is a track's fixed-point weight at grid position s: floor((W_old (G - s) +
// W_new s) / G), rounded to 53 significant bits (ties to even).
func WeightAt(t Track, s uint32) uint64 {
	switch s {
	case 0:
		return t.Old
	case Grid:
		return t.New
	}
	h1, l1 := bits.Mul64(t.Old, uint64(Grid-s))
	h2, l2 := bits.Mul64(t.New, uint64(s))
	lo, carry := bits.Add64(l1, l2, 0)
	hi := h1 + h2 + carry
	x, _ := bits.Div64(hi, lo, Grid) // hi < Grid: the sum is below 2^64 * Grid
	f := float64(x)
	if f >= 1<<64 {
		return math.MaxUint64
	}
	return uint64(f)
}

func pairs(tracks []Track, from, to uint32) []Pair {
	p := make([]Pair, len(tracks))
	for i, t := range tracks {
		p[i] = Pair{ID: t.Node.ID, Old: WeightAt(t, from), New: WeightAt(t, to)}
	}
	sort.Slice(p, func(a, b int) bool { return p[a].ID < p[b].ID })
	return p
}

func movement(tracks []Track, from, to uint32) float64 {
	return ExpectedMoved(pairs(tracks, from, to), true)
}

// Ramp is a planned ramp: its steps, the movement of the direct switch and the optimum.
type Ramp struct {
	Tracks  []Track
	Steps   []Step
	Direct  float64
	Optimum float64
}

// Plan plans the ramp of VIEW.md section 7 from a view at oldEpoch to another; same says
// whether their view fingerprints are equal. The seeds must have been checked equal and
// maxMove in (0, 1].
func Plan(oldEpoch uint64, old, new []Weighted, same bool, maxMove float64) (*Ramp, error) {
	return PlanWithin(oldEpoch, old, new, same, maxMove, MaxRampCost)
}

// MaxRampCost is the most a plan may cost (VIEW.md section 7, "Cost"): steps that move keys
// times tracks. A step that would pass it is CodeResultTooLarge, before it is searched.
const MaxRampCost = 1 << 21

// PlanWithin is Plan with another cost cap, for the tests.
func PlanWithin(oldEpoch uint64, old, new []Weighted, same bool, maxMove float64, maxCost uint64) (*Ramp, error) {
	tracks := Tracks(old, new)
	r := &Ramp{Tracks: tracks, Direct: movement(tracks, 0, Grid), Optimum: Optimum(pairs(tracks, 0, Grid))}
	if same {
		return r, nil
	}
	push := func(position uint32, moved float64, drained bool) error {
		n := uint64(len(r.Steps)) + 1
		if oldEpoch > math.MaxUint64-n {
			return viewError("epoch", -1, "out_of_range")
		}
		r.Steps = append(r.Steps, Step{Epoch: oldEpoch + n, Position: position, Moved: moved, RemovesDrained: drained})
		return nil
	}
	for at := uint32(0); at < Grid; {
		if steps := uint64(len(r.Steps)) + 1; steps*uint64(len(tracks)) > maxCost {
			return nil, &Error{Code: CodeResultTooLarge, Index: -1}
		}
		next := uint32(Grid)
		if movement(tracks, at, Grid) > maxMove {
			lo, hi := at, uint32(Grid)
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if movement(tracks, at, mid) <= maxMove {
					lo = mid
				} else {
					hi = mid
				}
			}
			next = lo
		}
		if next == at {
			return nil, &Error{Code: CodeInvalidMoveLimit, Index: -1, Value: maxMove}
		}
		zero := true
		for _, t := range tracks {
			zero = zero && WeightAt(t, next) == 0
		}
		if zero {
			return nil, &Error{Code: CodeAllWeightsZero, Index: -1}
		}
		if err := push(next, movement(tracks, at, next), false); err != nil {
			return nil, err
		}
		at = next
	}
	for _, t := range tracks {
		if t.Leaving {
			if err := push(Grid, 0, true); err != nil {
				return nil, err
			}
			break
		}
	}
	return r, nil
}

// StepNodes are the nodes of step i's view with their weights (the last step's view is the
// new view itself, which the caller has).
func (r *Ramp) StepNodes(i int) []Weighted {
	s := r.Steps[i]
	var out []Weighted
	for _, t := range r.Tracks {
		if s.RemovesDrained && t.Leaving {
			continue
		}
		w := WeightAt(t, s.Position)
		n := t.Node
		// Every grid weight has at most 53 significant bits: W / 2^32 is exact.
		n.Weight = float64(w) / (1 << 32)
		out = append(out, Weighted{n, w})
	}
	return out
}
