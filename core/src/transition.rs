//! Transitions: what a change from one membership to the next does to keys. Per key during a
//! migration ([`Transition::route`], [`Transition::route_top`]), over any number of keys in
//! constant memory ([`Diff`], [`Transition::plan`]), and in expectation from the weights alone
//! ([`Transition::expected_moved`], [`Transition::optimum`]); see `conformance/VIEW.md`.
//!
//! Either side is anything that answers lookups ([`Lookup`]): an hrw-v1 [`Placement`] or
//! [`crate::View`], or an incumbent's profile placement from hrwhash-compat. Nodes of the two
//! memberships are the same node when their ids are equal; a key has *moved* when the id of its
//! new owner differs from the id of its old one. Replica routes and expected movement need hrw-v1
//! on both sides.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::placement::KEY_BLOCK;
use crate::v1::digest::Lanes;
use crate::v1::key_digest;
use crate::{Lookup, Placement};

mod replicas;
use replicas::Replicas;

/// No node of the other membership has this id.
const NONE: u32 = u32::MAX;

struct Inner<A, B> {
    old: A,
    new: B,
    old_to_new: Vec<u32>,
    new_to_old: Vec<u32>,
    same_seed: bool,
}

/// The change from one membership to another: two hrw-v1 placements or views by default, or any
/// two [`Lookup`]s through [`Transition::between`]. Cheap to clone (shared).
///
/// ```
/// use hrwhash::{Placement, Transition};
///
/// let old = Placement::new(["a", "b", "c"])?;
/// let new = Placement::new(["a", "b", "c", "d"])?;
/// let t = Transition::new(&old, &new);
/// let r = t.route("user:42");
/// // Read from the old owner on a miss, write to the new one.
/// assert_eq!(r.moved, old.node(r.old_index).unwrap().id() != new.node(r.new_index).unwrap().id());
/// assert!((t.expected_moved() - 0.25).abs() < 1e-12);
/// # Ok::<(), hrwhash::Error>(())
/// ```
pub struct Transition<A = Placement, B = Placement> {
    inner: Arc<Inner<A, B>>,
}

impl<A, B> Clone for Transition<A, B> {
    fn clone(&self) -> Self {
        Transition {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<A: core::fmt::Debug, B: core::fmt::Debug> core::fmt::Debug for Transition<A, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Transition")
            .field("old", &self.inner.old)
            .field("new", &self.inner.new)
            .finish()
    }
}

/// Where one key is during a migration: indices into the old and the new placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Build-order index of the owner in the old membership.
    pub old_index: usize,
    /// Build-order index of the owner in the new membership.
    pub new_index: usize,
    /// Whether the two owners have different ids.
    pub moved: bool,
}

/// The replica sets of one key before and after ([`Placement::replicas`] of each side), and what
/// changes between them.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RouteSet {
    /// Old-membership indices of the key's replicas in the old placement, in the order taken.
    pub before: Vec<usize>,
    /// New-membership indices of the key's replicas in the new placement, in the order taken.
    pub after: Vec<usize>,
    /// The members of `after` (new indices, in replica order) whose id is not in `before`: the
    /// replicas to fill.
    pub add: Vec<usize>,
    /// The members of `before` (old indices, in replica order) whose id is not in `after`: the
    /// replicas to drop once the new ones are filled.
    pub drop: Vec<usize>,
}

impl RouteSet {
    /// Whether the ids of the replica set differ before and after (their order aside).
    pub fn changed(&self) -> bool {
        !self.add.is_empty() || !self.drop.is_empty()
    }
}

impl<A: Lookup, B: Lookup> Transition<A, B> {
    /// The transition from `old` to `new`, any two memberships that answer lookups (an hrw-v1
    /// placement, a view, an incumbent's profile placement). Nodes are matched by id through a
    /// sorted index: O(N log N).
    ///
    /// ```
    /// use hrwhash::{Lookup, Placement, Transition};
    ///
    /// // A View, or hrwhash-compat's ProfilePlacement, goes where either placement is.
    /// let t = Transition::between(Placement::new(["a", "b"])?, Placement::new(["b", "c"])?);
    /// let r = t.route("user:42");
    /// assert_eq!(r.moved, t.old_placement().node_id(r.old_index) != t.new_placement().node_id(r.new_index));
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn between(old: A, new: B) -> Transition<A, B> {
        let mut old_to_new = alloc::vec![NONE; old.len()];
        let mut new_to_old = alloc::vec![NONE; new.len()];
        let sorted = |p: &dyn Lookup| {
            let mut order: Vec<u32> = (0..p.len() as u32).collect();
            order.sort_unstable_by(|&a, &b| p.node_id(a as usize).cmp(p.node_id(b as usize)));
            order
        };
        let (a, b) = (sorted(&old), sorted(&new));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            match old.node_id(x as usize).cmp(new.node_id(y as usize)) {
                core::cmp::Ordering::Less => i += 1,
                core::cmp::Ordering::Greater => j += 1,
                core::cmp::Ordering::Equal => {
                    old_to_new[x as usize] = y;
                    new_to_old[y as usize] = x;
                    i += 1;
                    j += 1;
                }
            }
        }
        let same_seed = match (old.as_placement(), new.as_placement()) {
            (Some(o), Some(n)) => o.seed() == n.seed(),
            _ => false,
        };
        Transition {
            inner: Arc::new(Inner {
                old,
                new,
                old_to_new,
                new_to_old,
                same_seed,
            }),
        }
    }

    /// The membership before.
    pub fn old_placement(&self) -> &A {
        &self.inner.old
    }

    /// The membership after.
    pub fn new_placement(&self) -> &B {
        &self.inner.new
    }

    /// The index in the new membership of the node with the id of old node `old_index`.
    pub fn old_to_new(&self, old_index: usize) -> Option<usize> {
        match self.inner.old_to_new.get(old_index) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// The index in the old membership of the node with the id of new node `new_index`.
    pub fn new_to_old(&self, new_index: usize) -> Option<usize> {
        match self.inner.new_to_old.get(new_index) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// The owners of `key` before and after.
    pub fn route(&self, key: impl AsRef<[u8]>) -> Route {
        let inner = &*self.inner;
        let key = key.as_ref();
        let (old, new) = match (
            inner.same_seed,
            inner.old.as_placement(),
            inner.new.as_placement(),
        ) {
            // One seed: the key's digest serves both sides.
            (true, Some(o), Some(n)) => {
                let kd = key_digest(&o.seed(), key);
                (o.owner_index_of_digest(kd), n.owner_index_of_digest(kd))
            }
            _ => (inner.old.owner_index(key), inner.new.owner_index(key)),
        };
        Route {
            old_index: old,
            new_index: new,
            moved: inner.old_to_new[old] != new as u32,
        }
    }

    /// Whether `other` is this very transition (a clone of it), not merely an equal one.
    fn same(&self, other: &Transition<A, B>) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// An accumulator of owner changes over keys fed one by one.
    pub fn diff(&self) -> Diff<A, B> {
        Diff {
            transition: self.clone(),
            counts: Counts::Owners(Tally::new(self.inner.old.len(), self.inner.new.len())),
        }
    }

    /// The keys of `keys` that change owner, each as `(key, from, to)`: the key as given, the
    /// old-membership index of the node to copy it from and the new-membership index of the node
    /// to copy it to, streamed in input order (as Python's and Node's plans give them). Memory
    /// stays constant whatever the number of keys.
    ///
    /// ```
    /// use hrwhash::{Placement, Transition};
    ///
    /// let t = Transition::new(&Placement::new(["a", "b"])?, &Placement::new(["a", "b", "c"])?);
    /// for (_key, _from, to) in t.plan((0..1000).map(|i| format!("key-{i}"))) {
    ///     assert_eq!(t.new_placement().node(to).unwrap().id(), b"c");
    /// }
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn plan<I>(&self, keys: I) -> impl Iterator<Item = (I::Item, usize, usize)>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let transition = self.clone();
        keys.into_iter().filter_map(move |key| {
            let r = transition.route(&key);
            r.moved.then_some((key, r.old_index, r.new_index))
        })
    }
}

impl Transition {
    /// The transition from `old` to `new` (a [`Placement`] or a [`crate::View`]). Nodes are
    /// matched by id through a sorted index: O(N log N).
    pub fn new(old: &impl AsRef<Placement>, new: &impl AsRef<Placement>) -> Transition {
        Transition::between(old.as_ref().clone(), new.as_ref().clone())
    }

    /// The replica sets of `key` before and after ([`Placement::replicas`] of each side with
    /// `k`: the first `k` nodes of the ranking, spread over failure domains when the placement
    /// names them), with the replicas to add and to drop.
    pub fn route_top(&self, key: impl AsRef<[u8]>, k: usize) -> RouteSet {
        let mut set = RouteSet::default();
        self.route_top_into(key, k, &mut set);
        set
    }

    /// [`Transition::route_top`] into `set`, reusing its allocations (for loops over many keys).
    pub fn route_top_into(&self, key: impl AsRef<[u8]>, k: usize, set: &mut RouteSet) {
        let inner = &*self.inner;
        let key = key.as_ref();
        let RouteSet {
            before,
            after,
            add,
            drop,
        } = set;
        before.clear();
        before.resize(k.min(inner.old.selectable_len()), 0);
        after.clear();
        after.resize(k.min(inner.new.selectable_len()), 0);
        // Each side's own replica rule: the stored set is `replicas`, which spreads over failure
        // domains when the placement names them; the plain ranking would route other nodes.
        inner.old.replicas_into(key, before);
        inner.new.replicas_into(key, after);
        add.clear();
        add.extend(after.iter().copied().filter(|&n| {
            let o = inner.new_to_old[n];
            o == NONE || !before.contains(&(o as usize))
        }));
        drop.clear();
        drop.extend(before.iter().copied().filter(|&o| {
            let n = inner.old_to_new[o];
            n == NONE || !after.contains(&(n as usize))
        }));
    }

    /// A [`Diff`] of replica sets: each key's [`Placement::replicas`] with `k` on either side,
    /// over keys fed one by one. A key moves when the ids of its replica set differ (the order
    /// within the set does not count), which for `k = 1` is exactly [`Route::moved`].
    ///
    /// ```
    /// use hrwhash::{Placement, Transition};
    ///
    /// let t = Transition::new(&Placement::new(["a", "b", "c", "d"])?, &Placement::new(["a", "b", "c"])?);
    /// let mut diff = t.diff_top(2);
    /// diff.add_many((0..10_000).map(|i| format!("key-{i}")));
    /// // Every key that kept d as a replica gets one new copy elsewhere, and d's copies all go.
    /// assert_eq!(diff.copies_added(), diff.copies_dropped());
    /// assert_eq!(diff.nodes()[3].dropped, diff.nodes()[3].before);
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn diff_top(&self, k: usize) -> Diff {
        Diff {
            transition: self.clone(),
            counts: Counts::Replicas(Replicas::new(self, k)),
        }
    }

    /// The keys of `keys` whose set of `k` replicas ([`Placement::replicas`]) changes, each as
    /// `(key, route)` with its [`RouteSet`] (the copies to add and to drop), streamed in input
    /// order.
    ///
    /// ```
    /// use hrwhash::{Placement, Transition};
    ///
    /// let t = Transition::new(&Placement::new(["a", "b", "c"])?, &Placement::new(["a", "b", "c", "d"])?);
    /// for (_key, route) in t.plan_top((0..1000).map(|i| format!("key-{i}")), 2) {
    ///     assert_eq!(t.new_placement().node(route.add[0]).unwrap().id(), b"d");
    /// }
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn plan_top<I>(&self, keys: I, k: usize) -> impl Iterator<Item = (I::Item, RouteSet)>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let transition = self.clone();
        keys.into_iter().filter_map(move |key| {
            let route = transition.route_top(&key, k);
            route.changed().then_some((key, route))
        })
    }

    /// The expected fraction of all keys whose owner changes, computed from the weights alone
    /// (VIEW.md, "Expected movement"): exact for hrw-v1's logarithmic method up to its draw
    /// error (below 2^-26 relative).
    pub fn expected_moved(&self) -> f64 {
        let pairs = self.weight_pairs();
        if self.inner.same_seed {
            expected_moved(pairs)
        } else {
            // Unrelated scores: a key stays only when two independent choices agree.
            let (sw, sv) = totals(&pairs);
            let stay: f64 = pairs
                .iter()
                .map(|p| (p.old as f64 / sw) * (p.new as f64 / sv))
                .sum();
            (1.0 - stay).max(0.0)
        }
    }

    /// The least fraction of keys any scheme must move to go from the old shares to the new
    /// ones: the total variation distance between the two share vectors.
    pub fn optimum(&self) -> f64 {
        optimum(&self.weight_pairs())
    }

    /// Fixed-point weights of every id of either membership, in bytewise id order.
    fn weight_pairs(&self) -> Vec<WeightPair<'_>> {
        let inner = &*self.inner;
        let mut pairs: Vec<WeightPair<'_>> = inner
            .old
            .node_specs()
            .iter()
            .enumerate()
            .map(|(i, n)| WeightPair {
                id: n.id(),
                old: n.weight().to_fixed(),
                new: match inner.old_to_new[i] {
                    NONE => 0,
                    j => inner.new.node_specs()[j as usize].weight().to_fixed(),
                },
            })
            .collect();
        pairs.extend(
            inner
                .new
                .node_specs()
                .iter()
                .zip(&inner.new_to_old)
                .filter(|(_, &o)| o == NONE)
                .map(|(n, _)| WeightPair {
                    id: n.id(),
                    old: 0,
                    new: n.weight().to_fixed(),
                }),
        );
        pairs.sort_unstable_by(|a, b| a.id.cmp(b.id));
        pairs
    }
}

/// One id's fixed-point weight before and after (0 when absent).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WeightPair<'a> {
    pub(crate) id: &'a [u8],
    pub(crate) old: u64,
    pub(crate) new: u64,
}

fn totals(pairs: &[WeightPair<'_>]) -> (f64, f64) {
    let sw: u128 = pairs.iter().map(|p| p.old as u128).sum();
    let sv: u128 = pairs.iter().map(|p| p.new as u128).sum();
    (sw as f64, sv as f64)
}

/// Total variation distance of the shares, summed in the order of `pairs`.
pub(crate) fn optimum(pairs: &[WeightPair<'_>]) -> f64 {
    let (sw, sv) = totals(pairs);
    let mut sum = 0.0;
    for p in pairs {
        let d = p.old as f64 / sw - p.new as f64 / sv;
        if d > 0.0 {
            sum += d;
        }
    }
    sum
}

/// VIEW.md, "Expected movement": with one seed, node j keeps a key with probability
/// `1 / (sum_i max(w_i / w_j, v_i / v_j))`. Sorting the nodes by `w / v` splits that sum into a
/// suffix sum of old weights and a prefix sum of new ones, so the whole takes O(N log N).
pub(crate) fn expected_moved(mut pairs: Vec<WeightPair<'_>>) -> f64 {
    pairs.retain(|p| p.old != 0 || p.new != 0);
    // a before b when w_a / v_a < w_b / v_b (exact cross products), then by id.
    let ratio = |a: &WeightPair<'_>, b: &WeightPair<'_>| {
        (a.old as u128 * b.new as u128).cmp(&(b.old as u128 * a.new as u128))
    };
    pairs.sort_unstable_by(|a, b| ratio(a, b).then_with(|| a.id.cmp(b.id)));
    let total_old: u128 = pairs.iter().map(|p| p.old as u128).sum();
    let mut old_before = 0u128; // old weight of the groups before the current one
    let mut new_before = 0u128; // new weight of the groups before the current one
    let mut stay = 0.0f64;
    let mut start = 0;
    while start < pairs.len() {
        let mut end = start + 1;
        while end < pairs.len() && ratio(&pairs[start], &pairs[end]).is_eq() {
            end += 1;
        }
        let a = (total_old - old_before) as f64;
        let b = new_before as f64;
        for p in &pairs[start..end] {
            if p.old != 0 && p.new != 0 {
                stay += 1.0 / (a / p.old as f64 + b / p.new as f64);
            }
        }
        for p in &pairs[start..end] {
            old_before += p.old as u128;
            new_before += p.new as u128;
        }
        start = end;
    }
    (1.0 - stay).max(0.0)
}

/// One id of either membership with its key counts: of the keys it owns ([`Diff::nodes`]) or of
/// the keys it holds a replica of ([`Transition::diff_top`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeChange {
    /// Index in the old membership, if the id is there.
    pub old_index: Option<usize>,
    /// Index in the new membership, if the id is there.
    pub new_index: Option<usize>,
    /// Keys it owned (held a replica of) before.
    pub before: u64,
    /// Keys it owns (holds a replica of) after.
    pub after: u64,
    /// Keys it must receive a copy of: keys that move to it, or whose [`RouteSet`] has it in
    /// `add`.
    pub added: u64,
    /// Keys whose copy it can drop: keys that move away from it, or whose [`RouteSet`] has it
    /// in `drop`.
    pub dropped: u64,
}

/// Changes accumulated over keys: of each key's owner ([`Transition::diff`]) or of its set of `k`
/// replicas ([`Transition::diff_top`]). Memory depends on the number of nodes and flows, never on
/// the number of keys.
///
/// ```
/// use hrwhash::{Placement, Transition};
///
/// let t = Transition::new(&Placement::new(["a", "b", "c"])?, &Placement::new(["a", "b"])?);
/// let mut diff = t.diff();
/// diff.add_many((0..10_000).map(|i| format!("key-{i}")));
/// let flows: u64 = diff.flows().iter().map(|&(_, _, count)| count).sum();
/// assert_eq!(flows, diff.moved());
/// assert_eq!(diff.moved(), diff.nodes()[2].before); // exactly c's keys move
/// # Ok::<(), hrwhash::Error>(())
/// ```
#[derive(Debug)]
pub struct Diff<A = Placement, B = Placement> {
    transition: Transition<A, B>,
    counts: Counts,
}

/// What a diff counts: owners, or replica sets (only between two placements, where `k` replicas
/// are defined).
#[derive(Clone, Debug)]
enum Counts {
    Owners(Tally),
    Replicas(Replicas),
}

impl<A, B> Clone for Diff<A, B> {
    fn clone(&self) -> Self {
        Diff {
            transition: self.transition.clone(),
            counts: self.counts.clone(),
        }
    }
}

/// The counts behind a diff.
#[derive(Clone, Debug)]
struct Tally {
    keys: u64,
    moved: u64,
    before: Vec<u64>,
    after: Vec<u64>,
    flows: BTreeMap<(u32, u32), u64>,
    /// The last key's route as a set, for [`Diff::route_top`].
    scratch: RouteSet,
}

impl Tally {
    pub fn new(old_len: usize, new_len: usize) -> Tally {
        Tally {
            keys: 0,
            moved: 0,
            before: alloc::vec![0; old_len],
            after: alloc::vec![0; new_len],
            flows: BTreeMap::new(),
            scratch: RouteSet::default(),
        }
    }

    /// Counts one key owned by `old` before and `new` after.
    pub fn count(&mut self, old: usize, new: usize, moved: bool) {
        self.keys += 1;
        self.before[old] += 1;
        self.after[new] += 1;
        if moved {
            self.moved += 1;
            *self.flows.entry((old as u32, new as u32)).or_insert(0) += 1;
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.keys += other.keys;
        self.moved += other.moved;
        self.before
            .iter_mut()
            .zip(&other.before)
            .for_each(|(a, b)| *a += b);
        self.after
            .iter_mut()
            .zip(&other.after)
            .for_each(|(a, b)| *a += b);
        for (&k, &c) in &other.flows {
            *self.flows.entry(k).or_insert(0) += c;
        }
    }

    pub fn keys(&self) -> u64 {
        self.keys
    }

    pub fn moved(&self) -> u64 {
        self.moved
    }

    pub fn flows(&self) -> Vec<(usize, usize, u64)> {
        self.flows
            .iter()
            .map(|(&(from, to), &count)| (from as usize, to as usize, count))
            .collect()
    }

    /// Every old node in old order, then every node only on the new side in new order.
    pub fn nodes(
        &self,
        old_to_new: impl Fn(usize) -> Option<usize>,
        new_to_old: impl Fn(usize) -> Option<usize>,
    ) -> Vec<NodeChange> {
        let (mut added, mut dropped) = (
            alloc::vec![0; self.after.len()],
            alloc::vec![0; self.before.len()],
        );
        for (&(from, to), &count) in &self.flows {
            dropped[from as usize] += count;
            added[to as usize] += count;
        }
        node_changes(
            [&self.before, &dropped],
            [&self.after, &added],
            old_to_new,
            new_to_old,
        )
    }
}

/// Every old node in old order, then every node only on the new side in new order, from per-old
/// `[before, dropped]` and per-new `[after, added]` counts.
pub(crate) fn node_changes(
    [before, dropped]: [&[u64]; 2],
    [after, added]: [&[u64]; 2],
    old_to_new: impl Fn(usize) -> Option<usize>,
    new_to_old: impl Fn(usize) -> Option<usize>,
) -> Vec<NodeChange> {
    let mut rows: Vec<NodeChange> = (0..before.len())
        .map(|i| {
            let new = old_to_new(i);
            NodeChange {
                old_index: Some(i),
                new_index: new,
                before: before[i],
                after: new.map_or(0, |j| after[j]),
                added: new.map_or(0, |j| added[j]),
                dropped: dropped[i],
            }
        })
        .collect();
    rows.extend(
        (0..after.len())
            .filter(|&j| new_to_old(j).is_none())
            .map(|j| NodeChange {
                old_index: None,
                new_index: Some(j),
                before: 0,
                after: after[j],
                added: added[j],
                dropped: 0,
            }),
    );
    rows
}

impl<A: Lookup, B: Lookup> Diff<A, B> {
    /// Counts one key.
    pub fn add(&mut self, key: impl AsRef<[u8]>) {
        match &mut self.counts {
            Counts::Owners(_) => {
                self.route(key);
            }
            Counts::Replicas(replicas) => {
                replicas.route_top(key);
            }
        }
    }

    /// Counts one key and gives its owner's route, for callers that also list moved keys as they
    /// come (a streamed plan with its totals). A top-k diff counts the key's replica sets.
    pub fn route(&mut self, key: impl AsRef<[u8]>) -> Route {
        let key = key.as_ref();
        let r = self.transition.route(key);
        match &mut self.counts {
            Counts::Owners(tally) => tally.count(r.old_index, r.new_index, r.moved),
            Counts::Replicas(replicas) => {
                replicas.route_top(key);
            }
        }
        r
    }

    /// Counts every key of `keys`.
    pub fn add_many<I>(&mut self, keys: I)
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        // In blocks, so that two hrw-v1 placements of one seed digest several keys at once.
        let mut block = Vec::with_capacity(KEY_BLOCK);
        for key in keys {
            block.push(key);
            if block.len() == KEY_BLOCK {
                self.add_block(&block);
                block.clear();
            }
        }
        self.add_block(&block);
    }

    fn add_block<K: AsRef<[u8]>>(&mut self, keys: &[K]) {
        let inner = &*self.transition.inner;
        let Counts::Owners(tally) = &mut self.counts else {
            keys.iter().for_each(|k| self.add(k));
            return;
        };
        match (
            inner.same_seed,
            inner.old.as_placement(),
            inner.new.as_placement(),
        ) {
            (true, Some(o), Some(n)) => {
                let mut digests = [0u64; KEY_BLOCK];
                let digests = &mut digests[..keys.len()];
                Lanes::detect().key_digests(o.seed().key_state(), keys, digests);
                let (mut old, mut new) = ([0usize; KEY_BLOCK], [0usize; KEY_BLOCK]);
                let (old, new) = (&mut old[..keys.len()], &mut new[..keys.len()]);
                o.owners_of_digests(digests, old);
                n.owners_of_digests(digests, new);
                for (&old, &new) in old.iter().zip(new.iter()) {
                    tally.count(old, new, inner.old_to_new[old] != new as u32);
                }
            }
            _ => keys.iter().for_each(|k| self.add(k)),
        }
    }

    /// Adds the counts of another accumulator of the same transition and `k` (for parallel
    /// feeding). Returns false, adding nothing, when `other` counts something else.
    pub fn merge(&mut self, other: &Diff<A, B>) -> bool {
        if !self.transition.same(&other.transition) {
            return false;
        }
        match (&mut self.counts, &other.counts) {
            (Counts::Owners(mine), Counts::Owners(theirs)) => mine.merge(theirs),
            (Counts::Replicas(mine), Counts::Replicas(theirs)) => return mine.merge(theirs),
            _ => return false,
        }
        true
    }

    /// The number of replicas compared per key: 1 for [`Transition::diff`].
    pub fn k(&self) -> usize {
        match &self.counts {
            Counts::Owners(_) => 1,
            Counts::Replicas(r) => r.k(),
        }
    }

    /// Keys counted.
    pub fn keys(&self) -> u64 {
        match &self.counts {
            Counts::Owners(t) => t.keys(),
            Counts::Replicas(r) => r.keys(),
        }
    }

    /// Keys whose owner (for a top-k diff: whose set of replicas) changed.
    pub fn moved(&self) -> u64 {
        match &self.counts {
            Counts::Owners(t) => t.moved(),
            Counts::Replicas(r) => r.changed(),
        }
    }

    /// Copies to make: one per moved key for an owner diff, the sum of [`RouteSet::add`] over
    /// every key for a top-k diff.
    pub fn copies_added(&self) -> u64 {
        match &self.counts {
            Counts::Owners(t) => t.moved(),
            Counts::Replicas(r) => r.copies_added(),
        }
    }

    /// Copies to drop: one per moved key for an owner diff, the sum of [`RouteSet::drop`] over
    /// every key for a top-k diff.
    pub fn copies_dropped(&self) -> u64 {
        match &self.counts {
            Counts::Owners(t) => t.moved(),
            Counts::Replicas(r) => r.copies_dropped(),
        }
    }

    /// Moved keys per pair of nodes, as `(from, to, count)`: `count` keys leave the old node of
    /// index `from` for the new node of index `to`. Ordered by `from`, then `to`. A top-k diff
    /// has none: its copies are added and dropped per node ([`Diff::nodes`]), not moved between
    /// two owners.
    pub fn flows(&self) -> Vec<(usize, usize, u64)> {
        match &self.counts {
            Counts::Owners(t) => t.flows(),
            Counts::Replicas(_) => Vec::new(),
        }
    }

    /// Every old node in old order, then every node only in the new membership in new order.
    pub fn nodes(&self) -> Vec<NodeChange> {
        let t = &self.transition;
        match &self.counts {
            Counts::Owners(tally) => tally.nodes(|i| t.old_to_new(i), |j| t.new_to_old(j)),
            Counts::Replicas(r) => r.nodes(),
        }
    }

    /// The transition counted.
    pub fn transition(&self) -> &Transition<A, B> {
        &self.transition
    }
}

impl Diff {
    /// Counts one key and gives its replica sets with the diff's `k` (its owners for an owner
    /// diff), for callers that also list the keys whose set changes as they come. The set is
    /// overwritten by the next key.
    pub fn route_top(&mut self, key: impl AsRef<[u8]>) -> &RouteSet {
        match &mut self.counts {
            Counts::Owners(tally) => {
                let mut set = core::mem::take(&mut tally.scratch);
                self.transition.route_top_into(key, 1, &mut set);
                tally.count(set.before[0], set.after[0], set.changed());
                tally.scratch = set;
                &tally.scratch
            }
            Counts::Replicas(replicas) => replicas.route_top(key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, Node, Seed, Weight};

    fn weighted(nodes: &[(&str, f64)]) -> Placement {
        Placement::weighted(nodes.iter().copied()).unwrap()
    }

    #[test]
    fn expected_movement_of_simple_changes() {
        let five = weighted(&[("a", 1.), ("b", 1.), ("c", 1.), ("d", 1.), ("e", 1.)]);
        let six = five.with_node(Node::new("f")).unwrap();
        let t = Transition::new(&five, &six);
        assert!((t.expected_moved() - 1.0 / 6.0).abs() < 1e-15);
        assert!((t.optimum() - 1.0 / 6.0).abs() < 1e-15);
        assert_eq!(Transition::new(&five, &five).expected_moved(), 0.0);
        // A drained node and a joining one at once: a and c each keep 1/5.
        let old = weighted(&[("a", 1.), ("b", 1.), ("c", 1.)]);
        let new = weighted(&[("a", 1.), ("b", 0.), ("c", 1.), ("d", 2.)]);
        let t = Transition::new(&old, &new);
        assert!((t.expected_moved() - 0.6).abs() < 1e-15);
        assert!((t.optimum() - 0.5).abs() < 1e-15);
    }

    #[test]
    fn expected_movement_matches_the_quadratic_formula() {
        let old = weighted(&[("a", 1.), ("b", 2.), ("c", 3.), ("d", 0.5), ("e", 4.)]);
        let new = weighted(&[("a", 2.), ("b", 2.), ("c", 1.), ("f", 1.5), ("e", 4.)]);
        let t = Transition::new(&old, &new);
        let w = [1., 2., 3., 0.5, 4., 0.];
        let v = [2., 2., 1., 0., 4., 1.5];
        let mut stay = 0.0;
        for j in 0..6 {
            if w[j] > 0.0 && v[j] > 0.0 {
                let s: f64 = (0..6).map(|i| f64::max(w[i] / w[j], v[i] / v[j])).sum();
                stay += 1.0 / s;
            }
        }
        assert!((t.expected_moved() - (1.0 - stay)).abs() < 1e-14);
    }

    #[test]
    fn routes_agree_with_owners_and_diff_flows_sum_to_moved() {
        let old = weighted(&[("a", 1.), ("b", 2.), ("c", 1.)]);
        let new = weighted(&[("c", 1.), ("a", 1.), ("d", 1.)]);
        let t = Transition::new(&old, &new);
        let mut diff = t.diff();
        for i in 0..2000 {
            let key = alloc::format!("k{i}");
            let r = t.route(&key);
            assert_eq!(r.old_index, old.owner_index(&key));
            assert_eq!(r.new_index, new.owner_index(&key));
            assert_eq!(r.moved, old.owner(&key).id() != new.owner(&key).id());
            diff.add(&key);
        }
        let flows = diff.flows();
        assert_eq!(flows.iter().map(|f| f.2).sum::<u64>(), diff.moved());
        assert!(flows
            .iter()
            .all(|&(from, to, _)| old.node(from).unwrap().id() != new.node(to).unwrap().id()));
        let nodes = diff.nodes();
        assert_eq!(nodes.len(), 4);
        assert_eq!(nodes.iter().map(|n| n.before).sum::<u64>(), 2000);
        assert_eq!(nodes.iter().map(|n| n.after).sum::<u64>(), 2000);
        let planned = t.plan((0..2000).map(|i| alloc::format!("k{i}"))).count() as u64;
        assert_eq!(planned, diff.moved());
    }

    #[test]
    fn different_seeds_route_each_side_with_its_own() {
        let old = Placement::new(["a", "b", "c"]).unwrap();
        let new = Placement::from_nodes(Seed::from_bytes([7; 16]), ["a", "b", "c"].map(Node::new))
            .unwrap();
        let t = Transition::new(&old, &new);
        for key in ["x", "y", "z", "w"] {
            assert_eq!(t.route(key).new_index, new.owner_index(key));
        }
        assert!((t.expected_moved() - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn top_k_sets_say_what_to_add_and_drop() {
        let old = Placement::new(["a", "b", "c", "d"]).unwrap();
        let new = old.without_node("b").unwrap();
        let t = Transition::new(&old, &new);
        for i in 0..200 {
            let key = alloc::format!("k{i}");
            let s = t.route_top(&key, 2);
            let ids = |p: &Placement, v: &[usize]| -> Vec<Vec<u8>> {
                v.iter()
                    .map(|&i| p.node(i).unwrap().id().to_vec())
                    .collect()
            };
            let (before, after) = (ids(&old, &s.before), ids(&new, &s.after));
            let added = ids(&new, &s.add);
            let dropped = ids(&old, &s.drop);
            assert!(added
                .iter()
                .all(|id| !before.contains(id) && after.contains(id)));
            assert!(dropped
                .iter()
                .all(|id| before.contains(id) && !after.contains(id)));
            assert_eq!(added.len(), dropped.len());
            assert_eq!(dropped.is_empty(), !before.contains(&b"b".to_vec()));
        }
        let w = Weight::new(3.0).unwrap();
        let heavier = old.with_weight("a", w).unwrap();
        assert_eq!(
            Transition::new(&old, &heavier).route_top("x", 0),
            RouteSet::default()
        );
    }

    /// Three zones of three nodes; `lost` names a zone whose nodes are gone.
    fn zoned(lost: Option<&str>) -> Placement {
        let nodes = ["a", "b", "c"]
            .into_iter()
            .filter(|z| Some(*z) != lost)
            .flat_map(|z| (0..3).map(move |i| Node::new(alloc::format!("{z}{i}")).with_domain(z)));
        Placement::from_nodes(crate::Seed::DEFAULT, nodes).unwrap()
    }

    #[test]
    fn top_k_routes_follow_each_sides_replicas() {
        let (old, new) = (zoned(None), zoned(Some("c")));
        let t = Transition::new(&old, &new);
        let indices = |v: Vec<crate::NodeRef<'_>>| v.iter().map(|n| n.index()).collect::<Vec<_>>();
        let mut diff = t.diff_top(3);
        let (mut ranked_differently, mut changed) = (0, 0);
        for i in 0..10_000 {
            let key = alloc::format!("key-{i}");
            let s = t.route_top(&key, 3);
            assert_eq!(s.before, indices(old.replicas(&key, 3)));
            assert_eq!(s.after, indices(new.replicas(&key, 3)));
            let ranked: Vec<usize> = old.rank(&key, 3).iter().map(|n| n.index()).collect();
            ranked_differently += usize::from(ranked != s.before);
            changed += u64::from(s.changed());
            assert_eq!(diff.route_top(&key), &s);
        }
        // Without the domain rule most keys would be routed from a set they are not stored on.
        assert!(ranked_differently > 5_000, "{ranked_differently}");
        assert_eq!(diff.moved(), changed);
        let planned = t.plan_top((0..10_000).map(|i| alloc::format!("key-{i}")), 3);
        assert_eq!(planned.count() as u64, changed);
    }

    #[test]
    fn top_k_routes_without_domains_are_the_ranking() {
        let old = Placement::new(["a", "b", "c", "d", "e"]).unwrap();
        let new = old.without_node("c").unwrap();
        let t = Transition::new(&old, &new);
        for i in 0..2_000 {
            let key = alloc::format!("key-{i}");
            let s = t.route_top(&key, 3);
            let ranked = |p: &Placement| {
                p.rank(&key, 3)
                    .iter()
                    .map(|n| n.index())
                    .collect::<Vec<_>>()
            };
            assert_eq!((s.before, s.after), (ranked(&old), ranked(&new)));
        }
    }

    #[test]
    fn strict_replicas_refuse_to_share_a_domain() {
        let whole = zoned(None);
        let lost = zoned(Some("b"));
        for i in 0..1_000 {
            let key = alloc::format!("key-{i}");
            assert_eq!(
                whole.replicas_strict(&key, 3).unwrap(),
                whole.replicas(&key, 3)
            );
            assert_eq!(
                lost.replicas_strict(&key, 2).unwrap(),
                lost.replicas(&key, 2)
            );
            assert_eq!(
                lost.replicas_strict(&key, 3),
                Err(Error::InvalidReplicaCount {
                    requested: 3,
                    available: 2
                })
            );
            let mut out = [usize::MAX; 3];
            assert!(lost.replicas_strict_into(&key, &mut out).is_err());
            assert_eq!(out, [usize::MAX; 3]);
        }
        // Nodes without a named domain are each a domain; nodes of weight zero hold nothing.
        let mixed = Placement::from_nodes(
            crate::Seed::DEFAULT,
            [
                Node::new("x").with_domain("z"),
                Node::new("y").with_domain("z"),
                Node::new("u"),
                Node::new("w")
                    .with_domain("q")
                    .with_weight(Weight::new(0.0).unwrap()),
            ],
        )
        .unwrap();
        assert_eq!(mixed.replicas_strict("k", 2).unwrap().len(), 2);
        assert!(mixed.replicas_strict("k", 3).is_err());
        assert_eq!(mixed.replicas_strict("k", 0).unwrap(), alloc::vec![]);
    }

    #[test]
    fn merged_diffs_equal_one_diff() {
        let t = Transition::new(
            &Placement::new(["a", "b"]).unwrap(),
            &Placement::new(["b", "c"]).unwrap(),
        );
        let (mut one, mut left, mut right) = (t.diff(), t.diff(), t.diff());
        for i in 0..500 {
            let key = alloc::format!("k{i}");
            one.add(&key);
            if i % 2 == 0 { &mut left } else { &mut right }.add(&key);
        }
        assert!(left.merge(&right));
        assert_eq!(left.flows(), one.flows());
        assert_eq!(left.nodes(), one.nodes());
        let other = Transition::new(
            &Placement::new(["a"]).unwrap(),
            &Placement::new(["a"]).unwrap(),
        );
        assert!(!left.merge(&other.diff()));
    }
}
