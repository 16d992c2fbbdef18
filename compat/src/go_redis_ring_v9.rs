//! go-redis v9 `Ring` (PROFILES.md, "go-redis-ring-v9").

use alloc::vec::Vec;

use xxhash_rust::xxh64::xxh64;

use hrwhash::Node;

/// go-redis `hashtag.Key`: the text between the first `{` and the first `}` after it, when that
/// text is not empty; the whole key otherwise.
pub(crate) fn hashtag(key: &[u8]) -> &[u8] {
    if let Some(s) = key.iter().position(|&b| b == b'{') {
        let rest = &key[s + 1..];
        if let Some(e) = rest.iter().position(|&b| b == b'}') {
            if e > 0 {
                return &rest[..e];
            }
        }
    }
    key
}

/// go-redis `mix64`, a xorshift-multiply bijection of 64-bit words.
pub(crate) fn mix64(mut x: u64) -> u64 {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x.wrapping_mul(2685821657736338717)
}

pub(crate) struct GoRedis {
    /// XXH64 of each shard name, in bytewise name order.
    hashes: Vec<u64>,
    /// Caller index of each entry of `hashes`.
    index: Vec<u32>,
}

impl GoRedis {
    pub(crate) fn new(nodes: &[Node]) -> GoRedis {
        // go-redis visits shards in Go map order, so names whose XXH64 collide win at random;
        // visiting them in name order with a strict `>` makes the smallest name win instead.
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        order.sort_by(|&a, &b| nodes[a as usize].id().cmp(nodes[b as usize].id()));
        GoRedis {
            hashes: order
                .iter()
                .map(|&i| xxh64(nodes[i as usize].id(), 0))
                .collect(),
            index: order,
        }
    }

    pub(crate) fn owner(&self, key: &[u8]) -> usize {
        let kh = xxh64(hashtag(key), 0);
        let mut best = 0;
        let mut best_score = mix64(kh ^ self.hashes[0]);
        for (i, &h) in self.hashes.iter().enumerate().skip(1) {
            let score = mix64(kh ^ h);
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        self.index[best] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashtags_follow_go_redis_tests() {
        // internal/hashtag/hashtag_test.go: keys that must share a slot share a hashtag.
        let same = [
            (&b"foo{bar}"[..], &b"bar"[..]),
            (b"{foo}bar", b"foo"),
            (b"{user1000}.following", b"user1000"),
            (b"foo{{bar}}zap", b"{bar"),
            (b"foo{bar}{zap}", b"bar"),
        ];
        for (key, tag) in same {
            assert_eq!(hashtag(key), tag);
        }
        // Empty or unclosed tags leave the whole key; only the first `{` is considered.
        for key in [&b"{}foo"[..], b"foo{}", b"foo{}{bar}", b"foo{bar", b"}{"] {
            assert_eq!(hashtag(key), key);
        }
    }

    #[test]
    fn xxh64_is_the_reference_function() {
        // XXH64 reference values (xxHash's own sanity tests, seed 0).
        assert_eq!(xxh64(b"", 0), 0xef46db3751d8e999);
        assert_eq!(xxh64(b"a", 0), 0xd24ec4f1a98c6e5b);
        assert_eq!(xxh64(b"abc", 0), 0x44bc2cf5ad770999);
    }

    #[test]
    fn mix64_is_invertible_so_only_equal_name_hashes_tie() {
        // Each step of mix64 is a bijection; a spot check that nearby inputs never collide.
        let mut seen: Vec<u64> = (0..4096u64).map(mix64).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 4096);
        assert_eq!(mix64(0), 0);
        assert_eq!(
            mix64(1),
            1u64.wrapping_add(1 << 25).wrapping_mul(2685821657736338717)
        );
    }

    #[test]
    fn the_owner_is_the_highest_mixed_score() {
        let nodes: Vec<Node> = ["node-0", "node-1", "node-2"].map(Node::new).into();
        let g = GoRedis::new(&nodes);
        for i in 0..200 {
            let key = alloc::format!("key-{i}");
            let kh = xxh64(key.as_bytes(), 0);
            let best = (0..3)
                .max_by_key(|&j| mix64(kh ^ xxh64(nodes[j].id(), 0)))
                .unwrap();
            assert_eq!(g.owner(key.as_bytes()), best);
        }
    }
}
