package hrw

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"testing"
)

func TestEstimateStaysWithinItsBound(t *testing.T) {
	scores := []uint64{0, 1, 2, 3, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 - 2, 1 << 63}
	for e := 0; e < 64; e++ {
		scores = append(scores, 1<<e-1, 1<<e, 1<<e+1)
	}
	// Both ends and the middle of every segment at several exponents (the score is v - 1).
	for _, shift := range []uint{0, 1, 7, 30, 40, 50, 63} {
		for j := uint64(0); j < 256; j++ {
			for _, r := range []uint64{0, 1, 1 << 22, 1<<23 - 1, 1 << 23, 1 << 54, 1<<55 - 1} {
				m := 1<<63 | j<<55 | r
				scores = append(scores, (m>>shift)-1)
			}
		}
	}
	rng := rand.New(rand.NewSource(11))
	for i := 0; i < 200_000; i++ {
		x := rng.Uint64()
		scores = append(scores, x, x>>(x%64), ^(x >> (x % 64)))
	}
	unweighted := estimateScale{perDraw: 1, perUnit: 1 << 56}
	var above, below int64
	for _, s := range scores {
		exact, raw := Draw(s), estimate(s, unweighted)
		// Scores whose increment carries out of the top bit, and 0, are exact (but for the bias).
		if s == 0 || bits.OnesCount64(s+1) <= 1 {
			if raw != float64(exact)+estimateBias {
				t.Fatalf("estimate(%#x) = %v, draw %d", s, raw, exact)
			}
		}
		est := raw - estimateBias
		// Both below 2^63, so the differences are exact to the estimate's truncation.
		diff := int64(est) - int64(exact)
		above, below = max(above, diff), max(below, -diff)
	}
	mostAbove, mostBelow := int64(estimateAbove+estimateFloatSlack), int64(estimateBelow+estimateFloatSlack)
	if above > mostAbove || below > mostBelow {
		t.Fatalf("estimate %d above (at most %d), %d below (at most %d)", above, mostAbove, below, mostBelow)
	}
	// Both directions happen.
	if above <= int64(estimateAbove/2) || below <= 0 {
		t.Fatalf("estimate %d above, %d below", above, below)
	}
}

// strictlyFirst is whether lane a comes strictly before every other lane on section 5.3's
// products alone.
func strictlyFirst(fk uint64, lanes, weights []uint64, a int) bool {
	for b := range lanes {
		if b == a {
			continue
		}
		lh, ll := bits.Mul64(Draw(scoreF(fk, lanes[a])), weights[b])
		rh, rl := bits.Mul64(Draw(scoreF(fk, lanes[b])), weights[a])
		if lh > rh || (lh == rh && ll >= rl) {
			return false
		}
	}
	return true
}

func TestDirectAnswersOnlyWhatTheProductsDecide(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	var answered, declined int
	patterns := [][]uint64{
		{1, 2},
		{1, 2, 3, 4, 1},
		{4, 3, 2, 1, 1, 2, 3, 4},
		{1000, 1, 1, 1},
		{1 << 32, 1<<32 + 1},
		{5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61},
	}
	for _, pattern := range patterns {
		// Fixed-point weights: the pattern as whole weights, and as its raw fixed point.
		for _, scale := range []uint64{1 << 32, 1} {
			weights := make([]uint64, len(pattern))
			distinct := map[uint64]bool{}
			for i, w := range pattern {
				weights[i] = w * min(scale, math.MaxUint64/w)
				distinct[weights[i]] = true
			}
			d := newDirect(weights, len(distinct))
			if d == nil {
				t.Fatalf("%v: no direct search", weights)
			}
			lanes := make([]uint64, len(weights))
			for i := 0; i < 3000; i++ {
				for j := range lanes {
					lanes[j] = rng.Uint64()
				}
				fk := rng.Uint64()
				if a, ok := d.ownerLane(fk, lanes); ok {
					if !strictlyFirst(fk, lanes, weights, a) {
						t.Fatalf("%v: lane %d is not first", weights, a)
					}
					answered++
				} else {
					declined++
				}
			}
		}
	}
	// Random keys are nearly always decided by the estimates.
	if declined*1000 >= answered {
		t.Fatalf("%d declined of %d answered", declined, answered)
	}
}

// crossing is the largest score s with Draw(s) * wb >= Draw(sb) * wa, by bisection (the draw
// never increases with the score): where a node of weight wa ties or nearly ties one of weight
// wb that scores sb.
func crossing(sb, wa, wb uint64) uint64 {
	th, tl := bits.Mul64(Draw(sb), wa)
	lo, hi := uint64(0), uint64(math.MaxUint64)
	for lo < hi {
		mid := lo + (hi-lo)/2 + (hi-lo)%2
		h, l := bits.Mul64(Draw(mid), wb)
		if h > th || (h == th && l >= tl) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// laneFor is the folded node digest whose score for the folded key digest fk is s.
func laneFor(fk, s uint64) uint64 { return fk ^ s*mixInverse }

func TestDirectDeclinesTiesAndNearTiesOfTheProducts(t *testing.T) {
	// Two nodes whose products tie or nearly tie, above the others.
	rng := rand.New(rand.NewSource(31))
	var declined, crafted int
	for _, pair := range [][2]uint64{{2, 1}, {3, 2}, {4, 1}, {1, 4}, {7, 5}, {1000, 999}} {
		wa, wb := pair[0]<<32, pair[1]<<32
		weights := []uint64{wa, wb, 1 << 32, 1 << 32}
		d := newDirect(weights, 3)
		for round := 0; round < 200; round++ {
			fk := rng.Uint64()
			// The exact tie of section 5.3 where both draws are whole.
			sb := uint64(1<<63 - 1)
			if round > 0 {
				sb = math.MaxUint64 - rng.Uint64()>>(1+round%8)
			}
			th, tl := bits.Mul64(Draw(sb), wa)
			lo := crossing(sb, wa, wb)
			for sa := lo - min(lo, 2); sa <= lo+min(math.MaxUint64-lo, 2); sa++ {
				// The others score far lower, so they never come near.
				lanes := []uint64{laneFor(fk, sa), laneFor(fk, sb), laneFor(fk, rng.Uint64()>>8), laneFor(fk, rng.Uint64()>>8)}
				crafted++
				a, ok := d.ownerLane(fk, lanes)
				if ok && !strictlyFirst(fk, lanes, weights, a) {
					t.Fatalf("%v: lane %d is not first", weights, a)
				}
				if !ok {
					declined++
				}
				if h, l := bits.Mul64(Draw(sa), wb); h == th && l == tl && ok {
					t.Fatalf("%v: an exact tie answered", weights)
				}
				if sa == math.MaxUint64 {
					break
				}
			}
		}
	}
	// Nearly every crafted pair is too close for the estimates.
	if declined*10 <= crafted*9 {
		t.Fatalf("%d declined of %d crafted", declined, crafted)
	}
}

// The weighted owner, direct or not, is the first of the full ranking on crafted near ties,
// exact ties (broken by scores) and equal scores (broken by ids).
func TestWeightedOwnerOnCraftedNearTiesIsTheRanking(t *testing.T) {
	rng := rand.New(rand.NewSource(37))
	ties := 0
	// Few nodes (the direct searches), and more than directMax in two and four weight groups
	// (the groups' top lists ordered by estimates).
	repeated := func(n int, cycle ...float64) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = cycle[i%len(cycle)]
		}
		return w
	}
	for _, weights := range [][]float64{
		{2, 1, 1, 3}, {1, 2, 3, 4, 1}, {4, 1, 0, 1, 2, 2, 8}, repeated(40, 1, 2, 3, 4), repeated(100, 2, 1),
	} {
		nodes := make([]Node, len(weights))
		for i := range nodes {
			nodes[i] = Node{ID: fmt.Sprintf("n%d", i)}
		}
		p, err := New(DefaultSeed, nodes, weights)
		if err != nil {
			t.Fatal(err)
		}
		if (len(weights) <= directAlways) != (p.direct != nil) || p.groupDirect == nil {
			t.Fatalf("%v: direct search %v, over groups %v", weights, p.direct != nil, p.groupDirect != nil)
		}
		n := len(p.lanes)
		for round := 0; round < 400; round++ {
			fk := rng.Uint64()
			// The heaviest lane (first) and one of the two lightest (last) tie or nearly tie;
			// in some rounds the other lightest lane has the same digest (equal scores, so the
			// ids decide).
			a, b := 0, n-1-round%2
			wa, wb := p.weight[a], p.weight[b]
			var sa, sb uint64
			if round%4 == 0 {
				// Whole draws k and k * wa / wb (a whole ratio here): an exact tie.
				k := 1 + uint64(round/4)%2
				sa, sb = math.MaxUint64>>(wa/wb*k), math.MaxUint64>>k
			} else {
				sb = math.MaxUint64 - rng.Uint64()>>(2+round%6)
				sa = crossing(sb, wa, wb) + uint64(round%3) - 1
			}
			th, tl := bits.Mul64(Draw(sa), wb)
			uh, ul := bits.Mul64(Draw(sb), wa)
			tie := th == uh && tl == ul
			if tie {
				ties++
			}
			q := *p
			q.lanes = make([]uint64, n)
			// The others draw at least 20 at weight 8 or less: after the pair.
			for lane := range q.lanes {
				q.lanes[lane] = laneFor(fk, rng.Uint64()>>20)
			}
			q.lanes[a], q.lanes[b] = laneFor(fk, sa), laneFor(fk, sb)
			if round%3 == 0 {
				q.lanes[2*n-3-b] = q.lanes[b]
				q.distinct = false
			}
			want := q.ranking(fk, nil)[0].lane
			if got := q.ownerLane(fk); got != want {
				t.Fatalf("%v round %d: owner lane %d, ranking %d", weights, round, got, want)
			}
			if tie && round%3 != 0 && want != b {
				// The higher score of the tied pair.
				t.Fatalf("%v round %d: tie went to lane %d", weights, round, want)
			}
			// The top-2 and top-3 likewise (fold undoes itself: the key digest is fold(fk)).
			ranking := q.ranking(fk, nil)
			for k := 2; k <= 3; k++ {
				var out [3]int
				q.RankDigestInto(fold(fk), out[:k])
				for j := 0; j < k; j++ {
					if out[j] != q.node[ranking[j].lane] {
						t.Fatalf("%v round %d: top-%d %v, ranking %v", weights, round, k, out[:k], ranking[:k])
					}
				}
				var lanes [3]int32
				var nodes [3]int
				if tie && q.topDirect != nil && q.topDirect.topLanes(fk, q.lanes, lanes[:k]) ||
					tie && q.groupDirect != nil && q.topOfGroups(fk, nodes[:k]) {
					t.Fatalf("%v round %d: an exact tie answered by the estimates", weights, round)
				}
			}
		}
	}
	if ties < 300 {
		t.Fatalf("%d exact ties", ties)
	}
}

// The top-2 and top-3 estimates answer nearly every random key of weighted placements of up to
// directMax nodes, always as the full ranking orders them.
func TestTopEstimatesAnswerRandomKeysAsTheRanking(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	for _, n := range []int{2, 3, 5, 9, 16, 31, 32} {
		nodes := make([]Node, n)
		weights := make([]float64, n)
		for i := range nodes {
			nodes[i] = Node{ID: fmt.Sprintf("n%d", i)}
			weights[i] = float64(1 + i%4)
		}
		weights[0] = 0.5
		p, err := New(DefaultSeed, nodes, weights)
		if err != nil {
			t.Fatal(err)
		}
		answered, asked := 0, 0
		for round := 0; round < 2000; round++ {
			fk := rng.Uint64()
			ranking := p.ranking(fk, nil)
			for k := 2; k <= min(3, n); k++ {
				var lanes [3]int32
				asked++
				if !p.topDirect.topLanes(fk, p.lanes, lanes[:k]) {
					continue
				}
				answered++
				for j := 0; j < k; j++ {
					if int(lanes[j]) != ranking[j].lane {
						t.Fatalf("N=%d k=%d: lanes %v, ranking %v", n, k, lanes[:k], ranking[:k])
					}
				}
			}
		}
		if answered*100 < asked*99 {
			t.Fatalf("N=%d: %d of %d answered", n, answered, asked)
		}
	}
}
