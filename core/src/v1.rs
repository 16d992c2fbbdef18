//! The hrw-v1 primitives, exactly as `conformance/SPEC.md` defines them.
//!
//! These are frozen: every output of every function here is a promise to users who stored data
//! where it said. A different output would be a new algorithm version beside this module.

use core::hash::Hasher;
use siphasher::sip::SipHasher13;

use crate::Error;

pub(crate) mod digest;

/// The algorithm tag.
pub const ALGORITHM: &str = "hrw-v1";

/// Domain-separation prefix of a key digest.
pub const KEY_DOMAIN: &[u8] = b"hrw-v1:key";
/// Domain-separation prefix of a node digest.
pub const NODE_DOMAIN: &[u8] = b"hrw-v1:node";

/// Odd multiplier of the per-node mixing step (SPEC.md, "Score").
pub const MIX_MULTIPLIER: u64 = 0xD6E8_FEB8_6659_FD93;

/// Fractional bits of a draw (SPEC.md, "Draw").
pub const DRAW_FRACTION_BITS: u32 = 56;

/// Fractional bits of a fixed-point weight.
pub const WEIGHT_FRACTION_BITS: u32 = 32;

/// The 128-bit SipHash key. Public by default; choose a secret one when untrusted parties choose keys.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed {
    bytes: [u8; 16],
    /// The SipHash state after the first word of every framed key (derived from `bytes`).
    key_state: digest::State,
}

impl Seed {
    /// The documented public default: the ASCII bytes of `hrwhash-v1-seed.`.
    pub const DEFAULT: Seed = Seed::from_bytes(*b"hrwhash-v1-seed.");

    /// A seed from its 16 bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Seed {
        let (k0, k1) = Seed::keys(bytes);
        Seed {
            bytes,
            key_state: digest::prefix_state(k0, k1),
        }
    }

    const fn keys(b: [u8; 16]) -> (u64, u64) {
        (
            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
        )
    }

    pub(crate) fn key_state(&self) -> &digest::State {
        &self.key_state
    }

    /// A seed from a slice, which must be 16 bytes long.
    pub fn from_slice(bytes: &[u8]) -> Result<Seed, Error> {
        <[u8; 16]>::try_from(bytes)
            .map(Seed::from_bytes)
            .map_err(|_| Error::InvalidSeedLength { len: bytes.len() })
    }

    /// The 16 bytes.
    pub const fn to_bytes(self) -> [u8; 16] {
        self.bytes
    }

    fn hasher(&self) -> SipHasher13 {
        let (k0, k1) = Seed::keys(self.bytes);
        SipHasher13::new_with_keys(k0, k1)
    }

    fn digest(&self, domain: &[u8], bytes: &[u8]) -> u64 {
        let mut h = self.hasher();
        h.write(domain);
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(bytes);
        h.finish()
    }
}

impl Default for Seed {
    fn default() -> Seed {
        Seed::DEFAULT
    }
}

impl core::fmt::Debug for Seed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // A secret seed must not leak into logs.
        if *self == Seed::DEFAULT {
            f.write_str("Seed::DEFAULT")
        } else {
            f.write_str("Seed(<custom>)")
        }
    }
}

/// SipHash-1-3 of `"hrw-v1:key" || u64le(len) || key`: computed once per lookup.
#[inline]
pub fn key_digest(seed: &Seed, key: &[u8]) -> u64 {
    digest::key_digest(&seed.key_state, key)
}

/// SipHash-1-3 of `"hrw-v1:node" || u64le(len) || id`: computed once per node when a placement is built.
pub fn node_digest(seed: &Seed, id: &[u8]) -> u64 {
    seed.digest(NODE_DOMAIN, id)
}

/// The 64-bit score of a (key, node) pair; higher ranks first.
#[inline(always)]
pub const fn score(key_digest: u64, node_digest: u64) -> u64 {
    let x = key_digest ^ node_digest;
    (x ^ (x >> 32)).wrapping_mul(MIX_MULTIPLIER)
}

/// `MIX_MULTIPLIER⁻¹ mod 2^64`: a score times it is the folded `key ^ digest`, so a score alone
/// names its node's digest (the multiplier is odd; five Newton steps from the 3 bits that
/// `M · M ≡ 1 (mod 8)` gives reach 96 bits).
#[cfg_attr(not(all(target_arch = "x86_64", hrwhash_avx512)), allow(dead_code))]
pub(crate) const MIX_INVERSE: u64 = {
    let mut inv = MIX_MULTIPLIER;
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(MIX_MULTIPLIER.wrapping_mul(inv)));
        i += 1;
    }
    inv
};

/// The node digest whose [`score`] against `key_digest` is `s` (the score is a bijection of
/// `key ^ digest`, and `x ^ (x >> 32)` is its own inverse).
#[inline(always)]
#[cfg_attr(not(all(target_arch = "x86_64", hrwhash_avx512)), allow(dead_code))]
pub(crate) const fn digest_scoring(key_digest: u64, s: u64) -> u64 {
    let folded = s.wrapping_mul(MIX_INVERSE);
    folded ^ (folded >> 32) ^ key_digest
}

/// `-log2((score + 1) / 2^64)` in fixed point with 56 fractional bits, computed with integers only
/// (SPEC.md, "Draw"). It never increases as the score grows, is 0 only for `u64::MAX`, and is at most
/// `64 << 56`.
pub fn draw(score: u64) -> u64 {
    let Some(v) = score.checked_add(1) else {
        return 0;
    };
    let shift = v.leading_zeros();
    let exponent = 63 - shift as u64;
    let m = v << shift;
    let j = ((m >> 55) & 0xFF) as usize;
    let d = (m >> 23) & 0xFFFF_FFFF;
    let (t0, t1, bump) = (LOG2_TABLE[j], LOG2_TABLE[j + 1], LOG2_BUMP[j]);
    let numerator = ((t0 as u128) << 64)
        + (((t1 - t0) as u128 * d as u128) << 32)
        + bump as u128 * (d * ((1u64 << 32) - d)) as u128;
    let fraction = (numerator >> 64) as u64;
    ((63 - exponent) << DRAW_FRACTION_BITS) + ((1u64 << DRAW_FRACTION_BITS) - fraction)
}

/// `LOG2_TABLE[j] = round_half_even(log2(1 + j/256) * 2^56)`.
pub(crate) const LOG2_TABLE: [u64; 257] = include!("log2_table.in");
/// `LOG2_BUMP[j] = round_half_even(4 * 2^56 * (log2(1 + (j + 1/2)/256) - (log2(1 + j/256) + log2(1 + (j + 1)/256)) / 2))`.
pub(crate) const LOG2_BUMP: [u64; 256] = include!("log2_bump.in");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_their_formula_to_f64_precision() {
        for (j, &t) in LOG2_TABLE.iter().enumerate() {
            let exact = libm_free_log2(1.0 + j as f64 / 256.0) * (1u64 << 56) as f64;
            assert!((t as f64 - exact).abs() <= exact * 1e-14 + 1.0, "T[{j}]");
        }
        for j in 0..256 {
            assert!(
                LOG2_TABLE[j + 1] - LOG2_TABLE[j] > LOG2_BUMP[j],
                "draw is monotone within segment {j}"
            );
        }
    }

    // f64 log2 through std only in tests; the scoring path never uses floating point.
    fn libm_free_log2(x: f64) -> f64 {
        #[cfg(feature = "std")]
        {
            x.log2()
        }
        #[cfg(not(feature = "std"))]
        {
            // Series around 1 is enough for the tolerance of the test above.
            let y = (x - 1.0) / (x + 1.0);
            let mut sum = 0.0;
            let mut p = y;
            let mut n = 1.0;
            while n < 200.0 {
                sum += p / n;
                p *= y * y;
                n += 2.0;
            }
            2.0 * sum / core::f64::consts::LN_2
        }
    }

    #[test]
    fn draw_ends_and_monotonicity() {
        assert_eq!(draw(u64::MAX), 0);
        assert_eq!(draw(0), 64 << DRAW_FRACTION_BITS);
        assert_eq!(draw((1 << 63) - 1), 1 << DRAW_FRACTION_BITS);
        let mut prev = u64::MAX;
        let mut s: u64 = 0;
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut samples = [0u64; 4096];
        for x in samples.iter_mut() {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            *x = state;
        }
        samples.sort_unstable();
        for &x in &samples {
            let d = draw(x);
            assert!(d <= prev, "draw must not increase: {x:#x}");
            prev = d;
            s = s.wrapping_add(d);
        }
        assert_ne!(s, 0);
    }
}
