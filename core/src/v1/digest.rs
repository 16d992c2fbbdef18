//! The hrw-v1 key digest, computed without a general SipHash stream: the framed key
//! `"hrw-v1:key" || u64le(len) || key` always starts with the eight bytes `"hrw-v1:k"`, so the
//! SipHash-1-3 state after them is a function of the seed alone and is kept beside it. What is
//! left is a handful of 8-byte words read straight from the key, with no buffering and, for the
//! common key lengths, no branch on the length.
//!
//! Every function here returns exactly SipHash-1-3 of the framed key (the tests below hold them
//! equal to the `siphasher` crate on every length and on random seeds).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
mod avx512;

use crate::kernel::Forced;

/// SipHash-1-3 state: `v0, v1, v2, v3`.
pub(crate) type State = [u64; 4];

#[inline(always)]
const fn round(v: State) -> State {
    let [mut v0, mut v1, mut v2, mut v3] = v;
    v0 = v0.wrapping_add(v1);
    v1 = v1.rotate_left(13);
    v1 ^= v0;
    v0 = v0.rotate_left(32);
    v2 = v2.wrapping_add(v3);
    v3 = v3.rotate_left(16);
    v3 ^= v2;
    v0 = v0.wrapping_add(v3);
    v3 = v3.rotate_left(21);
    v3 ^= v0;
    v2 = v2.wrapping_add(v1);
    v1 = v1.rotate_left(17);
    v1 ^= v2;
    v2 = v2.rotate_left(32);
    [v0, v1, v2, v3]
}

/// One message word, one compression round (SipHash-1-3 has one).
#[inline(always)]
const fn compress(v: State, m: u64) -> State {
    let [v0, v1, v2, v3] = round([v[0], v[1], v[2], v[3] ^ m]);
    [v0 ^ m, v1, v2, v3]
}

/// The three finalization rounds and the output.
#[inline(always)]
const fn finish(v: State) -> u64 {
    let v = round(round(round([v[0], v[1], v[2] ^ 0xff, v[3]])));
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// The first word of every framed key: `"hrw-v1:k"` little-endian.
const FIRST_WORD: u64 = u64::from_le_bytes(*b"hrw-v1:k");
/// `"ey"`, the last two bytes of the key domain, as the low bytes of the second word.
const EY: u64 = u16::from_le_bytes(*b"ey") as u64;
/// Framing bytes before the key: the domain and the 8-byte length.
const FRAME: u64 = (super::KEY_DOMAIN.len() + 8) as u64;

/// The state after the first word of every framed key under the SipHash key `(k0, k1)`.
pub(crate) const fn prefix_state(k0: u64, k1: u64) -> State {
    let v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    compress(v, FIRST_WORD)
}

#[inline(always)]
fn read(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The top `r` bytes (0 to 7) of `w`, moved to the bottom: the last `r` bytes of the 8 read at
/// `len - 8`, without a shift by 64 when `r` is 0.
#[inline(always)]
fn top_bytes(w: u64, r: usize) -> u64 {
    (w >> (63 - 8 * r)) >> 1
}

/// Bytes `0..len` (fewer than 8) of `bytes`, little-endian.
#[inline]
fn partial(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// `v` if `keep`, else `other`, as arithmetic: whether a key has a third or fourth word is
/// different from key to key, and a branch on it would be mispredicted about half the time.
#[inline(always)]
fn choose(keep: bool, v: State, other: State) -> State {
    let m = 0u64.wrapping_sub(keep as u64);
    [
        other[0] ^ ((v[0] ^ other[0]) & m),
        other[1] ^ ((v[1] ^ other[1]) & m),
        other[2] ^ ((v[2] ^ other[2]) & m),
        other[3] ^ ((v[3] ^ other[3]) & m),
    ]
}

/// Key lengths of the branch-free path: at least one full word of key to read the last bytes
/// from, and at most two whole key words between the framing and the last bytes.
const SHORT: core::ops::Range<usize> = 8..30;

/// The key digest from the state after the first word.
#[inline]
pub(crate) fn key_digest(prefix: &State, key: &[u8]) -> u64 {
    if SHORT.contains(&key.len()) {
        short(prefix, key)
    } else {
        general(prefix, key)
    }
}

/// Keys of 8 to 29 bytes. After `"ey" || len[0..6]` and `len[6..8] || key[0..6]` come at most two
/// whole words, `key[6..14]` and `key[14..22]`; both are always computed, each kept only when
/// present, then the last `(len + 2) mod 8` bytes of the key and the length byte.
#[inline]
fn short(prefix: &State, key: &[u8]) -> u64 {
    let len = key.len();
    let n = len as u64;
    let last = len - 8;
    let mut v = compress(*prefix, EY | n << 16);
    // The high length bytes are zero below 2^48.
    v = compress(v, read(key, 0) << 16);
    for at in [6, 14] {
        let next = compress(v, read(key, at.min(last)));
        v = choose(at + 8 <= len, next, v);
    }
    let tail = top_bytes(read(key, last), (len + 2) % 8);
    finish(compress(v, tail | (n + FRAME) << 56))
}

/// Every length: the words of `len[6..8] || key` after the second, then its last bytes.
fn general(prefix: &State, key: &[u8]) -> u64 {
    let n = key.len() as u64;
    let mut v = compress(*prefix, EY | n << 16);
    let high = n >> 48;
    let tail = if key.len() >= 6 {
        let (head, rest) = key.split_at(6);
        v = compress(v, high | partial(head) << 16);
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            v = compress(v, read(w, 0));
        }
        partial(words.remainder())
    } else {
        high | partial(key) << 16
    };
    finish(compress(v, tail | (n + FRAME) << 56))
}

/// The words of one key for the multi-key digests (which compute them in their lanes for keys
/// of 8 bytes or more, and take them from here for shorter ones): `first` is the second framed
/// word and `last` the final one (the last bytes and the length byte). With `blocks =
/// (len + 18) / 8` words after the prefix state, word `b` of the key (`b` from 0) is
/// `EY | len << 16` for 0, `first` for 1, the key bytes at `8 * b - 10` while `b + 1 < blocks`,
/// and `last` for `b + 1 == blocks`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Clone, Copy)]
struct Words {
    first: u64,
    last: u64,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl Words {
    #[inline(always)]
    fn of(key: &[u8]) -> Words {
        let len = key.len();
        let n = len as u64;
        let total = n + FRAME;
        let length_byte = total << 56;
        let high = n >> 48;
        let (first, last) = if len >= 8 {
            let tail = top_bytes(read(key, len - 8), (len + 2) % 8);
            (high | read(key, 0) << 16, tail | length_byte)
        } else {
            // `len[6..8] || key` is 2 to 9 bytes: one word, maybe a second one.
            let mut buf = [0u8; 16];
            buf[2..2 + len].copy_from_slice(key);
            let (a, b) = (read(&buf, 0), read(&buf, 8));
            if len >= 6 {
                (a, b | length_byte)
            } else {
                (a | length_byte, a | length_byte)
            }
        };
        Words { first, last }
    }
}

/// Which multi-key digest runs: chosen once per process (`HRWHASH_KERNEL=scalar|avx2|avx512`
/// forces one, for tests and benchmarks; a kernel the CPU lacks falls back to the next one down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lanes {
    /// One key at a time.
    Scalar,
    /// Four keys per AVX2 register.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Eight keys per AVX-512 register.
    #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
    Avx512,
}

impl Lanes {
    /// Every multi-key digest this CPU runs, the scalar one first and the widest last.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn available() -> alloc::vec::Vec<Lanes> {
        #[allow(unused_mut)]
        let mut all = alloc::vec![Lanes::Scalar];
        #[cfg(target_arch = "x86_64")]
        if avx2::supported() {
            all.push(Lanes::Avx2);
        }
        #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
        if avx512::supported() {
            all.push(Lanes::Avx512);
        }
        all
    }

    /// The multi-key digest of this process (`HRWHASH_KERNEL`, read once for both this and
    /// the per-node kernel: [`crate::kernel::chosen`]).
    pub(crate) fn detect() -> Lanes {
        crate::kernel::chosen().1
    }

    /// The multi-key digest for a `HRWHASH_KERNEL` request. Its rule is not the per-node
    /// kernels' (`Kernel::choose`): the digest only adds, rotates and xors, with no 64-bit lane
    /// multiply, so unforced it takes AVX-512 wherever the CPU has AVX-512F, VBMI2 or not, else
    /// AVX2. Forcing `avx2` gives the four-lane digest (on a CPU with AVX2), `scalar` the one-key
    /// digest.
    pub(crate) fn choose(forced: Forced) -> Lanes {
        #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
        if matches!(forced, Forced::Avx512 | Forced::Nothing) && avx512::supported() {
            return Lanes::Avx512;
        }
        #[cfg(target_arch = "x86_64")]
        if forced != Forced::Scalar && avx2::supported() {
            return Lanes::Avx2;
        }
        let _ = forced;
        Lanes::Scalar
    }

    /// The key digests of `keys` into `out`, which is as long.
    #[inline]
    pub(crate) fn key_digests<K: AsRef<[u8]>>(self, prefix: &State, keys: &[K], out: &mut [u64]) {
        debug_assert_eq!(keys.len(), out.len());
        match self {
            Lanes::Scalar => {
                for (k, d) in keys.iter().zip(out.iter_mut()) {
                    *d = key_digest(prefix, k.as_ref());
                }
            }
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2 => lane_digests(prefix, keys, out, |k| {
                // SAFETY: `Avx2` is only chosen when the CPU has AVX2.
                unsafe { avx2::digests(prefix, k) }
            }),
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Lanes::Avx512 => lane_digests(prefix, keys, out, |k| {
                // SAFETY: `Avx512` is only chosen when the CPU has AVX-512 F.
                unsafe { avx512::digests(prefix, k) }
            }),
        }
    }
}

/// The key digests of `keys` into `out`, `N` keys at a time through `lanes`, and the rest through
/// `lanes` once more if they fill half of it, else one by one: the AVX2 and AVX-512 digests
/// differ only in their width and their kernel.
#[cfg(target_arch = "x86_64")]
#[inline]
fn lane_digests<K: AsRef<[u8]>, const N: usize>(
    prefix: &State,
    keys: &[K],
    out: &mut [u64],
    lanes: impl Fn(&[&[u8]; N]) -> [u64; N],
) {
    let mut keys_n = keys.chunks_exact(N);
    let mut out_n = out.chunks_exact_mut(N);
    for (k, d) in (&mut keys_n).zip(&mut out_n) {
        let k = core::array::from_fn(|i| k[i].as_ref());
        d.copy_from_slice(&lanes(&k));
    }
    let (keys, out) = (keys_n.remainder(), out_n.into_remainder());
    if 2 * keys.len() >= N {
        // Half a register or more: one more call, its free lanes given the last key again.
        let k = core::array::from_fn(|i| keys[i.min(keys.len() - 1)].as_ref());
        out.copy_from_slice(&lanes(&k)[..keys.len()]);
        return;
    }
    for (k, d) in keys.iter().zip(out) {
        *d = key_digest(prefix, k.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::{key_digest as reference_digest, Seed, KEY_DOMAIN};
    use alloc::vec::Vec;
    use core::hash::Hasher;
    use siphasher::sip::SipHasher13;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state ^ (*state >> 29)
    }

    /// SipHash-1-3 of the framed key through the `siphasher` crate's streaming writer.
    fn siphash(seed: &Seed, key: &[u8]) -> u64 {
        let b = seed.to_bytes();
        let k0 = u64::from_le_bytes(b[..8].try_into().unwrap());
        let k1 = u64::from_le_bytes(b[8..].try_into().unwrap());
        let mut h = SipHasher13::new_with_keys(k0, k1);
        h.write(KEY_DOMAIN);
        h.write(&(key.len() as u64).to_le_bytes());
        h.write(key);
        h.finish()
    }

    fn random_seed(st: &mut u64) -> Seed {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&lcg(st).to_le_bytes());
        b[8..].copy_from_slice(&lcg(st).to_le_bytes());
        Seed::from_bytes(b)
    }

    fn random_key(st: &mut u64, len: usize) -> Vec<u8> {
        (0..len).map(|_| lcg(st) as u8).collect()
    }

    #[test]
    fn scalar_digest_is_siphash_of_the_framed_key_at_every_length() {
        let mut st = 3u64;
        for round in 0..40 {
            let seed = if round == 0 {
                Seed::DEFAULT
            } else {
                random_seed(&mut st)
            };
            for len in 0..300 {
                let key = random_key(&mut st, len);
                let expected = siphash(&seed, &key);
                assert_eq!(reference_digest(&seed, &key), expected, "len {len}");
                assert_eq!(general(seed.key_state(), &key), expected, "len {len}");
                if SHORT.contains(&len) {
                    assert_eq!(short(seed.key_state(), &key), expected, "len {len}");
                }
            }
        }
    }

    #[test]
    fn the_prefix_state_matches_a_seed_built_at_run_time() {
        let mut st = 5u64;
        let b = random_seed(&mut st).to_bytes();
        // `Seed::from_bytes` is const; through a slice the state is computed at run time.
        assert_eq!(
            Seed::from_slice(&b).unwrap().key_state(),
            Seed::from_bytes(b).key_state()
        );
        assert_eq!(
            Seed::DEFAULT.key_state(),
            Seed::from_slice(b"hrwhash-v1-seed.").unwrap().key_state()
        );
    }

    #[test]
    fn every_multi_key_digest_matches_the_scalar_one() {
        let lanes = Lanes::available();
        #[cfg(feature = "std")]
        std::println!("multi-key digests run here: {lanes:?}");
        let mut st = 17u64;
        // Every length in batches of one length, then lengths mixed within each batch (short
        // and long keys side by side, so lanes finish at different words), in batch sizes that
        // leave remainders.
        let mut batches: Vec<Vec<Vec<u8>>> = (0..300)
            .map(|len| (0..17).map(|_| random_key(&mut st, len)).collect())
            .collect();
        for size in [
            1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 64, 101,
        ] {
            for _ in 0..20 {
                let spread = [8u64, 30, 300][(lcg(&mut st) % 3) as usize];
                batches.push(
                    (0..size)
                        .map(|_| {
                            let len = (lcg(&mut st) % spread) as usize;
                            random_key(&mut st, len)
                        })
                        .collect(),
                );
            }
        }
        for (i, keys) in batches.iter().enumerate() {
            let seed = if i % 2 == 0 {
                Seed::DEFAULT
            } else {
                random_seed(&mut st)
            };
            let expected: Vec<u64> = keys.iter().map(|k| siphash(&seed, k)).collect();
            for &l in &lanes {
                let mut got = alloc::vec![0u64; keys.len()];
                l.key_digests(seed.key_state(), keys, &mut got);
                assert_eq!(got, expected, "{l:?}, batch {i}");
            }
        }
    }

    #[test]
    fn a_forced_kernel_is_respected() {
        // The process-wide choice: whatever it is, it is one this CPU runs.
        assert!(Lanes::available().contains(&Lanes::detect()));
        #[cfg(feature = "std")]
        if std::env::var("HRWHASH_KERNEL").as_deref() == Ok("scalar") {
            assert_eq!(Lanes::detect(), Lanes::Scalar);
        }
    }

    #[test]
    fn the_digest_reads_the_request_by_its_own_rule() {
        let available = Lanes::available();
        let best = *available.last().expect("the scalar one at least");
        assert_eq!(Lanes::choose(Forced::parse("scalar")), Lanes::Scalar);
        assert_eq!(Lanes::choose(Forced::parse(" Scalar\n")), Lanes::Scalar);
        // `avx2` is the four-lane digest where the CPU has AVX2, whether or not it has AVX-512.
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = Lanes::choose(Forced::parse("avx2"));
            match available.contains(&Lanes::Avx2) {
                true => assert_eq!(avx2, Lanes::Avx2),
                false => assert_eq!(avx2, Lanes::Scalar),
            }
        }
        // No VBMI2 needed: the widest digest the CPU has, forced or not.
        for value in ["avx512", "AVX512", "", "auto", "sse9"] {
            assert_eq!(Lanes::choose(Forced::parse(value)), best, "{value:?}");
        }
        // One reading of the variable gives both choices.
        let (kernel, lanes) = crate::kernel::chosen();
        assert_eq!(kernel, crate::kernel::Kernel::detect());
        assert_eq!(lanes, Lanes::detect());
    }
}
