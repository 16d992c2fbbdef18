//! The peer harness's workload for one operation, small enough to run under callgrind, and a
//! same-process timing of every operation when run without arguments.
//!
//!   cargo run --release -p hrwhash-bench --example lookup_profile                 # ns per key, all ops
//!   valgrind --tool=callgrind --branch-sim=yes \
//!     target/release/examples/lookup_profile top3 100 100000                      # one op, one N
//!
//! The op `none` only makes the keys, for subtracting from a profile.
//!
//! Keys `key-0`.., nodes `node-0`.., weights 1, 2, 3, 4, 1, ... exactly as in the harness; distinct
//! keys on every call, so the branch predictor cannot learn a short key list.
use std::hint::black_box;
use std::time::Instant;

use hrwhash::Placement;

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("node-{i}")).collect()
}

fn build(op: &str, n: usize) -> Placement {
    let ids = ids(n);
    match op {
        "wtop1" | "wtop3" => Placement::weighted(
            ids.iter()
                .enumerate()
                .map(|(i, id)| (id, (1 + i % 4) as f64)),
        )
        .unwrap(),
        _ => Placement::new(&ids).unwrap(),
    }
}

fn run(p: &Placement, op: &str, keys: &[String]) -> usize {
    let mut sum = 0usize;
    if op == "none" {
        // The keys only: what a profile subtracts.
        for k in keys {
            sum += black_box(k.as_bytes()).len();
        }
    } else if op.ends_with("top1") {
        for k in keys {
            sum += p.owner_index(black_box(k.as_bytes()));
        }
    } else {
        let mut top = [0usize; 3];
        for k in keys {
            p.rank_into(black_box(k.as_bytes()), &mut top);
            sum += top[0] ^ top[1] ^ top[2];
        }
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [op, n, count] = &args[..] {
        let keys: Vec<String> = (0..count.parse().unwrap())
            .map(|i| format!("key-{i}"))
            .collect();
        let p = build(op, n.parse().unwrap());
        println!("{}", run(&p, op, &keys));
        return;
    }
    let keys: Vec<String> = (0..1 << 20).map(|i| format!("key-{i}")).collect();
    let ops = ["top1", "top3", "wtop1", "wtop3"];
    println!("ns per key, median of 5 passes over 2^20 keys; ratio to top1 at the same N");
    println!(
        "{:>6} {:>10} {:>10} {:>10} {:>10}",
        "N", ops[0], ops[1], ops[2], ops[3]
    );
    for n in [5usize, 20, 100, 1000, 10000] {
        let mut row = Vec::new();
        for op in ops {
            let p = build(op, n);
            let len = (keys.len() * 100 / n.max(100)).min(keys.len());
            let mut t: Vec<f64> = (0..5)
                .map(|_| {
                    let start = Instant::now();
                    black_box(run(&p, op, &keys[..len]));
                    start.elapsed().as_secs_f64() * 1e9 / len as f64
                })
                .collect();
            t.sort_by(|a, b| a.total_cmp(b));
            row.push(t[2]);
        }
        print!("{n:>6}");
        for (i, ns) in row.iter().enumerate() {
            if i == 0 {
                print!(" {ns:>10.1}");
            } else {
                print!(" {:>10}", format!("{ns:.1} {:.2}x", ns / row[0]));
            }
        }
        println!();
    }
}
