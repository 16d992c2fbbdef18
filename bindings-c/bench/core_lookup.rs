//! ns per `Placement::owner_index` on the Rust core, same workload and timing as overhead.c.
use std::hint::black_box;
use std::time::Instant;

use hrwhash_core::Placement;

fn main() {
    let keys: Vec<String> = (0..4096).map(|i| format!("key-{i}")).collect();
    for n in [5usize, 100, 1000] {
        let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
        let p = Placement::new(&ids).expect("valid nodes");
        let passes = if n <= 5 {
            400
        } else if n <= 100 {
            100
        } else {
            20
        };
        let mut per = Vec::new();
        let mut sink = 0usize;
        for _ in 0..7 {
            let t0 = Instant::now();
            for _ in 0..passes {
                for k in &keys {
                    sink += p.owner_index(black_box(k.as_bytes()));
                }
            }
            per.push(t0.elapsed().as_nanos() as f64 / (passes * keys.len()) as f64);
        }
        per.sort_by(f64::total_cmp);
        println!(
            "core   N={n:<5} owner {:8.1} ns/key (min {:.1}) [{}]",
            per[3],
            per[0],
            sink % 10
        );
    }
}
