//! The Rust core's batch cost (`Placement::owners_into`) on the Node benchmark's workload, so
//! bench/compare.js can put the binding's batch overhead next to it in the same run.
//!
//! Prints one line per N: `core,<N>,<ns per key>` (median of 5 passes).
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let ns: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "5,100,1000".into())
        .split(',')
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("bad N list entry {s:?}"))
        })
        .collect();
    let keys: Vec<String> = (0..1 << 16).map(|i| format!("key-{i}")).collect();
    for n in ns {
        let p = hrwhash::Placement::new((0..n).map(|i| format!("node-{i}")))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut out = vec![0usize; keys.len()];
        let mut pass = || {
            let t = Instant::now();
            p.owners_into(black_box(&keys), &mut out)
                .unwrap_or_else(|e| panic!("{e}"));
            black_box(&out);
            t.elapsed().as_nanos() as f64 / keys.len() as f64
        };
        pass();
        let mut samples: Vec<f64> = (0..5).map(|_| pass()).collect();
        samples.sort_by(f64::total_cmp);
        println!("core,{n},{:.1}", samples[2]);
    }
}
