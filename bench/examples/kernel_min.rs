//! The per-node kernels against each other on a shared, noisy machine: the fastest of many short
//! runs (the one least disturbed by other processes), every kernel in the same round, for owner,
//! top-3 and the weighted owner at N = 5 .. 100,000, from key digests (the per-node loop alone)
//! and from 8-byte keys. Criterion's medians (`--bench kernels`) are the figures of a quiet machine.
//!
//!   cargo run --release -p hrwhash-bench --example kernel_min [rounds] [ops]
//!
//! `ops` (default `owner,top3,weighted`) limits the run to some of them, for example
//! `owner,top3`. `KERNEL_MIN_SIZES=8,16,100` replaces the node counts.
//!
//! Under callgrind (valgrind has no AVX-512: a forced `avx512` falls back to AVX2 there), one op
//! and N and kernel, for instruction counts:
//!
//!   valgrind --tool=callgrind target/release/examples/kernel_min one owner 100 avx2
//!
//! followed by `digest` or `key` and a count of rounds: `one` runs that many (100) rounds of 256
//! lookups from digests or from 8-byte keys (the key digest included), so that two runs with
//! different counts give the instructions per lookup without the set-up: their difference over
//! `256 * (rounds_a - rounds_b)`. A last argument sets how many distinct keys a round looks up
//! instead of 256: a CPU's branch predictor learns the branches of 256 keys repeated, so timings
//! (`perf stat -e task-clock`) of data-dependent branches take more, such as 65536:
//!
//!   target/release/examples/kernel_min one weighted 5 avx2 key 100 65536
use std::hint::black_box;
use std::time::Instant;

use hrwhash::{__kernel, Placement};

const KEYS: usize = 256;
const SIZES: [usize; 5] = [5, 100, 1000, 10_000, 100_000];

/// The node counts of the table: [`SIZES`], or those `KERNEL_MIN_SIZES` lists.
fn sizes() -> Vec<usize> {
    std::env::var("KERNEL_MIN_SIZES").map_or(SIZES.to_vec(), |list| {
        list.split(',')
            .map(|n| n.trim().parse().expect("KERNEL_MIN_SIZES: node counts"))
            .collect()
    })
}

fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state ^ (*state >> 29)
}

fn build(op: &str, n: usize) -> Placement {
    let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
    match op {
        "weighted" => Placement::weighted(ids.iter().zip((0..n).map(|i| (1 + i % 4) as f64))),
        _ => Placement::new(&ids),
    }
    .unwrap()
}

/// A table's header: one column per node count.
fn header(sizes: &[usize]) {
    let columns: Vec<String> = sizes.iter().map(|n| format!("N={n}")).collect();
    println!("| kernel | {} |", columns.join(" | "));
    println!("| --- |{}", " ---: |".repeat(sizes.len()));
}

/// One batch of `KEYS` lookups; returns a checksum.
fn run(op: &str, p: &Placement, digests: &[u64], keys: Option<&[[u8; 8]]>) -> usize {
    let mut out = [0usize; 3];
    let mut sum = 0;
    for (i, &d) in digests.iter().enumerate() {
        sum += match (op, keys) {
            ("top3", None) => __kernel::rank_of_digest_into(p, black_box(d), &mut out) + out[2],
            ("top3", Some(k)) => p.rank_into(black_box(k[i]), &mut out) + out[2],
            (_, None) => __kernel::owner_of_digest(p, black_box(d)),
            (_, Some(k)) => p.owner_index(black_box(k[i])),
        };
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut st = 0x243F_6A88_85A3_08D3u64;
    if args.first().map(String::as_str) == Some("one") {
        let (op, n, kernel) = (&args[1], args[2].parse().unwrap(), &args[3]);
        let p = __kernel::with(&build(op, n), kernel).expect("a kernel this CPU has");
        eprintln!("kernel {}", __kernel::of(&p));
        let distinct: usize = args.get(6).map_or(KEYS, |k| k.parse().unwrap());
        let digests: Vec<u64> = (0..distinct).map(|_| lcg(&mut st)).collect();
        let keys: Vec<[u8; 8]> = digests.iter().map(|d| d.to_le_bytes()).collect();
        let keys = (args.get(4).map(String::as_str) == Some("key")).then_some(&keys[..]);
        let rounds: usize = args.get(5).map_or(100, |r| r.parse().unwrap());
        let mut sum = 0;
        for _ in 0..rounds {
            sum += run(op, &p, &digests, keys);
        }
        println!("{sum}");
        return;
    }
    let rounds: usize = args.first().map_or(300, |r| r.parse().unwrap());
    let ops: Vec<&str> = args
        .get(1)
        .map_or("owner,top3,weighted", String::as_str)
        .split(',')
        .collect();
    let kernels = __kernel::available();
    let sizes = sizes();
    println!("kernels: {kernels:?}; fastest of {rounds} rounds of {KEYS} lookups, ns per lookup");
    let mut ratios = Vec::new();
    for input in ["digest", "key"] {
        for op in ["owner", "top3", "weighted"] {
            if !ops.contains(&op) {
                continue;
            }
            println!("\n{op}/{input}");
            header(&sizes);
            let mut best = vec![vec![f64::MAX; sizes.len()]; kernels.len()];
            for (j, &n) in sizes.iter().enumerate() {
                let base = build(op, n);
                let ps: Vec<Placement> = kernels
                    .iter()
                    .map(|k| __kernel::with(&base, k).unwrap())
                    .collect();
                let rounds = if n >= 10_000 { rounds / 5 } else { rounds };
                for _ in 0..rounds.max(3) {
                    let digests: Vec<u64> = (0..KEYS).map(|_| lcg(&mut st)).collect();
                    let keys: Vec<[u8; 8]> = digests.iter().map(|d| d.to_le_bytes()).collect();
                    let keys = (input == "key").then_some(&keys[..]);
                    let mut answers = Vec::new();
                    for (i, p) in ps.iter().enumerate() {
                        let t = Instant::now();
                        answers.push(run(op, p, &digests, keys));
                        let ns = t.elapsed().as_nanos() as f64 / KEYS as f64;
                        best[i][j] = best[i][j].min(ns);
                    }
                    assert!(answers.windows(2).all(|w| w[0] == w[1]), "kernels disagree");
                }
            }
            for (i, k) in kernels.iter().enumerate() {
                let cells: Vec<String> = (0..sizes.len())
                    .map(|j| {
                        let t = best[i][j];
                        let vs: Vec<String> = ["avx2", "scalar"]
                            .iter()
                            .filter(|b| *b != k)
                            .filter_map(|b| kernels.iter().position(|x| x == b))
                            .map(|b| format!("{:.2}x", best[b][j] / t))
                            .collect();
                        match vs.is_empty() {
                            true => format!("{t:.1}"),
                            false => format!("{t:.1} ({})", vs.join(", ")),
                        }
                    })
                    .collect();
                println!("| {k} | {} |", cells.join(" | "));
            }
            ratios.push((op, input, best));
        }
    }
    for input in ["digest", "key"] {
        println!("\ntop-3 / owner and weighted / owner, {input} input");
        header(&sizes);
        let of = |op: &str| {
            ratios
                .iter()
                .find(|r| r.0 == op && r.1 == input)
                .map(|r| &r.2)
        };
        let Some(owner) = of("owner") else {
            continue;
        };
        for (i, k) in kernels.iter().enumerate() {
            let cells: Vec<String> = (0..sizes.len())
                .map(|j| {
                    let ratio = |op: &str| {
                        of(op).map_or("-".to_string(), |t| format!("{:.2}", t[i][j] / owner[i][j]))
                    };
                    format!("{} / {}", ratio("top3"), ratio("weighted"))
                })
                .collect();
            println!("| {k} | {} |", cells.join(" | "));
        }
    }
}
