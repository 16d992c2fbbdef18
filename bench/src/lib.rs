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

/// Keys of lowercase letters from a fixed generator, so that every run measures the same keys:
/// each key is `len(r)` bytes long, `r` a fresh random number, so that a branch on the length is
/// as unpredictable as in a real stream of keys.
pub fn letter_keys(count: usize, mut len: impl FnMut(u64) -> usize) -> Vec<Vec<u8>> {
    let mut state = 0x243F_6A88_85A3_08D3u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    (0..count)
        .map(|_| {
            let len = len(next());
            (0..len).map(|_| b'a' + (next() % 26) as u8).collect()
        })
        .collect()
}

/// Nanoseconds this thread has run on a CPU: the machine is shared, so wall time would count
/// other processes' turns.
#[cfg(unix)]
pub fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// A stopwatch of the thread's CPU time (`cpu_ns`).
#[cfg(unix)]
pub struct Clock(u64);

#[cfg(unix)]
impl Clock {
    pub fn start() -> Clock {
        Clock(cpu_ns())
    }

    /// Milliseconds since `start`.
    pub fn ms(&self) -> f64 {
        (cpu_ns() - self.0) as f64 / 1e6
    }
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
