//! Replica sets across a transition: each key's [`crate::Placement::replicas`] with `k` before
//! and after (the first `k` nodes of its ranking, spread over failure domains when the placement
//! names them), counted over a key stream ([`Transition::diff_top`]) or listed key by key
//! ([`Transition::plan_top`]). A key *changes* when the ids of its replica set differ (the order within the set does not count),
//! which for `k = 1` is exactly [`super::Route::moved`].

use alloc::vec::Vec;

use super::{node_changes, NodeChange, RouteSet, Transition};

/// The counts of a top-k [`super::Diff`] ([`Transition::diff_top`]).
#[derive(Clone, Debug)]
pub(super) struct Replicas {
    transition: Transition,
    k: usize,
    keys: u64,
    changed: u64,
    /// Per old index: keys with a replica there before, and copies dropped from it.
    before: Vec<u64>,
    dropped: Vec<u64>,
    /// Per new index: keys with a replica there after, and copies added to it.
    after: Vec<u64>,
    added: Vec<u64>,
    scratch: RouteSet,
}

impl Replicas {
    pub(super) fn new(transition: &Transition, k: usize) -> Replicas {
        Replicas {
            transition: transition.clone(),
            k,
            keys: 0,
            changed: 0,
            before: alloc::vec![0; transition.old_placement().len()],
            dropped: alloc::vec![0; transition.old_placement().len()],
            after: alloc::vec![0; transition.new_placement().len()],
            added: alloc::vec![0; transition.new_placement().len()],
            scratch: RouteSet::default(),
        }
    }

    /// Counts one key and gives its replica sets, for callers that also list the keys whose set
    /// changes as they come. The set is overwritten by the next key.
    pub(super) fn route_top(&mut self, key: impl AsRef<[u8]>) -> &RouteSet {
        self.transition
            .route_top_into(key, self.k, &mut self.scratch);
        let s = &self.scratch;
        self.keys += 1;
        s.before.iter().for_each(|&o| self.before[o] += 1);
        s.after.iter().for_each(|&n| self.after[n] += 1);
        s.drop.iter().for_each(|&o| self.dropped[o] += 1);
        s.add.iter().for_each(|&n| self.added[n] += 1);
        if s.changed() {
            self.changed += 1;
        }
        s
    }

    /// Adds the counts of another accumulator of the same transition and `k` (for parallel
    /// feeding). Returns false, adding nothing, when `other` counts something else.
    pub(super) fn merge(&mut self, other: &Replicas) -> bool {
        if !self.transition.same(&other.transition) || self.k != other.k {
            return false;
        }
        self.keys += other.keys;
        self.changed += other.changed;
        for (mine, theirs) in [
            (&mut self.before, &other.before),
            (&mut self.dropped, &other.dropped),
            (&mut self.after, &other.after),
            (&mut self.added, &other.added),
        ] {
            mine.iter_mut().zip(theirs).for_each(|(a, b)| *a += b);
        }
        true
    }

    /// The number of replicas compared per key.
    pub(super) fn k(&self) -> usize {
        self.k
    }

    /// Keys counted.
    pub(super) fn keys(&self) -> u64 {
        self.keys
    }

    /// Keys whose replica set changed.
    pub(super) fn changed(&self) -> u64 {
        self.changed
    }

    /// Copies to make: the sum of `add` over every key.
    pub(super) fn copies_added(&self) -> u64 {
        self.added.iter().sum()
    }

    /// Copies to drop: the sum of `drop` over every key.
    pub(super) fn copies_dropped(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// Every old node in old order, then every node only in the new membership in new order.
    pub(super) fn nodes(&self) -> Vec<NodeChange> {
        let t = &self.transition;
        node_changes(
            [&self.before, &self.dropped],
            [&self.after, &self.added],
            |i| t.old_to_new(i),
            |j| t.new_to_old(j),
        )
    }
}
