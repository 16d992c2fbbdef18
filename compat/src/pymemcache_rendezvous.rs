//! pymemcache `RendezvousHash` (PROFILES.md, "pymemcache-rendezvous").

use alloc::string::String;
use alloc::vec::Vec;

use super::text::{low_bytes, pymemcache_text};
use hrwhash::Node;

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

fn mix_k1(k1: u32) -> u32 {
    k1.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

fn mix_h1(h1: u32, k1: u32) -> u32 {
    (h1 ^ mix_k1(k1))
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

/// MurmurHash3 x86_32 whose input arrives in pieces: the node's prefix once, then each key.
#[derive(Clone, Copy)]
struct Murmur {
    h1: u32,
    /// Bytes of an incomplete block, little-endian, and how many there are.
    tail: u32,
    tail_len: u32,
    len: u32,
}

impl Murmur {
    fn new(seed: u32) -> Murmur {
        Murmur {
            h1: seed,
            tail: 0,
            tail_len: 0,
            len: 0,
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        // Python's len() is a code-point count; pymemcache xors it in modulo 2^32.
        self.len = self.len.wrapping_add(bytes.len() as u32);
        let mut rest = bytes;
        while self.tail_len != 0 && !rest.is_empty() {
            self.tail |= (rest[0] as u32) << (8 * self.tail_len);
            self.tail_len += 1;
            rest = &rest[1..];
            if self.tail_len == 4 {
                self.h1 = mix_h1(self.h1, self.tail);
                self.tail = 0;
                self.tail_len = 0;
            }
        }
        let mut blocks = rest.chunks_exact(4);
        for b in &mut blocks {
            self.h1 = mix_h1(self.h1, u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        for (i, &b) in blocks.remainder().iter().enumerate() {
            self.tail |= (b as u32) << (8 * i);
            self.tail_len += 1;
        }
    }

    fn finish(self) -> u32 {
        let mut h1 = self.h1;
        if self.tail_len != 0 {
            h1 ^= mix_k1(self.tail);
        }
        h1 ^= self.len;
        h1 ^= h1 >> 16;
        h1 = h1.wrapping_mul(0x85eb_ca6b);
        h1 ^= h1 >> 13;
        h1 = h1.wrapping_mul(0xc2b2_ae35);
        h1 ^ (h1 >> 16)
    }
}

/// pymemcache's `murmur3_32(data, seed=0)` of a text: one byte per code point.
#[cfg(test)]
pub(crate) fn murmur3_32(text: &str) -> u32 {
    let mut bytes = Vec::new();
    low_bytes(text, &mut bytes);
    let mut m = Murmur::new(0);
    m.update(&bytes);
    m.finish()
}

pub(crate) struct Pymemcache {
    /// The hash state after `"{node}-"`, per node in caller order.
    prefixes: Vec<Murmur>,
    /// Each node's text, which breaks ties (the greatest wins).
    texts: Vec<String>,
}

impl Pymemcache {
    pub(crate) fn new(nodes: &[Node]) -> Pymemcache {
        let mut bytes = Vec::new();
        let mut prefixes = Vec::with_capacity(nodes.len());
        let mut texts = Vec::with_capacity(nodes.len());
        for n in nodes {
            let text = pymemcache_text(n.id());
            bytes.clear();
            low_bytes(&text, &mut bytes);
            bytes.push(b'-');
            let mut m = Murmur::new(0);
            m.update(&bytes);
            prefixes.push(m);
            texts.push(text.into_owned());
        }
        Pymemcache { prefixes, texts }
    }

    pub(crate) fn owner(&self, key: &[u8]) -> usize {
        let text = pymemcache_text(key);
        let owned;
        let bytes: &[u8] = if text.is_ascii() {
            text.as_bytes()
        } else {
            let mut v = Vec::with_capacity(text.len());
            low_bytes(&text, &mut v);
            owned = v;
            &owned
        };
        let mut best = 0;
        let mut best_score = 0u32;
        for (i, prefix) in self.prefixes.iter().enumerate() {
            let mut m = *prefix;
            m.update(bytes);
            let score = m.finish();
            // Scores start above pymemcache's -1, so the first node always leads; a tie goes to
            // the greatest text (Python compares str by code point, which is UTF-8 byte order).
            if i == 0
                || score > best_score
                || (score == best_score && self.texts[i].as_bytes() > self.texts[best].as_bytes())
            {
                best = i;
                best_score = score;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur_matches_pymemcache_tests() {
        // pymemcache/test/test_rendezvous.py: test_init_no_options.
        assert_eq!(murmur3_32("6666"), 1361238019);
        // MurmurHash3_x86_32 published values, seed 0.
        assert_eq!(murmur3_32(""), 0);
        assert_eq!(murmur3_32("hello"), 0x248bfa47);
        assert_eq!(
            murmur3_32("The quick brown fox jumps over the lazy dog"),
            0x2e4ff723
        );
    }

    #[test]
    fn streaming_equals_one_piece() {
        let text = "node-12:11211-some key with a tail";
        for split in 0..text.len() {
            let mut m = Murmur::new(0);
            m.update(&text.as_bytes()[..split]);
            m.update(&text.as_bytes()[split..]);
            assert_eq!(m.finish(), murmur3_32(text), "split at {split}");
        }
    }

    #[test]
    fn owners_match_pymemcache_tests() {
        // test_get_node, test_get_node_after_removal, test_get_node_after_addition.
        fn owner(ids: &[&'static str], key: &str) -> &'static str {
            let nodes: Vec<Node> = ids.iter().map(Node::new).collect();
            ids[Pymemcache::new(&nodes).owner(key.as_bytes())]
        }
        let three = ["0", "1", "2"];
        assert_eq!(owner(&three, "ok"), "0");
        assert_eq!(owner(&three, "mykey"), "1");
        assert_eq!(owner(&three, "wat"), "2");
        assert_eq!(owner(&three, "lol"), "2");
        assert_eq!(owner(&["0", "2"], "ok"), "0");
        assert_eq!(owner(&["0", "2"], "mykey"), "0");
        assert_eq!(owner(&["0", "2"], "wat"), "2");
        let four = ["0", "1", "2", "3"];
        assert_eq!(owner(&four, "ok"), "0");
        assert_eq!(owner(&four, "mykey"), "1");
        assert_eq!(owner(&four, "wat"), "2");
        assert_eq!(owner(&four, "lol"), "3");
    }

    #[test]
    fn growing_and_shrinking_move_what_pymemcache_tests_count() {
        // test_grow: 10 -> 20 nodes moves 531 of 1000 keys; test_shrink: 10 -> 9 moves 101.
        let place = |n: usize| {
            let nodes: Vec<Node> = (0..n).map(|i| Node::new(alloc::format!("{i}"))).collect();
            let p = Pymemcache::new(&nodes);
            (0..1000)
                .map(|k| p.owner(alloc::format!("{k}").as_bytes()))
                .collect::<Vec<_>>()
        };
        let (ten, twenty, nine) = (place(10), place(20), place(9));
        let moved = |a: &[usize], b: &[usize]| a.iter().zip(b).filter(|(x, y)| x != y).count();
        assert_eq!(2 * moved(&ten, &twenty), 1062);
        assert_eq!(2 * moved(&ten, &nine), 202);
    }

    #[test]
    fn ties_go_to_the_greatest_text() {
        // test_rendezvous_collision uses a constant hash: the greatest node string wins whatever
        // the order. Two nodes tie here when their prefixes collide, which needs a constructed
        // case: compare the rule directly on a placement whose scores are forced equal.
        let nodes: Vec<Node> = ["c", "b", "a"].map(Node::new).into();
        let mut p = Pymemcache::new(&nodes);
        let same = p.prefixes[0];
        p.prefixes.iter_mut().for_each(|m| *m = same);
        for k in 0..50 {
            assert_eq!(p.owner(alloc::format!("{k}").as_bytes()), 0);
        }
        let nodes: Vec<Node> = ["a", "lol.wat.com", "b"].map(Node::new).into();
        let mut p = Pymemcache::new(&nodes);
        let same = p.prefixes[0];
        p.prefixes.iter_mut().for_each(|m| *m = same);
        assert_eq!(p.owner(b"x"), 1);
    }

    #[test]
    fn bytes_keys_hash_as_their_repr_and_code_points_as_low_bytes() {
        let nodes: Vec<Node> = ["a", "b", "c", "d", "e"].map(Node::new).into();
        let p = Pymemcache::new(&nodes);
        for key in [&b"\xff"[..], b"\x80abc", b"\xc3"] {
            let repr = super::super::text::python_bytes_repr(key);
            assert_eq!(p.owner(key), p.owner(repr.as_bytes()));
        }
        // U+0161 and U+0061 share their low byte, so they hash alike; U+00E9 does not.
        assert_eq!(murmur3_32("\u{161}x"), murmur3_32("ax"));
        assert_ne!(murmur3_32("\u{e9}x"), murmur3_32("ax"));
    }
}
