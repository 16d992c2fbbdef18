//! Four key digests per AVX2 register, for CPUs without AVX-512: the same lane layout as the
//! AVX-512 digest (lane `i` runs SipHash-1-3 of key `i`, a lane past its own last word keeps its
//! state until the shared finalization, words gathered straight from the keys), with what AVX2
//! lacks built from what it has: rotates from two shifts and an or (by 16 and 32, one byte or
//! dword shuffle), blends from byte blends on all-ones lane masks, and signed compares where the
//! AVX-512 digest compares unsigned (every length and word count here is far below 2^63).

use core::arch::x86_64::*;

use super::{State, Words, EY, FRAME};

pub(super) fn supported() -> bool {
    #[cfg(feature = "std")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "avx2")
    }
}

#[inline(always)]
unsafe fn rol<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
}

/// Each 64-bit lane rotated left by 16 bits: a byte shuffle (one instruction, not three).
#[inline(always)]
unsafe fn rol16(x: __m256i) -> __m256i {
    let bytes = _mm256_setr_epi8(
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, 6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9,
        10, 11, 12, 13,
    );
    _mm256_shuffle_epi8(x, bytes)
}

/// Each 64-bit lane with its halves swapped: the rotate by 32.
#[inline(always)]
unsafe fn rol32(x: __m256i) -> __m256i {
    _mm256_shuffle_epi32::<0b10_11_00_01>(x)
}

macro_rules! round {
    ($v0:ident, $v1:ident, $v2:ident, $v3:ident) => {
        $v0 = _mm256_add_epi64($v0, $v1);
        $v1 = rol::<13, 51>($v1);
        $v1 = _mm256_xor_si256($v1, $v0);
        $v0 = rol32($v0);
        $v2 = _mm256_add_epi64($v2, $v3);
        $v3 = rol16($v3);
        $v3 = _mm256_xor_si256($v3, $v2);
        $v0 = _mm256_add_epi64($v0, $v3);
        $v3 = rol::<21, 43>($v3);
        $v3 = _mm256_xor_si256($v3, $v0);
        $v2 = _mm256_add_epi64($v2, $v1);
        $v1 = rol::<17, 47>($v1);
        $v1 = _mm256_xor_si256($v1, $v2);
        $v2 = rol32($v2);
    };
}

/// The key digests of four keys.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn digests(prefix: &State, keys: &[&[u8]; 4]) -> [u64; 4] {
    let load = |w: &[u64; 4]| _mm256_loadu_si256(w.as_ptr().cast());
    let splat = |x: u64| _mm256_set1_epi64x(x as i64);
    // As in the AVX-512 digest: lane `i` reads at `base + at[i]`, the address of key `i`, and
    // only lanes whose word lies wholly inside their key are read (masked-off lanes of a gather
    // touch no memory).
    let base: *const i64 = keys[0].as_ptr().cast();
    let at: [u64; 4] =
        core::array::from_fn(|i| (keys[i].as_ptr() as u64).wrapping_sub(base as u64));
    let at = load(&at);
    let lens: [u64; 4] = core::array::from_fn(|i| keys[i].len() as u64);
    let len = load(&lens);
    let total = _mm256_add_epi64(len, splat(FRAME));
    let blocks = _mm256_srli_epi64::<3>(total);
    let long = _mm256_cmpgt_epi64(len, splat(7));
    let zero = _mm256_setzero_si256();
    let head = _mm256_mask_i64gather_epi64::<1>(zero, base, at, long);
    let mut first = _mm256_or_si256(_mm256_srli_epi64::<48>(len), _mm256_slli_epi64::<16>(head));
    let end = _mm256_mask_i64gather_epi64::<1>(
        zero,
        base,
        _mm256_add_epi64(at, _mm256_sub_epi64(len, splat(8))),
        long,
    );
    let r = _mm256_and_si256(_mm256_add_epi64(len, splat(2)), splat(7));
    // A variable shift by 64 gives zero, as the AVX-512 one does.
    let shift = _mm256_sub_epi64(splat(64), _mm256_slli_epi64::<3>(r));
    let mut last = _mm256_or_si256(
        _mm256_srlv_epi64(end, shift),
        _mm256_slli_epi64::<56>(total),
    );
    if lens.iter().any(|&l| l < 8) {
        let words: [Words; 4] = core::array::from_fn(|i| Words::of(keys[i]));
        // `blendv` takes its second operand where the mask is set: the short keys' words.
        first = _mm256_blendv_epi8(load(&words.map(|w| w.first)), first, long);
        last = _mm256_blendv_epi8(load(&words.map(|w| w.last)), last, long);
    }
    let mut v0 = splat(prefix[0]);
    let mut v1 = splat(prefix[1]);
    let mut v2 = splat(prefix[2]);
    let mut v3 = splat(prefix[3]);
    let lengths = _mm256_or_si256(splat(EY), _mm256_slli_epi64::<16>(len));
    for m in [lengths, first] {
        v3 = _mm256_xor_si256(v3, m);
        round!(v0, v1, v2, v3);
        v0 = _mm256_xor_si256(v0, m);
    }
    let most = lens.iter().map(|&l| (l + FRAME) >> 3).max().unwrap_or(0);
    let mut offset = _mm256_add_epi64(at, splat(6));
    for b in 2..most {
        let live = _mm256_cmpgt_epi64(blocks, splat(b));
        let whole = _mm256_cmpgt_epi64(blocks, splat(b + 1));
        let m = _mm256_mask_i64gather_epi64::<1>(last, base, offset, whole);
        offset = _mm256_add_epi64(offset, splat(8));
        let (mut n0, mut n1, mut n2, mut n3) = (v0, v1, v2, _mm256_xor_si256(v3, m));
        round!(n0, n1, n2, n3);
        v0 = _mm256_blendv_epi8(v0, _mm256_xor_si256(n0, m), live);
        v1 = _mm256_blendv_epi8(v1, n1, live);
        v2 = _mm256_blendv_epi8(v2, n2, live);
        v3 = _mm256_blendv_epi8(v3, n3, live);
    }
    v2 = _mm256_xor_si256(v2, splat(0xff));
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    let x = _mm256_xor_si256(_mm256_xor_si256(v0, v1), _mm256_xor_si256(v2, v3));
    let mut out = [0u64; 4];
    _mm256_storeu_si256(out.as_mut_ptr().cast(), x);
    out
}
