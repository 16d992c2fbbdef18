//! Replica shares of replica-balance against the weights, on keys the solver never saw (the
//! solver sees no keys at all: the shares test its model of the lookup, second digest included).
//! The 10^6-key run is slow in debug builds: `make test-core` runs it in release with
//! `--include-ignored`.

use hrwhash::policy::ReplicaBalance;
use hrwhash::Placement;

const MAPS: [(&[f64], usize); 3] = [
    (&[3.0, 3.0, 3.0, 1.0], 3),
    (&[10.0, 10.0, 10.0, 10.0, 1.0], 3),
    (&[1.0, 2.0, 3.0, 4.0, 5.0], 2),
];

fn fleet(ws: &[f64]) -> Placement {
    Placement::weighted(ws.iter().enumerate().map(|(i, &w)| (format!("n{i}"), w))).unwrap()
}

fn shares(policy: &ReplicaBalance, keys: usize) -> Vec<f64> {
    let mut counts = vec![0usize; policy.placement().len()];
    let mut set = vec![0usize; policy.k()];
    for i in 0..keys {
        let n = policy.replicas_into(format!("key-{i}"), &mut set);
        assert_eq!(n, policy.k());
        for &node in &set[..n] {
            counts[node] += 1;
        }
    }
    counts.iter().map(|&c| c as f64 / keys as f64).collect()
}

/// Every node's share of replicas over `keys` keys is within four and a half standard deviations
/// of the key sample, sqrt((1 - q) / (q * keys)), of its target `k * w / S`.
fn shares_follow_weights(keys: usize) {
    for (ws, k) in MAPS {
        let total: f64 = ws.iter().sum();
        let got = shares(&ReplicaBalance::new(fleet(ws), k).unwrap(), keys);
        for (i, &w) in ws.iter().enumerate() {
            let target = k as f64 * w / total;
            let sd = ((1.0 - target) / (target * keys as f64)).sqrt();
            assert!(
                (got[i] / target - 1.0).abs() < 4.5 * sd,
                "{ws:?} k={k} node {i}: {} vs {target} (sd {sd})",
                got[i]
            );
        }
    }
}

#[test]
fn replica_shares_follow_weights() {
    shares_follow_weights(200_000);
}

#[test]
#[ignore = "release only: run by make test-core"]
fn replica_shares_follow_weights_within_one_percent() {
    // 10^6 keys: 4.5 standard deviations of a share of 0.2 are 0.9%.
    shares_follow_weights(1_000_000);
}

#[test]
fn plain_top_k_over_selects_the_smallest_node() {
    // The anomaly this policy removes: the smallest node is in more plain top-k sets than its
    // share, by far more than the noise of 200,000 keys.
    for (ws, k) in MAPS {
        let p = fleet(ws);
        let total: f64 = ws.iter().sum();
        let small = (0..ws.len())
            .min_by(|&a, &b| ws[a].total_cmp(&ws[b]))
            .unwrap();
        let keys = 200_000;
        let hits = (0..keys)
            .filter(|i| {
                p.rank(format!("key-{i}"), k)
                    .iter()
                    .any(|n| n.index() == small)
            })
            .count();
        let plain = hits as f64 / keys as f64;
        let target = k as f64 * ws[small] / total;
        assert!(
            plain / target > 1.1,
            "{ws:?}: plain top-k gives {plain} vs {target}"
        );
    }
}

#[test]
fn primaries_are_the_owners_and_sets_are_distinct() {
    let p =
        Placement::weighted([("a", 2.0), ("b", 0.0), ("c", 1.0), ("d", 2.0), ("e", 2.0)]).unwrap();
    let b = ReplicaBalance::new(p.clone(), 3).unwrap();
    for i in 0..5_000 {
        let key = format!("k{i}");
        let set = b.replicas(&key);
        assert_eq!(set[0], p.owner_index(&key));
        assert!(!set.contains(&1), "a draining node is never a replica");
        assert!(set[0] != set[1] && set[1] != set[2] && set[0] != set[2]);
        let mut two = [0usize; 2];
        assert_eq!(b.replicas_into(&key, &mut two), 2);
        assert_eq!(two, [set[0], set[1]]);
        let mut one = [0usize; 1];
        assert_eq!(b.replicas_into(&key, &mut one), 1);
        assert_eq!(one[0], set[0]);
        assert_eq!(b.replicas_into(&key, &mut []), 0);
    }
}
