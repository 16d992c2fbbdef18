//! bounded-load-v1 (conformance/POLICIES.md): key affinity with an overload guard. A key goes to
//! the first node of its hrw-v1 ranking whose load is below its cap, so a node never holds much
//! more than `c` times its share, and a key moves away from its owner only while the owner is
//! full. Because each key probes its own ranking, an overflowing node spreads its excess over all
//! the others instead of onto one neighbour (no cascading overflow).

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::{Error, Placement};

/// The name and version of the policy, as written in conformance/POLICIES.md.
pub const BOUNDED_LOAD_POLICY: &str = "bounded-load-v1";

/// The balance factor `c = num / den >= 1`: a node's cap is about `c` times its share of the
/// load. An exact ratio, so that caps are integer arithmetic and every language agrees.
#[derive(Clone, Copy)]
pub struct BalanceFactor {
    num: u32,
    den: u32,
}

impl BalanceFactor {
    /// The denominator [`BalanceFactor::from_f64`] rounds to.
    pub const FLOAT_DENOMINATOR: u32 = 1_000_000;

    /// `c = num / den`; fails with [`Error::InvalidBalanceFactor`] unless `den >= 1` and
    /// `num >= den`.
    ///
    /// ```
    /// use hrwhash::policy::BalanceFactor;
    /// assert!(BalanceFactor::new(125, 100).is_ok());
    /// assert!(BalanceFactor::new(99, 100).is_err());
    /// assert!(BalanceFactor::new(1, 0).is_err());
    /// ```
    pub fn new(num: u32, den: u32) -> Result<BalanceFactor, Error> {
        if den == 0 || num < den {
            return Err(Error::InvalidBalanceFactor {
                value: num as f64 / den as f64,
            });
        }
        Ok(BalanceFactor { num, den })
    }

    /// `c` rounded to millionths: `round_half_even(c * 10^6) / 10^6`, computed on the exact
    /// value of `c`. Fails for NaN, infinities, `c < 1` and `c * 10^6 >= 2^32` (after rounding).
    ///
    /// ```
    /// use hrwhash::policy::BalanceFactor;
    /// let c = BalanceFactor::from_f64(1.25)?;
    /// assert_eq!((c.num(), c.den()), (1_250_000, 1_000_000));
    /// assert!(BalanceFactor::from_f64(f64::NAN).is_err());
    /// assert!(BalanceFactor::from_f64(0.99).is_err());
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn from_f64(c: f64) -> Result<BalanceFactor, Error> {
        let invalid = Error::InvalidBalanceFactor { value: c };
        // NaN fails every comparison, so test for the valid range.
        if !(1.0..4_294.967_296).contains(&c) {
            return Err(invalid);
        }
        // c = mantissa * 2^exp exactly, with 2^52 <= mantissa < 2^53 (c >= 1 is normal).
        let bits = c.to_bits();
        let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        let exp = ((bits >> 52) & 0x7ff) as i32 - 1075;
        let scaled = mantissa as u128 * Self::FLOAT_DENOMINATOR as u128;
        let num = if exp >= 0 {
            scaled << exp
        } else {
            let shift = (-exp) as u32;
            let floor = scaled >> shift;
            let rest = scaled - (floor << shift);
            let half = 1u128 << (shift - 1);
            if rest > half || (rest == half && floor & 1 == 1) {
                floor + 1
            } else {
                floor
            }
        };
        let num = u32::try_from(num).map_err(|_| invalid.clone())?;
        BalanceFactor::new(num, Self::FLOAT_DENOMINATOR).map_err(|_| invalid)
    }

    /// The numerator.
    pub const fn num(self) -> u32 {
        self.num
    }

    /// The denominator.
    pub const fn den(self) -> u32 {
        self.den
    }

    /// `num / den` as a float (rounded).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl PartialEq for BalanceFactor {
    /// Equal values, whatever the representation (125/100 equals 5/4): caps depend on the value
    /// alone.
    fn eq(&self, other: &BalanceFactor) -> bool {
        self.num as u64 * other.den as u64 == other.num as u64 * self.den as u64
    }
}

impl Eq for BalanceFactor {}

impl fmt::Debug for BalanceFactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BalanceFactor({}/{})", self.num, self.den)
    }
}

/// A placement with bounded loads: see the module documentation and conformance/POLICIES.md.
///
/// ```
/// use hrwhash::policy::{BalanceFactor, BoundedLoad};
/// use hrwhash::Placement;
///
/// let fleet = Placement::new(["gpu-a", "gpu-b", "gpu-c"])?;
/// let router = BoundedLoad::new(fleet.clone(), BalanceFactor::new(125, 100)?);
/// // Nothing is loaded: every key goes to its hrw-v1 owner.
/// assert_eq!(router.owner_index("session:7", &[0, 0, 0])?, fleet.owner_index("session:7"));
/// // The owner is at its cap, ceil((10 + 1) * 1.25) / 3 = 14 / 3: the key goes elsewhere.
/// let mut loads = [0u64; 3];
/// loads[fleet.owner_index("session:7")] = 10;
/// assert_ne!(router.owner_index("session:7", &loads)?, fleet.owner_index("session:7"));
///
/// // Batch: 1000 keys, at most ceil(1.25 * 1000 / 3) = 417 per node.
/// let keys: Vec<String> = (0..1000).map(|i| format!("key-{i}")).collect();
/// let owners = router.assign(&keys)?;
/// assert!((0..3).all(|n| owners.iter().filter(|&&o| o == n).count() <= 417));
/// # Ok::<(), hrwhash::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BoundedLoad {
    placement: Placement,
    factor: BalanceFactor,
    /// Fixed-point weights in build order (0 for draining nodes).
    weights: Vec<u64>,
    /// Sum of `weights`: below 2^96, as there are fewer than 2^32 nodes.
    total_weight: u128,
}

/// How many ranking positions a lookup examines on the stack before it takes the whole ranking.
const PROBE_SHORT: usize = 8;
const PROBE_LONG: usize = 64;

impl BoundedLoad {
    /// The policy over `placement` with balance factor `factor`.
    pub fn new(placement: Placement, factor: BalanceFactor) -> BoundedLoad {
        let weights: Vec<u64> = placement
            .node_specs()
            .iter()
            .map(|n| n.weight().to_fixed())
            .collect();
        let total_weight = weights.iter().map(|&w| w as u128).sum();
        BoundedLoad {
            placement,
            factor,
            weights,
            total_weight,
        }
    }

    /// The placement whose rankings are probed.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The balance factor.
    pub fn factor(&self) -> BalanceFactor {
        self.factor
    }

    /// Online lookup: the build-order index of the first node of `key`'s ranking whose load is
    /// below its cap `ceil((total + 1) * c) * share`, where `loads[i]` is the current load of
    /// node `i` (build order, draining nodes included) and `total` their sum. A placement read
    /// from a view document has its nodes in id order, the canonical form's (VIEW.md section 2),
    /// not the order the placement that wrote it was built in: match loads to nodes by id after
    /// a load.
    ///
    /// Such a node always exists (conformance/POLICIES.md proves it). Fails with
    /// [`Error::LengthMismatch`] when `loads` does not have one entry per node and
    /// [`Error::LoadOverflow`] when the loads add up to more than 2^64 - 1. Allocates nothing
    /// unless the key's first 64 choices are all at their caps.
    pub fn owner_index(&self, key: impl AsRef<[u8]>, loads: &[u64]) -> Result<usize, Error> {
        if loads.len() != self.weights.len() {
            return Err(Error::LengthMismatch {
                expected: self.weights.len(),
                actual: loads.len(),
            });
        }
        let total = loads
            .iter()
            .try_fold(0u64, |sum, &l| sum.checked_add(l))
            .ok_or(Error::LoadOverflow)?;
        let (num, den) = (self.factor.num as u128, self.factor.den as u128);
        // Below 2^97: total + 1 <= 2^64 and num < 2^32.
        let slots = ((total as u128 + 1) * num).div_ceil(den);
        // load < ceil(slots * w / S)  <=>  load < slots * w / S  <=>  load * S < slots * w.
        let fits = |i: usize| {
            wide_lt(
                mul_wide(loads[i] as u128, self.total_weight),
                mul_wide(slots, self.weights[i] as u128),
            )
        };
        Ok(self.probe(key.as_ref(), fits))
    }

    /// Batch assignment: each key of `keys`, in order, takes the first node of its ranking that
    /// holds fewer than `ceil(c * keys.len() * share)` of the keys before it. The answer depends
    /// on the order of the keys and on nothing else.
    pub fn assign<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<Vec<usize>, Error> {
        let mut out = vec![0usize; keys.len()];
        self.assign_into(keys, &mut out)?;
        Ok(out)
    }

    /// [`BoundedLoad::assign`] into `out`, which must be as long as `keys`.
    pub fn assign_into<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [usize]) -> Result<(), Error> {
        if keys.len() != out.len() {
            return Err(Error::LengthMismatch {
                expected: keys.len(),
                actual: out.len(),
            });
        }
        let mut counts = vec![0u64; self.weights.len()];
        let (num, den) = (self.factor.num as u128, self.factor.den as u128);
        // count < ceil(c * K * w / S)  <=>  count * den * S < num * K * w.
        let demand = num * keys.len() as u128;
        for (key, slot) in keys.iter().zip(out.iter_mut()) {
            let fits = |i: usize| {
                wide_lt(
                    mul_wide(counts[i] as u128 * den, self.total_weight),
                    mul_wide(demand, self.weights[i] as u128),
                )
            };
            let chosen = self.probe(key.as_ref(), fits);
            counts[chosen] += 1;
            *slot = chosen;
        }
        Ok(())
    }

    /// The first node of the ranking of `key` for which `fits` holds. The ranking is produced
    /// lazily: the owner alone, then the first 8, then the first 64 positions on the stack, then
    /// the whole ranking.
    fn probe(&self, key: &[u8], fits: impl Fn(usize) -> bool) -> usize {
        let owner = self.placement.owner_index(key);
        if fits(owner) {
            return owner;
        }
        let mut short = [0usize; PROBE_SHORT];
        let n = self.placement.rank_into(key, &mut short);
        if let Some(&i) = short[1..n].iter().find(|&&i| fits(i)) {
            return i;
        }
        if n == PROBE_SHORT {
            let mut long = [0usize; PROBE_LONG];
            let n = self.placement.rank_into(key, &mut long);
            if let Some(&i) = long[PROBE_SHORT..n].iter().find(|&&i| fits(i)) {
                return i;
            }
            if n == PROBE_LONG {
                if let Some(node) = self
                    .placement
                    .ranking(key)
                    .skip(PROBE_LONG)
                    .find(|n| fits(n.index()))
                {
                    return node.index();
                }
            }
        }
        // Unreachable: the caps of the selectable nodes add up to more than the load they hold
        // (POLICIES.md, bounded-load-v1, "Existence"), so some node fits. The owner is the answer
        // that keeps affinity if that proof were ever wrong.
        debug_assert!(false, "bounded-load-v1: no node below its cap");
        owner
    }
}

/// The 256-bit product `a * b` as (high, low) halves.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const LO: u128 = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & LO);
    let (b1, b0) = (b >> 64, b & LO);
    let low = a0 * b0;
    let mid1 = a0 * b1;
    let mid2 = a1 * b0;
    let high = a1 * b1;
    let (lo, c1) = low.overflowing_add(mid1 << 64);
    let (lo, c2) = lo.overflowing_add(mid2 << 64);
    let hi = high + (mid1 >> 64) + (mid2 >> 64) + c1 as u128 + c2 as u128;
    (hi, lo)
}

fn wide_lt(a: (u128, u128), b: (u128, u128)) -> bool {
    a < b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Node, Weight};

    #[test]
    fn wide_products_are_exact() {
        assert_eq!(mul_wide(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
        assert_eq!(mul_wide(3, 5), (0, 15));
        let a = (1u128 << 96) - 1;
        let b = (1u128 << 64) - 1;
        // (2^96 - 1)(2^64 - 1) = 2^160 - 2^96 - 2^64 + 1
        let (hi, lo) = mul_wide(a, b);
        assert_eq!(hi, (1u128 << 32) - 1);
        assert_eq!(
            lo,
            0u128.wrapping_sub(1u128 << 96).wrapping_sub(1u128 << 64) + 1
        );
    }

    #[test]
    fn float_factors_round_half_even_to_millionths() {
        let c = |x: f64| BalanceFactor::from_f64(x).map(|c| c.num());
        assert_eq!(c(1.0), Ok(1_000_000));
        assert_eq!(c(1.05), Ok(1_050_000));
        assert_eq!(c(1.1), Ok(1_100_000));
        // 1 + 2^-21 = 1.000000476837158203125: rounds up to 1.000000.
        assert_eq!(c(1.0 + 1.0 / 2_097_152.0), Ok(1_000_000));
        // 1 + 2^-20 = 1.00000095367431640625: rounds to 1.000001.
        assert_eq!(c(1.0 + 1.0 / 1_048_576.0), Ok(1_000_001));
        for bad in [
            f64::NAN,
            f64::INFINITY,
            -1.0,
            0.0,
            0.999_999,
            4_294.967_296,
            1e300,
        ] {
            assert!(
                matches!(
                    BalanceFactor::from_f64(bad),
                    Err(Error::InvalidBalanceFactor { .. })
                ),
                "{bad}"
            );
        }
        assert_eq!(
            BalanceFactor::new(5, 4).unwrap(),
            BalanceFactor::new(125, 100).unwrap()
        );
    }

    fn fleet(n: usize) -> Placement {
        Placement::new((0..n).map(|i| alloc::format!("node-{i}"))).unwrap()
    }

    #[test]
    fn bad_loads_are_typed_errors() {
        let b = BoundedLoad::new(fleet(3), BalanceFactor::new(5, 4).unwrap());
        assert_eq!(
            b.owner_index("k", &[0, 0]),
            Err(Error::LengthMismatch {
                expected: 3,
                actual: 2
            })
        );
        assert_eq!(
            b.owner_index("k", &[u64::MAX, 1, 0]),
            Err(Error::LoadOverflow)
        );
        // The largest total that fits is fine.
        assert!(b.owner_index("k", &[u64::MAX - 1, 1, 0]).is_ok());
        assert!(b.owner_index("k", &[u64::MAX, 0, 0]).is_ok());
        let mut out = [0usize; 1];
        assert!(matches!(
            b.assign_into(&["a", "b"], &mut out),
            Err(Error::LengthMismatch { .. })
        ));
    }

    #[test]
    fn online_lookups_respect_caps_and_affinity() {
        let p = fleet(10);
        for (num, den) in [(1, 1), (105, 100), (5, 4), (2, 1)] {
            let b = BoundedLoad::new(p.clone(), BalanceFactor::new(num, den).unwrap());
            let mut loads = [0u64; 10];
            for i in 0..5000u32 {
                let key = alloc::format!("k{i}");
                let total: u64 = loads.iter().sum();
                let chosen = b.owner_index(&key, &loads).unwrap();
                // Independently: cap = ceil(ceil((total + 1) c) / 10).
                let slots = ((total + 1) * num as u64).div_ceil(den as u64);
                let cap = slots.div_ceil(10);
                assert!(loads[chosen] < cap, "{num}/{den} key {i}");
                // Every node ranked before the chosen one is at its cap.
                for n in p.ranking(&key) {
                    if n.index() == chosen {
                        break;
                    }
                    assert!(loads[n.index()] >= cap);
                }
                loads[chosen] += 1;
            }
            let max = *loads.iter().max().unwrap();
            assert!(max as f64 <= (5001.0 * num as f64 / den as f64 / 10.0).ceil());
        }
    }

    #[test]
    fn probing_reaches_deep_into_the_ranking() {
        // 200 nodes, all but one far above any cap: the key must walk past 64 positions for some
        // keys, and every answer is the one free node.
        let p = fleet(200);
        let b = BoundedLoad::new(p.clone(), BalanceFactor::new(1, 1).unwrap());
        let mut loads = vec![1000u64; 200];
        loads[123] = 0;
        for i in 0..50 {
            assert_eq!(b.owner_index(alloc::format!("x{i}"), &loads), Ok(123));
        }
    }

    #[test]
    fn draining_nodes_are_never_chosen_but_their_load_counts() {
        let p = Placement::from_nodes(
            crate::Seed::DEFAULT,
            alloc::vec![
                Node::new("a"),
                Node::new("b").with_weight(Weight::ZERO),
                Node::new("c").with_weight(Weight::new(3.0).unwrap()),
            ],
        )
        .unwrap();
        let b = BoundedLoad::new(p, BalanceFactor::new(1, 1).unwrap());
        for i in 0..200 {
            let key = alloc::format!("k{i}");
            assert_ne!(b.owner_index(&key, &[0, 1000, 0]).unwrap(), 1);
            // a's cap with total 1003: ceil(1004 * 1 / 4) = 251 > 250, c's: 753 > 750.
            let got = b.owner_index(&key, &[250, 1000, 750]).unwrap();
            assert!(got == 0 || got == 2);
            // a's cap with total 1400: ceil(1401 / 4) = 351 <= 400.
            assert_eq!(b.owner_index(&key, &[400, 1000, 0]).unwrap(), 2);
        }
        let keys: Vec<_> = (0..400).map(|i| alloc::format!("k{i}")).collect();
        let owners = b.assign(&keys).unwrap();
        assert!(owners.iter().all(|&o| o != 1));
        assert!(owners.iter().filter(|&&o| o == 0).count() <= 100);
        assert!(owners.iter().filter(|&&o| o == 2).count() <= 300);
    }

    #[test]
    fn batch_caps_hold_and_the_answer_is_deterministic() {
        let p = Placement::weighted([("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0)]).unwrap();
        let keys: Vec<_> = (0..10_000).map(|i| alloc::format!("key-{i}")).collect();
        for (num, den) in [(1, 1), (11, 10), (3, 2)] {
            let b = BoundedLoad::new(p.clone(), BalanceFactor::new(num, den).unwrap());
            let owners = b.assign(&keys).unwrap();
            assert_eq!(owners, b.assign(&keys).unwrap());
            for (node, w) in [1u64, 2, 3, 4].iter().enumerate() {
                let cap = (num as u64 * 10_000 * w).div_ceil(den as u64 * 10);
                let held = owners.iter().filter(|&&o| o == node).count() as u64;
                assert!(held <= cap, "{num}/{den} node {node}: {held} > {cap}");
            }
        }
    }
}
