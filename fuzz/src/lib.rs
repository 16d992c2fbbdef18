//! What the fuzz targets share: turning fuzzer bytes into memberships and keys, and a plain
//! oracle written from SPEC.md (sort every node by the ranking order) that the optimised lookups
//! of the core must agree with.

use arbitrary::{Result, Unstructured};
use hrwhash::v1::{draw, key_digest, node_digest, score, Seed};
use hrwhash::{Error, Node, Placement, Weight};

/// Largest membership a target builds: beyond the 16-entry stack lists of top-k, beyond 8 weight
/// groups, and large enough that a membership of many distinct weights can still be "grouped".
pub const MAX_NODES: usize = 300;
/// Largest k or buffer a target asks for.
pub const MAX_K: usize = 400;

/// Weights a fuzzer would rarely hit from raw bits: rounding ties, the limits, equal weights.
const WEIGHTS: [f64; 14] = [
    1.0,
    0.0,
    -0.0,
    2.0,
    0.5,
    3.0,
    1e6,
    1e-6,
    1.0 / 4_294_967_296.0,   // 2^-32: fixed point 1
    1.0 / 8_589_934_592.0,   // 2^-33: rounds to 0, rejected
    1.5 / 4_294_967_296.0,   // half-way, rounds to 2
    2.5 / 4_294_967_296.0,   // half-way, rounds to 2
    4_294_967_295.999_999_5, // just below 2^32
    4_294_967_296.0,         // 2^32, rejected
];

/// A weight drawn from the table, from raw binary64 bits, or a fixed-point value.
pub fn weight_input(u: &mut Unstructured) -> Result<WeightInput> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => WeightInput::Float(*u.choose(&WEIGHTS)?),
        1 => WeightInput::Float(f64::from_bits(u.arbitrary()?)),
        2 => WeightInput::Fixed(u.arbitrary()?),
        _ => WeightInput::Float(1.0),
    })
}

/// How a node's weight is given: through `Weight::new` or as a fixed-point integer.
#[derive(Clone, Copy, Debug)]
pub enum WeightInput {
    Float(f64),
    Fixed(u64),
}

impl WeightInput {
    pub fn weight(self) -> std::result::Result<Weight, Error> {
        match self {
            WeightInput::Float(w) => Weight::new(w),
            WeightInput::Fixed(f) => Ok(Weight::from_fixed(f)),
        }
    }
}

/// Bytes that are often short and often repeat, so that duplicates and shared domains happen.
pub fn small_bytes(u: &mut Unstructured, max: usize) -> Result<Vec<u8>> {
    let len = u.int_in_range(0..=max)?;
    let alphabet = [b'a', b'b', 0u8, 0xff];
    (0..len)
        .map(|_| {
            if u.ratio(3, 4)? {
                Ok(*u.choose(&alphabet)?)
            } else {
                u.arbitrary()
            }
        })
        .collect()
}

/// A node description as a caller might send it, before validation.
#[derive(Clone, Debug)]
pub struct NodeInput {
    pub id: Vec<u8>,
    pub weight: WeightInput,
    pub domain: Option<Vec<u8>>,
}

pub fn node_input(u: &mut Unstructured, i: usize, generated_ids: bool) -> Result<NodeInput> {
    let id = if generated_ids && u.ratio(7, 8)? {
        format!("node-{i}").into_bytes()
    } else {
        small_bytes(u, 6)?
    };
    let weight = weight_input(u)?;
    let domain = if u.ratio(1, 2)? {
        Some(small_bytes(u, 2)?)
    } else {
        None
    };
    Ok(NodeInput { id, weight, domain })
}

pub fn seed_input(u: &mut Unstructured) -> Result<Vec<u8>> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => small_bytes(u, 20)?,
        1 | 2 => u.bytes(16)?.to_vec(),
        _ => Seed::DEFAULT.to_bytes().to_vec(),
    })
}

pub fn memberships(u: &mut Unstructured, max: usize) -> Result<Vec<NodeInput>> {
    // Mostly small, where the fuzzer iterates fast; sometimes large, for the other code paths.
    let n = if u.ratio(3, 4)? {
        u.int_in_range(0..=max.min(20))?
    } else {
        u.int_in_range(0..=max)?
    };
    if u.ratio(1, 4)? {
        // Weights by formula: many distinct weights (or a few, repeating) from a few bytes, so
        // that large memberships reach both the per-group and the per-node lookups.
        let (a, m, shift) = (
            u.int_in_range(1..=97u64)?,
            u.int_in_range(1..=40u64)?,
            u.int_in_range(0..=40u32)?,
        );
        return Ok((0..n)
            .map(|i| NodeInput {
                id: format!("node-{i}").into_bytes(),
                weight: WeightInput::Fixed(((i as u64 * a) % m) << shift),
                domain: (i % 3 == 0).then(|| vec![(i % 5) as u8]),
            })
            .collect());
    }
    let generated = u.ratio(1, 2)?;
    (0..n).map(|i| node_input(u, i, generated)).collect()
}

/// The error SPEC.md section 7 requires for this input, or `None` when it must build. Written
/// from the table, not from the core: checks in table order, each over every node.
pub fn expected_error(seed: &[u8], nodes: &[NodeInput]) -> Option<Error> {
    if seed.len() != 16 {
        return Some(Error::InvalidSeedLength { len: seed.len() });
    }
    let mut weights = Vec::new();
    for n in nodes {
        match n.weight.weight() {
            Ok(w) => weights.push(w),
            Err(e) => return Some(e),
        }
    }
    if nodes.is_empty() {
        return Some(Error::EmptyMembership);
    }
    if let Some(index) = nodes.iter().position(|n| n.id.is_empty()) {
        return Some(Error::EmptyNodeId { index });
    }
    let mut first = std::collections::HashMap::new();
    for (index, n) in nodes.iter().enumerate() {
        if let Some(&first_index) = first.get(&n.id) {
            return Some(Error::DuplicateNodeId { index, first_index });
        }
        first.insert(&n.id, index);
    }
    if weights.iter().all(|w| w.is_zero()) {
        return Some(Error::AllWeightsZero);
    }
    None
}

/// Builds through the public API exactly as a caller would.
pub fn build(seed: &[u8], nodes: &[NodeInput]) -> std::result::Result<Placement, Error> {
    let seed = Seed::from_slice(seed)?;
    let nodes = nodes
        .iter()
        .map(|n| {
            let mut node = Node::new(&n.id).with_weight(n.weight.weight()?);
            if let Some(d) = &n.domain {
                node = node.with_domain(d);
            }
            Ok(node)
        })
        .collect::<std::result::Result<Vec<_>, Error>>()?;
    Placement::from_nodes(seed, nodes)
}

/// Same variant and same details (NaN weights compare by their bits).
pub fn same_error(a: &Error, b: &Error) -> bool {
    match (a, b) {
        (Error::InvalidWeight { value: x }, Error::InvalidWeight { value: y }) => {
            x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}

/// The plain oracle for one placement: SPEC.md's orders computed from scratch, with the node
/// digests computed once.
pub struct Oracle<'a> {
    p: &'a Placement,
    digests: Vec<u64>,
}

impl<'a> Oracle<'a> {
    pub fn new(p: &'a Placement) -> Oracle<'a> {
        let digests = p
            .node_specs()
            .iter()
            .map(|n| node_digest(&p.seed(), n.id()))
            .collect();
        Oracle { p, digests }
    }

    /// SPEC.md 5.3 (which reduces to section 4 when weights are equal), on every selectable node.
    pub fn ranking(&self, key: &[u8]) -> Vec<usize> {
        let kd = key_digest(&self.p.seed(), key);
        let nodes = self.p.node_specs();
        let facts: Vec<(u64, u64, u128)> = nodes
            .iter()
            .zip(&self.digests)
            .map(|(n, &nd)| {
                let s = score(kd, nd);
                (s, n.weight().to_fixed(), draw(s) as u128)
            })
            .collect();
        let mut order: Vec<usize> = (0..nodes.len())
            .filter(|&i| !nodes[i].weight().is_zero())
            .collect();
        order.sort_by(|&a, &b| {
            let (sa, wa, da) = facts[a];
            let (sb, wb, db) = facts[b];
            (da * wb as u128)
                .cmp(&(db * wa as u128))
                .then(sb.cmp(&sa))
                .then(nodes[a].id().cmp(nodes[b].id()))
        });
        order
    }

    /// SPEC.md section 6 on a given ranking.
    pub fn replicas(&self, ranking: &[usize], k: usize) -> Vec<usize> {
        let nodes = self.p.node_specs();
        let mut taken: Vec<usize> = Vec::new();
        let mut is_taken = vec![false; nodes.len()];
        let mut domains = std::collections::HashSet::new();
        for &i in ranking {
            if taken.len() == k {
                break;
            }
            if nodes[i].domain().is_none_or(|d| domains.insert(d)) {
                taken.push(i);
                is_taken[i] = true;
            }
        }
        for &i in ranking {
            if taken.len() == k {
                break;
            }
            if !is_taken[i] {
                taken.push(i);
            }
        }
        taken
    }
}

/// A buffer size for a result of `n` entries: often exact, often off by one, sometimes anything.
pub fn buffer_len(u: &mut Unstructured, n: usize) -> Result<usize> {
    Ok(match u.int_in_range(0..=4u8)? {
        0 => n,
        1 => n.saturating_sub(1),
        2 => n + 1,
        3 => 0,
        _ => u.int_in_range(0..=MAX_K)?,
    })
}

/// Whether every entry is below `len` and no entry repeats.
pub fn distinct_below(indices: &[usize], len: usize) -> bool {
    let mut seen = vec![false; len];
    indices
        .iter()
        .all(|&i| i < len && !std::mem::replace(&mut seen[i], true))
}
