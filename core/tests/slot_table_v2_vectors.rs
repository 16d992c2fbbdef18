//! Every case of conformance/policies/slot-table-v2.json, through the public API: the first
//! table, each change in order (copying and in place), and every error (which leaves a table
//! changed in place as it was).

use hrwhash::policy::LevelledSlotTable;
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/policies/slot-table-v2.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("slot-table-v2.json")).expect("JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn weight(o: &Value) -> Result<Weight, Error> {
    Weight::new(o.get("weight").map_or(1.0, |w| w.as_f64().unwrap()))
}

fn build(case: &Value) -> Result<LevelledSlotTable, Error> {
    let seed = case.get("seed").map_or(Seed::DEFAULT, |s| {
        Seed::from_slice(&unhex(s.as_str().unwrap())).unwrap()
    });
    let mut nodes = Vec::new();
    for n in case["nodes"].as_array().unwrap() {
        nodes.push(Node::new(n["id"].as_str().unwrap()).with_weight(weight(n)?));
    }
    let placement = Placement::builder().seed(seed).nodes(nodes).build()?;
    let slots = match &case["slots"] {
        Value::String(s) => s.parse().unwrap(),
        v => v.as_u64().unwrap(),
    };
    LevelledSlotTable::new(&placement, slots)
}

fn apply(t: &LevelledSlotTable, change: &Value) -> Result<LevelledSlotTable, Error> {
    let id = change["id"].as_str().unwrap();
    match change["op"].as_str().unwrap() {
        "add" => t.with_node(Node::new(id).with_weight(weight(change)?)),
        "remove" => t.without_node(id),
        "weight" => t.with_weight(id, weight(change)?),
        op => panic!("unknown op {op}"),
    }
}

/// The same change applied in place.
fn apply_in_place(t: &mut LevelledSlotTable, change: &Value) -> Result<(), Error> {
    let id = change["id"].as_str().unwrap();
    match change["op"].as_str().unwrap() {
        "add" => t.add_node(Node::new(id).with_weight(weight(change)?)),
        "remove" => t.remove_node(id),
        "weight" => t.set_weight(id, weight(change)?),
        op => panic!("unknown op {op}"),
    }
}

/// What a caller can see of a table.
fn seen(t: &LevelledSlotTable) -> (Vec<u32>, Vec<u32>, Vec<Node>) {
    (
        t.assignments().to_vec(),
        t.slot_counts(),
        t.placement().node_specs().to_vec(),
    )
}

fn table(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_u64().unwrap() as u32)
        .collect()
}

#[test]
fn every_case_and_change() {
    let v = vectors();
    assert_eq!(v["policy"], hrwhash::policy::LEVELLED_SLOTS_POLICY);
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut t = build(case).unwrap();
        let mut in_place = t.clone();
        assert_eq!(
            t.assignments(),
            &table(&case["expected"]["table"])[..],
            "{name}"
        );
        for k in case["expected"]["keys"].as_array().unwrap() {
            let key = k["key"].as_str().unwrap();
            assert_eq!(
                t.slot(key) as u64,
                k["slot"].as_u64().unwrap(),
                "{name} {key:?}"
            );
            assert_eq!(t.owner_index(key) as u64, k["owner"].as_u64().unwrap());
            assert_eq!(t.owner(key).index(), t.owner_index(key));
        }
        for (n, change) in case
            .get("changes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            t = apply(&t, change).unwrap();
            assert_eq!(
                t.assignments(),
                &table(&change["expected"]["table"])[..],
                "{name}, change {n}"
            );
            apply_in_place(&mut in_place, change).unwrap();
            assert_eq!(seen(&in_place), seen(&t), "{name}, change {n} in place");
        }
    }
}

#[test]
fn every_error_case() {
    let v = vectors();
    for case in v["error_cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let got = match build(case) {
            Err(e) => e,
            Ok(t) => {
                if let Some(slot) = case.get("slot") {
                    t.owner_of_slot(slot.as_str().unwrap().parse().unwrap())
                        .expect_err(name)
                } else {
                    let mut t = t;
                    let mut in_place = t.clone();
                    let mut err = None;
                    for change in case["changes"].as_array().unwrap() {
                        let before = seen(&in_place);
                        let done = apply_in_place(&mut in_place, change);
                        match apply(&t, change) {
                            Ok(next) => {
                                assert_eq!(done, Ok(()), "{name}");
                                t = next;
                            }
                            Err(e) => {
                                assert_eq!(done.as_ref(), Err(&e), "{name} in place");
                                assert_eq!(
                                    seen(&in_place),
                                    before,
                                    "{name}: the error changed the table"
                                );
                                err = Some(e);
                                break;
                            }
                        }
                        assert_eq!(seen(&in_place), seen(&t), "{name} in place");
                    }
                    err.expect(name)
                }
            }
        };
        let want = case["error"].as_str().unwrap();
        let got_name = match got {
            Error::InvalidSlotCount { .. } => "InvalidSlotCount",
            Error::SlotOutOfRange { .. } => "SlotOutOfRange",
            Error::UnknownNode => "UnknownNode",
            Error::DuplicateNodeId { .. } => "DuplicateNodeId",
            Error::EmptyMembership => "EmptyMembership",
            Error::AllWeightsZero => "AllWeightsZero",
            other => panic!("{name}: unexpected {other:?}"),
        };
        assert_eq!(got_name, want, "{name}");
    }
}
