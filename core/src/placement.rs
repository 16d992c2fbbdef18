use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::kernel::{Interleaved, Kernel};
use crate::util::LineAligned;
use crate::v1::digest::Lanes;
use crate::v1::{draw, key_digest, node_digest, score, Seed};
use crate::{Error, Weight};

mod selection;

use selection::{Direct, Keyed, SMALL_K};

/// A node as the caller describes it: an id, a weight and an optional failure domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    id: Vec<u8>,
    weight: Weight,
    domain: Option<Vec<u8>>,
}

impl Node {
    /// A node of weight 1 in no named failure domain.
    pub fn new(id: impl AsRef<[u8]>) -> Node {
        Node {
            id: id.as_ref().to_vec(),
            weight: Weight::ONE,
            domain: None,
        }
    }

    /// The same node with another weight.
    pub fn with_weight(mut self, weight: Weight) -> Node {
        self.weight = weight;
        self
    }

    /// The same node in a failure domain (a rack, zone or host) shared with other nodes.
    pub fn with_domain(mut self, domain: impl AsRef<[u8]>) -> Node {
        self.domain = Some(domain.as_ref().to_vec());
        self
    }

    /// The id bytes.
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// The weight.
    pub fn weight(&self) -> Weight {
        self.weight
    }

    /// The failure domain, if one was named.
    pub fn domain(&self) -> Option<&[u8]> {
        self.domain.as_deref()
    }
}

/// Nodes of one weight, stored contiguously in id order.
struct Group {
    weight: u64,
    start: usize,
    end: usize,
    /// `u64::MAX / (end - start)`: scores are uniform, so about `c` of the group's nodes score
    /// above `u64::MAX - c * hit_step`.
    hit_step: u64,
}

// With few distinct weights, a lookup finds each group's best node with the SIMD kernel and
// computes a draw only for those; with many, every node needs its own draw.
const MAX_GROUPS_FOR_GROUPED_LOOKUP: usize = 8;
const MIN_NODES_PER_GROUP_FOR_GROUPED_LOOKUP: usize = 16;
/// How many selectable nodes a placement has when it keeps an [`Interleaved`] layout: below,
/// groups of a few nodes cost less one at a time (no vector setup or reduction).
const MIN_NODES_INTERLEAVED: usize = 32;
const MAX_NODES_INTERLEAVED: usize = 2048;
/// Keys digested together before their lookups by the batch calls: a multiple of every
/// multi-key digest's width, and small enough for the stack.
pub(crate) const KEY_BLOCK: usize = 64;

struct Inner {
    seed: Seed,
    nodes: Vec<Node>,
    /// Digests of the selectable nodes, grouped by weight and ordered by id within a group.
    lanes: LineAligned,
    /// Caller index of the node at each lane.
    lane_node: Vec<u32>,
    /// Fixed-point weight of the node at each lane.
    lane_weight: Vec<u64>,
    /// The same weights as floats, for [`DrawBound`].
    lane_weight_f64: Vec<f64>,
    groups: Vec<Group>,
    grouped: bool,
    /// The owner search of a weighted placement of a few nodes, where it pays.
    direct: Option<Direct>,
    /// The same search over the best nodes of a few weight groups (where `direct` is not).
    group_direct: Option<Direct>,
    /// The search for top-k of a few more nodes than `direct` takes (where it is not).
    top_direct: Option<Direct>,
    /// The lanes again, laid out for one pass over every group, where that pays.
    interleaved: Option<Interleaved>,
    kernel: Kernel,
    /// Whether any node names a failure domain: without one, replicas are the top of the ranking.
    named_domains: bool,
    /// Failure domains holding a selectable node (a node without a named domain is its own).
    domains: usize,
}

/// An immutable set of nodes that answers "which node owns this key?" with the hrw-v1 algorithm.
///
/// Cloning is cheap (a reference count) and a placement can be shared between threads.
///
/// ```
/// use hrwhash::Placement;
/// let placement = Placement::new(["cache-a", "cache-b", "cache-c"])?;
/// let owner = placement.owner(b"user:42");
/// let top2 = placement.rank(b"user:42", 2);
/// assert_eq!(top2[0], owner);
/// assert_ne!(top2[0], top2[1]);
/// # Ok::<(), hrwhash::Error>(())
/// ```
#[derive(Clone)]
pub struct Placement {
    inner: Arc<Inner>,
}

impl core::fmt::Debug for Placement {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Digests and lanes are derived data; a fleet of thousands would drown the output.
        f.debug_struct("Placement")
            .field("algorithm", &crate::ALGORITHM)
            .field("seed", &self.inner.seed)
            .field("nodes", &self.inner.nodes.len())
            .field("selectable", &self.inner.lanes.len())
            .field("distinct_weights", &self.inner.groups.len())
            .finish()
    }
}

/// A node of a placement, as returned by lookups.
#[derive(Clone, Copy)]
pub struct NodeRef<'a> {
    placement: &'a Placement,
    index: usize,
}

impl<'a> NodeRef<'a> {
    /// Position of the node in the list the placement was built from.
    pub fn index(&self) -> usize {
        self.index
    }
    /// The id bytes.
    pub fn id(&self) -> &'a [u8] {
        &self.placement.inner.nodes[self.index].id
    }
    /// The weight.
    pub fn weight(&self) -> Weight {
        self.placement.inner.nodes[self.index].weight
    }
    /// The failure domain, if one was named.
    pub fn domain(&self) -> Option<&'a [u8]> {
        self.placement.inner.nodes[self.index].domain.as_deref()
    }
}

impl PartialEq for NodeRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(
            self.placement.inner.as_ref(),
            other.placement.inner.as_ref(),
        ) && self.index == other.index
    }
}
impl Eq for NodeRef<'_> {}

impl core::fmt::Debug for NodeRef<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NodeRef")
            .field("index", &self.index)
            .field("id", &crate::util::Bytes(self.id()))
            .finish()
    }
}

impl Placement {
    /// An unweighted placement over `ids` with the default seed.
    pub fn new<I>(ids: I) -> Result<Placement, Error>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        Placement::from_nodes(Seed::DEFAULT, ids.into_iter().map(Node::new))
    }

    /// A weighted placement from `(id, weight)` pairs with the default seed.
    pub fn weighted<I, T>(nodes: I) -> Result<Placement, Error>
    where
        I: IntoIterator<Item = (T, f64)>,
        T: AsRef<[u8]>,
    {
        let nodes = nodes
            .into_iter()
            .map(|(id, w)| Ok(Node::new(id).with_weight(Weight::new(w)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Placement::from_nodes(Seed::DEFAULT, nodes)
    }

    /// A placement of `nodes` (with their weights and failure domains) under `seed`
    /// ([`Seed::DEFAULT`] unless keys must not be placeable by others). Validates and indexes
    /// the nodes; their order is the order of [`NodeRef::index`].
    ///
    /// ```
    /// use hrwhash::{Node, Placement, Seed, Weight};
    ///
    /// let p = Placement::from_nodes(
    ///     Seed::from_bytes(*b"0123456789abcdef"),
    ///     [
    ///         Node::new("a").with_weight(Weight::new(2.0)?).with_domain("rack-1"),
    ///         Node::new("b").with_domain("rack-2"),
    ///     ],
    /// )?;
    /// assert_eq!(p.len(), 2);
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn from_nodes(
        seed: Seed,
        nodes: impl IntoIterator<Item = Node>,
    ) -> Result<Placement, Error> {
        Placement::with_kernel(seed, nodes.into_iter().collect(), Kernel::detect())
    }

    /// [`Placement::from_nodes`] with a given kernel, which the CPU must have.
    fn with_kernel(seed: Seed, nodes: Vec<Node>, kernel: Kernel) -> Result<Placement, Error> {
        if nodes.is_empty() {
            return Err(Error::EmptyMembership);
        }
        if nodes.len() > u32::MAX as usize {
            return Err(Error::TooManyNodes { count: nodes.len() });
        }
        if let Some(index) = nodes.iter().position(|n| n.id.is_empty()) {
            return Err(Error::EmptyNodeId { index });
        }
        let mut by_id: Vec<u32> = (0..nodes.len() as u32).collect();
        by_id.sort_unstable_by(|&a, &b| {
            nodes[a as usize]
                .id
                .cmp(&nodes[b as usize].id)
                .then(a.cmp(&b))
        });
        // Report the first node, in input order, whose id an earlier node already has.
        let mut duplicate: Option<(usize, usize)> = None;
        for run in by_id.chunk_by(|&a, &b| nodes[a as usize].id == nodes[b as usize].id) {
            if let [first, second, ..] = *run {
                let found = (second as usize, first as usize);
                if duplicate.is_none_or(|(index, _)| found.0 < index) {
                    duplicate = Some(found);
                }
            }
        }
        if let Some((index, first_index)) = duplicate {
            return Err(Error::DuplicateNodeId { index, first_index });
        }
        // Heaviest group first; within a group, id order, which is also the tie-break order.
        let mut selectable: Vec<u32> = by_id
            .into_iter()
            .filter(|&i| !nodes[i as usize].weight.is_zero())
            .collect();
        if selectable.is_empty() {
            return Err(Error::AllWeightsZero);
        }
        selectable.sort_by(|&a, &b| nodes[b as usize].weight.cmp(&nodes[a as usize].weight));
        let lanes: LineAligned = selectable
            .iter()
            .map(|&i| node_digest(&seed, &nodes[i as usize].id))
            .collect();
        let lane_weight: Vec<u64> = selectable
            .iter()
            .map(|&i| nodes[i as usize].weight.to_fixed())
            .collect();
        let mut groups: Vec<Group> = Vec::new();
        for (lane, &w) in lane_weight.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if g.weight == w => g.end = lane + 1,
                _ => groups.push(Group {
                    weight: w,
                    start: lane,
                    end: lane + 1,
                    hit_step: 0,
                }),
            }
        }
        for g in &mut groups {
            g.hit_step = u64::MAX / (g.end - g.start) as u64;
        }
        let grouped = groups.len() <= MAX_GROUPS_FOR_GROUPED_LOOKUP
            || lanes.len() >= groups.len() * MIN_NODES_PER_GROUP_FOR_GROUPED_LOOKUP;
        // Past a few thousand nodes the groups' own passes cost the same, and their fixed costs
        // nothing by comparison; below a few dozen, the vector pass costs more than it saves.
        let interleaved = match kernel {
            Kernel::Scalar => None,
            _ if !(MIN_NODES_INTERLEAVED..=MAX_NODES_INTERLEAVED).contains(&lanes.len()) => None,
            _ => Interleaved::new(groups.iter().map(|g| &lanes[g.start..g.end])),
        };
        let direct = Direct::new(&lane_weight, groups.len());
        let group_direct = match direct {
            None if grouped => {
                Direct::for_groups(&groups.iter().map(|g| g.weight).collect::<Vec<_>>())
            }
            _ => None,
        };
        let top_direct = match direct {
            None => Direct::for_top_k(&lane_weight, groups.len()),
            Some(_) => None,
        };
        let named_domains = nodes.iter().any(|n| n.domain.is_some());
        let domains = {
            let mut named: Vec<&[u8]> = selectable
                .iter()
                .filter_map(|&i| nodes[i as usize].domain.as_deref())
                .collect();
            let unnamed = selectable.len() - named.len();
            named.sort_unstable();
            named.dedup();
            unnamed + named.len()
        };
        Ok(Placement {
            inner: Arc::new(Inner {
                seed,
                nodes,
                lanes,
                lane_node: selectable,
                lane_weight_f64: lane_weight.iter().map(|&w| w as f64).collect(),
                lane_weight,
                groups,
                grouped,
                direct,
                group_direct,
                top_direct,
                interleaved,
                kernel,
                named_domains,
                domains,
            }),
        })
    }

    /// Number of nodes, including those of weight zero.
    pub fn len(&self) -> usize {
        self.inner.nodes.len()
    }

    /// Always false: a placement has at least one node.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Number of nodes that can be selected (weight above zero).
    pub fn selectable_len(&self) -> usize {
        self.inner.lanes.len()
    }

    /// The seed.
    pub fn seed(&self) -> Seed {
        self.inner.seed
    }

    /// Whether any two selectable nodes have different weights.
    pub fn is_weighted(&self) -> bool {
        self.inner.groups.len() > 1
    }

    /// The node at `index` of the list the placement was built from.
    pub fn node(&self, index: usize) -> Option<NodeRef<'_>> {
        (index < self.len()).then_some(NodeRef {
            placement: self,
            index,
        })
    }

    /// Every node, in the order the placement was built from.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeRef<'_>> + '_ {
        (0..self.len()).map(move |index| NodeRef {
            placement: self,
            index,
        })
    }

    /// The node descriptions, in build order.
    pub fn node_specs(&self) -> &[Node] {
        &self.inner.nodes
    }

    /// The node with this id.
    pub fn find(&self, id: impl AsRef<[u8]>) -> Option<NodeRef<'_>> {
        let id = id.as_ref();
        self.inner
            .nodes
            .iter()
            .position(|n| n.id == id)
            .map(|index| NodeRef {
                placement: self,
                index,
            })
    }

    /// The owner of `key`: the first node of its ranking.
    ///
    /// ```
    /// use hrwhash::Placement;
    /// let p = Placement::weighted([("small", 1.0), ("big", 3.0), ("draining", 0.0)])?;
    /// assert_ne!(p.owner("some key").id(), b"draining");
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn owner(&self, key: impl AsRef<[u8]>) -> NodeRef<'_> {
        let index = self.owner_index(key);
        NodeRef {
            placement: self,
            index,
        }
    }

    /// The build-order index of the owner of `key`.
    pub fn owner_index(&self, key: impl AsRef<[u8]>) -> usize {
        let kd = key_digest(&self.inner.seed, key.as_ref());
        self.inner.lane_node[self.owner_lane(kd)] as usize
    }

    /// The build-order index of the owner of the key whose digest (under this seed) is `kd`, so
    /// that two placements with one seed hash a key once.
    pub(crate) fn owner_index_of_digest(&self, kd: u64) -> usize {
        self.inner.lane_node[self.owner_lane(kd)] as usize
    }

    /// The first `out.len()` nodes of the ranking of the key whose digest (under this seed) is
    /// `kd`, as build-order indices; returns how many it wrote. Allocates nothing.
    pub(crate) fn rank_digest_into(&self, kd: u64, out: &mut [usize]) -> usize {
        let n = self.rank_lanes_into(kd, out);
        for slot in &mut out[..n] {
            *slot = self.inner.lane_node[*slot] as usize;
        }
        n
    }

    /// Owners of many keys, as build-order indices into `out` (which must be as long as `keys`).
    pub fn owners_into<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [usize]) -> Result<(), Error> {
        if keys.len() != out.len() {
            return Err(Error::LengthMismatch {
                expected: keys.len(),
                actual: out.len(),
            });
        }
        self.owners_blocked(keys, out);
        Ok(())
    }

    /// Owners of many keys, as build-order indices.
    pub fn owners<K: AsRef<[u8]>>(&self, keys: &[K]) -> Vec<usize> {
        let mut out = alloc::vec![0usize; keys.len()];
        self.owners_blocked(keys, &mut out);
        out
    }

    /// The owners of `keys` into `out` (as long): the keys are digested a block at a time,
    /// several per vector register where the CPU has one, then looked up together
    /// ([`Placement::owners_of_digests`]).
    fn owners_blocked<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [usize]) {
        let lanes = Lanes::detect();
        let mut digests = [0u64; KEY_BLOCK];
        for (keys, out) in keys.chunks(KEY_BLOCK).zip(out.chunks_mut(KEY_BLOCK)) {
            let digests = &mut digests[..keys.len()];
            lanes.key_digests(self.inner.seed.key_state(), keys, digests);
            self.owners_of_digests(digests, out);
        }
    }

    /// [`Placement::owner_index_of_digest`] of every digest of `digests` (at most
    /// [`KEY_BLOCK`]) into `out`, which is as long. An unweighted placement looks the keys up
    /// together ([`Kernel::argmax_many`]: each node digest read once per block of keys, not once
    /// per key); a weighted one, one at a time.
    pub(crate) fn owners_of_digests(&self, digests: &[u64], out: &mut [usize]) {
        debug_assert!(digests.len() <= KEY_BLOCK && digests.len() == out.len());
        let inner = &*self.inner;
        if inner.groups.len() == 1 {
            let mut best = [(0u64, 0usize); KEY_BLOCK];
            let best = &mut best[..digests.len()];
            inner.kernel.argmax_many(digests, &inner.lanes, best);
            for (slot, &(_, lane)) in out.iter_mut().zip(best.iter()) {
                *slot = inner.lane_node[lane] as usize;
            }
        } else {
            for (&kd, slot) in digests.iter().zip(out) {
                *slot = self.owner_index_of_digest(kd);
            }
        }
    }

    /// The first `k` nodes of the ranking of `key` (fewer when fewer nodes are selectable).
    pub fn rank(&self, key: impl AsRef<[u8]>, k: usize) -> Vec<NodeRef<'_>> {
        self.top_refs(k, |out| self.rank_into(key, out))
    }

    /// The nodes `fill` writes the indices of into a buffer of `k` slots (fewer when fewer nodes
    /// are selectable), as references.
    fn top_refs(&self, k: usize, fill: impl FnOnce(&mut [usize]) -> usize) -> Vec<NodeRef<'_>> {
        let mut out = alloc::vec![0usize; k.min(self.selectable_len())];
        let n = fill(&mut out);
        out[..n]
            .iter()
            .map(|&index| NodeRef {
                placement: self,
                index,
            })
            .collect()
    }

    /// Writes the build-order indices of the first `out.len()` nodes of the ranking of `key` into
    /// `out` and returns how many it wrote. Allocates nothing.
    ///
    /// ```
    /// use hrwhash::Placement;
    /// let p = Placement::new(["a", "b", "c", "d"])?;
    /// let mut top = [0usize; 3];
    /// assert_eq!(p.rank_into("key", &mut top), 3);
    /// assert_eq!(top[0], p.owner_index("key"));
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn rank_into(&self, key: impl AsRef<[u8]>, out: &mut [usize]) -> usize {
        let kd = key_digest(&self.inner.seed, key.as_ref());
        let n = self.rank_lanes_into(kd, out);
        for slot in &mut out[..n] {
            *slot = self.inner.lane_node[*slot] as usize;
        }
        n
    }

    /// Top-`k` rankings of many keys: row `i` of `out` (`k` slots per key) gets the ranking of
    /// `keys[i]`; returns the number of nodes per row, `min(k, selectable_len())`.
    pub fn rank_many_into<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        k: usize,
        out: &mut [usize],
    ) -> Result<usize, Error> {
        let expected = keys.len().checked_mul(k).ok_or(Error::ResultTooLarge)?;
        if out.len() != expected {
            return Err(Error::LengthMismatch {
                expected,
                actual: out.len(),
            });
        }
        let per_key = k.min(self.selectable_len());
        if k == 0 {
            return Ok(0);
        }
        // One row per key, in blocks of key digests; rows of one node are the owners, which
        // are looked up a block of keys at a time.
        let lanes = Lanes::detect();
        let mut digests = [0u64; KEY_BLOCK];
        let mut owners = [0usize; KEY_BLOCK];
        for (keys, rows) in keys.chunks(KEY_BLOCK).zip(out.chunks_mut(KEY_BLOCK * k)) {
            let digests = &mut digests[..keys.len()];
            lanes.key_digests(self.inner.seed.key_state(), keys, digests);
            if per_key == 1 {
                let owners = &mut owners[..keys.len()];
                self.owners_of_digests(digests, owners);
                for (&owner, row) in owners.iter().zip(rows.chunks_exact_mut(k)) {
                    row[0] = owner;
                }
                continue;
            }
            for (&kd, row) in digests.iter().zip(rows.chunks_exact_mut(k)) {
                self.rank_digest_into(kd, &mut row[..per_key]);
            }
        }
        Ok(per_key)
    }

    /// Every selectable node, in ranking order for `key`.
    pub fn ranking(
        &self,
        key: impl AsRef<[u8]>,
    ) -> impl ExactSizeIterator<Item = NodeRef<'_>> + Clone + '_ {
        let kd = key_digest(&self.inner.seed, key.as_ref());
        // Scores (and draws, when weights differ) once per node rather than once per comparison.
        let weighted = self.is_weighted();
        let mut keyed: Vec<Keyed> = (0..self.inner.lanes.len())
            .map(|lane| {
                let c = self.candidate(kd, lane);
                Keyed {
                    draw: if weighted { draw(c.score) } else { 0 },
                    c,
                }
            })
            .collect();
        keyed.sort_unstable_by(|a, b| match (a.c.lane == b.c.lane, self.before(a, b)) {
            (true, _) => Ordering::Equal,
            (false, true) => Ordering::Less,
            (false, false) => Ordering::Greater,
        });
        let lanes: Vec<usize> = keyed.into_iter().map(|k| k.c.lane).collect();
        lanes.into_iter().map(move |lane| NodeRef {
            placement: self,
            index: self.inner.lane_node[lane] as usize,
        })
    }

    /// Up to `out.len()` nodes for replicas of `key`, spread over failure domains: the ranking is
    /// walked once taking only nodes of domains not yet used, then again to fill what is left.
    /// A node without a named domain is a domain of its own. Returns how many it wrote.
    pub fn replicas_into(&self, key: impl AsRef<[u8]>, out: &mut [usize]) -> usize {
        let key = key.as_ref();
        let all = self.selectable_len();
        let want = out.len().min(all);
        if want == 0 {
            return 0;
        }
        if !self.inner.named_domains {
            return self.rank_into(key, &mut out[..want]);
        }
        // The first pass stops once it has `want` nodes, so when it gets them within a prefix of
        // the ranking the rest of the ranking cannot change the answer: try a short prefix (the
        // top-k kernel's cost) and widen it only for keys whose best nodes crowd a few domains.
        let mut stack = [0usize; 4 * SMALL_K];
        let mut heap = Vec::new();
        let mut m = (4 * want).min(all);
        loop {
            let prefix: &mut [usize] = if m <= stack.len() {
                &mut stack[..m]
            } else {
                heap.resize(m, 0);
                &mut heap[..]
            };
            let got = self.rank_into(key, prefix);
            let prefix = &prefix[..got];
            if got == all {
                return self.spread(prefix, want, out);
            }
            if let Some(n) = self.spread_first_pass(prefix, want, out) {
                return n;
            }
            m = m.saturating_mul(4).min(all);
        }
    }

    /// The first pass of [`Placement::replicas_into`] over a prefix of the ranking: the count,
    /// when it took `want` nodes within it.
    fn spread_first_pass(&self, order: &[usize], want: usize, out: &mut [usize]) -> Option<usize> {
        let mut n = 0;
        for &idx in order {
            if !self.domain_taken(idx, &out[..n]) {
                out[n] = idx;
                n += 1;
                if n == want {
                    return Some(n);
                }
            }
        }
        None
    }

    /// Both passes of [`Placement::replicas_into`] over the whole ranking `order`.
    fn spread(&self, order: &[usize], want: usize, out: &mut [usize]) -> usize {
        let mut taken = alloc::vec![false; order.len()];
        let mut n = 0;
        for (pos, &idx) in order.iter().enumerate() {
            if n == want {
                break;
            }
            if !self.domain_taken(idx, &out[..n]) {
                out[n] = idx;
                taken[pos] = true;
                n += 1;
            }
        }
        for (pos, &idx) in order.iter().enumerate() {
            if n == want {
                break;
            }
            if !taken[pos] {
                out[n] = idx;
                n += 1;
            }
        }
        n
    }

    /// Whether the named domain of node `idx` is that of a node in `chosen` (a node without a
    /// named domain is a domain of its own).
    fn domain_taken(&self, idx: usize, chosen: &[usize]) -> bool {
        let nodes = &self.inner.nodes;
        match nodes[idx].domain.as_deref() {
            None => false,
            domain => chosen.iter().any(|&o| nodes[o].domain.as_deref() == domain),
        }
    }

    /// Replica nodes for `key`, spread over failure domains (see [`Placement::replicas_into`]).
    ///
    /// When fewer than `k` failure domains hold a node of weight above zero, some domain holds
    /// two of the replicas (SPEC.md 6); [`Placement::replicas_strict`] refuses instead.
    pub fn replicas(&self, key: impl AsRef<[u8]>, k: usize) -> Vec<NodeRef<'_>> {
        self.top_refs(k, |out| self.replicas_into(key, out))
    }

    /// [`Placement::replicas`] in `k` distinct failure domains, or
    /// [`Error::InvalidReplicaCount`] (with `available` the number of domains) when fewer than `k`
    /// domains hold a node of weight above zero, where [`Placement::replicas`] would put two
    /// replicas in one domain. A node without a named domain is a domain of its own. The check
    /// depends on the membership alone, never on the key.
    ///
    /// ```
    /// use hrwhash::{Error, Node, Placement, Seed};
    ///
    /// // Zone c is lost: two zones are left for three replicas.
    /// let nodes = ["a1", "a2", "b1", "b2"].map(|id| Node::new(id).with_domain(&id[..1]));
    /// let p = Placement::from_nodes(Seed::DEFAULT, nodes)?;
    /// assert_eq!(p.replicas("user:42", 3).len(), 3);
    /// assert!(matches!(
    ///     p.replicas_strict("user:42", 3),
    ///     Err(Error::InvalidReplicaCount { requested: 3, available: 2 })
    /// ));
    /// assert_eq!(p.replicas_strict("user:42", 2)?, p.replicas("user:42", 2));
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn replicas_strict(
        &self,
        key: impl AsRef<[u8]>,
        k: usize,
    ) -> Result<Vec<NodeRef<'_>>, Error> {
        self.check_domain_spread(k)?;
        Ok(self.replicas(key, k))
    }

    /// [`Placement::replicas_strict`] into `out`: `k` is `out.len()`, and every slot is written
    /// on success.
    pub fn replicas_strict_into(
        &self,
        key: impl AsRef<[u8]>,
        out: &mut [usize],
    ) -> Result<(), Error> {
        self.check_domain_spread(out.len())?;
        self.replicas_into(key, out);
        Ok(())
    }

    fn check_domain_spread(&self, k: usize) -> Result<(), Error> {
        if k > self.inner.domains {
            return Err(Error::InvalidReplicaCount {
                requested: k,
                available: self.inner.domains,
            });
        }
        Ok(())
    }

    /// The hrw-v1 score of `key` for the node of this id. By id, not index: ids are what callers
    /// hold, and a canonical view orders nodes by id, so an index means different nodes in the
    /// two orders.
    pub fn score(&self, key: impl AsRef<[u8]>, id: impl AsRef<[u8]>) -> Result<u64, Error> {
        let node = self.find(id).ok_or(Error::UnknownNode)?;
        Ok(score(
            key_digest(&self.inner.seed, key.as_ref()),
            node_digest(&self.inner.seed, node.id()),
        ))
    }

    /// A placement with one more node.
    pub fn with_node(&self, node: Node) -> Result<Placement, Error> {
        let mut nodes = self.inner.nodes.clone();
        nodes.push(node);
        Placement::from_nodes(self.inner.seed, nodes)
    }

    /// A placement without the node of this id (the other nodes keep their relative order).
    pub fn without_node(&self, id: impl AsRef<[u8]>) -> Result<Placement, Error> {
        let idx = self.find(id).ok_or(Error::UnknownNode)?.index;
        let mut nodes = self.inner.nodes.clone();
        nodes.remove(idx);
        Placement::from_nodes(self.inner.seed, nodes)
    }

    /// A placement where the node of this id has another weight.
    pub fn with_weight(&self, id: impl AsRef<[u8]>, weight: Weight) -> Result<Placement, Error> {
        let idx = self.find(id).ok_or(Error::UnknownNode)?.index;
        let mut nodes = self.inner.nodes.clone();
        nodes[idx].weight = weight;
        Placement::from_nodes(self.inner.seed, nodes)
    }
}

impl AsRef<Placement> for Placement {
    fn as_ref(&self) -> &Placement {
        self
    }
}

/// Not part of the API: the per-node kernels by name (`scalar`, `avx2`, `avx512`), so that
/// hrwhash's tests and benchmarks can compare them in one process. `HRWHASH_KERNEL` is the
/// switch for everyone else.
#[doc(hidden)]
pub mod __kernel {
    use super::{Kernel, Placement};
    use alloc::vec::Vec;

    /// The kernels this CPU runs, fastest first.
    pub fn available() -> Vec<&'static str> {
        Kernel::available().map(Kernel::name).collect()
    }

    /// The kernel placements of this process get (`HRWHASH_KERNEL`, else the CPU's best).
    pub fn chosen() -> &'static str {
        Kernel::detect().name()
    }

    /// The kernel `placement` uses.
    pub fn of(placement: &Placement) -> &'static str {
        placement.inner.kernel.name()
    }

    /// [`Placement::owner_index`] of the key whose digest is `kd`: the per-node loop without
    /// the key's hashing.
    pub fn owner_of_digest(placement: &Placement, kd: u64) -> usize {
        placement.owner_index_of_digest(kd)
    }

    /// [`Placement::rank_into`] of the key whose digest is `kd`.
    pub fn rank_of_digest_into(placement: &Placement, kd: u64, out: &mut [usize]) -> usize {
        placement.rank_digest_into(kd, out)
    }

    /// The same placement with the kernel `name`; `None` when this CPU does not have it.
    pub fn with(placement: &Placement, name: &str) -> Option<Placement> {
        let kernel = Kernel::named(name)?;
        let inner = &*placement.inner;
        Placement::with_kernel(inner.seed, inner.nodes.clone(), kernel).ok()
    }
}
