//! The AVX2 kernels: four 64-bit lanes per vector, two vectors per block of eight nodes. Only
//! ever called once `Kernel::detect` has found AVX2.

use crate::v1::score;
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
        return super::portable::argmax(key, digests);
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
        return super::portable::hits(key, digests, threshold, visit);
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
            let offsets = _mm256_loadu_si256(HIT_OFFSETS.as_ptr().add(mask) as *const __m256i);
            let positions = _mm256_add_epi32(offsets, $base);
            _mm256_storeu_si256(buf.as_mut_ptr().add(len) as *mut __m256i, positions);
            len += *HIT_COUNTS.get_unchecked(mask) as usize;
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
pub(super) unsafe fn scores_and_lane_max(key: u64, digests: &[u64], out: &mut [u64]) -> [u64; 8] {
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

/// For each 8-bit hit mask, the positions of its set bits in increasing order (then zeros).
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
static HIT_COUNTS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut mask = 0;
    while mask < 256 {
        table[mask] = (mask as u32).count_ones() as u8;
        mask += 1;
    }
    table
};

/// Most nodes [`top_keys_lists`] takes: beyond it the threshold pass of [`hits`] and the
/// insertion of its few hits cost less than inserting every node (AMD Zen 4, top-3 beside that
/// pass, same process: 0.65x the time at 24 nodes, 0.87x at 64, 0.92x at 80, 1.00x at 100,
/// 1.06x at 128).
pub(super) const LISTS_MAX: usize = 96;

/// The higher and the lower of `a` and `b` per lane (signed order: the keys are flipped).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn exchange(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let b_higher = _mm256_cmpgt_epi64(b, a);
    (
        _mm256_blendv_epi8(a, b, b_higher),
        _mm256_blendv_epi8(b, a, b_higher),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn higher(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a))
}

/// Lanes 2 apart swapped.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn swap_halves(v: __m256i) -> __m256i {
    _mm256_permute2x128_si256::<1>(v, v)
}

/// Neighbouring lanes swapped.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn swap_neighbours(v: __m256i) -> __m256i {
    _mm256_shuffle_epi32::<0x4E>(v)
}

/// Inserts each lane of `x` into that lane's list of four keys, highest first.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn insert(lists: &mut [__m256i; 4], mut x: __m256i) {
    for slot in &mut lists[..3] {
        let (hi, lo) = exchange(*slot, x);
        *slot = hi;
        x = lo;
    }
    lists[3] = higher(lists[3], x);
}

/// The four highest keys of `n` (at least four) nodes, highest first, keyed as the AVX-512
/// kernel keys them (the score with the bits of `low` replaced by `low - position`): each of
/// the four lanes keeps its four best keys in registers as the vectors go by, and the lanes'
/// lists are merged at the end. No threshold and no memory, where the threshold pass stores its
/// hits and inserts them one by one.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn top_keys_lists(key: u64, digests: &[u64], low: u64) -> [u64; 4] {
    let n = digests.len();
    debug_assert!(n >= 4);
    let k = _mm256_set1_epi64x(key as i64);
    let p = digests.as_ptr();
    let lowv = _mm256_set1_epi64x(low as i64);
    let lanes = _mm256_set_epi64x(3, 2, 1, 0);
    // `low - position` of each lane, stepping down by four per vector. The flipped top bit
    // lies above `low`, so a key keeps its score's.
    let mut inv = _mm256_sub_epi64(lowv, lanes);
    let four = _mm256_set1_epi64x(4);
    // An empty slot holds the lowest key, a flipped zero.
    let empty = _mm256_set1_epi64x(FLIP);
    let mut c = [empty; 4];
    for v in 0..n / 4 {
        let s = scores4(k, p.add(4 * v));
        insert(&mut c, _mm256_or_si256(_mm256_andnot_si256(lowv, s), inv));
        inv = _mm256_sub_epi64(inv, four);
    }
    let rest = n % 4;
    if rest != 0 {
        // The last four digests, of which the top `rest` lanes are new; the others are empty.
        let s = scores4(k, p.add(n - 4));
        let at = _mm256_add_epi64(_mm256_set1_epi64x((n - 4) as i64), lanes);
        let keys = _mm256_or_si256(_mm256_andnot_si256(lowv, s), _mm256_sub_epi64(lowv, at));
        let seen = _mm256_cmpgt_epi64(_mm256_set1_epi64x((4 - rest) as i64), lanes);
        insert(&mut c, _mm256_blendv_epi8(keys, empty, seen));
    }
    // Each lane's list meets its partner's, lanes 2 and then 1 apart (see the AVX-512 `top4`).
    macro_rules! merge {
        ($partner:expr) => {{
            let q = [
                $partner(c[0]),
                $partner(c[1]),
                $partner(c[2]),
                $partner(c[3]),
            ];
            let mut m = [
                higher(c[0], q[3]),
                higher(c[1], q[2]),
                higher(c[2], q[1]),
                higher(c[3], q[0]),
            ];
            for (i, j) in [(0, 2), (1, 3), (0, 1), (2, 3)] {
                let (hi, lo) = exchange(m[i], m[j]);
                m[i] = hi;
                m[j] = lo;
            }
            c = m;
        }};
    }
    merge!(swap_halves);
    merge!(swap_neighbours);
    let mut out = [0u64; 4];
    for (o, v) in out.iter_mut().zip(c) {
        *o = _mm_cvtsi128_si64(_mm256_castsi256_si128(v)) as u64 ^ FLIP as u64;
    }
    out
}
