//! Eight key digests per AVX-512 register: lane `i` runs SipHash-1-3 of key `i`. Keys of
//! different lengths need different numbers of words; every lane runs until the longest is done,
//! and a lane past its own last word keeps its state (a masked blend) until the shared
//! finalization.

use core::arch::x86_64::*;

use super::{word_at, State, Words, EY};

/// Words prepared ahead of the rounds that use them, so that their stores are done before the
/// vector loads read them.
const WINDOW: usize = 8;

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

/// The key digests of eight keys, each with its [`Words`].
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn digests(prefix: &State, keys: &[(&[u8], Words); 8]) -> [u64; 8] {
    let load = |w: &[u64; 8]| _mm512_loadu_si512(w.as_ptr().cast());
    let mut v0 = _mm512_set1_epi64(prefix[0] as i64);
    let mut v1 = _mm512_set1_epi64(prefix[1] as i64);
    let mut v2 = _mm512_set1_epi64(prefix[2] as i64);
    let mut v3 = _mm512_set1_epi64(prefix[3] as i64);
    let blocks: [u64; 8] = core::array::from_fn(|i| keys[i].1.blocks);
    let most = blocks.iter().copied().max().unwrap_or(0) as usize;
    let blocks = load(&blocks);
    // Every key has at least two words after the prefix: no lane is done before them.
    let lengths: [u64; 8] = core::array::from_fn(|i| EY | (keys[i].0.len() as u64) << 16);
    let firsts: [u64; 8] = core::array::from_fn(|i| keys[i].1.first);
    for m in [load(&lengths), load(&firsts)] {
        v3 = _mm512_xor_si512(v3, m);
        round!(v0, v1, v2, v3);
        v0 = _mm512_xor_si512(v0, m);
    }
    let mut b = 2;
    while b < most {
        let end = (b + WINDOW).min(most);
        let mut rows = [[0u64; 8]; WINDOW];
        for (r, row) in rows[..end - b].iter_mut().enumerate() {
            for (lane, (key, words)) in keys.iter().enumerate() {
                row[lane] = word_at(key, words, b + r);
            }
        }
        for (r, row) in rows[..end - b].iter().enumerate() {
            let m = load(row);
            let live = _mm512_cmpgt_epu64_mask(blocks, _mm512_set1_epi64((b + r) as i64));
            let (mut n0, mut n1, mut n2, mut n3) = (v0, v1, v2, _mm512_xor_si512(v3, m));
            round!(n0, n1, n2, n3);
            v0 = _mm512_mask_blend_epi64(live, v0, _mm512_xor_si512(n0, m));
            v1 = _mm512_mask_blend_epi64(live, v1, n1);
            v2 = _mm512_mask_blend_epi64(live, v2, n2);
            v3 = _mm512_mask_blend_epi64(live, v3, n3);
        }
        b = end;
    }
    v2 = _mm512_xor_si512(v2, _mm512_set1_epi64(0xff));
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    round!(v0, v1, v2, v3);
    let x = _mm512_xor_si512(_mm512_xor_si512(v0, v1), _mm512_xor_si512(v2, v3));
    let mut out = [0u64; 8];
    _mm512_storeu_si512(out.as_mut_ptr().cast(), x);
    out
}
