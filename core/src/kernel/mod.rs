//! The per-node loop: the one place where speed is won or lost. One file per instruction set:
//! [`portable`] is the reference every other kernel is held equal to (the tests below), `avx2`
//! and `avx512` the vector kernels chosen at run time, and `x86_64` the branch-free selects of
//! the baseline instruction set, chosen at compile time.
//!
//! Which kernel a placement uses is decided once per process ([`Kernel::detect`]):
//! - `HRWHASH_KERNEL=scalar|avx2|avx512` forces one. A forced kernel the CPU (or the compiler
//!   the crate was built with) does not have is never run: the next one down that it has is used
//!   instead (avx512, then avx2, then scalar). Any other value, `auto` or an empty one is ignored.
//! - Otherwise AVX-512 where the CPU has AVX-512F, DQ and VL *and* VBMI2, AVX2 where it has
//!   AVX2, else the scalar kernel. Both vector kernels also need LZCNT, BMI2 and FMA, which
//!   every CPU with AVX2 has: the weighted owner of a few nodes is compiled for them beside
//!   the vector kernels. VBMI2 is no part of these kernels: it marks the cores whose
//!   512-bit multiplies are cheap, Intel from Ice Lake on and AMD from Zen 4 on. Skylake-SP and
//!   Cascade Lake have AVX-512DQ but not VBMI2; they lower their clock under 512-bit multiplies,
//!   so they keep the AVX2 kernel unless it is forced.
//! - AVX2's top-k lists of keys run on AMD's (and Hygon's) cores only, where a vector blend is
//!   one micro-op; elsewhere the threshold pass ranks ([`Kernel::top_few`]). So does AVX-512's
//!   ranking of two to eight nodes in one register, whose 64-bit multiply is one micro-op there
//!   and three on Intel's; elsewhere a sorting network ranks them ([`Kernel::rank_small`]).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
mod avx512;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(not(target_arch = "x86_64"))]
pub(crate) use portable::{keep_max, max_into, select};
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_64::{keep_max, max_into, select};

use crate::v1::digest::Lanes;

/// What `HRWHASH_KERNEL` asks for. The variable is read and parsed in one place ([`chosen`]);
/// the per-node kernels ([`Kernel::choose`]) and the multi-key digests
/// ([`crate::v1::digest::Lanes::choose`]) each turn the request into their own choice, because
/// their rules differ: the per-node kernels multiply 64-bit lanes (`vpmullq`), which only the
/// cores with cheap 512-bit multiplies get unforced, while the multi-key digest only adds,
/// rotates and xors, and takes AVX-512 wherever the CPU has AVX-512F.
// Without `std` nothing reads the variable: only the tests parse values.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Forced {
    /// Unset, empty, `auto` or a value that names no kernel: the CPU decides.
    Nothing,
    Scalar,
    Avx2,
    Avx512,
}

impl Forced {
    /// The request a value of `HRWHASH_KERNEL` makes (case and surrounding blanks ignored).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn parse(value: &str) -> Forced {
        match value.trim().to_ascii_lowercase().as_str() {
            "scalar" => Forced::Scalar,
            "avx2" => Forced::Avx2,
            "avx512" => Forced::Avx512,
            _ => Forced::Nothing,
        }
    }

    /// The kernel name the request forces, if any.
    fn name(self) -> Option<&'static str> {
        match self {
            Forced::Nothing => None,
            Forced::Scalar => Some("scalar"),
            Forced::Avx2 => Some("avx2"),
            Forced::Avx512 => Some("avx512"),
        }
    }
}

/// The per-node kernel and the multi-key digest of this process, from one reading of
/// `HRWHASH_KERNEL`, made on the first call and kept. Without `std` there is no environment:
/// the target's compile-time features decide.
pub(crate) fn chosen() -> (Kernel, Lanes) {
    #[cfg(feature = "std")]
    {
        static CHOSEN: std::sync::OnceLock<(Kernel, Lanes)> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let forced = Forced::parse(&std::env::var("HRWHASH_KERNEL").unwrap_or_default());
            (Kernel::choose(forced), Lanes::choose(forced))
        })
    }
    #[cfg(not(feature = "std"))]
    (
        Kernel::choose(Forced::Nothing),
        Lanes::choose(Forced::Nothing),
    )
}

/// `$f(args)` of the kernel `$kernel`: every per-node function that each kernel has is chosen by
/// this one match, so that the safety argument of calling a vector kernel is made in one place.
macro_rules! dispatch {
    ($kernel:expr, $f:ident($($arg:expr),*)) => {
        match $kernel {
            Kernel::Scalar => portable::$f($($arg),*),
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2 (`supported`).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::$f($($arg),*) },
            // SAFETY: `Avx512` is only chosen when the CPU has its features (`supported`).
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Kernel::Avx512 => unsafe { avx512::$f($($arg),*) },
        }
    };
}

/// Which implementation of the per-node loop a placement uses, chosen once when it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
    Avx512,
}

impl Kernel {
    /// Every kernel, fastest first, as `HRWHASH_KERNEL` names them.
    const ALL: &'static [(&'static str, Option<Kernel>)] = &[
        #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
        ("avx512", Some(Kernel::Avx512)),
        #[cfg(not(all(target_arch = "x86_64", hrwhash_avx512)))]
        ("avx512", None),
        #[cfg(target_arch = "x86_64")]
        ("avx2", Some(Kernel::Avx2)),
        #[cfg(not(target_arch = "x86_64"))]
        ("avx2", None),
        ("scalar", Some(Kernel::Scalar)),
    ];

    /// The kernel of every placement of this process (see the module's documentation).
    pub(crate) fn detect() -> Kernel {
        chosen().0
    }

    /// The kernel for a `HRWHASH_KERNEL` request (see the module's documentation).
    pub(crate) fn choose(forced: Forced) -> Kernel {
        match Kernel::ALL
            .iter()
            .position(|(name, _)| Some(*name) == forced.name())
        {
            // The forced kernel if this CPU has it, else the first below it that it has.
            Some(at) => Kernel::ALL[at..]
                .iter()
                .filter_map(|(_, k)| *k)
                .find(|k| k.supported())
                .unwrap_or(Kernel::Scalar),
            None => Kernel::ALL
                .iter()
                .filter_map(|(_, k)| *k)
                .find(|k| k.supported() && k.preferred())
                .unwrap_or(Kernel::Scalar),
        }
    }

    /// The kernel `name`s, if it was compiled in and this CPU has it.
    pub(crate) fn named(name: &str) -> Option<Kernel> {
        let (_, kernel) = Kernel::ALL.iter().find(|(n, _)| *n == name)?;
        kernel.filter(|k| k.supported())
    }

    /// Every kernel this CPU can run, fastest first.
    pub(crate) fn available() -> impl Iterator<Item = Kernel> {
        Kernel::ALL
            .iter()
            .filter_map(|(_, k)| *k)
            .filter(|k| k.supported())
    }

    /// The `HRWHASH_KERNEL` name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this CPU has the instructions of the kernel: the one test that makes calling
    /// the vector kernels sound.
    fn supported(self) -> bool {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        macro_rules! has {
            ($($f:tt),*) => { true $(&& std::arch::is_x86_feature_detected!($f))* };
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "std")))]
        macro_rules! has {
            ($($f:tt),*) => { true $(&& cfg!(target_feature = $f))* };
        }
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            // LZCNT, BMI2 and FMA: the weighted owner's estimates of a few nodes are compiled
            // for them beside these kernels (`Direct`); every CPU with AVX2 has them.
            Kernel::Avx2 => has!("avx2", "lzcnt", "bmi2", "fma"),
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Kernel::Avx512 => {
                has!("avx512f", "avx512dq", "avx512vl", "popcnt", "lzcnt", "bmi2", "fma")
            }
        }
    }

    /// Whether the kernel is chosen, when supported and not forced otherwise.
    fn preferred(self) -> bool {
        match self {
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512, feature = "std"))]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512vbmi2"),
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512, not(feature = "std")))]
            Kernel::Avx512 => cfg!(target_feature = "avx512vbmi2"),
            _ => true,
        }
    }

    /// The highest score over `digests` (non-empty) and the first position that has it.
    // Always inlined: the weighted owner calls it once per weight group, mostly on groups of one
    // or two nodes, where a call costs as much as the scores.
    #[inline(always)]
    pub(crate) fn argmax(self, key: u64, digests: &[u64]) -> (u64, usize) {
        // Inlined here, so that small groups cost no call.
        if digests.len() < 8 {
            return portable::argmax(key, digests);
        }
        dispatch!(self, argmax(key, digests))
    }

    /// [`Kernel::argmax`] of every key digest of `keys` over `digests` (non-empty) into `out`,
    /// which is as long. The AVX-512 kernel runs a block of keys together, the keys across its
    /// lanes, so that each node digest is read once per block rather than once per key; the
    /// others look the keys up one at a time.
    #[inline]
    pub(crate) fn argmax_many(self, keys: &[u64], digests: &[u64], out: &mut [(u64, usize)]) {
        debug_assert_eq!(keys.len(), out.len());
        match self {
            // SAFETY: `Avx512` is only chosen when the CPU has its features (`supported`).
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Kernel::Avx512 if digests.len() > 1 => unsafe {
                avx512::argmax_many(keys, digests, out)
            },
            _ => {
                for (&key, slot) in keys.iter().zip(out) {
                    *slot = self.argmax(key, digests);
                }
            }
        }
    }

    /// Calls `visit(score, position)`, in increasing position order, for every position whose score
    /// is at least the threshold; `visit` returns the threshold for the positions after it.
    #[inline]
    pub(crate) fn scan<F: FnMut(u64, usize) -> u64>(
        self,
        key: u64,
        digests: &[u64],
        threshold: u64,
        visit: &mut F,
    ) {
        dispatch!(self, scan(key, digests, threshold, visit))
    }
}

/// The digests of a placement with a few weight groups, laid out so that one pass finds every
/// group's best node: each block of eight digests gives `8 / G` of its lanes to each of the `G`
/// groups (G rounded up to 2, 4 or 8), so lane `j` of every block belongs to group `j / (8 / G)`
/// and the accumulator of that lane ends with its group's best. Node `i` of group `g` (in the
/// group's own order) is in block `i / L`, lane `g * L + i % L`, with `L = 8 / G`. Slots past a
/// group's end are padding, masked to score zero; they come after every node of their lane and
/// their positions are past the group's end, so on a tie at zero a real node still wins.
pub(crate) struct Interleaved {
    /// `8 * blocks` digests.
    digests: crate::util::LineAligned,
    /// One mask per slot of the blocks from `full` on: all ones for a node, zero for padding.
    masks: crate::util::LineAligned,
    /// Blocks before this one hold no padding.
    full: usize,
    /// Lanes per group, `L`: 1, 2 or 4.
    lanes_per_group: usize,
}

impl Interleaved {
    /// The layout of `groups` (each a group's digests in its order), or `None` when padding
    /// would cost more than a quarter of the work or there are more than eight groups.
    pub(crate) fn new<'a>(
        groups: impl ExactSizeIterator<Item = &'a [u64]> + Clone,
    ) -> Option<Self> {
        let count = groups.len();
        if !(2..=8).contains(&count) {
            return None;
        }
        let lanes_per_group = 8 / count.next_power_of_two();
        let blocks_of = |len: usize| len.div_ceil(lanes_per_group);
        let blocks = groups.clone().map(|g| blocks_of(g.len())).max()?;
        let nodes: usize = groups.clone().map(|g| g.len()).sum();
        if 8 * blocks > nodes + nodes / 4 + 8 {
            return None;
        }
        let full = groups.clone().map(|g| g.len() / lanes_per_group).min()?;
        let zeros = |len| core::iter::repeat_n(0u64, len).collect::<crate::util::LineAligned>();
        let (mut digests, mut masks) = (zeros(8 * blocks), zeros(8 * (blocks - full)));
        for (g, lanes) in groups.enumerate() {
            for (i, &d) in lanes.iter().enumerate() {
                let slot = i / lanes_per_group * 8 + g * lanes_per_group + i % lanes_per_group;
                digests[slot] = d;
                if let Some(mask) = slot.checked_sub(8 * full) {
                    masks[mask] = u64::MAX;
                }
            }
        }
        Some(Interleaved {
            digests,
            masks,
            full,
            lanes_per_group,
        })
    }
}

impl Kernel {
    /// Every group's best (score, position in the group) of an [`Interleaved`] layout, in
    /// group order; `None` where this kernel has no such pass (then the caller takes each
    /// group's [`Kernel::argmax`]).
    #[inline]
    pub(crate) fn group_argmax(self, key: u64, layout: &Interleaved) -> Option<[(u64, u64); 8]> {
        match self {
            Kernel::Scalar => None,
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2 (`supported`).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => Some(unsafe { avx2::group_argmax(key, layout) }),
            // SAFETY: `Avx512` is only chosen when the CPU has its features (`supported`).
            #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
            Kernel::Avx512 => Some(unsafe { avx512::group_argmax(key, layout) }),
        }
    }
}

impl Kernel {
    /// Calls `visit` with the positions, in increasing order, whose score is at least
    /// `threshold`, in one or more batches (more only when there are many). Unlike
    /// [`Kernel::scan`], nothing here branches on a score: the positions are written out with a
    /// table, so a caller that expects a handful of them pays no mispredicted branch per one.
    #[inline]
    pub(crate) fn hits<F: FnMut(&[u32])>(
        self,
        key: u64,
        digests: &[u64],
        threshold: u64,
        visit: &mut F,
    ) {
        dispatch!(self, hits(key, digests, threshold, visit))
    }

    /// Writes the score of every digest into `out` (as long as `digests`) and returns, for each
    /// position class `i mod 8` of the first `8 * (len / 8)` positions, the highest score (0 where
    /// there is none). The `k`-th largest of these is a lower bound of the `k`-th best score.
    #[inline]
    pub(crate) fn scores_and_lane_max(
        self,
        key: u64,
        digests: &[u64],
        out: &mut [u64],
    ) -> [u64; 8] {
        dispatch!(self, scores_and_lane_max(key, digests, out))
    }
}

impl Kernel {
    /// [`Kernel::top_keyed`] where it pays on this CPU: with AVX2 only on AMD's cores (and
    /// Hygon's), where a vector blend is one micro-op. Intel's take two or three, and there the
    /// threshold pass that the caller runs instead took 0.61-0.88x the time of AVX2's lists at
    /// 9 to 96 nodes (Intel Xeon, family 6 model 207, `HRWHASH_KERNEL=avx2`, top-3, same
    /// process), where on AMD Zen 4 the lists took 0.65x the pass's time at 24 nodes and 0.87x
    /// at 64.
    // Always inlined, as `top_keyed` is.
    #[inline(always)]
    pub(crate) fn top_few(self, key: u64, digests: &[u64], out: &mut [usize]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self == Kernel::Avx2 && !amd_or_hygon() {
            return false;
        }
        self.top_keyed(key, digests, out)
    }

    /// Writes the positions of the best `out.len()` nodes (2 or 3), best first, where this
    /// kernel ranks them in vector registers and their keys settle the answer; false, with
    /// nothing in `out` to use, where it does not.
    ///
    /// The keys (`keyed` in `avx512.rs`) compare a score with its low bits replaced by the
    /// position. The keys settle the answer when the best `k + 1` keys differ outside those low
    /// bits: then the `k` best nodes by key are the `k` best by score, in order. Every node is
    /// keyed, in registers, up to [`avx512::NARROW`]'s end ([`avx512::top_keys_lists3`],
    /// [`avx512::top_keys_narrow3`]); beyond it the nodes of the best buckets of eight blocks'
    /// lanes are ([`avx512::top_keys_buckets`]). AVX2 keys every node of 8 to
    /// [`avx2::LISTS_MAX`] ([`avx2::top_keys_lists`]) and declines the rest. Equal scores (equal
    /// digests, which only crafted inputs have) and scores equal outside the low bits are left
    /// to the caller's exact path.
    // Always inlined, as it was with one caller: out of line (once the weighted top-k called it
    // too) the top-3 of 24 and 32 nodes took 1.12-1.16x the time in one same-process run.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn top_keyed(self, key: u64, digests: &[u64], out: &mut [usize]) -> bool {
        #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
        if self == Kernel::Avx512 && (2..=3).contains(&out.len()) && digests.len() >= TOP_FEW_MIN {
            let n = digests.len();
            let low = position_bits(n);
            // SAFETY (each call): `Avx512` is only chosen when the CPU has its features
            // (`supported`).
            return if n <= avx512::LISTS_MAX {
                unsafe { avx512::top_keys_lists3(key, digests, low, out) }
            } else if avx512::NARROW.contains(&n) {
                unsafe { avx512::top_keys_narrow3(key, digests, low, out) }
            } else if n <= avx512::BUCKETS_MAX {
                match unsafe { avx512::top_keys_buckets(key, digests, low, out.len()) } {
                    Some(keys) => settle(keys, low, out),
                    None => false,
                }
            } else {
                false
            };
        }
        #[cfg(target_arch = "x86_64")]
        if self == Kernel::Avx2
            && (2..=3).contains(&out.len())
            && (TOP_FEW_MIN..=avx2::LISTS_MAX).contains(&digests.len())
        {
            return top_few_avx2(key, digests, out);
        }
        false
    }
}

impl Kernel {
    /// [`Kernel::rank_in_register`] where it pays on this CPU: on AMD's cores (and Hygon's),
    /// where AVX-512's 64-bit multiply is one micro-op. Intel's take three, and there the
    /// caller's sorting network in general registers is faster (its measurements are with it:
    /// `rank_few` in `placement/selection.rs`).
    #[inline]
    pub(crate) fn rank_small(self, key: u64, digests: &[u64], out: &mut [usize]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if !amd_or_hygon() {
            return false;
        }
        self.rank_in_register(key, digests, out)
    }

    /// Writes the positions of the best `out.len()` (at least two) of `digests`, best first,
    /// where this kernel ranks so few nodes in one register ([`avx512::rank_small`]: two to
    /// eight nodes); false, with nothing in `out` to use, where it does not or two of the first
    /// ones score alike.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn rank_in_register(self, key: u64, digests: &[u64], out: &mut [usize]) -> bool {
        #[cfg(all(target_arch = "x86_64", hrwhash_avx512))]
        if self == Kernel::Avx512 && digests.len() <= 8 {
            // SAFETY: `Avx512` is only chosen when the CPU has its features (`supported`).
            return unsafe { avx512::rank_small(key, digests, out) };
        }
        false
    }
}

/// Whether this CPU is AMD's or Hygon's (CPUID's vendor), read once: see [`Kernel::top_few`]
/// and [`Kernel::rank_small`].
#[cfg(target_arch = "x86_64")]
fn amd_or_hygon() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    // 0: not read yet; 1: no; 2: yes.
    static AMD: AtomicU8 = AtomicU8::new(0);
    match AMD.load(Ordering::Relaxed) {
        0 => {
            let amd = matches!(&cpu_vendor(), b"AuthenticAMD" | b"HygonGenuine");
            AMD.store(1 + amd as u8, Ordering::Relaxed);
            amd
        }
        seen => seen == 2,
    }
}

/// The CPU's vendor, as CPUID leaf 0 spells it.
#[cfg(target_arch = "x86_64")]
fn cpu_vendor() -> [u8; 12] {
    // SAFETY: every x86-64 CPU has CPUID and its leaf 0.
    #[allow(unused_unsafe)]
    let r = unsafe { core::arch::x86_64::__cpuid(0) };
    let mut v = [0u8; 12];
    for (chunk, word) in v.chunks_exact_mut(4).zip([r.ebx, r.edx, r.ecx]) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    v
}

/// [`Kernel::top_keyed`] with AVX2. Apart, so that the AVX-512 path's caller stays as it was
/// (inlined, the AVX-512 top-3 of 100 and 128 nodes took 2-3% longer).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn top_few_avx2(key: u64, digests: &[u64], out: &mut [usize]) -> bool {
    let low = position_bits(digests.len());
    // SAFETY: only called for `Kernel::Avx2`, which is only chosen when the CPU has AVX2
    // (`supported`).
    let keys = unsafe { avx2::top_keys_lists(key, digests, low) };
    settle(keys, low, out)
}

/// The low bits that the keys of [`Kernel::top_keyed`] give to positions among `n` (at least one)
/// nodes: every position fits in them, and `low - position` names it.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn position_bits(n: usize) -> u64 {
    u64::MAX >> (n as u64 - 1).leading_zeros()
}

/// [`Kernel::top_keyed`]'s answer from the best four keys (of at least `out.len()` nodes).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn settle(keys: [u64; 4], low: u64, out: &mut [usize]) -> bool {
    let k = out.len();
    let high = |x: u64| x & !low;
    if (0..k).any(|j| high(keys[j]) <= high(keys[j + 1])) {
        return false;
    }
    for (slot, &x) in out.iter_mut().zip(&keys) {
        *slot = (low - (x & low)) as usize;
    }
    true
}

/// Fewest nodes [`Kernel::top_keyed`] takes: below eight a pass over blocks costs more than the
/// scalar code, or than [`Kernel::rank_small`]'s one register.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const TOP_FEW_MIN: usize = 8;

/// Positions gathered by [`Kernel::hits`] before a batch is handed over; a multiple of eight
/// plus room for one more block.
const HIT_BATCH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::score;
    extern crate alloc;
    extern crate std;
    use alloc::vec::Vec;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state ^ (*state >> 29)
    }

    /// Every kernel this CPU runs, said on the test's output. Under CI=true on a CPU with
    /// AVX-512F, DQ and VL the AVX-512 kernel must be among them, so that a build or a detection
    /// that lost it cannot pass unnoticed. (Without `std` there is no run-time detection: only
    /// the kernels the target's compile-time features allow run.)
    fn kernels() -> Vec<Kernel> {
        let all: Vec<Kernel> = Kernel::available().collect();
        let names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        std::println!("kernels run: {names:?}");
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if std::env::var("CI").as_deref() == Ok("true")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            assert!(
                names.contains(&"avx512"),
                "an AVX-512 CPU ran only {names:?}"
            );
        }
        assert_eq!(names.last(), Some(&"scalar"));
        all
    }

    #[test]
    fn simd_matches_scalar() {
        for simd in kernels() {
            simd_matches_scalar_with(simd);
        }
    }

    fn simd_matches_scalar_with(simd: Kernel) {
        let mut st = 7u64;
        for n in (1..70).chain([100, 1000, 1001, 1003]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..50 {
                let key = lcg(&mut st);
                assert_eq!(
                    simd.argmax(key, &digests),
                    portable::argmax(key, &digests),
                    "{simd:?} n={n}"
                );
                for thr in [0u64, 1 << 63, u64::MAX - (1 << 60)] {
                    let mut a = Vec::new();
                    let mut b = Vec::new();
                    simd.scan(key, &digests, thr, &mut |s, i| {
                        a.push((s, i));
                        s.saturating_add(1).max(thr)
                    });
                    portable::scan(key, &digests, thr, &mut |s, i| {
                        b.push((s, i));
                        s.saturating_add(1).max(thr)
                    });
                    assert_eq!(a, b, "{simd:?}");
                }
            }
        }
    }

    #[test]
    fn hits_match_scalar_and_the_scores() {
        let mut st = 13u64;
        for n in (1..80).chain([100, 127, 128, 129, 1000, 1003]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..20 {
                let key = lcg(&mut st);
                // A threshold equal to one of the scores checks that equality is a hit; zero
                // makes every position one, in several batches.
                let exact = score(key, digests[n / 2]);
                let few = u64::MAX - (u64::MAX / n as u64).saturating_mul(3);
                for thr in [0u64, 1 << 63, few, exact] {
                    let expected: Vec<u32> = (0..n as u32)
                        .filter(|&i| score(key, digests[i as usize]) >= thr)
                        .collect();
                    for kernel in kernels() {
                        let mut got = Vec::new();
                        kernel.hits(key, &digests, thr, &mut |batch| {
                            assert!(!batch.is_empty());
                            got.extend_from_slice(batch)
                        });
                        assert_eq!(got, expected, "{kernel:?} n={n} thr={thr}");
                    }
                }
            }
        }
    }

    #[test]
    fn scores_and_lane_max_match_scalar() {
        for simd in kernels() {
            scores_and_lane_max_match_scalar_with(simd);
        }
    }

    fn scores_and_lane_max_match_scalar_with(simd: Kernel) {
        let mut st = 11u64;
        for n in (1..40).chain([64, 100, 256]) {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            for _ in 0..20 {
                let key = lcg(&mut st);
                let mut a = alloc::vec![0u64; n];
                let mut b = alloc::vec![0u64; n];
                let ma = simd.scores_and_lane_max(key, &digests, &mut a);
                let mb = portable::scores_and_lane_max(key, &digests, &mut b);
                assert_eq!((ma, &a), (mb, &b));
                let expected: Vec<u64> = digests.iter().map(|&d| score(key, d)).collect();
                assert_eq!(a, expected);
            }
        }
    }

    #[test]
    fn group_argmax_gives_each_groups_argmax() {
        for simd in kernels() {
            group_argmax_gives_each_groups_argmax_with(simd);
        }
    }

    fn group_argmax_gives_each_groups_argmax_with(simd: Kernel) {
        let mut st = 23u64;
        let (mut laid_out, mut declined) = (0, 0);
        for round in 0..3000 {
            let count = 2 + round % 7;
            let key = lcg(&mut st);
            // Sizes from one node up, equal or not, so that some groups are all padding in
            // some lanes and some layouts are declined.
            let spread = [1u64, 3, 40][round % 3];
            let groups: Vec<Vec<u64>> = (0..count)
                .map(|_| {
                    let len = 1 + (lcg(&mut st) % spread) as usize;
                    let mut g: Vec<u64> = (0..len).map(|_| lcg(&mut st)).collect();
                    match lcg(&mut st) % 4 {
                        // Equal digests: the first position of the best score must win.
                        0 if len > 2 => g[len - 1] = g[1],
                        // Every node of the group scores zero, as padding does.
                        1 => g.iter_mut().for_each(|d| *d = key),
                        _ => {}
                    }
                    g
                })
                .collect();
            let Some(layout) = Interleaved::new(groups.iter().map(|g| g.as_slice())) else {
                declined += 1;
                continue;
            };
            laid_out += 1;
            let Some(best) = simd.group_argmax(key, &layout) else {
                assert_eq!(
                    simd,
                    Kernel::Scalar,
                    "only the scalar kernel has no group pass"
                );
                return;
            };
            for (g, lanes) in groups.iter().enumerate() {
                let (s, pos) = portable::argmax(key, lanes);
                assert_eq!(best[g], (s, pos as u64), "{simd:?} round {round} group {g}");
            }
        }
        assert!(
            laid_out > 1000 && declined > 100,
            "{laid_out} laid out, {declined} declined"
        );
    }

    #[test]
    fn ties_resolve_to_the_first_position() {
        for simd in kernels() {
            ties_resolve_to_the_first_position_with(simd);
        }
    }

    fn ties_resolve_to_the_first_position_with(simd: Kernel) {
        // Equal digests give equal scores in every lane and block.
        for n in [1usize, 3, 8, 9, 12, 15, 17, 23, 64] {
            let digests = alloc::vec![42u64; n];
            assert_eq!(simd.argmax(7, &digests).1, 0);
            let mut digests = alloc::vec![1u64; n];
            digests[n - 1] = 42;
            if n > 1 {
                digests[n / 2] = 42;
            }
            let expected = portable::argmax(9, &digests);
            assert_eq!(simd.argmax(9, &digests), expected);
        }
        // A score of exactly zero must still be found: digest == key gives x = 0, score 0.
        assert_eq!(simd.argmax(5, &[5u64; 16]), (0, 0));
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn selects_match_portable() {
        // Few distinct halves, so that equal high words (decided by the low words) and equal
        // keys are common.
        let mut st = 31u64;
        for _ in 0..20000 {
            let v: [u64; 4] = core::array::from_fn(|_| lcg(&mut st) % 3);
            let c = v[0] == 0;
            assert_eq!(
                x86_64::select(c, v[1], v[2]),
                portable::select(c, v[1], v[2])
            );
            let [(mut ah, mut al), (mut bh, mut bl)] = [(v[0], v[1]); 2];
            x86_64::keep_max(&mut ah, &mut al, v[2], v[3]);
            portable::keep_max(&mut bh, &mut bl, v[2], v[3]);
            assert_eq!((ah, al), (bh, bl), "{v:?}");
            let [mut a, mut b] = [v; 2];
            let [ah, al, at_h, at_l] = &mut a;
            x86_64::max_into(ah, al, at_h, at_l);
            let [bh, bl, bt_h, bt_l] = &mut b;
            portable::max_into(bh, bl, bt_h, bt_l);
            assert_eq!(a, b, "{v:?}");
        }
    }

    #[test]
    fn every_kernel_matches_scalar_up_to_a_hundred_thousand_nodes() {
        // Sizes around the vector widths (8, 16), the AVX-512 argmax's chunks (32) and beyond.
        let mut st = 41u64;
        let sizes = (1..=80).chain([
            95, 96, 97, 100, 127, 128, 129, 255, 257, 1000, 1023, 1025, 4099, 10_000, 65_537,
            100_000,
        ]);
        for n in sizes {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let keys = if n > 5000 { 6 } else { 30 };
            for _ in 0..keys {
                let key = lcg(&mut st);
                let expected = portable::argmax(key, &digests);
                let few = u64::MAX - (u64::MAX / n as u64).saturating_mul(8);
                let mut expected_hits = Vec::new();
                portable::hits(key, &digests, few, &mut |h| {
                    expected_hits.extend_from_slice(h)
                });
                for kernel in kernels() {
                    assert_eq!(kernel.argmax(key, &digests), expected, "{kernel:?} n={n}");
                    let mut got = Vec::new();
                    kernel.hits(key, &digests, few, &mut |h| got.extend_from_slice(h));
                    assert_eq!(got, expected_hits, "{kernel:?} n={n}");
                }
            }
        }
    }

    /// `argmax_many` of `keys` in every kernel, against the scalar kernel's argmax key by key.
    fn argmax_many_matches_scalar_on(keys: &[u64], digests: &[u64], what: &str) {
        let expected: Vec<(u64, usize)> =
            keys.iter().map(|&k| portable::argmax(k, digests)).collect();
        for kernel in kernels() {
            let mut got = alloc::vec![(u64::MAX, usize::MAX); keys.len()];
            kernel.argmax_many(keys, digests, &mut got);
            assert_eq!(got, expected, "{kernel:?} n={} {what}", digests.len());
        }
    }

    #[test]
    fn argmax_many_matches_scalar_up_to_a_hundred_thousand_nodes() {
        // Node counts around the chunks of eight and beyond; key counts around the blocks of 32
        // keys (a block partly filled, several blocks).
        let mut st = 47u64;
        let sizes = (1..=40).chain([
            63, 64, 65, 100, 129, 1000, 1001, 1023, 1024, 1025, 4099, 10_000, 100_000,
        ]);
        for n in sizes {
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let counts: &[usize] = if n > 5000 {
                &[1, 33]
            } else {
                &[1, 7, 31, 32, 33, 64, 100]
            };
            for &count in counts {
                let keys: Vec<u64> = (0..count).map(|_| lcg(&mut st)).collect();
                argmax_many_matches_scalar_on(&keys, &digests, "random");
            }
        }
    }

    #[test]
    fn argmax_many_keeps_the_first_position_on_crafted_ties() {
        // For each key of a block its own best digest is copied to two more positions (the
        // first must win, in or across chunks of eight); some keys score zero everywhere
        // (digest == key) and one fleet has every digest equal.
        let mut st = 53u64;
        for n in [
            1usize, 2, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 100, 1000, 1025, 2100,
        ] {
            for round in 0..6 {
                let mut digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                let mut keys: Vec<u64> = (0..40).map(|_| lcg(&mut st)).collect();
                for key in keys.iter_mut().take(3) {
                    let (_, best) = portable::argmax(*key, &digests);
                    let d = digests[best];
                    for _ in 0..2 {
                        digests[(lcg(&mut st) % n as u64) as usize] = d;
                    }
                }
                if round % 2 == 0 {
                    // A key equal to a digest scores zero against it; with one digest everywhere
                    // every node scores zero.
                    keys[5] = digests[0];
                }
                argmax_many_matches_scalar_on(&keys, &digests, "ties");
                let equal = alloc::vec![digests[0]; n];
                argmax_many_matches_scalar_on(&keys, &equal, "equal");
            }
        }
    }

    #[test]
    fn crafted_ties_keep_the_first_position_in_every_kernel() {
        // The best digest repeated at two positions: the first must win, wherever the two fall
        // (same lane or not, same block, same 32-node chunk or not, in the tail or not).
        let mut st = 43u64;
        for n in [2usize, 7, 8, 9, 16, 31, 32, 33, 40, 64, 65, 100, 129, 1000] {
            for _ in 0..40 {
                let mut digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                let key = lcg(&mut st);
                let (_, best) = portable::argmax(key, &digests);
                let (a, b) = (
                    (lcg(&mut st) % n as u64) as usize,
                    (lcg(&mut st) % n as u64) as usize,
                );
                let d = digests[best];
                digests[a] = d;
                digests[b] = d;
                let first = digests.iter().position(|&x| x == d).unwrap_or(0);
                assert_eq!(portable::argmax(key, &digests), (score(key, d), first));
                // Every node scoring zero (digest == key) and every node equal.
                let zeros = alloc::vec![key; n];
                let equal = alloc::vec![d; n];
                for kernel in kernels() {
                    let got = kernel.argmax(key, &digests);
                    assert_eq!(got, (score(key, d), first), "{kernel:?} n={n} {a} {b}");
                    assert_eq!(kernel.argmax(key, &zeros), (0, 0), "{kernel:?} n={n}");
                    assert_eq!(kernel.argmax(key, &equal).1, 0, "{kernel:?} n={n}");
                }
            }
        }
    }

    #[test]
    fn every_pair_of_tied_positions_keeps_the_first_up_to_seventy_two_nodes() {
        // Every pair of positions, so that each falls in every block, in the last eight digests
        // that a part block is read as (overlapping the block before it), and in both.
        let mut st = 47u64;
        let kernels = kernels();
        for n in 8usize..=72 {
            let base: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let key = lcg(&mut st);
            let d = base[portable::argmax(key, &base).1];
            for a in 0..n {
                for b in a..n {
                    let mut digests = base.clone();
                    digests[a] = d;
                    digests[b] = d;
                    let first = digests.iter().position(|&x| x == d).unwrap();
                    for kernel in &kernels {
                        let got = kernel.argmax(key, &digests);
                        assert_eq!(got, (score(key, d), first), "{kernel:?} n={n} {a} {b}");
                    }
                }
            }
        }
    }

    /// The best `k` positions by sorting: higher score, then lower position.
    fn sorted_positions(key: u64, digests: &[u64], k: usize) -> Vec<usize> {
        let mut all: Vec<(u64, usize)> = digests
            .iter()
            .enumerate()
            .map(|(i, &d)| (score(key, d), i))
            .collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.iter().take(k).map(|p| p.1).collect()
    }

    #[test]
    fn rank_small_is_exact_or_declines_on_equal_scores() {
        // Every k of two to eight nodes, random and with one digest repeated: the answer is the
        // sorted order, or a decline only where equal scores fall among the first k. Nine nodes
        // are never ranked here.
        let mut st = 41u64;
        for kernel in kernels() {
            let mut answered = 0;
            for n in 2..=9 {
                for _ in 0..300 {
                    let mut digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                    let key = lcg(&mut st);
                    let tie = lcg(&mut st).is_multiple_of(3);
                    if tie {
                        let (a, b) = (lcg(&mut st) as usize % n, lcg(&mut st) as usize % n);
                        digests[b] = digests[a];
                    }
                    for k in 1..=n {
                        let expected = sorted_positions(key, &digests, k);
                        let mut out = [usize::MAX; 9];
                        let got = kernel.rank_in_register(key, &digests, &mut out[..k]);
                        let equal_in_first = (0..k).any(|i| {
                            (0..n).any(|j| j != expected[i] && digests[j] == digests[expected[i]])
                        });
                        if got {
                            assert_eq!(&out[..k], &expected[..], "{kernel:?} n={n} k={k}");
                            answered += 1;
                        } else {
                            assert!(
                                n > 8 || kernel.name() != "avx512" || equal_in_first,
                                "{kernel:?} n={n} k={k} declined"
                            );
                        }
                    }
                }
            }
            std::println!("{kernel:?}: {answered} answered");
            if kernel.name() == "avx512" {
                assert!(answered > 0);
            } else {
                assert_eq!(answered, 0, "{kernel:?} has no such pass");
            }
        }
    }

    #[test]
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    fn vendor_rules_follow_cpuid() {
        // The vendor as Linux reads it, where it can be read; and the placement-level top-k
        // takes AVX2's lists and AVX-512's rank counting exactly where the vendor is AMD's.
        let vendor = std::string::String::from_utf8(cpu_vendor().to_vec()).unwrap();
        if let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") {
            let line = info
                .lines()
                .find(|l| l.starts_with("vendor_id"))
                .expect("vendor_id");
            assert_eq!(line.split(':').nth(1).map(str::trim), Some(vendor.as_str()));
        }
        let amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
        std::println!(
            "CPU vendor {vendor}: AVX2 lists and AVX-512 rank counting {}",
            if amd { "on" } else { "off" }
        );
        assert_eq!(amd_or_hygon(), amd);
        // Each rule: its kernel and node count, what the kernel can rank (an answer for every
        // random fleet) and what a placement takes (the same, exactly where the vendor is AMD's).
        type Rank = fn(Kernel, u64, &[u64], &mut [usize]) -> bool;
        let rules: [(Kernel, usize, Rank, Rank); 2] = [
            (Kernel::Avx2, 40, Kernel::top_keyed, Kernel::top_few),
            (
                Kernel::Avx512,
                5,
                Kernel::rank_in_register,
                Kernel::rank_small,
            ),
        ];
        let mut st = 3u64;
        for (kernel, n, can, takes) in rules {
            if !kernels().contains(&kernel) {
                continue;
            }
            let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let mut answered = 0;
            for _ in 0..100 {
                let key = lcg(&mut st);
                let mut out = [0usize; 3];
                assert!(can(kernel, key, &digests, &mut out), "{kernel:?}");
                if takes(kernel, key, &digests, &mut out) {
                    answered += 1;
                }
            }
            assert_eq!(answered, if amd { 100 } else { 0 }, "{kernel:?}");
        }
    }

    #[test]
    fn top_few_is_exact_or_declines() {
        // Random fleets: the vector ranking answers nearly every lookup, always as a sort does.
        // With the best digest repeated (equal scores) it must decline.
        let mut st = 37u64;
        for kernel in kernels() {
            let (mut answered, mut declined) = (0, 0);
            let sizes = [
                100, 127, 128, 129, 144, 145, 383, 384, 385, 448, 449, 639, 640, 641, 704, 1000,
                1024, 1025, 4095, 4096, 4097, 4099,
            ];
            for n in (8..=70).chain(129..=192).chain(sizes).chain([10_000]) {
                let digests: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
                for _ in 0..if n > 2000 { 20 } else { 200 } {
                    let key = lcg(&mut st);
                    for k in [2usize, 3] {
                        let expected = sorted_positions(key, &digests, k);
                        let mut out = [usize::MAX; 3];
                        if kernel.top_keyed(key, &digests, &mut out[..k]) {
                            assert_eq!(&out[..k], &expected[..], "{kernel:?} n={n} k={k}");
                            answered += 1;
                        } else {
                            declined += 1;
                        }
                    }
                    let mut tied = digests.clone();
                    let best = sorted_positions(key, &tied, 1)[0];
                    tied[(best + 1 + (lcg(&mut st) as usize % (n - 1))) % n] = tied[best];
                    let mut out = [usize::MAX; 3];
                    assert!(
                        !kernel.top_keyed(key, &tied, &mut out),
                        "{kernel:?} n={n} tie"
                    );
                }
            }
            std::println!("{kernel:?}: {answered} answered, {declined} declined");
            match kernel.name() {
                // Keys equal outside their position bits are the only declines: about one in
                // ten thousand lookups where the keys are 32 bits, none where they are 64.
                "avx512" => assert!(declined <= answered / 1000, "{declined} of {answered}"),
                // Every node keyed up to the lists' limit; nothing beyond.
                "avx2" => assert!(answered > 0 && declined > 0, "{answered}, {declined}"),
                _ => assert_eq!(answered, 0),
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn top_few_declines_scores_equal_but_in_their_low_bits() {
        // Digests made to score given values: the best two differ only in their lowest bits,
        // which the keys replace by positions, so the keys may order them wrongly. The keys must
        // never be trusted then.
        let digest_of = crate::v1::digest_scoring;
        let mut st = 59u64;
        for kernel in kernels().into_iter().filter(|k| k.name() != "scalar") {
            // Whether the kernel ranks this many nodes in registers at all.
            let ranks = |n: usize| kernel.name() == "avx512" || n <= avx2::LISTS_MAX;
            for n in [
                9usize, 16, 31, 32, 33, 64, 65, 100, 129, 384, 449, 640, 641, 1000,
            ] {
                for round in 0..300 {
                    let key = lcg(&mut st);
                    // The other scores stay below 2^63.
                    let mut digests: Vec<u64> =
                        (0..n).map(|_| digest_of(key, lcg(&mut st) >> 1)).collect();
                    let (a, b) = (
                        (lcg(&mut st) % n as u64) as usize,
                        (lcg(&mut st) % n as u64) as usize,
                    );
                    if a == b {
                        continue;
                    }
                    // Scores that agree but in their lowest three bits, the fewest any key has.
                    let top = (u64::MAX - (lcg(&mut st) >> 40)) & !7;
                    // Every other round the pair is third and fourth instead of first and second:
                    // the top-3 must not trust them, and the top-2, if answered, must be the sort's.
                    let pair_first = round % 2 == 0;
                    let top = if pair_first { top } else { (top >> 1) & !7 };
                    let (sa, sb) = match round % 3 {
                        0 => (top, top | 1),
                        1 => (top | 3, top | 2),
                        _ => (top, top | 4),
                    };
                    digests[a] = digest_of(key, sa);
                    digests[b] = digest_of(key, sb);
                    assert_eq!(score(key, digests[a]), sa);
                    if !pair_first {
                        // Two scores above 2^63, above the pair and every other node, and apart
                        // in their high 23 bits, which the shortest keys keep.
                        let mut others = (0..n).filter(|&i| i != a && i != b);
                        let (x, y) = (others.next().unwrap(), others.next().unwrap());
                        digests[x] = digest_of(key, u64::MAX - (lcg(&mut st) >> 30));
                        digests[y] = digest_of(key, u64::MAX - (1 << 50) - (lcg(&mut st) >> 30));
                    }
                    let mut out = [usize::MAX; 3];
                    for k in [2usize, 3] {
                        let got = kernel.top_keyed(key, &digests, &mut out[..k]);
                        if pair_first || k == 3 {
                            assert!(
                                !got,
                                "n={n} round {round}: keys equal outside their low bits were trusted"
                            );
                        } else if ranks(n) {
                            assert!(got, "{kernel:?} n={n} round {round}: k={k}");
                            assert_eq!(&out[..k], &sorted_positions(key, &digests, k)[..], "n={n}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn top_few_keeps_a_lanes_fourth_when_the_best_three_share_that_lane() {
        // The best four nodes sit in one vector lane (whole blocks' positions that agree mod 8,
        // or the last part block's node in that lane; mod 16 where AVX-512 keys sixteen nodes
        // to a vector, from 129 nodes on). Lists of three keys per lane do not keep the fourth;
        // where the third and fourth agree outside the position bits, with the fourth's key the
        // higher (the lower position), the third must not be trusted: a top-3 declines or
        // answers the sort's order. With four scores apart, every count ranked in registers
        // answers. (From 25 nodes on some lane holds four; the lane is drawn among those.)
        let digest_of = crate::v1::digest_scoring;
        let mut st = 67u64;
        for kernel in kernels().into_iter().filter(|k| k.name() != "scalar") {
            let ranks = |n: usize| kernel.name() == "avx512" || n <= avx2::LISTS_MAX;
            for n in [
                28usize, 32, 33, 40, 64, 99, 100, 127, 128, 129, 200, 300, 640,
            ] {
                #[cfg(hrwhash_avx512)]
                let width = match avx512::NARROW.contains(&n) {
                    true => 16,
                    false => 8,
                };
                #[cfg(not(hrwhash_avx512))]
                let width = 8;
                let blocks = n / width;
                for round in 0..200 {
                    let key = lcg(&mut st);
                    let mut digests: Vec<u64> =
                        (0..n).map(|_| digest_of(key, lcg(&mut st) >> 1)).collect();
                    let members_of = |lane: usize| {
                        let mut members: Vec<usize> =
                            (0..blocks).map(|b| width * b + lane).collect();
                        if n % width != 0 && n - width + lane >= width * blocks {
                            members.push(n - width + lane);
                        }
                        members
                    };
                    let full: Vec<usize> =
                        (0..width).filter(|&l| members_of(l).len() >= 4).collect();
                    let members = members_of(full[(lcg(&mut st) % full.len() as u64) as usize]);
                    // Four of the lane's nodes, in order of position.
                    let mut four = Vec::new();
                    while four.len() < 4 {
                        let p = members[(lcg(&mut st) % members.len() as u64) as usize];
                        if !four.contains(&p) {
                            four.push(p);
                        }
                    }
                    four.sort_unstable();
                    let top = (u64::MAX - (lcg(&mut st) >> 40)) & !0xFF;
                    let tie = round % 2 == 0;
                    // The first two anywhere among the four, well apart; then the third and
                    // fourth: tied but in the lowest bits, the higher score at the higher
                    // position, or apart.
                    let (third, fourth) = match tie {
                        true => (top - (2 << 48) + 5, top - (2 << 48) + 1),
                        false => (top - (2 << 48), top - (3 << 48)),
                    };
                    let (first, second) = (top, top - (1 << 48));
                    let order = [four[0], four[1], four[3], four[2]];
                    let order = if round % 4 < 2 {
                        order
                    } else {
                        [four[1], four[0], four[3], four[2]]
                    };
                    for (&p, s) in order.iter().zip([first, second, third, fourth]) {
                        digests[p] = digest_of(key, s);
                    }
                    let want = sorted_positions(key, &digests, 3);
                    assert_eq!(want[2], order[2], "n={n}: the planted third");
                    let mut out = [usize::MAX; 3];
                    let got = kernel.top_keyed(key, &digests, &mut out);
                    if got {
                        assert_eq!(&out[..], &want[..], "{kernel:?} n={n} round {round}");
                    }
                    if !tie && ranks(n) {
                        assert!(got, "{kernel:?} n={n} round {round}: apart, yet declined");
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn top_few_declines_scores_equal_in_their_high_half_where_it_keys_that_half() {
        // Two of the best scores share their high 32 bits and differ below them. Keys of 64
        // bits tell them apart; the 32-bit keys of `top_keys_narrow3` cannot, and must decline.
        // Whatever a kernel writes must be the sort's order.
        let digest_of = crate::v1::digest_scoring;
        let mut st = 61u64;
        for kernel in kernels().into_iter().filter(|k| k.name() != "scalar") {
            for n in [8usize, 32, 33, 64, 100, 128, 129, 145, 200, 640, 641, 1000] {
                #[cfg(hrwhash_avx512)]
                let narrow = kernel.name() == "avx512" && avx512::NARROW.contains(&n);
                #[cfg(not(hrwhash_avx512))]
                let narrow = false;
                let mut written = 0;
                for round in 0..200 {
                    let key = lcg(&mut st);
                    let mut digests: Vec<u64> =
                        (0..n).map(|_| digest_of(key, lcg(&mut st) >> 1)).collect();
                    let a = (lcg(&mut st) % n as u64) as usize;
                    let b = (a + 1 + (lcg(&mut st) % (n as u64 - 1)) as usize) % n;
                    let top = u64::MAX - (lcg(&mut st) >> 40 << 32);
                    let below = lcg(&mut st) as u32 as u64;
                    let (sa, sb) = match round % 3 {
                        0 => (top, top & !0xFFFF_FFFF | below),
                        1 => (top & !0xFFFF_FFFF | below, top),
                        _ => (top & !(1 << 31), top | (1 << 31)),
                    };
                    if sa == sb {
                        continue;
                    }
                    digests[a] = digest_of(key, sa);
                    digests[b] = digest_of(key, sb);
                    for k in [2usize, 3] {
                        let mut out = [usize::MAX; 3];
                        if kernel.top_keyed(key, &digests, &mut out[..k]) {
                            assert!(
                                !narrow,
                                "{kernel:?} n={n} round {round}: trusted 32-bit keys"
                            );
                            assert_eq!(&out[..k], &sorted_positions(key, &digests, k)[..], "n={n}");
                            written += 1;
                        }
                    }
                }
                // Keys of 64 bits settle these; AVX2 ranks in registers only up to its lists'
                // limit.
                let ranks = kernel.name() == "avx512" || n <= avx2::LISTS_MAX;
                if !narrow && ranks && n != 8 {
                    assert!(written >= 390, "{kernel:?} n={n}: {written} written");
                }
            }
        }
    }

    #[test]
    fn the_mix_inverse_undoes_the_multiplier() {
        use crate::v1::{digest_scoring, MIX_INVERSE, MIX_MULTIPLIER};
        assert_eq!(MIX_MULTIPLIER.wrapping_mul(MIX_INVERSE), 1);
        let mut st = 71u64;
        for _ in 0..1000 {
            let (key, s) = (lcg(&mut st), lcg(&mut st));
            assert_eq!(score(key, digest_scoring(key, s)), s);
        }
    }

    #[test]
    fn a_forced_kernel_is_used_only_where_the_cpu_has_it() {
        let available: Vec<Kernel> = Kernel::available().collect();
        let best = available[0];
        assert_eq!(Kernel::choose(Forced::parse("scalar")), Kernel::Scalar);
        assert_eq!(Kernel::choose(Forced::parse(" SCALAR ")), Kernel::Scalar);
        for name in ["avx512", "avx2"] {
            let got = Kernel::choose(Forced::parse(name));
            assert!(available.contains(&got), "{name} gave {got:?}");
            match Kernel::named(name) {
                // Forced and present: that kernel.
                Some(k) => assert_eq!(got, k),
                // Forced and absent: the next one down that the CPU has.
                None => {
                    assert_ne!(got.name(), name);
                    assert!(Kernel::named("avx512").is_none());
                }
            }
        }
        // Anything else is the automatic choice, which is one of the CPU's kernels.
        for other in ["", "auto", "sse9", "avx"] {
            assert_eq!(
                Kernel::choose(Forced::parse(other)),
                Kernel::choose(Forced::Nothing),
                "{other}"
            );
        }
        assert!(available.contains(&Kernel::choose(Forced::Nothing)));
        // The automatic choice is the fastest kernel the CPU has, except that AVX-512 waits for
        // the cores that multiply cheaply (VBMI2).
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if best.name() == "avx512" && !std::arch::is_x86_feature_detected!("avx512vbmi2") {
            assert_eq!(Kernel::choose(Forced::Nothing).name(), "avx2");
        } else {
            assert_eq!(Kernel::choose(Forced::Nothing), best);
        }
        let _ = best;
    }
}
