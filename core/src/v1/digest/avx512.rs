//! Eight key digests per AVX-512 register, two registers at a time: lane `i` runs SipHash-1-3
//! of key `i`. Keys of different lengths need different numbers of words; every lane runs until
//! the longest is done, and a lane past its own last word keeps its state (a masked blend) until
//! the shared finalization. Words are gathered straight from the keys, a masked gather per word.

// Compiled only under `cfg(hrwhash_avx512)`, which build.rs sets for Rust 1.89 and later, where
// these intrinsics are stable; the crate's minimum version builds without this module.
#![allow(clippy::incompatible_msrv)]

use core::arch::x86_64::*;

use super::{State, Words, EY, FRAME};

pub(super) fn supported() -> bool {
    #[cfg(feature = "std")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "avx512f")
    }
}

macro_rules! round {
    ($v0:expr, $v1:expr, $v2:expr, $v3:expr) => {
        $v0 = _mm512_add_epi64($v0, $v1);
        $v1 = _mm512_rol_epi64::<13>($v1);
        $v1 = _mm512_xor_si512($v1, $v0);
        $v0 = _mm512_rol_epi64::<32>($v0);
        $v2 = _mm512_add_epi64($v2, $v3);
        $v3 = _mm512_rol_epi64::<16>($v3);
        $v3 = _mm512_xor_si512($v3, $v2);
        $v0 = _mm512_add_epi64($v0, $v3);
        $v3 = _mm512_rol_epi64::<21>($v3);
        $v3 = _mm512_xor_si512($v3, $v0);
        $v2 = _mm512_add_epi64($v2, $v1);
        $v1 = _mm512_rol_epi64::<17>($v1);
        $v1 = _mm512_xor_si512($v1, $v2);
        $v2 = _mm512_rol_epi64::<32>($v2);
    };
}

/// The key digests of sixteen keys: two registers of eight, whose rounds interleave, so that
/// one register's chain of dependent steps runs while the other's waits (one register at a time
/// took about 8.5 ns per key on AMD Zen 4, its rounds' latency more than their work).
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn digests(prefix: &State, keys: &[&[u8]; 16]) -> [u64; 16] {
    let load = |w: &[u64; 8]| _mm512_loadu_si512(w.as_ptr().cast());
    let splat = |x: u64| _mm512_set1_epi64(x as i64);
    // The words are gathered from the keys' own bytes: lane `i` reads at `base + at[i]`, the
    // address of key `i`. Only lanes whose word lies wholly inside their key are read.
    let base: *const i64 = keys[0].as_ptr().cast();
    let zero = _mm512_setzero_si512();
    let mut at = [zero; 2];
    let mut len = [zero; 2];
    let mut blocks = [zero; 2];
    let mut first = [zero; 2];
    let mut last = [zero; 2];
    for g in 0..2 {
        let keys = &keys[8 * g..8 * g + 8];
        at[g] = load(&core::array::from_fn(|i| {
            (keys[i].as_ptr() as u64).wrapping_sub(base as u64)
        }));
        len[g] = load(&core::array::from_fn(|i| keys[i].len() as u64));
        let total = _mm512_add_epi64(len[g], splat(FRAME));
        blocks[g] = _mm512_srli_epi64::<3>(total);
        let long = _mm512_cmpge_epu64_mask(len[g], splat(8));
        // Keys of 8 bytes or more: `len[6..8] || key[0..6]`, and the last `(len + 2) mod 8`
        // bytes (a variable shift by 64 gives zero) with the length byte.
        let head = _mm512_mask_i64gather_epi64::<1>(zero, long, at[g], base);
        first[g] = _mm512_or_si512(
            _mm512_srli_epi64::<48>(len[g]),
            _mm512_slli_epi64::<16>(head),
        );
        let end = _mm512_mask_i64gather_epi64::<1>(
            zero,
            long,
            _mm512_add_epi64(at[g], _mm512_sub_epi64(len[g], splat(8))),
            base,
        );
        let r = _mm512_and_si512(_mm512_add_epi64(len[g], splat(2)), splat(7));
        let shift = _mm512_sub_epi64(splat(64), _mm512_slli_epi64::<3>(r));
        last[g] = _mm512_or_si512(
            _mm512_srlv_epi64(end, shift),
            _mm512_slli_epi64::<56>(total),
        );
        let short = !long;
        if short != 0 {
            let words: [Words; 8] = core::array::from_fn(|i| Words::of(keys[i]));
            first[g] = _mm512_mask_blend_epi64(short, first[g], load(&words.map(|w| w.first)));
            last[g] = _mm512_mask_blend_epi64(short, last[g], load(&words.map(|w| w.last)));
        }
    }
    let mut v0 = [splat(prefix[0]); 2];
    let mut v1 = [splat(prefix[1]); 2];
    let mut v2 = [splat(prefix[2]); 2];
    let mut v3 = [splat(prefix[3]); 2];
    // Every key has at least two words after the prefix: no lane is done before them.
    let lengths = len.map(|len| _mm512_or_si512(splat(EY), _mm512_slli_epi64::<16>(len)));
    for m in [lengths, first] {
        for g in 0..2 {
            v3[g] = _mm512_xor_si512(v3[g], m[g]);
        }
        for g in 0..2 {
            round!(v0[g], v1[g], v2[g], v3[g]);
        }
        for g in 0..2 {
            v0[g] = _mm512_xor_si512(v0[g], m[g]);
        }
    }
    let most = _mm512_reduce_max_epu64(_mm512_max_epu64(blocks[0], blocks[1]));
    // Word `b` (from 2) is the key's bytes at `8 * b - 10` while `b + 1 < blocks`, then `last`.
    let mut offset = at.map(|at| _mm512_add_epi64(at, splat(6)));
    for b in 2..most {
        let mut m = [zero; 2];
        let mut live = [0; 2];
        let mut n = [(zero, zero, zero, zero); 2];
        for g in 0..2 {
            live[g] = _mm512_cmpgt_epu64_mask(blocks[g], splat(b));
            let whole = _mm512_cmpgt_epu64_mask(blocks[g], splat(b + 1));
            m[g] = _mm512_mask_i64gather_epi64::<1>(last[g], whole, offset[g], base);
            offset[g] = _mm512_add_epi64(offset[g], splat(8));
            n[g] = (v0[g], v1[g], v2[g], _mm512_xor_si512(v3[g], m[g]));
        }
        for (n0, n1, n2, n3) in &mut n {
            round!(*n0, *n1, *n2, *n3);
        }
        for g in 0..2 {
            let (n0, n1, n2, n3) = n[g];
            v0[g] = _mm512_mask_blend_epi64(live[g], v0[g], _mm512_xor_si512(n0, m[g]));
            v1[g] = _mm512_mask_blend_epi64(live[g], v1[g], n1);
            v2[g] = _mm512_mask_blend_epi64(live[g], v2[g], n2);
            v3[g] = _mm512_mask_blend_epi64(live[g], v3[g], n3);
        }
    }
    for v2 in &mut v2 {
        *v2 = _mm512_xor_si512(*v2, splat(0xff));
    }
    for _ in 0..3 {
        for g in 0..2 {
            round!(v0[g], v1[g], v2[g], v3[g]);
        }
    }
    let mut out = [0u64; 16];
    for g in 0..2 {
        let x = _mm512_xor_si512(
            _mm512_xor_si512(v0[g], v1[g]),
            _mm512_xor_si512(v2[g], v3[g]),
        );
        _mm512_storeu_si512(out[8 * g..].as_mut_ptr().cast(), x);
    }
    out
}
