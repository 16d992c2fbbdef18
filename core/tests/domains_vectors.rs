//! Every case of conformance/policies/domains.json, through the public API.

use hrwhash::policy::Domains;
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/policies/domains.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("domains.json")).expect("JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn text(o: &Value, name: &str) -> Option<Vec<u8>> {
    match (o.get(name), o.get(format!("{name}_hex"))) {
        (Some(t), _) => Some(t.as_str().unwrap().as_bytes().to_vec()),
        (None, Some(h)) => Some(unhex(h.as_str().unwrap())),
        (None, None) => None,
    }
}

fn build(case: &Value) -> Result<Domains, Error> {
    let seed = case.get("seed").map_or(Seed::DEFAULT, |s| {
        Seed::from_slice(&unhex(s.as_str().unwrap())).unwrap()
    });
    let mut nodes = Vec::new();
    for n in case["nodes"].as_array().unwrap() {
        let mut node = Node::new(text(n, "id").unwrap()).with_weight(Weight::new(
            n.get("weight").map_or(1.0, |w| w.as_f64().unwrap()),
        )?);
        if let Some(d) = text(n, "domain") {
            node = node.with_domain(d);
        }
        nodes.push(node);
    }
    let placement = Placement::from_nodes(seed, nodes)?;
    Domains::new(&placement, case["level"].as_u64().unwrap() as usize)
}

#[test]
fn every_case() {
    let v = vectors();
    assert_eq!(v["policy"], "domains-v1");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let d = build(case).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            d.domain_count() as u64,
            case["domain_count"].as_u64().unwrap()
        );
        assert_eq!(
            d.placement().selectable_len() as u64,
            case["selectable"].as_u64().unwrap()
        );
        let k_max = case["k_max"].as_u64().unwrap() as usize;
        for l in case["lookups"].as_array().unwrap() {
            let key = text(l, "key").unwrap();
            let want: Vec<usize> = l["replicas"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(
                d.owner_index(&key) as u64,
                l["owner"].as_u64().unwrap(),
                "{name}"
            );
            for k in 1..=k_max {
                assert_eq!(
                    d.replica_indices(&key, k).unwrap(),
                    want[..k],
                    "{name} k={k}"
                );
            }
        }
    }
}

#[test]
fn every_error_case() {
    let v = vectors();
    for case in v["error_cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let got = build(case).and_then(|d| match case.get("k") {
            Some(k) => d
                .replica_indices(text(case, "key").unwrap(), k.as_u64().unwrap() as usize)
                .map(|_| ()),
            None => Ok(()),
        });
        let err = got.expect_err(name);
        match (&err, case["error"].as_str().unwrap()) {
            (Error::InvalidDomains { index, reason }, "InvalidDomains") => {
                assert_eq!(
                    index.map(|i| i as u64),
                    case["index"].as_u64(),
                    "{name}: {err}"
                );
                assert_eq!(reason.name(), case["reason"], "{name}");
            }
            (
                Error::InvalidReplicaCount {
                    requested,
                    available,
                },
                "InvalidReplicaCount",
            ) => {
                assert_eq!(*requested as u64, case["requested"].as_u64().unwrap());
                assert_eq!(*available as u64, case["available"].as_u64().unwrap());
            }
            (Error::EmptyMembership, "EmptyMembership")
            | (Error::DuplicateNodeId { .. }, "DuplicateNodeId")
            | (Error::AllWeightsZero, "AllWeightsZero") => {}
            (e, want) => panic!("{name}: expected {want}, got {e:?}"),
        }
    }
}
