//! Replica shares of replica-balance-v2 against the weights, on keys the solver never saw (the
//! solver sees no keys at all: the shares test its model of the lookup, second digest included).

use hrwhash::policy::ReplicaBalanceV2;
use hrwhash::Placement;

const KEYS: usize = 200_000;

fn shares(policy: &ReplicaBalanceV2) -> Vec<f64> {
    let mut counts = vec![0usize; policy.placement().len()];
    let mut set = vec![0usize; policy.k()];
    for i in 0..KEYS {
        let n = policy.replicas_into(format!("key-{i}"), &mut set);
        assert_eq!(n, policy.k());
        for &node in &set[..n] {
            counts[node] += 1;
        }
    }
    counts.iter().map(|&c| c as f64 / KEYS as f64).collect()
}

#[test]
fn replica_shares_follow_weights() {
    for (ws, k) in [
        (&[3.0, 3.0, 3.0, 1.0][..], 3usize),
        (&[10.0, 10.0, 10.0, 10.0, 1.0][..], 3),
        (&[1.0, 2.0, 3.0, 4.0, 5.0][..], 2),
    ] {
        let p =
            Placement::weighted(ws.iter().enumerate().map(|(i, &w)| (format!("n{i}"), w))).unwrap();
        let total: f64 = ws.iter().sum();
        let got = shares(&ReplicaBalanceV2::new(p, k).unwrap());
        for (i, &w) in ws.iter().enumerate() {
            let target = k as f64 * w / total;
            // Four and a half standard deviations of the key sample: sqrt((1 - q) / (q * KEYS)).
            let sd = ((1.0 - target) / (target * KEYS as f64)).sqrt();
            assert!(
                (got[i] / target - 1.0).abs() < 4.5 * sd,
                "{ws:?} k={k} node {i}: {} vs {target} (sd {sd})",
                got[i]
            );
        }
    }
}

#[test]
fn primaries_are_the_owners_and_sets_are_distinct() {
    let p =
        Placement::weighted([("a", 2.0), ("b", 0.0), ("c", 1.0), ("d", 2.0), ("e", 2.0)]).unwrap();
    let b = ReplicaBalanceV2::new(p.clone(), 3).unwrap();
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
