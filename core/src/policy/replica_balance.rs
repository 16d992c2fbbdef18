//! replica-balance (conformance/POLICIES.md, tag `replica-balance-v2`): weight-true replica sets
//! from an exact solver.
//!
//! The top-k of a weighted hrw-v1 ranking is a sequence of weighted draws without replacement,
//! which gives small nodes more than their share of replicas (a node of weight 1 beside three of
//! weight 3 is among the top 3 for 42% of keys, not 30%). Here the first replica is the hrw-v1
//! owner under the real weights, and the others come from a ranking under adjusted weights, solved
//! once when the policy is built so that each node's share of replicas follows its weight. That
//! second ranking is drawn from a second key digest, independent of the first, so a node's chance
//! of being among the replicas is a one-dimensional integral over the exponential race of the
//! logarithmic method. The solver evaluates that integral with a fixed quadrature instead of
//! counting sampled keys, so its answer carries no sampling noise, and every step is specified in
//! binary64 so that every language computes the same adjusted weights bit for bit.

use alloc::vec;
use alloc::vec::Vec;

use crate::v1::key_digest;
use crate::{Error, Node, Placement, Weight};

/// The name and version of the policy, as written in conformance/POLICIES.md. The tag names no
/// hash input: it only labels the algorithm and its vectors.
pub const REPLICA_BALANCE_POLICY: &str = "replica-balance-v2";

/// The solver stops after this many evaluations of the inclusion probabilities.
pub const MAX_ITERATIONS: u32 = 64;
/// The most work one solve may do (POLICIES.md, replica-balance, "Solver"): an evaluation of the
/// inclusion probabilities costs `G * n * (k + 4)` units, `G` its grid points and `n` the nodes of
/// weight above 0. The solver stops before an evaluation that would take it past this, as it does
/// at [`MAX_ITERATIONS`]; a build whose first evaluation alone is past it is
/// [`Error::ResultTooLarge`]. A unit is about 40 ns on one core (release build, 2026), so one
/// solve costs at most about 10 to 20 s.
pub const MAX_SOLVER_WORK: u64 = 1 << 28;
/// The solver stops when every node's probability of positions 2..k is within this fraction of
/// its target (2^-20).
pub const TOLERANCE: f64 = 1.0 / 1_048_576.0;

/// log2(e) and ln(2), the binary64 values nearest them (0x3FF71547652B82FE, 0x3FE62E42FEFA39EF).
const LOG2_E: f64 = core::f64::consts::LOG2_E;
const LN_2: f64 = core::f64::consts::LN_2;
/// The quadrature step in log-time: half an octave, ln(2) / 2 (an exact halving of LN_2).
const STEP: f64 = LN_2 / 2.0;
/// The binary64 nearest sqrt(2) (0x3FF6A09E667F3BCD): the odd points of the half-octave grid.
const SQRT_2: f64 = core::f64::consts::SQRT_2;
/// Adjusted weights stay at or above this fraction of the largest one, so every one stays a
/// normal binary64 and its grid stays finite.
const FLOOR: f64 = 1.0 / 18_446_744_073_709_551_616.0;
/// A node whose probability falls below its target times this is stepped by 2^32 instead of
/// target / probability, so the step never overflows.
const STEP_CAP: f64 = 4_294_967_296.0;

/// Replica sets of `k` nodes in which each node's share of replicas follows its weight.
///
/// ```
/// use hrwhash::policy::ReplicaBalance;
/// use hrwhash::Placement;
///
/// let fleet = Placement::weighted([("a", 3.0), ("b", 3.0), ("c", 3.0), ("small", 1.0)])?;
/// let balanced = ReplicaBalance::new(fleet.clone(), 3)?;
/// let set = balanced.replicas("object-7");
/// assert_eq!(set.len(), 3);
/// assert_eq!(set[0], fleet.owner_index("object-7")); // the primary is the hrw-v1 owner
/// // Positions 2 and 3 favour the big nodes more than their real weights (3:1) do.
/// let adjusted = balanced.adjusted_weights();
/// assert!(adjusted[0].to_f64() / adjusted[3].to_f64() > 5.0);
/// assert!(balanced.residual() <= hrwhash::policy::replica_balance::TOLERANCE);
///
/// // A node with more than 1/k of the weight cannot get its share.
/// let lopsided = Placement::weighted([("big", 10.0), ("a", 1.0), ("b", 1.0)])?;
/// assert!(ReplicaBalance::new(lopsided, 2).is_err());
/// # Ok::<(), hrwhash::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReplicaBalance {
    primary: Placement,
    secondary: Placement,
    k: usize,
    iterations: u32,
    residual: f64,
}

impl ReplicaBalance {
    /// Solves the adjusted weights for `k` replicas over `placement`.
    ///
    /// Fails with [`Error::InvalidCount`] when `k` is 0, [`Error::InfeasibleReplicaWeights`]
    /// when a node has more than `1/k` of the total weight (which includes every `k` above the
    /// number of selectable nodes), and [`Error::ResultTooLarge`] when one evaluation of the solver
    /// is past [`MAX_SOLVER_WORK`].
    pub fn new(placement: Placement, k: usize) -> Result<ReplicaBalance, Error> {
        if k == 0 {
            return Err(Error::InvalidCount);
        }
        let weights: Vec<u64> = placement
            .node_specs()
            .iter()
            .map(|n| n.weight().to_fixed())
            .collect();
        let total: u128 = weights.iter().map(|&w| w as u128).sum();
        // k * w <= S for every node; k < 2^64 and w < 2^64, so the product fits.
        if let Some(index) = weights.iter().position(|&w| k as u128 * w as u128 > total) {
            return Err(Error::InfeasibleReplicaWeights { index, k });
        }
        if k == 1 {
            return Ok(ReplicaBalance {
                secondary: placement.clone(),
                primary: placement,
                k,
                iterations: 0,
                residual: 0.0,
            });
        }
        let solved = solve(&weights, total, k, MAX_SOLVER_WORK).ok_or(Error::ResultTooLarge)?;
        let secondary = reweighted(&placement, &solved.adjusted)?;
        Ok(ReplicaBalance {
            primary: placement,
            secondary,
            k,
            iterations: solved.iterations,
            residual: solved.residual,
        })
    }

    /// The placement of the primaries (the real weights).
    pub fn placement(&self) -> &Placement {
        &self.primary
    }

    /// The number of replicas per key.
    pub fn k(&self) -> usize {
        self.k
    }

    /// How many times the solver evaluated the inclusion probabilities (0 when `k` is 1).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The largest relative distance, over the selectable nodes, between a node's probability of
    /// positions 2..k under the returned weights (before rounding) and its target; at most
    /// [`TOLERANCE`] unless the solver stopped at [`MAX_ITERATIONS`], which happens only
    /// when a node holds exactly `1/k` of the weight (it must be in every set, which no finite
    /// weight achieves). 0 when `k` is 1.
    pub fn residual(&self) -> f64 {
        self.residual
    }

    /// The weights that rank positions 2 to k, in build order (0 for draining nodes).
    pub fn adjusted_weights(&self) -> Vec<Weight> {
        self.secondary
            .node_specs()
            .iter()
            .map(|n| n.weight())
            .collect()
    }

    /// The same weights in fixed point (`w * 2^32`, [`Weight::to_fixed`]), as
    /// `conformance/policies/replica-balance-v2.json` states them.
    pub fn adjusted_fixed(&self) -> Vec<u64> {
        self.secondary
            .node_specs()
            .iter()
            .map(|n| n.weight().to_fixed())
            .collect()
    }

    /// The replica set of `key` as build-order indices: the hrw-v1 owner first, then the first
    /// `k - 1` other nodes of the ranking of the key's second digest under the adjusted weights.
    pub fn replicas(&self, key: impl AsRef<[u8]>) -> Vec<usize> {
        let mut out = vec![0usize; self.k];
        let n = self.replicas_into(key, &mut out);
        out.truncate(n);
        out
    }

    /// The first `min(out.len(), k)` nodes of the replica set of `key` into `out`; returns how
    /// many. Allocates nothing.
    pub fn replicas_into(&self, key: impl AsRef<[u8]>, out: &mut [usize]) -> usize {
        let m = out.len().min(self.k);
        if m == 0 {
            return 0;
        }
        let kd = key_digest(&self.primary.seed(), key.as_ref());
        let primary = self.primary.owner_index_of_digest(kd);
        if m == 1 {
            out[0] = primary;
            return 1;
        }
        let n = self
            .secondary
            .rank_digest_into(second_digest(kd), &mut out[..m]);
        place_primary(primary, &mut out[..n]);
        n
    }
}

/// Puts `primary` first in `ranked` (the secondary ranking's first nodes), keeping the order of
/// the others and dropping the last one when `primary` was not among them.
fn place_primary(primary: usize, ranked: &mut [usize]) {
    match ranked.iter().position(|&i| i == primary) {
        Some(q) => ranked[..=q].rotate_right(1),
        None => {
            let m = ranked.len();
            ranked.copy_within(0..m - 1, 1);
            ranked[0] = primary;
        }
    }
}

/// The same nodes (ids, domains, order, seed) with other fixed-point weights.
fn reweighted(placement: &Placement, weights: &[u64]) -> Result<Placement, Error> {
    let nodes: Vec<Node> = placement
        .node_specs()
        .iter()
        .zip(weights)
        .map(|(n, &w)| n.clone().with_weight(Weight::from_fixed(w)))
        .collect();
    Placement::from_nodes(placement.seed(), nodes)
}

/// `round_half_even(x)` for a finite `x >= 0`, saturating at `u64::MAX` (`f64::round_ties_even`
/// needs std). Subtracting the truncation is exact below 2^53, and above it `x` is an integer.
fn round_half_even(x: f64) -> u64 {
    let t = x as u64;
    let fraction = x - t as f64;
    if fraction > 0.5 || (fraction == 0.5 && t & 1 == 1) {
        t.saturating_add(1)
    } else {
        t
    }
}

/// The second key digest: the SplitMix64 output whose state before the step is `kd`. A bijection
/// with full avalanche, so the second ranking behaves as if drawn independently of the first.
pub fn second_digest(kd: u64) -> u64 {
    let mut z = kd.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `e^-x` for `x >= 0` (POLICIES.md, replica-balance, "exp"): the same bits in every
/// language, with no libm (the core is `no_std`).
pub fn exp_neg(x: f64) -> f64 {
    if x > 700.0 {
        return 0.0;
    }
    let t = x * LOG2_E;
    let n = t as u32; // floor, as t >= 0; t < 1010
    let u = (t - n as f64) * LN_2;
    let mut r = INVERSE_FACTORIALS[17];
    for q in (0..17).rev() {
        r = INVERSE_FACTORIALS[q] - u * r;
    }
    // 2^-n is normal for n <= 1022, and r is in (0.5, 1], so the product is exact.
    r * f64::from_bits(((1023 - n) as u64) << 52)
}

/// `1 / q!` for `q = 0..=17`, each the binary64 quotient of 1 by the exactly representable `q!`.
const INVERSE_FACTORIALS: [f64; 18] = {
    let mut out = [0.0f64; 18];
    let mut factorial = 1u64;
    let mut q = 0;
    while q < 18 {
        if q > 0 {
            factorial *= q as u64;
        }
        out[q] = 1.0 / factorial as f64;
        q += 1;
    }
    out
};

/// `floor(log2(x))` of a positive normal binary64.
fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7FF) as i32 - 1023
}

/// `2^e` for `-1022 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

struct Solved {
    adjusted: Vec<u64>,
    iterations: u32,
    residual: f64,
}

/// The grid of an evaluation over `v` (POLICIES.md, replica-balance, "Inclusion", step 1):
/// `(lo, hi)`, whose points are `j = 0 ..= 2 (hi - lo)`.
fn grid(v: &[f64]) -> (i32, i32) {
    let mut rates = 0.0f64;
    for &x in v {
        rates += x;
    }
    let smallest = v.iter().copied().fold(f64::INFINITY, f64::min);
    (-exponent(rates) - 32, 6 - exponent(smallest))
}

/// What evaluating the inclusion over `v` costs in [`MAX_SOLVER_WORK`] units.
fn work(v: &[f64], k: usize) -> u64 {
    let (lo, hi) = grid(v);
    let points = 2 * (hi - lo) as u64 + 1;
    points
        .saturating_mul(v.len() as u64)
        .saturating_mul(k as u64 + 4)
}

/// The fixed-point iteration of POLICIES.md, replica-balance, "Solver"; `None` when its first
/// evaluation is past [`MAX_SOLVER_WORK`].
fn solve(weights: &[u64], total: u128, k: usize, max_work: u64) -> Option<Solved> {
    let selectable: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] > 0).collect();
    let s = total as f64;
    let omega: Vec<f64> = selectable.iter().map(|&i| weights[i] as f64 / s).collect();
    let tau: Vec<f64> = omega.iter().map(|&o| (k - 1) as f64 * o).collect();
    let heaviest = weights.iter().copied().max().unwrap_or(0);
    let wmax = heaviest as f64;
    let mut v: Vec<f64> = selectable
        .iter()
        .map(|&i| weights[i] as f64 / wmax)
        .collect();
    let mut spent = work(&v, k);
    if spent > max_work {
        return None;
    }
    let mut race = Race::new(selectable.len(), k - 1);
    let mut iterations = 0;
    let residual = loop {
        let p = race.inclusion(&v, &omega);
        iterations += 1;
        let residual = p
            .iter()
            .zip(&tau)
            .map(|(&p, &t)| ((p - t) / t).abs())
            .fold(0.0f64, f64::max);
        let converged = p
            .iter()
            .zip(&tau)
            .all(|(&p, &t)| (p - t).abs() <= t * TOLERANCE);
        if converged || iterations == MAX_ITERATIONS {
            break residual;
        }
        let stepped: Vec<f64> = v
            .iter()
            .zip(p.iter().zip(&tau))
            .map(|(&vi, (&pi, &ti))| {
                let ratio = if pi > ti / STEP_CAP {
                    ti / pi
                } else {
                    STEP_CAP
                };
                vi * ratio
            })
            .collect();
        let top = stepped.iter().copied().fold(0.0f64, f64::max);
        let next: Vec<f64> = stepped.iter().map(|&x| f64::max(x / top, FLOOR)).collect();
        // The next evaluation must fit the work cap; otherwise stop with this one's answer.
        match spent.checked_add(work(&next, k)) {
            Some(total) if total <= max_work => spent = total,
            _ => break residual,
        }
        v = next;
    };
    let mut adjusted = vec![0u64; weights.len()];
    for (&i, &vi) in selectable.iter().zip(&v) {
        adjusted[i] = round_half_even(vi * wmax).clamp(1, heaviest);
    }
    Some(Solved {
        adjusted,
        iterations,
        residual,
    })
}

/// The inclusion integral of POLICIES.md, replica-balance, with its working storage.
struct Race {
    /// Coefficients kept of the count polynomial: z^0 .. z^(k-2).
    m: usize,
    /// Prefix products, one row of `2 m` numbers (the t^0 then the t^1 coefficients) per node.
    prefix: Vec<f64>,
    a: Vec<f64>,
}

impl Race {
    fn new(n: usize, m: usize) -> Race {
        Race {
            m,
            prefix: vec![0.0; n * 2 * m],
            a: vec![0.0; n],
        }
    }

    /// The probability, for each selectable node, of being at positions 2..k.
    #[allow(clippy::needless_range_loop)] // one index walks four parallel arrays
    fn inclusion(&mut self, v: &[f64], omega: &[f64]) -> Vec<f64> {
        let n = v.len();
        let m = self.m;
        let (lo, hi) = grid(v);
        let mut acc = vec![0.0f64; n];
        let mut c = vec![0.0f64; 2 * m];
        let mut next = vec![0.0f64; 2 * m];
        let mut q = vec![0.0f64; 2 * m];
        for j in 0..=2 * (hi - lo) {
            let y = if j % 2 == 0 {
                pow2(lo + j / 2)
            } else {
                pow2(lo + j / 2) * SQRT_2
            };
            for (a, &vi) in self.a.iter_mut().zip(v) {
                *a = exp_neg(vi * y);
            }
            c.iter_mut().for_each(|x| *x = 0.0);
            c[0] = 1.0;
            for i in 0..n {
                self.prefix[i * 2 * m..(i + 1) * 2 * m].copy_from_slice(&c);
                multiply(&c, self.a[i], omega[i], &mut next, m);
                core::mem::swap(&mut c, &mut next);
            }
            c.iter_mut().for_each(|x| *x = 0.0);
            c[0] = 1.0;
            for i in (0..n).rev() {
                let before = &self.prefix[i * 2 * m..(i + 1) * 2 * m];
                let (mut s0, mut s1) = (0.0f64, 0.0f64);
                for d in 0..m {
                    s0 += c[d];
                    s1 += c[m + d];
                    q[d] = s0;
                    q[m + d] = s1;
                }
                let mut fewer = 0.0f64;
                for d in 0..m {
                    fewer += before[d] * q[m + m - 1 - d] + before[m + d] * q[m - 1 - d];
                }
                acc[i] += ((y * v[i]) * self.a[i]) * fewer;
                multiply(&c, self.a[i], omega[i], &mut next, m);
                core::mem::swap(&mut c, &mut next);
            }
        }
        acc.iter().map(|&x| x * STEP).collect()
    }
}

/// `next = c * (a + (1 - a) z + omega t)`, truncated to z^(m-1) and t^1; `c` holds the t^0
/// coefficients then the t^1 ones.
fn multiply(c: &[f64], a: f64, omega: f64, next: &mut [f64], m: usize) {
    let b = 1.0 - a;
    next[0] = a * c[0];
    next[m] = a * c[m] + omega * c[0];
    for d in 1..m {
        next[d] = a * c[d] + b * c[d - 1];
        next[m + d] = (a * c[m + d] + b * c[m + d - 1]) + omega * c[d];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_specified_bits() {
        assert_eq!(LOG2_E.to_bits(), 0x3FF7_1547_652B_82FE);
        assert_eq!(LN_2.to_bits(), 0x3FE6_2E42_FEFA_39EF);
        assert_eq!(STEP.to_bits(), 0x3FD6_2E42_FEFA_39EF);
        assert_eq!(SQRT_2.to_bits(), 0x3FF6_A09E_667F_3BCD);
        assert_eq!(INVERSE_FACTORIALS[17], 1.0 / 355_687_428_096_000.0);
    }

    #[test]
    fn rounding_is_half_even() {
        assert_eq!(round_half_even(0.5), 0);
        assert_eq!(round_half_even(1.5), 2);
        assert_eq!(round_half_even(2.5), 2);
        assert_eq!(round_half_even(2.500_000_1), 3);
        assert_eq!(round_half_even(1e300), u64::MAX);
        assert_eq!(
            round_half_even(9_007_199_254_740_993.0),
            9_007_199_254_740_992
        );
    }

    #[test]
    fn exp_neg_is_accurate_and_monotone() {
        let mut last = 1.0;
        for i in 0..18_800 {
            let x = i as f64 * 0.0371;
            let e = exp_neg(x);
            assert!(e <= last, "{x}");
            last = e;
            // The rounding of x * log2(e) costs about x ulps of relative error.
            #[cfg(feature = "std")]
            assert!(
                (e - (-x).exp()).abs() <= (4e-15 + 3e-16 * x) * (-x).exp(),
                "{x}: {e}"
            );
        }
        assert_eq!(exp_neg(0.0), 1.0);
        assert_eq!(exp_neg(700.5), 0.0);
        assert!(exp_neg(700.0) > 0.0);
    }

    #[test]
    fn equal_weights_need_no_adjustment_and_one_round() {
        let p = Placement::new((0..7).map(|i| alloc::format!("n{i}"))).unwrap();
        let b = ReplicaBalance::new(p, 3).unwrap();
        assert_eq!(b.iterations(), 1);
        let w = b.adjusted_weights();
        assert!(w.iter().all(|&x| x == w[0]), "{w:?}");
    }

    #[test]
    fn the_small_node_of_3331_gets_its_target_exactly() {
        let p = Placement::weighted([("a", 3.0), ("b", 3.0), ("c", 3.0), ("d", 1.0)]).unwrap();
        let b = ReplicaBalance::new(p, 3).unwrap();
        assert!(b.residual() <= TOLERANCE);
        // Independent of the quadrature: the exact inclusion of the small node with 3 big equal
        // nodes and V = (1, 1, 1, x) in closed form (position 2..3 = all but one of the three
        // non-primary nodes), solved here by bisection on x.
        let inclusion = |x: f64| {
            // A big primary (probability 0.9) leaves a race over {big, big, small} whose first two
            // are the replicas: the small node misses out only when both big ones finish first.
            let last = (2.0 / (2.0 + x)) * (1.0 / (1.0 + x));
            0.9 * (1.0 - last)
        };
        let (mut lo, mut hi) = (1e-6, 1.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if inclusion(mid) < 0.2 {
                lo = mid
            } else {
                hi = mid
            }
        }
        let w = b.adjusted_weights();
        let ratio = w[3].to_f64() / w[0].to_f64();
        assert!((ratio / lo - 1.0).abs() < 1e-5, "{ratio} vs {lo}");
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let p = Placement::weighted([("a", 5.0), ("b", 1.0), ("c", 1.0), ("d", 1.0)]).unwrap();
        assert_eq!(
            ReplicaBalance::new(p.clone(), 2).unwrap_err(),
            Error::InfeasibleReplicaWeights { index: 0, k: 2 }
        );
        assert_eq!(
            ReplicaBalance::new(p.clone(), 0).unwrap_err(),
            Error::InvalidCount
        );
        assert!(ReplicaBalance::new(p, 1).is_ok());
        let even = Placement::new(["a", "b", "c"]).unwrap();
        assert_eq!(
            ReplicaBalance::new(even.clone(), 4).unwrap_err(),
            Error::InfeasibleReplicaWeights { index: 0, k: 4 }
        );
        let all = ReplicaBalance::new(even, 3).unwrap();
        let mut set = all.replicas("x");
        set.sort();
        assert_eq!(set, [0, 1, 2]);
    }

    /// A build whose first evaluation is past the work cap is refused before it starts: 2,048
    /// equal nodes with k = 2,048 cost 99 grid points x 2,048 x 2,052 > 2^28.
    #[test]
    fn solves_past_the_work_cap_are_refused_before_they_start() {
        let p = Placement::new((0..2048).map(|i| alloc::format!("n{i}"))).unwrap();
        let v = alloc::vec![1.0; 2048];
        assert_eq!(work(&v, 2048), 99 * 2048 * 2052);
        assert_eq!(
            ReplicaBalance::new(p, 2048).unwrap_err(),
            Error::ResultTooLarge
        );
    }

    /// The solver stops before the evaluation that would pass the cap, keeping the last
    /// evaluated weights: the map that otherwise runs to 64 stops after the evaluations that fit.
    #[test]
    fn the_work_cap_stops_the_solver_like_the_iteration_cap() {
        let w = [2u64 << 32, 1 << 32, 1 << 32];
        let total = w.iter().map(|&x| x as u128).sum();
        let full = solve(&w, total, 2, u64::MAX).unwrap();
        assert_eq!(full.iterations, MAX_ITERATIONS);
        let first = work(&[1.0, 0.5, 0.5], 2);
        assert_eq!(solve(&w, total, 2, first - 1).map(|s| s.iterations), None);
        let one = solve(&w, total, 2, first).unwrap();
        assert_eq!(one.iterations, 1);
        // A cap of five first evaluations stops the solver early, and never at a better answer.
        let some = solve(&w, total, 2, 5 * first).unwrap();
        assert!(some.iterations > 1 && some.iterations < MAX_ITERATIONS);
        assert!(some.residual >= full.residual);
    }

    #[test]
    fn a_node_at_exactly_one_kth_stops_at_the_cap() {
        let p = Placement::weighted([("a", 2.0), ("b", 1.0), ("c", 1.0)]).unwrap();
        let b = ReplicaBalance::new(p, 2).unwrap();
        assert_eq!(b.iterations(), MAX_ITERATIONS);
        assert!(b.residual() > TOLERANCE);
        let w = b.adjusted_weights();
        assert!(w[0].to_f64() > 50.0 * w[1].to_f64(), "{w:?}");
    }
}
