//! Eight key digests per AVX-512 register: lane `i` runs SipHash-1-3 of key `i`. Keys of
//! different lengths need different numbers of words; every lane runs until the longest is done,
//! and a lane past its own last word keeps its state (a masked blend) until the shared
//! finalization. Words are gathered straight from the keys, a masked gather per word.

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
    ($v0:ident, $v1:ident, $v2:ident, $v3:ident) => {
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

/// The key digests of eight keys.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn digests(prefix: &State, keys: &[&[u8]; 8]) -> [u64; 8] {
    let load = |w: &[u64; 8]| _mm512_loadu_si512(w.as_ptr().cast());
    let splat = |x: u64| _mm512_set1_epi64(x as i64);
    // The words are gathered from the keys' own bytes: lane `i` reads at `base + at[i]`, the
    // address of key `i`. Only lanes whose word lies wholly inside their key are read.
    let base: *const i64 = keys[0].as_ptr().cast();
    let at: [u64; 8] =
        core::array::from_fn(|i| (keys[i].as_ptr() as u64).wrapping_sub(base as u64));
    let at = load(&at);
    let len = load(&core::array::from_fn(|i| keys[i].len() as u64));
    let total = _mm512_add_epi64(len, splat(FRAME));
    let blocks = _mm512_srli_epi64::<3>(total);
    let long = _mm512_cmpge_epu64_mask(len, splat(8));
    let zero = _mm512_setzero_si512();
    // Keys of 8 bytes or more: `len[6..8] || key[0..6]`, and the last `(len + 2) mod 8` bytes
    // (a variable shift by 64 gives zero) with the length byte.
    let head = _mm512_mask_i64gather_epi64::<1>(zero, long, at, base);
    let mut first = _mm512_or_si512(_mm512_srli_epi64::<48>(len), _mm512_slli_epi64::<16>(head));
    let end = _mm512_mask_i64gather_epi64::<1>(
        zero,
        long,
        _mm512_add_epi64(at, _mm512_sub_epi64(len, splat(8))),
        base,
    );
    let r = _mm512_and_si512(_mm512_add_epi64(len, splat(2)), splat(7));
    let shift = _mm512_sub_epi64(splat(64), _mm512_slli_epi64::<3>(r));
    let mut last = _mm512_or_si512(
        _mm512_srlv_epi64(end, shift),
        _mm512_slli_epi64::<56>(total),
    );
    let short = !long;
    if short != 0 {
        let words: [Words; 8] = core::array::from_fn(|i| Words::of(keys[i]));
        first = _mm512_mask_blend_epi64(short, first, load(&words.map(|w| w.first)));
        last = _mm512_mask_blend_epi64(short, last, load(&words.map(|w| w.last)));
    }
    let mut v0 = splat(prefix[0]);
    let mut v1 = splat(prefix[1]);
    let mut v2 = splat(prefix[2]);
    let mut v3 = splat(prefix[3]);
    // Every key has at least two words after the prefix: no lane is done before them.
    let lengths = _mm512_or_si512(splat(EY), _mm512_slli_epi64::<16>(len));
    for m in [lengths, first] {
        v3 = _mm512_xor_si512(v3, m);
        round!(v0, v1, v2, v3);
        v0 = _mm512_xor_si512(v0, m);
    }
    let most = _mm512_reduce_max_epu64(blocks);
    // Word `b` (from 2) is the key's bytes at `8 * b - 10` while `b + 1 < blocks`, then `last`.
    let mut offset = _mm512_add_epi64(at, splat(6));
    for b in 2..most {
        let live = _mm512_cmpgt_epu64_mask(blocks, splat(b));
        let whole = _mm512_cmpgt_epu64_mask(blocks, splat(b + 1));
        let m = _mm512_mask_i64gather_epi64::<1>(last, whole, offset, base);
        offset = _mm512_add_epi64(offset, splat(8));
        let (mut n0, mut n1, mut n2, mut n3) = (v0, v1, v2, _mm512_xor_si512(v3, m));
        round!(n0, n1, n2, n3);
        v0 = _mm512_mask_blend_epi64(live, v0, _mm512_xor_si512(n0, m));
        v1 = _mm512_mask_blend_epi64(live, v1, n1);
        v2 = _mm512_mask_blend_epi64(live, v2, n2);
        v3 = _mm512_mask_blend_epi64(live, v3, n3);
    }
    v2 = _mm512_xor_si512(v2, splat(0xff));
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    let x = _mm512_xor_si512(_mm512_xor_si512(v0, v1), _mm512_xor_si512(v2, v3));
    let mut out = [0u64; 8];
    _mm512_storeu_si512(out.as_mut_ptr().cast(), x);
    out
}
