//! Four key digests per AVX2 register, two registers at a time, for CPUs without AVX-512: the
//! same lane layout as the AVX-512 digest (lane `i` runs SipHash-1-3 of key `i`, a lane past its
//! own last word keeps its state until the shared finalization, words gathered straight from the
//! keys), with what AVX2 lacks built from what it has: rotates from two shifts and an or (by 16
//! and 32, one byte or dword shuffle), blends from byte blends on all-ones lane masks, and signed
//! compares where the AVX-512 digest compares unsigned (every length and word count here is far
//! below 2^63).

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
    ($v0:expr, $v1:expr, $v2:expr, $v3:expr) => {
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

/// The key digests of eight keys: two registers of four, whose rounds interleave (see the
/// AVX-512 digest).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn digests(prefix: &State, keys: &[&[u8]; 8]) -> [u64; 8] {
    let load = |w: &[u64; 4]| _mm256_loadu_si256(w.as_ptr().cast());
    let splat = |x: u64| _mm256_set1_epi64x(x as i64);
    // As in the AVX-512 digest: lane `i` reads at `base + at[i]`, the address of key `i`, and
    // only lanes whose word lies wholly inside their key are read (masked-off lanes of a gather
    // touch no memory).
    let base: *const i64 = keys[0].as_ptr().cast();
    let zero = _mm256_setzero_si256();
    let mut at = [zero; 2];
    let mut len = [zero; 2];
    let mut blocks = [zero; 2];
    let mut first = [zero; 2];
    let mut last = [zero; 2];
    let mut most = 0;
    for g in 0..2 {
        let keys = &keys[4 * g..4 * g + 4];
        at[g] = load(&core::array::from_fn(|i| {
            (keys[i].as_ptr() as u64).wrapping_sub(base as u64)
        }));
        let lens: [u64; 4] = core::array::from_fn(|i| keys[i].len() as u64);
        len[g] = load(&lens);
        most = lens.iter().map(|&l| (l + FRAME) >> 3).fold(most, u64::max);
        let total = _mm256_add_epi64(len[g], splat(FRAME));
        blocks[g] = _mm256_srli_epi64::<3>(total);
        let long = _mm256_cmpgt_epi64(len[g], splat(7));
        let head = _mm256_mask_i64gather_epi64::<1>(zero, base, at[g], long);
        first[g] = _mm256_or_si256(
            _mm256_srli_epi64::<48>(len[g]),
            _mm256_slli_epi64::<16>(head),
        );
        let end = _mm256_mask_i64gather_epi64::<1>(
            zero,
            base,
            _mm256_add_epi64(at[g], _mm256_sub_epi64(len[g], splat(8))),
            long,
        );
        let r = _mm256_and_si256(_mm256_add_epi64(len[g], splat(2)), splat(7));
        // A variable shift by 64 gives zero, as the AVX-512 one does.
        let shift = _mm256_sub_epi64(splat(64), _mm256_slli_epi64::<3>(r));
        last[g] = _mm256_or_si256(
            _mm256_srlv_epi64(end, shift),
            _mm256_slli_epi64::<56>(total),
        );
        if lens.iter().any(|&l| l < 8) {
            let words: [Words; 4] = core::array::from_fn(|i| Words::of(keys[i]));
            // `blendv` takes its second operand where the mask is set: the short keys' words.
            first[g] = _mm256_blendv_epi8(load(&words.map(|w| w.first)), first[g], long);
            last[g] = _mm256_blendv_epi8(load(&words.map(|w| w.last)), last[g], long);
        }
    }
    let mut v0 = [splat(prefix[0]); 2];
    let mut v1 = [splat(prefix[1]); 2];
    let mut v2 = [splat(prefix[2]); 2];
    let mut v3 = [splat(prefix[3]); 2];
    let lengths = len.map(|len| _mm256_or_si256(splat(EY), _mm256_slli_epi64::<16>(len)));
    for m in [lengths, first] {
        for g in 0..2 {
            v3[g] = _mm256_xor_si256(v3[g], m[g]);
        }
        for g in 0..2 {
            round!(v0[g], v1[g], v2[g], v3[g]);
        }
        for g in 0..2 {
            v0[g] = _mm256_xor_si256(v0[g], m[g]);
        }
    }
    let mut offset = at.map(|at| _mm256_add_epi64(at, splat(6)));
    for b in 2..most {
        let mut m = [zero; 2];
        let mut live = [zero; 2];
        let mut n = [(zero, zero, zero, zero); 2];
        for g in 0..2 {
            live[g] = _mm256_cmpgt_epi64(blocks[g], splat(b));
            let whole = _mm256_cmpgt_epi64(blocks[g], splat(b + 1));
            m[g] = _mm256_mask_i64gather_epi64::<1>(last[g], base, offset[g], whole);
            offset[g] = _mm256_add_epi64(offset[g], splat(8));
            n[g] = (v0[g], v1[g], v2[g], _mm256_xor_si256(v3[g], m[g]));
        }
        for (n0, n1, n2, n3) in &mut n {
            round!(*n0, *n1, *n2, *n3);
        }
        for g in 0..2 {
            let (n0, n1, n2, n3) = n[g];
            v0[g] = _mm256_blendv_epi8(v0[g], _mm256_xor_si256(n0, m[g]), live[g]);
            v1[g] = _mm256_blendv_epi8(v1[g], n1, live[g]);
            v2[g] = _mm256_blendv_epi8(v2[g], n2, live[g]);
            v3[g] = _mm256_blendv_epi8(v3[g], n3, live[g]);
        }
    }
    for v2 in &mut v2 {
        *v2 = _mm256_xor_si256(*v2, splat(0xff));
    }
    for _ in 0..3 {
        for g in 0..2 {
            round!(v0[g], v1[g], v2[g], v3[g]);
        }
    }
    let mut out = [0u64; 8];
    for g in 0..2 {
        let x = _mm256_xor_si256(
            _mm256_xor_si256(v0[g], v1[g]),
            _mm256_xor_si256(v2[g], v3[g]),
        );
        _mm256_storeu_si256(out[4 * g..].as_mut_ptr().cast(), x);
    }
    out
}
