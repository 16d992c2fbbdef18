//! The ranked mode (conformance/POLICIES.md, "slot-table (v1)", tag `slot-table-v1`): each slot
//! ranks the nodes by hrw-v1 (as the key `"slot-table-v1:" || u32le(slot)`), and each node accepts
//! at most its capacity of slots, preferring the slots it scores highest. The table is the one
//! stable assignment of slots to nodes under these preferences. It is unique, so it depends only on
//! the membership: building it anew and applying a change to an old table give the same table, in
//! any order of changes.

use alloc::collections::{BTreeMap, BinaryHeap};
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::{slot_digests, PPM};
use crate::v1::{draw, node_digest, score};
use crate::{Error, Placement};

/// Prefix of the key whose hrw-v1 ranking is a slot's ranking.
pub(super) const KEY_PREFIX: &[u8] = b"slot-table-v1:";

/// About this many nodes per slot are scored into its candidate list when a table is built; a
/// slot whose candidates all turn it down gets its full ranking. The number changes only the
/// speed of a build, never the table.
const CANDIDATES_PER_SLOT: u64 = 6;

/// The slots a node holds, as (score, slot) offers with the least preferred on top.
type Held = BinaryHeap<Reverse<(u64, Reverse<u32>)>>;

/// A ranked table over a placement, with what a change needs to recompute it in one pass.
#[derive(Clone)]
pub(super) struct Ranked {
    placement: Placement,
    overload_ppm: Option<u32>,
    /// Owner (build-order index) of each slot.
    table: Vec<u32>,
    /// Capacity of each node, by build-order index.
    caps: Vec<u32>,
    slot_digests: Vec<u64>,
    node_digests: Vec<u64>,
    /// Each slot's candidates, a prefix of its ranking: `cands[offsets[s]..offsets[s + 1]]`.
    offsets: Vec<u32>,
    cands: Vec<u32>,
    /// Longer prefixes of the rankings of the slots whose candidates all turned them down, and
    /// whether each is the whole ranking.
    full: BTreeMap<u32, (Vec<u32>, bool)>,
    /// Whether a slot has an entry in `full`: one byte read instead of a search per proposal.
    has_full: Vec<bool>,
    /// The draw bound of the candidate lists: a node of fixed-point weight `w` is a candidate of
    /// a slot when its draw is at most `w * cut_num / cut_den`. Kept across changes, so that the
    /// lists stay prefixes of the rankings.
    cut_num: u128,
    cut_den: u128,
}

impl Ranked {
    /// The table of `placement` with `slots` slots (1 to 2^24). With `overload_ppm = Some(p)`, no
    /// node holds more than `ceil(S * share * (1 + p / 10^6))` slots, where `share` is its weight
    /// over the sum of weights (the bounded-load table); with `None` every slot goes to the first
    /// node of its ranking (the plain HRW slot table).
    pub(super) fn new(
        placement: &Placement,
        slots: u64,
        overload_ppm: Option<u32>,
    ) -> Result<Ranked, Error> {
        let slot_digests = slot_digests(placement, KEY_PREFIX, slots)?;
        let s = slots as u32;
        let seed = placement.seed();
        let node_digests = placement
            .node_specs()
            .iter()
            .map(|n| node_digest(&seed, n.id()))
            .collect();
        let total: u128 = placement
            .node_specs()
            .iter()
            .map(|n| n.weight().to_fixed() as u128)
            .sum();
        // About CANDIDATES_PER_SLOT nodes per slot: node i is a candidate with probability about
        // draw_bound_i * ln 2 / 2^56.
        let cut_num = (CANDIDATES_PER_SLOT as u128) << 56;
        let cut_den = ((total as f64 * core::f64::consts::LN_2) as u128).max(1);
        let mut t = Ranked {
            placement: placement.clone(),
            overload_ppm,
            table: Vec::new(),
            caps: Vec::new(),
            slot_digests,
            node_digests,
            offsets: Vec::new(),
            cands: Vec::new(),
            full: BTreeMap::new(),
            has_full: alloc::vec![false; s as usize],
            cut_num,
            cut_den,
        };
        t.collect_candidates();
        t.assign();
        Ok(t)
    }

    pub(super) fn overload_ppm(&self) -> Option<u32> {
        self.overload_ppm
    }

    pub(super) fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The owner (build-order index) of every slot, in slot order.
    pub(super) fn assignments(&self) -> &[u32] {
        &self.table
    }

    /// The capacity of every node, by build-order index.
    pub(super) fn caps(&self) -> &[u32] {
        &self.caps
    }

    /// The table of `placement`, which is this table's membership with one node appended.
    pub(super) fn added(&self, placement: Placement) -> Ranked {
        let index = placement.len() - 1;
        let mut t = self.rebased(placement, Some);
        t.node_digests.push(node_digest(
            &t.placement.seed(),
            t.placement.node_specs()[index].id(),
        ));
        t.insert_candidate(index);
        t.assign();
        t
    }

    /// The table of `placement`, which is this table's membership without the node at `gone`.
    pub(super) fn removed(&self, placement: Placement, gone: usize) -> Ranked {
        let mut t = self.rebased(placement, |i| match i.cmp(&gone) {
            core::cmp::Ordering::Less => Some(i),
            core::cmp::Ordering::Equal => None,
            core::cmp::Ordering::Greater => Some(i - 1),
        });
        t.node_digests.remove(gone);
        t.assign();
        t
    }

    /// The table of `placement`, which is this table's membership with another weight at `index`.
    pub(super) fn reweighted(&self, placement: Placement, index: usize) -> Ranked {
        let mut t = self.rebased(placement, |i| (i != index).then_some(i));
        t.insert_candidate(index);
        t.assign();
        t
    }

    // ---- building ------------------------------------------------------------------------

    /// The least score whose draw is within the candidate bound of a node of weight `w`.
    fn score_bound(&self, w: u64) -> u64 {
        let bound = (w as u128 * self.cut_num / self.cut_den).min(u64::MAX as u128) as u64;
        // draw never increases with the score, so {s : draw(s) <= bound} is [lo, 2^64 - 1].
        let (mut lo, mut hi) = (0u64, u64::MAX);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if draw(mid) <= bound {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    fn collect_candidates(&mut self) {
        let p = &self.placement;
        let kernel = p.kernel();
        let groups: Vec<(u64, usize, &[u64])> = p.lane_groups().collect();
        let bounds: Vec<u64> = groups.iter().map(|g| self.score_bound(g.0)).collect();
        let mut offsets = Vec::with_capacity(self.slot_digests.len() + 1);
        let mut cands: Vec<u32> =
            Vec::with_capacity(self.slot_digests.len() * (CANDIDATES_PER_SLOT as usize + 2));
        offsets.push(0u32);
        for &sd in &self.slot_digests {
            let start = cands.len();
            for ((_, first, lanes), &bound) in groups.iter().zip(&bounds) {
                kernel.hits(sd, lanes, bound, &mut |hits: &[u32]| {
                    cands.extend(hits.iter().map(|&h| p.lane_node(first + h as usize) as u32));
                });
            }
            let list = &mut cands[start..];
            let nd = &self.node_digests;
            list.sort_unstable_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                match p.ranks_before(score(sd, nd[a]), a, score(sd, nd[b]), b) {
                    true => core::cmp::Ordering::Less,
                    false => core::cmp::Ordering::Greater,
                }
            });
            offsets.push(cands.len() as u32);
        }
        self.offsets = offsets;
        self.cands = cands;
    }

    /// A copy of the candidate lists for `placement`, whose node indices are the old ones mapped
    /// by `remap` (`None`: the node is no longer a candidate anywhere).
    fn rebased(&self, placement: Placement, remap: impl Fn(usize) -> Option<usize>) -> Ranked {
        let map = |list: &[u32]| -> Vec<u32> {
            list.iter()
                .filter_map(|&n| remap(n as usize).map(|i| i as u32))
                .collect()
        };
        let mut offsets = Vec::with_capacity(self.offsets.len());
        let mut cands = Vec::with_capacity(self.cands.len());
        offsets.push(0);
        for w in self.offsets.windows(2) {
            let list = &self.cands[w[0] as usize..w[1] as usize];
            cands.extend(
                list.iter()
                    .filter_map(|&n| remap(n as usize).map(|i| i as u32)),
            );
            offsets.push(cands.len() as u32);
        }
        let full = self
            .full
            .iter()
            .map(|(&s, (l, whole))| (s, (map(l), *whole)))
            .collect();
        Ranked {
            placement,
            overload_ppm: self.overload_ppm,
            table: Vec::new(),
            caps: Vec::new(),
            slot_digests: self.slot_digests.clone(),
            node_digests: self.node_digests.clone(),
            offsets,
            cands,
            full,
            has_full: self.has_full.clone(),
            cut_num: self.cut_num,
            cut_den: self.cut_den,
        }
    }

    /// Puts node `index` into every candidate list (and full ranking) it belongs to, at its place
    /// in the slot's ranking.
    fn insert_candidate(&mut self, index: usize) {
        let w = self.placement.node_specs()[index].weight().to_fixed();
        if w == 0 {
            return;
        }
        let bound = self.score_bound(w);
        let nd = self.node_digests[index];
        let p = &self.placement;
        let digests = &self.node_digests;
        let place = |list: &[u32], sd: u64| {
            let s = score(sd, nd);
            list.partition_point(|&o| {
                let o = o as usize;
                p.ranks_before(score(sd, digests[o]), o, s, index)
            })
        };
        let mut offsets = Vec::with_capacity(self.offsets.len());
        let mut cands = Vec::with_capacity(self.cands.len() + self.table.len() / 8 + 16);
        offsets.push(0);
        for (slot, w) in self.offsets.windows(2).enumerate() {
            let list = &self.cands[w[0] as usize..w[1] as usize];
            let sd = self.slot_digests[slot];
            if score(sd, nd) >= bound {
                let at = place(list, sd);
                cands.extend_from_slice(&list[..at]);
                cands.push(index as u32);
                cands.extend_from_slice(&list[at..]);
            } else {
                cands.extend_from_slice(list);
            }
            offsets.push(cands.len() as u32);
        }
        for (&slot, (list, whole)) in self.full.iter_mut() {
            let at = place(list, self.slot_digests[slot as usize]);
            // A prefix that stops before the node's place stays a prefix without it.
            if at < list.len() || *whole {
                list.insert(at, index as u32);
            }
        }
        self.offsets = offsets;
        self.cands = cands;
    }

    fn capacities(&self) -> Vec<u32> {
        let s = self.slot_digests.len() as u64;
        capacities(
            s,
            self.overload_ppm,
            self.placement
                .node_specs()
                .iter()
                .zip(&self.node_digests)
                .map(|(n, &d)| (n.weight().to_fixed(), d)),
        )
    }

    /// Slot-proposing deferred acceptance: each free slot asks the next node of its ranking;
    /// a node keeps the slots it scores highest (ties: the lower slot) up to its capacity.
    fn assign(&mut self) {
        let caps = self.capacities();
        let s = self.slot_digests.len();
        let mut next = alloc::vec![0u32; s];
        let mut owner = alloc::vec![u32::MAX; s];
        // Per node, its held slots keyed so that the least preferred is on top.
        let mut held: Vec<Held> = caps
            .iter()
            .map(|&c| BinaryHeap::with_capacity((c as usize).min(s)))
            .collect();
        let mut free: Vec<u32> = (0..s as u32).rev().collect();
        while let Some(slot) = free.pop() {
            let sd = self.slot_digests[slot as usize];
            loop {
                let pos = next[slot as usize] as usize;
                let Some(n) = self.candidate(slot, pos) else {
                    self.extend_to_full_ranking(slot);
                    continue;
                };
                next[slot as usize] += 1;
                let n = n as usize;
                let cap = caps[n] as usize;
                if cap == 0 {
                    continue;
                }
                let offer = (score(sd, self.node_digests[n]), Reverse(slot));
                let h = &mut held[n];
                if h.len() < cap {
                    h.push(Reverse(offer));
                    owner[slot as usize] = n as u32;
                    break;
                }
                let Some(&Reverse(worst)) = h.peek() else {
                    continue;
                };
                if offer > worst {
                    h.pop();
                    h.push(Reverse(offer));
                    owner[slot as usize] = n as u32;
                    free.push(worst.1 .0);
                    break;
                }
            }
        }
        self.caps = caps;
        self.table = owner;
    }

    fn candidate(&self, slot: u32, pos: usize) -> Option<u32> {
        if self.has_full[slot as usize] {
            if let Some((list, _)) = self.full.get(&slot) {
                return list.get(pos).copied();
            }
        }
        let (a, b) = (
            self.offsets[slot as usize] as usize,
            self.offsets[slot as usize + 1] as usize,
        );
        self.cands[a..b].get(pos).copied()
    }

    /// Doubles the prefix of the slot's ranking that its proposals walk down.
    fn extend_to_full_ranking(&mut self, slot: u32) {
        let have = match self.full.get(&slot) {
            Some((list, whole)) => {
                assert!(
                    !*whole,
                    "capacities sum to at least the slot count, so a full ranking finds a node"
                );
                list.len()
            }
            None => (self.offsets[slot as usize + 1] - self.offsets[slot as usize]) as usize,
        };
        let mut key = Vec::with_capacity(KEY_PREFIX.len() + 4);
        key.extend_from_slice(KEY_PREFIX);
        key.extend_from_slice(&slot.to_le_bytes());
        let selectable = self.placement.selectable_len();
        let want = (2 * have).max(16).min(selectable);
        let mut out = alloc::vec![0usize; want];
        let got = self.placement.rank_into(&key, &mut out);
        let list = out[..got].iter().map(|&i| i as u32).collect();
        self.full.insert(slot, (list, got == selectable));
        self.has_full[slot as usize] = true;
    }
}

/// The capacity of each node (POLICIES.md, "slot-table (v1)", capacities): at least its share
/// rounded up, and otherwise its overloaded share plus a per-node offset in [0, 1) (its node digest
/// over 2^64) rounded down. The offset makes the nodes' capacities step at different fleet sizes,
/// not all at once, so one change sheds a few slots rather than one slot from every node.
pub fn capacities(
    slots: u64,
    overload_ppm: Option<u32>,
    nodes: impl Iterator<Item = (u64, u64)> + Clone,
) -> Vec<u32> {
    let s = slots as u128;
    let total: u128 = nodes.clone().map(|(w, _)| w as u128).sum();
    nodes
        .map(|(w, digest)| {
            let w = w as u128;
            let Some(p) = overload_ppm else {
                return if w == 0 { 0 } else { slots as u32 };
            };
            if w == 0 {
                return 0;
            }
            let share = (s * w).div_ceil(total);
            // floor(a / b + h / 2^64) = q + 1 exactly when r * 2^64 >= (2^64 - h) * b.
            let a = s * w * (PPM as u128 + p as u128);
            let b = PPM as u128 * total;
            let (q, r) = (a / b, a % b);
            let g = (1u128 << 64) - digest as u128;
            let (b_hi, b_lo) = (b >> 64, b & u64::MAX as u128);
            let lo = g * b_lo;
            let hi = g * b_hi + (lo >> 64);
            let up = r > hi || (r == hi && lo & u64::MAX as u128 == 0);
            (q + up as u128).max(share).min(s) as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::slot_table::tests::{assert_refuses_bad_counts_slots_and_nodes, fleet};
    use crate::policy::slot_table::MAX_SLOTS;
    use crate::policy::slot_table::{capacities, slot_of_digest, SlotTable};
    use crate::v1::key_digest;
    use crate::{Node, Weight};
    use alloc::format;
    use alloc::vec;

    fn slot_key(s: u32) -> Vec<u8> {
        let mut k = KEY_PREFIX.to_vec();
        k.extend_from_slice(&s.to_le_bytes());
        k
    }

    /// POLICIES.md's walk over every (slot, node) pair in the pair order, written out literally.
    fn walk(p: &Placement, slots: u32, overload: Option<u32>) -> Vec<u32> {
        let seed = p.seed();
        let nodes = p.node_specs();
        let nd: Vec<u64> = nodes.iter().map(|n| node_digest(&seed, n.id())).collect();
        let caps = capacities(
            slots as u64,
            overload,
            nodes
                .iter()
                .zip(&nd)
                .map(|(n, &d)| (n.weight().to_fixed(), d)),
        );
        let mut pairs = Vec::new();
        for s in 0..slots {
            let sd = key_digest(&seed, &slot_key(s));
            for (i, n) in nodes.iter().enumerate() {
                let w = n.weight().to_fixed();
                if w > 0 {
                    let sc = score(sd, nd[i]);
                    pairs.push((draw(sc), w, sc, i, s));
                }
            }
        }
        pairs.sort_by(|a, b| {
            let lhs = a.0 as u128 * b.1 as u128;
            let rhs = b.0 as u128 * a.1 as u128;
            lhs.cmp(&rhs)
                .then(b.2.cmp(&a.2))
                .then(nodes[a.3].id().cmp(nodes[b.3].id()))
                .then(a.4.cmp(&b.4))
        });
        let mut table = vec![u32::MAX; slots as usize];
        let mut held = vec![0u32; nodes.len()];
        for (_, _, _, i, s) in pairs {
            if table[s as usize] == u32::MAX && held[i] < caps[i] {
                table[s as usize] = i as u32;
                held[i] += 1;
            }
        }
        table
    }

    #[test]
    fn table_is_the_walk_of_the_spec() {
        for (n, weights, slots, overload) in [
            (7, &[1.0][..], 64, Some(0)),
            (7, &[1.0][..], 64, Some(50_000)),
            (12, &[1.0, 2.0, 0.5, 3.25][..], 200, Some(100_000)),
            (12, &[1.0, 0.0, 4.0][..], 97, Some(20_000)),
            (30, &[1.0][..], 300, None),
            (5, &[1e-6, 1.0, 1000.0][..], 33, Some(1)),
            (1, &[1.0][..], 1, Some(0)),
        ] {
            let p = fleet(n, weights);
            let t = SlotTable::ranked(&p, slots, overload).unwrap();
            assert_eq!(
                t.assignments(),
                &walk(&p, slots as u32, overload)[..],
                "{n} {weights:?} {slots} {overload:?}"
            );
            let counts = t.slot_counts();
            assert_eq!(t.capacities().is_some(), overload.is_some());
            if let Some(caps) = t.capacities() {
                for (i, &c) in counts.iter().enumerate() {
                    assert!(c <= caps[i]);
                }
            }
        }
    }

    #[test]
    fn unbounded_table_is_each_slots_hrw_owner() {
        let p = fleet(50, &[1.0, 3.0]);
        let t = SlotTable::ranked(&p, 1000, None).unwrap();
        for s in 0..1000u32 {
            assert_eq!(
                t.assignments()[s as usize] as usize,
                p.owner_index(slot_key(s))
            );
        }
    }

    #[test]
    fn changes_give_the_table_of_a_fresh_build() {
        let mut t = SlotTable::ranked(&fleet(20, &[1.0, 2.0]), 512, Some(30_000)).unwrap();
        let steps: [(&str, f64); 8] = [
            ("add", 1.0),
            ("remove", 0.0),
            ("weight", 5.0),
            ("add", 0.5),
            ("weight", 0.0),
            ("remove", 0.0),
            ("add", 3.0),
            ("weight", 1.0),
        ];
        for (k, (op, w)) in steps.into_iter().enumerate() {
            let victim = format!("n{}", (3 * k + 1) % 20);
            t = match op {
                "add" => t
                    .with_node(Node::new(format!("new{k}")).with_weight(Weight::new(w).unwrap()))
                    .unwrap(),
                "remove" => t.without_node(&victim).unwrap(),
                _ => t.with_weight(&victim, Weight::new(w).unwrap()).unwrap(),
            };
            let fresh = SlotTable::ranked(t.placement(), 512, Some(30_000)).unwrap();
            assert_eq!(
                t.assignments(),
                fresh.assignments(),
                "after step {k} ({op})"
            );
            assert_eq!(t.assignments(), &walk(t.placement(), 512, Some(30_000))[..]);
        }
    }

    #[test]
    fn slot_of_a_key_is_the_multiply_shift_of_its_digest() {
        let p = fleet(3, &[1.0]);
        let t = SlotTable::ranked(&p, 16_384, Some(50_000)).unwrap();
        for key in ["", "a", "user:42"] {
            let kd = key_digest(&p.seed(), key.as_bytes());
            assert_eq!(t.slot(key) as u128, (kd as u128 * 16_384) >> 64);
            assert_eq!(t.owner(key), t.owner_of_slot(t.slot(key) as u64).unwrap());
        }
        assert_eq!(slot_of_digest(u64::MAX, 7), 6);
        assert_eq!(slot_of_digest(0, 7), 0);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let p = fleet(3, &[1.0]);
        let t = SlotTable::ranked(&p, MAX_SLOTS.min(8), Some(0)).unwrap();
        assert_refuses_bad_counts_slots_and_nodes(|n| SlotTable::ranked(&p, n, None), &t);
        assert_eq!(
            t.without_node("n0")
                .unwrap()
                .without_node("n1")
                .unwrap()
                .without_node("n2")
                .unwrap_err(),
            Error::EmptyMembership
        );
        assert_eq!(
            t.with_weight("n0", Weight::ZERO)
                .unwrap()
                .with_weight("n1", Weight::ZERO)
                .unwrap()
                .with_weight("n2", Weight::ZERO)
                .unwrap_err(),
            Error::AllWeightsZero
        );
    }

    #[test]
    fn capacities_round_at_each_nodes_own_offset() {
        // share 10, overloaded share 10.5: node digests below 2^63 round down, others up.
        let caps = capacities(
            40,
            Some(50_000),
            [
                (1u64 << 32, 0u64),
                (1 << 32, 1 << 63),
                (1 << 32, (1 << 63) - 1),
                (1 << 32, u64::MAX),
            ]
            .into_iter(),
        );
        assert_eq!(caps, vec![10, 11, 10, 11]);
        assert_eq!(
            capacities(40, None, [(5u64, 0u64), (0, 0)].into_iter()),
            vec![40, 0]
        );
        // The share rounded up is a floor: 3 slots, 2 nodes, no overload.
        assert_eq!(
            capacities(3, Some(0), [(1u64, 0u64), (1, 0)].into_iter()),
            vec![2, 2]
        );
    }
}
