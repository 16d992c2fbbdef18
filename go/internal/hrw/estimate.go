package hrw

import (
	"math"
	"math/bits"
)

// direct is the weighted owner of a placement of a few nodes, found without weight groups and
// without exact draws, as the Rust core finds it: every node's draw / weight is estimated
// (estimate), and the node with the smallest estimate is the owner whenever every other estimate
// lies beyond the error bound. The other keys (about two in 10^5 with weights 1, 2, 3, 4, 1, and
// every exact tie of section 5.3's products, which it breaks on scores and ids) take the exact
// search. Which node leads is random, so the pass keeps its best and second-best estimates
// without a branch.
type direct struct {
	scale []estimateScale
	// margin is how far above the best estimate the second best must be for the best to rank
	// first.
	margin float64
}

// estimateScale is what a lane's estimate is scaled by: 2^32 / W (draw per unit weight, W the
// fixed-point weight), and the same times 2^56, a whole draw's unit per unit weight.
type estimateScale struct {
	perDraw, perUnit float64
}

const (
	// directAlways is the most nodes always searched directly.
	directAlways = 8
	// directMax is the most nodes searched directly where the weights have at most two nodes
	// each on average; from there the groups' search takes over.
	directMax = 32
	// directMaxRatio is the largest ratio of two weights searched directly: the error bound is
	// that of the lightest node, so with a wider spread the heavy nodes' estimates, closer
	// together, would more often fall within it and take the exact search after this one.
	directMaxRatio = 1 << 10
	// estimateRelativeError covers the margin's and the threshold's roundings, with room to
	// spare (the estimates' own are in estimateFloatSlack).
	estimateRelativeError = 1.0 / (1 << 40)
	// estimateBias is added to every row of estimateRows, in a draw's units, so that an estimate
	// is never below zero despite its roundings (at most 80 there; see estimateFloatSlack): a
	// non-negative float64's bits order as the float does, which lets the pass compare them as
	// integers, without a branch. Weighted per node, it is within estimateFloatSlack.
	estimateBias = 128
	// estimateFloatSlack is how far estimate's floating-point steps can move it, in a draw's
	// units: A rounded (below 2^58, so by at most 16), m / 2 rounded (by a relative 2^-53 of
	// B * m / 2, below 2^58: at most 32 more), the product and difference rounded (at most 16
	// each), the last steps' five roundings of a relative 2^-53 each on an estimate below
	// 65 * 2^56 (at most 2,600), and the bias (128): 2,808 in all, within this bound.
	estimateFloatSlack = 1 << 12
)

// estimateRows holds, at row m >> 55 of a normalized m (256 to 511), A = 2^56 - T[j] +
// (T[j+1] - T[j]) * (256 + j) and B = (T[j+1] - T[j]) / 2^54 of segment j = row - 256, so that
// A - B * m / 2 is section 5.2's interpolation between table points without its curvature term:
// 2^56 - T[j] - (T[j+1] - T[j]) * (m mod 2^55) / 2^55. Row 0 is what the scores whose increment
// carries out of the top bit (and 0) draw beyond their whole units: nothing. Each A carries
// estimateBias.
var estimateRows [512][2]float64

// estimateAbove and estimateBelow are how far the interpolation (computed exactly) can lie above
// and below Draw: the curvature term, at most B[j] / 4, and section 5.2's floor above; the rest
// of the position after section 5.2's 32 bits, less than (T[j+1] - T[j]) / 2^32, below (each with
// units to spare).
var estimateAbove, estimateBelow uint64

func init() {
	estimateRows[0][0] = estimateBias
	for j := 0; j < 256; j++ {
		slope := log2Table[j+1] - log2Table[j]
		a := 1<<56 - log2Table[j] + slope*uint64(256+j)
		estimateRows[256+j] = [2]float64{float64(a) + estimateBias, float64(slope) / (1 << 54)}
		estimateAbove = max(estimateAbove, log2Bump[j]/4+2)
		estimateBelow = max(estimateBelow, slope>>32+2)
	}
}

// newDirect is the direct search for lanes of these fixed-point weights (in groups distinct
// weights), or nil where it does not pay.
func newDirect(weights []uint64, groups int) *direct {
	n := len(weights)
	pays := n <= directAlways || (n <= directMax && n <= 2*groups)
	if groups < 2 || !pays {
		return nil
	}
	return directFor(weights)
}

// newTopDirect is the direct search for the top-2 and top-3 alone, which pays up to directMax
// nodes whatever their weights: where each weight group's top list takes a pass and every
// candidate an exact draw, the estimates of every node cost less (as in the Rust core).
func newTopDirect(weights []uint64, groups int) *direct {
	if groups < 2 || len(weights) > directMax {
		return nil
	}
	return directFor(weights)
}

// directFor is the direct search for lanes of these fixed-point weights, or nil where their
// spread is too wide for it.
func directFor(weights []uint64) *direct {
	n := len(weights)
	lightest, heaviest := weights[0], weights[0]
	for _, w := range weights {
		lightest, heaviest = min(lightest, w), max(heaviest, w)
	}
	if heaviest/directMaxRatio > lightest {
		return nil
	}
	const unit = 1 << 32
	// The owner's draw is at most its estimate plus estimateBelow, any other node's at least
	// its estimate less estimateAbove, each give or take estimateFloatSlack, and each is divided
	// by at least the lightest weight.
	errorBound := float64(estimateAbove + estimateBelow + 2*estimateFloatSlack)
	d := &direct{
		scale:  make([]estimateScale, n),
		margin: errorBound * (unit / float64(lightest)) * (1 + estimateRelativeError),
	}
	for i, w := range weights {
		perDraw := unit / float64(w)
		d.scale[i] = estimateScale{perDraw: perDraw, perUnit: perDraw * (1 << 56)}
	}
	return d
}

// ownerLane is the owner's lane for the folded key digest fk, or false when the estimates
// cannot tell it.
func (d *direct) ownerLane(fk uint64, lanes []uint64) (int, bool) {
	scale := d.scale[:len(lanes)]
	best, second, lane := uint64(math.MaxUint64), uint64(math.MaxUint64), 0
	for i, l := range lanes {
		k := math.Float64bits(estimate(scoreF(fk, l), scale[i]))
		if k < best {
			lane = i
		}
		second = min(second, max(best, k))
		best = min(best, k)
	}
	// Scaled by 2^32 / W, the owner's exact draw / weight is at most best plus the estimate's
	// error, and every other node's at least second less it: with both errors in margin, a
	// strict gap means that no other node ranks first, not even on a tie.
	b, s := math.Float64frombits(best), math.Float64frombits(second)
	return lane, b*(1+estimateRelativeError)+d.margin < s
}

// topLanes writes the first len(out) (2 or 3) lanes of the ranking of the folded key digest fk,
// best first, where the estimates tell them apart: every two neighbours among the first
// len(out) + 1 by estimate lie beyond both errors, as ownerLane asks of the owner and the second.
// It reports false otherwise (near ties and exact ties of section 5.3's products): then the exact
// ranking. The first four come from a list of keys kept without a branch, as the Rust core keeps
// them: an estimate's bits (which order non-negative floats as their values do) inverted, with
// the low five replaced by 31 - lane. Keys misorder two estimates only within 2^-47 of each
// other, and the check on the estimates themselves then declines.
func (d *direct) topLanes(fk uint64, lanes []uint64, out []int32) bool {
	n := len(lanes)
	scale := d.scale[:n]
	var est [directMax]float64
	var t0, t1, t2, t3 uint64
	for i, l := range lanes {
		e := estimate(scoreF(fk, l), scale[i])
		est[i&(directMax-1)] = e
		t0, t1, t2, t3 = withKey(t0, t1, t2, t3, estimateKey(e, i))
	}
	return d.first(&est, [4]uint64{t0, t1, t2, t3}, n, out)
}

// estimateKey is the key of estimate e of lane i (below directMax) in topLanes's list: e's bits
// inverted, with the low five replaced by 31 - i.
func estimateKey(e float64, i int) uint64 {
	return ^math.Float64bits(e)&^(directMax-1) | uint64(directMax-1-i)
}

// withKey is the list t0 >= t1 >= t2 >= t3 with x in its place, the lowest of the five left out,
// without a branch; the list goes in and out as values, so that it stays in registers.
func withKey(t0, t1, t2, t3, x uint64) (uint64, uint64, uint64, uint64) {
	t0, x = max(t0, x), min(t0, x)
	t1, x = max(t1, x), min(t1, x)
	t2, x = max(t2, x), min(t2, x)
	return t0, t1, t2, max(t3, x)
}

// first writes the lanes (indices into est) that the first len(out) of keys name, where every
// two neighbours among the first len(out) + 1 of the n estimates lie beyond both errors, and
// reports whether they do.
func (d *direct) first(est *[directMax]float64, keys [4]uint64, n int, out []int32) bool {
	lane := func(j int) int { return directMax - 1 - int(keys[j]&(directMax-1)) }
	prev := est[lane(0)]
	for j := 1; j < min(len(out)+1, n); j++ {
		e := est[lane(j)]
		if !(prev*(1+estimateRelativeError)+d.margin < e) {
			return false
		}
		prev = e
	}
	for j := range out {
		out[j] = int32(lane(j))
	}
	return true
}

// estimate is a node's estimated draw / weight scaled by 2^32 (plus the bias), from the score
// s: estimateRows's interpolation, in floating point so that the table's values need no
// integer multiply and no conversion after it. The leading zeros are those of s, which are
// those of s + 1 unless the increment carries out of the top bit (s = 2^k - 1 or the largest
// score); then the shifted s + 1 is 0 and row 0 applies. s = 0 has 64 leading zeros, which the
// mask makes a shift by 0 (so that the shift needs no test for 64 or more): m = 1, row 0 too.
func estimate(s uint64, scale estimateScale) float64 {
	shift := bits.LeadingZeros64(s)
	m := (s + 1) << (uint(shift) & 63)
	row := &estimateRows[m>>55]
	// Half of m, below 2^63: a signed conversion, exact to its rounding.
	half := float64(int64(m >> 1))
	return (row[0]-row[1]*half)*scale.perDraw + float64(shift)*scale.perUnit
}
