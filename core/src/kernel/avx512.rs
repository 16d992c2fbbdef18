//! The AVX-512 kernels: eight 64-bit lanes per vector, one vector per block of eight nodes, with
//! the native 64-bit lane multiply (`vpmullq`, AVX-512DQ), unsigned 64-bit compares and maxima,
//! and masks for the blocks a slice ends inside. Only ever called once `Kernel` has found
//! AVX-512F, DQ and VL (see `mod.rs` for when they are chosen).

// Compiled only by compilers that have these intrinsics stable (1.89 on; see build.rs), below
// the crate's rust-version.
#![allow(clippy::incompatible_msrv)]

use crate::v1::{digest_scoring as digest_of, score, MIX_INVERSE, MIX_MULTIPLIER};
use core::arch::x86_64::*;

/// Blocks of eight nodes whose maxima [`argmax`] merges at once: the winner is looked for again
/// in one chunk only, so a longer chunk costs more there and less in the loop.
const CHUNK: usize = 4;

/// The low `len` bits (`len` at most 8).
#[inline(always)]
fn low_bits(len: usize) -> __mmask8 {
    (0xFFu32 >> (8 - len)) as __mmask8
}

/// Scores of the eight digests in `d`: `fold(key ^ d) · M` with `fold(x) = x ^ (x >> 32)`,
/// written as `fold(key) ^ d ^ (d >> 32)`, one three-way xor.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn scores8(folded_key: __m512i, d: __m512i) -> __m512i {
    let mixed = _mm512_ternarylogic_epi64::<0x96>(folded_key, d, _mm512_srli_epi64::<32>(d));
    _mm512_mullo_epi64(mixed, _mm512_set1_epi64(MIX_MULTIPLIER as i64))
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn folded(key: u64) -> __m512i {
    _mm512_set1_epi64((key ^ (key >> 32)) as i64)
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn load(p: *const u64) -> __m512i {
    _mm512_loadu_si512(p as *const _)
}

/// The first `len` digests from `p` (len below 8), zeros in the other lanes; the masked load
/// touches no memory past them.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn load_part(p: *const u64, len: usize) -> __m512i {
    _mm512_maskz_loadu_epi64(low_bits(len), p as *const _)
}

/// The highest score and the first position that has it, without tracking positions in the loop:
/// the loop keeps each lane's maximum and the chunk of [`CHUNK`] blocks where that lane's maximum
/// first appeared; the best score then names its digest ([`digest_of`]), and the first position
/// holding that digest is looked for in the earliest chunk where a lane reached the best score.
/// Equal scores are equal digests, so that position is the first one with the best score: SPEC.md's
/// tie rule, also for the repeated digests that only crafted inputs have.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn argmax(key: u64, digests: &[u64]) -> (u64, usize) {
    let n = digests.len();
    // The vector paths read whole blocks of eight; fewer digests are the scalar kernel's.
    if n < 8 {
        return super::portable::argmax(key, digests);
    }
    if n <= FEW {
        return argmax_few(key, digests);
    }
    let fk = folded(key);
    let p = digests.as_ptr();
    // (A macro, not a closure, so that the code is compiled with AVX-512 enabled.)
    macro_rules! score_at {
        ($at:expr) => {
            scores8(fk, load(p.add($at)))
        };
    }
    // Zero never beats a lane's maximum (strictly greater), so lanes that have no node in a chunk
    // take zero there; a lane whose maximum is zero has it at its first node, in chunk 0.
    let mut best = _mm512_setzero_si512();
    let mut best_chunk = _mm512_setzero_si512();
    let mut chunk = _mm512_setzero_si512();
    let one = _mm512_set1_epi64(1);
    let chunk_len = CHUNK * 8;
    let chunks = n / chunk_len;
    for c in 0..chunks {
        let at = c * chunk_len;
        let m = _mm512_max_epu64(
            _mm512_max_epu64(score_at!(at), score_at!(at + 8)),
            _mm512_max_epu64(score_at!(at + 16), score_at!(at + 24)),
        );
        let beats = _mm512_cmpgt_epu64_mask(m, best);
        best = _mm512_max_epu64(best, m);
        best_chunk = _mm512_mask_mov_epi64(best_chunk, beats, chunk);
        chunk = _mm512_add_epi64(chunk, one);
    }
    let mut at = chunks * chunk_len;
    if at < n {
        let mut m = _mm512_setzero_si512();
        while at + 8 <= n {
            m = _mm512_max_epu64(m, score_at!(at));
            at += 8;
        }
        if at < n {
            // The last eight digests, of which the top `n - at` lanes are new (see
            // [`argmax_few`] on masked loads).
            let new = !low_bits(8 - (n - at));
            m = _mm512_mask_max_epu64(m, new, m, scores8(fk, load(p.add(n - 8))));
        }
        let beats = _mm512_cmpgt_epu64_mask(m, best);
        best = _mm512_max_epu64(best, m);
        best_chunk = _mm512_mask_mov_epi64(best_chunk, beats, chunk);
    }
    let top = _mm512_reduce_max_epu64(best);
    let lanes = _mm512_cmpeq_epi64_mask(best, _mm512_set1_epi64(top as i64));
    // One lane has the best score, unless digests repeat (crafted inputs): then the earliest
    // chunk where any of those lanes reached it.
    let first_chunk = _mm512_mask_reduce_min_epu64(lanes, best_chunk) as usize;
    // The positions of the chunk holding the best digest, all compared at once: no branch on
    // where in the chunk it is.
    let target = _mm512_set1_epi64(digest_of(key, top) as i64);
    let start = first_chunk * chunk_len;
    let mut found = 0u32;
    for j in 0..CHUNK {
        let at = start + 8 * j;
        if at >= n {
            break;
        }
        // A part block is read as the last eight digests, its lanes before `at` dropped.
        let from = at.min(n - 8);
        let equal = _mm512_cmpeq_epi64_mask(load(p.add(from)), target) as u32;
        found |= (equal >> (at - from)) << (8 * j);
    }
    if found != 0 {
        return (top, start + found.trailing_zeros() as usize);
    }
    // Unreachable: the best score came from a digest of that chunk. The scalar kernel is the
    // answer should it ever not be.
    debug_assert!(false, "the best digest was not found again");
    super::portable::argmax(key, digests)
}

/// Most nodes [`argmax_few`] takes: eight blocks.
const FEW: usize = 64;

/// [`argmax`] of 8 to [`FEW`] digests. Every score stays in a register, and the first position
/// with the best score is found by comparing them all with it: at this size the loop's
/// bookkeeping and the search for the winner's digest cost more than the scores (a lookup of 8
/// to 32 nodes took twice as long as with AVX2, of 33 to 64 nodes about as long). A last part
/// block is read as the last eight digests, overlapping the block before it, instead of with a
/// masked load: on AMD Zen 4 a lookup of 9 to 31 nodes took 14 ns with the masked load, 7 ns
/// without it (a masked load alone, in a loop of its own, showed no such cost).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn argmax_few(key: u64, digests: &[u64]) -> (u64, usize) {
    // One copy per register count, so that every score stays in a register.
    if digests.len() <= 32 {
        argmax_blocks::<4>(key, digests)
    } else {
        argmax_blocks::<8>(key, digests)
    }
}

/// [`argmax_few`] of 8 to `8 * B` digests.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn argmax_blocks<const B: usize>(key: u64, digests: &[u64]) -> (u64, usize) {
    let n = digests.len();
    debug_assert!((8..=8 * B).contains(&n));
    let fk = folded(key);
    let p = digests.as_ptr();
    let full = n / 8;
    let mut s = [_mm512_setzero_si512(); B];
    let mut m = s[0];
    for (j, block) in s.iter_mut().enumerate() {
        if j < full {
            *block = scores8(fk, load(p.add(8 * j)));
            m = _mm512_max_epu64(m, *block);
        }
    }
    // The last `n % 8` digests are the top lanes of the last eight.
    let last = scores8(fk, load(p.add(n - 8)));
    m = _mm512_max_epu64(m, last);
    let top = _mm512_reduce_max_epu64(m);
    let t = _mm512_set1_epi64(top as i64);
    // Lanes past `n` score zero and lie after every real position, so the lowest set bit is
    // the first position with the best score even when that score is zero.
    let mut found = 0u64;
    for (j, &block) in s.iter().enumerate() {
        found |= (_mm512_cmpeq_epi64_mask(block, t) as u64) << (8 * j);
    }
    // Positions `n - 8 ..`; those below `8 * full` are in the full blocks already.
    found |= (_mm512_cmpeq_epi64_mask(last, t) as u64) << (n - 8);
    (top, found.trailing_zeros() as usize)
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn load_part_or_full(p: *const u64, len: usize) -> __m512i {
    if len == 8 {
        load(p)
    } else {
        load_part(p, len)
    }
}

/// Per lane, the better of (score, position) pairs `(b, q)` and `(b2, q2)`: higher score, then
/// lower position.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn pick(b: __m512i, q: __m512i, b2: __m512i, q2: __m512i) -> (__m512i, __m512i) {
    let take = _mm512_cmpgt_epu64_mask(b2, b)
        | (_mm512_cmpeq_epi64_mask(b2, b) & _mm512_cmpgt_epu64_mask(q, q2));
    (
        _mm512_mask_mov_epi64(b, take, b2),
        _mm512_mask_mov_epi64(q, take, q2),
    )
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn group_argmax(key: u64, layout: &super::Interleaved) -> [(u64, u64); 8] {
    let fk = folded(key);
    let p = layout.digests.as_ptr();
    let blocks = layout.digests.len() / 8;
    let l = layout.lanes_per_group as i64;
    // Lane j's position in its group: block * L + j % L.
    let mut idx = _mm512_set_epi64(7 % l, 6 % l, 5 % l, 4 % l, 3 % l, 2 % l, 1 % l, 0);
    let step = _mm512_set1_epi64(l);
    // Strictly greater keeps a lane's first position on ties; a lane starts at score 0 and its
    // first position, which is what that position holds if nothing beats 0.
    let mut best = _mm512_setzero_si512();
    let mut pos = idx;
    for b in 0..layout.full {
        let s = scores8(fk, load(p.add(b * 8)));
        let beats = _mm512_cmpgt_epu64_mask(s, best);
        best = _mm512_mask_mov_epi64(best, beats, s);
        pos = _mm512_mask_mov_epi64(pos, beats, idx);
        idx = _mm512_add_epi64(idx, step);
    }
    let m = layout.masks.as_ptr();
    for b in layout.full..blocks {
        // Padding scores zero.
        let mask = load(m.add(8 * (b - layout.full)));
        let s = _mm512_and_si512(scores8(fk, load(p.add(b * 8))), mask);
        let beats = _mm512_cmpgt_epu64_mask(s, best);
        best = _mm512_mask_mov_epi64(best, beats, s);
        pos = _mm512_mask_mov_epi64(pos, beats, idx);
        idx = _mm512_add_epi64(idx, step);
    }
    // Within each group's L lanes: neighbours, then the other pair of each four.
    if layout.lanes_per_group >= 2 {
        (best, pos) = pick(
            best,
            pos,
            _mm512_shuffle_epi32::<0x4E>(best),
            _mm512_shuffle_epi32::<0x4E>(pos),
        );
    }
    if layout.lanes_per_group == 4 {
        (best, pos) = pick(
            best,
            pos,
            _mm512_shuffle_i64x2::<0b10_11_00_01>(best, best),
            _mm512_shuffle_i64x2::<0b10_11_00_01>(pos, pos),
        );
    }
    let mut scores = [0u64; 8];
    let mut positions = [0u64; 8];
    _mm512_storeu_si512(scores.as_mut_ptr() as *mut _, best);
    _mm512_storeu_si512(positions.as_mut_ptr() as *mut _, pos);
    let mut out = [(0u64, 0u64); 8];
    for (g, slot) in out.iter_mut().enumerate().take(8 / layout.lanes_per_group) {
        let lane = g * layout.lanes_per_group;
        *slot = (scores[lane], positions[lane]);
    }
    out
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn scan<F: FnMut(u64, usize) -> u64>(
    key: u64,
    digests: &[u64],
    mut threshold: u64,
    visit: &mut F,
) {
    let n = digests.len();
    let fk = folded(key);
    let p = digests.as_ptr();
    let mut limit = _mm512_set1_epi64(threshold as i64);
    let mut at = 0;
    while at < n {
        let len = (n - at).min(8);
        let s = scores8(fk, load_part_or_full(p.add(at), len));
        // One branch per eight nodes.
        let mut hits = _mm512_mask_cmpge_epu64_mask(low_bits(len), s, limit) as u32;
        if hits != 0 {
            while hits != 0 {
                let i = at + hits.trailing_zeros() as usize;
                hits &= hits - 1;
                // Recomputing one score is cheaper than a vector store and reload.
                let sc = score(key, *digests.get_unchecked(i));
                if sc >= threshold {
                    threshold = visit(sc, i);
                }
            }
            limit = _mm512_set1_epi64(threshold as i64);
        }
        at += 8;
    }
}

/// Appends to `$buf[$len..]` the positions `$at + j` whose bit `j` is set in `$mask` (eight
/// bits), packed by `vpcompressd` into a register (the store form is slow on AMD cores) and
/// stored whole, and counts them into `$len`. (Macros, not closures, so that the code is
/// compiled with AVX-512 enabled.)
macro_rules! append_positions {
    ($buf:ident, $len:ident, $at:expr, $mask:expr) => {{
        let mask: __mmask8 = $mask;
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let positions = _mm256_add_epi32(lane, _mm256_set1_epi32($at as i32));
        let packed = _mm256_maskz_compress_epi32(mask, positions);
        _mm256_storeu_si256($buf.as_mut_ptr().add($len) as *mut __m256i, packed);
        $len += mask.count_ones() as usize;
    }};
}

/// [`append_positions`] of two blocks at once (sixteen bits): one compress, store and count per
/// sixteen nodes.
macro_rules! append_positions16 {
    ($buf:ident, $len:ident, $at:expr, $mask:expr) => {{
        let mask: __mmask16 = $mask;
        let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let positions = _mm512_add_epi32(lane, _mm512_set1_epi32($at as i32));
        let packed = _mm512_maskz_compress_epi32(mask, positions);
        _mm512_storeu_si512($buf.as_mut_ptr().add($len) as *mut _, packed);
        $len += mask.count_ones() as usize;
    }};
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
pub(super) unsafe fn hits<F: FnMut(&[u32])>(
    key: u64,
    digests: &[u64],
    threshold: u64,
    visit: &mut F,
) {
    let n = digests.len();
    let fk = folded(key);
    let p = digests.as_ptr();
    let limit = _mm512_set1_epi64(threshold as i64);
    let mut buf = [0u32; super::HIT_BATCH + 16];
    let mut len = 0usize;
    macro_rules! append {
        ($at:expr, $mask:expr) => {
            append_positions!(buf, len, $at, $mask)
        };
    }
    macro_rules! append16 {
        ($at:expr, $mask:expr) => {
            append_positions16!(buf, len, $at, $mask)
        };
    }
    let blocks = n / 8;
    if u64::MAX - threshold < u64::MAX / 128 {
        // Fewer than one block in sixteen has a hit: a branch on the block is predictable and
        // cheaper than writing every block out.
        for b in 0..blocks {
            let mask = _mm512_cmpge_epu64_mask(scores8(fk, load(p.add(b * 8))), limit);
            if mask != 0 {
                append!(b * 8, mask);
                if len >= super::HIT_BATCH {
                    visit(&buf[..len]);
                    len = 0;
                }
            }
        }
    } else {
        for b in (0..blocks / 2).map(|b| 2 * b) {
            let low = _mm512_cmpge_epu64_mask(scores8(fk, load(p.add(b * 8))), limit);
            let high = _mm512_cmpge_epu64_mask(scores8(fk, load(p.add(b * 8 + 8))), limit);
            append16!(b * 8, _mm512_kunpackb(high as __mmask16, low as __mmask16));
            if len >= super::HIT_BATCH {
                visit(&buf[..len]);
                len = 0;
            }
        }
        if !blocks.is_multiple_of(2) {
            let b = blocks - 1;
            append!(
                b * 8,
                _mm512_cmpge_epu64_mask(scores8(fk, load(p.add(b * 8))), limit)
            );
        }
    }
    let rest = n % 8;
    if rest != 0 {
        let at = blocks * 8;
        let s = scores8(fk, load_part(p.add(at), rest));
        append!(at, _mm512_mask_cmpge_epu64_mask(low_bits(rest), s, limit));
    }
    if len != 0 {
        visit(&buf[..len]);
    }
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn scores_and_lane_max(key: u64, digests: &[u64], out: &mut [u64]) -> [u64; 8] {
    let n = digests.len().min(out.len());
    let blocks = n / 8;
    let fk = folded(key);
    let p = digests.as_ptr();
    let o = out.as_mut_ptr();
    let mut max = _mm512_setzero_si512();
    for b in 0..blocks {
        let s = scores8(fk, load(p.add(b * 8)));
        _mm512_storeu_si512(o.add(b * 8) as *mut _, s);
        max = _mm512_max_epu64(max, s);
    }
    let rest = n % 8;
    if rest != 0 {
        let at = blocks * 8;
        let s = scores8(fk, load_part(p.add(at), rest));
        _mm512_mask_storeu_epi64(o.add(at) as *mut _, low_bits(rest), s);
    }
    let mut lane_max = [0u64; 8];
    _mm512_storeu_si512(lane_max.as_mut_ptr() as *mut _, max);
    lane_max
}

/// Keys whose lookups [`argmax_keys`] runs together: four registers of eight.
pub(super) const KEYS: usize = 32;

/// Nodes per chunk of [`argmax_keys`]: each lane's maximum is merged, and its chunk recorded,
/// once per chunk; the winner is looked for again in its chunk alone.
const KEY_CHUNK: usize = 16;

/// Folded node digests that [`argmax_many`] keeps on the stack; more go to the heap.
const FOLDED: usize = 1024;

/// `d ^ (d >> 32)` of each digest of `digests` into `out`, which has room for as many.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn fold_into(digests: &[u64], out: *mut u64) {
    let n = digests.len();
    let p = digests.as_ptr();
    let mut at = 0;
    while at + 8 <= n {
        let d = load(p.add(at));
        let f = _mm512_xor_si512(d, _mm512_srli_epi64::<32>(d));
        _mm512_storeu_si512(out.add(at) as *mut _, f);
        at += 8;
    }
    if at < n {
        let d = load_part(p.add(at), n - at);
        let f = _mm512_xor_si512(d, _mm512_srli_epi64::<32>(d));
        _mm512_mask_storeu_epi64(out.add(at) as *mut _, low_bits(n - at), f);
    }
}

/// [`argmax`] of each key digest of `keys` over `digests` (non-empty) into `out`, which is as
/// long, [`KEYS`] keys at a time ([`argmax_keys`]), over the node digests folded once for all
/// of them.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn argmax_many(keys: &[u64], digests: &[u64], out: &mut [(u64, usize)]) {
    let n = digests.len();
    if n == 0 {
        out.iter_mut().for_each(|o| *o = (0, 0));
        return;
    }
    // Padded to whole chunks: the winner is looked for in a whole chunk, and its first match
    // comes before any padding.
    let padded = n.div_ceil(KEY_CHUNK) * KEY_CHUNK;
    // Left uninitialized: zeroing it would cost as much as folding; what is read is written
    // first.
    let mut stack = core::mem::MaybeUninit::<[u64; FOLDED]>::uninit();
    let mut heap = alloc::vec::Vec::new();
    let buf = if padded <= FOLDED {
        stack.as_mut_ptr() as *mut u64
    } else {
        heap.reserve_exact(padded);
        heap.as_mut_ptr()
    };
    fold_into(digests, buf);
    for i in n..padded {
        buf.add(i).write(0);
    }
    let folded = core::slice::from_raw_parts(buf as *const u64, padded);
    for (keys, out) in keys.chunks(KEYS).zip(out.chunks_mut(KEYS)) {
        argmax_keys(keys, digests, folded, out);
    }
}

/// [`argmax`] of each key digest of `keys` (at most [`KEYS`]) over `digests` (non-empty) into
/// `out`, as long as `keys`, with the keys across the vector lanes: each node digest is read once
/// and broadcast against every key of the block, and each key's maximum builds up in its own
/// lane. `folded` holds the folded digests (`d ^ (d >> 32)`), padded to whole chunks. As in
/// [`argmax`], positions are not tracked in the loop: each lane keeps its maximum and the first
/// chunk of [`KEY_CHUNK`] nodes where it appeared; the best score names its folded digest, and
/// its first position is looked for in that chunk alone. Equal scores for one key are equal
/// digests, so that is the first position with the best score (SPEC.md's tie rule).
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn argmax_keys(keys: &[u64], digests: &[u64], folded: &[u64], out: &mut [(u64, usize)]) {
    let n = digests.len();
    let count = keys.len().min(out.len()).min(KEYS);
    // Lanes past the keys are computed and ignored; the masked loads read nothing past them.
    let kp = keys.as_ptr();
    let fk: [__m512i; 4] = core::array::from_fn(|v| {
        let k = _mm512_maskz_loadu_epi64(
            low_bits(count.saturating_sub(8 * v).min(8)),
            kp.wrapping_add(8 * v) as *const _,
        );
        _mm512_xor_si512(k, _mm512_srli_epi64::<32>(k))
    });
    let f = folded.as_ptr();
    let mul = _mm512_set1_epi64(MIX_MULTIPLIER as i64);
    // Zero never beats a lane's maximum (strictly greater), so a lane whose maximum is zero
    // has it at its first node, in chunk 0.
    let mut best = [_mm512_setzero_si512(); 4];
    let mut best_start = [_mm512_setzero_si512(); 4];
    let mut start = _mm512_setzero_si512();
    let step = _mm512_set1_epi64(KEY_CHUNK as i64);
    // (Macros, not closures, so that the code is compiled with AVX-512 enabled.) The score of
    // `fold(key ^ d)` is `(fold(key) ^ fold(d)) * M`: `fold` is linear, so the node digests come
    // folded, each broadcast from memory against every register of keys.
    macro_rules! score {
        ($at:expr, $v:expr) => {
            _mm512_mullo_epi64(
                _mm512_xor_si512(fk[$v], _mm512_set1_epi64(*f.add($at) as i64)),
                mul,
            )
        };
    }
    macro_rules! chunk_max {
        ($at:expr, $len:expr) => {{
            let at = $at;
            let mut m = [score!(at, 0), score!(at, 1), score!(at, 2), score!(at, 3)];
            for j in 1..$len {
                for v in 0..4 {
                    m[v] = _mm512_max_epu64(m[v], score!(at + j, v));
                }
            }
            for v in 0..4 {
                let beats = _mm512_cmpgt_epu64_mask(m[v], best[v]);
                best[v] = _mm512_max_epu64(best[v], m[v]);
                best_start[v] = _mm512_mask_mov_epi64(best_start[v], beats, start);
            }
        }};
    }
    let full = n / KEY_CHUNK;
    for c in 0..full {
        chunk_max!(c * KEY_CHUNK, KEY_CHUNK);
        start = _mm512_add_epi64(start, step);
    }
    if !n.is_multiple_of(KEY_CHUNK) {
        chunk_max!(full * KEY_CHUNK, n % KEY_CHUNK);
    }
    // The best score times the multiplier's inverse is `fold(key) ^ fold(d)` of the winner.
    let inv = _mm512_set1_epi64(MIX_INVERSE as i64);
    let mut tops = [0u64; KEYS];
    let mut targets = [0u64; KEYS];
    let mut starts = [0u64; KEYS];
    for v in 0..4 {
        let target = _mm512_xor_si512(_mm512_mullo_epi64(best[v], inv), fk[v]);
        _mm512_storeu_si512(tops.as_mut_ptr().add(8 * v) as *mut _, best[v]);
        _mm512_storeu_si512(targets.as_mut_ptr().add(8 * v) as *mut _, target);
        _mm512_storeu_si512(starts.as_mut_ptr().add(8 * v) as *mut _, best_start[v]);
    }
    for i in 0..count {
        let start = starts[i] as usize;
        // The positions of the chunk, all compared at once.
        let target = _mm512_set1_epi64(targets[i] as i64);
        let mut found = 0u32;
        for j in 0..KEY_CHUNK / 8 {
            let d = load(f.add(start + 8 * j));
            found |= (_mm512_cmpeq_epi64_mask(d, target) as u32) << (8 * j);
        }
        out[i] = if found != 0 {
            (tops[i], start + found.trailing_zeros() as usize)
        } else {
            // Unreachable: the best score came from a digest of that chunk.
            debug_assert!(false, "the best digest was not found again");
            super::portable::argmax(keys[i], digests)
        };
    }
}

/// The positions of the best `out.len()` of two to eight nodes, best first, from each node's rank:
/// the number of nodes that score higher, counted in one register by comparing every lane with
/// each node's score in turn. No list is kept and no comparison branches. False, with nothing
/// in `out` to use, where two nodes among the first `out.len()` score alike (equal digests, which
/// only crafted inputs have): they share a rank, and the caller's exact path orders them.
/// Against the scalar list of the best (AMD Zen 4, from digests, same build): top-3 of five
/// nodes 11.9 against 14.2 ns, of seven 12.6 against 18.9; all of three nodes 11.1 against 15.3.
/// Comparing all eight lanes whatever the count took 13.4 ns at every count, and counting each
/// node's rank in a general register (the store of its position then read back) 18.7 at five.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn rank_small(key_digest: u64, digests: &[u64], out: &mut [usize]) -> bool {
    let n = digests.len();
    debug_assert!((2..=8).contains(&n) && out.len() <= n);
    let valid = low_bits(n);
    let s = scores8(folded(key_digest), load_part(digests.as_ptr(), n));
    // Lanes past the nodes start at a rank no node has.
    let mut rank = _mm512_maskz_mov_epi64(!valid, _mm512_set1_epi64(8));
    let one = _mm512_set1_epi64(1);
    for j in 0..n {
        let sj = _mm512_permutexvar_epi64(_mm512_set1_epi64(j as i64), s);
        let beaten = _mm512_mask_cmpgt_epu64_mask(valid, sj, s);
        rank = _mm512_mask_add_epi64(rank, beaten, rank, one);
    }
    let mut lone = true;
    for (r, slot) in out.iter_mut().enumerate() {
        let at = _mm512_cmpeq_epi64_mask(rank, _mm512_set1_epi64(r as i64));
        lone &= at.count_ones() == 1;
        *slot = at.trailing_zeros() as usize;
    }
    lone
}

/// `!position` of the eight nodes from `at`, whose low bits are `low - position` (see
/// [`keyed`]).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn inverted_positions(at: usize) -> __m512i {
    _mm512_sub_epi64(
        _mm512_setr_epi64(!0, !1, !2, !3, !4, !5, !6, !7),
        _mm512_set1_epi64(at as i64),
    )
}

/// Scores keyed as the top-k passes key a node: the score with the bits of `low` (a mask of low
/// bits, above every position) replaced by `low - position`, so that one unsigned comparison
/// orders nodes by score and, among scores equal outside `low`, by lower position, and the key
/// names its node. What the keys do not settle (scores equal outside `low`) is for the caller to
/// check ([`super::Kernel::top_keyed`]). `0xD8` takes the bits of the second operand where the
/// third has ones, of the first elsewhere, so the score's bits of `low` become those of
/// `!position`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn keyed(scores: __m512i, inverted_positions: __m512i, low: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0xD8>(scores, inverted_positions, low)
}

/// The lists' operations for keys of one width, whose maximum and minimum are `$max` and
/// `$min`. A lane's list holds its best `L` keys, highest first: four, or three where a
/// top-3 does not need a lane's fourth ([`top_keys_lists3`]).
macro_rules! list_ops {
    (
        $insert:ident,
        $insert_pair:ident,
        $end_pairs:ident,
        $sort_bitonic:ident,
        $max:ident,
        $min:ident
    ) => {
        /// Inserts each lane of `x` into that lane's list.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        unsafe fn $insert<const L: usize>(lists: &mut [__m512i; L], mut x: __m512i) {
            for slot in lists {
                let (hi, lo) = ($max(*slot, x), $min(*slot, x));
                *slot = hi;
                x = lo;
            }
        }

        /// Inserts the higher of each lane of `x` and `y` into that lane's list and the lower
        /// into its list of lower ones (`lower`): of a lane's best four, at most two are the
        /// lower of their pair (each has its higher one above it), and those are among the two
        /// best lower ones; of its best three, at most one, the best lower one (`lower[0]`).
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        unsafe fn $insert_pair<const L: usize>(
            lists: &mut [__m512i; L],
            lower: &mut [__m512i; 2],
            x: __m512i,
            y: __m512i,
        ) {
            $insert(lists, $max(x, y));
            let lo = $min(x, y);
            if L == 4 {
                let (hi, lo) = ($max(lower[0], lo), $min(lower[0], lo));
                *lower = [hi, $max(lower[1], lo)];
            } else {
                lower[0] = $max(lower[0], lo);
            }
        }

        /// Makes each lane's list its best of the list and its lower ones (kept by the pair
        /// insertion; `paired` where there were pairs). Lists of four: the higher of the list's
        /// i-th and the lower list's (3 - i)-th are the four best in a bitonic order, which the
        /// bitonic sort orders. Lists of three: the best lower one is inserted.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        unsafe fn $end_pairs<const L: usize>(
            lists: &mut [__m512i; L],
            lower: [__m512i; 2],
            paired: bool,
        ) {
            if L == 4 {
                lists[2] = $max(lists[2], lower[1]);
                lists[3] = $max(lists[3], lower[0]);
                $sort_bitonic(lists);
            } else if paired {
                $insert(lists, lower[0]);
            }
        }

        /// Sorts each lane's four values, highest first, where they are bitonic (they rise, then
        /// fall, or the reverse): two rounds of compare-exchanges.
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        unsafe fn $sort_bitonic<const L: usize>(m: &mut [__m512i; L]) {
            for (i, j) in [(0, 2), (1, 3), (0, 1), (2, 3)] {
                let (hi, lo) = ($max(m[i], m[j]), $min(m[i], m[j]));
                m[i] = hi;
                m[j] = lo;
            }
        }
    };
}
list_ops!(
    insert,
    insert_pair,
    end_pairs,
    sort_bitonic,
    _mm512_max_epu64,
    _mm512_min_epu64
);
list_ops!(
    insert32,
    insert_pair32,
    end_pairs32,
    sort_bitonic32,
    _mm512_max_epu32,
    _mm512_min_epu32
);

/// The keys of the last `n % 8` of `n` (at least eight) digests, in the top lanes of the last
/// eight (see [`argmax_few`] on masked loads); the other lanes key to zero.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn tail_keys(fk: __m512i, digests: &[u64], low: __m512i) -> __m512i {
    let n = digests.len();
    let s = scores8(fk, load(digests.as_ptr().add(n - 8)));
    let new = !low_bits(8 - n % 8);
    _mm512_maskz_mov_epi64(new, keyed(s, inverted_positions(n - 8), low))
}

/// Most nodes [`top_keys_lists3`] takes; [`top_keys_narrow3`] takes more (up to 128 the two are
/// about as fast, at 33 to 64 nodes the 32-bit keys took 1.04-1.20x the time: Intel Xeon,
/// family 6 model 207, top-3, same process).
pub(super) const LISTS_MAX: usize = 128;

/// Each lane's list of its best `L` keys (see [`keyed`]) of at least eight nodes, highest
/// first, all in registers, as the blocks go by in pairs ([`insert_pair`]). Every node is keyed,
/// so no threshold is needed and nothing is packed into memory.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn lane_lists<const L: usize>(fk: __m512i, digests: &[u64], low: __m512i) -> [__m512i; L] {
    let n = digests.len();
    let p = digests.as_ptr();
    let mut inv = inverted_positions(0);
    let eight = _mm512_set1_epi64(8);
    let mut c = [_mm512_setzero_si512(); L];
    let blocks = n / 8;
    let mut lower = [_mm512_setzero_si512(); 2];
    for b in (0..blocks / 2).map(|b| 2 * b) {
        let x = keyed(scores8(fk, load(p.add(8 * b))), inv, low);
        let y = keyed(
            scores8(fk, load(p.add(8 * b + 8))),
            _mm512_sub_epi64(inv, eight),
            low,
        );
        insert_pair(&mut c, &mut lower, x, y);
        inv = _mm512_sub_epi64(inv, _mm512_add_epi64(eight, eight));
    }
    if blocks % 2 == 1 {
        insert(
            &mut c,
            keyed(scores8(fk, load(p.add(8 * blocks - 8))), inv, low),
        );
    }
    end_pairs(&mut c, lower, blocks >= 2);
    if !n.is_multiple_of(8) {
        insert(&mut c, tail_keys(fk, digests, low));
    }
    c
}

/// The four highest keys of at least eight nodes, highest first: the lanes' lists of four
/// ([`lane_lists`]) merged by [`top4`]. What [`top_keys_lists3`] falls back on where its lists
/// of three lose a fourth key.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn top_keys_lists(key_digest: u64, digests: &[u64], low: u64) -> [u64; 4] {
    debug_assert!(digests.len() >= 8);
    let low = _mm512_set1_epi64(low as i64);
    top4(lane_lists::<4>(folded(key_digest), digests, low))
}

/// [`super::Kernel::top_keyed`] of 8 to [`LISTS_MAX`] nodes: [`top_keys_lists`] with lists of
/// three keys per lane instead of four, four maxima and minima fewer per pair of blocks. The
/// lists hold the best `k + 1` keys that [`super::settle`] reads unless the best three came
/// through one lane, whose fourth is not kept; a top-3 then (about one key in 64 at 100 nodes)
/// takes the lists of four. Settled here, so that the keys stay in registers. Intel Xeon, family
/// 6 model 207, top-3, same process: against the lists of four, 0.83-0.85x the time at 33 and 48
/// nodes, 0.88-0.91x at 64, 0.89x at 100, 0.92-0.93x at 128 (with the keys returned to the
/// caller instead, 0.95-0.98x); against the sorting network of three or four blocks that 17 to
/// 32 nodes took, 0.88-0.89x; against the lists of four of one or two blocks, 0.94x at 9 and 12
/// nodes, 1.02x at 8 and 1.03-1.04x at 16.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn top_keys_lists3(
    key_digest: u64,
    digests: &[u64],
    low: u64,
    out: &mut [usize],
) -> bool {
    debug_assert!(digests.len() >= 8 && (2..=3).contains(&out.len()));
    let lowv = _mm512_set1_epi64(low as i64);
    let c = lane_lists::<3>(folded(key_digest), digests, lowv);
    let keys = top4([c[0], c[1], c[2], _mm512_setzero_si512()]);
    // The best three in one lane: that lane's third is the third.
    if out.len() == 3 && _mm512_cmpeq_epi64_mask(c[2], _mm512_set1_epi64(keys[2] as i64)) != 0 {
        return super::settle(top_keys_lists(key_digest, digests, low), low, out);
    }
    super::settle(keys, low, out)
}

/// The nodes [`top_keys_narrow3`] takes. With lists of four ([`top_keys_narrow`]), against the
/// 64-bit keys of the hits over a threshold, where these used to go (Intel Xeon, family 6 model
/// 207, top-3, same process): 0.87-0.91x the time at 129 to 256 nodes, 0.88-0.95x at 320 to 383;
/// against [`top_keys_buckets`] 0.84-0.98x at 448 to 640, 1.00-1.03x at 768, 1.10x at 1000.
/// With lists of three, against the buckets: 0.86x at 700, 0.94x at 768, 0.97x at 900,
/// 0.98-0.99x at 1000; 1.01-1.02x at 1200 and 1.04x at 1400, which keep the buckets.
pub(super) const NARROW: core::ops::RangeInclusive<usize> = LISTS_MAX + 1..=1024;

/// [`lane_lists`] with 32-bit keys, sixteen to a vector: the high half of a score with its bits
/// of `low` replaced by those of `!position`. Two blocks' scores make one vector of keys, so
/// each list's insertion serves sixteen nodes instead of eight; pairs of sixteen go as pairs of
/// blocks do. The keys order nodes by the score's high 32 bits less the position bits; where two
/// of the best four are equal there ([`super::settle`] then declines) the caller's exact path
/// ranks them.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn narrow_lists<const L: usize>(fk: __m512i, digests: &[u64], low: __m512i) -> [__m512i; L] {
    let n = digests.len();
    let p = digests.as_ptr();
    let high = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    // The keys of the sixteen nodes from `at`, whose `!position` is `inv`.
    // (A macro, not a closure, so that the code is compiled with AVX-512 enabled.)
    macro_rules! keys16 {
        ($at:expr, $inv:expr) => {{
            let at: usize = $at;
            let s = _mm512_permutex2var_epi32(
                scores8(fk, load(p.add(at))),
                high,
                scores8(fk, load(p.add(at + 8))),
            );
            _mm512_ternarylogic_epi32::<0xD8>(s, $inv, low)
        }};
    }
    let sixteen = _mm512_set1_epi32(16);
    // `!position` of the first sixteen nodes.
    let first = _mm512_setr_epi32(
        !0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11, !12, !13, !14, !15,
    );
    let mut inv = first;
    let mut c = [_mm512_setzero_si512(); L];
    let mut lower = [_mm512_setzero_si512(); 2];
    let pairs = n / 16;
    for q in 0..pairs / 2 {
        let x = keys16!(32 * q, inv);
        let y = keys16!(32 * q + 16, _mm512_sub_epi32(inv, sixteen));
        insert_pair32(&mut c, &mut lower, x, y);
        inv = _mm512_sub_epi32(inv, _mm512_add_epi32(sixteen, sixteen));
    }
    if pairs % 2 == 1 {
        insert32(&mut c, keys16!(16 * pairs - 16, inv));
    }
    end_pairs32(&mut c, lower, pairs >= 2);
    if !n.is_multiple_of(16) {
        // The last `n % 16` nodes, as the top lanes of the last sixteen.
        let at = n - 16;
        let inv = _mm512_sub_epi32(first, _mm512_set1_epi32(at as i32));
        let new = !((0xFFFFu32 >> (n % 16)) as __mmask16);
        insert32(&mut c, _mm512_maskz_mov_epi32(new, keys16!(at, inv)));
    }
    c
}

/// [`top_keys_lists`] with the 32-bit keys of [`narrow_lists`], returned widened to 64 bits
/// with the same `low`. What [`top_keys_narrow3`] falls back on.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn top_keys_narrow(key_digest: u64, digests: &[u64], low: u64) -> [u64; 4] {
    debug_assert!(digests.len() >= 16 && low <= u32::MAX as u64);
    let low = _mm512_set1_epi32(low as i32);
    top4_narrow(narrow_lists::<4>(folded(key_digest), digests, low))
}

/// [`super::Kernel::top_keyed`] of [`NARROW`]'s nodes: [`top_keys_lists3`] with the 32-bit keys
/// of [`narrow_lists`]; where the best three came through one lane, a top-3 takes
/// [`top_keys_narrow`]'s lists of four. Against those lists (Intel Xeon, same process): 0.92x
/// the time at 129 and 200 nodes, 0.90x at 300, 0.88-0.89x at 450 and 640.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn top_keys_narrow3(
    key_digest: u64,
    digests: &[u64],
    low: u64,
    out: &mut [usize],
) -> bool {
    debug_assert!(digests.len() >= 16 && low <= u32::MAX as u64 && (2..=3).contains(&out.len()));
    let lowv = _mm512_set1_epi32(low as i32);
    let c = narrow_lists::<3>(folded(key_digest), digests, lowv);
    let keys = top4_narrow([c[0], c[1], c[2], _mm512_setzero_si512()]);
    // The best three in one lane: that lane's third is the third (the keys widened unchanged).
    if out.len() == 3 && _mm512_cmpeq_epi32_mask(c[2], _mm512_set1_epi32(keys[2] as i32)) != 0 {
        return super::settle(top_keys_narrow(key_digest, digests, low), low, out);
    }
    super::settle(keys, low, out)
}

/// [`top4`] of sixteen lanes' lists of 32-bit keys, widened: lanes 8 to 15 meet lanes 0 to 7 as
/// [`top4`] merges lanes, then the eight lists are widened and merged.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn top4_narrow(c: [__m512i; 4]) -> [u64; 4] {
    let mut m = [_mm512_setzero_si512(); 4];
    for i in 0..4 {
        let partner = _mm512_shuffle_i64x2::<0b01_00_11_10>(c[3 - i], c[3 - i]);
        m[i] = _mm512_max_epu32(c[i], partner);
    }
    sort_bitonic32(&mut m);
    top4(m.map(|v| _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v))))
}

/// Most buckets' numbers (less one) that [`top_keys_buckets`] keys in 32 bits, as
/// [`top_keys_narrow`] keys nodes (up to 4,096 nodes). With more, the bits left of a bucket's
/// maximum would leave the best buckets' keys equal, and declined, too often: with 32-bit keys,
/// 2 lookups in 200,000 random ones declined at 1,000 nodes, 59 at 4,096 and 519 at 10,000.
const NARROW_BUCKETS_LOW: u64 = 511;

/// Most nodes [`top_keys_buckets`] takes: its gathers index the digests with 32-bit positions.
/// It takes the nodes past [`NARROW`]: below, [`top_keys_narrow3`] keys every node in less time.
pub(super) const BUCKETS_MAX: usize = i32::MAX as usize;

/// The best four keys of the nodes of the best buckets, for many nodes: each lane's maximum over
/// eight blocks is a bucket's score, and each lane keeps its four best buckets, keyed as nodes
/// are but by the bucket's number, as [`top_keys_lists`] keeps nodes (two maxima and minima per
/// block where the lists take seven, against one maximum in the owner's loop). The best `k`
/// nodes lie in the best `k` buckets: a node of any other bucket has `k` buckets' maxima, `k`
/// nodes, above it. The nodes of the best `k` buckets (`k` is 2 or 3) are then gathered,
/// scored, keyed and ranked with compare-exchanges, without a branch on any score. `None` when
/// those buckets are not settled by their keys (the k-th and the next equal outside the bits
/// that number them). Up to [`NARROW_BUCKETS_LOW`] the buckets are keyed in 32 bits, sixteen to
/// a vector, as [`top_keys_narrow`] keys nodes; the nodes are keyed in 64 bits.
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(super) unsafe fn top_keys_buckets(
    key_digest: u64,
    digests: &[u64],
    low: u64,
    k: usize,
) -> Option<[u64; 4]> {
    let n = digests.len();
    debug_assert!((64..=BUCKETS_MAX).contains(&n));
    let fk = folded(key_digest);
    let p = digests.as_ptr();
    let rounds = n / 64;
    // Whole blocks after the last whole bucket, and the nodes of the last part block.
    let (tail_blocks, part) = (n % 64 / 8, n % 8);
    let tail = !n.is_multiple_of(64);
    let buckets = 8 * (rounds + tail as usize);
    // Bucket `8 * round + lane` is keyed `bucket_low - number`.
    let bucket_low = (buckets as u64).next_power_of_two() - 1;
    // (A macro, not a closure, so that the code is compiled with AVX-512 enabled.)
    macro_rules! round_max {
        ($r:expr) => {{
            let at = $r * 64;
            let mut s = [_mm512_setzero_si512(); 8];
            for (j, s) in s.iter_mut().enumerate() {
                *s = scores8(fk, load(p.add(at + 8 * j)));
            }
            _mm512_max_epu64(
                _mm512_max_epu64(_mm512_max_epu64(s[0], s[1]), _mm512_max_epu64(s[2], s[3])),
                _mm512_max_epu64(_mm512_max_epu64(s[4], s[5]), _mm512_max_epu64(s[6], s[7])),
            )
        }};
    }
    // The last bucket's maxima: its whole blocks, and the last `part` nodes as the top lanes of
    // the last eight (see [`argmax_few`] on masked loads); and the lanes that hold a node.
    let new = !low_bits(8 - part);
    macro_rules! last {
        () => {{
            let at = rounds * 64;
            let mut m = _mm512_setzero_si512();
            for j in 0..tail_blocks {
                m = _mm512_max_epu64(m, scores8(fk, load(p.add(at + 8 * j))));
            }
            let mut lanes: __mmask8 = if tail_blocks > 0 { 0xFF } else { 0 };
            if part != 0 {
                m = _mm512_mask_max_epu64(m, new, m, scores8(fk, load(p.add(n - 8))));
                lanes |= new;
            }
            (m, lanes)
        }};
    }
    let best = if bucket_low <= NARROW_BUCKETS_LOW {
        // 32-bit keys, two rounds' maxima to a vector (as [`top_keys_narrow`] keys nodes).
        let high = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        let low32 = _mm512_set1_epi32(bucket_low as i32);
        let mut inv = _mm512_sub_epi32(
            low32,
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        );
        let sixteen = _mm512_set1_epi32(16);
        let mut c = [_mm512_setzero_si512(); 4];
        for q in 0..rounds / 2 {
            let m = _mm512_permutex2var_epi32(round_max!(2 * q), high, round_max!(2 * q + 1));
            insert32(&mut c, _mm512_ternarylogic_epi32::<0xD8>(m, inv, low32));
            inv = _mm512_sub_epi32(inv, sixteen);
        }
        // An odd last whole round and the last bucket share the last vector.
        let (first, second, lanes) = match (rounds % 2 == 1, tail) {
            (true, true) => {
                let (m, lanes) = last!();
                (round_max!(rounds - 1), m, 0xFF | (lanes as __mmask16) << 8)
            }
            (true, false) => (round_max!(rounds - 1), _mm512_setzero_si512(), 0xFF),
            (false, true) => {
                let (m, lanes) = last!();
                (m, _mm512_setzero_si512(), lanes as __mmask16)
            }
            (false, false) => (_mm512_setzero_si512(), _mm512_setzero_si512(), 0),
        };
        if lanes != 0 {
            let m = _mm512_permutex2var_epi32(first, high, second);
            let keys = _mm512_ternarylogic_epi32::<0xD8>(m, inv, low32);
            insert32(&mut c, _mm512_maskz_mov_epi32(lanes, keys));
        }
        top4_narrow(c)
    } else {
        let bucket_lowv = _mm512_set1_epi64(bucket_low as i64);
        let mut inv = _mm512_sub_epi64(bucket_lowv, _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        let eight = _mm512_set1_epi64(8);
        let mut c = [_mm512_setzero_si512(); 4];
        for r in 0..rounds {
            insert(&mut c, keyed(round_max!(r), inv, bucket_lowv));
            inv = _mm512_sub_epi64(inv, eight);
        }
        if tail {
            let (m, lanes) = last!();
            insert(
                &mut c,
                _mm512_maskz_mov_epi64(lanes, keyed(m, inv, bucket_lowv)),
            );
        }
        top4(c)
    };
    if best[k - 1] & !bucket_low == best[k] & !bucket_low {
        return None;
    }
    // The nodes of the best `k` buckets: lane `l` of the eight blocks of round `r`.
    let low_mask = _mm512_set1_epi64(low as i64);
    let steps = _mm256_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56);
    // (A loop, not a closure, so that the code is compiled with AVX-512 enabled.)
    let mut keys = [_mm512_setzero_si512(); 3];
    for (slot, &bucket) in keys.iter_mut().zip(&best[..k]) {
        let number = (bucket_low - (bucket & bucket_low)) as usize;
        let (r, l) = (number / 8, number % 8);
        let mut at = _mm256_add_epi32(steps, _mm256_set1_epi32((64 * r + l) as i32));
        let mut valid: __mmask8 = 0xFF;
        if r == rounds {
            valid = low_bits(tail_blocks);
            if part != 0 && new & (1 << l) != 0 {
                let last = _mm256_set1_epi32((n - 8 + l) as i32);
                at = _mm256_mask_mov_epi32(at, 1 << tail_blocks, last);
                valid |= 1 << tail_blocks;
            }
        }
        let d = _mm512_mask_i32gather_epi64::<8>(_mm512_setzero_si512(), valid, at, p as *const _);
        let at = _mm512_cvtepu32_epi64(at);
        let k = keyed(scores8(fk, d), _mm512_sub_epi64(low_mask, at), low_mask);
        *slot = _mm512_maskz_mov_epi64(valid, k);
    }
    let (hi, lo) = (
        _mm512_max_epu64(keys[0], keys[1]),
        _mm512_min_epu64(keys[0], keys[1]),
    );
    let (mid, last) = (_mm512_max_epu64(lo, keys[2]), _mm512_min_epu64(lo, keys[2]));
    let (first, second) = (_mm512_max_epu64(hi, mid), _mm512_min_epu64(hi, mid));
    let zero = _mm512_setzero_si512();
    Some(top4([first, second, last, zero]))
}

/// The four highest of the values of `lists` (each lane a list sorted highest first), highest
/// first. Each lane's list meets its partner's, lanes 4, 2 and 1 apart: the larger of the
/// i-th and the partner's (3 - i)-th are the best four of both, in a bitonic order that two
/// rounds of compare-exchanges sort. Both partners end with the same list, so after three
/// rounds every lane holds the best four of all.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn top4(lists: [__m512i; 4]) -> [u64; 4] {
    let mut c = lists;
    macro_rules! merge {
        ($partner:ident $(::<$imm:literal>)?) => {{
            let q = [
                $partner$(::<$imm>)?(c[0], c[0]),
                $partner$(::<$imm>)?(c[1], c[1]),
                $partner$(::<$imm>)?(c[2], c[2]),
                $partner$(::<$imm>)?(c[3], c[3]),
            ];
            let mut m = [
                _mm512_max_epu64(c[0], q[3]),
                _mm512_max_epu64(c[1], q[2]),
                _mm512_max_epu64(c[2], q[1]),
                _mm512_max_epu64(c[3], q[0]),
            ];
            sort_bitonic(&mut m);
            c = m;
        }};
    }
    merge!(_mm512_shuffle_i64x2::<0b01_00_11_10>);
    merge!(swap_pairs);
    merge!(swap_neighbours);
    let mut out = [0u64; 4];
    for (o, v) in out.iter_mut().zip(c) {
        *o = _mm_cvtsi128_si64(_mm512_castsi512_si128(v)) as u64;
    }
    out
}

/// Lanes 2 apart swapped (the second operand is ignored: the shape of [`top4`]'s merge).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn swap_pairs(v: __m512i, _: __m512i) -> __m512i {
    _mm512_permutex_epi64::<0b01_00_11_10>(v)
}

/// Neighbouring lanes swapped (the second operand is ignored).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn swap_neighbours(v: __m512i, _: __m512i) -> __m512i {
    _mm512_shuffle_epi32::<0b01_00_11_10>(v)
}
