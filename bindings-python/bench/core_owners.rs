//! Times the Rust core on the workload of `bench/compare.py` and prints `N,op,ns_per_key` lines:
//! keys "key-0".., nodes "node-0".., `owner_index` one key at a time and `owners_into` in one call.
use std::hint::black_box;
use std::time::Instant;

use hrwhash::Placement;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let reps = 5;
    for n in [5usize, 100, 1000] {
        let placement = Placement::new((0..n).map(|i| format!("node-{i}"))).expect("valid nodes");
        let keys: Vec<String> = (0..(2_000_000 / n).clamp(20_000, 400_000))
            .map(|i| format!("key-{i}"))
            .collect();
        let mut out = vec![0usize; keys.len()];
        let mut single = Vec::new();
        let mut batch = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            for key in &keys {
                black_box(placement.owner_index(black_box(key)));
            }
            single.push(t.elapsed().as_nanos() as f64 / keys.len() as f64);
            let t = Instant::now();
            placement
                .owners_into(black_box(&keys), &mut out)
                .expect("out is as long as keys");
            black_box(&out);
            batch.push(t.elapsed().as_nanos() as f64 / keys.len() as f64);
        }
        println!("{n},owner,{:.1}", median(single));
        println!("{n},owners,{:.1}", median(batch));
    }
}
