//! The one `SlotTable` in both modes through the public API: in-place changes are the copying
//! ones, a failed change leaves the table as it was, the errors and their order, and what each
//! mode's table depends on (the ranked one on the membership only, the levelled one on the order
//! of its changes too).

use hrwhash::policy::{
    SlotChange, SlotMode, SlotTable, MAX_CHANGES, RANKED_SLOT_TABLE_POLICY, SLOT_TABLE_POLICY,
};
use hrwhash::{Error, Fault, Node, Placement, Weight};
use proptest::prelude::*;

fn fleet(n: usize, weights: &[f64]) -> Placement {
    Placement::from_nodes(
        hrwhash::Seed::DEFAULT,
        (0..n).map(|i| {
            Node::new(format!("n{i}")).with_weight(Weight::new(weights[i % weights.len()]).unwrap())
        }),
    )
    .unwrap()
}

fn build(mode: SlotMode, p: &Placement, slots: u64) -> Result<SlotTable, Error> {
    match mode {
        SlotMode::Levelled => SlotTable::new(p, slots),
        SlotMode::Ranked { overload_ppm } => SlotTable::ranked(p, slots, overload_ppm),
    }
}

const MODES: [SlotMode; 4] = [
    SlotMode::Levelled,
    SlotMode::Ranked { overload_ppm: None },
    SlotMode::Ranked {
        overload_ppm: Some(0),
    },
    SlotMode::Ranked {
        overload_ppm: Some(50_000),
    },
];

/// Everything a caller can see of a table without the `json` feature.
type Seen = (
    Vec<u32>,
    Vec<u32>,
    Vec<Node>,
    Vec<SlotChange>,
    u64,
    SlotMode,
);

fn seen(t: &SlotTable) -> Seen {
    (
        t.assignments().to_vec(),
        t.slot_counts(),
        t.placement().node_specs().to_vec(),
        t.changes().to_vec(),
        t.epoch(),
        t.mode(),
    )
}

#[test]
fn modes_name_their_policy_prefix_and_bound() {
    assert_eq!(SlotMode::default(), SlotMode::Levelled);
    assert_eq!(SlotMode::Levelled.policy(), SLOT_TABLE_POLICY);
    assert_eq!(SLOT_TABLE_POLICY, "slot-table-v2");
    assert_eq!(
        SlotMode::Ranked { overload_ppm: None }.policy(),
        RANKED_SLOT_TABLE_POLICY
    );
    assert_eq!(RANKED_SLOT_TABLE_POLICY, "slot-table-v1");
    assert_eq!(SlotMode::Levelled.key_prefix(), b"slot-table-v2:");
    assert_eq!(
        SlotMode::Ranked {
            overload_ppm: Some(7)
        }
        .key_prefix(),
        b"slot-table-v1:"
    );
    let p = fleet(5, &[1.0]);
    for mode in MODES {
        let t = build(mode, &p, 64).unwrap();
        assert_eq!(t.mode(), mode);
        assert_eq!(t.overload_ppm(), mode.overload_ppm());
        assert_eq!(t.epoch(), 0);
        assert_eq!(t.initial().node_specs(), p.node_specs());
        assert!(t.changes().is_empty());
        // Only a bounded ranked table bounds its nodes.
        assert_eq!(t.capacities().is_some(), mode.overload_ppm().is_some());
        if let Some(caps) = t.capacities() {
            assert_eq!(caps.len(), 5);
            assert!(t.slot_counts().iter().zip(&caps).all(|(c, cap)| c <= cap));
        }
        assert_eq!(t.with_epoch(9).epoch(), 9);
        let (mut moved, at_zero) = (seen(&t.with_epoch(9)), seen(&t));
        assert_eq!(moved.4, 9);
        moved.4 = 0;
        assert_eq!(moved, at_zero);
    }
}

#[test]
fn bad_slot_counts_and_slots_are_errors_in_both_modes() {
    let p = fleet(3, &[1.0]);
    for mode in MODES {
        for bad in [0u64, (1 << 24) + 1, u64::MAX] {
            assert_eq!(
                build(mode, &p, bad).unwrap_err(),
                Error::InvalidSlotCount { value: bad }
            );
        }
        let t = build(mode, &p, 8).unwrap();
        for bad in [8u64, u64::MAX] {
            assert_eq!(
                t.owner_of_slot(bad).unwrap_err(),
                Error::SlotOutOfRange {
                    slot: bad,
                    slots: 8
                }
            );
            assert!(t.owner_index_of_slot(bad).is_err());
        }
        assert_eq!(
            t.owner_of_slot(7).unwrap().index(),
            t.assignments()[7] as usize
        );
    }
}

/// A weight no JSON number holds exactly cannot be in a table's history, in either mode.
#[test]
fn unrepresentable_weights_are_refused_in_both_modes() {
    let odd = Weight::from_fixed((1 << 60) + 1);
    let p = Placement::from_nodes(
        hrwhash::Seed::DEFAULT,
        [Node::new("a"), Node::new("b").with_weight(odd)],
    )
    .unwrap();
    let want = Error::InvalidView {
        field: "initial.weight".into(),
        index: Some(1),
        reason: Fault::NotRepresentable,
    };
    for mode in MODES {
        assert_eq!(build(mode, &p, 16).unwrap_err(), want, "{mode:?}");
        let mut t = build(mode, &fleet(2, &[1.0]), 16).unwrap();
        t.add_node(Node::new("x")).unwrap();
        let before = seen(&t);
        assert_eq!(
            t.set_weight("n0", odd).unwrap_err(),
            Error::InvalidView {
                field: "changes.weight".into(),
                index: Some(1),
                reason: Fault::NotRepresentable,
            }
        );
        assert_eq!(seen(&t), before);
    }
}

/// The errors of a change, in both modes, each leaving the table as it was.
#[test]
fn failed_changes_leave_the_table_unchanged() {
    for mode in MODES {
        let mut t = build(mode, &fleet(3, &[1.0]), 16).unwrap();
        t.add_node(Node::new("extra")).unwrap();
        let before = seen(&t);
        let fails: [(SlotChange, Error); 5] = [
            (SlotChange::Remove(b"zz".to_vec()), Error::UnknownNode),
            (
                SlotChange::Weight(b"zz".to_vec(), Weight::ONE),
                Error::UnknownNode,
            ),
            // The change's position in the history (one change held), not the node's.
            (
                SlotChange::Add(Node::new("n1")),
                Error::DuplicateNodeId {
                    index: 1,
                    first_index: 1,
                },
            ),
            (
                SlotChange::Add(Node::new("")),
                Error::EmptyNodeId { index: 1 },
            ),
            (
                SlotChange::Add(Node::new("extra")),
                Error::DuplicateNodeId {
                    index: 1,
                    first_index: 3,
                },
            ),
        ];
        for (change, want) in fails {
            assert_eq!(t.with_change(change.clone()).unwrap_err(), want, "{mode:?}");
            assert_eq!(t.push(change.clone()).unwrap_err(), want, "{mode:?}");
            assert_eq!(seen(&t), before, "{mode:?}: {change:?} changed the table");
        }
        assert_eq!(t.remove_node("zz"), Err(Error::UnknownNode));
        assert_eq!(t.set_weight("zz", Weight::ONE), Err(Error::UnknownNode));
        assert!(t.add_node(Node::new("n0")).is_err());
        assert_eq!(seen(&t), before);

        // Draining every node and removing the last one.
        for id in ["n0", "n1", "n2"] {
            t.set_weight(id, Weight::ZERO).unwrap();
        }
        let drained = seen(&t);
        assert_eq!(
            t.set_weight("extra", Weight::ZERO),
            Err(Error::AllWeightsZero)
        );
        assert_eq!(t.remove_node("extra"), Err(Error::AllWeightsZero));
        assert_eq!(seen(&t), drained);
        for id in ["n0", "n1", "n2"] {
            t.remove_node(id).unwrap();
        }
        assert_eq!(t.remove_node("extra"), Err(Error::EmptyMembership));
        assert_eq!(t.slot_counts(), vec![16], "{mode:?}");
        assert_eq!(t.changes().len(), 7);
    }
}

/// The 65,537th change is refused, in place and as a copy, in both modes.
#[test]
fn at_most_max_changes() {
    let over = Error::InvalidView {
        field: "changes".into(),
        index: Some(MAX_CHANGES),
        reason: Fault::OutOfRange,
    };
    for mode in [
        SlotMode::Levelled,
        SlotMode::Ranked {
            overload_ppm: Some(0),
        },
    ] {
        let mut t = build(mode, &fleet(2, &[1.0]), 2).unwrap();
        for i in 0..MAX_CHANGES {
            let w = if i % 2 == 0 { 2.0 } else { 1.0 };
            t.set_weight("n0", Weight::new(w).unwrap()).unwrap();
        }
        let before = seen(&t);
        assert_eq!(t.remove_node("n1"), Err(over.clone()));
        assert_eq!(t.with_node(Node::new("n2")).unwrap_err(), over);
        // The limit comes first: even a change that would fail otherwise reports it.
        assert_eq!(t.remove_node("zz"), Err(over.clone()));
        assert_eq!(seen(&t), before);
    }
}

/// Two change orders that reach the same membership: one ranked table (equal assignments by id),
/// and in general two levelled ones. The levelled table depends on the order of its changes by
/// design (POLICIES.md, slot-table (v2)); sharing its history is what makes it a shared fact.
#[test]
fn ranked_tables_depend_on_the_membership_only_and_levelled_ones_on_the_order() {
    let a = [
        SlotChange::Add(Node::new("x")),
        SlotChange::Remove(b"n2".to_vec()),
        SlotChange::Weight(b"n4".to_vec(), Weight::new(3.0).unwrap()),
    ];
    let b = [
        SlotChange::Weight(b"n4".to_vec(), Weight::new(3.0).unwrap()),
        SlotChange::Remove(b"n2".to_vec()),
        SlotChange::Add(Node::new("x")),
    ];
    let ids = |t: &SlotTable| -> Vec<Vec<u8>> {
        (0..u64::from(t.slots()))
            .map(|s| t.owner_of_slot(s).unwrap().id().to_vec())
            .collect()
    };
    let mut levelled_differ = false;
    for mode in MODES {
        let base = build(mode, &fleet(9, &[1.0, 2.0]), 200).unwrap();
        let (mut ta, mut tb) = (base.clone(), base.clone());
        for c in &a {
            ta.push(c.clone()).unwrap();
        }
        for c in &b {
            tb = tb.with_change(c.clone()).unwrap();
        }
        assert_eq!(ta.placement().len(), tb.placement().len());
        match mode {
            SlotMode::Ranked { overload_ppm } => {
                assert_eq!(ids(&ta), ids(&tb), "{mode:?}");
                let fresh = SlotTable::ranked(ta.placement(), 200, overload_ppm).unwrap();
                assert_eq!(fresh.assignments(), ta.assignments());
                #[cfg(feature = "json")]
                assert_eq!(ta.fingerprint(), tb.fingerprint());
            }
            SlotMode::Levelled => {
                levelled_differ = ids(&ta) != ids(&tb);
                #[cfg(feature = "json")]
                assert_eq!(levelled_differ, ta.fingerprint() != tb.fingerprint());
            }
        }
    }
    assert!(levelled_differ, "these two orders give two levelled tables");
}

/// The bound is part of a ranked table's fingerprint, "no bound" told apart from every bound,
/// and a levelled table never shares a ranked one's fingerprint.
#[cfg(feature = "json")]
#[test]
fn fingerprints_tell_the_modes_and_bounds_apart() {
    let p = fleet(4, &[1.0]);
    let fps: Vec<_> = [
        SlotMode::Levelled,
        SlotMode::Ranked { overload_ppm: None },
        SlotMode::Ranked {
            overload_ppm: Some(u32::MAX),
        },
        SlotMode::Ranked {
            overload_ppm: Some(0),
        },
    ]
    .into_iter()
    .map(|m| build(m, &p, 1).unwrap().fingerprint())
    .collect();
    // One slot and no bound that binds: the same assignment in every mode, other fingerprints.
    for i in 0..fps.len() {
        for j in 0..i {
            assert_ne!(fps[i], fps[j], "{i} {j}");
        }
    }
    let unbounded = build(SlotMode::Ranked { overload_ppm: None }, &p, 32).unwrap();
    let loose = build(
        SlotMode::Ranked {
            overload_ppm: Some(u32::MAX),
        },
        &p,
        32,
    )
    .unwrap();
    assert_eq!(unbounded.assignments(), loose.assignments());
    assert_ne!(unbounded.fingerprint(), loose.fingerprint());
    // The epoch and the history take no part.
    assert_eq!(
        unbounded.with_epoch(4).fingerprint(),
        unbounded.fingerprint()
    );
    assert_eq!(unbounded.view_fingerprint(), unbounded.view().fingerprint());
}

/// The document of each mode loads back to the same table, and states its mode.
#[cfg(feature = "json")]
#[test]
fn documents_round_trip_in_both_modes() {
    for mode in MODES {
        let mut t = build(mode, &fleet(6, &[1.0, 0.5]), 40)
            .unwrap()
            .with_epoch(3);
        t.add_node(Node::new("d").with_domain("z")).unwrap();
        t.remove_node("n1").unwrap();
        t.set_weight("n3", Weight::new(2.5).unwrap()).unwrap();
        let text = t.to_json();
        assert!(text.contains(&format!("\"policy\": \"{}\",\n", mode.policy())));
        assert_eq!(
            text.contains("\"overload_ppm\""),
            mode.overload_ppm().is_some()
        );
        let back = SlotTable::from_json(&text).unwrap();
        assert_eq!(seen(&back), seen(&t), "{mode:?}");
        assert_eq!(back.to_json(), text);
        assert_eq!(back.fingerprint(), t.fingerprint());
        assert_eq!(back.initial().node_specs(), t.initial().node_specs());
    }
}

#[derive(Clone, Debug)]
enum Op {
    Add(u8, f64),
    Remove(usize),
    Weight(usize, f64),
}

fn an_op() -> impl Strategy<Value = Op> {
    let w = prop::sample::select(vec![0.0, 0.5, 1.0, 2.0, 3.0]);
    prop_oneof![
        // Ids from a small set, so some adds are duplicates.
        (0u8..16, w.clone()).prop_map(|(k, w)| Op::Add(k, w)),
        (0usize..32).prop_map(Op::Remove),
        ((0usize..32), w).prop_map(|(i, w)| Op::Weight(i, w)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On random memberships and changes, in both modes: each in-place change gives what the
    /// copying one gives, an error is the same error both ways and leaves the table as it was,
    /// and a ranked table is always the fresh build over its membership.
    #[test]
    fn in_place_is_copying_and_errors_change_nothing(
        mode in prop::sample::select(MODES.to_vec()),
        n in 1usize..7,
        slots in 1u64..80,
        ops in prop::collection::vec(an_op(), 1..12),
    ) {
        let mut t = build(mode, &fleet(n, &[1.0, 2.0, 0.5]), slots).unwrap();
        for op in ops {
            let len = t.placement().len();
            let id = |i: usize| t.placement().node_specs()[i % len].id().to_vec();
            let change = match op {
                Op::Add(k, w) => SlotChange::Add(Node::new(format!("n{k}")).with_weight(Weight::new(w).unwrap())),
                Op::Remove(i) => SlotChange::Remove(id(i)),
                Op::Weight(i, w) => SlotChange::Weight(id(i), Weight::new(w).unwrap()),
            };
            let before = seen(&t);
            let copied = t.with_change(change.clone());
            let done = match &change {
                SlotChange::Add(node) => t.add_node(node.clone()),
                SlotChange::Remove(id) => t.remove_node(id),
                SlotChange::Weight(id, w) => t.set_weight(id, *w),
            };
            match (copied, done) {
                (Ok(c), Ok(())) => {
                    prop_assert_eq!(seen(&c), seen(&t));
                    prop_assert_eq!(t.changes().last(), Some(&change));
                    prop_assert_eq!(t.slot_counts().iter().sum::<u32>() as u64, slots);
                    if let SlotMode::Ranked { overload_ppm } = mode {
                        let fresh = SlotTable::ranked(t.placement(), slots, overload_ppm).unwrap();
                        prop_assert_eq!(fresh.assignments(), t.assignments());
                    }
                }
                (Err(a), Err(b)) => {
                    prop_assert_eq!(a, b);
                    prop_assert!(seen(&t) == before, "{:?} changed the table", change);
                }
                (c, d) => prop_assert!(false, "{:?}: copy {:?}, in place {:?}", change, c.map(|_| ()), d),
            }
        }
    }
}
