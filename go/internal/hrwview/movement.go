package hrwview

import (
	"math/big"
	"math/bits"
	"sort"
)

// Pair is one id's fixed-point weight before and after (0 where absent).
type Pair struct {
	ID       string
	Old, New uint64
}

// u128 is an exact sum of fixed-point weights.
type u128 struct{ hi, lo uint64 }

func (a u128) add(w uint64) u128 {
	lo, carry := bits.Add64(a.lo, w, 0)
	return u128{a.hi + carry, lo}
}

func (a u128) sub(b u128) u128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return u128{a.hi - b.hi - borrow, lo}
}

// float is the binary64 nearest to a (ties to even).
func (a u128) float() float64 {
	if a.hi == 0 {
		return float64(a.lo)
	}
	x := new(big.Int).Lsh(new(big.Int).SetUint64(a.hi), 64)
	x.Or(x, new(big.Int).SetUint64(a.lo))
	f, _ := new(big.Float).SetInt(x).Float64()
	return f
}

// cmpRatio orders a before b when a.Old / a.New < b.Old / b.New, by exact cross products.
func cmpRatio(a, b Pair) int {
	xh, xl := bits.Mul64(a.Old, b.New)
	yh, yl := bits.Mul64(b.Old, a.New)
	switch {
	case xh != yh:
		if xh < yh {
			return -1
		}
		return 1
	case xl != yl:
		if xl < yl {
			return -1
		}
		return 1
	}
	return 0
}

func totals(pairs []Pair) (float64, float64) {
	var sw, sv u128
	for _, p := range pairs {
		sw, sv = sw.add(p.Old), sv.add(p.New)
	}
	return sw.float(), sv.float()
}

// ExpectedMoved is VIEW.md 6.1 for pairs in ascending id order: with one seed the exact
// computation over groups of equal ratio, with two seeds the agreement of independent choices.
func ExpectedMoved(pairs []Pair, sameSeed bool) float64 {
	if !sameSeed {
		sw, sv := totals(pairs)
		stay := 0.0
		for _, p := range pairs {
			// The conversion keeps the product from fusing with the sum (VIEW.md: one rounding each).
			stay += float64((float64(p.Old) / sw) * (float64(p.New) / sv))
		}
		return max(1-stay, 0)
	}
	var live []Pair
	for _, p := range pairs {
		if p.Old != 0 || p.New != 0 {
			live = append(live, p)
		}
	}
	sort.Slice(live, func(i, j int) bool {
		if c := cmpRatio(live[i], live[j]); c != 0 {
			return c < 0
		}
		return live[i].ID < live[j].ID
	})
	var total, oldBefore, newBefore u128
	for _, p := range live {
		total = total.add(p.Old)
	}
	stay := 0.0
	for start := 0; start < len(live); {
		end := start + 1
		for end < len(live) && cmpRatio(live[start], live[end]) == 0 {
			end++
		}
		a := total.sub(oldBefore).float()
		b := newBefore.float()
		for _, p := range live[start:end] {
			if p.Old != 0 && p.New != 0 {
				stay += 1 / (float64(a/float64(p.Old)) + float64(b/float64(p.New)))
			}
		}
		for _, p := range live[start:end] {
			oldBefore, newBefore = oldBefore.add(p.Old), newBefore.add(p.New)
		}
		start = end
	}
	return max(1-stay, 0)
}

// Optimum is VIEW.md 6.2: the total variation distance of the shares, over ids in ascending
// order.
func Optimum(pairs []Pair) float64 {
	sw, sv := totals(pairs)
	sum := 0.0
	for _, p := range pairs {
		if d := float64(p.Old)/sw - float64(p.New)/sv; d > 0 {
			sum += d
		}
	}
	return sum
}
