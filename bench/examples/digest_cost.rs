//! The key digest and the batch lookups, timed on the thread's CPU time (minimum over rounds), so
//! that a shared, oversubscribed machine's waiting does not count; or one operation alone, for
//! callgrind.
//!
//!   cargo run --release -p hrwhash-bench --example digest_cost            # table, ns per key
//!   .../digest_cost cg siphasher|digest|one_at_a_time|owners_into|none N COUNT  # callgrind
//!
//! Keys are 8 to 24 bytes long, the length random per key. `siphasher` is the streaming SipHash
//! the core used before; `digest` is `hrwhash::v1::key_digest`; `one_at_a_time` is
//! `owner_index` per key; `owners_into` the batch call. `HRWHASH_KERNEL=scalar` forces the
//! one-key digest inside `owners_into`.

use std::hint::black_box;

use hrwhash::v1::key_digest;
use hrwhash::Placement;
use hrwhash_bench::{cpu_ns, letter_keys, siphasher};

/// Keys of 8 to 24 bytes, or of the one length `DIGEST_KEY_LEN` gives.
fn keys(count: usize) -> Vec<Vec<u8>> {
    match std::env::var("DIGEST_KEY_LEN")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(len) => letter_keys(count, |_| len),
        None => letter_keys(count, |r| 8 + r as usize % 17),
    }
}

fn run(op: &str, p: &Placement, keys: &[Vec<u8>], out: &mut [usize]) -> u64 {
    let seed = p.seed();
    match op {
        "siphasher" => keys
            .iter()
            .fold(0, |a, k| a ^ siphasher(&seed, black_box(k))),
        "digest" => keys
            .iter()
            .fold(0, |a, k| a ^ key_digest(&seed, black_box(k))),
        "one_at_a_time" => keys
            .iter()
            .fold(0, |a, k| a ^ p.owner_index(black_box(k)) as u64),
        // The keys alone, the baseline of the callgrind counts.
        "none" => keys.iter().fold(0, |a, k| a ^ black_box(k).len() as u64),
        "owners_into" => {
            p.owners_into(black_box(keys), out).unwrap();
            out.iter().fold(0, |a, &o| a ^ o as u64)
        }
        _ => panic!("unknown op {op}"),
    }
}

fn placement(n: usize) -> Placement {
    Placement::new((0..n).map(|i| format!("node-{i}"))).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("cg") {
        let n: usize = args[2].parse().unwrap();
        let count: usize = args[3].parse().unwrap();
        let keys = keys(count);
        let p = placement(n);
        let mut out = vec![0; count];
        println!("{}", run(&args[1], &p, &keys, &mut out));
        return;
    }
    let keys = keys(4096);
    let mut out = vec![0; keys.len()];
    println!(
        "ns per key (thread CPU time, min of 200 rounds of {} keys)",
        keys.len()
    );
    println!(
        "{:>6} {:>10} {:>10} {:>14} {:>12}",
        "N", "siphasher", "digest", "one_at_a_time", "owners_into"
    );
    for n in [1usize, 5, 100, 1000] {
        let p = placement(n);
        let mut best = [u64::MAX; 4];
        let mut sink = 0;
        for _ in 0..200 {
            for (i, op) in ["siphasher", "digest", "one_at_a_time", "owners_into"]
                .iter()
                .enumerate()
            {
                let t = cpu_ns();
                sink ^= run(op, &p, &keys, &mut out);
                best[i] = best[i].min(cpu_ns() - t);
            }
        }
        let per = |t: u64| t as f64 / keys.len() as f64;
        println!(
            "{n:>6} {:>10.1} {:>10.1} {:>14.1} {:>12.1}",
            per(best[0]),
            per(best[1]),
            per(best[2]),
            per(best[3])
        );
        black_box(sink);
    }
}
