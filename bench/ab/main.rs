//! Same-process A/B of two builds of the core on the peer harness's workload (keys `key-0`..,
//! nodes `node-0`.., weights 1, 2, 3, 4, 1, ...). `bench/ab.sh` builds it against this checkout
//! (`new`) and the core at a git revision (`base`); the two run alternately, seven times per row,
//! so load on a shared machine hits both alike.
//!
//!   bash bench/ab.sh main [5,100,1000,10000]     # table: median ns per key, base and new
//!   .../ab cg base|new top1|top3|wtop1|wtop3|owners|none N COUNT   # one op, for callgrind
//!
//! `owners` is the core's side of Python's `owner_indices` on an Arrow string array: the keys in
//! one buffer with offsets, handed to `owners_into` 256 slices at a time (as
//! `bindings-python/src/arrow.rs` does), the answers stored as u32. `AB_OPS=owners` (or any
//! comma-separated list of the ops) runs only those in the table; `AB_ROUNDS` (7) rounds of at
//! most `AB_KEYS` keys each.
use std::hint::black_box;
use std::time::Instant;
macro_rules! lib {
    ($m:ident) => {
        mod $m {
            use super::*;
            pub fn build(op: &str, n: usize) -> ::$m::Placement {
                let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
                if op.starts_with('w') {
                    ::$m::Placement::weighted(
                        ids.iter()
                            .enumerate()
                            .map(|(i, id)| (id, (1 + i % 4) as f64)),
                    )
                    .unwrap()
                } else {
                    ::$m::Placement::new(&ids).unwrap()
                }
            }
            pub fn run(p: &::$m::Placement, op: &str, keys: &[String]) -> usize {
                let mut sum = 0;
                if op == "owners" {
                    let mut data = Vec::new();
                    let mut offsets = vec![0usize];
                    for k in keys {
                        data.extend_from_slice(k.as_bytes());
                        offsets.push(data.len());
                    }
                    return owners(p, &data, &offsets);
                }
                if op.ends_with("top1") {
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
            /// Owners of the keys `data[offsets[i]..offsets[i + 1]]`, 256 at a time.
            pub fn owners(p: &::$m::Placement, data: &[u8], offsets: &[usize]) -> usize {
                const BLOCK: usize = 256;
                let count = offsets.len() - 1;
                let mut answer = vec![0u32; count];
                let mut keys: [&[u8]; BLOCK] = [&[]; BLOCK];
                let mut block = [0usize; BLOCK];
                let mut start = 0;
                while start < count {
                    let m = (count - start).min(BLOCK);
                    for (k, w) in keys.iter_mut().zip(offsets[start..=start + m].windows(2)) {
                        *k = &data[w[0]..w[1]];
                    }
                    p.owners_into(&keys[..m], &mut block[..m]).unwrap();
                    for (s, &o) in answer[start..].iter_mut().zip(&block[..m]) {
                        *s = o as u32;
                    }
                    start += m;
                }
                black_box(&answer);
                answer.iter().map(|&o| o as usize).sum()
            }
        }
    };
}
lib!(new);
lib!(base);
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 5 && args[0] == "cg" {
        let (lib, op, n, count) = (
            &args[1],
            args[2].as_str(),
            args[3].parse().unwrap(),
            args[4].parse::<usize>().unwrap(),
        );
        let keys: Vec<String> = (0..count).map(|i| format!("key-{i}")).collect();
        let r = if op == "none" {
            keys.iter().map(|k| black_box(k.len())).sum()
        } else if lib == "base" {
            base::run(&base::build(op, n), op, &keys)
        } else {
            new::run(&new::build(op, n), op, &keys)
        };
        println!("{r}");
        return;
    }
    let keys: Vec<String> = (0..1 << 20).map(|i| format!("key-{i}")).collect();
    let ns: Vec<usize> = std::env::args()
        .nth(1)
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![5, 100, 1000, 10000]);
    let ops: Vec<String> = std::env::var("AB_OPS")
        .unwrap_or("top1,top3,wtop1,wtop3".into())
        .split(',')
        .map(String::from)
        .collect();
    // Short rounds, many of them, give minima that a loaded machine has not interrupted.
    let rounds: usize = std::env::var("AB_ROUNDS").map_or(7, |r| r.parse().unwrap());
    // The `owners` op's keys, in one buffer with offsets, made once.
    let mut data = Vec::new();
    let mut offsets = vec![0usize];
    for k in &keys {
        data.extend_from_slice(k.as_bytes());
        offsets.push(data.len());
    }
    println!(
        "{:>6} {:>6} {:>9} {:>9} {:>6}",
        "N", "op", "base", "new", "new/base"
    );
    for &n in &ns {
        for op in &ops {
            let op = op.as_str();
            let (pb, pn) = (base::build(op, n), new::build(op, n));
            let len = (keys.len() * 50 / n.max(50)).min(keys.len());
            let len = std::env::var("AB_KEYS").map_or(len, |k| k.parse::<usize>().unwrap().min(len));
            let (mut tb, mut tn) = (vec![], vec![]);
            for _ in 0..rounds {
                if op == "owners" {
                    // The keys are made outside the timing, as Python's are.
                    let offsets = &offsets[..=len];
                    let t = Instant::now();
                    black_box(base::owners(&pb, &data, offsets));
                    tb.push(t.elapsed().as_secs_f64() * 1e9 / len as f64);
                    let t = Instant::now();
                    black_box(new::owners(&pn, &data, offsets));
                    tn.push(t.elapsed().as_secs_f64() * 1e9 / len as f64);
                    continue;
                }
                let t = Instant::now();
                black_box(base::run(&pb, op, &keys[..len]));
                tb.push(t.elapsed().as_secs_f64() * 1e9 / len as f64);
                let t = Instant::now();
                black_box(new::run(&pn, op, &keys[..len]));
                tn.push(t.elapsed().as_secs_f64() * 1e9 / len as f64);
            }
            tb.sort_by(|a, b| a.total_cmp(b));
            tn.sort_by(|a, b| a.total_cmp(b));
            println!(
                "{n:>6} {op:>6} {:>9.1} {:>9.1} {:>6.2}   (min {:.1} / {:.1})",
                tb[rounds / 2],
                tn[rounds / 2],
                tn[rounds / 2] / tb[rounds / 2],
                tb[0],
                tn[0]
            );
        }
    }
}
