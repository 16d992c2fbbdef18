//! hrwhash beside the Rust peers on the same keys and nodes, in one run.
//!
//! Groups: `owner/<keylen>B/N=<n>`, `top3/N=<n>`, `weighted/N=<n>`; in each, one function per
//! library. Times are per batch of `KEYS` keys; divide by `KEYS` for the per-key figure.

use std::collections::hash_map::DefaultHasher;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use hrwhash::Placement;
use rendezvous_hash::{DefaultNodeHasher, RendezvousNodes};

const KEYS: usize = 256;
const SIZES: [usize; 4] = [5, 100, 1000, 10000];

// hash-rings defaults to a random hasher per ring; a fixed one makes placements reproducible.
type Fixed = BuildHasherDefault<DefaultHasher>;

fn nodes(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("node-{i}")).collect()
}

fn keys(len: usize) -> Vec<String> {
    let mut state = 0x243F_6A88_85A3_08D3u64;
    (0..KEYS)
        .map(|_| {
            (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (b'a' + ((state >> 33) % 26) as u8) as char
                })
                .collect()
        })
        .collect()
}

/// Weights 1, 2, 3, 4, 1, 2, ... as in the cross-language harness.
fn cycled_weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| (1 + i % 4) as f64).collect()
}

/// Every node a different weight.
fn distinct_weights(n: usize) -> Vec<f64> {
    (0..n).map(|i| 1.0 + i as f64 / n as f64).collect()
}

#[derive(PartialEq, Eq)]
struct Capacity<'a> {
    id: &'a str,
    cap: usize,
}
impl Hash for Capacity<'_> {
    fn hash<S: Hasher>(&self, s: &mut S) {
        self.id.hash(s)
    }
}
impl hrw_hash::HrwNode for Capacity<'_> {
    fn capacity(&self) -> usize {
        self.cap
    }
}

/// rendezvous_hash's unweighted nodes, one per id.
fn rendezvous_nodes(ids: &[String]) -> RendezvousNodes<&str, DefaultNodeHasher> {
    let mut rh = RendezvousNodes::default();
    ids.iter().for_each(|id| {
        rh.insert(id.as_str());
    });
    rh
}

/// The functions `add` gives at every size of `SIZES` (called with the node ids), in group `name`,
/// over `KEYS` keys of `len` bytes.
fn each_size(
    c: &mut Criterion,
    name: &str,
    len: usize,
    mut add: impl FnMut(&mut BenchmarkGroup<'_, WallTime>, &[String], usize, &[String]),
) {
    let keys = keys(len);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(KEYS as u64));
    for n in SIZES {
        add(&mut g, &keys, n, &nodes(n));
    }
    g.finish();
}

fn owner(c: &mut Criterion) {
    for len in [8usize, 64, 1024] {
        each_size(c, &format!("owner/{len}B"), len, |g, keys, n, ids| {
            let ours = Placement::new(ids).unwrap();
            g.bench_with_input(BenchmarkId::new("hrwhash", n), &n, |b, _| {
                b.iter(|| keys.iter().map(|k| ours.owner_index(k)).sum::<usize>())
            });
            let rh = rendezvous_nodes(ids);
            g.bench_with_input(BenchmarkId::new("rendezvous_hash", n), &n, |b, _| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| rh.calc_candidates(k).next().unwrap().len())
                        .sum::<usize>()
                })
            });
            let mut ring = hash_rings::rendezvous::Ring::with_hasher(Fixed::default());
            ids.iter().for_each(|id| ring.insert_node(id, 1));
            g.bench_with_input(BenchmarkId::new("hash-rings", n), &n, |b, _| {
                b.iter(|| keys.iter().map(|k| ring.get_node(k).len()).sum::<usize>())
            });
            let hh = hrw_hash::HrwNodes::new(ids.iter().map(String::as_str));
            g.bench_with_input(BenchmarkId::new("hrw-hash", n), &n, |b, _| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| hh.sorted(k).next().unwrap().len())
                        .sum::<usize>()
                })
            });
        });
    }
}

fn top3(c: &mut Criterion) {
    each_size(c, "top3/8B", 8, |g, keys, n, ids| {
        let ours = Placement::new(ids).unwrap();
        g.bench_with_input(BenchmarkId::new("hrwhash", n), &n, |b, _| {
            let mut out = [0usize; 3];
            b.iter(|| {
                keys.iter()
                    .map(|k| ours.rank_into(k, &mut out) + out[2])
                    .sum::<usize>()
            })
        });
        let rh = rendezvous_nodes(ids);
        g.bench_with_input(BenchmarkId::new("rendezvous_hash", n), &n, |b, _| {
            b.iter(|| {
                keys.iter()
                    .map(|k| {
                        rh.calc_candidates(k)
                            .take(3)
                            .map(|s| s.len())
                            .sum::<usize>()
                    })
                    .sum::<usize>()
            })
        });
        let hh = hrw_hash::HrwNodes::new(ids.iter().map(String::as_str));
        g.bench_with_input(BenchmarkId::new("hrw-hash", n), &n, |b, _| {
            b.iter(|| {
                keys.iter()
                    .map(|k| hh.sorted(k).take(3).map(|s| s.len()).sum::<usize>())
                    .sum::<usize>()
            })
        });
    });
}

fn weighted(c: &mut Criterion) {
    each_size(c, "weighted/8B", 8, |g, keys, n, ids| {
        let cycled = cycled_weights(n);
        let ours = Placement::weighted(ids.iter().zip(cycled.iter().copied())).unwrap();
        g.bench_with_input(BenchmarkId::new("hrwhash-4-weights", n), &n, |b, _| {
            b.iter(|| keys.iter().map(|k| ours.owner_index(k)).sum::<usize>())
        });
        let distinct = Placement::weighted(ids.iter().zip(distinct_weights(n))).unwrap();
        g.bench_with_input(
            BenchmarkId::new("hrwhash-distinct-weights", n),
            &n,
            |b, _| b.iter(|| keys.iter().map(|k| distinct.owner_index(k)).sum::<usize>()),
        );
        let mut rh = rendezvous_hash::RendezvousNodes::default();
        for (id, &w) in ids.iter().zip(&cycled) {
            rh.insert(rendezvous_hash::WeightedNode::new(
                id.as_str(),
                rendezvous_hash::Capacity::new(w).unwrap(),
            ));
        }
        g.bench_with_input(BenchmarkId::new("rendezvous_hash", n), &n, |b, _| {
            b.iter(|| {
                keys.iter()
                    .map(|k| rh.calc_candidates(k).next().unwrap().node.len())
                    .sum::<usize>()
            })
        });
        let mut ring = hash_rings::weighted_rendezvous::Ring::with_hasher(Fixed::default());
        for (id, &w) in ids.iter().zip(&cycled) {
            ring.insert_node(id, w);
        }
        g.bench_with_input(BenchmarkId::new("hash-rings", n), &n, |b, _| {
            b.iter(|| keys.iter().map(|k| ring.get_node(k).len()).sum::<usize>())
        });
        let hh = hrw_hash::HrwNodes::new(ids.iter().zip(&cycled).map(|(id, &w)| Capacity {
            id,
            cap: w as usize,
        }));
        g.bench_with_input(BenchmarkId::new("hrw-hash", n), &n, |b, _| {
            b.iter(|| {
                keys.iter()
                    .map(|k| hh.sorted(k).next().unwrap().id.len())
                    .sum::<usize>()
            })
        });
    });
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .sample_size(20)
}

criterion_group! { name = benches; config = config(); targets = owner, top3, weighted }
criterion_main!(benches);

#[allow(dead_code)]
fn unused(_: &str) -> usize {
    black_box(0)
}
