//! Membership building from arbitrary bytes: ids, raw binary64 weights, fixed-point weights,
//! seeds of any length, domains. The core must return exactly the error SPEC.md section 7 names
//! (same variant, same positions) or a placement that holds the nodes as given.
#![no_main]

use arbitrary::Unstructured;
use hrwhash_fuzz::{build, expected_error, memberships, same_error, seed_input, MAX_NODES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(seed) = seed_input(&mut u) else { return };
    let Ok(nodes) = memberships(&mut u, MAX_NODES) else {
        return;
    };
    let want = expected_error(&seed, &nodes);
    match (build(&seed, &nodes), want) {
        (Ok(p), None) => {
            assert_eq!(p.len(), nodes.len());
            assert_eq!(p.seed().to_bytes().as_slice(), seed.as_slice());
            let selectable = nodes
                .iter()
                .filter(|n| !n.weight.weight().expect("validated").is_zero())
                .count();
            assert_eq!(p.selectable_len(), selectable);
            for (i, n) in nodes.iter().enumerate() {
                let r = p.node(i).expect("in range");
                assert_eq!(r.index(), i);
                assert_eq!(r.id(), n.id.as_slice());
                assert_eq!(r.domain(), n.domain.as_deref());
                assert_eq!(r.weight(), n.weight.weight().expect("validated"));
            }
            // `find` is a linear scan: a few probes, not one per node.
            for i in [0, nodes.len() / 2, nodes.len() - 1] {
                assert_eq!(p.find(&nodes[i].id).map(|f| f.index()), Some(i));
            }
            assert!(p.node(nodes.len()).is_none());
        }
        (Err(got), Some(want)) => assert!(same_error(&got, &want), "got {got:?}, want {want:?}"),
        (got, want) => panic!("got {got:?}, want {want:?}"),
    }
});
