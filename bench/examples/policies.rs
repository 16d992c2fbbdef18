//! The numbers of BENCHMARKS.md, "Policies": bounded-load-v1 online lookups beside plain
//! `owner()`, and replica-balance-v1 beside plain weighted top-k (replica share error, keys whose
//! replica set changes when one weight changes, solve time).
//!
//!     cargo run --release -p hrwhash-bench --example policies
//!
//! Timings are ratios within one run: the machine this runs on may be shared.

use std::hint::black_box;
use std::time::Instant;

use hrwhash::policy::{BalanceFactor, BoundedLoad, ReplicaBalance};
use hrwhash::{Placement, Weight};

const KEYS: usize = 1_000_000;

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key-{i}")).collect()
}

fn online(keys: &[String]) {
    println!("bounded-load-v1, online: ns per lookup, loads = keys placed so far");
    println!(
        "| nodes | c | plain owner() | bounded owner_index() | ratio | keys off their owner |"
    );
    println!("|---|---|---|---|---|---|");
    for n in [10usize, 100, 1000] {
        let p = Placement::new((0..n).map(|i| format!("node-{i}"))).unwrap();
        let start = Instant::now();
        for k in keys {
            black_box(p.owner_index(k));
        }
        let plain = start.elapsed().as_nanos() as f64 / keys.len() as f64;
        for c in [1.05, 1.25, 2.0] {
            let b = BoundedLoad::new(p.clone(), BalanceFactor::from_f64(c).unwrap());
            let mut loads = vec![0u64; n];
            let mut off = 0usize;
            let start = Instant::now();
            for k in keys {
                let i = b.owner_index(k, &loads).unwrap();
                loads[i] += 1;
                off += usize::from(i != p.owner_index(k));
            }
            // The check of affinity above runs a second owner(): take it out of the timing.
            let total = start.elapsed().as_nanos() as f64 / keys.len() as f64 - plain;
            println!(
                "| {n} | {c} | {plain:.1} | {total:.1} | {:.2} | {:.2}% |",
                total / plain,
                100.0 * off as f64 / keys.len() as f64
            );
        }
    }
}

fn replica_sets(
    p: &Placement,
    balanced: Option<&ReplicaBalance>,
    k: usize,
    keys: &[String],
) -> Vec<Vec<usize>> {
    keys.iter()
        .map(|key| {
            let mut set = match balanced {
                Some(b) => b.replicas(key),
                None => p.rank(key, k).iter().map(|n| n.index()).collect(),
            };
            set.sort_unstable();
            set
        })
        .collect()
}

fn max_share_error(sets: &[Vec<usize>], weights: &[f64], k: usize) -> (f64, f64) {
    let total: f64 = weights.iter().sum();
    let mut counts = vec![0usize; weights.len()];
    for s in sets {
        for &i in s {
            counts[i] += 1;
        }
    }
    let errs: Vec<f64> = counts
        .iter()
        .zip(weights)
        .map(|(&c, &w)| c as f64 / sets.len() as f64 / (k as f64 * w / total) - 1.0)
        .collect();
    let last = *errs.last().unwrap();
    (errs.iter().fold(0.0f64, |m, e| m.max(e.abs())), last)
}

fn replicas(keys: &[String]) {
    println!(
        "\nreplica-balance-v1 beside plain weighted top-k, {} keys",
        keys.len()
    );
    println!("| weights | k | mode | max share error | last node's share / target | moved on weight change | solve |");
    println!("|---|---|---|---|---|---|---|");
    let maps: [(&[f64], usize); 4] = [
        (&[3.0, 3.0, 3.0, 1.0], 3),
        (&[10.0, 10.0, 10.0, 10.0, 1.0], 3),
        (&[5.0, 4.0, 3.0, 2.0, 1.0], 2),
        (&[4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 2.0, 2.0, 1.0, 1.0], 3),
    ];
    for (ws, k) in maps {
        let ids: Vec<String> = (0..ws.len()).map(|i| format!("osd.{i}")).collect();
        let p = Placement::weighted(ids.iter().cloned().zip(ws.iter().copied())).unwrap();
        // One weight change: the last node's weight grows by half.
        let last = ids.last().unwrap();
        let changed = p
            .with_weight(last, Weight::new(ws[ws.len() - 1] * 1.5).unwrap())
            .unwrap();
        let plain = replica_sets(&p, None, k, keys);
        let plain_after = replica_sets(&changed, None, k, keys);
        let start = Instant::now();
        let b = ReplicaBalance::new(p.clone(), k).unwrap();
        let solve = start.elapsed();
        let b_after = ReplicaBalance::new(changed.clone(), k).unwrap();
        let balanced = replica_sets(&p, Some(&b), k, keys);
        let balanced_after = replica_sets(&changed, Some(&b_after), k, keys);
        let moved = |a: &[Vec<usize>], b: &[Vec<usize>]| {
            100.0 * a.iter().zip(b).filter(|(x, y)| x != y).count() as f64 / a.len() as f64
        };
        let label: Vec<String> = ws.iter().map(|w| w.to_string()).collect();
        let (e, l) = max_share_error(&plain, ws, k);
        println!(
            "| {} | {k} | plain top-k | {:.1}% | {:.3} | {:.2}% | - |",
            label.join(","),
            100.0 * e,
            1.0 + l,
            moved(&plain, &plain_after)
        );
        let (e, l) = max_share_error(&balanced, ws, k);
        println!(
            "| {} | {k} | replica-balance-v1 | {:.2}% | {:.3} | {:.2}% | {:.0} ms, {} rounds |",
            label.join(","),
            100.0 * e,
            1.0 + l,
            moved(&balanced, &balanced_after),
            solve.as_secs_f64() * 1e3,
            b.iterations()
        );
    }
}

fn main() {
    let keys = keys(KEYS);
    online(&keys);
    replicas(&keys);
}
