//! The `domains-v1` policy (conformance/POLICIES.md, "domains (v1)"): failure domains first, then
//! nodes. A node's domain is read as a path of levels separated by `/` (`zone/rack/host`); for one
//! spread level, a key's replicas go to distinct domains of that level, each domain chosen by
//! weighted hrw-v1 over the domains themselves (a domain weighs the sum of its nodes' weights), and
//! within a domain by the same rule one level down, until the nodes of the deepest level.

use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

use siphasher::sip::SipHasher13;

use crate::v1::{draw, key_digest, score, Seed};
use crate::{Error, Fault, Node, NodeRef, Placement};

/// The policy tag, as written in `conformance/policies/domains.json`.
pub const DOMAINS_POLICY: &str = "domains-v1";

/// Domain-separation prefix of a domain digest. It differs from `hrw-v1:node` in its 8th byte, so
/// no domain digest is ever computed over the bytes of a node digest, whatever the ids.
pub const DOMAIN_PREFIX: &[u8] = b"hrw-v1:domain";

/// The byte that separates the levels of a domain path.
pub const LEVEL_SEPARATOR: u8 = b'/';

/// The levels of a domain path: the domain bytes split at every `/`.
pub fn path_levels(domain: &[u8]) -> impl Iterator<Item = &[u8]> {
    domain.split(|&b| b == LEVEL_SEPARATOR)
}

/// `SipHash13(seed, "hrw-v1:domain" || u64le(len(prefix)) || prefix)`, where `prefix` is a
/// domain path cut after one of its levels.
pub fn domain_digest(seed: &Seed, prefix: &[u8]) -> u64 {
    use core::hash::Hasher;
    let bytes = seed.to_bytes();
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
    let mut h = SipHasher13::new_with_keys(word(&bytes[..8]), word(&bytes[8..]));
    h.write(DOMAIN_PREFIX);
    h.write(&(prefix.len() as u64).to_le_bytes());
    h.write(prefix);
    h.finish()
}

/// A domain of the spread level or below.
struct Unit {
    /// The path up to and including this domain's level, for the tie-break.
    prefix: Vec<u8>,
    digest: u64,
    /// Sum of the fixed-point weights of its nodes (below 2^64).
    weight: u64,
    /// Its selectable nodes.
    size: usize,
    body: Body,
}

enum Body {
    /// Sub-domains of the next level with a weight above zero.
    Domains(Vec<u32>),
    /// The deepest level: its nodes as an hrw-v1 placement, and each one's build-order index.
    Nodes {
        placement: Placement,
        index: Vec<u32>,
    },
}

/// A placement read through the `domains-v1` policy at one spread level.
///
/// ```
/// use hrwhash::policy::Domains;
/// use hrwhash::{Node, Placement, Seed};
///
/// let paths = ["zone-a/rack-1", "zone-a/rack-1", "zone-a/rack-2", "zone-b/rack-1"];
/// let nodes = (0..4).map(|i| Node::new(format!("h{}", i + 1)).with_domain(paths[i]));
/// let fleet = Placement::from_nodes(Seed::DEFAULT, nodes)?;
/// let racks = Domains::new(&fleet, 1)?; // level 0 is the zone, 1 the rack
/// let replicas = racks.replicas("object-7", 3)?;
/// let rack = |n: &hrwhash::NodeRef| racks.domain_of(n.index()).unwrap().to_vec();
/// assert!(rack(&replicas[0]) != rack(&replicas[1]) && rack(&replicas[1]) != rack(&replicas[2]));
/// assert_eq!(replicas[0], racks.owner("object-7"));
/// # Ok::<(), hrwhash::Error>(())
/// ```
pub struct Domains {
    placement: Placement,
    level: usize,
    depth: usize,
    units: Vec<Unit>,
    /// The domains of the spread level with a weight above zero.
    top: Vec<u32>,
    /// Length of each node's path prefix up to the spread level.
    prefix_len: Vec<usize>,
}

impl fmt::Debug for Domains {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Domains")
            .field("policy", &DOMAINS_POLICY)
            .field("level", &self.level)
            .field("depth", &self.depth)
            .field("domains", &self.top.len())
            .field("placement", &self.placement)
            .finish()
    }
}

/// A candidate of one sibling draw: the weighted hrw-v1 order of SPEC.md 5.3 applied to domains.
#[derive(Clone, Copy)]
struct Drawn {
    draw: u64,
    score: u64,
    weight: u64,
    unit: u32,
}

impl Domains {
    /// The policy over `placement`'s nodes, spreading over `level` (0-based: 0 is the first level of
    /// the paths). Every node, draining or not, needs a path of the same number of levels.
    pub fn new(placement: &Placement, level: usize) -> Result<Domains, Error> {
        let nodes = placement.node_specs();
        let fault = |index, reason| Error::InvalidDomains { index, reason };
        let mut paths: Vec<&[u8]> = Vec::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            match n.domain() {
                Some(d) => paths.push(d),
                None => return Err(fault(Some(i), Fault::Missing)),
            }
        }
        if let Some(i) = paths
            .iter()
            .position(|p| path_levels(p).any(|l| l.is_empty()))
        {
            return Err(fault(Some(i), Fault::EmptyLevel));
        }
        let depth = path_levels(paths[0]).count();
        if let Some(i) = paths.iter().position(|p| path_levels(p).count() != depth) {
            return Err(fault(Some(i), Fault::DepthMismatch));
        }
        if level >= depth {
            return Err(fault(None, Fault::LevelOutOfRange));
        }
        let mut total: u64 = 0;
        for (i, n) in nodes.iter().enumerate() {
            total = total
                .checked_add(n.weight().to_fixed())
                .ok_or(fault(Some(i), Fault::WeightOverflow))?;
        }

        // ends[i][l]: length of node i's path cut after level l.
        let ends: Vec<Vec<usize>> = paths
            .iter()
            .map(|p| {
                let mut cuts: Vec<usize> = p
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b == LEVEL_SEPARATOR)
                    .map(|(j, _)| j)
                    .collect();
                cuts.push(p.len());
                cuts
            })
            .collect();
        let seed = placement.seed();
        let mut units: Vec<Unit> = Vec::new();
        // Every node with a weight above zero, grouped level by level from the spread level down.
        let members: Vec<usize> = (0..nodes.len())
            .filter(|&i| !nodes[i].weight().is_zero())
            .collect();
        let top = build_level(
            &seed, nodes, &paths, &ends, level, depth, &members, &mut units,
        )?;
        Ok(Domains {
            placement: placement.clone(),
            level,
            depth,
            units,
            top,
            prefix_len: ends.iter().map(|e| e[level]).collect(),
        })
    }

    /// The placement the policy reads.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The spread level.
    pub fn level(&self) -> usize {
        self.level
    }

    /// The number of levels of every path.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The number of domains of the spread level that have a node of weight above zero.
    pub fn domain_count(&self) -> usize {
        self.top.len()
    }

    /// The spread-level domain (the path cut after the spread level) of the node at build-order
    /// `index`.
    pub fn domain_of(&self, index: usize) -> Option<&[u8]> {
        let end = *self.prefix_len.get(index)?;
        self.placement.node_specs()[index]
            .domain()
            .map(|d| &d[..end])
    }

    /// The owner of `key`: the first of its replicas.
    pub fn owner(&self, key: impl AsRef<[u8]>) -> NodeRef<'_> {
        self.node_ref(self.owner_index(key))
    }

    /// The build-order index of the owner of `key`.
    pub fn owner_index(&self, key: impl AsRef<[u8]>) -> usize {
        let kd = key_digest(&self.placement.seed(), key.as_ref());
        let mut unit = self.best(kd, &self.top);
        loop {
            match &self.units[unit as usize].body {
                Body::Domains(children) => unit = self.best(kd, children),
                Body::Nodes { placement, index } => {
                    return index[placement.owner_index_of_digest(kd)] as usize
                }
            }
        }
    }

    /// The first `k` replicas of `key`, as build-order indices. `k` must be between 1 and the
    /// number of selectable nodes.
    pub fn replica_indices(&self, key: impl AsRef<[u8]>, k: usize) -> Result<Vec<usize>, Error> {
        let available = self.placement.selectable_len();
        if k == 0 || k > available {
            return Err(Error::InvalidReplicaCount {
                requested: k,
                available,
            });
        }
        let kd = key_digest(&self.placement.seed(), key.as_ref());
        let mut out = Vec::with_capacity(k);
        self.take(kd, &self.top, k, &mut out);
        Ok(out)
    }

    /// The first `out.len()` replicas of `key`, as build-order indices written into `out`.
    pub fn replicas_into(&self, key: impl AsRef<[u8]>, out: &mut [usize]) -> Result<(), Error> {
        let got = self.replica_indices(key, out.len())?;
        out.copy_from_slice(&got);
        Ok(())
    }

    /// The first `k` replicas of `key`; see [`Domains::replica_indices`].
    pub fn replicas(&self, key: impl AsRef<[u8]>, k: usize) -> Result<Vec<NodeRef<'_>>, Error> {
        Ok(self
            .replica_indices(key, k)?
            .into_iter()
            .map(|i| self.node_ref(i))
            .collect())
    }

    fn node_ref(&self, index: usize) -> NodeRef<'_> {
        match self.placement.node(index) {
            Some(n) => n,
            // Indices come from the placement's own node list.
            None => unreachable!("build-order index {index} out of range"),
        }
    }

    fn drawn(&self, kd: u64, unit: u32) -> Drawn {
        let u = &self.units[unit as usize];
        let s = score(kd, u.digest);
        Drawn {
            draw: draw(s),
            score: s,
            weight: u.weight,
            unit,
        }
    }

    /// SPEC.md 5.3's order over sibling domains: smaller draw / weight, then higher score, then the
    /// smaller path.
    fn order(&self, a: &Drawn, b: &Drawn) -> Ordering {
        // Below 2^126: draws are at most 2^62 and domain weights below 2^64.
        let lhs = a.draw as u128 * b.weight as u128;
        let rhs = b.draw as u128 * a.weight as u128;
        lhs.cmp(&rhs).then(b.score.cmp(&a.score)).then_with(|| {
            self.units[a.unit as usize]
                .prefix
                .cmp(&self.units[b.unit as usize].prefix)
        })
    }

    fn best(&self, kd: u64, siblings: &[u32]) -> u32 {
        let mut best = self.drawn(kd, siblings[0]);
        for &u in &siblings[1..] {
            let d = self.drawn(kd, u);
            if self.order(&d, &best) == Ordering::Less {
                best = d;
            }
        }
        best.unit
    }

    /// Appends the first `count` nodes of the order of `siblings` (POLICIES.md: the domains in
    /// their ranking, taking one node from each in turn).
    fn take(&self, kd: u64, siblings: &[u32], count: usize, out: &mut Vec<usize>) {
        let mut ranked: Vec<Drawn> = siblings.iter().map(|&u| self.drawn(kd, u)).collect();
        // Each domain has a node, so with count <= domains only the first `count` domains give one.
        if count < ranked.len() {
            ranked.select_nth_unstable_by(count - 1, |a, b| self.order(a, b));
            ranked.truncate(count);
        }
        ranked.sort_unstable_by(|a, b| self.order(a, b));
        // How many nodes each domain gives: one per round, in ranking order, while it has any.
        let mut share = alloc::vec![0usize; ranked.len()];
        let mut left = count;
        while left > 0 {
            for (i, d) in ranked.iter().enumerate() {
                if left > 0 && share[i] < self.units[d.unit as usize].size {
                    share[i] += 1;
                    left -= 1;
                }
            }
        }
        let lists: Vec<Vec<usize>> = ranked
            .iter()
            .zip(&share)
            .map(|(d, &n)| {
                let mut list = Vec::with_capacity(n);
                match &self.units[d.unit as usize].body {
                    Body::Domains(children) => self.take(kd, children, n, &mut list),
                    Body::Nodes { placement, index } => {
                        let mut local = alloc::vec![0usize; n];
                        let got = placement.rank_digest_into(kd, &mut local);
                        list.extend(local[..got].iter().map(|&l| index[l] as usize));
                    }
                }
                list
            })
            .collect();
        let rounds = share.iter().copied().max().unwrap_or(0);
        for r in 0..rounds {
            for list in &lists {
                if let Some(&i) = list.get(r) {
                    out.push(i);
                }
            }
        }
    }
}

/// Groups `members` (nodes of weight above zero, all below one domain of level `level - 1`) into
/// the domains of `level`, builds each one, and returns their unit numbers in first-member order.
#[allow(clippy::too_many_arguments)]
fn build_level(
    seed: &Seed,
    nodes: &[Node],
    paths: &[&[u8]],
    ends: &[Vec<usize>],
    level: usize,
    depth: usize,
    members: &[usize],
    units: &mut Vec<Unit>,
) -> Result<Vec<u32>, Error> {
    let prefix = |i: usize| &paths[i][..ends[i][level]];
    let mut order: Vec<usize> = members.to_vec();
    order.sort_by(|&a, &b| prefix(a).cmp(prefix(b)).then(a.cmp(&b)));
    let mut out = Vec::new();
    for group in order.chunk_by(|&a, &b| prefix(a) == prefix(b)) {
        let mut group = group.to_vec();
        group.sort_unstable();
        let weight: u64 = group.iter().map(|&i| nodes[i].weight().to_fixed()).sum();
        let body = if level + 1 == depth {
            let placement = Placement::from_nodes(*seed, group.iter().map(|&i| nodes[i].clone()))?;
            Body::Nodes {
                placement,
                index: group.iter().map(|&i| i as u32).collect(),
            }
        } else {
            Body::Domains(build_level(
                seed,
                nodes,
                paths,
                ends,
                level + 1,
                depth,
                &group,
                units,
            )?)
        };
        let p = prefix(group[0]).to_vec();
        units.push(Unit {
            digest: domain_digest(seed, &p),
            prefix: p,
            weight,
            size: group.len(),
            body,
        });
        out.push((units.len() - 1) as u32);
    }
    Ok(out)
}
