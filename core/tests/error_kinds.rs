//! Every variant of `hrwhash::Error` has its kind in the error table (conformance/errors.json),
//! named as the variant is.
use hrwhash::{Error, ErrorKind, Fault};

/// One error of every variant. A variant added to the core and the table makes `ErrorKind::ALL`
/// longer, and the test below fails until it has a sample here.
fn samples() -> Vec<Error> {
    vec![
        Error::EmptyMembership,
        Error::EmptyNodeId { index: 1 },
        Error::DuplicateNodeId {
            index: 2,
            first_index: 0,
        },
        Error::InvalidWeight { value: -1.0 },
        Error::AllWeightsZero,
        Error::InvalidSeedLength { len: 3 },
        Error::LengthMismatch {
            expected: 2,
            actual: 1,
        },
        Error::UnknownNode,
        Error::IndexOutOfRange { index: 5, len: 5 },
        Error::InvalidText { index: None },
        Error::InvalidCount,
        Error::ResultTooLarge,
        Error::InvalidJson { line: 1, column: 1 },
        Error::InvalidView {
            field: "epoch".into(),
            index: None,
            reason: Fault::Missing,
        },
        Error::SeedMismatch,
        Error::InvalidMoveLimit { value: 0.0 },
        Error::UnknownProfile { name: "x".into() },
        Error::NotOffered {
            profile: "p",
            what: "weights",
        },
        Error::InvalidSlotCount { value: 0 },
        Error::SlotOutOfRange { slot: 9, slots: 8 },
        Error::InvalidDomains {
            index: None,
            reason: Fault::Missing,
        },
        Error::InvalidReplicaCount {
            requested: 0,
            available: 3,
        },
        Error::InvalidBalanceFactor { value: 0.5 },
        Error::LoadOverflow,
        Error::InfeasibleReplicaWeights { index: 0, k: 2 },
        Error::TooManyNodes { count: usize::MAX },
        Error::StaleView {
            epoch: 1,
            current: 2,
        },
        Error::ViewConflict { epoch: 2 },
        Error::Source {
            kind: "Io".to_string(),
            message: "connection refused".to_string(),
        },
    ]
}

#[test]
fn every_variant_has_its_own_kind_named_as_the_variant() {
    let samples = samples();
    assert_eq!(samples.len(), ErrorKind::ALL.len(), "one sample per kind");
    let mut seen = Vec::new();
    for e in &samples {
        let debug = format!("{e:?}");
        let variant = debug.split([' ', '{']).next().unwrap();
        assert_eq!(e.kind().name(), variant);
        assert!(!seen.contains(&e.kind()), "{variant} twice");
        seen.push(e.kind());
    }
    for kind in ErrorKind::ALL {
        assert!(seen.contains(kind), "{kind:?} has no sample");
    }
}
