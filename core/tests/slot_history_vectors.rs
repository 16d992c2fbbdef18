//! Every case of conformance/policies/slot-history-v1.json through the public API (slot tables of
//! both modes as documents), the limit on the number of changes, and appending one change at a
//! time.
// Views, ramps and slot histories are the `json` feature's.
#![cfg(feature = "json")]

use hrwhash::policy::{SlotChange, SlotMode, SlotTable};
use hrwhash::{Error, Fault, Node, Placement, Seed};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/policies/slot-history-v1.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("slot-history-v1.json"))
        .expect("JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn seed(case: &Value) -> Seed {
    case.get("seed").map_or(Seed::DEFAULT, |s| {
        Seed::from_slice(&unhex(s.as_str().unwrap())).unwrap()
    })
}

fn document(case: &Value) -> Vec<u8> {
    match case.get("document") {
        Some(d) => d.as_str().unwrap().as_bytes().to_vec(),
        None => unhex(case["document_hex"].as_str().unwrap()),
    }
}

fn owner(o: &Value) -> Vec<u8> {
    match o.get("owner") {
        Some(id) => id.as_str().unwrap().as_bytes().to_vec(),
        None => unhex(o["owner_hex"].as_str().unwrap()),
    }
}

#[test]
fn valid_histories_give_their_canonical_form_fingerprints_and_owners() {
    let v = vectors();
    for case in v["valid"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let h = SlotTable::from_json_bytes(&document(case), seed(case)).expect(name);
        assert_eq!(h.to_json(), case["canonical"].as_str().unwrap(), "{name}");
        assert_eq!(h.changes().len() as u64, case["changes"].as_u64().unwrap());
        assert_eq!(
            h.fingerprint().to_hex(),
            case["table_fingerprint"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            h.view().fingerprint().to_hex(),
            case["view_fingerprint"].as_str().unwrap()
        );
        assert_eq!(h.view().to_json(), case["view"].as_str().unwrap(), "{name}");
        for o in case["owners"].as_array().unwrap() {
            let slot = o["slot"].as_u64().unwrap();
            if let Some(key) = o.get("key") {
                let key = key.as_str().unwrap();
                assert_eq!(u64::from(h.slot(key)), slot, "{name} {key}");
                assert_eq!(h.owner(key).id(), owner(o), "{name} {key}");
            }
            assert_eq!(
                h.owner_of_slot(slot).unwrap().id(),
                owner(o),
                "{name} slot {slot}"
            );
        }
        // Appending the changes one at a time to the first table gives the same history.
        let first = match h.mode() {
            SlotMode::Levelled => SlotTable::new(h.initial(), h.slots().into()),
            SlotMode::Ranked { overload_ppm } => {
                SlotTable::ranked(h.initial(), h.slots().into(), overload_ppm)
            }
        };
        let mut again = first.unwrap().with_epoch(h.epoch());
        for c in h.changes() {
            again.push(c.clone()).unwrap();
        }
        assert_eq!(again.to_json(), h.to_json());
        assert_eq!(again.fingerprint(), h.fingerprint());
    }
}

#[test]
fn same_final_membership_through_other_orders_gives_other_tables() {
    for case in vectors()["same_membership"].as_array().unwrap() {
        let a = SlotTable::from_json(case["a"].as_str().unwrap()).unwrap();
        let b = SlotTable::from_json(case["b"].as_str().unwrap()).unwrap();
        let fp = case["view_fingerprint"].as_str().unwrap();
        assert_eq!(a.view().fingerprint().to_hex(), fp);
        assert_eq!(b.view().fingerprint().to_hex(), fp);
        assert_eq!(
            a.fingerprint().to_hex(),
            case["a_table_fingerprint"].as_str().unwrap()
        );
        assert_eq!(
            b.fingerprint().to_hex(),
            case["b_table_fingerprint"].as_str().unwrap()
        );
        assert_ne!(a.assignments(), b.assignments());
    }
}

#[test]
fn equivalent_spellings_load_to_the_canonical_form() {
    for case in vectors()["equivalent"].as_array().unwrap() {
        let h = SlotTable::from_json(case["document"].as_str().unwrap()).unwrap();
        assert_eq!(h.to_json(), case["canonical"].as_str().unwrap());
        assert_eq!(
            h.fingerprint().to_hex(),
            case["table_fingerprint"].as_str().unwrap()
        );
    }
}

fn expected_error(case: &Value) -> Option<Error> {
    let index = || case["index"].as_u64().map(|i| i as usize);
    Some(match case["error"].as_str().unwrap() {
        "InvalidView" => Error::InvalidView {
            field: case["field"].as_str().unwrap().into(),
            index: index(),
            reason: [
                Fault::Missing,
                Fault::WrongType,
                Fault::Unknown,
                Fault::Duplicate,
                Fault::Conflict,
                Fault::Unsupported,
                Fault::Invalid,
                Fault::OutOfRange,
                Fault::NotRepresentable,
            ]
            .into_iter()
            .find(|f| f.name() == case["reason"].as_str().unwrap())
            .unwrap(),
        },
        "InvalidSlotCount" => Error::InvalidSlotCount {
            value: case["value"].as_str().unwrap().parse().unwrap(),
        },
        "SeedMismatch" => Error::SeedMismatch,
        "EmptyMembership" => Error::EmptyMembership,
        "EmptyNodeId" => Error::EmptyNodeId {
            index: index().unwrap(),
        },
        "DuplicateNodeId" => Error::DuplicateNodeId {
            index: index().unwrap(),
            first_index: case["first_index"].as_u64().unwrap() as usize,
        },
        "AllWeightsZero" => Error::AllWeightsZero,
        "UnknownNode" => Error::UnknownNode,
        "ResultTooLarge" => Error::ResultTooLarge,
        "InvalidJson" => return None,
        other => panic!("unknown error {other}"),
    })
}

#[test]
fn invalid_histories_fail_with_the_first_check() {
    for case in vectors()["invalid"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let got = SlotTable::from_json_bytes(&document(case), seed(case)).expect_err(name);
        match expected_error(case) {
            Some(want) => assert_eq!(got, want, "{name}"),
            None => assert!(
                matches!(got, Error::InvalidJson { line, column } if line >= 1 && column >= 1),
                "{name}: {got:?}"
            ),
        }
    }
}

#[test]
fn at_most_65536_changes() {
    let base = SlotTable::new(&Placement::new(["a", "b"]).unwrap(), 4).unwrap();
    let flip = |i: usize| {
        let w = if i.is_multiple_of(2) { 2.0 } else { 1.0 };
        SlotChange::Weight(b"a".to_vec(), hrwhash::Weight::new(w).unwrap())
    };
    let mut h = base.clone();
    for i in 0..65_536 {
        h.push(flip(i)).unwrap();
    }
    let at_limit = h.to_json();
    assert_eq!(
        SlotTable::from_json(&at_limit).unwrap().fingerprint(),
        h.fingerprint()
    );
    let over = Error::InvalidView {
        field: "changes".into(),
        index: Some(65_536),
        reason: Fault::OutOfRange,
    };
    assert_eq!(h.push(flip(0)).unwrap_err(), over);
    // The same limit when loading: one more change in the text.
    let text = at_limit.replacen(
        "  \"changes\": [\n",
        "  \"changes\": [\n    {\"op\": \"remove\", \"id\": \"zz\"},\n",
        1,
    );
    assert_eq!(SlotTable::from_json(&text).unwrap_err(), over);
}

#[test]
fn an_added_node_keeps_its_domain_and_a_weight_change_keeps_it_too() {
    let mut h = SlotTable::new(&Placement::new(["a"]).unwrap(), 8).unwrap();
    h.push(SlotChange::Add(Node::new("b").with_domain("z")))
        .unwrap();
    h.push(SlotChange::Weight(
        b"b".to_vec(),
        hrwhash::Weight::new(3.0).unwrap(),
    ))
    .unwrap();
    let view = h.view();
    let b = view.placement().find("b").unwrap();
    assert_eq!(b.domain(), Some(&b"z"[..]));
    assert!(h
        .to_json()
        .contains("{\"op\": \"add\", \"id\": \"b\", \"domain\": \"z\"}"));
}

#[test]
fn errors_name_the_list_and_position_of_the_member() {
    let at = |field: &str, index| {
        Error::InvalidView {
            field: field.into(),
            index: Some(index),
            reason: Fault::Missing,
        }
        .to_string()
    };
    assert_eq!(
        at("changes.id", 1),
        "changes[1] member \"changes.id\" is missing"
    );
    assert_eq!(
        at("initial.weight", 0),
        "initial[0] member \"initial.weight\" is missing"
    );
    assert_eq!(at("changes", 4), "changes[4] is missing");
    // A view's own members keep naming its nodes.
    assert_eq!(at("id", 2), "view: nodes[2] member \"id\" is missing");
}
