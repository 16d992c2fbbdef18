//! replica-balance-v1 (conformance/POLICIES.md): weight-true replica sets.
//!
//! The top-k of a weighted hrw-v1 ranking is a sequence of weighted draws without replacement,
//! which gives small nodes more than their share of replicas (a node of weight 1 beside three of
//! weight 3 is among the top 3 for 42% of keys, not 30%). Here the first replica is the hrw-v1
//! owner under the real weights, and the others are the first nodes of the key's hrw-v1 ranking
//! under adjusted weights, skipping the owner; the adjusted weights are solved once, when the
//! policy is built, so that each node's share of replicas follows its weight.

use alloc::vec;
use alloc::vec::Vec;

use crate::{Error, Node, Placement, Weight};

/// The name and version of the policy, as written in conformance/POLICIES.md.
pub const REPLICA_BALANCE: &str = "replica-balance-v1";

/// log2 of the number of sample digests the solver measures inclusion on, unless told otherwise.
pub const DEFAULT_SAMPLES_LOG2: u32 = 18;
/// The range [`ReplicaBalance::with_samples`] accepts.
pub const SAMPLES_LOG2_RANGE: core::ops::RangeInclusive<u32> = 8..=22;
/// The solver stops after this many measurements.
pub const MAX_ITERATIONS: u32 = 24;
/// The solver stops when every node's measured count of positions 2..k is within this fraction
/// of its target.
pub const TOLERANCE: f64 = 0.001;
/// Start of the SplitMix64 stream of sample digests (ASCII "replicas").
pub const SAMPLE_STREAM_START: u64 = 0x7265_706c_6963_6173;

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
/// assert!(adjusted[0].to_f64() / adjusted[3].to_f64() > 4.0);
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
}

impl ReplicaBalance {
    /// Solves the adjusted weights for `k` replicas over `placement` with
    /// 2^[`DEFAULT_SAMPLES_LOG2`] samples.
    ///
    /// Fails with [`Error::InvalidCount`] when `k` is 0 and [`Error::InfeasibleReplicaWeights`]
    /// when a node has more than `1/k` of the total weight (which includes every `k` above the
    /// number of selectable nodes).
    pub fn new(placement: Placement, k: usize) -> Result<ReplicaBalance, Error> {
        ReplicaBalance::with_samples(placement, k, DEFAULT_SAMPLES_LOG2)
    }

    /// [`ReplicaBalance::new`] measuring inclusion on `2^samples_log2` sample digests
    /// (`samples_log2` in [`SAMPLES_LOG2_RANGE`], else [`Error::InvalidCount`]). The solve costs
    /// about `iterations * 2^samples_log2` top-k lookups.
    pub fn with_samples(
        placement: Placement,
        k: usize,
        samples_log2: u32,
    ) -> Result<ReplicaBalance, Error> {
        if k == 0 || !SAMPLES_LOG2_RANGE.contains(&samples_log2) {
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
            });
        }
        let (adjusted, iterations) = solve(&placement, &weights, total, k, samples_log2)?;
        let secondary = reweighted(&placement, &adjusted)?;
        Ok(ReplicaBalance {
            primary: placement,
            secondary,
            k,
            iterations,
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

    /// How many times the solver measured inclusion (0 when `k` is 1).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The weights that rank positions 2 to k, in build order (0 for draining nodes).
    pub fn adjusted_weights(&self) -> Vec<Weight> {
        self.secondary
            .node_specs()
            .iter()
            .map(|n| n.weight())
            .collect()
    }

    /// The replica set of `key` as build-order indices: the hrw-v1 owner first, then the first
    /// `k - 1` other nodes of the key's ranking under the adjusted weights.
    pub fn replicas(&self, key: impl AsRef<[u8]>) -> Vec<usize> {
        let mut out = vec![0usize; self.k];
        let n = self.replicas_into(key, &mut out);
        out.truncate(n);
        out
    }

    /// The first `min(out.len(), k)` nodes of the replica set of `key` into `out`; returns how
    /// many. Allocates nothing.
    pub fn replicas_into(&self, key: impl AsRef<[u8]>, out: &mut [usize]) -> usize {
        let key = key.as_ref();
        let m = out.len().min(self.k);
        if m == 0 {
            return 0;
        }
        let primary = self.primary.owner_index(key);
        let n = self.secondary.rank_into(key, &mut out[..m]);
        place_primary(primary, &mut out[..n]);
        n
    }
}

/// Puts `primary` first in `ranked` (the secondary ranking's first nodes), keeping the order of
/// the others and dropping the last one when `primary` was not among them.
pub(super) fn place_primary(primary: usize, ranked: &mut [usize]) {
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
pub(super) fn reweighted(placement: &Placement, weights: &[u64]) -> Result<Placement, Error> {
    let nodes: Vec<Node> = placement
        .node_specs()
        .iter()
        .zip(weights)
        .map(|(n, &w)| n.clone().with_weight(Weight::from_fixed(w)))
        .collect();
    Placement::from_nodes(placement.seed(), nodes)
}

/// SplitMix64 (Steele, Lea, Flood 2014): the sample digests.
fn sample_digests(count: usize) -> Vec<u64> {
    let mut state = SAMPLE_STREAM_START;
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// The fixed-point iteration of POLICIES.md, replica-balance-v1, "Solver": returns the adjusted
/// weights in build order and the number of measurements.
fn solve(
    placement: &Placement,
    weights: &[u64],
    total: u128,
    k: usize,
    samples_log2: u32,
) -> Result<(Vec<u64>, u32), Error> {
    let samples = 1usize << samples_log2;
    let digests = sample_digests(samples);
    let primaries: Vec<usize> = digests
        .iter()
        .map(|&d| placement.owner_index_of_digest(d))
        .collect();
    // Each node is the primary of a W/S share of keys whatever the adjusted weights are, so only
    // positions 2..k are measured, against their target of (k - 1) W / S of the samples: the
    // primaries' own sampling noise stays out of the solve.
    let targets: Vec<f64> = weights
        .iter()
        .map(|&w| (k - 1) as f64 * (w as f64 / total as f64) * samples as f64)
        .collect();
    let heaviest = weights.iter().copied().max().unwrap_or(0);
    let mut adjusted = weights.to_vec();
    let mut counts = vec![0u64; weights.len()];
    let mut ranked = vec![0usize; k];
    let mut iterations = 0;
    loop {
        let secondary = reweighted(placement, &adjusted)?;
        counts.iter_mut().for_each(|c| *c = 0);
        for (&d, &p) in digests.iter().zip(&primaries) {
            let n = secondary.rank_digest_into(d, &mut ranked);
            place_primary(p, &mut ranked[..n]);
            for &i in &ranked[1..n] {
                counts[i] += 1;
            }
        }
        iterations += 1;
        let converged = weights
            .iter()
            .zip(&counts)
            .zip(&targets)
            .all(|((&w, &c), &t)| w == 0 || (c as f64 - t).abs() <= t * TOLERANCE);
        if converged || iterations == MAX_ITERATIONS {
            return Ok((adjusted, iterations));
        }
        let stepped: Vec<f64> = adjusted
            .iter()
            .zip(&counts)
            .zip(&targets)
            .map(|((&v, &c), &t)| match (v, c) {
                (0, _) => 0.0,
                (_, 0) => v as f64 * 2.0,
                _ => v as f64 * (t / c as f64),
            })
            .collect();
        let top = stepped.iter().copied().fold(0.0f64, f64::max);
        let scale = heaviest as f64 / top;
        for (v, &x) in adjusted.iter_mut().zip(&stepped) {
            if *v != 0 {
                // Clamped to [1, heaviest]: y is finite and positive, and `as` saturates.
                *v = round_half_even(x * scale).clamp(1, heaviest);
            }
        }
    }
}

/// `round_half_even(x)` for a finite `x >= 0`, saturating at `u64::MAX` (`f64::round_ties_even`
/// needs std). Subtracting the truncation is exact below 2^53, and above it `x` is an integer.
pub(super) fn round_half_even(x: f64) -> u64 {
    let t = x as u64;
    let fraction = x - t as f64;
    if fraction > 0.5 || (fraction == 0.5 && t & 1 == 1) {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_sets_are_distinct_nodes_with_the_owner_first() {
        let p = Placement::weighted([("a", 3.0), ("b", 3.0), ("c", 3.0), ("d", 0.0), ("e", 4.0)])
            .unwrap();
        let b = ReplicaBalance::with_samples(p.clone(), 3, 10).unwrap();
        for i in 0..2000 {
            let key = alloc::format!("k{i}");
            let set = b.replicas(&key);
            assert_eq!(set.len(), 3);
            assert_eq!(set[0], p.owner_index(&key));
            assert!(!set.contains(&3));
            assert!(set[0] != set[1] && set[1] != set[2] && set[0] != set[2]);
            let mut two = [0usize; 2];
            assert_eq!(b.replicas_into(&key, &mut two), 2);
            assert_eq!(two, [set[0], set[1]]);
        }
        assert_eq!(b.adjusted_weights()[3], Weight::ZERO);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let p = Placement::weighted([("a", 5.0), ("b", 1.0), ("c", 1.0), ("d", 1.0)]).unwrap();
        assert_eq!(
            ReplicaBalance::new(p.clone(), 2).unwrap_err(),
            Error::InfeasibleReplicaWeights { index: 0, k: 2 }
        );
        assert!(ReplicaBalance::new(p.clone(), 1).is_ok());
        assert_eq!(
            ReplicaBalance::new(p.clone(), 0).unwrap_err(),
            Error::InvalidCount
        );
        let even = Placement::new(["a", "b", "c"]).unwrap();
        assert_eq!(
            ReplicaBalance::new(even.clone(), 4).unwrap_err(),
            Error::InfeasibleReplicaWeights { index: 0, k: 4 }
        );
        // k = N with equal weights is feasible: every node is in every set.
        let all = ReplicaBalance::with_samples(even.clone(), 3, 8).unwrap();
        let mut set = all.replicas("x");
        set.sort();
        assert_eq!(set, [0, 1, 2]);
        for bad in [0u32, 7, 23, 64] {
            assert_eq!(
                ReplicaBalance::with_samples(even.clone(), 2, bad).unwrap_err(),
                Error::InvalidCount
            );
        }
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
    fn equal_weights_need_no_adjustment() {
        let p = Placement::new((0..7).map(|i| alloc::format!("n{i}"))).unwrap();
        let b = ReplicaBalance::with_samples(p.clone(), 3, 12).unwrap();
        // Within sampling noise of 2^12 samples, the adjusted weights stay near 1.
        for w in b.adjusted_weights() {
            assert!((w.to_f64() - 1.0).abs() < 0.1, "{w:?}");
        }
    }
}
