//! The npm `hashring` 3.x package with default options (PROFILES.md, "hashring-node-3").

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::continuum::{key_value, md5, words, Continuum};
use super::{whole_weight, Profile};
use hrwhash::{Error, Node};

const VNODES: f64 = 40.0;

/// What `key + ''` makes of a key: a string is its UTF-8; a `Buffer` is decoded as UTF-8 with
/// U+FFFD for each ill-formed sequence (WHATWG decoding, as `String::from_utf8_lossy`).
fn key_text(key: &[u8]) -> Cow<'_, [u8]> {
    match String::from_utf8_lossy(key) {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// The number of digests of a server: `Math.floor(weight / total * vnodes * servers)` in
/// binary64, left to right as hashring writes it.
pub(crate) fn digests(weight: f64, total: f64, servers: usize) -> u64 {
    // Non-negative, so truncation is the floor (and needs no libm without std).
    (weight / total * VNODES * servers as f64) as u64
}

pub(crate) fn continuum(nodes: &[Node]) -> Result<Continuum, Error> {
    let mut weights = Vec::with_capacity(nodes.len());
    for n in nodes {
        weights.push(whole_weight(Profile::HashringNode3, n)? as f64);
    }
    let total: f64 = weights.iter().sum();
    let mut ring = Vec::new();
    let mut name = Vec::new();
    for (index, n) in nodes.iter().enumerate() {
        let id = key_text(n.id());
        for i in 0..digests(weights[index], total, nodes.len()) {
            name.clear();
            name.extend_from_slice(&id);
            name.extend_from_slice(alloc::format!("-{i}").as_bytes());
            ring.extend(words(&md5(&name)).map(|v| (v, index as u32)));
        }
    }
    Ok(Continuum::from_points(ring))
}

/// hashring's `find`, transcribed: a bisection that returns the first position whose point is at
/// or above the value, and position 0 when it runs out or reaches the end — which is exactly a
/// lower bound with wrap-around (PROFILES.md 5; `find_is_a_lower_bound_with_wrap_around`).
pub(crate) fn find(values: &[u32], hash: u32) -> usize {
    let size = values.len() as i64;
    let (mut low, mut high) = (0i64, size);
    loop {
        let mid = (low + high) >> 1;
        if mid == size {
            return 0;
        }
        let middle = values[mid as usize];
        let prev = if mid == 0 {
            0
        } else {
            values[mid as usize - 1]
        };
        if hash <= middle && hash > prev {
            return mid as usize;
        }
        if middle < hash {
            low = mid + 1;
        } else {
            high = mid - 1;
        }
        if low > high {
            return 0;
        }
    }
}

pub(crate) fn owner(c: &Continuum, key: &[u8]) -> usize {
    c.owners[find(&c.values, key_value(&key_text(key)))] as usize
}

/// hashring's `range(key, k)` with `unique` on: distinct servers in ring order from the key's
/// position, wrapping once.
pub(crate) fn range(c: &Continuum, key: &[u8], k: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    if k == 0 {
        return out;
    }
    let start = find(&c.values, key_value(&key_text(key)));
    for &o in c.owners[start..].iter().chain(&c.owners[..start]) {
        let o = o as usize;
        if !out.contains(&o) {
            out.push(o);
            if out.len() == k {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hrwhash::Weight;

    #[test]
    fn equal_weights_give_40_digests_each_except_where_binary64_rounds_down() {
        // 1/n * 40 * n is 40 exactly for most n; hashring floors whatever binary64 gives.
        for n in 1..=64usize {
            let exact = 1.0 / n as f64 * 40.0 * n as f64;
            assert_eq!(digests(1.0, n as f64, n), exact.floor() as u64);
        }
        assert_eq!(digests(1.0, 1.0, 1), 40);
        assert_eq!(digests(2.0, 3.0, 2), 53);
    }

    #[test]
    fn find_lands_on_the_first_point_at_or_above_for_clean_searches() {
        let values = [10, 20, 30, 40, 50];
        assert_eq!(find(&values, 25), 2);
        assert_eq!(find(&values, 30), 2);
        assert_eq!(find(&values, 11), 1);
        assert_eq!(find(&values, 5), 0);
        assert_eq!(find(&values, 51), 0);
        // 0 is "above prev = 0" nowhere, and still gets the first point, its lower bound.
        assert_eq!(find(&values, 0), 0);
        assert_eq!(find(&[], 7), 0);
    }

    #[test]
    fn find_agrees_with_a_literal_transcription_on_every_small_ring() {
        // A second, independent transcription with the JS semantics spelled out (`undefined`
        // never happens because `low > high` is tested before `mid` can be negative).
        fn js_find(ring: &[u32], hash: u32) -> usize {
            let size = ring.len() as i32;
            let (mut low, mut high) = (0i32, size);
            loop {
                let mid = (low + high) >> 1;
                if mid == size {
                    return 0;
                }
                let middle = ring[mid as usize] as f64;
                let prev = if mid == 0 {
                    0.0
                } else {
                    ring[mid as usize - 1] as f64
                };
                let h = hash as f64;
                if h <= middle && h > prev {
                    return mid as usize;
                }
                if middle < h {
                    low = mid + 1
                } else {
                    high = mid - 1
                }
                if low > high {
                    return 0;
                }
            }
        }
        for len in 0..12u32 {
            let ring: Vec<u32> = (0..len).map(|i| i * 3 + 1).collect();
            for hash in 0..len * 3 + 3 {
                assert_eq!(find(&ring, hash), js_find(&ring, hash));
            }
        }
    }

    /// The bisection never skips the answer: on rings with runs of equal values, values 0 and
    /// u32::MAX, it is the first point at or above the value, or 0 past the last.
    #[test]
    fn find_is_a_lower_bound_with_wrap_around() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for len in 0..40usize {
            for _ in 0..50 {
                let span = 1 + next() % 64;
                let mut ring: Vec<u32> = (0..len).map(|_| (next() % span) as u32).collect();
                if len > 0 && next() % 4 == 0 {
                    ring[0] = u32::MAX;
                }
                ring.sort_unstable();
                for hash in (0..=span as u32 + 1).chain([u32::MAX]) {
                    let bound = ring.partition_point(|&v| v < hash);
                    let want = if bound == ring.len() { 0 } else { bound };
                    assert_eq!(find(&ring, hash), want, "{ring:?} {hash}");
                }
            }
        }
    }

    #[test]
    fn buffer_keys_decode_like_node() {
        assert_eq!(&*key_text(b"ab\xffc"), "ab\u{fffd}c".as_bytes());
        assert_eq!(&*key_text(b"\xe2\x82"), "\u{fffd}".as_bytes());
    }

    #[test]
    fn weights_scale_the_number_of_points() {
        let nodes = [
            Node::new("a").with_weight(Weight::new(3.0).unwrap()),
            Node::new("b"),
        ];
        let c = continuum(&nodes).unwrap();
        let a = c.owners.iter().filter(|&&o| o == 0).count();
        assert_eq!(a, 4 * digests(3.0, 4.0, 2) as usize);
        assert_eq!(c.values.len() - a, 4 * digests(1.0, 4.0, 2) as usize);
        assert!(c.values.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn hashring_distribution_test_fixture() {
        let nodes: Vec<Node> = (1..=5)
            .map(|i| {
                Node::new(alloc::format!("0.0.0.{i}")).with_weight(Weight::new(i as f64).unwrap())
            })
            .collect();
        let c = continuum(&nodes).unwrap();
        let fixture = include_str!("../tests/data/hashring-node-3-ketama.txt");
        let mut cases = 0;
        for (key, server) in crate::fixture_cases(fixture) {
            let got = owner(&c, key.as_bytes());
            assert_eq!(got + 1, server.parse::<usize>().unwrap(), "key {key}");
            cases += 1;
        }
        assert_eq!(cases, 4000);
    }

    #[test]
    fn hashring_api_test_lookups() {
        // tests/api.test.js, "#get looks up keys".
        let ids = [
            "192.168.0.102:11212",
            "192.168.0.103:11212",
            "192.168.0.104:11212",
        ];
        let c = continuum(&ids.map(Node::new)).unwrap();
        assert_eq!(ids[owner(&c, b"foo")], "192.168.0.102:11212");
        assert_eq!(ids[owner(&c, b"pewpew")], "192.168.0.103:11212");
    }
}
