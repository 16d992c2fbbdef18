//! What switching between any two placements moves: an incumbent's profile and hrw-v1, two
//! profiles, or two hrw-v1 memberships. Nodes are the same node when their ids are equal.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::ProfilePlacement;
use hrwhash::transition::{Flow, NodeChange, Route, Tally};
use hrwhash::Placement;

/// A membership that answers "which node owns this key?": the common ground of every placement
/// a [`Switch`] can compare.
pub trait Lookup {
    /// Number of nodes.
    fn node_count(&self) -> usize;
    /// Id of the node at `index` (caller order); `index < node_count()`.
    fn node_id(&self, index: usize) -> &[u8];
    /// Index of the owner of `key`.
    fn owner_of(&self, key: &[u8]) -> usize;
}

impl Lookup for Placement {
    fn node_count(&self) -> usize {
        self.len()
    }
    fn node_id(&self, index: usize) -> &[u8] {
        self.node_specs()[index].id()
    }
    fn owner_of(&self, key: &[u8]) -> usize {
        self.owner_index(key)
    }
}

#[cfg(feature = "json")]
impl Lookup for hrwhash::View {
    fn node_count(&self) -> usize {
        self.placement().len()
    }
    fn node_id(&self, index: usize) -> &[u8] {
        self.placement().node_specs()[index].id()
    }
    fn owner_of(&self, key: &[u8]) -> usize {
        self.placement().owner_index(key)
    }
}

impl Lookup for ProfilePlacement {
    fn node_count(&self) -> usize {
        self.len()
    }
    fn node_id(&self, index: usize) -> &[u8] {
        self.nodes()[index].id()
    }
    fn owner_of(&self, key: &[u8]) -> usize {
        self.owner(key)
    }
}

/// An hrw-v1 membership or an incumbent's, for a [`Switch`] whose sides are chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyPlacement {
    /// Placed by hrw-v1.
    Hrw(Placement),
    /// Placed by an incumbent's profile.
    Profile(ProfilePlacement),
}

impl AnyPlacement {
    /// `hrw-v1` or the profile's name.
    pub fn algorithm(&self) -> &'static str {
        match self {
            AnyPlacement::Hrw(_) => hrwhash::ALGORITHM,
            AnyPlacement::Profile(p) => p.profile().name(),
        }
    }
}

impl Lookup for AnyPlacement {
    fn node_count(&self) -> usize {
        match self {
            AnyPlacement::Hrw(p) => p.node_count(),
            AnyPlacement::Profile(p) => p.node_count(),
        }
    }
    fn node_id(&self, index: usize) -> &[u8] {
        match self {
            AnyPlacement::Hrw(p) => p.node_id(index),
            AnyPlacement::Profile(p) => p.node_id(index),
        }
    }
    fn owner_of(&self, key: &[u8]) -> usize {
        match self {
            AnyPlacement::Hrw(p) => p.owner_of(key),
            AnyPlacement::Profile(p) => p.owner_of(key),
        }
    }
}

/// No node of the other side has this id.
const NONE: u32 = u32::MAX;

struct Inner<A, B> {
    from: A,
    to: B,
    from_to: Vec<u32>,
    to_from: Vec<u32>,
}

/// The switch from one placement to another, of any two kinds. Cheap to clone (shared).
///
/// ```
/// use hrwhash::{Node, Placement};
/// use hrwhash_compat::{Profile, ProfilePlacement, Switch};
///
/// let ids = ["cache-a:6379", "cache-b:6379", "cache-c:6379"];
/// let incumbent = ProfilePlacement::new(Profile::GoRedisRingV9, ids.map(Node::new))?;
/// let switch = Switch::new(incumbent, Placement::new(ids)?);
/// let mut diff = switch.diff();
/// diff.add_all((0..3000).map(|i| format!("user:{i}")));
/// // Two unrelated hash functions over the same three nodes: about 2/3 of the keys move.
/// assert!(diff.moved() > 1800 && diff.moved() < 2200);
/// assert_eq!(diff.flows().iter().map(|f| f.count).sum::<u64>(), diff.moved());
/// # Ok::<(), hrwhash::Error>(())
/// ```
pub struct Switch<A, B> {
    inner: Arc<Inner<A, B>>,
}

impl<A, B> Clone for Switch<A, B> {
    fn clone(&self) -> Self {
        Switch {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<A: Lookup, B: Lookup> Switch<A, B> {
    /// The switch from `from` to `to`; nodes are matched by id in O(N log N).
    pub fn new(from: A, to: B) -> Switch<A, B> {
        let sorted = |p: &dyn Lookup| {
            let mut order: Vec<u32> = (0..p.node_count() as u32).collect();
            order.sort_unstable_by(|&a, &b| p.node_id(a as usize).cmp(p.node_id(b as usize)));
            order
        };
        let (a, b) = (sorted(&from), sorted(&to));
        let mut from_to = alloc::vec![NONE; from.node_count()];
        let mut to_from = alloc::vec![NONE; to.node_count()];
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            match from.node_id(x as usize).cmp(to.node_id(y as usize)) {
                core::cmp::Ordering::Less => i += 1,
                core::cmp::Ordering::Greater => j += 1,
                core::cmp::Ordering::Equal => {
                    from_to[x as usize] = y;
                    to_from[y as usize] = x;
                    i += 1;
                    j += 1;
                }
            }
        }
        Switch {
            inner: Arc::new(Inner {
                from,
                to,
                from_to,
                to_from,
            }),
        }
    }

    /// The placement switched from.
    pub fn from(&self) -> &A {
        &self.inner.from
    }

    /// The placement switched to.
    pub fn to(&self) -> &B {
        &self.inner.to
    }

    /// The index on the `to` side of the node with the id of `from` node `index`.
    pub fn from_to(&self, index: usize) -> Option<usize> {
        match self.inner.from_to.get(index) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// The index on the `from` side of the node with the id of `to` node `index`.
    pub fn to_from(&self, index: usize) -> Option<usize> {
        match self.inner.to_from.get(index) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// The owners of `key` before (`old`, a `from` index) and after (`new`, a `to` index).
    pub fn route(&self, key: impl AsRef<[u8]>) -> Route {
        let key = key.as_ref();
        let old = self.inner.from.owner_of(key);
        let new = self.inner.to.owner_of(key);
        Route {
            old,
            new,
            moved: self.inner.from_to[old] != new as u32,
        }
    }

    /// An accumulator of owner changes over keys fed one by one.
    pub fn diff(&self) -> SwitchDiff<A, B> {
        SwitchDiff {
            switch: self.clone(),
            tally: Tally::new(self.inner.from.node_count(), self.inner.to.node_count()),
        }
    }
}

/// Owner changes of a [`Switch`] accumulated over keys, in memory that depends on the nodes and
/// flows only: the same counts as [`hrwhash::transition::Diff`].
pub struct SwitchDiff<A, B> {
    switch: Switch<A, B>,
    tally: Tally,
}

impl<A: Lookup, B: Lookup> SwitchDiff<A, B> {
    /// Counts one key.
    pub fn add(&mut self, key: impl AsRef<[u8]>) {
        let r = self.switch.route(key);
        self.tally.count(r.old, r.new, r.moved);
    }

    /// Counts every key of `keys`.
    pub fn add_all<I>(&mut self, keys: I)
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        keys.into_iter().for_each(|k| self.add(k));
    }

    /// Keys counted.
    pub fn keys(&self) -> u64 {
        self.tally.keys()
    }

    /// Keys whose owner changed.
    pub fn moved(&self) -> u64 {
        self.tally.moved()
    }

    /// Moved keys per (`from` node, `to` node), ordered by `from` index then `to` index.
    pub fn flows(&self) -> Vec<Flow> {
        self.tally.flows()
    }

    /// Every `from` node in its order, then every node only on the `to` side in its order
    /// (`old` is a `from` index, `new` a `to` index).
    pub fn nodes(&self) -> Vec<NodeChange> {
        let s = &self.switch;
        self.tally.nodes(|i| s.from_to(i), |j| s.to_from(j))
    }

    /// The switch counted.
    pub fn switch(&self) -> &Switch<A, B> {
        &self.switch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;
    use hrwhash::transition::Transition;
    use hrwhash::Node;

    #[test]
    fn between_two_hrw_placements_it_counts_what_a_transition_counts() {
        let old = Placement::new(["a", "b", "c"]).unwrap();
        let new = Placement::new(["c", "a", "d"]).unwrap();
        let t = Transition::new(&old, &new);
        let s = Switch::new(old.clone(), new.clone());
        let (mut td, mut sd) = (t.diff(), s.diff());
        for i in 0..3000 {
            let key = alloc::format!("k{i}");
            assert_eq!(s.route(&key), t.route(&key));
            td.add(&key);
            sd.add(&key);
        }
        assert_eq!(sd.flows(), td.flows());
        assert_eq!(sd.nodes(), td.nodes());
        assert_eq!(sd.moved(), td.moved());
    }

    #[test]
    fn a_profile_switched_to_itself_moves_nothing_and_flows_sum_to_moved() {
        let ids = ["a:11211", "b:11211", "c:11211", "d:11211"];
        for p in Profile::ALL {
            let pl = ProfilePlacement::new(p, ids.map(Node::new)).unwrap();
            let same = Switch::new(pl.clone(), pl.clone());
            let mut d = same.diff();
            d.add_all((0..500).map(|i| alloc::format!("k{i}")));
            assert_eq!(d.moved(), 0);
            let to = Placement::new(&ids[..3]).unwrap();
            let s = Switch::new(pl.clone(), to.clone());
            let mut d = s.diff();
            for i in 0..2000 {
                let key = alloc::format!("k{i}");
                let r = s.route(&key);
                assert_eq!(r.old, pl.owner(&key));
                assert_eq!(r.new, to.owner_index(&key));
                assert_eq!(r.moved, pl.owner_id(&key) != to.owner(&key).id());
                d.add(&key);
            }
            assert_eq!(d.flows().iter().map(|f| f.count).sum::<u64>(), d.moved());
            let rows = d.nodes();
            assert_eq!(rows.len(), 4);
            assert_eq!(rows[3].new, None);
            assert_eq!(rows[3].after, 0);
            assert_eq!(rows.iter().map(|r| r.before).sum::<u64>(), 2000);
        }
    }
}
