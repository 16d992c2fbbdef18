//! A candidate large-N slot table that depends on the order of changes: the **levelled table**.
//! It is measured here, beside plain hrw-v1 in the same run, against the targets that
//! `slot-table-v1` misses (movement at most 1.25x the optimum with max/mean at most 1.05):
//!
//!     cargo run --release -p hrwhash-bench --example slot_levelled_study -- 10000 262144
//!     cargo run --release -p hrwhash-bench --example slot_levelled_study -- 100000 2097152
//!
//! `WEIGHTS=1,2,3,4` gives the nodes those weights in turn (default: all 1); `CHANGES=n` applies
//! `CORE=1` also times the core's levelled `SlotTable` (slot-table-v2), its changes copying and in place. `V1=none,50000` also builds slot-table-v1 tables (those overload bounds) over the same fleet
//! and splits their movement into the slots any rule must move and the chains between nodes that
//! stay. `CHANGES=n` applies
//! n changes in a row (an add, then a remove of a node chosen by a fixed generator, and so on:
//! default 200) and reports the worst and mean movement over them and the worst balance seen.
//!
//! The rule, which is what a specification of it would say:
//! - a first table from a membership: every node gets its share `S * w / T` rounded by largest
//!   remainder, and the nodes, in node-digest order, take consecutive runs of slots;
//! - adding a node of weight `w`: it takes `round(S * w / T')` slots, one at a time, each from the
//!   node that is then most loaded (slots held over weight), choosing among that node's slots the
//!   one it scores highest by hrw-v1;
//! - removing a node: its slots go one at a time to the node that is then least loaded, which
//!   takes the one it scores highest.
//!
//! Every slot that moves goes to the new node or comes from the removed one, so movement is the
//! optimum up to rounding by construction; the table depends on the sequence of changes, not only
//! on the membership (a table of the membership alone cannot have both: bench/NOTES.md). Times are
//! CPU time of the thread: the machine is shared; a change takes milliseconds, below the tick of that clock, so changes are timed
//! by the wall clock (their worst case then includes other processes' turns).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::hint::black_box;

use hrwhash::policy::slot_table::slot_of_digest;
use hrwhash::policy::SlotTable;
use hrwhash::v1::{key_digest, node_digest, score};
use hrwhash::{Placement, Seed, Weight};
use hrwhash_bench::{Clock, SplitMix64};

const SLOT_KEY_PREFIX: &[u8] = b"slot-table-v1:";

/// A node's load for the heaps: slots held over fixed-point weight, compared exactly.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Load {
    held: u32,
    weight: u64,
    digest: u64,
    index: u32,
}

impl Ord for Load {
    fn cmp(&self, o: &Load) -> Ordering {
        (self.held as u128 * o.weight as u128)
            .cmp(&(o.held as u128 * self.weight as u128))
            .then(self.digest.cmp(&o.digest))
            .then(self.index.cmp(&o.index))
    }
}
impl PartialOrd for Load {
    fn partial_cmp(&self, o: &Load) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Node indices are never reused: a removed node keeps its index with weight 0.
struct Levelled {
    slot_digests: Vec<u64>,
    node_digests: Vec<u64>,
    weights: Vec<u64>,
    table: Vec<u32>,
    slots_of: Vec<Vec<u32>>,
    /// Position of each slot in its owner's `slots_of` list.
    pos: Vec<u32>,
}

impl Levelled {
    fn new(seed: &Seed, slots: u32, ids: &[String], weights: &[u64]) -> Levelled {
        let mut key = SLOT_KEY_PREFIX.to_vec();
        let slot_digests = (0..slots)
            .map(|s| {
                key.truncate(SLOT_KEY_PREFIX.len());
                key.extend_from_slice(&s.to_le_bytes());
                key_digest(seed, &key)
            })
            .collect();
        let node_digests: Vec<u64> = ids
            .iter()
            .map(|id| node_digest(seed, id.as_bytes()))
            .collect();
        let total: u128 = weights.iter().map(|&w| w as u128).sum();
        let s = slots as u128;
        let mut quota: Vec<u32> = weights
            .iter()
            .map(|&w| (s * w as u128 / total) as u32)
            .collect();
        let short = slots - quota.iter().sum::<u32>();
        let mut by_remainder: Vec<usize> = (0..ids.len()).collect();
        by_remainder.sort_by_key(|&i| {
            (
                std::cmp::Reverse(s * weights[i] as u128 % total),
                node_digests[i],
            )
        });
        for &i in &by_remainder[..short as usize] {
            quota[i] += 1;
        }
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| node_digests[i]);
        let mut table = Vec::with_capacity(slots as usize);
        let mut slots_of = vec![Vec::new(); ids.len()];
        let mut pos = Vec::with_capacity(slots as usize);
        for i in order {
            for _ in 0..quota[i] {
                pos.push(slots_of[i].len() as u32);
                slots_of[i].push(table.len() as u32);
                table.push(i as u32);
            }
        }
        Levelled {
            slot_digests,
            node_digests,
            weights: weights.to_vec(),
            table,
            slots_of,
            pos,
        }
    }

    fn load(&self, i: usize) -> Load {
        Load {
            held: self.slots_of[i].len() as u32,
            weight: self.weights[i],
            digest: self.node_digests[i],
            index: i as u32,
        }
    }

    fn give(&mut self, slot: u32, to: usize) {
        let from = self.table[slot as usize] as usize;
        let at = self.pos[slot as usize] as usize;
        self.slots_of[from].swap_remove(at);
        if let Some(&moved) = self.slots_of[from].get(at) {
            self.pos[moved as usize] = at as u32;
        }
        self.pos[slot as usize] = self.slots_of[to].len() as u32;
        self.slots_of[to].push(slot);
        self.table[slot as usize] = to as u32;
    }

    /// The slot of `list` that node `i` scores highest (ties: the lower slot).
    fn best_for(&self, i: usize, list: &[u32]) -> usize {
        let nd = self.node_digests[i];
        let mut best = 0;
        let mut key = (0u64, u32::MAX);
        for (k, &slot) in list.iter().enumerate() {
            let sc = score(self.slot_digests[slot as usize], nd);
            if sc > key.0 || (sc == key.0 && slot < key.1) {
                key = (sc, slot);
                best = k;
            }
        }
        best
    }

    fn add(&mut self, id: &str, seed: &Seed, weight: u64) -> usize {
        let j = self.weights.len();
        self.node_digests.push(node_digest(seed, id.as_bytes()));
        self.weights.push(weight);
        self.slots_of.push(Vec::new());
        let total: u128 = self.weights.iter().map(|&w| w as u128).sum();
        let s = self.table.len() as u128;
        let want = ((2 * s * weight as u128 + total) / (2 * total)) as usize;
        let mut heap: BinaryHeap<Load> = (0..j)
            .filter(|&i| self.weights[i] > 0)
            .map(|i| self.load(i))
            .collect();
        for _ in 0..want {
            let donor = heap.pop().expect("a node holds a slot").index as usize;
            let at = self.best_for(j, &self.slots_of[donor]);
            let slot = self.slots_of[donor][at];
            self.give(slot, j);
            heap.push(self.load(donor));
        }
        want
    }

    fn remove(&mut self, j: usize) -> usize {
        self.weights[j] = 0;
        let mut orphans = std::mem::take(&mut self.slots_of[j]);
        let n = orphans.len();
        // Give each orphan back a valid position before `give` moves it.
        for (k, &slot) in orphans.iter().enumerate() {
            self.pos[slot as usize] = k as u32;
        }
        self.slots_of[j] = orphans.clone();
        let mut heap: BinaryHeap<std::cmp::Reverse<Load>> = (0..self.weights.len())
            .filter(|&i| self.weights[i] > 0)
            .map(|i| std::cmp::Reverse(self.load(i)))
            .collect();
        while !orphans.is_empty() {
            let taker = heap.pop().expect("a node remains").0.index as usize;
            let at = self.best_for(taker, &orphans);
            let slot = orphans.swap_remove(at);
            self.give(slot, taker);
            heap.push(std::cmp::Reverse(self.load(taker)));
        }
        n
    }

    /// Largest ratio of slots held to the weighted fair share, over the nodes present.
    fn max_over_share(&self) -> f64 {
        let total: f64 = self.weights.iter().map(|&w| w as f64).sum();
        let s = self.table.len() as f64;
        (0..self.weights.len())
            .filter(|&i| self.weights[i] > 0)
            .map(|i| self.slots_of[i].len() as f64 / (s * self.weights[i] as f64 / total))
            .fold(0.0, f64::max)
    }

    fn check(&self) {
        for (slot, &o) in self.table.iter().enumerate() {
            assert!(
                self.weights[o as usize] > 0,
                "slot {slot} on a removed node"
            );
            assert_eq!(
                self.slots_of[o as usize][self.pos[slot] as usize],
                slot as u32
            );
        }
    }
}

/// A copy of `table` in 2 MiB-aligned memory advised as huge pages: a table of several MiB
/// read at random slots costs a TLB miss per lookup on 4 KiB pages.
struct HugeTable {
    ptr: *mut u32,
    len: usize,
    layout: std::alloc::Layout,
}

impl HugeTable {
    fn new(table: &[u32]) -> HugeTable {
        let bytes = (table.len() * 4).div_ceil(1 << 21) << 21;
        let layout = std::alloc::Layout::from_size_align(bytes, 1 << 21).expect("layout");
        // SAFETY: the layout has a non-zero size; the memory is written before it is read.
        let ptr = unsafe { std::alloc::alloc(layout) } as *mut u32;
        assert!(!ptr.is_null(), "allocation");
        // SAFETY: ptr..ptr+bytes is the allocation just made; madvise only advises the kernel.
        let advised =
            unsafe { libc::madvise(ptr as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
        assert_eq!(advised, 0, "madvise");
        // SAFETY: the allocation holds at least table.len() u32s and does not overlap `table`.
        unsafe { std::ptr::copy_nonoverlapping(table.as_ptr(), ptr, table.len()) };
        HugeTable {
            ptr,
            len: table.len(),
            layout,
        }
    }

    fn as_slice(&self) -> &[u32] {
        // SAFETY: the first len u32s were initialised in new, and the memory lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for HugeTable {
    fn drop(&mut self) {
        // SAFETY: ptr was allocated with this layout in new.
        unsafe { std::alloc::dealloc(self.ptr as *mut u8, self.layout) }
    }
}

/// Best of five passes of at least 30 ms of CPU each (the CPU clock advances in scheduler
/// ticks), in ns per lookup.
fn lookup_ns(keys: &[String], mut f: impl FnMut(&str) -> usize) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Clock::start();
        let (mut acc, mut rounds) = (0usize, 0usize);
        while rounds == 0 || t.ms() < 30.0 {
            for k in keys {
                acc = acc.wrapping_add(f(black_box(k)));
            }
            rounds += 1;
        }
        black_box(acc);
        best = best.min(t.ms() * 1e6 / (rounds * keys.len()) as f64);
    }
    best
}

/// A ranked table's capacities; the plain HRW table bounds no node (every slot).
fn capacities(t: &SlotTable) -> Vec<u32> {
    t.capacities()
        .unwrap_or_else(|| vec![t.slots(); t.placement().len()])
}

/// Where slot-table-v1's movement comes from: on one add and one remove, the slots that go to the
/// new node (or leave the removed one), which any rule must move, against the slots that change
/// hands between two nodes present before and after (the chains that capacities set off).
fn v1_decomposition(fleet: &Placement, s: u64, ppms: &str) {
    println!("slot-table-v1: ppm,max_over_mean,add_direct_ratio,add_chain_ratio,remove_direct_ratio,remove_chain_ratio,add_capacity_steps,remove_capacity_steps,owner_ns_hot,build_ms");
    let n = fleet.len();
    let hot: Vec<String> = (0..16_384).map(|i| format!("key-{i}")).collect();
    for ppm in ppms.split(',') {
        let overload = (ppm != "none").then(|| ppm.parse::<u32>().expect("PPM"));
        let clock = Clock::start();
        let t = SlotTable::ranked(fleet, s, overload).expect("table");
        let build_ms = clock.ms();
        let owner_ns = lookup_ns(&hot, |k| t.owner_index(k));
        let counts = t.slot_counts();
        let balance = *counts.iter().max().expect("nodes") as f64 / (s as f64 / n as f64);
        let grown = t
            .with_node(hrwhash::Node::new(format!("node-{n}")))
            .expect("add");
        let (mut direct, mut chain) = (0usize, 0usize);
        for (&a, &b) in t.assignments().iter().zip(grown.assignments()) {
            match (a == b, b as usize == n) {
                (true, _) => {}
                (false, true) => direct += 1,
                (false, false) => chain += 1,
            }
        }
        let (caps, grown_caps) = (capacities(&t), capacities(&grown));
        let steps_add = (0..n).filter(|&i| grown_caps[i] != caps[i]).count();
        let opt = s as f64 / (n + 1) as f64;
        let (add_direct, add_chain) = (direct as f64 / opt, chain as f64 / opt);
        let shrunk = t.without_node("node-0").expect("remove");
        let (mut direct, mut chain) = (0usize, 0usize);
        for (&a, &b) in t.assignments().iter().zip(shrunk.assignments()) {
            match (a == 0, a != 0 && a - 1 == b) {
                (true, _) => direct += 1,
                (false, true) => {}
                (false, false) => chain += 1,
            }
        }
        let shrunk_caps = capacities(&shrunk);
        let steps_remove = (1..n).filter(|&i| shrunk_caps[i - 1] != caps[i]).count();
        let opt = s as f64 / n as f64;
        println!(
            "slot-table-v1: {ppm},{balance:.4},{add_direct:.3},{add_chain:.3},{:.3},{:.3},{steps_add},{steps_remove},{owner_ns:.1},{build_ms:.0}",
            direct as f64 / opt,
            chain as f64 / opt
        );
    }
}

/// The core's levelled `SlotTable` (slot-table-v2): first table, one add, one remove and one
/// weight change, each as a new table (`with_*`, which copies the old one) and in place
/// (`add_node`, `remove_node`, `set_weight`) on a copy made outside the clock, in wall-clock ms
/// (the median of 5 runs of each); the parts of an in-place change that are not levelling (the
/// new membership's placement, and a removal's renumbering pass over the table); and its owner
/// lookup.
fn core_table(fleet: &Placement, s: u64) {
    let ms = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = std::time::Instant::now();
    let table = SlotTable::new(fleet, s).expect("table");
    let build_ms = ms(t);
    let n = fleet.len();
    let new_node = || hrwhash::Node::new(format!("node-{n}"));
    let heavier = Weight::new(2.0).expect("weight");
    // The median of 5 runs: one change is a few ms, and other processes' turns land in single runs.
    let median = |f: &mut dyn FnMut() -> f64| {
        let mut v: Vec<f64> = (0..5).map(|_| f()).collect();
        v.sort_by(f64::total_cmp);
        v[2]
    };
    let timed = |f: &mut dyn FnMut()| {
        let t = std::time::Instant::now();
        f();
        ms(t)
    };
    let grown = table.with_node(new_node()).expect("add");
    let shrunk = table.without_node("node-0").expect("remove");
    let reweighted = table.with_weight("node-1", heavier).expect("weight");
    let add_ms = median(&mut || timed(&mut || drop(table.with_node(new_node()).expect("add"))));
    let remove_ms =
        median(&mut || timed(&mut || drop(table.without_node("node-0").expect("remove"))));
    let weight_ms =
        median(&mut || timed(&mut || drop(table.with_weight("node-1", heavier).expect("weight"))));
    // In place, each on a fresh copy made outside the clock.
    let in_place = |change: &dyn Fn(&mut SlotTable), want: Option<&SlotTable>| {
        let mut copy = table.clone();
        let t = std::time::Instant::now();
        change(&mut copy);
        let took = ms(t);
        if let Some(want) = want {
            assert_eq!(copy.assignments(), want.assignments());
        }
        took
    };
    let add_in_place_ms =
        median(&mut || in_place(&|t| t.add_node(new_node()).expect("add"), Some(&grown)));
    let remove_in_place_ms =
        median(&mut || in_place(&|t| t.remove_node("node-0").expect("remove"), Some(&shrunk)));
    // What an in-place change still spends outside the levelling: the new membership's placement
    // (O(N)), and for a removal one pass renumbering the table (O(S)).
    let p = table.placement();
    let placement_add_ms =
        median(&mut || timed(&mut || drop(p.with_node(new_node()).expect("add"))));
    let placement_remove_ms =
        median(&mut || timed(&mut || drop(p.without_node("node-0").expect("remove"))));
    let placement_weight_ms =
        median(&mut || timed(&mut || drop(p.with_weight("node-1", heavier).expect("weight"))));
    let renumber_ms = median(&mut || {
        let mut owners = table.assignments().to_vec();
        let t = std::time::Instant::now();
        for o in owners.iter_mut() {
            *o -= u32::from(*o > 0);
        }
        black_box(&owners);
        ms(t)
    });
    let weight_in_place_ms = median(&mut || {
        in_place(
            &|t| t.set_weight("node-1", heavier).expect("weight"),
            Some(&reweighted),
        )
    });
    let moved_add = table
        .assignments()
        .iter()
        .zip(grown.assignments())
        .filter(|(a, b)| a != b)
        .count();
    let moved_remove = table.slot_counts()[0] as usize;
    assert!(shrunk.slot_counts().iter().sum::<u32>() as u64 == s);
    let hot: Vec<String> = (0..16_384).map(|i| format!("key-{i}")).collect();
    let owner_ns = lookup_ns(&hot, |k| table.owner_index(k));
    let c = table.slot_counts();
    let balance = *c.iter().max().expect("nodes") as f64 / (s as f64 / n as f64);
    println!("slot-table-v2 (core): build_ms,add_ms,remove_ms,add_ratio,remove_ratio,max_over_mean,owner_ns_hot");
    println!(
        "slot-table-v2 (core): {build_ms:.1},{add_ms:.2},{remove_ms:.2},{:.3},{:.3},{balance:.4},{owner_ns:.1}",
        moved_add as f64 / (s as f64 / (n + 1) as f64),
        moved_remove as f64 / (s as f64 / n as f64),
    );
    println!("slot-table-v2 (core), one change, ms: copying with_node,without_node,with_weight; in place add_node,remove_node,set_weight; of which placement add,remove,weight; renumbering pass");
    println!(
        "slot-table-v2 (core), one change, ms: {add_ms:.2},{remove_ms:.2},{weight_ms:.2}; {add_in_place_ms:.2},{remove_in_place_ms:.2},{weight_in_place_ms:.2}; {placement_add_ms:.2},{placement_remove_ms:.2},{placement_weight_ms:.2}; {renumber_ms:.2}",
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, s] = args.as_slice() else {
        eprintln!("usage: slot_levelled_study NODES SLOTS");
        std::process::exit(2);
    };
    let n: usize = n.parse().expect("NODES");
    let s: u32 = s.parse().expect("SLOTS");
    let changes: usize = std::env::var("CHANGES")
        .ok()
        .map_or(200, |v| v.parse().expect("CHANGES"));
    let weights: Vec<f64> = std::env::var("WEIGHTS").ok().map_or(vec![1.0], |v| {
        v.split(',').map(|w| w.parse().expect("weight")).collect()
    });
    let fixed = |i: usize| {
        Weight::new(weights[i % weights.len()])
            .expect("weight")
            .to_fixed()
    };
    let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
    let fleet = Placement::from_nodes(
        hrwhash::Seed::DEFAULT,
        ids.iter().enumerate().map(|(i, id)| {
            hrwhash::Node::new(id.as_str())
                .with_weight(Weight::new(weights[i % weights.len()]).unwrap())
        }),
    )
    .expect("nodes");
    let seed = fleet.seed();
    let w: Vec<u64> = (0..n).map(fixed).collect();
    if std::env::var("CORE").is_ok() {
        core_table(&fleet, s as u64);
    }
    if let Ok(ppms) = std::env::var("V1") {
        v1_decomposition(&fleet, s as u64, &ppms);
    }

    let t = Clock::start();
    let mut table = Levelled::new(&seed, s, &ids, &w);
    let build_ms = t.ms();
    table.check();
    let first_balance = table.max_over_share();

    // Lookups: the same hot keys through the table (u32 entries, and u16 when N fits) and through
    // plain hrw-v1, then a million keys whose slots do not stay in cache.
    let hot: Vec<String> = (0..16_384).map(|i| format!("key-{i}")).collect();
    let cold: Vec<String> = (0..1_000_000).map(|i| format!("key-{i}")).collect();
    let narrow: Option<Vec<u16>> =
        (n <= u16::MAX as usize).then(|| table.table.iter().map(|&o| o as u16).collect());
    let t32 = &table.table;
    let owner32 =
        |k: &str| t32[slot_of_digest(key_digest(&seed, k.as_bytes()), s) as usize] as usize;
    let hot32 = lookup_ns(&hot, owner32);
    let cold32 = lookup_ns(&cold, owner32);
    let (hot16, cold16) = match &narrow {
        Some(t16) => {
            let owner16 =
                |k: &str| t16[slot_of_digest(key_digest(&seed, k.as_bytes()), s) as usize] as usize;
            (lookup_ns(&hot, owner16), lookup_ns(&cold, owner16))
        }
        None => (f64::NAN, f64::NAN),
    };
    let huge = HugeTable::new(&table.table);
    let th = huge.as_slice();
    let owner_huge =
        |k: &str| th[slot_of_digest(key_digest(&seed, k.as_bytes()), s) as usize] as usize;
    let (hot_huge, cold_huge) = (lookup_ns(&hot, owner_huge), lookup_ns(&cold, owner_huge));
    let hrw = lookup_ns(&hot[..2000], |k| fleet.owner_index(k));
    let digest_only = lookup_ns(&hot, |k| key_digest(&seed, k.as_bytes()) as usize);

    // Changes: add, remove, add, ... Movement is slots moved over the optimum (the new node's
    // weighted share after an add, the removed node's share before a remove).
    let mut rng = SplitMix64(0x5107_7AB1E);
    let (mut add_worst, mut add_sum, mut adds) = (0f64, 0f64, 0usize);
    let (mut rem_worst, mut rem_sum, mut rems) = (0f64, 0f64, 0usize);
    let (mut worst_balance, mut change_ms_max, mut change_ms_sum) = (first_balance, 0f64, 0f64);
    let mut first_add = (f64::NAN, f64::NAN);
    let mut first_remove = (f64::NAN, f64::NAN);
    let mut next_id = n;
    for step in 0..changes {
        let before = table.table.clone();
        let total: f64 = table.weights.iter().map(|&w| w as f64).sum();
        let t = std::time::Instant::now();
        let (moved, opt, node, was_add) = if step % 2 == 0 {
            let wj = fixed(next_id);
            let moved = table.add(&format!("node-{next_id}"), &seed, wj);
            next_id += 1;
            let opt = s as f64 * wj as f64 / (total + wj as f64);
            (moved, opt, table.weights.len() - 1, true)
        } else {
            let present: Vec<usize> = (0..table.weights.len())
                .filter(|&i| table.weights[i] > 0)
                .collect();
            let j = present[(rng.next() % present.len() as u64) as usize];
            let opt = s as f64 * table.weights[j] as f64 / total;
            (table.remove(j), opt, j, false)
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let ratio = moved as f64 / opt;
        // Every slot that changed owner went to the new node or came from the removed one.
        let mut changed = 0;
        for (a, b) in before.iter().zip(&table.table).filter(|(a, b)| a != b) {
            assert_eq!(if was_add { *b } else { *a } as usize, node, "step {step}");
            changed += 1;
        }
        assert_eq!(changed, moved, "step {step}");
        change_ms_max = change_ms_max.max(ms);
        change_ms_sum += ms;
        if was_add {
            if adds == 0 {
                first_add = (ratio, ms);
            }
            add_worst = add_worst.max(ratio);
            add_sum += ratio;
            adds += 1;
        } else {
            if rems == 0 {
                first_remove = (ratio, ms);
            }
            rem_worst = rem_worst.max(ratio);
            rem_sum += ratio;
            rems += 1;
        }
        worst_balance = worst_balance.max(table.max_over_share());
    }
    table.check();

    // A client that starts from the log: the first table, then every change in order.
    let t = Clock::start();
    let mut replay = Levelled::new(&seed, s, &ids, &w);
    let mut rng = SplitMix64(0x5107_7AB1E);
    let mut next_id = n;
    for step in 0..changes {
        if step % 2 == 0 {
            replay.add(&format!("node-{next_id}"), &seed, fixed(next_id));
            next_id += 1;
        } else {
            let present: Vec<usize> = (0..replay.weights.len())
                .filter(|&i| replay.weights[i] > 0)
                .collect();
            let j = present[(rng.next() % present.len() as u64) as usize];
            replay.remove(j);
        }
    }
    let replay_ms = t.ms();
    assert_eq!(
        replay.table, table.table,
        "replaying the log gives the same table"
    );

    println!(
        "N={n} S={s} S/N={:.2} weights={weights:?} changes={changes}",
        s as f64 / n as f64
    );
    println!("build_ms,owner_ns_u32_hot,owner_ns_u32_1M,owner_ns_u16_hot,owner_ns_u16_1M,owner_ns_huge_hot,owner_ns_huge_1M,key_digest_ns,hrw_owner_ns,max_over_share_first,max_over_share_worst,add_ratio_first,add_ms_first,remove_ratio_first,remove_ms_first,add_ratio_worst,add_ratio_mean,remove_ratio_worst,remove_ratio_mean,change_ms_max,change_ms_mean,replay_ms");
    println!(
        "{build_ms:.1},{hot32:.1},{cold32:.1},{hot16:.1},{cold16:.1},{hot_huge:.1},{cold_huge:.1},{digest_only:.1},{hrw:.1},{first_balance:.4},{worst_balance:.4},{:.3},{:.2},{:.3},{:.2},{add_worst:.3},{:.3},{rem_worst:.3},{:.3},{change_ms_max:.2},{:.2},{replay_ms:.0}",
        first_add.0,
        first_add.1,
        first_remove.0,
        first_remove.1,
        add_sum / adds.max(1) as f64,
        rem_sum / rems.max(1) as f64,
        change_ms_sum / changes.max(1) as f64,
    );
}
