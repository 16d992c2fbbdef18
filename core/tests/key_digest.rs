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
