//! Replicas across failure domains (SPEC.md section 6) against a transcription of the section
//! over the whole ranking, on generated memberships where a few domains hold most nodes: the
//! lookup reads only a prefix of the ranking when that decides the answer.

use hrwhash::{Node, Placement, Seed, Weight};
use proptest::prelude::*;

const WEIGHTS: [f64; 6] = [0.0, 0.5, 1.0, 1.0, 2.0, 7.25];

/// SPEC.md section 6, word for word, over `ranking`.
fn spec_replicas(p: &Placement, key: &str, k: usize) -> Vec<usize> {
    let order: Vec<usize> = p.ranking(key).map(|n| n.index()).collect();
    let want = k.min(order.len());
    let mut out: Vec<usize> = Vec::new();
    for &i in &order {
        if out.len() == want {
            break;
        }
        let d = p.node(i).unwrap().domain();
        if d.is_none() || out.iter().all(|&o| p.node(o).unwrap().domain() != d) {
            out.push(i);
        }
    }
    for &i in &order {
        if out.len() == want {
            break;
        }
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// Up to 200 nodes; each has a weight, and a domain among `domains` or none.
fn membership() -> impl Strategy<Value = Placement> {
    (1usize..7, any::<bool>()).prop_flat_map(|(domains, secret)| {
        proptest::collection::vec(
            (
                0..WEIGHTS.len(),
                proptest::option::weighted(0.9, 0..domains),
            ),
            1..200,
        )
        .prop_filter_map("a node of positive weight", move |nodes| {
            let nodes = nodes.iter().enumerate().map(|(i, &(w, d))| {
                let node = Node::new(format!("n{i}")).with_weight(Weight::new(WEIGHTS[w]).unwrap());
                match d {
                    Some(d) => node.with_domain(format!("zone-{d}")),
                    None => node,
                }
            });
            let seed = if secret {
                Seed::from_bytes([7; 16])
            } else {
                Seed::DEFAULT
            };
            Placement::from_nodes(seed, nodes).ok()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn replicas_are_section_6_over_the_whole_ranking(p in membership(), k in 0usize..20) {
        for i in 0..40 {
            let key = format!("key-{i}");
            let got: Vec<usize> = p.replicas(&key, k).iter().map(|n| n.index()).collect();
            prop_assert_eq!(&got, &spec_replicas(&p, &key, k), "key {} k {}", key, k);
            let mut out = vec![usize::MAX; k];
            let n = p.replicas_into(&key, &mut out);
            prop_assert_eq!(&out[..n], &got[..]);
        }
    }
}
