//! The key digest is SipHash-1-3 of the framed key, whatever shortcut computes it: held equal to
//! the `siphasher` crate's streaming writer on random keys of every length and random seeds.

use std::hash::Hasher;

use hrwhash::v1::{key_digest, KEY_DOMAIN};
use hrwhash::Seed;
use proptest::prelude::*;
use siphasher::sip::SipHasher13;

fn siphash(seed: &Seed, key: &[u8]) -> u64 {
    let b = seed.to_bytes();
    let k0 = u64::from_le_bytes(b[..8].try_into().unwrap());
    let k1 = u64::from_le_bytes(b[8..].try_into().unwrap());
    let mut h = SipHasher13::new_with_keys(k0, k1);
    h.write(KEY_DOMAIN);
    h.write(&(key.len() as u64).to_le_bytes());
    h.write(key);
    h.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn key_digest_is_siphash_of_the_framed_key(
        seed in any::<[u8; 16]>(),
        key in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let seed = Seed::from_bytes(seed);
        prop_assert_eq!(key_digest(&seed, &key), siphash(&seed, &key));
        let runtime = Seed::from_slice(&seed.to_bytes()).unwrap();
        prop_assert_eq!(key_digest(&runtime, &key), siphash(&seed, &key));
    }
}

#[test]
fn key_digest_matches_siphash_at_every_length_under_the_default_seed() {
    let key: Vec<u8> = (0..300u32).map(|i| (i * 131 + 7) as u8).collect();
    for len in 0..300 {
        let seed = Seed::DEFAULT;
        assert_eq!(
            key_digest(&seed, &key[..len]),
            siphash(&seed, &key[..len]),
            "len {len}"
        );
    }
}

/// The batch calls digest keys in blocks (several per vector register where the CPU has them):
/// each answer is still the one-key call's, for keys of mixed lengths in one call.
#[test]
fn batch_calls_answer_as_one_key_calls_do() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 29
    };
    let keys: Vec<Vec<u8>> = (0..1000)
        .map(|_| {
            let len = (next() % [8, 30, 300][(next() % 3) as usize]) as usize;
            (0..len).map(|_| next() as u8).collect()
        })
        .collect();
    let seed = Seed::from_bytes(*b"another seed 16B");
    for n in [1usize, 5, 100] {
        let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
        let plain = hrwhash::Placement::new(&ids).unwrap();
        let weighted = hrwhash::Placement::from_nodes(
            seed,
            ids.iter().enumerate().map(|(i, id)| {
                hrwhash::Node::new(id)
                    .with_weight(hrwhash::Weight::new((1 + i % 4) as f64).unwrap())
            }),
        )
        .unwrap();
        for p in [plain, weighted] {
            // Lengths that leave a remainder after whole blocks of eight and of 64.
            for count in [0usize, 1, 7, 8, 9, 63, 64, 65, 1000] {
                let keys = &keys[..count];
                let expected: Vec<usize> = keys.iter().map(|k| p.owner_index(k)).collect();
                let mut out = vec![usize::MAX; count];
                p.owners_into(keys, &mut out).unwrap();
                assert_eq!(out, expected, "n={n} count={count}");
                assert_eq!(p.owners(keys), expected);
                let k = 3;
                let mut rows = vec![usize::MAX; count * k];
                let per_key = p.rank_many_into(keys, k, &mut rows).unwrap();
                for (key, row) in keys.iter().zip(rows.chunks_exact(k)) {
                    let mut one = vec![usize::MAX; per_key];
                    p.rank_into(key, &mut one);
                    assert_eq!(&row[..per_key], &one[..]);
                }
            }
        }
    }
}

/// The batch owners of an unweighted placement look a block of keys up together (in the AVX-512
/// kernel, each node digest read once per block): under every per-node kernel this CPU runs,
/// `owners_into`, `owners` and `rank_many_into` with one node per row answer as the scalar
/// kernel's one-key calls do, at fleet sizes around the chunks of eight nodes up to 10^5.
#[test]
fn batch_owners_answer_as_scalar_one_key_calls_in_every_kernel() {
    use hrwhash::__kernel;
    let keys: Vec<String> = (0..200).map(|i| format!("user:{}", i * 7919)).collect();
    let kernels = __kernel::available();
    println!("kernels run: {kernels:?}");
    for n in [1usize, 2, 5, 7, 8, 9, 16, 17, 31, 100, 1000, 1001, 100_000] {
        let count = if n > 10_000 { 40 } else { keys.len() };
        let keys = &keys[..count];
        let base = hrwhash::Placement::new((0..n).map(|i| format!("node-{i}"))).unwrap();
        let scalar = __kernel::with(&base, "scalar").unwrap();
        let expected: Vec<usize> = keys.iter().map(|k| scalar.owner_index(k)).collect();
        for &name in &kernels {
            let p = __kernel::with(&base, name).unwrap();
            assert_eq!(__kernel::of(&p), name);
            let mut out = vec![usize::MAX; count];
            p.owners_into(keys, &mut out).unwrap();
            assert_eq!(out, expected, "{name} n={n}");
            assert_eq!(p.owners(keys), expected, "{name} n={n}");
            // k = 2 on one node writes one node per row, in rows of two.
            for k in [1usize, 2] {
                let mut rows = vec![usize::MAX; count * k];
                let per_key = p.rank_many_into(keys, k, &mut rows).unwrap();
                if per_key == 1 {
                    let firsts: Vec<usize> = rows.chunks_exact(k).map(|r| r[0]).collect();
                    assert_eq!(firsts, expected, "{name} n={n} k={k}");
                }
            }
        }
    }
}

/// `Diff::add_many` digests keys in blocks when both sides are hrw-v1 placements of one seed: its
/// counts are those of the keys added one at a time.
#[test]
fn diff_add_many_counts_as_add_does() {
    let old = hrwhash::Placement::new((0..7).map(|i| format!("node-{i}"))).unwrap();
    let new = hrwhash::Placement::new((2..11).map(|i| format!("node-{i}"))).unwrap();
    let t = hrwhash::Transition::new(&old, &new);
    for count in [0usize, 5, 64, 65, 1000] {
        let keys: Vec<String> = (0..count).map(|i| format!("key-{}", i * 7919)).collect();
        let mut batch = t.diff();
        batch.add_many(&keys);
        let mut one = t.diff();
        keys.iter().for_each(|k| one.add(k));
        assert_eq!(batch.keys(), count as u64);
        assert_eq!(
            (batch.moved(), batch.flows(), batch.nodes()),
            (one.moved(), one.flows(), one.nodes())
        );
    }
}
