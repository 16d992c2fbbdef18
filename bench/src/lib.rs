//! What the benchmarks (`benches/`) and the lab programs (`examples/`) share: the streaming
//! SipHash the key digest is held equal to and measured against, and a fixed random stream.

use std::hash::Hasher;

use hrwhash::v1::KEY_DOMAIN;
use hrwhash::Seed;
use siphasher::sip::SipHasher13;

/// The key digest of hrw-v1 (SipHash-1-3 of the framed key) through the `siphasher` crate's
/// streaming writer.
pub fn siphasher(seed: &Seed, key: &[u8]) -> u64 {
    let b = seed.to_bytes();
    let k0 = u64::from_le_bytes(b[..8].try_into().unwrap());
    let k1 = u64::from_le_bytes(b[8..].try_into().unwrap());
    let mut h = SipHasher13::new_with_keys(k0, k1);
    h.write(KEY_DOMAIN);
    h.write(&(key.len() as u64).to_le_bytes());
    h.write(key);
    h.finish()
}

/// SplitMix64: fixed, so every run measures the same inputs.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
