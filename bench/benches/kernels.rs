//! The per-node kernels against each other, in one run: every kernel this CPU has (`scalar`,
//! `avx2`, `avx512`), on the same placements and keys.
//!
//! Groups `<op>/<input>/N=<n>` with one function per kernel; `op` is `owner`, `top3`
//! (`rank_into` with 3 slots) or `weighted` (owner over weights 1, 2, 3, 4 repeated); `input` is
//! `key` (8-byte keys, hashed as users' lookups are) or `digest` (key digests given: the per-node
//! loop alone). Times are per batch of `KEYS` keys. `bench/summarize_kernels.py` prints ns per
//! key and the ratios against AVX2 and scalar.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hrwhash::{__kernel, Placement};

const KEYS: usize = 256;
const SIZES: [usize; 5] = [5, 100, 1000, 10_000, 100_000];

fn nodes(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("node-{i}")).collect()
}

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state
}

fn keys() -> Vec<String> {
    let mut state = 0x243F_6A88_85A3_08D3u64;
    (0..KEYS)
        .map(|_| {
            (0..8)
                .map(|_| (b'a' + ((lcg(&mut state) >> 33) % 26) as u8) as char)
                .collect()
        })
        .collect()
}

fn digests() -> Vec<u64> {
    let mut state = 0x1319_8A2E_0370_7344u64;
    (0..KEYS).map(|_| lcg(&mut state) ^ (state >> 29)).collect()
}

#[derive(Clone, Copy)]
enum Op {
    Owner,
    Top3,
}

fn bench_placements(c: &mut Criterion, name: &str, op: Op, build: impl Fn(usize) -> Placement) {
    let keys = keys();
    let digests = digests();
    for input in ["key", "digest"] {
        let mut g = c.benchmark_group(format!("{name}/{input}"));
        g.throughput(Throughput::Elements(KEYS as u64));
        for n in SIZES {
            let base = build(n);
            for kernel in __kernel::available() {
                let p = __kernel::with(&base, kernel).expect("available");
                assert_eq!(__kernel::of(&p), kernel);
                let mut out = [0usize; 3];
                g.bench_with_input(BenchmarkId::new(kernel, n), &n, |b, _| match (op, input) {
                    (Op::Owner, "key") => {
                        b.iter(|| keys.iter().map(|k| p.owner_index(k)).sum::<usize>())
                    }
                    (Op::Owner, _) => b.iter(|| {
                        digests
                            .iter()
                            .map(|&d| __kernel::owner_of_digest(&p, black_box(d)))
                            .sum::<usize>()
                    }),
                    (Op::Top3, "key") => b.iter(|| {
                        keys.iter()
                            .map(|k| p.rank_into(k, &mut out) + out[2])
                            .sum::<usize>()
                    }),
                    (Op::Top3, _) => b.iter(|| {
                        digests
                            .iter()
                            .map(|&d| {
                                __kernel::rank_of_digest_into(&p, black_box(d), &mut out) + out[2]
                            })
                            .sum::<usize>()
                    }),
                });
            }
        }
        g.finish();
    }
}

fn owner(c: &mut Criterion) {
    bench_placements(c, "owner", Op::Owner, |n| Placement::new(nodes(n)).unwrap());
}

fn top3(c: &mut Criterion) {
    bench_placements(c, "top3", Op::Top3, |n| Placement::new(nodes(n)).unwrap());
}

fn weighted(c: &mut Criterion) {
    bench_placements(c, "weighted", Op::Owner, |n| {
        let ids = nodes(n);
        Placement::weighted(ids.iter().zip((0..n).map(|i| (1 + i % 4) as f64))).unwrap()
    });
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800))
        .sample_size(15)
}

criterion_group! { name = benches; config = config(); targets = owner, top3, weighted }
criterion_main!(benches);
