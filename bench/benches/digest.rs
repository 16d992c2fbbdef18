//! The key digest and the batch lookups built on it, in one run.
//!
//! `key_digest/<lengths>`: `siphasher` is the streaming SipHash-1-3 of the framed key the core
//! used before (three writes into `siphasher`'s hasher), `hrwhash` is `hrwhash::v1::key_digest`
//! today, one key at a time. `batch/N=<n>`: `one_at_a_time` calls `owner_index` per key,
//! `owners_into` digests the keys in blocks (eight per AVX-512 register where the CPU has it)
//! before their lookups; N = 1 is nearly the digest alone. Times are per batch of `KEYS` keys.
//! `HRWHASH_KERNEL=scalar` forces the one-key digest in `owners_into`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hrwhash::v1::key_digest;
use hrwhash::{Placement, Seed};
use hrwhash_bench::{letter_keys, siphasher};

const KEYS: usize = 1024;

/// Keys of lengths drawn from `lengths` in a random order, so that a branch on the length is
/// as unpredictable as in a real stream of keys.
fn keys(lengths: &[usize]) -> Vec<Vec<u8>> {
    letter_keys(KEYS, |r| lengths[r as usize % lengths.len()])
}

fn lengths() -> Vec<(&'static str, Vec<usize>)> {
    vec![
        ("8-24B", (8..=24).collect()),
        ("8B", vec![8]),
        ("16B", vec![16]),
        ("24B", vec![24]),
        ("64B", vec![64]),
    ]
}

fn digest(c: &mut Criterion) {
    let seed = Seed::DEFAULT;
    for (name, lengths) in lengths() {
        let keys = keys(&lengths);
        let mut g = c.benchmark_group(format!("key_digest/{name}"));
        g.throughput(Throughput::Elements(KEYS as u64));
        g.bench_function("siphasher", |b| {
            b.iter(|| {
                keys.iter()
                    .fold(0u64, |a, k| a ^ siphasher(&seed, black_box(k)))
            })
        });
        g.bench_function("hrwhash", |b| {
            b.iter(|| {
                keys.iter()
                    .fold(0u64, |a, k| a ^ key_digest(&seed, black_box(k)))
            })
        });
        g.finish();
    }
}

fn batch(c: &mut Criterion) {
    let keys = keys(&(8..=24).collect::<Vec<_>>());
    let mut out = vec![0usize; KEYS];
    let mut g = c.benchmark_group("batch");
    g.throughput(Throughput::Elements(KEYS as u64));
    for n in [1usize, 5, 100, 1000] {
        let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
        let p = Placement::new(&ids).unwrap();
        g.bench_with_input(BenchmarkId::new("one_at_a_time", n), &n, |b, _| {
            b.iter(|| {
                keys.iter()
                    .map(|k| p.owner_index(black_box(k)))
                    .sum::<usize>()
            })
        });
        g.bench_with_input(BenchmarkId::new("owners_into", n), &n, |b, _| {
            b.iter(|| {
                p.owners_into(black_box(&keys), &mut out).unwrap();
                out[KEYS / 2]
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(20)
}

criterion_group! { name = benches; config = config(); targets = digest, batch }
criterion_main!(benches);
