//! The study behind hrw-v1's per-node mixing step (SPEC.md section 3): statistical quality and
//! AVX2 speed of candidate steps over `x = key_digest xor node_digest`.
//!
//!   cargo run --release -p hrwhash-bench --example mixer_study -- q    # quality (about 1 minute)
//!   cargo run --release -p hrwhash-bench --example mixer_study -- bl   # AVX2 owner loop, ns per node
//!   cargo run --release -p hrwhash-bench --example mixer_study         # AVX2 loop with a branch per record
//!
//! Candidates: `a32` = (x ^ x>>32) * 32-bit constant, then ^ >>32; `xm64` (chosen) = (x ^ x>>32) * 64-bit
//! constant; `a64` = xm64 then ^ >>32; `2mul` = two multiplies (murmur-style finalizer).
//! Quality columns are chi-square p-values on 10^6 keys for three seeds: owner uniformity at
//! N = 5, 100, 1000; ordered top-2 pairs at N = 16; 8 nodes whose digests differ only in their top
//! (hibits) or bottom (lobits) bits. A p-value below 0.001 is a failure.
#![allow(clippy::all)]
#![cfg(target_arch = "x86_64")]
use hrwhash::v1::{key_digest, node_digest, Seed};
use std::arch::x86_64::*;

const C32: u64 = 0x9E3779B1; // odd 32-bit
const C64: u64 = 0xD6E8FEB86659FD93;
const C64B: u64 = 0x9FB21C651E98DF25;

#[inline(always)]
fn mix_a32(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(C32);
    x ^ (x >> 32)
}
#[inline(always)]
fn mix_a64(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(C64);
    x ^ (x >> 32)
}
#[inline(always)]
fn mix_b(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(C64);
    x ^= x >> 29;
    x = x.wrapping_mul(C64B);
    x ^ (x >> 32)
}
#[inline(always)]
fn mix_xm(mut x: u64) -> u64 {
    x ^= x >> 32;
    x.wrapping_mul(C64)
}

fn seed(n: u64) -> Seed {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&n.to_le_bytes());
    Seed::from_bytes(b)
}
fn sip(s: u64, b: &[u8]) -> u64 {
    if b.starts_with(b"node-") || b == b"base" {
        node_digest(&seed(s), b)
    } else {
        key_digest(&seed(s), b)
    }
}

// chi-square -> p via Wilson-Hilferty
fn chi_p(chi: f64, df: f64) -> f64 {
    let z = ((chi / df).powf(1.0 / 3.0) - (1.0 - 2.0 / (9.0 * df))) / (2.0 / (9.0 * df)).sqrt();
    0.5 * erfc(z / 2f64.sqrt())
}
fn erfc(x: f64) -> f64 {
    // Numerical Recipes erfcc
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851580 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}
fn chi(counts: &[u64]) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    let c: f64 = counts.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    (c, chi_p(c, (counts.len() - 1) as f64))
}

/// How many keys each node owns under `mix`.
fn owner_counts(keys: &[u64], nodes: &[u64], mix: fn(u64) -> u64) -> Vec<u64> {
    let mut counts = vec![0u64; nodes.len()];
    for &k in keys {
        let best = (0..nodes.len()).max_by_key(|&i| (mix(k ^ nodes[i]), core::cmp::Reverse(i)));
        counts[best.unwrap_or(0)] += 1;
    }
    counts
}

fn quality(name: &str, mix: fn(u64) -> u64) {
    print!("{name:5}");
    for seed in 1..=3u64 {
        let keys: Vec<u64> = (0..1_000_000u64)
            .map(|i| sip(seed, format!("key-{i}").as_bytes()))
            .collect();
        for &n in &[5usize, 100, 1000] {
            let nodes: Vec<u64> = (0..n)
                .map(|i| sip(seed, format!("node-{i}").as_bytes()))
                .collect();
            print!(" N{n}:p={:.3}", chi(&owner_counts(&keys, &nodes, mix)).1);
        }
        // ordered top-2 pairs, N=16
        let nodes: Vec<u64> = (0..16)
            .map(|i| sip(seed, format!("node-{i}").as_bytes()))
            .collect();
        let mut pairs = vec![0u64; 256];
        for &k in &keys {
            let mut s: Vec<(u64, usize)> = nodes
                .iter()
                .enumerate()
                .map(|(i, &h)| (mix(k ^ h), i))
                .collect();
            s.sort_unstable_by(|a, b| b.cmp(a));
            pairs[s[0].1 * 16 + s[1].1] += 1;
        }
        let nz: Vec<u64> = pairs
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i / 16 != i % 16)
            .map(|(_, c)| c)
            .collect();
        print!(" top2:p={:.3}", chi(&nz).1);
        // close-digest nodes: differ only in a few bits
        let base = sip(seed, b"base");
        let nodes: Vec<u64> = (0..8).map(|i| base ^ ((i as u64) << 61)).collect();
        print!(" hibits:p={:.3}", chi(&owner_counts(&keys, &nodes, mix)).1);
        let nodes: Vec<u64> = (0..8).map(|i| base ^ (i as u64)).collect();
        print!(
            " lobits:p={:.3} |",
            chi(&owner_counts(&keys, &nodes, mix)).1
        );
    }
    println!();
}

#[target_feature(enable = "avx2")]
unsafe fn mul64c(x: __m256i, clo: __m256i, chi: __m256i) -> __m256i {
    let hi = _mm256_srli_epi64(x, 32);
    let p0 = _mm256_mul_epu32(x, clo);
    let cross = _mm256_add_epi64(_mm256_mul_epu32(hi, clo), _mm256_mul_epu32(x, chi));
    _mm256_add_epi64(p0, _mm256_slli_epi64(cross, 32))
}

#[target_feature(enable = "avx2")]
unsafe fn owner_avx2<const V: u32>(key: u64, nodes: &[u64]) -> usize {
    let k = _mm256_set1_epi64x(key as i64);
    let flip = _mm256_set1_epi64x(i64::MIN);
    let clo = _mm256_set1_epi64x((C64 & 0xffff_ffff) as i64);
    let chi = _mm256_set1_epi64x((C64 >> 32) as i64);
    let c32 = _mm256_set1_epi64x(C32 as i64);
    let blo = _mm256_set1_epi64x((C64B & 0xffff_ffff) as i64);
    let bhi = _mm256_set1_epi64x((C64B >> 32) as i64);
    let mut best = i64::MIN;
    let mut bi = 0usize;
    let mut thr = _mm256_set1_epi64x(i64::MIN);
    let chunks = nodes.len() / 4;
    for c in 0..chunks {
        let h = _mm256_loadu_si256(nodes.as_ptr().add(c * 4) as *const __m256i);
        let mut x = _mm256_xor_si256(k, h);
        let t = _mm256_srli_epi64(x, 32);
        x = _mm256_xor_si256(x, t);
        match V {
            0 => {
                // a32: x*C32 = lo*C + (hi*C)<<32 ; hi == t
                let p0 = _mm256_mul_epu32(x, c32);
                let p1 = _mm256_slli_epi64(_mm256_mul_epu32(t, c32), 32);
                x = _mm256_add_epi64(p0, p1);
            }
            1 => {
                let p0 = _mm256_mul_epu32(x, clo);
                let cross = _mm256_add_epi64(_mm256_mul_epu32(t, clo), _mm256_mul_epu32(x, chi));
                x = _mm256_add_epi64(p0, _mm256_slli_epi64(cross, 32));
            }
            _ => {
                let p0 = _mm256_mul_epu32(x, clo);
                let cross = _mm256_add_epi64(_mm256_mul_epu32(t, clo), _mm256_mul_epu32(x, chi));
                x = _mm256_add_epi64(p0, _mm256_slli_epi64(cross, 32));
                x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 29));
                x = mul64c(x, blo, bhi);
            }
        }
        x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
        let s = _mm256_xor_si256(x, flip);
        let gt = _mm256_cmpgt_epi64(s, thr);
        let m = _mm256_movemask_pd(_mm256_castsi256_pd(gt));
        if m != 0 {
            let mut buf = [0i64; 4];
            _mm256_storeu_si256(buf.as_mut_ptr() as *mut __m256i, s);
            for l in 0..4 {
                if buf[l] > best {
                    best = buf[l];
                    bi = c * 4 + l;
                }
            }
            thr = _mm256_set1_epi64x(best);
        }
    }
    bi
}

#[target_feature(enable = "avx2")]
unsafe fn owner_bl<const FOLD: bool>(key: u64, nodes: &[u64]) -> usize {
    let k = _mm256_set1_epi64x(key as i64);
    let flip = _mm256_set1_epi64x(i64::MIN);
    let clo = _mm256_set1_epi64x((C64 & 0xffff_ffff) as i64);
    let chi = _mm256_set1_epi64x((C64 >> 32) as i64);
    let mut b0 = _mm256_set1_epi64x(i64::MIN);
    let mut i0 = _mm256_setzero_si256();
    let mut b1 = _mm256_set1_epi64x(i64::MIN);
    let mut i1 = _mm256_setzero_si256();
    let mut idx0 = _mm256_set_epi64x(3, 2, 1, 0);
    let mut idx1 = _mm256_set_epi64x(7, 6, 5, 4);
    let step = _mm256_set1_epi64x(8);
    let chunks = nodes.len() / 8;
    macro_rules! sc {
        ($off:expr) => {{
            let h = _mm256_loadu_si256(nodes.as_ptr().add($off) as *const __m256i);
            let mut x = _mm256_xor_si256(k, h);
            let t = _mm256_srli_epi64(x, 32);
            x = _mm256_xor_si256(x, t);
            let p0 = _mm256_mul_epu32(x, clo);
            let cross = _mm256_add_epi64(_mm256_mul_epu32(t, clo), _mm256_mul_epu32(x, chi));
            x = _mm256_add_epi64(p0, _mm256_slli_epi64(cross, 32));
            if FOLD {
                x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
            }
            _mm256_xor_si256(x, flip)
        }};
    }
    for c in 0..chunks {
        let s0 = sc!(c * 8);
        let s1 = sc!(c * 8 + 4);
        let g0 = _mm256_cmpgt_epi64(s0, b0);
        let g1 = _mm256_cmpgt_epi64(s1, b1);
        b0 = _mm256_blendv_epi8(b0, s0, g0);
        b1 = _mm256_blendv_epi8(b1, s1, g1);
        i0 = _mm256_blendv_epi8(i0, idx0, g0);
        i1 = _mm256_blendv_epi8(i1, idx1, g1);
        idx0 = _mm256_add_epi64(idx0, step);
        idx1 = _mm256_add_epi64(idx1, step);
    }
    let mut bs = [0i64; 8];
    let mut is = [0i64; 8];
    _mm256_storeu_si256(bs.as_mut_ptr() as *mut __m256i, b0);
    _mm256_storeu_si256(bs.as_mut_ptr().add(4) as *mut __m256i, b1);
    _mm256_storeu_si256(is.as_mut_ptr() as *mut __m256i, i0);
    _mm256_storeu_si256(is.as_mut_ptr().add(4) as *mut __m256i, i1);
    let mut best = i64::MIN;
    let mut bi = 0;
    for l in 0..8 {
        if bs[l] > best || (bs[l] == best && (is[l] as usize) < bi) {
            best = bs[l];
            bi = is[l] as usize;
        }
    }
    bi
}
fn main() {
    if std::env::args().nth(1).as_deref() == Some("bl") {
        for &n in &[96usize, 1000] {
            let nodes: Vec<u64> = (0..n)
                .map(|i| sip(1, format!("node-{i}").as_bytes()))
                .collect();
            let keys: Vec<u64> = (0..1024u64)
                .map(|i| sip(1, format!("key-{i}").as_bytes()))
                .collect();
            for fold in [true, false] {
                let f = if fold {
                    owner_bl::<true>
                } else {
                    owner_bl::<false>
                };
                let reps = 4_000_000 / n;
                let mut acc = 0;
                let t = std::time::Instant::now();
                for r in 0..reps {
                    acc += unsafe { f(keys[r & 1023], &nodes) };
                }
                let ns = t.elapsed().as_nanos() as f64 / reps as f64;
                let mixf = if fold { mix_a64 } else { mix_xm };
                let k = keys[5];
                let mut bs = 0;
                let mut bi = 0;
                for (i, &h) in nodes.iter().enumerate() {
                    let s = mixf(k ^ h);
                    if s > bs {
                        bs = s;
                        bi = i;
                    }
                }
                assert_eq!(bi, unsafe { f(k, &nodes) });
                println!(
                    "branchless N={n} fold={fold} {:.1} ns ({:.3}/node) {acc}",
                    ns,
                    ns / n as f64
                );
            }
        }
        return;
    }

    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("q") {
        quality("a32", mix_a32);
        quality("xm64", mix_xm);
        quality("2mul", mix_b);
        return;
    }
    // speed
    for &n in &[100usize, 1000] {
        let nodes: Vec<u64> = (0..n)
            .map(|i| sip(1, format!("node-{i}").as_bytes()))
            .collect();
        let keys: Vec<u64> = (0..1_000_00u64)
            .map(|i| sip(1, format!("key-{i}").as_bytes()))
            .collect();
        for v in 0..3u32 {
            let f = match v {
                0 => owner_avx2::<0>,
                1 => owner_avx2::<1>,
                _ => owner_avx2::<2>,
            };
            let mut acc = 0usize;
            let reps = 2_000_000 / n;
            let t = std::time::Instant::now();
            for r in 0..reps.max(1) {
                acc += unsafe { f(keys[r % keys.len()], &nodes) };
            }
            let ns = t.elapsed().as_nanos() as f64 / reps as f64;
            // scalar check
            let mixf = [mix_a32, mix_a64, mix_b][v as usize];
            let k = keys[5];
            let mut bs = 0;
            let mut bi = 0;
            for (i, &h) in nodes.iter().enumerate() {
                let s = mixf(k ^ h);
                if s > bs {
                    bs = s;
                    bi = i;
                }
            }
            assert_eq!(bi, unsafe { f(k, &nodes) });
            println!(
                "N={n} variant={} {:.1} ns/lookup ({:.3} ns/node) acc={acc}",
                ["a32", "a64", "b"][v as usize],
                ns,
                ns / n as f64
            );
        }
    }
}
