//! Every case of conformance/views.json, through the public API.
// Views, ramps and slot histories are the `json` feature's.
#![cfg(feature = "json")]

use hrwhash::transition::Transition;
use hrwhash::view::Fingerprint;
use hrwhash::{Error, Node, Placement, RampPlan, Seed, View, Weight};
use serde_json::Value;

fn views() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/views.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("views.json")).expect("JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn document(case: &Value) -> Vec<u8> {
    match case.get("document") {
        Some(d) => d.as_str().unwrap().as_bytes().to_vec(),
        None => unhex(case["document_hex"].as_str().unwrap()),
    }
}

fn seed(case: &Value) -> Seed {
    case.get("seed").map_or(Seed::DEFAULT, |s| {
        Seed::from_slice(&unhex(s.as_str().unwrap())).unwrap()
    })
}

fn name(case: &Value) -> &str {
    case["name"].as_str().unwrap()
}

#[test]
fn default_seed_fingerprint() {
    assert_eq!(
        Fingerprint::<8>::of(&Seed::DEFAULT).to_hex(),
        views()["default_seed_fingerprint"]
    );
}

#[test]
fn valid_documents_load_write_and_place() {
    let v = views();
    for case in v["valid"].as_array().unwrap() {
        let view = View::from_json_bytes(&document(case), seed(case))
            .unwrap_or_else(|e| panic!("{}: {e}", name(case)));
        assert_eq!(view.to_json(), case["canonical"], "{}", name(case));
        assert_eq!(view.fingerprint().to_hex(), case["fingerprint"]);
        assert_eq!(view.seed_fingerprint().to_hex(), case["seed_fingerprint"]);
        assert_eq!(view.epoch().to_string(), case["epoch"]);
        for o in case["owners"].as_array().unwrap() {
            let key = o["key"].as_str().unwrap();
            assert_eq!(
                view.placement().owner_index(key) as u64,
                o["owner"].as_u64().unwrap(),
                "{} {key:?}",
                name(case)
            );
        }
        // Building the view again from its placement gives the same document.
        let rebuilt = View::new(view.placement().clone(), view.epoch()).unwrap();
        assert_eq!(rebuilt.to_json(), view.to_json());
        assert_eq!(rebuilt.fingerprint(), view.fingerprint());
    }
}

#[test]
fn equivalent_documents_have_one_fingerprint() {
    for case in views()["equivalent"].as_array().unwrap() {
        let a = View::from_json(case["a"].as_str().unwrap()).unwrap();
        let b = View::from_json(case["b"].as_str().unwrap()).unwrap();
        assert_eq!(
            a.fingerprint().to_hex(),
            case["fingerprint"],
            "{}",
            name(case)
        );
        assert_eq!(b.fingerprint(), a.fingerprint(), "{}", name(case));
        assert_eq!(a.with_epoch(0).to_json(), b.with_epoch(0).to_json());
    }
}

#[test]
fn invalid_documents_get_their_error() {
    for case in views()["invalid"].as_array().unwrap() {
        let err = View::from_json_bytes(&document(case), seed(case)).expect_err(name(case));
        let index = |v: &Value| v.as_u64().map(|i| i as usize);
        let ok = match (&err, case["error"].as_str().unwrap()) {
            (Error::InvalidJson { line, column }, "InvalidJson") => *line >= 1 && *column >= 1,
            (
                Error::InvalidView {
                    field,
                    index: i,
                    reason,
                },
                "InvalidView",
            ) => {
                field == case["field"].as_str().unwrap()
                    && *i == index(&case["index"])
                    && reason.name() == case["reason"]
            }
            (Error::EmptyMembership, "EmptyMembership") => true,
            (Error::EmptyNodeId { index: i }, "EmptyNodeId") => Some(*i) == index(&case["index"]),
            (
                Error::DuplicateNodeId {
                    index: i,
                    first_index,
                },
                "DuplicateNodeId",
            ) => {
                Some(*i) == index(&case["index"])
                    && Some(*first_index) == index(&case["first_index"])
            }
            (Error::AllWeightsZero, "AllWeightsZero") => true,
            (Error::SeedMismatch, "SeedMismatch") => true,
            _ => false,
        };
        assert!(ok, "{}: got {err:?}, expected {case}", name(case));
        // Every rejection explains itself.
        assert!(!err.to_string().is_empty());
    }
}

fn placement(nodes: &[Value], side: &str, other: &str) -> Placement {
    let list: Vec<Node> = nodes
        .iter()
        .filter(|n| n[side] != "0" || n[other] == "0")
        .map(|n| {
            let w: u64 = n[side].as_str().unwrap().parse().unwrap();
            Node::new(n["id"].as_str().unwrap()).with_weight(Weight::from_fixed(w))
        })
        .collect();
    Placement::from_nodes(Seed::DEFAULT, list).unwrap()
}

#[test]
fn movement_is_reproduced_bit_for_bit() {
    for case in views()["movement"].as_array().unwrap() {
        let nodes = case["nodes"].as_array().unwrap();
        let t = Transition::new(
            &placement(nodes, "old", "new"),
            &placement(nodes, "new", "old"),
        );
        assert_eq!(
            t.expected_moved(),
            case["expected_moved"].as_f64().unwrap(),
            "{}",
            name(case)
        );
        assert_eq!(
            t.optimum(),
            case["optimum"].as_f64().unwrap(),
            "{}",
            name(case)
        );
    }
}

#[test]
fn ramps_are_reproduced_bit_for_bit() {
    for case in views()["ramps"].as_array().unwrap() {
        let from = View::from_json(case["from"].as_str().unwrap()).unwrap();
        let to = View::from_json(case["to"].as_str().unwrap()).unwrap();
        let plan = RampPlan::new(&from, &to, case["max_move"].as_f64().unwrap());
        if let Some(e) = case.get("error") {
            let err = plan.expect_err(name(case));
            assert!(
                format!("{err:?}").starts_with(e.as_str().unwrap()),
                "{}",
                name(case)
            );
            continue;
        }
        let plan = plan.unwrap();
        let steps = case["steps"].as_array().unwrap();
        assert_eq!(plan.steps().len(), steps.len(), "{}", name(case));
        for (i, (got, want)) in plan.steps().iter().zip(steps).enumerate() {
            assert_eq!(got.epoch.to_string(), want["epoch"]);
            assert_eq!(got.position as u64, want["position"].as_u64().unwrap());
            assert_eq!(
                got.moved,
                want["moved"].as_f64().unwrap(),
                "{} step {i}",
                name(case)
            );
            assert_eq!(
                got.removes_drained,
                want["removes_drained"].as_bool().unwrap()
            );
            let weights: Vec<(String, String)> = plan
                .weights(i)
                .unwrap()
                .iter()
                .map(|(id, w)| {
                    (
                        String::from_utf8(id.to_vec()).unwrap(),
                        w.to_fixed().to_string(),
                    )
                })
                .collect();
            let expected: Vec<(String, String)> = want["weights"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| {
                    (
                        w["id"].as_str().unwrap().into(),
                        w["weight"].as_str().unwrap().into(),
                    )
                })
                .collect();
            assert_eq!(weights, expected, "{} step {i}", name(case));
        }
        assert_eq!(plan.total_moved(), case["total_moved"].as_f64().unwrap());
        assert_eq!(plan.direct_moved(), case["direct_moved"].as_f64().unwrap());
        assert_eq!(plan.optimum(), case["optimum"].as_f64().unwrap());
        // Past the last step: the index and the number of steps, not a length mismatch.
        let n = plan.steps().len();
        let past = plan.view(n).expect_err(name(case));
        assert!(
            matches!(past, Error::IndexOutOfRange { index, len } if index == n && len == n),
            "{}: {past:?}",
            name(case)
        );
        assert_eq!(
            past.to_string(),
            format!(
                "index {n} is out of range: there are {n} items (0 to {})",
                n.saturating_sub(1)
            )
        );
    }
}
