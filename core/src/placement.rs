use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::kernel::{Interleaved, Kernel};
use crate::v1::{draw, key_digest, node_digest, score, Seed};
use crate::{Error, Weight};

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

struct Inner {
    seed: Seed,
    nodes: Vec<Node>,
    /// Digests of the selectable nodes, grouped by weight and ordered by id within a group.
    lanes: Vec<u64>,
    /// Caller index of the node at each lane.
    lane_node: Vec<u32>,
    /// Fixed-point weight of the node at each lane.
    lane_weight: Vec<u64>,
    /// The same weights as floats, for [`DrawBound`].
    lane_weight_f64: Vec<f64>,
    groups: Vec<Group>,
    grouped: bool,
    /// The lanes again, laid out for one pass over every group, where that pays.
    interleaved: Option<Interleaved>,
    kernel: Kernel,
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

/// Builds a [`Placement`] with a seed, weights or failure domains.
#[derive(Clone, Debug, Default)]
pub struct PlacementBuilder {
    seed: Seed,
    nodes: Vec<Node>,
}

impl PlacementBuilder {
    /// A builder with the default seed and no nodes.
    pub fn new() -> PlacementBuilder {
        PlacementBuilder::default()
    }
    /// Use a caller-chosen seed instead of the public default.
    pub fn seed(mut self, seed: Seed) -> PlacementBuilder {
        self.seed = seed;
        self
    }
    /// Add one node.
    pub fn node(mut self, node: Node) -> PlacementBuilder {
        self.nodes.push(node);
        self
    }
    /// Add several nodes.
    pub fn nodes(mut self, nodes: impl IntoIterator<Item = Node>) -> PlacementBuilder {
        self.nodes.extend(nodes);
        self
    }
    /// Validate the nodes and build.
    pub fn build(self) -> Result<Placement, Error> {
        Placement::from_nodes(self.seed, self.nodes)
    }
}

/// The sort key of a node for one key: everything SPEC.md's ranking order compares.
#[derive(Clone, Copy)]
struct Candidate {
    score: u64,
    weight: u64,
    lane: usize,
}

impl Placement {
    /// An unweighted placement over `ids` with the default seed.
    pub fn new<I>(ids: I) -> Result<Placement, Error>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        Placement::from_nodes(Seed::DEFAULT, ids.into_iter().map(Node::new).collect())
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

    /// A builder for seeds, weights and failure domains.
    pub fn builder() -> PlacementBuilder {
        PlacementBuilder::new()
    }

    /// Validates and indexes `nodes`; their order is the order of [`NodeRef::index`].
    pub fn from_nodes(seed: Seed, nodes: Vec<Node>) -> Result<Placement, Error> {
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
                if duplicate.map_or(true, |(index, _)| found.0 < index) {
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
        let lanes: Vec<u64> = selectable
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
        let kernel = Kernel::detect();
        // Past a few thousand nodes the groups' own passes cost the same, and their fixed costs
        // nothing by comparison; below a few dozen, the vector pass costs more than it saves.
        let interleaved = match kernel {
            Kernel::Scalar => None,
            _ if !(MIN_NODES_INTERLEAVED..=MAX_NODES_INTERLEAVED).contains(&lanes.len()) => None,
            _ => Interleaved::new(groups.iter().map(|g| &lanes[g.start..g.end])),
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
                interleaved,
                kernel,
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
        for (key, slot) in keys.iter().zip(out.iter_mut()) {
            *slot = self.owner_index(key);
        }
        Ok(())
    }

    /// Owners of many keys, as build-order indices.
    pub fn owners<K: AsRef<[u8]>>(&self, keys: &[K]) -> Vec<usize> {
        keys.iter().map(|k| self.owner_index(k)).collect()
    }

    /// The first `k` nodes of the ranking of `key` (fewer when fewer nodes are selectable).
    pub fn rank(&self, key: impl AsRef<[u8]>, k: usize) -> Vec<NodeRef<'_>> {
        let mut out = alloc::vec![0usize; k.min(self.selectable_len())];
        let n = self.rank_into(key, &mut out);
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
        for (key, row) in keys.iter().zip(out.chunks_exact_mut(k)) {
            self.rank_into(key, &mut row[..per_key]);
        }
        Ok(per_key)
    }

    /// Every selectable node, in ranking order for `key`.
    pub fn ranking(&self, key: impl AsRef<[u8]>) -> Ranking<'_> {
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
        let lanes = keyed.into_iter().map(|k| k.c.lane).collect();
        Ranking {
            placement: self,
            lanes,
            next: 0,
        }
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
    pub fn replicas(&self, key: impl AsRef<[u8]>, k: usize) -> Vec<NodeRef<'_>> {
        let mut out = alloc::vec![0usize; k.min(self.selectable_len())];
        let n = self.replicas_into(key, &mut out);
        out[..n]
            .iter()
            .map(|&index| NodeRef {
                placement: self,
                index,
            })
            .collect()
    }

    /// The hrw-v1 score of `key` for the node at build-order `index`.
    pub fn score(&self, key: impl AsRef<[u8]>, index: usize) -> Option<u64> {
        let node = self.inner.nodes.get(index)?;
        Some(score(
            key_digest(&self.inner.seed, key.as_ref()),
            node_digest(&self.inner.seed, &node.id),
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

    // ---- lookups over lanes -------------------------------------------------------------

    fn candidate(&self, kd: u64, lane: usize) -> Candidate {
        Candidate {
            score: score(kd, self.inner.lanes[lane]),
            weight: self.inner.lane_weight[lane],
            lane,
        }
    }

    fn keyed(&self, c: Candidate) -> Keyed {
        Keyed {
            draw: draw(c.score),
            c,
        }
    }

    /// SPEC.md's ranking order: smaller draw/weight first, then higher score, then smaller id.
    fn before(&self, a: &Keyed, b: &Keyed) -> bool {
        if a.c.weight != b.c.weight {
            let lhs = a.draw as u128 * b.c.weight as u128;
            let rhs = b.draw as u128 * a.c.weight as u128;
            if lhs != rhs {
                return lhs < rhs;
            }
        }
        if a.c.score != b.c.score {
            return a.c.score > b.c.score;
        }
        let id = |k: &Keyed| &self.inner.nodes[self.inner.lane_node[k.c.lane] as usize].id;
        id(a) < id(b)
    }

    fn order(&self, a: &Candidate, b: &Candidate) -> Ordering {
        if a.lane == b.lane {
            return Ordering::Equal;
        }
        // `before` reads draws only across weights, so equal weights skip computing them: the
        // whole unweighted ranking is then a sort on scores.
        let keyed = |c: &Candidate| match a.weight == b.weight {
            true => Keyed { draw: 0, c: *c },
            false => self.keyed(*c),
        };
        if self.before(&keyed(a), &keyed(b)) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    }

    fn owner_lane(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        if inner.groups.len() == 1 {
            return inner.kernel.argmax(kd, &inner.lanes).1;
        }
        let mut best: Option<Keyed> = None;
        if inner.grouped {
            return self.owner_lane_grouped(kd);
        } else {
            let mut bound = DrawBound::default();
            for lane in 0..inner.lanes.len() {
                let s = score(kd, inner.lanes[lane]);
                if bound.cannot_beat(s, inner.lane_weight_f64[lane]) {
                    continue;
                }
                let k = self.keyed(Candidate {
                    score: s,
                    weight: inner.lane_weight[lane],
                    lane,
                });
                if best.as_ref().map_or(true, |b| self.before(&k, b)) {
                    bound = DrawBound::new(&k);
                    best = Some(k);
                }
            }
        }
        best.map_or(0, |b| b.c.lane)
    }

    /// The owner among a few weight groups: each group's best node by score, then the best of
    /// those by weighted draw. Which group wins is random, so the comparison selects without a
    /// branch; only equal products, which are rare, take the exact path of [`Placement::before`].
    fn owner_lane_grouped(&self, kd: u64) -> usize {
        let inner = &*self.inner;
        let interleaved = inner
            .interleaved
            .as_ref()
            .and_then(|layout| inner.kernel.group_argmax(kd, layout));
        let interleaved = interleaved.as_ref();
        let mut best = self.contender(kd, 0, interleaved);
        for i in 1..inner.groups.len() {
            best = self.better(best, self.contender(kd, i, interleaved));
        }
        best.lane as usize
    }

    /// Group `i`'s best node, from the interleaved pass's answers where there are some.
    /// Inlined, so that the groups' argmax and draws overlap rather than pass through memory.
    #[inline(always)]
    fn contender(&self, kd: u64, i: usize, interleaved: Option<&[(u64, u64); 8]>) -> Contender {
        let g = &self.inner.groups[i];
        let (score, pos) = match interleaved {
            Some(best) => best[i],
            None => {
                let (s, pos) = self
                    .inner
                    .kernel
                    .argmax(kd, &self.inner.lanes[g.start..g.end]);
                (s, pos as u64)
            }
        };
        Contender {
            score,
            draw: draw(score),
            weight: g.weight,
            lane: g.start as u64 + pos,
        }
    }

    /// The one of two groups' best nodes that ranks first, chosen without a branch.
    #[inline(always)]
    fn better(&self, a: Contender, b: Contender) -> Contender {
        // Below 2^127 each: draws are at most 64 * 2^56 and weights below 2^64.
        let lhs = b.draw as u128 * a.weight as u128;
        let rhs = a.draw as u128 * b.weight as u128;
        let b_wins = if lhs == rhs {
            let keyed = |c: Contender| Keyed {
                draw: c.draw,
                c: Candidate {
                    score: c.score,
                    weight: c.weight,
                    lane: c.lane as usize,
                },
            };
            self.before(&keyed(b), &keyed(a))
        } else {
            lhs < rhs
        };
        let pick = |x, y| crate::kernel::select(b_wins, x, y);
        Contender {
            score: pick(b.score, a.score),
            draw: pick(b.draw, a.draw),
            weight: pick(b.weight, a.weight),
            lane: pick(b.lane, a.lane),
        }
    }

    /// Fills `out` with the first lanes of the ranking; returns how many.
    fn rank_lanes_into(&self, kd: u64, out: &mut [usize]) -> usize {
        let inner = &*self.inner;
        let want = out.len().min(inner.lanes.len());
        match want {
            0 => return 0,
            1 => {
                out[0] = self.owner_lane(kd);
                return 1;
            }
            _ if want == inner.lanes.len() => {
                for (lane, slot) in out[..want].iter_mut().enumerate() {
                    *slot = lane;
                }
                self.sort_lanes(kd, &mut out[..want]);
                return want;
            }
            _ if want <= SMALL_K => {}
            _ => return self.rank_lanes_large(kd, &mut out[..want]),
        }
        if inner.groups.len() == 1 {
            let hit_step = inner.groups[0].hit_step;
            top_positions(inner.kernel, kd, &inner.lanes, hit_step, &mut out[..want]);
            return want;
        }
        // Weighted: the group-local top lists (or every node) compete on their weighted keys.
        let mut top = TopKeyed {
            entries: [None; SMALL_K],
            len: 0,
            want,
        };
        if inner.grouped {
            for g in &inner.groups {
                let mut local = TopScores::new(want);
                let lanes = &inner.lanes[g.start..g.end];
                top_scores(inner.kernel, kd, lanes, g.hit_step, &mut local);
                for &(s, pos) in local.entries() {
                    top.offer(
                        self,
                        self.keyed(Candidate {
                            score: s,
                            weight: g.weight,
                            lane: g.start + pos,
                        }),
                    );
                }
            }
        } else {
            let mut bound = DrawBound::default();
            for lane in 0..inner.lanes.len() {
                let s = score(kd, inner.lanes[lane]);
                if bound.cannot_beat(s, inner.lane_weight_f64[lane]) {
                    continue;
                }
                top.offer(
                    self,
                    self.keyed(Candidate {
                        score: s,
                        weight: inner.lane_weight[lane],
                        lane,
                    }),
                );
                if let Some(last) = top.full_last() {
                    bound = DrawBound::new(last);
                }
            }
        }
        for (slot, k) in out.iter_mut().zip(&top.entries[..top.len]) {
            *slot = k.expect("filled").c.lane;
        }
        top.len
    }

    /// Top-k for k beyond the stack lists: insertion into `out` itself, so still allocation-free.
    fn rank_lanes_large(&self, kd: u64, list: &mut [usize]) -> usize {
        let want = list.len();
        let mut len = 0usize;
        for lane in 0..self.inner.lanes.len() {
            let c = self.candidate(kd, lane);
            if len == want && self.order(&self.candidate(kd, list[want - 1]), &c) == Ordering::Less
            {
                continue;
            }
            let pos = list[..len]
                .partition_point(|&l| self.order(&self.candidate(kd, l), &c) == Ordering::Less);
            let end = (len + 1).min(want);
            list.copy_within(pos..end - 1, pos + 1);
            list[pos] = c.lane;
            len = end;
        }
        len
    }

    fn sort_lanes(&self, kd: u64, lanes: &mut [usize]) {
        lanes.sort_unstable_by(|&a, &b| self.order(&self.candidate(kd, a), &self.candidate(kd, b)));
    }
}

/// A cheap, conservative test that a node cannot rank before a given one, so that most nodes of a
/// fleet with many distinct weights skip the exact draw. Since `-ln(u) >= 1 - u`, a score `s` has
/// `draw(s) >= (2^64 - 1 - s) * 2^56 / (2^64 ln 2)` up to the draw's error (below 2^-26, i.e. 2^30
/// fixed-point units); the float margins only ever let more nodes through to the exact comparison.
#[derive(Default)]
struct DrawBound {
    /// `draw / weight` of the node to beat, rounded up; `None` beats nothing yet.
    ratio: Option<f64>,
}

impl DrawBound {
    const SCALE: f64 = 1.0 / (256.0 * core::f64::consts::LN_2); // 2^56 / (2^64 ln 2)
    const DRAW_ERROR: f64 = (1u64 << 31) as f64;

    fn new(k: &Keyed) -> DrawBound {
        DrawBound {
            ratio: Some(k.draw as f64 / k.c.weight as f64 * (1.0 + 1e-9)),
        }
    }

    #[inline]
    fn cannot_beat(&self, score: u64, weight: f64) -> bool {
        match self.ratio {
            Some(ratio) => (!score) as f64 * Self::SCALE - Self::DRAW_ERROR > ratio * weight,
            None => false,
        }
    }
}

/// The best `want` weighted candidates, best first.
struct TopKeyed {
    entries: [Option<Keyed>; SMALL_K],
    len: usize,
    want: usize,
}

impl TopKeyed {
    fn offer(&mut self, placement: &Placement, k: Keyed) {
        let entry = |i: usize, e: &[Option<Keyed>]| e[i].expect("filled");
        if self.len == self.want && !placement.before(&k, &entry(self.want - 1, &self.entries)) {
            return;
        }
        let mut i = self.len.min(self.want - 1);
        while i > 0 && placement.before(&k, &entry(i - 1, &self.entries)) {
            self.entries[i] = self.entries[i - 1];
            i -= 1;
        }
        self.entries[i] = Some(k);
        self.len = (self.len + 1).min(self.want);
    }

    fn full_last(&self) -> Option<&Keyed> {
        if self.len == self.want {
            self.entries[self.want - 1].as_ref()
        } else {
            None
        }
    }
}

/// The best `top.want` (score, position) pairs of one weight group (`hit_step` is the group's
/// [`Group::hit_step`]).
///
/// Scores are uniform over the 64-bit range, so a threshold `c * hit_step` below the top lets
/// through about `c` nodes, and the top-k is among them whenever at least `k` get through. One
/// pass of [`Kernel::hits`] finds them without a branch per node, and a branch-free
/// insertion keeps the best: the cost is that of the owner's pass plus a few nodes. Where fewer
/// than `k` get through (about 1.4% of keys for k = 3, from the Poisson tail, or keys chosen to
/// make it happen) the running-threshold scan of [`top_scores_scan`] gives the same answer.
fn top_scores(kernel: Kernel, kd: u64, lanes: &[u64], hit_step: u64, top: &mut TopScores) {
    let expected_hits = 2 * top.want as u64 + 2;
    if !top_scores_above(kernel, kd, lanes, hit_step, expected_hits, top) {
        top_scores_scan(kernel, kd, lanes, top);
    }
}

/// [`top_scores`] with `expected_hits` nodes let through; false when too few got through (then
/// `top` is untouched).
fn top_scores_above(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    hit_step: u64,
    expected_hits: u64,
    top: &mut TopScores,
) -> bool {
    let want = top.want;
    let entries = &mut top.entries;
    let len = top_above(
        kernel,
        kd,
        lanes,
        hit_step,
        expected_hits,
        want,
        |j, pair| entries[j] = pair,
    );
    match len {
        Some(len) => top.len = len,
        None => return false,
    }
    true
}

/// The positions of the best `out.len()` nodes of an unweighted placement, written straight into
/// `out`, by the method of [`top_scores`].
fn top_positions(kernel: Kernel, kd: u64, lanes: &[u64], hit_step: u64, out: &mut [usize]) {
    let want = out.len();
    let fast = top_above(
        kernel,
        kd,
        lanes,
        hit_step,
        2 * want as u64 + 2,
        want,
        |j, pair| out[j] = pair.1,
    );
    if fast.is_none() {
        let mut top = TopScores::new(want);
        top_scores_scan(kernel, kd, lanes, &mut top);
        for (slot, &(_, pos)) in out.iter_mut().zip(top.entries()) {
            *slot = pos;
        }
    }
}

/// Offers the nodes scoring at least `u64::MAX - expected_hits * hit_step` to a [`Best`] and
/// hands its first `want` pairs to `emit(slot, (score, position))`; returns how many, or `None`
/// (having emitted nothing) when fewer than `want` got through.
#[inline]
fn top_above<E: FnMut(usize, (u64, usize))>(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    hit_step: u64,
    expected_hits: u64,
    want: usize,
    emit: E,
) -> Option<usize> {
    // When the expected hits reach the group size, every node is one.
    let threshold = match expected_hits.checked_mul(hit_step) {
        Some(below_top) if expected_hits < lanes.len() as u64 => u64::MAX - below_top,
        _ => 0,
    };
    match want {
        0..=2 => best_above::<2, E>(kernel, kd, lanes, threshold, want, emit),
        3 => best_above::<3, E>(kernel, kd, lanes, threshold, want, emit),
        4 => best_above::<4, E>(kernel, kd, lanes, threshold, want, emit),
        5..=8 => best_above::<8, E>(kernel, kd, lanes, threshold, want, emit),
        _ => best_above::<SMALL_K, E>(kernel, kd, lanes, threshold, want, emit),
    }
}

fn best_above<const K: usize, E: FnMut(usize, (u64, usize))>(
    kernel: Kernel,
    kd: u64,
    lanes: &[u64],
    threshold: u64,
    want: usize,
    mut emit: E,
) -> Option<usize> {
    let mut best = Best::<K>::new();
    if threshold == 0 {
        let first = lanes.len().min(K);
        for &d in &lanes[..first] {
            best.fill(score(kd, d));
        }
        for (pos, &d) in lanes.iter().enumerate().skip(first) {
            best.push(score(kd, d), pos);
        }
    } else {
        kernel.hits(kd, lanes, threshold, &mut |positions| {
            for &pos in positions {
                best.push(score(kd, lanes[pos as usize]), pos as usize);
            }
        });
    }
    // With a threshold of zero every node was offered, however few the group has.
    if best.count < want && threshold != 0 {
        return None;
    }
    let len = best.count.min(want);
    for j in 0..len {
        emit(j, best.get(j));
    }
    Some(len)
}

/// The best `K` (score, position) pairs offered, best first, kept without data-dependent branches:
/// which slot a pair lands in is random, so a branch there would be mispredicted about once per
/// offer. A pair is held as the 128-bit key `(score, !position)`, so that one unsigned comparison
/// is the ranking order (higher score, then lower position), and an empty slot, key 0, ranks
/// after every pair.
struct Best<const K: usize> {
    score: [u64; K],
    /// `!position`.
    inv_pos: [u64; K],
    /// Pairs offered so far.
    count: usize,
}

impl<const K: usize> Best<K> {
    fn new() -> Self {
        Best {
            score: [0; K],
            inv_pos: [0; K],
            count: 0,
        }
    }

    /// One pass of a compare-exchange network: the pair sinks to its slot, pushing the ones it
    /// beats one slot down. The last slot only keeps the larger pair: what falls out of it is
    /// dropped, so it costs a compare and two moves instead of a full exchange.
    #[inline(always)]
    fn push(&mut self, s: u64, pos: usize) {
        let (mut s, mut q) = (s, !(pos as u64));
        for j in 0..K - 1 {
            max_into(&mut self.score[j], &mut self.inv_pos[j], &mut s, &mut q);
        }
        keep_max(&mut self.score[K - 1], &mut self.inv_pos[K - 1], s, q);
        self.count += 1;
    }

    /// [`Best::push`] of the pair at position `self.count` while fewer than `K` pairs are held:
    /// the empty slots need no comparison, so the `i`-th pair passes `i` slots instead of `K`.
    #[inline(always)]
    fn fill(&mut self, s: u64) {
        let i = self.count;
        let (mut s, mut q) = (s, !(i as u64));
        for j in 0..i {
            max_into(&mut self.score[j], &mut self.inv_pos[j], &mut s, &mut q);
        }
        self.score[i] = s;
        self.inv_pos[i] = q;
        self.count += 1;
    }

    /// The pair in slot `j`.
    fn get(&self, j: usize) -> (u64, usize) {
        (self.score[j], !self.inv_pos[j] as usize)
    }
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first, without a
/// branch (see [`max_into`]).
#[inline(always)]
fn keep_max(hi: &mut u64, lo: &mut u64, t_hi: u64, t_lo: u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: register operands and the flags only; no memory is touched.
    unsafe {
        core::arch::asm!(
            // Carry set iff (hi, lo) < (t_hi, t_lo).
            "cmp {lo}, {t_lo}",
            "mov {tmp}, {hi}",
            "sbb {tmp}, {t_hi}",
            "cmovb {hi}, {t_hi}",
            "cmovb {lo}, {t_lo}",
            hi = inout(reg) *hi,
            lo = inout(reg) *lo,
            t_hi = in(reg) t_hi,
            t_lo = in(reg) t_lo,
            tmp = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    if (t_hi, t_lo) > (*hi, *lo) {
        *hi = t_hi;
        *lo = t_lo;
    }
}

/// Leaves the larger of the 128-bit keys `(hi, lo)` and `(t_hi, t_lo)` in the first and the
/// smaller in the second, without a branch. LLVM's x86 backend turns conditional moves in loops
/// back into branches, and this comparison is random, so on x86-64 it is written out.
#[inline(always)]
fn max_into(hi: &mut u64, lo: &mut u64, t_hi: &mut u64, t_lo: &mut u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: register operands and the flags only; no memory is touched.
    unsafe {
        core::arch::asm!(
            // Carry set iff (hi, lo) < (t_hi, t_lo).
            "cmp {lo}, {t_lo}",
            "mov {tmp}, {hi}",
            "sbb {tmp}, {t_hi}",
            "mov {tmp}, {hi}",
            "cmovb {hi}, {t_hi}",
            "cmovb {t_hi}, {tmp}",
            "mov {tmp}, {lo}",
            "cmovb {lo}, {t_lo}",
            "cmovb {t_lo}, {tmp}",
            hi = inout(reg) *hi,
            lo = inout(reg) *lo,
            t_hi = inout(reg) *t_hi,
            t_lo = inout(reg) *t_lo,
            tmp = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    if (*t_hi, *t_lo) > (*hi, *lo) {
        core::mem::swap(hi, t_hi);
        core::mem::swap(lo, t_lo);
    }
}

/// Most nodes sampled by [`top_scores_scan`] for its starting threshold.
const SAMPLE: usize = 64;

/// Fills `top` from one weight group in one pass that offers every node scoring at least the
/// running threshold. Each offer is a hard-to-predict branch, and with a threshold of zero most of
/// them would come early, while the k-th best is still low. So the pass starts from a threshold
/// taken from the first `SAMPLE` nodes: the k-th largest of their eight lane maxima, which is at
/// most the k-th best score of the group.
fn top_scores_scan(kernel: Kernel, kd: u64, lanes: &[u64], top: &mut TopScores) {
    let mut threshold = 0;
    // Half the group at most, and a multiple of eight so that every lane has a maximum.
    let sampled = (lanes.len() / 2 / 8 * 8).min(SAMPLE);
    if top.want <= 8 && sampled > 0 {
        let mut sample = [0u64; SAMPLE];
        let mut lane_max =
            kernel.scores_and_lane_max(kd, &lanes[..sampled], &mut sample[..sampled]);
        lane_max.sort_unstable_by(|a, b| b.cmp(a));
        threshold = lane_max[top.want - 1];
    }
    kernel.scan(kd, lanes, threshold, &mut |s, pos| {
        top.offer(s, pos).max(threshold)
    });
}

/// Largest top-k kept in fixed-size stack lists.
const SMALL_K: usize = 16;

/// A weight group's best node in the weighted owner's knockout.
#[derive(Clone, Copy, Default)]
struct Contender {
    score: u64,
    draw: u64,
    weight: u64,
    lane: u64,
}

/// A candidate with its draw computed once.
#[derive(Clone, Copy)]
struct Keyed {
    draw: u64,
    c: Candidate,
}

/// The best `want` (score, position) pairs of one weight group, best first. Positions arrive in
/// increasing order, so an equal score never displaces an earlier one (the id tie-break).
struct TopScores {
    entries: [(u64, usize); SMALL_K],
    len: usize,
    want: usize,
}

impl TopScores {
    fn new(want: usize) -> TopScores {
        TopScores {
            entries: [(0, 0); SMALL_K],
            len: 0,
            want,
        }
    }

    /// Keeps `(score, pos)` if it belongs; returns the lowest score that could still enter.
    fn offer(&mut self, score: u64, pos: usize) -> u64 {
        let mut i = self.len;
        while i > 0 && self.entries[i - 1].0 < score {
            if i < self.want {
                self.entries[i] = self.entries[i - 1];
            }
            i -= 1;
        }
        if i < self.want {
            self.entries[i] = (score, pos);
            self.len = (self.len + 1).min(self.want);
        }
        self.threshold()
    }

    /// The lowest score that could still enter.
    fn threshold(&self) -> u64 {
        if self.len == self.want {
            self.entries[self.want - 1].0.saturating_add(1)
        } else {
            0
        }
    }

    fn entries(&self) -> &[(u64, usize)] {
        &self.entries[..self.len]
    }
}

/// The full ranking of a key; see [`Placement::ranking`].
pub struct Ranking<'a> {
    placement: &'a Placement,
    lanes: Vec<usize>,
    next: usize,
}

impl<'a> Iterator for Ranking<'a> {
    type Item = NodeRef<'a>;
    fn next(&mut self) -> Option<NodeRef<'a>> {
        let lane = *self.lanes.get(self.next)?;
        self.next += 1;
        Some(NodeRef {
            placement: self.placement,
            index: self.placement.inner.lane_node[lane] as usize,
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.lanes.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Ranking<'_> {}

impl AsRef<Placement> for Placement {
    fn as_ref(&self) -> &Placement {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state ^ (*state >> 29)
    }

    /// The best `want` (score, position) pairs by sorting: higher score, then lower position.
    fn sorted_top(kd: u64, lanes: &[u64], want: usize) -> Vec<(u64, usize)> {
        let mut all: Vec<(u64, usize)> = lanes
            .iter()
            .enumerate()
            .map(|(i, &d)| (score(kd, d), i))
            .collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(want);
        all
    }

    #[test]
    fn every_threshold_gives_the_exact_top_or_says_it_cannot() {
        // Expected hits from 1 (too few get through for most keys: the fallback) to more than
        // the group (every node is offered), with repeated digests for equal scores.
        let mut st = 5u64;
        let mut fallbacks = 0;
        for n in [1usize, 2, 3, 5, 8, 9, 17, 64, 100, 130, 1000] {
            let mut lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            if n > 4 {
                lanes[n - 1] = lanes[1];
                lanes[n / 2] = lanes[1];
            }
            let hit_step = u64::MAX / n as u64;
            for kernel in [Kernel::detect(), Kernel::Scalar] {
                for _ in 0..40 {
                    let kd = lcg(&mut st);
                    for want in [1usize, 2, 3, 4, 6, 9, 16] {
                        let expected = sorted_top(kd, &lanes, want);
                        for expected_hits in [1u64, 2, 3, 8, 2 * n as u64 + 1] {
                            let mut top = TopScores::new(want);
                            if top_scores_above(
                                kernel,
                                kd,
                                &lanes,
                                hit_step,
                                expected_hits,
                                &mut top,
                            ) {
                                assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                            } else {
                                assert_eq!(top.len, 0);
                                fallbacks += 1;
                            }
                        }
                        let mut top = TopScores::new(want);
                        top_scores(kernel, kd, &lanes, hit_step, &mut top);
                        assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                        let mut top = TopScores::new(want);
                        top_scores_scan(kernel, kd, &lanes, &mut top);
                        assert_eq!(top.entries(), &expected[..], "n={n} want={want}");
                    }
                }
            }
        }
        assert!(
            fallbacks > 1000,
            "the fallback was not exercised: {fallbacks}"
        );
    }

    #[test]
    fn top_positions_match_the_sorted_order_on_both_paths() {
        // 3000 keys at 1.4% each take the fallback some 40 times.
        let mut st = 17u64;
        for n in [6usize, 40, 100, 333] {
            let lanes: Vec<u64> = (0..n).map(|_| lcg(&mut st)).collect();
            let hit_step = u64::MAX / n as u64;
            for kernel in [Kernel::detect(), Kernel::Scalar] {
                for _ in 0..3000 {
                    let kd = lcg(&mut st);
                    for want in [2usize, 3, 5] {
                        let mut out = [usize::MAX; 5];
                        top_positions(kernel, kd, &lanes, hit_step, &mut out[..want]);
                        let expected: Vec<usize> =
                            sorted_top(kd, &lanes, want).iter().map(|p| p.1).collect();
                        assert_eq!(&out[..want], &expected[..], "n={n} want={want}");
                    }
                }
            }
        }
    }

    #[test]
    fn filling_the_empty_slots_matches_pushing() {
        let mut st = 3u64;
        for n in 0..12usize {
            for _ in 0..50 {
                // Few distinct scores, so that ties are common.
                let scores: Vec<u64> = (0..n).map(|_| lcg(&mut st) % 4).collect();
                let mut pushed = Best::<4>::new();
                let mut filled = Best::<4>::new();
                for (pos, &s) in scores.iter().enumerate() {
                    pushed.push(s, pos);
                    if pos < 4 {
                        filled.fill(s);
                    } else {
                        filled.push(s, pos);
                    }
                }
                let got = |b: &Best<4>| (0..n.min(4)).map(|j| b.get(j)).collect::<Vec<_>>();
                let mut expected: Vec<(u64, usize)> = scores.iter().copied().zip(0..).collect();
                expected.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                expected.truncate(4);
                assert_eq!(got(&pushed), expected);
                assert_eq!(got(&filled), expected);
            }
        }
    }

    #[test]
    fn best_keeps_equal_scores_in_arrival_order() {
        let mut best = Best::<3>::new();
        for (s, pos) in [(5u64, 0usize), (0, 1), (5, 2), (9, 3), (5, 4), (0, 5)] {
            best.push(s, pos);
        }
        assert_eq!(
            [best.get(0), best.get(1), best.get(2)],
            [(9, 3), (5, 0), (5, 2)]
        );
        // A score of zero still ranks before an empty slot.
        let mut zeros = Best::<2>::new();
        zeros.push(0, 0);
        assert_eq!((zeros.count, zeros.get(0)), (1, (0, 0)));
        zeros.push(0, 1);
        assert_eq!(zeros.get(1), (0, 1));
    }
}

/// What the policies built on a placement read of it: its weight groups of lanes, and the
/// ranking order of SPEC.md between two nodes' scores for one key.
impl Placement {
    /// Each weight group as (fixed-point weight, first lane, digests of its lanes).
    pub(crate) fn lane_groups(&self) -> impl Iterator<Item = (u64, usize, &[u64])> + '_ {
        let inner = &*self.inner;
        inner
            .groups
            .iter()
            .map(move |g| (g.weight, g.start, &inner.lanes[g.start..g.end]))
    }

    /// The build-order index of the node at `lane`.
    pub(crate) fn lane_node(&self, lane: usize) -> usize {
        self.inner.lane_node[lane] as usize
    }

    pub(crate) fn kernel(&self) -> Kernel {
        self.inner.kernel
    }

    /// Whether node `a` (build-order index) with score `score_a` comes before node `b` with
    /// `score_b` in the ranking of one key. Both nodes must be selectable and distinct.
    pub(crate) fn ranks_before(&self, score_a: u64, a: usize, score_b: u64, b: usize) -> bool {
        let (wa, wb) = (
            self.inner.nodes[a].weight.to_fixed(),
            self.inner.nodes[b].weight.to_fixed(),
        );
        if wa != wb {
            let lhs = draw(score_a) as u128 * wb as u128;
            let rhs = draw(score_b) as u128 * wa as u128;
            if lhs != rhs {
                return lhs < rhs;
            }
        }
        if score_a != score_b {
            return score_a > score_b;
        }
        self.inner.nodes[a].id < self.inner.nodes[b].id
    }
}
