//! The numbers of bench/NOTES.md, "Policies": bounded-load-v1 online lookups beside plain
//! `owner()` (replica balance has its own example, `replica_balance`).
//!
//!     cargo run --release -p hrwhash-bench --example policies
//!
//! Timings are ratios within one run: the machine this runs on may be shared.

use std::hint::black_box;
use std::time::Instant;

use hrwhash::policy::{BalanceFactor, BoundedLoad};
use hrwhash::Placement;

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

fn main() {
    let keys = keys(KEYS);
    online(&keys);
}
