//! The kernels in plain Rust: the reference the others are held equal to, and the kernel of
//! every target without a faster one.

use super::HIT_BATCH;
use crate::v1::score;

#[inline]
pub(super) fn argmax(key: u64, digests: &[u64]) -> (u64, usize) {
    let Some((&first, rest)) = digests.split_first() else {
        return (0, 0);
    };
    let (mut best, mut pos) = (score(key, first), 0u64);
    for (i, &d) in rest.iter().enumerate() {
        let s = score(key, d);
        // Which node leads is random: a branch here is mispredicted about once per lookup.
        let wins = s > best;
        best = super::select(wins, s, best);
        pos = super::select(wins, i as u64 + 1, pos);
    }
    (best, pos as usize)
}

pub(super) fn scan<F: FnMut(u64, usize) -> u64>(
    key: u64,
    digests: &[u64],
    mut threshold: u64,
    visit: &mut F,
) {
    for (i, &d) in digests.iter().enumerate() {
        let s = score(key, d);
        if s >= threshold {
            threshold = visit(s, i);
        }
    }
}

pub(super) fn hits<F: FnMut(&[u32])>(key: u64, digests: &[u64], threshold: u64, visit: &mut F) {
    let mut buf = [0u32; HIT_BATCH + 8];
    let mut len = 0;
    for (i, &d) in digests.iter().enumerate() {
        // Written always, kept only when it is a hit: no branch on the score.
        buf[len] = i as u32;
        len += (score(key, d) >= threshold) as usize;
        if len == HIT_BATCH {
            visit(&buf[..len]);
            len = 0;
        }
    }
    if len != 0 {
        visit(&buf[..len]);
    }
}

pub(super) fn scores_and_lane_max(key: u64, digests: &[u64], out: &mut [u64]) -> [u64; 8] {
    let mut lane_max = [0u64; 8];
    let full = digests.len() / 8 * 8;
    for (i, (&d, slot)) in digests.iter().zip(out.iter_mut()).enumerate() {
        *slot = score(key, d);
        if i < full {
            lane_max[i % 8] = lane_max[i % 8].max(*slot);
        }
    }
    lane_max
}

// The selects below serve where `x86_64.rs` does not; on x86-64 they are only its tests' reference,
// and the kernels here call the target's own through `super::select`.

/// `if c { a } else { b }` without a branch, for conditions that are random.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(crate) fn select(c: bool, a: u64, b: u64) -> u64 {
    let mask = (c as u64).wrapping_neg();
    (a & mask) | (b & !mask)
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(crate) fn keep_max(hi: &mut u64, lo: &mut u64, t_hi: u64, t_lo: u64) {
    if (t_hi, t_lo) > (*hi, *lo) {
        *hi = t_hi;
        *lo = t_lo;
    }
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first and the
/// smaller in the second.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(crate) fn max_into(hi: &mut u64, lo: &mut u64, t_hi: &mut u64, t_lo: &mut u64) {
    if (*t_hi, *t_lo) > (*hi, *lo) {
        core::mem::swap(hi, t_hi);
        core::mem::swap(lo, t_lo);
    }
}
