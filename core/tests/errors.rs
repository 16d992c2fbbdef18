//! Every bad input is a typed error, never a panic.

use hrwhash::{Error, Node, Placement, Seed, Weight};

#[test]
fn each_error_variant_has_its_input() {
    let none: [&str; 0] = [];
    assert_eq!(Placement::new(none).unwrap_err(), Error::EmptyMembership);
    assert_eq!(
        Placement::new(["a", ""]).unwrap_err(),
        Error::EmptyNodeId { index: 1 }
    );
    assert_eq!(
        Placement::new(["a", "b", "a"]).unwrap_err(),
        Error::DuplicateNodeId {
            index: 2,
            first_index: 0
        }
    );
    assert!(matches!(
        Placement::weighted([("a", f64::NAN)]).unwrap_err(),
        Error::InvalidWeight { value } if value.is_nan()
    ));
    assert_eq!(
        Placement::weighted([("a", -2.0)]).unwrap_err(),
        Error::InvalidWeight { value: -2.0 }
    );
    assert_eq!(
        Placement::new(["a", "b", "b", "a"]).unwrap_err(),
        Error::DuplicateNodeId {
            index: 2,
            first_index: 1
        }
    );
    assert_eq!(
        Placement::weighted([("a", 0.0), ("b", 0.0)]).unwrap_err(),
        Error::AllWeightsZero
    );
    assert_eq!(
        Seed::from_slice(&[1, 2, 3]).unwrap_err(),
        Error::InvalidSeedLength { len: 3 }
    );
    let p = Placement::new(["a", "b"]).unwrap();
    assert_eq!(p.without_node("zzz").unwrap_err(), Error::UnknownNode);
    assert_eq!(
        p.with_weight("zzz", Weight::ONE).unwrap_err(),
        Error::UnknownNode
    );
    assert_eq!(
        p.with_node(Node::new("a")).unwrap_err(),
        Error::DuplicateNodeId {
            index: 2,
            first_index: 0
        }
    );
    assert_eq!(
        p.without_node("a").unwrap().without_node("b").unwrap_err(),
        Error::EmptyMembership
    );
    let mut out = [0usize; 1];
    assert_eq!(
        p.owners_into(&["x", "y"], &mut out).unwrap_err(),
        Error::LengthMismatch {
            expected: 2,
            actual: 1
        }
    );
    let mut out = [0usize; 5];
    assert_eq!(
        p.rank_many_into(&["x", "y"], 2, &mut out).unwrap_err(),
        Error::LengthMismatch {
            expected: 4,
            actual: 5
        }
    );
    // keys x k overflows usize: the result cannot exist, which is not a length the caller got wrong.
    assert_eq!(
        p.rank_many_into(&["x", "y"], usize::MAX, &mut out)
            .unwrap_err(),
        Error::ResultTooLarge
    );
}

#[test]
fn messages_name_the_problem_and_the_value() {
    let cases = [
        (Error::EmptyNodeId { index: 4 }, "index 4"),
        (
            Error::DuplicateNodeId {
                index: 3,
                first_index: 1,
            },
            "index 3",
        ),
        (Error::InvalidWeight { value: -1.5 }, "-1.5"),
        (Error::InvalidSeedLength { len: 7 }, "got 7"),
        (
            Error::LengthMismatch {
                expected: 2,
                actual: 1,
            },
            "expected 2",
        ),
    ];
    for (e, needle) in cases {
        assert!(e.to_string().contains(needle), "{e}");
        let _: &dyn std::error::Error = &e;
    }
}

#[test]
fn a_weight_message_states_the_rule_the_weight_breaks() {
    let message = |w: f64| Weight::new(w).unwrap_err().to_string();
    assert!(message(f64::NAN).contains("not a number"));
    assert!(message(f64::INFINITY).contains("infinite"));
    assert!(message(-1.0).contains("negative"));
    assert!(message(4294967296.0).contains("not below 2^32"));
    // 1e-12 is >= 0 and < 2^32: the message must not offer those rules as the reason.
    let tiny = message(1e-12);
    assert!(tiny.contains("not above 2^-33"), "{tiny}");
    assert!(!tiny.contains(">= 0"), "{tiny}");
    assert!(message(2f64.powi(-33)).contains("not above 2^-33"));
}

#[test]
fn small_lookups_never_fail() {
    let p = Placement::new(["only"]).unwrap();
    assert_eq!(p.owner("").id(), b"only");
    assert!(p.rank("k", 0).is_empty());
    assert_eq!(p.rank("k", 10).len(), 1);
    let mut empty: [usize; 0] = [];
    assert_eq!(p.rank_into("k", &mut empty), 0);
    assert_eq!(p.replicas("k", 3).len(), 1);
    assert_eq!(p.score("k", "other"), Err(Error::UnknownNode));
    assert!(p.node(1).is_none());
    let mut out = [0usize; 0];
    assert_eq!(p.rank_many_into(&["a", "b"], 0, &mut out), Ok(0));
}

#[test]
fn arbitrary_inputs_return_results_not_panics() {
    let mut state = 1u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 16
    };
    let weird = [
        f64::NAN,
        -0.0,
        0.0,
        1e-300,
        1e300,
        f64::MIN_POSITIVE,
        4294967295.0,
        1.0,
    ];
    for _ in 0..2_000 {
        let n = (next() % 6) as usize;
        let nodes: Vec<(Vec<u8>, f64)> = (0..n)
            .map(|_| {
                let len = (next() % 3) as usize;
                (
                    (0..len).map(|_| (next() % 3) as u8).collect(),
                    weird[(next() % 8) as usize],
                )
            })
            .collect();
        if let Ok(p) = Placement::weighted(nodes.iter().map(|(id, w)| (id, *w))) {
            let key: Vec<u8> = (0..next() % 5).map(|_| next() as u8).collect();
            let owner = p.owner(&key);
            assert!(!owner.weight().is_zero());
            assert_eq!(p.rank(&key, 9).first(), Some(&owner));
        }
    }
}

#[test]
fn debug_output_is_short_and_hides_a_custom_seed() {
    let ids: Vec<String> = (0..5000).map(|i| format!("node-{i}")).collect();
    let p = Placement::from_nodes(
        Seed::from_bytes(*b"do not print me!"),
        ids.iter().map(Node::new),
    )
    .unwrap();
    let shown = format!("{p:?}");
    assert!(shown.len() < 200, "{shown}");
    assert!(shown.contains("5000"));
    assert!(!shown.contains("do not print"));
}
