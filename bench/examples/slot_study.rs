//! The slot-table policy at one fleet size: build time, owner lookup, balance, and the slots moved
//! by adding and by removing one node (applied incrementally, and checked against a fresh build),
//! for the plain HRW slot table and bounded-load tables:
//!
//!     cargo run --release -p hrwhash-bench --example slot_study -- 10000 262144 none,100000,50000,30000
//!
//! `ADDS=n` also applies n more single-node additions in a row and reports the worst and the mean
//! movement ratio over them (capacities step by one slot at some sizes, which moves more).
//! Movement is in slots; each slot holds the same expected share of keys, so the ratio of slots
//! moved to the optimum (the new node's share on an add, the removed node's share on a remove)
//! is the ratio of keys moved to the optimum. Times are CPU time of the thread (the machine is
//! shared): build and change in ms, lookups in ns per key.

use std::hint::black_box;

use hrwhash::policy::SlotTable;
use hrwhash::{Node, Placement};
use hrwhash_bench::Clock;

fn moved(a: &SlotTable, b: &SlotTable, same: impl Fn(u32, u32) -> bool) -> usize {
    a.assignments()
        .iter()
        .zip(b.assignments())
        .filter(|(&x, &y)| !same(x, y))
        .count()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, s, ppms] = args.as_slice() else {
        eprintln!("usage: slot_study NODES SLOTS none|PPM[,...]");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("NODES");
    let s: u64 = s.parse().expect("SLOTS");
    let adds: usize = std::env::var("ADDS")
        .ok()
        .map_or(0, |v| v.parse().expect("ADDS"));
    let fleet = Placement::new((0..n).map(|i| format!("node-{i}"))).expect("nodes");
    // Few enough keys to stay in cache: the lookup, not the memory of a million strings.
    let keys: Vec<String> = (0..16_384).map(|i| format!("key-{i}")).collect();
    println!("N={n} S={s} S/N={:.1}", s as f64 / n as f64);
    println!("overload_ppm,build_ms,owner_ns,hrw_owner_ns,max_over_mean,add_moved_ratio,add_apply_ms,remove_moved_ratio,remove_apply_ms,adds_worst_ratio,adds_mean_ratio");
    for ppm in ppms.split(',') {
        let overload = (ppm != "none").then(|| ppm.parse::<u32>().expect("PPM"));
        let t0 = Clock::start();
        let table = SlotTable::ranked(&fleet, s, overload).expect("table");
        let build_ms = t0.ms();

        // Both lookups over the same keys, alternating passes, in one run.
        let (mut slot_ns, mut hrw_ns) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let t = Clock::start();
            let mut acc = 0usize;
            for _ in 0..20 {
                for k in &keys {
                    acc = acc.wrapping_add(table.owner_index(black_box(k)));
                }
            }
            black_box(acc);
            slot_ns = slot_ns.min(t.ms() * 1e6 / (20 * keys.len()) as f64);
            let t = Clock::start();
            for k in &keys[..2000] {
                acc = acc.wrapping_add(fleet.owner_index(black_box(k)));
            }
            black_box(acc);
            hrw_ns = hrw_ns.min(t.ms() * 1e6 / 2000.0);
        }
        let counts = table.slot_counts();
        let max = *counts.iter().max().expect("nodes") as f64;
        let balance = max / (s as f64 / n as f64);

        // A change's CPU time, its table held equal to a fresh build over the changed fleet.
        let timed_change = |what: &str, change: &dyn Fn() -> SlotTable| {
            let t = Clock::start();
            let changed = change();
            let ms = t.ms();
            let fresh = SlotTable::ranked(changed.placement(), s, overload).expect("table");
            assert_eq!(
                changed.assignments(),
                fresh.assignments(),
                "{what}: incremental = fresh"
            );
            (changed, ms)
        };
        let (grown, add_ms) = timed_change("add", &|| {
            table
                .with_node(Node::new(format!("node-{n}")))
                .expect("add")
        });
        let add_ratio = moved(&table, &grown, |a, b| a == b) as f64 / (s as f64 / (n + 1) as f64);

        let (shrunk, remove_ms) =
            timed_change("remove", &|| table.without_node("node-0").expect("remove"));
        // Indices above the removed node's shift down by one.
        let remove_ratio =
            moved(&table, &shrunk, |a, b| a != 0 && a - 1 == b) as f64 / (s as f64 / n as f64);

        let (mut worst, mut sum) = (0f64, 0f64);
        let mut cur = grown;
        for i in 0..adds {
            let next = cur
                .with_node(Node::new(format!("node-{}", n + 1 + i)))
                .expect("add");
            let m = cur.placement().len() + 1;
            let r = moved(&cur, &next, |a, b| a == b) as f64 / (s as f64 / m as f64);
            worst = worst.max(r);
            sum += r;
            cur = next;
        }
        let mean = if adds > 0 {
            sum / adds as f64
        } else {
            f64::NAN
        };
        println!(
            "{ppm},{build_ms:.0},{slot_ns:.1},{hrw_ns:.1},{balance:.4},{add_ratio:.3},{add_ms:.1},{remove_ratio:.3},{remove_ms:.1},{worst:.3},{mean:.3}"
        );
    }
}
