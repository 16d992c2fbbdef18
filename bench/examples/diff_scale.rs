//! `diff` over many keys against twice as many owner lookups, for `/usr/bin/time -v`:
//!
//!     cargo run --release -p hrwhash-bench --example diff_scale -- diff 10000000
//!     cargo run --release -p hrwhash-bench --example diff_scale -- owners 20000000
//!
//! Keys are `key-0`, `key-1`, ... written into one reused buffer, so memory is that of the
//! placements and the accumulator; the maximum resident size shows whether it grows with keys.

use std::fmt::Write;
use std::time::Instant;

use hrwhash::{Node, Placement, Transition};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, count) = match args.as_slice() {
        [mode, count] => (mode.as_str(), count.parse::<u64>().expect("a key count")),
        _ => {
            eprintln!("usage: diff_scale diff|owners COUNT");
            std::process::exit(2);
        }
    };
    let old = Placement::new((0..1000).map(|i| format!("node-{i}"))).expect("nodes");
    let new = old.with_node(Node::new("node-1000")).expect("nodes");
    let mut key = String::new();
    let start = Instant::now();
    let result = match mode {
        "diff" => {
            let t = Transition::new(&old, &new);
            let mut d = t.diff();
            for i in 0..count {
                key.clear();
                let _ = write!(key, "key-{i}");
                d.add(&key);
            }
            d.moved()
        }
        "owners" => {
            let mut sum = 0u64;
            for i in 0..count {
                key.clear();
                let _ = write!(key, "key-{}", i / 2);
                let p = if i % 2 == 0 { &old } else { &new };
                sum += p.owner_index(&key) as u64;
            }
            sum
        }
        _ => {
            eprintln!("mode is diff or owners");
            std::process::exit(2);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{mode} {count}: {secs:.3} s ({:.1} ns per item), result {result}",
        secs * 1e9 / count as f64
    );
}
