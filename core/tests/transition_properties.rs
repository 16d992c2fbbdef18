//! Properties of transitions and ramps over generated memberships (proptest): what a transition
//! says about a key is what the two placements say, what it counts over keys is the sum of what
//! it says per key, and a ramp keeps its limit and arrives at the target.
// Views, ramps and slot histories are the `json` feature's.
#![cfg(feature = "json")]

use std::collections::{BTreeMap, BTreeSet};

use hrwhash::transition::{RouteSet, Transition};
use hrwhash::{Node, Placement, RampPlan, Seed, View, Weight};
use proptest::prelude::*;

/// Weights a fleet really uses, 0 (drained) included.
const WEIGHTS: [f64; 8] = [0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 0.1, 7.25];

/// One node of a pool of 8 ids: absent, or present with a weight and maybe one of 3 domains.
type Slot = Option<(usize, Option<u8>)>;

/// A membership over the ids `n0`..`n7`; `None` when it has no node of positive weight.
fn placement(slots: &[Slot], seed: Seed) -> Option<Placement> {
    let nodes = slots.iter().enumerate().filter_map(|(i, slot)| {
        slot.map(|(w, domain)| {
            let node = Node::new(format!("n{i}")).with_weight(Weight::new(WEIGHTS[w]).unwrap());
            match domain {
                Some(d) => node.with_domain(format!("r{d}")),
                None => node,
            }
        })
    });
    Placement::from_nodes(seed, nodes).ok()
}

fn slots() -> impl Strategy<Value = Vec<Slot>> {
    proptest::collection::vec(
        proptest::option::weighted(0.75, (0..WEIGHTS.len(), proptest::option::of(0u8..3))),
        8,
    )
}

/// Two memberships of one seed (or, for a quarter of the cases, of two seeds).
fn two_memberships() -> impl Strategy<Value = (Placement, Placement)> {
    (slots(), slots(), any::<[u8; 16]>(), 0..4u8).prop_filter_map(
        "a membership needs a node of positive weight",
        |(a, b, secret, mix)| {
            let new_seed = if mix == 0 {
                Seed::from_bytes(secret)
            } else {
                Seed::DEFAULT
            };
            Some((placement(&a, Seed::DEFAULT)?, placement(&b, new_seed)?))
        },
    )
}

fn keys(n: usize) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("key-{i}"))
}

fn ids(p: &Placement, indices: &[usize]) -> Vec<Vec<u8>> {
    indices
        .iter()
        .map(|&i| p.node(i).unwrap().id().to_vec())
        .collect()
}

fn rank(p: &Placement, key: &str, k: usize) -> Vec<usize> {
    p.rank(key, k).iter().map(|n| n.index()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn route_agrees_with_owner_on_both_views((old, new) in two_memberships(), epoch in 0u64..1000) {
        // Through views, as clients load them: the document changes nothing about owners.
        let old_view = View::from_json_with_seed(&View::new(old.clone(), epoch).unwrap().to_json(), old.seed()).unwrap();
        let new_view = View::from_json_with_seed(&View::new(new.clone(), epoch + 1).unwrap().to_json(), new.seed()).unwrap();
        let t = Transition::new(&old_view, &new_view);
        for key in keys(300) {
            let r = t.route(&key);
            let (a, b) = (old_view.placement().owner(&key), new_view.placement().owner(&key));
            prop_assert_eq!(r.old_index, old_view.placement().owner_index(&key));
            prop_assert_eq!(r.new_index, new_view.placement().owner_index(&key));
            prop_assert_eq!(a.id(), old.owner(&key).id());
            prop_assert_eq!(b.id(), new.owner(&key).id());
            prop_assert_eq!(r.moved, a.id() != b.id());
        }
    }

    #[test]
    fn route_top_agrees_with_rankings_and_replicas((old, new) in two_memberships(), k in 0usize..6) {
        let t = Transition::new(&old, &new);
        let no_domains = |p: &Placement| p.node_specs().iter().all(|n| n.domain().is_none());
        let replicas = |p: &Placement, key: &str| -> Vec<usize> {
            p.replicas(key, k).iter().map(|n| n.index()).collect()
        };
        for key in keys(200) {
            let s = t.route_top(&key, k);
            // Each side's replica set is the one it stores: replicas(), spread over domains.
            prop_assert_eq!(&s.before, &replicas(&old, &key));
            prop_assert_eq!(&s.after, &replicas(&new, &key));
            // Without named domains every node is its own domain, so replicas are the ranking.
            if no_domains(&old) {
                prop_assert_eq!(&s.before, &rank(&old, &key, k));
            }
            if no_domains(&new) {
                prop_assert_eq!(&s.after, &rank(&new, &key, k));
            }
            let (before, after) = (ids(&old, &s.before), ids(&new, &s.after));
            let want_add: Vec<Vec<u8>> = after.iter().filter(|id| !before.contains(id)).cloned().collect();
            let want_drop: Vec<Vec<u8>> = before.iter().filter(|id| !after.contains(id)).cloned().collect();
            prop_assert_eq!(ids(&new, &s.add), want_add);
            prop_assert_eq!(ids(&old, &s.drop), want_drop);
            // Reusing a set gives what a fresh one gets.
            let mut reused = RouteSet { before: vec![9; 7], after: vec![], add: vec![1], drop: vec![2, 3] };
            t.route_top_into(&key, k, &mut reused);
            prop_assert_eq!(&reused, &s);
            if k == 1 {
                prop_assert_eq!(!s.add.is_empty() || !s.drop.is_empty(), t.route(&key).moved);
            }
        }
    }

    #[test]
    fn diff_over_keys_is_the_sum_of_per_key_routes((old, new) in two_memberships(), split in 0usize..500) {
        let t = Transition::new(&old, &new);
        let (mut diff, mut left, mut right) = (t.diff(), t.diff(), t.diff());
        let mut before = vec![0u64; old.len()];
        let mut after = vec![0u64; new.len()];
        let mut flows: BTreeMap<(usize, usize), u64> = BTreeMap::new();
        let mut moved = Vec::new();
        for (i, key) in keys(500).enumerate() {
            let r = t.route(&key);
            before[r.old_index] += 1;
            after[r.new_index] += 1;
            if r.moved {
                *flows.entry((r.old_index, r.new_index)).or_default() += 1;
                moved.push((key.clone(), r.old_index, r.new_index));
            }
            prop_assert_eq!(diff.route(&key), r);
            if i < split { &mut left } else { &mut right }.add(&key);
        }
        prop_assert_eq!(diff.keys(), 500);
        prop_assert_eq!(diff.moved(), moved.len() as u64);
        let got: BTreeMap<(usize, usize), u64> = diff.flows().iter().map(|&(from, to, count)| ((from, to), count)).collect();
        prop_assert_eq!(got, flows);
        for n in diff.nodes() {
            prop_assert_eq!(n.before, n.old_index.map_or(0, |i| before[i]));
            prop_assert_eq!(n.after, n.new_index.map_or(0, |j| after[j]));
        }
        let planned: Vec<(String, usize, usize)> = t.plan(keys(500)).collect();
        prop_assert_eq!(planned, moved);
        prop_assert!(left.merge(&right));
        prop_assert_eq!(left.flows(), diff.flows());
        prop_assert_eq!(left.nodes(), diff.nodes());
    }

    #[test]
    fn replica_diff_over_keys_is_the_sum_of_per_key_route_sets((old, new) in two_memberships(), k in 0usize..5) {
        let t = Transition::new(&old, &new);
        let mut diff = t.diff_top(k);
        let (mut before, mut dropped) = (vec![0u64; old.len()], vec![0u64; old.len()]);
        let (mut after, mut added) = (vec![0u64; new.len()], vec![0u64; new.len()]);
        let mut changed = Vec::new();
        for key in keys(400) {
            let s = t.route_top(&key, k);
            s.before.iter().for_each(|&o| before[o] += 1);
            s.drop.iter().for_each(|&o| dropped[o] += 1);
            s.after.iter().for_each(|&n| after[n] += 1);
            s.add.iter().for_each(|&n| added[n] += 1);
            let a: BTreeSet<Vec<u8>> = ids(&old, &s.before).into_iter().collect();
            let b: BTreeSet<Vec<u8>> = ids(&new, &s.after).into_iter().collect();
            prop_assert_eq!(diff.route_top(&key), &s);
            if a != b {
                changed.push((key.clone(), s));
            }
        }
        prop_assert_eq!(diff.keys(), 400);
        prop_assert_eq!(diff.moved(), changed.len() as u64);
        prop_assert_eq!(diff.copies_added(), added.iter().sum::<u64>());
        prop_assert_eq!(diff.copies_dropped(), dropped.iter().sum::<u64>());
        for n in diff.nodes() {
            prop_assert_eq!(n.before, n.old_index.map_or(0, |i| before[i]));
            prop_assert_eq!(n.dropped, n.old_index.map_or(0, |i| dropped[i]));
            prop_assert_eq!(n.after, n.new_index.map_or(0, |j| after[j]));
            prop_assert_eq!(n.added, n.new_index.map_or(0, |j| added[j]));
        }
        let planned: Vec<(String, RouteSet)> = t.plan_top(keys(400), k).collect();
        prop_assert_eq!(planned, changed);
        if k == 1 {
            let mut one = t.diff();
            one.add_many(keys(400));
            prop_assert_eq!(one.moved(), diff.moved());
        }
    }

    #[test]
    fn a_ramp_keeps_its_limit_and_ends_at_the_target(
        a in slots(),
        b in slots(),
        limit in prop_oneof![Just(0.05), Just(0.1), Just(0.25), 0.02f64..=1.0],
        epoch in 0u64..1_000_000,
    ) {
        let (Some(old), Some(new)) = (placement(&a, Seed::DEFAULT), placement(&b, Seed::DEFAULT)) else {
            return Ok(());
        };
        let old = View::new(old, epoch).unwrap();
        let new = View::new(new, epoch + 7).unwrap();
        let plan = match RampPlan::new(&old, &new, limit) {
            Ok(plan) => plan,
            // A limit below what one grid step moves is an error the plan reports, never a
            // step above the limit.
            Err(hrwhash::Error::InvalidMoveLimit { .. }) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{e}"))),
        };
        const SAMPLE: usize = 2_000;
        let mut prev = old.clone();
        for (i, step) in plan.steps().iter().enumerate() {
            prop_assert!(step.moved <= limit, "step {} moves {} > {}", i, step.moved, limit);
            let view = plan.view(i).unwrap();
            prop_assert_eq!(view.epoch(), epoch + i as u64 + 1);
            // The sample a step reports on: measured movement within 5 sigma of what it says,
            // so never far above the limit either.
            let mut diff = Transition::new(&prev, &view).diff();
            diff.add_many(keys(SAMPLE));
            let measured = diff.moved() as f64 / SAMPLE as f64;
            let sigma = (step.moved * (1.0 - step.moved) / SAMPLE as f64).sqrt();
            prop_assert!(
                (measured - step.moved).abs() <= 5.0 * sigma + 2e-3,
                "step {}: measured {}, reported {}", i, measured, step.moved
            );
            prop_assert!(measured <= limit + 5.0 * sigma + 2e-3);
            prev = view;
        }
        prop_assert_eq!(prev.fingerprint(), new.fingerprint());
        if old.fingerprint() == new.fingerprint() {
            prop_assert!(plan.steps().is_empty());
        }
    }
}
