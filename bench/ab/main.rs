//! Same-process A/B of two builds of the core on the peer harness's workload (keys `key-0`..,
//! nodes `node-0`.., weights 1, 2, 3, 4, 1, ...). `bench/ab.sh` builds it against this checkout
//! (`new`) and the core at a git revision (`base`); the two run alternately, seven times per row,
//! so load on a shared machine hits both alike.
//!
//!   bash bench/ab.sh main [5,100,1000,10000]     # table: median ns per key, base and new
//!   .../ab cg base|new top1|top3|wtop1|wtop3|none N COUNT   # one op, for callgrind
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
    let ops = ["top1", "top3", "wtop1", "wtop3"];
    println!(
        "{:>6} {:>6} {:>9} {:>9} {:>6}",
        "N", "op", "base", "new", "new/base"
    );
    for &n in &ns {
        for op in ops {
            let (pb, pn) = (base::build(op, n), new::build(op, n));
            let len = (keys.len() * 50 / n.max(50)).min(keys.len());
            let (mut tb, mut tn) = (vec![], vec![]);
            for _ in 0..7 {
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
                tb[3],
                tn[3],
                tn[3] / tb[3],
                tb[0],
                tn[0]
            );
        }
    }
}
