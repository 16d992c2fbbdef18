//! The numbers of bench/NOTES.md, "Replica balance": plain weighted top-k and replica-balance side
//! by side on keys the solver never saw (replica share error, the smallest node's share, keys
//! whose replica set changes when one weight grows by 10%, solve CPU time), and the lookup cost of
//! each in one run.
//!
//!     cargo run --release -p hrwhash-bench --example replica_balance [KEYS]
//!
//! KEYS defaults to 10^7. Timings are ratios within one run: the machine may be shared.

use std::hint::black_box;
use std::time::Instant;

use hrwhash::policy::ReplicaBalance;
use hrwhash::{Placement, Weight};
use hrwhash_bench::{cpu_ns, SplitMix64};

/// CPU time of this thread, in seconds.
fn cpu_seconds() -> f64 {
    cpu_ns() as f64 * 1e-9
}

enum Mode<'a> {
    Plain(&'a Placement),
    Balanced(&'a ReplicaBalance),
}

impl Mode<'_> {
    fn set(&self, key: &str, k: usize, out: &mut [usize]) {
        match self {
            Mode::Plain(p) => {
                p.rank_into(key, &mut out[..k]);
            }
            Mode::Balanced(b) => {
                b.replicas_into(key, &mut out[..k]);
            }
        }
        out[..k].sort_unstable();
    }
}

struct Measured {
    counts: Vec<u64>,
    changed: u64,
}

/// Replica counts per node and keys whose set changes between `before` and `after`.
fn measure(before: &Mode, after: &Mode, n: usize, k: usize, keys: usize) -> Measured {
    let mut counts = vec![0u64; n];
    let mut changed = 0u64;
    let (mut a, mut b) = (vec![0usize; k], vec![0usize; k]);
    let mut key = String::new();
    for i in 0..keys {
        key.clear();
        use std::fmt::Write;
        write!(key, "key-{i}").unwrap();
        before.set(&key, k, &mut a);
        after.set(&key, k, &mut b);
        for &x in &a {
            counts[x] += 1;
        }
        changed += u64::from(a != b);
    }
    Measured { counts, changed }
}

struct Row {
    max_error: f64,
    class_error: f64,
    smallest: f64,
    moved: f64,
}

fn summarize(m: &Measured, weights: &[f64], k: usize, keys: usize) -> Row {
    let total: f64 = weights.iter().sum();
    let target = |w: f64| k as f64 * w / total;
    let ratio: Vec<f64> = m
        .counts
        .iter()
        .zip(weights)
        .map(|(&c, &w)| c as f64 / keys as f64 / target(w))
        .collect();
    let max_error = ratio.iter().fold(0.0f64, |e, r| e.max((r - 1.0).abs()));
    // Nodes of one weight pooled: their common target is measured on many more replicas.
    let mut classes: Vec<(f64, u64, usize)> = Vec::new();
    for (&c, &w) in m.counts.iter().zip(weights) {
        match classes.iter_mut().find(|x| x.0 == w) {
            Some(x) => {
                x.1 += c;
                x.2 += 1
            }
            None => classes.push((w, c, 1)),
        }
    }
    let class_error = classes.iter().fold(0.0f64, |e, &(w, c, n)| {
        e.max((c as f64 / keys as f64 / (n as f64 * target(w)) - 1.0).abs())
    });
    let small = (0..weights.len())
        .min_by(|&a, &b| weights[a].total_cmp(&weights[b]))
        .unwrap();
    Row {
        max_error,
        class_error,
        smallest: ratio[small],
        moved: m.changed as f64 / keys as f64,
    }
}

fn map(name: &str, weights: &[f64], k: usize, keys: usize) {
    let n = weights.len();
    let ids: Vec<String> = (0..n).map(|i| format!("osd.{i}")).collect();
    let p = Placement::weighted(ids.iter().cloned().zip(weights.iter().copied())).unwrap();
    // One weight change: the heaviest node (the first of them) grows by 10%.
    let heavy = (0..n)
        .max_by(|&a, &b| weights[a].total_cmp(&weights[b]).then(b.cmp(&a)))
        .unwrap();
    let mut after_weights = weights.to_vec();
    after_weights[heavy] *= 1.1;
    let changed = p
        .with_weight(&ids[heavy], Weight::new(after_weights[heavy]).unwrap())
        .unwrap();
    let total: f64 = weights.iter().sum();
    let total_after: f64 = after_weights.iter().sum();
    // Fewest keys that must change: node `heavy` gains k * (share' - share) of the replica
    // slots, and a key can take it in by replacing one other node.
    let optimum = k as f64 * (after_weights[heavy] / total_after - weights[heavy] / total);

    let t = cpu_seconds();
    let balanced = ReplicaBalance::new(p.clone(), k).unwrap();
    let solve = cpu_seconds() - t;
    let balanced_after = ReplicaBalance::new(changed.clone(), k).unwrap();

    let smallest_w = weights.iter().copied().fold(f64::INFINITY, f64::min);
    let p_small = k as f64 * smallest_w / total;
    let sd = ((1.0 - p_small) / (p_small * keys as f64)).sqrt();
    let rows = [
        (
            "plain top-k",
            measure(&Mode::Plain(&p), &Mode::Plain(&changed), n, k, keys),
            "-".to_string(),
        ),
        (
            "replica-balance",
            measure(
                &Mode::Balanced(&balanced),
                &Mode::Balanced(&balanced_after),
                n,
                k,
                keys,
            ),
            format!("{:.1} ms, {} rounds", solve * 1e3, balanced.iterations()),
        ),
    ];
    for (mode, m, solve) in rows {
        let r = summarize(&m, weights, k, keys);
        println!(
            "| {name} | {k} | {keys} | {mode} | {:.2}% | {:.2}% | {:.4} (sd {:.4}) | {:.2}% ({:.2}x) | {solve} |",
            100.0 * r.max_error,
            100.0 * r.class_error,
            r.smallest,
            sd,
            100.0 * r.moved,
            r.moved / optimum,
        );
    }
    println!(
        "|  |  |  | fewest for weight-true sets |  |  |  | {:.2}% |  |",
        100.0 * optimum
    );
}

/// ns per lookup of plain top-k and replica-balance on the same keys, alternating three times
/// (the fastest of each), so that the ratio comes from one run.
fn lookup_cost(name: &str, weights: &[f64], k: usize) {
    let ids: Vec<String> = (0..weights.len()).map(|i| format!("osd.{i}")).collect();
    let p = Placement::weighted(ids.into_iter().zip(weights.iter().copied())).unwrap();
    let balanced = ReplicaBalance::new(p.clone(), k).unwrap();
    let keys: Vec<String> = (0..200_000).map(|i| format!("key-{i}")).collect();
    let mut out = vec![0usize; k];
    let mut best = [f64::INFINITY; 2];
    for _ in 0..3 {
        for (slot, best) in best.iter_mut().enumerate() {
            let start = Instant::now();
            for key in &keys {
                match slot {
                    0 => black_box(p.rank_into(key, &mut out)),
                    _ => black_box(balanced.replicas_into(key, &mut out)),
                };
            }
            *best = best.min(start.elapsed().as_nanos() as f64 / keys.len() as f64);
        }
    }
    println!(
        "| {name} | {k} | {:.0} | {:.0} ({:.2}x) |",
        best[0],
        best[1],
        best[1] / best[0]
    );
}

fn main() {
    let keys: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("KEYS is a number"))
        .unwrap_or(10_000_000);
    let mut s = SplitMix64(0x7265_706c_6963_6132);
    let hundred: Vec<f64> = (0..100).map(|_| (1 + s.next() % 10) as f64).collect();
    let thousand: Vec<f64> = (0..1000).map(|_| (1 + s.next() % 8) as f64).collect();
    // The 1000-node map is measured on a fifth of the keys: its lookups cost ten times more,
    // and its per-node shares are noise-bound at any affordable count (the pooled weight
    // classes are not).
    let maps: [(&str, &[f64], usize, usize); 5] = [
        ("3,3,3,1", &[3.0, 3.0, 3.0, 1.0], 3, keys),
        ("10,10,10,10,1", &[10.0, 10.0, 10.0, 10.0, 1.0], 3, keys),
        ("10,10,10,10,1", &[10.0, 10.0, 10.0, 10.0, 1.0], 2, keys),
        ("100 nodes, 1..10", &hundred, 3, keys),
        ("1000 nodes, 1..8", &thousand, 3, keys / 5),
    ];
    println!("keys key-0.. ; one weight change: the heaviest node's weight x 1.1");
    println!("| map | k | keys | mode | max share error | by weight class | smallest node / target | moved (x fewest) | solve (CPU) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, w, k, keys) in maps {
        map(name, w, k, keys);
    }
    println!("\nns per lookup (fastest of 3 passes over 200,000 keys)");
    println!("| map | k | plain top-k | replica-balance |");
    println!("|---|---|---|---|");
    for (name, w, k, _) in maps {
        lookup_cost(name, w, k);
    }
}
