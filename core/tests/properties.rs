//! Statistical and structural properties of hrw-v1 on large samples.
//!
//! The large-sample tests are `#[ignore]`d in debug builds only for speed; `make test-core` runs
//! them in release with `--include-ignored`.

use hrwhash::v1::{draw, key_digest, node_digest, score};
use hrwhash::{Node, Placement, Seed, Weight};

fn ids(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key-{i}")).collect()
}

/// Upper 0.999 quantile of the chi-square distribution: exact for small df, Wilson–Hilferty above.
fn chi2_critical_999(df: usize) -> f64 {
    match df {
        1 => 10.828,
        2 => 13.816,
        3 => 16.266,
        4 => 18.467,
        _ => {
            let d = df as f64;
            let z = 3.090_232;
            d * (1.0 - 2.0 / (9.0 * d) + z * (2.0 / (9.0 * d)).sqrt()).powi(3)
        }
    }
}

fn chi2(counts: &[u64], expected_share: &[f64]) -> f64 {
    let total: u64 = counts.iter().sum();
    counts
        .iter()
        .zip(expected_share)
        .map(|(&o, &p)| {
            let e = p * total as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

fn owner_counts(p: &Placement, keys: &[String]) -> Vec<u64> {
    let mut counts = vec![0u64; p.len()];
    for k in keys {
        counts[p.owner_index(k)] += 1;
    }
    counts
}

#[test]
fn adding_a_node_moves_only_keys_to_it_and_about_one_sixth() {
    let keys = keys(100_000);
    let five = Placement::new(ids("node-", 5)).unwrap();
    let six = five.with_node(Node::new("node-5")).unwrap();
    let mut moved = 0;
    for k in &keys {
        let (before, after) = (five.owner(k), six.owner(k));
        if before.id() != after.id() {
            assert_eq!(after.id(), b"node-5", "key {k} moved between old nodes");
            moved += 1;
        }
    }
    let pct = 100.0 * moved as f64 / keys.len() as f64;
    assert!((pct - 100.0 / 6.0).abs() <= 0.5, "moved {pct:.3}%");
}

#[test]
fn removing_a_node_moves_only_its_keys() {
    let keys = keys(100_000);
    let all = Placement::new(ids("node-", 10)).unwrap();
    let fewer = all.without_node("node-3").unwrap();
    for k in &keys {
        let before = all.owner(k);
        if before.id() != b"node-3" {
            assert_eq!(fewer.owner(k).id(), before.id(), "key {k} moved needlessly");
        } else {
            assert_ne!(fewer.owner(k).id(), b"node-3");
        }
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "large sample: run in release")]
fn owners_are_uniform_for_5_100_1000_nodes() {
    let keys = keys(1_000_000);
    for n in [5usize, 100, 1000] {
        let p = Placement::new(ids("node-", n)).unwrap();
        let counts = owner_counts(&p, &keys);
        let stat = chi2(&counts, &vec![1.0 / n as f64; n]);
        assert!(stat < chi2_critical_999(n - 1), "N={n}: chi2={stat:.1}");
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "large sample: run in release")]
fn keys_of_a_removed_node_spread_uniformly_over_the_survivors() {
    let keys = keys(1_000_000);
    let all = Placement::new(ids("node-", 100)).unwrap();
    let survivors = all.without_node("node-42").unwrap();
    let mut counts = vec![0u64; survivors.len()];
    for k in &keys {
        if all.owner(k).id() == b"node-42" {
            counts[survivors.owner_index(k)] += 1;
        }
    }
    let orphans: u64 = counts.iter().sum();
    assert!(orphans > 8_000, "{orphans} orphaned keys");
    let stat = chi2(&counts, &vec![1.0 / 99.0; 99]);
    assert!(stat < chi2_critical_999(98), "chi2={stat:.1}");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "large sample: run in release")]
fn every_node_pair_outranks_each_other_half_the_time() {
    let seed = Seed::DEFAULT;
    let nodes: Vec<u64> = ids("node-", 20)
        .iter()
        .map(|id| node_digest(&seed, id.as_bytes()))
        .collect();
    let mut wins = vec![[0u64; 20]; 20];
    let n_keys = 1_000_000;
    for k in keys(n_keys) {
        let kd = key_digest(&seed, k.as_bytes());
        let scores: Vec<u64> = nodes.iter().map(|&d| score(kd, d)).collect();
        for a in 0..20 {
            for b in 0..20 {
                if scores[a] > scores[b] {
                    wins[a][b] += 1;
                }
            }
        }
    }
    for (a, row) in wins.iter().enumerate() {
        for (b, &won) in row.iter().enumerate().skip(a + 1) {
            let f = won as f64 / n_keys as f64;
            assert!(
                (f - 0.5).abs() <= 0.005,
                "node-{a} beats node-{b} on {f:.4} of keys"
            );
        }
    }
}

fn assert_weighted_shares(weights: &[f64], keys: &[String], max_relative_error: Option<f64>) {
    let names = ids("w-", weights.len());
    let p = Placement::weighted(names.iter().zip(weights.iter().copied())).unwrap();
    let counts = owner_counts(&p, keys);
    let total: f64 = weights.iter().sum();
    let shares: Vec<f64> = weights.iter().map(|w| w / total).collect();
    let stat = chi2(&counts, &shares);
    assert!(
        stat < chi2_critical_999(weights.len() - 1),
        "weights {weights:?}: chi2={stat:.1}, counts {counts:?}"
    );
    if let Some(limit) = max_relative_error {
        for (i, (&c, &s)) in counts.iter().zip(&shares).enumerate() {
            let measured = c as f64 / keys.len() as f64;
            let err = (measured - s).abs() / s;
            assert!(
                err <= limit,
                "node {i}: share {measured:.5} vs {s:.5} ({err:.4} relative)"
            );
        }
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "large sample: run in release")]
fn weighted_shares_follow_the_weights() {
    let keys = keys(1_000_000);
    assert_weighted_shares(&[1.0, 2.0, 3.0, 4.0], &keys, Some(0.01));
    assert_weighted_shares(&[1.0, 100.0], &keys, None);
    let mut state = 0x5eed_u64;
    let random: Vec<f64> = (0..20)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            0.1 + 9.9 * ((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect();
    assert_weighted_shares(&random, &keys, None);
}

#[test]
fn changing_one_weight_moves_keys_only_to_or_from_that_node() {
    let keys = keys(50_000);
    let p = Placement::weighted(
        ids("n-", 8)
            .iter()
            .zip([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]),
    )
    .unwrap();
    for (id, w) in [("n-2", 6.0), ("n-5", 0.5), ("n-7", 0.0)] {
        let q = p.with_weight(id, Weight::new(w).unwrap()).unwrap();
        let mut moved = 0;
        for k in &keys {
            let (a, b) = (p.owner(k), q.owner(k));
            if a.id() != b.id() {
                moved += 1;
                assert!(
                    a.id() == id.as_bytes() || b.id() == id.as_bytes(),
                    "{k} moved between other nodes"
                );
            }
        }
        assert!(moved > 0);
    }
}

#[test]
fn equal_weights_give_exactly_the_unweighted_ranking() {
    let names = ids("node-", 37);
    let plain = Placement::new(&names).unwrap();
    for w in [0.25, 2.5, 1000.0] {
        let weighted = Placement::weighted(names.iter().map(|n| (n, w))).unwrap();
        for k in keys(3_000) {
            let a: Vec<usize> = plain.ranking(&k).map(|n| n.index()).collect();
            let b: Vec<usize> = weighted.ranking(&k).map(|n| n.index()).collect();
            assert_eq!(a, b);
            assert_eq!(plain.owner_index(&k), weighted.owner_index(&k));
        }
    }
}

/// The ranking order of SPEC.md section 5.3, written out directly as the test's oracle.
fn oracle_ranking(p: &Placement, key: &[u8]) -> Vec<usize> {
    let kd = key_digest(&p.seed(), key);
    let mut nodes: Vec<(usize, u64, u64, &[u8])> = p
        .node_specs()
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.weight().is_zero())
        .map(|(i, n)| {
            (
                i,
                score(kd, node_digest(&p.seed(), n.id())),
                n.weight().to_fixed(),
                n.id(),
            )
        })
        .collect();
    nodes.sort_by(|a, b| {
        let lhs = draw(a.1) as u128 * b.2 as u128;
        let rhs = draw(b.1) as u128 * a.2 as u128;
        lhs.cmp(&rhs).then(b.1.cmp(&a.1)).then(a.3.cmp(b.3))
    });
    nodes.into_iter().map(|n| n.0).collect()
}

#[test]
fn every_lookup_path_agrees_with_the_spec_order() {
    let mut state = 99u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 20
    };
    for round in 0..60 {
        let n = 1 + (next() % 300) as usize;
        let distinct = [1u64, 2, 3, 8, 9, 40, 1000][round % 7];
        let nodes: Vec<Node> = (0..n)
            .map(|i| {
                let w = match next() % 10 {
                    0 if round % 3 == 0 => 0.0,
                    _ => (1 + next() % distinct) as f64 * 0.5,
                };
                Node::new(format!("id-{}-{i}", next() % 7)).with_weight(Weight::new(w).unwrap())
            })
            .collect();
        let Ok(p) = Placement::from_nodes(Seed::DEFAULT, nodes) else {
            continue;
        };
        for j in 0..20 {
            let key = format!("k{round}-{j}");
            let expected = oracle_ranking(&p, key.as_bytes());
            let full: Vec<usize> = p.ranking(&key).map(|n| n.index()).collect();
            assert_eq!(full, expected);
            assert_eq!(p.owner_index(&key), expected[0]);
            for k in [2usize, 3, 5, 17, n, n + 3] {
                let mut out = vec![usize::MAX; k];
                let got = p.rank_into(&key, &mut out);
                assert_eq!(got, k.min(expected.len()));
                assert_eq!(
                    &out[..got],
                    &expected[..got],
                    "n={n} k={k} distinct={distinct}"
                );
            }
        }
    }
}

#[test]
fn small_weighted_placements_agree_with_the_spec_order() {
    // A few nodes of a few weights (the estimated search, with its exact fallback), weights
    // that differ by one fixed-point unit, and spreads too wide for the estimates.
    let patterns: [&[f64]; 7] = [
        &[1.0, 2.0, 3.0, 4.0, 1.0],
        &[1.0, 2.0],
        &[1.0, 1.0 + 1.0 / 4_294_967_296.0, 1.0],
        &[0.5, 0.0, 8.0, 8.0, 0.25, 3.0, 2.0, 1.0],
        &[1.0, 2000.0, 3.0],
        &[1e-9, 1e-9, 2e-9],
        &[1e9, 3e9, 2e9, 4e9, 1e9, 1.5e9],
    ];
    for (round, weights) in patterns.iter().enumerate() {
        for n in [weights.len(), 2 * weights.len(), 5 * weights.len()] {
            let nodes: Vec<Node> = (0..n)
                .map(|i| {
                    let w = Weight::new(weights[i % weights.len()]).unwrap();
                    Node::new(format!("small-{round}-{i}")).with_weight(w)
                })
                .collect();
            let p = Placement::from_nodes(Seed::DEFAULT, nodes).unwrap();
            for k in keys(400) {
                let expected = oracle_ranking(&p, k.as_bytes());
                assert_eq!(p.owner_index(&k), expected[0], "{weights:?} n={n} {k}");
                assert_eq!(p.rank(&k, 1)[0].index(), expected[0]);
            }
        }
    }
}

#[test]
fn draining_nodes_are_never_selected_and_removing_them_moves_nothing() {
    let p = Placement::weighted([("a", 1.0), ("b", 0.0), ("c", 2.0), ("d", 0.0)]).unwrap();
    let q = p.without_node("b").unwrap().without_node("d").unwrap();
    for k in keys(20_000) {
        let owner = p.owner(&k);
        assert!(owner.id() == b"a" || owner.id() == b"c");
        assert_eq!(owner.id(), q.owner(&k).id());
        let ranked: Vec<&[u8]> = p.rank(&k, 4).iter().map(|n| n.id()).collect();
        assert_eq!(ranked.len(), 2);
    }
}

#[test]
fn replicas_use_distinct_domains_while_there_are_enough() {
    let nodes: Vec<Node> = (0..12)
        .map(|i| Node::new(format!("n{i}")).with_domain(format!("zone-{}", i % 3)))
        .collect();
    let p = Placement::from_nodes(Seed::DEFAULT, nodes).unwrap();
    for k in keys(5_000) {
        let three = p.replicas(&k, 3);
        let mut zones: Vec<&[u8]> = three.iter().map(|n| n.domain().unwrap()).collect();
        zones.sort();
        zones.dedup();
        assert_eq!(zones.len(), 3);
        assert_eq!(three[0], p.owner(&k));
        let five = p.replicas(&k, 5);
        assert_eq!(&five[..3], &three[..]);
        let mut ids: Vec<usize> = five.iter().map(|n| n.index()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 5);
    }
}

#[test]
fn keys_are_bytes_and_text_is_utf8() {
    let p = Placement::new(["α", "β", "γ"]).unwrap();
    for k in ["", "\0", "é", "🐙", "a\0b"] {
        assert_eq!(p.owner(k), p.owner(k.as_bytes()));
    }
    let long = vec![0xffu8; 70_000];
    assert_eq!(p.owner(&long), p.owner(long.clone()));
}

#[test]
fn placements_are_send_sync_and_agree_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Placement>();
    let p = Placement::new(ids("node-", 100)).unwrap();
    let expected: Vec<usize> = keys(2_000).iter().map(|k| p.owner_index(k)).collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let p = p.clone();
            let expected = &expected;
            s.spawn(move || {
                let got: Vec<usize> = keys(2_000).iter().map(|k| p.owner_index(k)).collect();
                assert_eq!(&got, expected);
            });
        }
    });
}

#[test]
fn equal_scores_are_ordered_by_id_in_every_path() {
    // Same node digest under the default seed, so equal scores for every key.
    let (hi, lo) = ("tie-f8de3fcc2f7f5a0f", "tie-2726c02dc96aa050");
    let seed = Seed::DEFAULT;
    assert_eq!(
        node_digest(&seed, hi.as_bytes()),
        node_digest(&seed, lo.as_bytes())
    );
    let others = ids("other-", 30);
    let mut names = vec![hi.to_string()];
    names.extend(others.iter().cloned());
    names.push(lo.to_string());
    let plain = Placement::new(&names).unwrap();
    let grouped = Placement::weighted(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n, [2.0, 1.0][i % 2])),
    )
    .unwrap();
    let distinct = Placement::weighted(names.iter().enumerate().map(|(i, n)| {
        let w = if n.starts_with("tie-") {
            7.5
        } else {
            1.0 + i as f64 / 64.0
        };
        (n, w)
    }))
    .unwrap();
    for p in [&plain, &grouped, &distinct] {
        for k in keys(2_000) {
            let order: Vec<&[u8]> = p.ranking(&k).map(|n| n.id()).collect();
            let pos = |id: &str| order.iter().position(|&x| x == id.as_bytes());
            if p.node(0).unwrap().weight() == p.node(names.len() - 1).unwrap().weight() {
                assert!(pos(lo) < pos(hi), "{k}: the smaller id must rank first");
            }
            assert_eq!(p.owner(&k).id(), order[0]);
            let top: Vec<&[u8]> = p.rank(&k, 3).iter().map(|n| n.id()).collect();
            assert_eq!(&top[..], &order[..3]);
        }
    }
}
