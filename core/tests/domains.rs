//! The domains-v1 policy (POLICIES.md, "domains (v1)"): spreading, movement, shares and every bad
//! input. The cases of policies/domains.json are in `domains_vectors.rs`.

use std::collections::{HashMap, HashSet};

use hrwhash::policy::Domains;
use hrwhash::Fault;
use hrwhash::{Error, Node, Placement, Weight};

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key-{i}")).collect()
}

/// `zones` x `racks` x `hosts`, node `i` with weight `weight(i)`.
fn fleet(zones: usize, racks: usize, hosts: usize, weight: impl Fn(usize) -> f64) -> Vec<Node> {
    let mut out = Vec::new();
    for z in 0..zones {
        for r in 0..racks {
            for h in 0..hosts {
                let i = out.len();
                out.push(
                    Node::new(format!("n{i}"))
                        .with_weight(Weight::new(weight(i)).unwrap())
                        .with_domain(format!("z{z}/r{r}/h{h}")),
                );
            }
        }
    }
    out
}

fn domains(nodes: Vec<Node>, level: usize) -> Domains {
    Domains::new(
        &Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).unwrap(),
        level,
    )
    .unwrap()
}

#[test]
fn no_two_replicas_share_a_domain_while_enough_exist() {
    // Uneven trees: zones of 1 to 3 racks of 1 to 4 hosts, some draining.
    let mut nodes = Vec::new();
    for z in 0..3 {
        for r in 0..=z {
            for h in 0..(1 + (z + r) % 4) {
                let i = nodes.len();
                let w = [1.0, 2.5, 0.0, 0.75][i % 4];
                nodes.push(
                    Node::new(format!("n{i}"))
                        .with_weight(Weight::new(w).unwrap())
                        .with_domain(format!("z{z}/r{r}/h{h}")),
                );
            }
        }
    }
    for level in 0..3 {
        let d = domains(nodes.clone(), level);
        let m = d.domain_count();
        let s = d.placement().selectable_len();
        for key in keys(500) {
            let full = d.replica_indices(&key, s).unwrap();
            assert_eq!(full[0], d.owner_index(&key));
            let distinct: HashSet<&[u8]> =
                full[..m].iter().map(|&i| d.domain_of(i).unwrap()).collect();
            assert_eq!(distinct.len(), m, "level {level} key {key}");
            // Every node once, none draining.
            let set: HashSet<usize> = full.iter().copied().collect();
            assert_eq!(set.len(), s);
            assert!(full.iter().all(|&i| !nodes[i].weight().is_zero()));
            for k in 1..s {
                assert_eq!(d.replica_indices(&key, k).unwrap(), full[..k]);
            }
        }
    }
}

#[test]
fn with_fewer_domains_than_k_each_domain_gives_one_per_round() {
    let nodes: Vec<Node> = (0..7)
        .map(|i| Node::new(format!("n{i}")).with_domain(if i < 4 { "left" } else { "right" }))
        .collect();
    let d = domains(nodes, 0);
    for key in keys(300) {
        let r = d.replica_indices(&key, 7).unwrap();
        let side = |i: usize| i < 4;
        // Alternating sides until the right side (3 nodes) runs out.
        for j in 1..6 {
            assert_ne!(side(r[j]), side(r[j - 1]), "{key}: {r:?}");
        }
        assert!(side(r[6]));
    }
}

#[test]
fn removing_a_rack_moves_exactly_the_keys_with_a_replica_there() {
    let nodes = fleet(3, 4, 3, |i| [1.0, 2.0, 0.5][i % 3]);
    let removed: &[u8] = b"z1/r2";
    let rest: Vec<Node> = nodes
        .iter()
        .filter(|n| !n.domain().unwrap().starts_with(b"z1/r2/"))
        .cloned()
        .collect();
    let id = |ns: &[Node], i: usize| ns[i].id().to_vec();
    for (level, k) in [(1, 1), (1, 3), (1, 12), (2, 2)] {
        let before = domains(nodes.clone(), level);
        let after = domains(rest.clone(), level);
        let (mut moved, mut touched) = (0, 0);
        for key in keys(10_000) {
            let a: Vec<Vec<u8>> = before
                .replica_indices(&key, k)
                .unwrap()
                .into_iter()
                .map(|i| id(&nodes, i))
                .collect();
            let b: Vec<Vec<u8>> = after
                .replica_indices(&key, k)
                .unwrap()
                .into_iter()
                .map(|i| id(&rest, i))
                .collect();
            let had = before
                .replica_indices(&key, k)
                .unwrap()
                .iter()
                .any(|&i| nodes[i].domain().unwrap().starts_with(removed));
            assert_eq!(a != b, had, "level {level} k {k} key {key}");
            moved += (a != b) as usize;
            touched += had as usize;
        }
        assert_eq!(moved, touched);
        assert!(moved > 0);
    }
}

#[test]
fn owner_shares_stay_within_one_percent_of_the_weights() {
    // Zones of unequal size and weight: 2, 3 and 4 racks, node weights 1 to 4.
    let mut nodes = Vec::new();
    for (z, racks) in [(0, 2), (1, 3), (2, 4)] {
        for r in 0..racks {
            for h in 0..3 {
                let i = nodes.len();
                nodes.push(
                    Node::new(format!("n{i}"))
                        .with_weight(Weight::new(1.0 + (i % 4) as f64).unwrap())
                        .with_domain(format!("z{z}/r{r}/h{h}")),
                );
            }
        }
    }
    let total: f64 = nodes.iter().map(|n| n.weight().to_f64()).sum();
    let n_keys = 300_000;
    for level in [0, 1, 2] {
        let d = domains(nodes.clone(), level);
        let mut per_zone: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut per_node = vec![0usize; nodes.len()];
        for key in keys(n_keys) {
            let o = d.owner_index(&key);
            per_node[o] += 1;
            *per_zone
                .entry(nodes[o].domain().unwrap()[..2].to_vec())
                .or_default() += 1;
        }
        for (zone, &count) in &per_zone {
            let want: f64 = nodes
                .iter()
                .filter(|n| n.domain().unwrap().starts_with(zone))
                .map(|n| n.weight().to_f64())
                .sum::<f64>()
                / total;
            let got = count as f64 / n_keys as f64;
            assert!(
                (got / want - 1.0).abs() < 0.01,
                "level {level} zone {:?}: {got} vs {want}",
                String::from_utf8_lossy(zone)
            );
        }
        // Nodes own about 1/27 each: within one percentage point.
        for (i, &count) in per_node.iter().enumerate() {
            let want = nodes[i].weight().to_f64() / total;
            let got = count as f64 / n_keys as f64;
            assert!((got - want).abs() < 0.01, "level {level} node {i}");
        }
    }
}

#[test]
fn answers_do_not_depend_on_the_order_nodes_are_listed_in() {
    let nodes = fleet(2, 3, 2, |i| 1.0 + (i % 3) as f64);
    let mut shuffled = nodes.clone();
    shuffled.reverse();
    shuffled.swap(0, 5);
    for level in 0..3 {
        let (a, b) = (
            domains(nodes.clone(), level),
            domains(shuffled.clone(), level),
        );
        for key in keys(300) {
            let ids = |d: &Domains, ns: &[Node]| -> Vec<Vec<u8>> {
                d.replica_indices(&key, 6)
                    .unwrap()
                    .into_iter()
                    .map(|i| ns[i].id().to_vec())
                    .collect()
            };
            assert_eq!(ids(&a, &nodes), ids(&b, &shuffled));
        }
    }
}

fn build(nodes: Vec<Node>, level: usize) -> Result<Domains, Error> {
    Domains::new(
        &Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes)?,
        level,
    )
}

fn at(nodes: &[&str]) -> Vec<Node> {
    nodes
        .iter()
        .enumerate()
        .map(|(i, d)| Node::new(format!("n{i}")).with_domain(d))
        .collect()
}

#[test]
fn every_bad_path_is_a_typed_error() {
    let err = |index, reason| Err::<(), Error>(Error::InvalidDomains { index, reason });
    let check = |nodes: Vec<Node>, level, want: Result<(), Error>| {
        assert_eq!(build(nodes, level).map(|_| ()), want);
    };
    let mut missing = at(&["a/b", "a/c", "b/c"]);
    missing[1] = Node::new("n1");
    check(missing, 0, err(Some(1), Fault::Missing));
    for (bad, i) in [("", 0), ("/b", 1), ("a/", 2), ("a//b", 1)] {
        let mut paths = vec!["a/b", "a/c", "b/c"];
        paths[i] = bad;
        check(at(&paths), 0, err(Some(i), Fault::EmptyLevel));
    }
    check(
        at(&["a/b", "a", "b/c"]),
        0,
        err(Some(1), Fault::DepthMismatch),
    );
    check(at(&["a/b", "a/b/c"]), 0, err(Some(1), Fault::DepthMismatch));
    check(at(&["a/b", "a/c"]), 2, err(None, Fault::LevelOutOfRange));
    check(at(&["a/b"]), usize::MAX, err(None, Fault::LevelOutOfRange));
    // Earlier checks cover every node first.
    let mut v = at(&["a", "a//b", "a/b"]);
    v[2] = Node::new("n2");
    check(v, 0, err(Some(2), Fault::Missing));
    check(
        at(&["a/b", "a", "b//c"]),
        0,
        err(Some(2), Fault::EmptyLevel),
    );
    let heavy: Vec<Node> = (0..3)
        .map(|i| {
            Node::new(format!("n{i}"))
                .with_weight(Weight::new(2_000_000_000.0).unwrap())
                .with_domain("a")
        })
        .collect();
    check(heavy.clone(), 0, err(Some(2), Fault::WeightOverflow));
    check(heavy[..2].to_vec(), 0, Ok(()));
    // A draining node needs a path too.
    let mut drained = at(&["a", "b"]);
    drained[1] = Node::new("n1").with_weight(Weight::ZERO);
    check(drained, 0, err(Some(1), Fault::Missing));
}

#[test]
fn a_replica_count_of_zero_or_above_the_selectable_nodes_is_a_typed_error() {
    let mut nodes = at(&["a", "a", "b", "c"]);
    nodes[3] = nodes[3].clone().with_weight(Weight::ZERO);
    let d = build(nodes, 0).unwrap();
    for k in [0, 4, 5, usize::MAX] {
        assert_eq!(
            d.replica_indices("key", k),
            Err(Error::InvalidReplicaCount {
                requested: k,
                available: 3
            })
        );
        assert!(d.replicas("key", k).is_err());
        assert!(d.replicas_into("key", &mut vec![0; k.min(9)]).is_err() || k > 9);
    }
    assert_eq!(d.replica_indices("key", 3).unwrap().len(), 3);
    let mut out = [usize::MAX; 2];
    d.replicas_into("key", &mut out).unwrap();
    assert_eq!(out.to_vec(), d.replica_indices("key", 2).unwrap());
    // A domain whose nodes all drain takes no part.
    assert_eq!(d.domain_count(), 2);
}

#[test]
fn error_messages_name_the_node_and_the_fault() {
    let e = build(at(&["a/b", "a"]), 0).err().unwrap();
    assert_eq!(
        e.to_string(),
        "domains: node 1 has a domain path with another number of levels than the first node's"
    );
    let e = build(at(&["a"]), 3).err().unwrap();
    assert!(e.to_string().contains("spread level"), "{e}");
}
