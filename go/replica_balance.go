package hrwhash

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/hrwhash/hrwhash/go/internal/hrw"
)

// ReplicaBalancePolicy is the name and version of the policy ReplicaBalance implements, as
// written in conformance/POLICIES.md.
const ReplicaBalancePolicy = "replica-balance-v2"

// The solver's limits (POLICIES.md, replica-balance, "Solver"): it stops after
// replicaBalanceMaxIterations evaluations, or when every node's probability of positions 2..k is
// within replicaBalanceTolerance (2^-20) of its target.
const (
	replicaBalanceMaxIterations = 64
	replicaBalanceTolerance     = 1.0 / 1048576
)

const (
	// rbStep is the quadrature step in log-time, half an octave: ln(2) / 2.
	rbStep = math.Ln2 / 2
	// rbFloor keeps every adjusted weight at or above this fraction of the largest one, so that
	// each stays a normal binary64 and its grid stays finite.
	rbFloor = 1.0 / 18446744073709551616
	// rbStepCap is the step of a node whose probability falls below its target over rbStepCap,
	// so that the step never overflows.
	rbStepCap = 4294967296.0
)

// ReplicaBalance gives each key a set of k replicas whose share of replicas follows the weights
// (replica-balance-v2, conformance/POLICIES.md). The top k of a weighted ranking gives small
// nodes more than their share (a node of weight 1 beside three of weight 3 is among the top 3 for
// 42% of keys, not 30%). Here the first replica is the key's hrw-v1 owner, and the others come
// from a ranking of a second key digest under weights that an exact solver computes once, when
// the policy is built: the same weights, bit for bit, in every language. It is written in Go; the
// hrwhash_cgo build solves and answers memberships above 128 selectable nodes in libhrwhash, as
// it does their lookups. It is immutable and safe for concurrent use.
type ReplicaBalance struct {
	p          *Placement
	primary    *hrw.Placement
	secondary  *hrw.Placement
	lib        *replicaBalanceLib
	k          int
	iterations int
	residual   float64
	adjusted   []uint64
}

// NewReplicaBalance solves the adjusted weights for k replicas over p. ErrInvalidCount (What "k",
// Count the value) when k is below 1; ErrInfeasibleReplicaWeights when a node has more than 1/k
// of the total weight (Index: the first such node, Count: k), which is also the error when k
// exceeds the nodes of weight above zero.
func NewReplicaBalance(p *Placement, k int) (*ReplicaBalance, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, &Error{Code: CodeInvalidCount, Count: k, What: "k"}
	}
	primary, err := p.goPlacement()
	if err != nil {
		return nil, err
	}
	weights := make([]uint64, len(primary.Nodes))
	var totalHi, totalLo uint64
	for i, n := range primary.Nodes {
		weights[i] = n.Fixed
		var c uint64
		totalLo, c = bits.Add64(totalLo, n.Fixed, 0)
		totalHi += c
	}
	// k * w <= S for every node, in 128 bits as the core computes it.
	for i, w := range weights {
		hi, lo := bits.Mul64(uint64(k), w)
		if hi > totalHi || (hi == totalHi && lo > totalLo) {
			return nil, &Error{Code: CodeInfeasibleReplicaWeights, Index: i, Count: k}
		}
	}
	rb := &ReplicaBalance{p: p, primary: primary, secondary: primary, k: k, adjusted: weights}
	if k == 1 {
		return rb, nil
	}
	rb.adjusted = make([]uint64, len(weights))
	rb.lib, rb.iterations, rb.residual, err = newReplicaBalanceLib(p, k, rb.adjusted)
	if err != nil {
		return nil, err
	}
	if rb.lib == nil {
		rb.adjusted, rb.iterations, rb.residual = solveReplicaBalance(weights, totalHi, totalLo, k, replicaBalanceMaxWork)
		if rb.adjusted == nil {
			return nil, &Error{Code: CodeResultTooLarge, Count: k}
		}
	}
	rb.secondary, err = hrw.NewFixed(primary.Seed, primary.Nodes, rb.adjusted)
	if err != nil {
		return nil, fromHrw(err)
	}
	return rb, nil
}

func (rb *ReplicaBalance) usable() error { return builtIf(rb != nil && rb.secondary != nil) }

// Placement is the placement the replica sets are drawn from (its weights rank the primaries).
func (rb *ReplicaBalance) Placement() *Placement {
	if rb == nil {
		return nil
	}
	return rb.p
}

// K is the number of replicas of every key (0 for a zero ReplicaBalance).
func (rb *ReplicaBalance) K() int {
	if rb == nil {
		return 0
	}
	return rb.k
}

// Iterations is how many times the solver evaluated the inclusion probabilities (0 when k is 1).
func (rb *ReplicaBalance) Iterations() int {
	if rb == nil {
		return 0
	}
	return rb.iterations
}

// Residual is the solver's largest relative distance from a node's target share when it stopped:
// at most 2^-20 unless a node holds exactly 1/k of the weight, which no finite weights can serve
// (the solver then stops at its cap of 64 iterations). 0 when k is 1.
func (rb *ReplicaBalance) Residual() float64 {
	if rb == nil {
		return 0
	}
	return rb.residual
}

// AdjustedFixed returns the solved weights that rank replicas 2 to k, in fixed point (w * 2^32),
// one per node in build order (0 for draining nodes). A nil or zero ReplicaBalance panics with
// ErrNullParameter.
func (rb *ReplicaBalance) AdjustedFixed() []uint64 {
	mustUse(rb.usable())
	return append([]uint64(nil), rb.adjusted...)
}

// AdjustedWeights returns the same weights as numbers (AdjustedFixed divided by 2^32), one per
// node in build order. A nil or zero ReplicaBalance panics with ErrNullParameter.
func (rb *ReplicaBalance) AdjustedWeights() []float64 {
	mustUse(rb.usable())
	out := make([]float64, len(rb.adjusted))
	for i, f := range rb.adjusted {
		out[i] = float64(f) / (1 << 32)
	}
	return out
}

// Replicas returns the replica set of key as node indices: the hrw-v1 owner first, then the
// first K()-1 other nodes of the second digest's ranking under the adjusted weights. It cannot
// fail, so there is no error; a nil or zero ReplicaBalance panics with ErrNullParameter.
func (rb *ReplicaBalance) Replicas(key string) []int {
	mustUse(rb.usable())
	out := make([]int, rb.k)
	return out[:rb.ReplicasInto(key, out)]
}

// ReplicasInto writes the first min(len(out), K()) nodes of the replica set of key into out and
// returns how many; out[:n] is Replicas(key)[:n]. It allocates nothing, and panics as Replicas
// does.
func (rb *ReplicaBalance) ReplicasInto(key string, out []int) int {
	mustUse(rb.usable())
	if rb.lib != nil && len(out) >= rb.k {
		return rb.lib.replicasInto(key, out[:rb.k])
	}
	m := min(len(out), rb.k)
	if m == 0 {
		return 0
	}
	kd := rb.primary.KeyDigest(key)
	primary := rb.primary.OwnerOfDigest(kd)
	if m == 1 {
		out[0] = primary
		return 1
	}
	n := rb.secondary.RankDigestInto(secondDigest(kd), out[:m])
	placePrimary(primary, out[:n])
	return n
}

// placePrimary puts primary first in ranked (the secondary ranking's first nodes), keeping the
// order of the others and dropping the last one when primary was not among them.
func placePrimary(primary int, ranked []int) {
	q := len(ranked) - 1
	for i, x := range ranked {
		if x == primary {
			q = i
			break
		}
	}
	copy(ranked[1:q+1], ranked[:q])
	ranked[0] = primary
}

// secondDigest is the SplitMix64 output whose state before the step is kd: a bijection with full
// avalanche, so that the second ranking behaves as if drawn independently of the first.
func secondDigest(kd uint64) uint64 {
	z := kd + 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// rbInverseFactorials is 1/q! for q = 0..17, each the binary64 quotient of 1 by the exactly
// representable q!.
var rbInverseFactorials = func() (out [18]float64) {
	factorial := uint64(1)
	for q := range out {
		if q > 0 {
			factorial *= uint64(q)
		}
		out[q] = 1 / float64(factorial)
	}
	return out
}()

// expNeg is e^-x for x >= 0 (POLICIES.md, replica-balance, "exp"), computed as the core does so
// that every language gets the same bits: no math.Exp, and every product rounded before it is
// added (float64(...) keeps the compiler from fusing a multiply-add).
func expNeg(x float64) float64 {
	if x > 700 {
		return 0
	}
	t := x * math.Log2E
	n := uint32(t) // floor, as t >= 0; t < 1010
	u := (t - float64(n)) * math.Ln2
	r := rbInverseFactorials[17]
	for q := 16; q >= 0; q-- {
		r = rbInverseFactorials[q] - float64(u*r)
	}
	// 2^-n is normal for n <= 1022, and r is in (0.5, 1], so the product is exact.
	return r * math.Float64frombits(uint64(1023-n)<<52)
}

// rbExponent is floor(log2(x)) of a positive normal binary64.
func rbExponent(x float64) int {
	return int(math.Float64bits(x)>>52&0x7FF) - 1023
}

// rbPow2 is 2^e for -1022 <= e <= 1023.
func rbPow2(e int) float64 {
	return math.Float64frombits(uint64(e+1023) << 52)
}

// rbRoundHalfEven is round_half_even(x) for a finite x >= 0, saturating at 2^64 - 1.
func rbRoundHalfEven(x float64) uint64 {
	if x >= 1<<64 {
		return math.MaxUint64
	}
	t := uint64(x)
	fraction := x - float64(t)
	if fraction > 0.5 || (fraction == 0.5 && t&1 == 1) {
		t++
	}
	return t
}

// uint128Float is hi * 2^64 + lo rounded to the nearest binary64, ties to even, as Rust's
// u128 as f64.
func uint128Float(hi, lo uint64) float64 {
	if hi == 0 {
		return float64(lo)
	}
	x := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	f, _ := new(big.Float).SetInt(x.Or(x, new(big.Int).SetUint64(lo))).Float64()
	return f
}

// replicaBalanceMaxWork is the most work one solve may do (POLICIES.md, replica-balance,
// "Solver"): an evaluation over v costs its grid points times len(v) times k + 4.
const replicaBalanceMaxWork = 1 << 28

// rbGrid is the grid of an evaluation over v: its points are j = 0 .. 2 (hi - lo).
func rbGrid(v []float64) (lo, hi int) {
	rates := 0.0
	smallest := math.Inf(1)
	for _, x := range v {
		rates += x
		smallest = min(smallest, x)
	}
	return -rbExponent(rates) - 32, 6 - rbExponent(smallest)
}

// rbWork is what evaluating the inclusion over v costs, saturating at the largest uint64.
func rbWork(v []float64, k int) uint64 {
	lo, hi := rbGrid(v)
	points := uint64(2*(hi-lo) + 1)
	h1, w := bits.Mul64(points, uint64(len(v)))
	h2, w2 := bits.Mul64(w, uint64(k)+4)
	if h1 != 0 || h2 != 0 {
		return math.MaxUint64
	}
	return w2
}

// solveReplicaBalance is the fixed-point iteration of POLICIES.md, replica-balance, "Solver",
// in the core's order of operations: the adjusted fixed-point weights (build order), the number
// of evaluations and the residual; nil weights when the first evaluation is past maxWork.
// weights has a node of weight above zero, total is their sum in 128 bits, and 2 <= k <= the
// nodes of weight above zero.
func solveReplicaBalance(weights []uint64, totalHi, totalLo uint64, k int, maxWork uint64) ([]uint64, int, float64) {
	var selectable []int
	var heaviest uint64
	for i, w := range weights {
		if w > 0 {
			selectable = append(selectable, i)
		}
		heaviest = max(heaviest, w)
	}
	s := uint128Float(totalHi, totalLo)
	wmax := float64(heaviest)
	omega := make([]float64, len(selectable))
	tau := make([]float64, len(selectable))
	v := make([]float64, len(selectable))
	for j, i := range selectable {
		omega[j] = float64(weights[i]) / s
		tau[j] = float64(k-1) * omega[j]
		v[j] = float64(weights[i]) / wmax
	}
	spent := rbWork(v, k)
	if spent > maxWork {
		return nil, 0, 0
	}
	next := make([]float64, len(v))
	race := newRBRace(len(selectable), k-1)
	p := make([]float64, len(selectable))
	iterations := 0
	var residual float64
	for {
		race.inclusion(v, omega, p)
		iterations++
		residual = 0
		converged := true
		for j := range p {
			if r := math.Abs((p[j] - tau[j]) / tau[j]); r > residual {
				residual = r
			}
			if !(math.Abs(p[j]-tau[j]) <= tau[j]*replicaBalanceTolerance) {
				converged = false
			}
		}
		if converged || iterations == replicaBalanceMaxIterations {
			break
		}
		top := 0.0
		for j := range v {
			ratio := rbStepCap
			if p[j] > tau[j]/rbStepCap {
				ratio = tau[j] / p[j]
			}
			next[j] = v[j] * ratio
			if next[j] > top {
				top = next[j]
			}
		}
		for j := range next {
			if x := next[j] / top; x > rbFloor {
				next[j] = x
			} else {
				next[j] = rbFloor
			}
		}
		// The next evaluation must fit the work cap; otherwise stop with this one's answer.
		w := rbWork(next, k)
		if w > maxWork || spent > maxWork-w {
			break
		}
		spent += w
		v, next = next, v
	}
	adjusted := make([]uint64, len(weights))
	for j, i := range selectable {
		adjusted[i] = min(max(rbRoundHalfEven(v[j]*wmax), 1), heaviest)
	}
	return adjusted, iterations, residual
}

// rbRace is the inclusion integral of POLICIES.md, replica-balance, with its working storage:
// m coefficients of the count polynomial (z^0 .. z^(m-1)), prefix products (one row of 2m per
// node: the t^0 then the t^1 coefficients), and the race's survival terms a.
type rbRace struct {
	m              int
	prefix, a, acc []float64
	c, next, q     []float64
}

func newRBRace(n, m int) *rbRace {
	return &rbRace{
		m:      m,
		prefix: make([]float64, n*2*m),
		a:      make([]float64, n),
		acc:    make([]float64, n),
		c:      make([]float64, 2*m),
		next:   make([]float64, 2*m),
		q:      make([]float64, 2*m),
	}
}

// inclusion writes into p, for each selectable node, its probability of being at positions 2..k.
func (r *rbRace) inclusion(v, omega, p []float64) {
	n, m := len(v), r.m
	lo, hi := rbGrid(v)
	acc := r.acc
	clear(acc)
	for j := 0; j <= 2*(hi-lo); j++ {
		y := rbPow2(lo + j/2)
		if j%2 == 1 {
			y *= math.Sqrt2
		}
		for i, vi := range v {
			r.a[i] = expNeg(vi * y)
		}
		c, next, q := r.c, r.next, r.q
		clear(c)
		c[0] = 1
		for i := 0; i < n; i++ {
			copy(r.prefix[i*2*m:(i+1)*2*m], c)
			rbMultiply(c, r.a[i], omega[i], next, m)
			c, next = next, c
		}
		clear(c)
		c[0] = 1
		for i := n - 1; i >= 0; i-- {
			before := r.prefix[i*2*m : (i+1)*2*m]
			s0, s1 := 0.0, 0.0
			for d := 0; d < m; d++ {
				s0 += c[d]
				s1 += c[m+d]
				q[d] = s0
				q[m+d] = s1
			}
			fewer := 0.0
			for d := 0; d < m; d++ {
				fewer += float64(before[d]*q[m+m-1-d]) + float64(before[m+d]*q[m-1-d])
			}
			acc[i] += float64(float64(float64(y*v[i])*r.a[i]) * fewer)
			rbMultiply(c, r.a[i], omega[i], next, m)
			c, next = next, c
		}
	}
	for i, x := range acc {
		p[i] = x * rbStep
	}
}

// rbMultiply sets next = c * (a + (1 - a) z + omega t), truncated to z^(m-1) and t^1; c holds
// the t^0 coefficients then the t^1 ones.
func rbMultiply(c []float64, a, omega float64, next []float64, m int) {
	b := 1 - a
	next[0] = a * c[0]
	next[m] = float64(a*c[m]) + float64(omega*c[0])
	for d := 1; d < m; d++ {
		next[d] = float64(a*c[d]) + float64(b*c[d-1])
		next[m+d] = float64(float64(a*c[m+d])+float64(b*c[m+d-1])) + float64(omega*c[d])
	}
}
