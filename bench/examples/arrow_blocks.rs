//! The core's side of Python's `owner_indices` on a pyarrow `string` array: the keys `key-0` ..
//! `key-999999` in one Arrow-style buffer with offsets, read in blocks of slices and handed to
//! `owners_into` block by block, as `bindings-python/src/arrow.rs` does, for several block sizes
//! and as one call over every key. Thread CPU time, the minimum of 7 runs, ns per key; the
//! difference to `bindings-python/bench/arrow_lookups.py` is what the binding adds (import,
//! validation, the answer's array).
//!
//!   cargo run --release -p hrwhash-bench --example arrow_blocks [N]
use std::hint::black_box;

use hrwhash::Placement;
use hrwhash_bench::cpu_ns;

fn main() {
    let n: usize = std::env::args().nth(1).map_or(100, |a| a.parse().unwrap());
    let count = 1_000_000usize;
    let mut data = Vec::new();
    let mut offsets = vec![0usize];
    for i in 0..count {
        data.extend_from_slice(format!("key-{i}").as_bytes());
        offsets.push(data.len());
    }
    let p = Placement::new((0..n).map(|i| format!("node-{i}"))).unwrap();
    let mut answer = vec![0u32; count];
    for block in [64usize, 256, 1024, 4096] {
        let mut best = u64::MAX;
        for _ in 0..7 {
            let t = cpu_ns();
            let mut keys: Vec<&[u8]> = vec![&[]; block];
            let mut owners = vec![0usize; block];
            let mut start = 0;
            while start < count {
                let m = (count - start).min(block);
                for (k, w) in keys.iter_mut().zip(offsets[start..=start + m].windows(2)) {
                    *k = &data[w[0]..w[1]];
                }
                p.owners_into(&keys[..m], &mut owners[..m]).unwrap();
                for (s, &o) in answer[start..].iter_mut().zip(&owners[..m]) {
                    *s = o as u32;
                }
                start += m;
            }
            black_box(&answer);
            best = best.min(cpu_ns() - t);
        }
        println!(
            "N = {n}, blocks of {block}: {:.1} ns per key",
            best as f64 / count as f64
        );
    }
    let keys: Vec<&[u8]> = offsets.windows(2).map(|w| &data[w[0]..w[1]]).collect();
    let mut owners = vec![0usize; count];
    let mut best = u64::MAX;
    for _ in 0..7 {
        let t = cpu_ns();
        p.owners_into(&keys, &mut owners).unwrap();
        best = best.min(cpu_ns() - t);
    }
    println!(
        "N = {n}, one call: {:.1} ns per key",
        best as f64 / count as f64
    );
}
