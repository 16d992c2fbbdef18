//! Compatibility profiles for [hrwhash](https://docs.rs/hrwhash): placements that answer exactly
//! as an incumbent library does, so a fleet already placed by it can be read, compared with
//! hrw-v1 and migrated before anything moves. Each profile is specified byte for byte in
//! `conformance/PROFILES.md` and checked against vectors recorded from the incumbent itself
//! (`conformance/profiles/<name>.json`). A crate of its own, so that a user of hrw-v1 alone
//! compiles none of the incumbents' hash functions (MD5, XXH64). Its errors are variants of
//! [`hrwhash::Error`], the one error type of the library.
//!
//! ```
//! use hrwhash::Node;
//! use hrwhash_compat::{Profile, ProfilePlacement};
//!
//! // pymemcache's own test: nodes "0", "1", "2".
//! let p = ProfilePlacement::new(Profile::PymemcacheRendezvous, ["0", "1", "2"].map(Node::new))?;
//! assert_eq!(p.owner_id(b"ok"), b"0");
//! assert_eq!(p.owner_id(b"mykey"), b"1");
//! assert_eq!(p.owner_id(b"wat"), b"2");
//! # Ok::<(), hrwhash::Error>(())
//! ```

#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

use alloc::string::ToString;
use alloc::sync::Arc;
use alloc::vec::Vec;

use hrwhash::{Error, Node};

mod continuum;
mod go_redis_ring_v9;
mod hashring_node_3;
mod ketama_libmemcached;
mod lookup;
mod pymemcache_rendezvous;
mod text;

/// An incumbent placement algorithm hrwhash reproduces (conformance/PROFILES.md).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// go-redis v9 `Ring`'s default consistent hash: rendezvous over XXH64 of the shard names,
    /// keys reduced to their `{hashtag}` first.
    GoRedisRingV9,
    /// pymemcache `HashClient`'s default `RendezvousHash`: murmur3_32 of `"{node}-{key}"`.
    PymemcacheRendezvous,
    /// libmemcached's weighted ketama continuum (`MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED`).
    KetamaLibmemcached,
    /// The npm `hashring` 3.x package with its default options.
    HashringNode3,
}

impl Profile {
    /// Every profile, in the order of PROFILES.md.
    pub const ALL: [Profile; 4] = [
        Profile::GoRedisRingV9,
        Profile::PymemcacheRendezvous,
        Profile::KetamaLibmemcached,
        Profile::HashringNode3,
    ];

    /// The profile's name, as PROFILES.md and the vector files spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Profile::GoRedisRingV9 => "go-redis-ring-v9",
            Profile::PymemcacheRendezvous => "pymemcache-rendezvous",
            Profile::KetamaLibmemcached => "ketama-libmemcached",
            Profile::HashringNode3 => "hashring-node-3",
        }
    }

    /// The profile with this exact name.
    pub fn from_name(name: &str) -> Result<Profile, Error> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| Error::UnknownProfile {
                name: name.to_string(),
            })
    }

    /// Whether node weights other than 1 are accepted (the incumbent is weighted).
    pub const fn offers_weights(self) -> bool {
        matches!(self, Profile::KetamaLibmemcached | Profile::HashringNode3)
    }

    /// Whether [`ProfilePlacement::replicas`] is offered (the incumbent has a top-k lookup).
    pub const fn offers_replicas(self) -> bool {
        matches!(self, Profile::HashringNode3)
    }
}

impl core::fmt::Display for Profile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for Profile {
    type Err = Error;
    fn from_str(s: &str) -> Result<Profile, Error> {
        Profile::from_name(s)
    }
}

enum Algorithm {
    GoRedis(go_redis_ring_v9::GoRedis),
    Pymemcache(pymemcache_rendezvous::Pymemcache),
    Ketama(continuum::Continuum),
    Hashring(continuum::Continuum),
}

struct Inner {
    profile: Profile,
    nodes: Vec<Node>,
    algorithm: Algorithm,
}

/// A membership placed the way an incumbent library places it. Cheap to clone (shared).
///
/// Lookups return indexes into the caller's node order. Which inputs a profile accepts (weights,
/// top-k, node id forms) is part of its specification; anything else is a typed error when the
/// placement is built, never a different answer.
#[derive(Clone)]
pub struct ProfilePlacement {
    inner: Arc<Inner>,
}

impl core::fmt::Debug for ProfilePlacement {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProfilePlacement")
            .field("profile", &self.inner.profile)
            .field("nodes", &self.inner.nodes.len())
            .finish()
    }
}

impl ProfilePlacement {
    /// Builds the incumbent's structure for `nodes`, in the caller's order (the order matters
    /// where the incumbent's does; see PROFILES.md).
    ///
    /// Errors: [`Error::EmptyMembership`], [`Error::EmptyNodeId`], [`Error::DuplicateNodeId`],
    /// and [`Error::NotOffered`] for a domain, for a weight other than 1 on an unweighted
    /// profile, and for the weights and ids the weighted incumbents cannot take.
    pub fn new(profile: Profile, nodes: impl IntoIterator<Item = Node>) -> Result<Self, Error> {
        let nodes: Vec<Node> = nodes.into_iter().collect();
        validate(profile, &nodes)?;
        let algorithm = match profile {
            Profile::GoRedisRingV9 => Algorithm::GoRedis(go_redis_ring_v9::GoRedis::new(&nodes)),
            Profile::PymemcacheRendezvous => {
                Algorithm::Pymemcache(pymemcache_rendezvous::Pymemcache::new(&nodes))
            }
            Profile::KetamaLibmemcached => {
                Algorithm::Ketama(ketama_libmemcached::continuum(&nodes)?)
            }
            Profile::HashringNode3 => Algorithm::Hashring(hashring_node_3::continuum(&nodes)?),
        };
        Ok(ProfilePlacement {
            inner: Arc::new(Inner {
                profile,
                nodes,
                algorithm,
            }),
        })
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.inner.profile
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.inner.nodes.len()
    }

    /// Always false: a placement has at least one node.
    pub fn is_empty(&self) -> bool {
        self.inner.nodes.is_empty()
    }

    /// The node at `index` in the caller's order.
    pub fn node(&self, index: usize) -> Option<&Node> {
        self.inner.nodes.get(index)
    }

    /// Every node, in the caller's order.
    pub fn nodes(&self) -> &[Node] {
        &self.inner.nodes
    }

    /// Index of the node the incumbent gives `key` to.
    pub fn owner(&self, key: impl AsRef<[u8]>) -> usize {
        // Every incumbent gives every key to a lone server (libmemcached skips the hash there
        // too), so there is nothing to hash.
        if self.inner.nodes.len() == 1 {
            return 0;
        }
        let key = key.as_ref();
        match &self.inner.algorithm {
            Algorithm::GoRedis(g) => g.owner(key),
            Algorithm::Pymemcache(p) => p.owner(key),
            Algorithm::Ketama(c) => ketama_libmemcached::owner(c, key),
            Algorithm::Hashring(c) => hashring_node_3::owner(c, key),
        }
    }

    /// The id of the node the incumbent gives `key` to.
    pub fn owner_id(&self, key: impl AsRef<[u8]>) -> &[u8] {
        self.inner.nodes[self.owner(key)].id()
    }

    /// Owners of many keys, in key order.
    pub fn owners<K: AsRef<[u8]>>(&self, keys: &[K]) -> Vec<usize> {
        keys.iter().map(|k| self.owner(k)).collect()
    }

    /// The first `k` distinct nodes of the incumbent's top-k lookup for `key`, owner first;
    /// fewer when fewer nodes can be reached. `k = 0` gives an empty list.
    ///
    /// [`Error::NotOffered`] when the incumbent has no top-k lookup
    /// ([`Profile::offers_replicas`]).
    pub fn replicas(&self, key: impl AsRef<[u8]>, k: usize) -> Result<Vec<usize>, Error> {
        match &self.inner.algorithm {
            Algorithm::Hashring(c) => Ok(hashring_node_3::range(c, key.as_ref(), k)),
            _ => Err(Error::NotOffered {
                profile: self.inner.profile.name(),
                what: "top-k replicas (the incumbent has no top-k lookup)",
            }),
        }
    }
}

/// The checks every profile shares, in the order API.md gives for placements.
fn validate(profile: Profile, nodes: &[Node]) -> Result<(), Error> {
    if nodes.is_empty() {
        return Err(Error::EmptyMembership);
    }
    if nodes.len() > u32::MAX as usize {
        return Err(Error::TooManyNodes { count: nodes.len() });
    }
    if let Some(index) = nodes.iter().position(|n| n.id().is_empty()) {
        return Err(Error::EmptyNodeId { index });
    }
    let mut by_id: Vec<usize> = (0..nodes.len()).collect();
    by_id.sort_by(|&a, &b| nodes[a].id().cmp(nodes[b].id()).then(a.cmp(&b)));
    let duplicate = by_id
        .windows(2)
        .filter(|w| nodes[w[0]].id() == nodes[w[1]].id())
        .map(|w| (w[1], w[0]))
        .min();
    if let Some((index, first_index)) = duplicate {
        return Err(Error::DuplicateNodeId { index, first_index });
    }
    if nodes.iter().any(|n| n.domain().is_some()) {
        return Err(Error::NotOffered {
            profile: profile.name(),
            what: "failure domains",
        });
    }
    if !profile.offers_weights() && nodes.iter().any(|n| n.weight() != hrwhash::Weight::ONE) {
        return Err(Error::NotOffered {
            profile: profile.name(),
            what: "weights (the incumbent is unweighted)",
        });
    }
    Ok(())
}

/// The whole-number weight of a node of a weighted profile: both incumbents place a node of
/// weight 0 as if its weight were 1, so 0 is refused rather than silently changed.
fn whole_weight(profile: Profile, node: &Node) -> Result<u32, Error> {
    let fixed = node.weight().to_fixed();
    if fixed & 0xffff_ffff != 0 {
        return Err(Error::NotOffered {
            profile: profile.name(),
            what: "fractional weights",
        });
    }
    match (fixed >> 32) as u32 {
        0 => Err(Error::NotOffered {
            profile: profile.name(),
            what: "weight 0 (the incumbent places a node of weight 0 as weight 1)",
        }),
        w => Ok(w),
    }
}

/// The cases of a fixture recorded from an incumbent (`tests/data/*.txt`): one a line, two
/// fields separated by a tab; lines starting with `#` say where the cases come from.
#[cfg(test)]
fn fixture_cases(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split_once('\t').expect("two tab-separated fields"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hrwhash::Weight;

    #[test]
    fn names_round_trip_and_unknown_names_are_typed_errors() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Ok(p));
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
        }
        assert_eq!(
            Profile::from_name("go-redis-ring-v8"),
            Err(Error::UnknownProfile {
                name: "go-redis-ring-v8".into()
            })
        );
    }

    #[test]
    fn bad_memberships_are_typed_errors_in_every_profile() {
        for p in Profile::ALL {
            assert_eq!(
                ProfilePlacement::new(p, []).unwrap_err(),
                Error::EmptyMembership
            );
            assert_eq!(
                ProfilePlacement::new(p, ["a", ""].map(Node::new)).unwrap_err(),
                Error::EmptyNodeId { index: 1 }
            );
            assert_eq!(
                ProfilePlacement::new(p, ["a", "b", "a", "b"].map(Node::new)).unwrap_err(),
                Error::DuplicateNodeId {
                    index: 2,
                    first_index: 0
                }
            );
            assert!(matches!(
                ProfilePlacement::new(p, [Node::new("a").with_domain("z")]).unwrap_err(),
                Error::NotOffered { .. }
            ));
            let heavy = Node::new("a").with_weight(Weight::new(2.0).unwrap());
            let built = ProfilePlacement::new(p, [heavy, Node::new("b")]);
            assert_eq!(built.is_ok(), p.offers_weights(), "{p}");
        }
    }

    #[test]
    fn weighted_profiles_take_whole_nonzero_weights_only() {
        for p in [Profile::KetamaLibmemcached, Profile::HashringNode3] {
            for w in [0.0, 0.5, 2.25] {
                let n = Node::new("a:1").with_weight(Weight::new(w).unwrap());
                assert!(matches!(
                    ProfilePlacement::new(p, [n]).unwrap_err(),
                    Error::NotOffered { .. }
                ));
            }
            let max = Node::new("a:1").with_weight(Weight::new(4_294_967_295.0).unwrap());
            let p = ProfilePlacement::new(p, [max, Node::new("b:1")]).unwrap();
            assert_eq!(p.owner("k"), p.owner("k"));
        }
    }

    /// Ids that name no libmemcached server unambiguously (PROFILES.md 4, "Nodes") are refused,
    /// and one node owns every key without hashing.
    #[test]
    fn ketama_refuses_ids_that_read_two_ways() {
        for id in [
            "2001:db8::0",
            "2001:db8::11211",
            "/run/memcached.sock",
            "[::1",
        ] {
            let err = ProfilePlacement::new(Profile::KetamaLibmemcached, [Node::new(id)]);
            assert!(
                matches!(err, Err(Error::NotOffered { .. })),
                "{id}: {err:?}"
            );
        }
        for p in Profile::ALL {
            let lone = ProfilePlacement::new(p, [Node::new("a:11211")]).unwrap();
            assert_eq!(lone.owners(&["", "k", "\u{ff}"]), [0, 0, 0]);
        }
    }

    #[test]
    fn replicas_are_offered_where_the_incumbent_has_them() {
        for p in Profile::ALL {
            let pl = ProfilePlacement::new(p, ["a:1", "b:1", "c:1"].map(Node::new)).unwrap();
            let r = pl.replicas("key", 2);
            assert_eq!(r.is_ok(), p.offers_replicas());
            if let Ok(r) = r {
                assert_eq!(r.len(), 2);
                assert_eq!(r[0], pl.owner("key"));
                assert_ne!(r[0], r[1]);
                assert_eq!(pl.replicas("key", 0).unwrap(), Vec::<usize>::new());
                assert_eq!(pl.replicas("key", 9).unwrap().len(), 3);
            }
        }
    }
}
