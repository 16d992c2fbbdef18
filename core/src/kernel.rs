//! The per-node loop: the one place where speed is won or lost. Every kernel returns exactly
//! what the scalar kernel returns; `tests::simd_matches_scalar` holds them to it.

use crate::v1::score;

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
            return argmax_scalar(key, digests);
        }
        match self {
            Kernel::Scalar => argmax_scalar(key, digests),
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
            Kernel::Scalar => scan_scalar(key, digests, threshold, visit),
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
            Kernel::Scalar => hits_scalar(key, digests, threshold, visit),
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
            Kernel::Scalar => scores_and_lane_max_scalar(key, digests, out),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::scores_and_lane_max(key, digests, out) },
        }
    }
}

fn scores_and_lane_max_scalar(key: u64, digests: &[u64], out: &mut [u64]) -> [u64; 8] {
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

/// Positions gathered by [`Kernel::hits`] before a batch is handed over; a multiple of eight
/// plus room for one more block.
const HIT_BATCH: usize = 64;

fn hits_scalar<F: FnMut(&[u32])>(key: u64, digests: &[u64], threshold: u64, visit: &mut F) {
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

/// For each 8-bit hit mask, the positions of its set bits in increasing order (then zeros).
#[cfg(target_arch = "x86_64")]
static HIT_OFFSETS: [[u32; 8]; 256] = {
    let mut table = [[0u32; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut n) = (0, 0);
        while bit < 8 {
            if mask >> bit & 1 == 1 {
                table[mask][n] = bit as u32;
                n += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// Set bits of each 8-bit mask (`count_ones` is a long sequence without the POPCNT feature).
#[cfg(target_arch = "x86_64")]
static HIT_COUNTS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut mask = 0;
    while mask < 256 {
        table[mask] = (mask as u32).count_ones() as u8;
        mask += 1;
    }
    table
};

fn argmax_scalar(key: u64, digests: &[u64]) -> (u64, usize) {
    let Some((&first, rest)) = digests.split_first() else {
        return (0, 0);
    };
    let (mut best, mut pos) = (score(key, first), 0u64);
    for (i, &d) in rest.iter().enumerate() {
        let s = score(key, d);
        // Which node leads is random: a branch here is mispredicted about once per lookup.
        let wins = s > best;
        best = select(wins, s, best);
        pos = select(wins, i as u64 + 1, pos);
    }
    (best, pos as usize)
}

/// `if c { a } else { b }` without a branch, for conditions that are random. LLVM's x86 backend
/// turns conditional moves in loops back into branches (even when written as bit operations), so
/// on x86-64 the conditional move is written out.
#[inline(always)]
pub(crate) fn select(c: bool, a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut r = b;
        // SAFETY: register operands and the flags only; no memory is touched.
        unsafe {
            core::arch::asm!(
                "test {c}, {c}",
                "cmovnz {r}, {a}",
                c = in(reg_byte) c as u8,
                a = in(reg) a,
                r = inout(reg) r,
                options(pure, nomem, nostack),
            );
        }
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mask = (c as u64).wrapping_neg();
        (a & mask) | (b & !mask)
    }
}

fn scan_scalar<F: FnMut(u64, usize) -> u64>(
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

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::score;
    use crate::v1::MIX_MULTIPLIER;
    use core::arch::x86_64::*;

    // AVX2 compares 64-bit lanes as signed; flipping the top bit makes that the unsigned order.
    const FLIP: i64 = i64::MIN;

    /// Scores of four nodes, with the top bit flipped. The 64-bit multiply is built from three
    /// 32x32->64 multiplies, because AVX2 has no 64-bit lane multiply.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn scores4(key: __m256i, ptr: *const u64) -> __m256i {
        let m_lo = _mm256_set1_epi64x((MIX_MULTIPLIER & 0xFFFF_FFFF) as i64);
        let m_hi = _mm256_set1_epi64x((MIX_MULTIPLIER >> 32) as i64);
        let x = _mm256_xor_si256(key, _mm256_loadu_si256(ptr as *const __m256i));
        let high = _mm256_srli_epi64(x, 32);
        let folded = _mm256_xor_si256(x, high);
        // folded * M = lo*M_lo + ((hi*M_lo + lo*M_hi) << 32), where hi(folded) == high.
        let low_product = _mm256_mul_epu32(folded, m_lo);
        let cross = _mm256_add_epi64(_mm256_mul_epu32(high, m_lo), _mm256_mul_epu32(folded, m_hi));
        let product = _mm256_add_epi64(low_product, _mm256_slli_epi64(cross, 32));
        _mm256_xor_si256(product, _mm256_set1_epi64x(FLIP))
    }

    /// Per lane, keeps the flipped score `s` and its position `idx` where `s` beats `best`.
    /// Strictly greater keeps the first position of a lane on ties.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn keep_better(best: &mut __m256i, pos: &mut __m256i, s: __m256i, idx: __m256i) {
        let greater = _mm256_cmpgt_epi64(s, *best);
        *best = _mm256_blendv_epi8(*best, s, greater);
        *pos = _mm256_blendv_epi8(*pos, idx, greater);
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn argmax(key: u64, digests: &[u64]) -> (u64, usize) {
        let n = digests.len();
        if n < 8 {
            return super::argmax_scalar(key, digests);
        }
        let k = _mm256_set1_epi64x(key as i64);
        let p = digests.as_ptr();
        // Two independent accumulators hide the multiply latency. Each lane starts at score 0
        // and its own first position, which is what that position holds if nothing beats 0.
        let mut best0 = _mm256_set1_epi64x(FLIP);
        let mut best1 = best0;
        let mut idx0 = _mm256_set_epi64x(3, 2, 1, 0);
        let mut idx1 = _mm256_set_epi64x(7, 6, 5, 4);
        let mut pos0 = idx0;
        let mut pos1 = idx1;
        let step = _mm256_set1_epi64x(8);
        macro_rules! block {
            ($at:expr, $idx0:expr, $idx1:expr) => {{
                keep_better(&mut best0, &mut pos0, scores4(k, p.add($at)), $idx0);
                keep_better(&mut best1, &mut pos1, scores4(k, p.add($at + 4)), $idx1);
            }};
        }
        for b in 0..n / 8 {
            block!(b * 8, idx0, idx1);
            idx0 = _mm256_add_epi64(idx0, step);
            idx1 = _mm256_add_epi64(idx1, step);
        }
        let rest = n % 8;
        if rest >= 4 {
            // The last eight nodes, overlapping a block already seen: a node seen twice brings
            // the same (score, position) pair, which the reduction below resolves to one.
            let last = _mm256_set1_epi64x((n - 8) as i64);
            let tail0 = _mm256_add_epi64(last, _mm256_set_epi64x(3, 2, 1, 0));
            let tail1 = _mm256_add_epi64(last, _mm256_set_epi64x(7, 6, 5, 4));
            block!(n - 8, tail0, tail1);
        }
        // Branch-free reduction of the eight lanes: higher score, then lower position.
        let (b, q) = pick(best0, pos0, best1, pos1);
        let (b, q) = pick(
            b,
            q,
            _mm256_permute2x128_si256(b, b, 1),
            _mm256_permute2x128_si256(q, q, 1),
        );
        let (b, q) = pick(
            b,
            q,
            _mm256_shuffle_epi32(b, 0x4E),
            _mm256_shuffle_epi32(q, 0x4E),
        );
        let mut best = (
            _mm_cvtsi128_si64(_mm256_castsi256_si128(b)) as u64 ^ FLIP as u64,
            _mm_cvtsi128_si64(_mm256_castsi256_si128(q)) as usize,
        );
        // A short rest is cheaper one by one; its positions come last, so only a higher score wins.
        if rest < 4 {
            for i in n - rest..n {
                let s = score(key, *digests.get_unchecked(i));
                if s > best.0 {
                    best = (s, i);
                }
            }
        }
        best
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn group_argmax(key: u64, layout: &super::Interleaved) -> [(u64, u64); 8] {
        let k = _mm256_set1_epi64x(key as i64);
        let p = layout.digests.as_ptr();
        let blocks = layout.digests.len() / 8;
        let l = layout.lanes_per_group as i64;
        // Lane j's position in its group: block * L + j % L.
        let mut idx0 = _mm256_set_epi64x(3 % l, 2 % l, 1 % l, 0);
        let mut idx1 = _mm256_set_epi64x(7 % l, 6 % l, 5 % l, 4 % l);
        let step = _mm256_set1_epi64x(l);
        let mut best0 = _mm256_set1_epi64x(FLIP);
        let mut best1 = best0;
        let mut pos0 = idx0;
        let mut pos1 = idx1;
        macro_rules! block {
            ($s0:expr, $s1:expr) => {{
                keep_better(&mut best0, &mut pos0, $s0, idx0);
                keep_better(&mut best1, &mut pos1, $s1, idx1);
                idx0 = _mm256_add_epi64(idx0, step);
                idx1 = _mm256_add_epi64(idx1, step);
            }};
        }
        for b in 0..layout.full {
            block!(scores4(k, p.add(b * 8)), scores4(k, p.add(b * 8 + 4)));
        }
        let flip = _mm256_set1_epi64x(FLIP);
        let m = layout.masks.as_ptr();
        for b in layout.full..blocks {
            // Padding scores zero: flipped back, masked, flipped again. (Macros, not closures,
            // so that the code is compiled with AVX2 enabled.)
            macro_rules! masked {
                ($at:expr) => {{
                    let mask = _mm256_loadu_si256(m.add($at - 8 * layout.full) as *const __m256i);
                    let s = _mm256_xor_si256(scores4(k, p.add($at)), flip);
                    _mm256_xor_si256(_mm256_and_si256(s, mask), flip)
                }};
            }
            block!(masked!(b * 8), masked!(b * 8 + 4));
        }
        // Within each group's L lanes: neighbours, then the other half of each 128-bit lane.
        let (mut b0, mut q0, mut b1, mut q1) = (best0, pos0, best1, pos1);
        if layout.lanes_per_group >= 2 {
            (b0, q0) = pick(
                b0,
                q0,
                _mm256_shuffle_epi32(b0, 0x4E),
                _mm256_shuffle_epi32(q0, 0x4E),
            );
            (b1, q1) = pick(
                b1,
                q1,
                _mm256_shuffle_epi32(b1, 0x4E),
                _mm256_shuffle_epi32(q1, 0x4E),
            );
        }
        if layout.lanes_per_group == 4 {
            let (c0, r0) = (
                _mm256_permute2x128_si256(b0, b0, 1),
                _mm256_permute2x128_si256(q0, q0, 1),
            );
            let (c1, r1) = (
                _mm256_permute2x128_si256(b1, b1, 1),
                _mm256_permute2x128_si256(q1, q1, 1),
            );
            (b0, q0) = pick(b0, q0, c0, r0);
            (b1, q1) = pick(b1, q1, c1, r1);
        }
        let scores = lanes8(_mm256_xor_si256(b0, flip), _mm256_xor_si256(b1, flip));
        let positions = lanes8(q0, q1);
        let mut out = [(0u64, 0u64); 8];
        for (g, slot) in out.iter_mut().enumerate().take(8 / layout.lanes_per_group) {
            let lane = g * layout.lanes_per_group;
            *slot = (scores[lane], positions[lane]);
        }
        out
    }

    /// The eight 64-bit lanes of two vectors, in order.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn lanes8(lo: __m256i, hi: __m256i) -> [u64; 8] {
        let mut out = [0u64; 8];
        _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, lo);
        _mm256_storeu_si256(out.as_mut_ptr().add(4) as *mut __m256i, hi);
        out
    }

    /// Per lane, the better of (score, position) pairs `(b, q)` and `(b2, q2)`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn pick(b: __m256i, q: __m256i, b2: __m256i, q2: __m256i) -> (__m256i, __m256i) {
        let take = _mm256_or_si256(
            _mm256_cmpgt_epi64(b2, b),
            _mm256_and_si256(_mm256_cmpeq_epi64(b2, b), _mm256_cmpgt_epi64(q, q2)),
        );
        (
            _mm256_blendv_epi8(b, b2, take),
            _mm256_blendv_epi8(q, q2, take),
        )
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scan<F: FnMut(u64, usize) -> u64>(
        key: u64,
        digests: &[u64],
        mut threshold: u64,
        visit: &mut F,
    ) {
        let blocks = digests.len() / 8;
        let k = _mm256_set1_epi64x(key as i64);
        let p = digests.as_ptr();
        let mut limit = _mm256_set1_epi64x((threshold ^ FLIP as u64) as i64);
        for b in 0..blocks {
            let s0 = scores4(k, p.add(b * 8));
            let s1 = scores4(k, p.add(b * 8 + 4));
            // score >= threshold  <=>  !(threshold > score); one branch per eight nodes.
            let below0 = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(limit, s0)));
            let below1 = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(limit, s1)));
            let mut hits = !(below0 | (below1 << 4)) & 0xFF;
            if hits != 0 {
                while hits != 0 {
                    let i = b * 8 + hits.trailing_zeros() as usize;
                    hits &= hits - 1;
                    // Recomputing one score is cheaper than a vector store and reload.
                    let sc = score(key, *digests.get_unchecked(i));
                    if sc >= threshold {
                        threshold = visit(sc, i);
                    }
                }
                limit = _mm256_set1_epi64x((threshold ^ FLIP as u64) as i64);
            }
        }
        for (i, &d) in digests.iter().enumerate().skip(blocks * 8) {
            let s = score(key, d);
            if s >= threshold {
                threshold = visit(s, i);
            }
        }
    }
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn hits<F: FnMut(&[u32])>(
        key: u64,
        digests: &[u64],
        threshold: u64,
        visit: &mut F,
    ) {
        let n = digests.len();
        if n < 8 {
            return super::hits_scalar(key, digests, threshold, visit);
        }
        let k = _mm256_set1_epi64x(key as i64);
        let p = digests.as_ptr();
        let limit = _mm256_set1_epi64x((threshold ^ FLIP as u64) as i64);
        let mut buf = [0u32; super::HIT_BATCH + 8];
        let mut len = 0usize;
        // Appends the positions at + j of block `at` whose bit j is set in `$mask`. (Macros, not
        // closures, so that the code is compiled with AVX2 enabled.)
        macro_rules! append {
            ($base:expr, $mask:expr) => {{
                let mask = $mask as usize;
                let offsets =
                    _mm256_loadu_si256(super::HIT_OFFSETS.as_ptr().add(mask) as *const __m256i);
                let positions = _mm256_add_epi32(offsets, $base);
                _mm256_storeu_si256(buf.as_mut_ptr().add(len) as *mut __m256i, positions);
                len += *super::HIT_COUNTS.get_unchecked(mask) as usize;
            }};
        }
        // Bit j: position at + j scores at least the threshold.
        macro_rules! block {
            ($at:expr) => {{
                let s0 = scores4(k, p.add($at));
                let s1 = scores4(k, p.add($at + 4));
                let below0 = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(limit, s0)));
                let below1 = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(limit, s1)));
                !(below0 | (below1 << 4)) & 0xFF
            }};
        }
        let blocks = n / 8;
        if u64::MAX - threshold < u64::MAX / 128 {
            // Fewer than one block in sixteen has a hit: a branch on the block is predictable and
            // cheaper than writing every block out.
            for b in 0..blocks {
                let mask = block!(b * 8);
                if mask != 0 {
                    append!(_mm256_set1_epi32((b * 8) as i32), mask);
                    if len >= super::HIT_BATCH {
                        visit(&buf[..len]);
                        len = 0;
                    }
                }
            }
        } else {
            let mut base = _mm256_setzero_si256();
            let eight = _mm256_set1_epi32(8);
            for b in 0..blocks {
                append!(base, block!(b * 8));
                base = _mm256_add_epi32(base, eight);
                if len >= super::HIT_BATCH {
                    visit(&buf[..len]);
                    len = 0;
                }
            }
        }
        let rest = n % 8;
        if rest != 0 {
            // The last eight positions, overlapping blocks already seen: keep the new ones only.
            let base = _mm256_set1_epi32((n - rest) as i32);
            append!(base, block!(n - 8) >> (8 - rest));
        }
        if len != 0 {
            visit(&buf[..len]);
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn scores_and_lane_max(
        key: u64,
        digests: &[u64],
        out: &mut [u64],
    ) -> [u64; 8] {
        let n = digests.len().min(out.len());
        let blocks = n / 8;
        let k = _mm256_set1_epi64x(key as i64);
        let p = digests.as_ptr();
        let o = out.as_mut_ptr();
        let flip = _mm256_set1_epi64x(FLIP);
        let mut max0 = flip;
        let mut max1 = flip;
        for b in 0..blocks {
            let s0 = scores4(k, p.add(b * 8));
            let s1 = scores4(k, p.add(b * 8 + 4));
            _mm256_storeu_si256(o.add(b * 8) as *mut __m256i, _mm256_xor_si256(s0, flip));
            _mm256_storeu_si256(o.add(b * 8 + 4) as *mut __m256i, _mm256_xor_si256(s1, flip));
            max0 = _mm256_blendv_epi8(max0, s0, _mm256_cmpgt_epi64(s0, max0));
            max1 = _mm256_blendv_epi8(max1, s1, _mm256_cmpgt_epi64(s1, max1));
        }
        for i in blocks * 8..n {
            *o.add(i) = score(key, *p.add(i));
        }
        lanes8(_mm256_xor_si256(max0, flip), _mm256_xor_si256(max1, flip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
                    argmax_scalar(key, &digests),
                    "n={n}"
                );
                for thr in [0u64, 1 << 63, u64::MAX - (1 << 60)] {
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    simd.scan(key, &digests, thr, &mut |s, i| {
                        a.push((s, i));
                        s.saturating_add(1).max(thr)
                    });
                    scan_scalar(key, &digests, thr, &mut |s, i| {
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
                let mb = scores_and_lane_max_scalar(key, &digests, &mut b);
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
                let (s, pos) = argmax_scalar(key, lanes);
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
            let expected = argmax_scalar(9, &digests);
            assert_eq!(simd.argmax(9, &digests), expected);
        }
        // A score of exactly zero must still be found: digest == key gives x = 0, score 0.
        assert_eq!(simd.argmax(5, &[5u64; 16]), (0, 0));
    }
}
