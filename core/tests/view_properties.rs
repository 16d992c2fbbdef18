//! Properties of views, transitions and ramps on many generated memberships.
// Views, ramps and slot histories are the `json` feature's.
#![cfg(feature = "json")]

use hrwhash::transition::Transition;
use hrwhash::{Error, Node, Placement, RampPlan, Seed, View, Weight};

/// Deterministic input stream (SplitMix64).
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn weight(&mut self) -> Weight {
        let choices = [0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 0.1, 7.25];
        Weight::new(choices[self.below(choices.len() as u64) as usize]).unwrap()
    }
}

/// A membership over ids drawn from `pool`, each present with probability 3/4.
fn membership(s: &mut Stream, pool: usize, seed: Seed) -> Placement {
    loop {
        let mut nodes = Vec::new();
        for i in 0..pool {
            if s.below(4) == 0 {
                continue;
            }
            let mut n = Node::new(format!("n{i}")).with_weight(s.weight());
            if s.below(2) == 0 {
                n = n.with_domain(format!("r{}", s.below(3)));
            }
            nodes.push(n);
        }
        if let Ok(p) = Placement::from_nodes(seed, nodes) {
            return p;
        }
    }
}

fn keys(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("key-{i}"))
}

#[test]
fn ramps_respect_their_limit_and_end_at_the_target() {
    let mut s = Stream(1);
    const SAMPLE: usize = 8_000;
    for round in 0..12 {
        let old = View::new(membership(&mut s, 6, Seed::DEFAULT), round).unwrap();
        let new = View::new(membership(&mut s, 6, Seed::DEFAULT), round + 100).unwrap();
        let limit = [0.05, 0.1, 0.2, 0.5][round as usize % 4];
        let plan = RampPlan::new(&old, &new, limit).unwrap();
        if old.fingerprint() == new.fingerprint() {
            assert!(plan.steps().is_empty());
            continue;
        }
        let mut prev = old.clone();
        let mut total = 0.0;
        for (i, step) in plan.steps().iter().enumerate() {
            assert!(
                step.moved <= limit,
                "round {round} step {i}: {}",
                step.moved
            );
            assert_eq!(step.epoch, old.epoch() + i as u64 + 1);
            let view = plan.view(i).unwrap();
            let t = Transition::new(&prev, &view);
            if step.removes_drained {
                // Removing nodes of weight 0 moves nothing; the formula's rounding may say 1e-16.
                assert_eq!(step.moved, 0.0);
                assert!(t.expected_moved() < 1e-12);
            } else {
                assert_eq!(t.expected_moved(), step.moved);
            }
            // The reported movement is what a key sample measures, within its statistical error.
            let mut diff = t.diff();
            diff.add_many(keys(SAMPLE));
            let measured = diff.moved() as f64 / SAMPLE as f64;
            let sigma = (step.moved * (1.0 - step.moved) / SAMPLE as f64).sqrt();
            assert!(
                (measured - step.moved).abs() <= 5.0 * sigma + 1e-4,
                "round {round} step {i}: measured {measured}, computed {}",
                step.moved
            );
            total += step.moved;
            prev = view;
        }
        assert_eq!(prev.fingerprint(), new.fingerprint(), "round {round}");
        assert!((plan.total_moved() - total).abs() < 1e-12);
        assert!(plan.total_moved() >= plan.direct_moved() - 1e-9);
        assert!(plan.direct_moved() >= plan.optimum() - 1e-9);
    }
}

#[test]
fn routes_agree_with_owners_and_flows_sum_to_moved() {
    let mut s = Stream(2);
    for round in 0..20 {
        let seed = if round % 5 == 4 {
            Seed::from_bytes([round as u8; 16])
        } else {
            Seed::DEFAULT
        };
        let old = membership(&mut s, 8, Seed::DEFAULT);
        let new = membership(&mut s, 8, seed);
        let t = Transition::new(&old, &new);
        let mut diff = t.diff();
        for key in keys(3000) {
            let r = t.route(&key);
            assert_eq!(r.old_index, old.owner_index(&key));
            assert_eq!(r.new_index, new.owner_index(&key));
            assert_eq!(r.moved, old.owner(&key).id() != new.owner(&key).id());
            // Replica routes are each side's replicas (domain-aware), as the sets are stored.
            let set = t.route_top(&key, 3);
            assert_eq!(
                set.before,
                old.replicas(&key, 3)
                    .iter()
                    .map(|n| n.index())
                    .collect::<Vec<_>>()
            );
            assert_eq!(
                set.after,
                new.replicas(&key, 3)
                    .iter()
                    .map(|n| n.index())
                    .collect::<Vec<_>>()
            );
            diff.add(&key);
        }
        let flows = diff.flows();
        assert_eq!(flows.iter().map(|f| f.2).sum::<u64>(), diff.moved());
        let nodes = diff.nodes();
        assert_eq!(nodes.iter().map(|n| n.before).sum::<u64>(), diff.keys());
        assert_eq!(nodes.iter().map(|n| n.after).sum::<u64>(), diff.keys());
        let planned: Vec<_> = t.plan(keys(3000)).collect();
        assert_eq!(planned.len() as u64, diff.moved());
        // Expected movement against the measured one (3 sigma plus the draw error is generous).
        let m = t.expected_moved();
        let measured = diff.moved() as f64 / 3000.0;
        assert!((measured - m).abs() <= 5.0 * (m * (1.0 - m) / 3000.0).sqrt() + 1e-3);
        assert!(m >= t.optimum() - 1e-9, "round {round}");
    }
}

#[test]
fn views_round_trip_every_membership() {
    let mut s = Stream(3);
    for round in 0..200 {
        let n = 1 + s.below(6) as usize;
        let nodes: Vec<Node> = (0..n)
            .map(|i| {
                let len = 1 + s.below(5) as usize;
                let mut id: Vec<u8> = (0..len).map(|_| s.next() as u8).collect();
                id.push(i as u8); // distinct
                let mut node =
                    Node::new(id).with_weight(Weight::from_fixed(s.next() >> s.below(64)));
                if s.below(3) == 0 {
                    node = node
                        .with_domain((0..s.below(3)).map(|_| s.next() as u8).collect::<Vec<_>>());
                }
                node
            })
            .collect();
        let Ok(p) = Placement::from_nodes(Seed::from_bytes([round as u8; 16]), nodes) else {
            continue;
        };
        match View::new(p.clone(), s.next()) {
            Ok(view) => {
                let text = view.to_json();
                let back = View::from_json_with_seed(&text, p.seed()).unwrap();
                assert_eq!(back.to_json(), text);
                assert_eq!(back.fingerprint(), view.fingerprint());
                assert_eq!(back.placement().node_specs().len(), p.len());
                for n in p.node_specs() {
                    let found = back.placement().find(n.id()).unwrap();
                    assert_eq!(found.weight(), n.weight());
                    assert_eq!(found.domain(), n.domain());
                }
            }
            Err(Error::InvalidView {
                field,
                index: Some(i),
                ..
            }) => {
                assert_eq!(field, "weight");
                let w = p.node_specs()[i].weight().to_fixed();
                assert!(64 - w.leading_zeros() - w.trailing_zeros() > 53);
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn mangled_documents_are_errors_not_panics() {
    let mut s = Stream(4);
    let base = View::new(membership(&mut s, 5, Seed::DEFAULT), 3)
        .unwrap()
        .to_json()
        .into_bytes();
    for _ in 0..3000 {
        let mut doc = base.clone();
        for _ in 0..1 + s.below(4) {
            let at = s.below(doc.len() as u64) as usize;
            match s.below(3) {
                0 => doc[at] = s.next() as u8,
                1 => {
                    doc.remove(at);
                }
                _ => doc.insert(at, b"{}[]\",:0e-\\"[s.below(11) as usize]),
            }
        }
        if let Ok(v) = View::from_json_bytes(&doc, Seed::DEFAULT) {
            // Whatever loads writes a canonical form that loads to the same view.
            let again = View::from_json(&v.to_json()).unwrap();
            assert_eq!(again.fingerprint(), v.fingerprint());
        }
    }
}
