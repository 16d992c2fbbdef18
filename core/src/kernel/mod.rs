//! The per-node loop: the one place where speed is won or lost. One file per instruction set:
//! [`portable`] is the reference every other kernel is held equal to (the tests below), `avx2`
//! the vector kernel chosen at run time, and `x86_64` the branch-free selects of the baseline
//! instruction set, chosen at compile time.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use portable::{keep_max, max_into, select};
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_64::{keep_max, max_into, select};

/// Which implementation of the per-node loop a placement uses, chosen once when it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    pub(crate) fn detect() -> Kernel {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "std"), target_feature = "avx2"))]
        return Kernel::Avx2;
        #[allow(unreachable_code)]
        Kernel::Scalar
    }

    /// The highest score over `digests` (non-empty) and the first position that has it.
    #[inline]
    pub(crate) fn argmax(self, key: u64, digests: &[u64]) -> (u64, usize) {
        // Inlined here, so that small groups cost no call.
        if digests.len() < 8 {
            return portable::argmax(key, digests);
        }
        match self {
            Kernel::Scalar => portable::argmax(key, digests),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::argmax(key, digests) },
        }
    }

    /// Calls `visit(score, position)`, in increasing position order, for every position whose score
    /// is at least the threshold; `visit` returns the threshold for the positions after it.
    #[inline]
    pub(crate) fn scan<F: FnMut(u64, usize) -> u64>(
        self,
        key: u64,
        digests: &[u64],
        threshold: u64,
        visit: &mut F,
    ) {
        match self {
            Kernel::Scalar => portable::scan(key, digests, threshold, visit),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::scan(key, digests, threshold, visit) },
        }
    }
}

/// The digests of a placement with a few weight groups, laid out so that one pass finds every
/// group's best node: each block of eight digests gives `8 / G` of its lanes to each of the `G`
/// groups (G rounded up to 2, 4 or 8), so lane `j` of every block belongs to group `j / (8 / G)`
/// and the accumulator of that lane ends with its group's best. Node `i` of group `g` (in the
/// group's own order) is in block `i / L`, lane `g * L + i % L`, with `L = 8 / G`. Slots past a
/// group's end are padding, masked to score zero; they come after every node of their lane and
/// their positions are past the group's end, so on a tie at zero a real node still wins.
pub(crate) struct Interleaved {
    /// `8 * blocks` digests.
    digests: alloc::vec::Vec<u64>,
    /// One mask per slot of the blocks from `full` on: all ones for a node, zero for padding.
    masks: alloc::vec::Vec<u64>,
    /// Blocks before this one hold no padding.
    full: usize,
    /// Lanes per group, `L`: 1, 2 or 4.
    lanes_per_group: usize,
}

impl Interleaved {
    /// The layout of `groups` (each a group's digests in its order), or `None` when padding
    /// would cost more than a quarter of the work or there are more than eight groups.
    pub(crate) fn new<'a>(
        groups: impl ExactSizeIterator<Item = &'a [u64]> + Clone,
    ) -> Option<Self> {
        let count = groups.len();
        if !(2..=8).contains(&count) {
            return None;
        }
        let lanes_per_group = 8 / count.next_power_of_two();
        let blocks_of = |len: usize| len.div_ceil(lanes_per_group);
        let blocks = groups.clone().map(|g| blocks_of(g.len())).max()?;
        let nodes: usize = groups.clone().map(|g| g.len()).sum();
        if 8 * blocks > nodes + nodes / 4 + 8 {
            return None;
        }
        let full = groups.clone().map(|g| g.len() / lanes_per_group).min()?;
        let mut digests = alloc::vec![0u64; 8 * blocks];
        let mut masks = alloc::vec![0u64; 8 * (blocks - full)];
        for (g, lanes) in groups.enumerate() {
            for (i, &d) in lanes.iter().enumerate() {
                let slot = i / lanes_per_group * 8 + g * lanes_per_group + i % lanes_per_group;
                digests[slot] = d;
                if let Some(mask) = slot.checked_sub(8 * full) {
                    masks[mask] = u64::MAX;
                }
            }
        }
        Some(Interleaved {
            digests,
            masks,
            full,
            lanes_per_group,
        })
    }
}

impl Kernel {
    /// Every group's best (score, position in the group) of an [`Interleaved`] layout, in
    /// group order; `None` where this kernel has no such pass (then the caller takes each
    /// group's [`Kernel::argmax`]).
    #[inline]
    pub(crate) fn group_argmax(self, key: u64, layout: &Interleaved) -> Option<[(u64, u64); 8]> {
        match self {
            Kernel::Scalar => None,
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => Some(unsafe { avx2::group_argmax(key, layout) }),
        }
    }
}

impl Kernel {
    /// Calls `visit` with the positions, in increasing order, whose score is at least
    /// `threshold`, in one or more batches (more only when there are many). Unlike
    /// [`Kernel::scan`], nothing here branches on a score: the positions are written out with a
    /// table, so a caller that expects a handful of them pays no mispredicted branch per one.
    #[inline]
    pub(crate) fn hits<F: FnMut(&[u32])>(
        self,
        key: u64,
        digests: &[u64],
        threshold: u64,
        visit: &mut F,
    ) {
        match self {
            Kernel::Scalar => portable::hits(key, digests, threshold, visit),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::hits(key, digests, threshold, visit) },
        }
    }

    /// Writes the score of every digest into `out` (as long as `digests`) and returns, for each
    /// position class `i mod 8` of the first `8 * (len / 8)` positions, the highest score (0 where
    /// there is none). The `k`-th largest of these is a lower bound of the `k`-th best score.
    #[inline]
    pub(crate) fn scores_and_lane_max(
        self,
        key: u64,
        digests: &[u64],
        out: &mut [u64],
    ) -> [u64; 8] {
        match self {
            Kernel::Scalar => portable::scores_and_lane_max(key, digests, out),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::scores_and_lane_max(key, digests, out) },
        }
    }
}

/// Positions gathered by [`Kernel::hits`] before a batch is handed over; a multiple of eight
/// plus room for one more block.
const HIT_BATCH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::score;
    extern crate alloc;
    use alloc::vec::Vec;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state ^ (*state >> 29)
    }

    #[test]
    fn simd_matches_scalar() {
        let simd = Kernel::detect();
        let mut st = 7u64;
        for n in (1..70).chain([100, 1000, 1001, 1003]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..50 {
                let key = lcg(&mut st);
                assert_eq!(
                    simd.argmax(key, &digests),
                    portable::argmax(key, &digests),
                    "n={n}"
                );
                for thr in [0u64, 1 << 63, u64::MAX - (1 << 60)] {
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    simd.scan(key, &digests, thr, &mut |s, i| {
                        a.push((s, i));
                        s.saturating_add(1).max(thr)
                    });
                    portable::scan(key, &digests, thr, &mut |s, i| {
                        b.push((s, i));
                        s.saturating_add(1).max(thr)
                    });
                    assert_eq!(a, b);
                }
            }
        }
    }

    #[test]
    fn hits_match_scalar_and_the_scores() {
        let simd = Kernel::detect();
        let mut st = 13u64;
        for n in (1..80).chain([100, 127, 128, 129, 1000, 1003]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..20 {
                let key = lcg(&mut st);
                // A threshold equal to one of the scores checks that equality is a hit; zero
                // makes every position one, in several batches.
                let exact = score(key, digests[n / 2]);
                let few = u64::MAX - (u64::MAX / n as u64).saturating_mul(3);
                for thr in [0u64, 1 << 63, few, exact] {
                    let expected: Vec<u32> = (0..n as u32)
                        .filter(|&i| score(key, digests[i as usize]) >= thr)
                        .collect();
                    for kernel in [simd, Kernel::Scalar] {
                        let mut got = Vec::new();
                        kernel.hits(key, &digests, thr, &mut |batch| {
                            assert!(!batch.is_empty());
                            got.extend_from_slice(batch)
                        });
                        assert_eq!(got, expected, "{kernel:?} n={n} thr={thr}");
                    }
                }
            }
        }
    }

    #[test]
    fn scores_and_lane_max_match_scalar() {
        let simd = Kernel::detect();
        let mut st = 11u64;
        for n in (1..40).chain([64, 100, 256]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..20 {
                let key = lcg(&mut st);
                let mut a = alloc::vec![0u64; n];
                let mut b = alloc::vec![0u64; n];
                let ma = simd.scores_and_lane_max(key, &digests, &mut a);
                let mb = portable::scores_and_lane_max(key, &digests, &mut b);
                assert_eq!((ma, &a), (mb, &b));
                let expected: Vec<u64> = digests.iter().map(|&d| score(key, d)).collect();
                assert_eq!(a, expected);
            }
        }
    }

    #[test]
    fn group_argmax_gives_each_groups_argmax() {
        let simd = Kernel::detect();
        let mut st = 23u64;
        let (mut laid_out, mut declined) = (0, 0);
        for round in 0..3000 {
            let count = 2 + round % 7;
            let key = lcg(&mut st);
            // Sizes from one node up, equal or not, so that some groups are all padding in
            // some lanes and some layouts are declined.
            let spread = [1u64, 3, 40][round % 3];
            let groups: Vec<Vec<u64>> = (0..count)
                .map(|_| {
                    let len = 1 + (lcg(&mut st) % spread) as usize;
                    let mut g: Vec<u64> = (0..len).map(|_| lcg(&mut st)).collect();
                    match lcg(&mut st) % 4 {
                        // Equal digests: the first position of the best score must win.
                        0 if len > 2 => g[len - 1] = g[1],
                        // Every node of the group scores zero, as padding does.
                        1 => g.iter_mut().for_each(|d| *d = key),
                        _ => {}
                    }
                    g
                })
                .collect();
            let Some(layout) = Interleaved::new(groups.iter().map(|g| g.as_slice())) else {
                declined += 1;
                continue;
            };
            laid_out += 1;
            let Some(best) = simd.group_argmax(key, &layout) else {
                return; // no vector kernel on this machine
            };
            for (g, lanes) in groups.iter().enumerate() {
                let (s, pos) = portable::argmax(key, lanes);
                assert_eq!(best[g], (s, pos as u64), "round {round} group {g}");
            }
        }
        assert!(
            laid_out > 1000 && declined > 100,
            "{laid_out} laid out, {declined} declined"
        );
    }

    #[test]
    fn ties_resolve_to_the_first_position() {
        // Equal digests give equal scores in every lane and block.
        let simd = Kernel::detect();
        for n in [1usize, 3, 8, 9, 12, 15, 17, 23, 64] {
            let digests = alloc::vec![42u64; n];
            assert_eq!(simd.argmax(7, &digests).1, 0);
            let mut digests = alloc::vec![1u64; n];
            digests[n - 1] = 42;
            if n > 1 {
                digests[n / 2] = 42;
            }
            let expected = portable::argmax(9, &digests);
            assert_eq!(simd.argmax(9, &digests), expected);
        }
        // A score of exactly zero must still be found: digest == key gives x = 0, score 0.
        assert_eq!(simd.argmax(5, &[5u64; 16]), (0, 0));
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn selects_match_portable() {
        // Few distinct halves, so that equal high words (decided by the low words) and equal
        // keys are common.
        let mut st = 31u64;
        for _ in 0..20000 {
            let v: [u64; 4] = core::array::from_fn(|_| lcg(&mut st) % 3);
            let c = v[0] == 0;
            assert_eq!(
                x86_64::select(c, v[1], v[2]),
                portable::select(c, v[1], v[2])
            );
            let [(mut ah, mut al), (mut bh, mut bl)] = [(v[0], v[1]); 2];
            x86_64::keep_max(&mut ah, &mut al, v[2], v[3]);
            portable::keep_max(&mut bh, &mut bl, v[2], v[3]);
            assert_eq!((ah, al), (bh, bl), "{v:?}");
            let [mut a, mut b] = [v; 2];
            let [ah, al, at_h, at_l] = &mut a;
            x86_64::max_into(ah, al, at_h, at_l);
            let [bh, bl, bt_h, bt_l] = &mut b;
            portable::max_into(bh, bl, bt_h, bt_l);
            assert_eq!(a, b, "{v:?}");
        }
    }
}
