use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::kernel::Kernel;
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
}

// With few distinct weights, a lookup finds each group's best node with the SIMD kernel and
// computes a draw only for those; with many, every node needs its own draw.
const MAX_GROUPS_FOR_GROUPED_LOOKUP: usize = 8;
const MIN_NODES_PER_GROUP_FOR_GROUPED_LOOKUP: usize = 16;

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
            return Err(Error::LengthMismatch {
                expected: u32::MAX as usize,
                actual: nodes.len(),
            });
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
                }),
            }
        }
        let grouped = groups.len() <= MAX_GROUPS_FOR_GROUPED_LOOKUP
            || lanes.len() >= groups.len() * MIN_NODES_PER_GROUP_FOR_GROUPED_LOOKUP;
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
                kernel: Kernel::detect(),
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
        let ranking = self.ranking(key);
        let order: Vec<usize> = ranking.map(|n| n.index).collect();
        let want = out.len().min(order.len());
        let mut taken = alloc::vec![false; order.len()];
        let mut n = 0;
        for (pos, &idx) in order.iter().enumerate() {
            if n == want {
                break;
            }
            let domain = self.inner.nodes[idx].domain.as_deref();
            let clash = domain.is_some()
                && out[..n]
                    .iter()
                    .any(|&o| self.inner.nodes[o].domain.as_deref() == domain);
            if !clash {
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
        let mut consider = |k: Keyed| {
            if best.as_ref().map_or(true, |b| self.before(&k, b)) {
                best = Some(k);
            }
        };
        if inner.grouped {
            for g in &inner.groups {
                let (s, pos) = inner.kernel.argmax(kd, &inner.lanes[g.start..g.end]);
                consider(self.keyed(Candidate {
                    score: s,
                    weight: g.weight,
                    lane: g.start + pos,
                }));
            }
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
            let mut top = TopScores::new(want);
            top_scores(inner.kernel, kd, &inner.lanes, &mut top);
            for (slot, &(_, lane)) in out.iter_mut().zip(top.entries()) {
                *slot = lane;
            }
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
                top_scores(inner.kernel, kd, &inner.lanes[g.start..g.end], &mut local);
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

/// Most nodes sampled by [`top_scores`] for its starting threshold.
const SAMPLE: usize = 64;

/// Fills `top` from one weight group in one pass that offers every node scoring at least the
/// running threshold. Each offer is a hard-to-predict branch, and with a threshold of zero most of
/// them would come early, while the k-th best is still low. So the pass starts from a threshold
/// taken from the first `SAMPLE` nodes: the k-th largest of their eight lane maxima, which is at
/// most the k-th best score of the group.
fn top_scores(kernel: Kernel, kd: u64, lanes: &[u64], top: &mut TopScores) {
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
