//! Every case of conformance/policies/slot-table.json (the ranked mode) and slot-table-v2.json (the
//! levelled mode), through the public API: the first table, each change in order (copying and in
//! place), and every error (which leaves a table changed in place as it was).

use hrwhash::policy::{SlotMode, SlotTable};
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::Value;

fn vectors(file: &str) -> Value {
    let path = format!(
        "{}/../conformance/policies/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect(file)).expect("JSON")
}

const FILES: [(&str, &str); 2] = [
    ("slot-table.json", "slot-table-v1"),
    ("slot-table-v2.json", "slot-table-v2"),
];

/// The mode of a case: ranked cases name their bound (`null` for none).
fn mode(case: &Value) -> SlotMode {
    match case.get("overload_ppm") {
        None => SlotMode::Levelled,
        Some(p) => SlotMode::Ranked {
            overload_ppm: p.as_u64().map(|p| u32::try_from(p).unwrap()),
        },
    }
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

fn build(case: &Value) -> Result<SlotTable, Error> {
    let seed = case.get("seed").map_or(Seed::DEFAULT, |s| {
        Seed::from_slice(&unhex(s.as_str().unwrap())).unwrap()
    });
    let mut nodes = Vec::new();
    for n in case["nodes"].as_array().unwrap() {
        nodes.push(Node::new(n["id"].as_str().unwrap()).with_weight(weight(n)?));
    }
    let placement = Placement::from_nodes(seed, nodes)?;
    let slots = match &case["slots"] {
        Value::String(s) => s.parse().unwrap(),
        v => v.as_u64().unwrap(),
    };
    match mode(case) {
        SlotMode::Levelled => SlotTable::new(&placement, slots),
        SlotMode::Ranked { overload_ppm } => SlotTable::ranked(&placement, slots, overload_ppm),
    }
}

fn apply(t: &SlotTable, change: &Value) -> Result<SlotTable, Error> {
    let id = change["id"].as_str().unwrap();
    match change["op"].as_str().unwrap() {
        "add" => t.with_node(Node::new(id).with_weight(weight(change)?)),
        "remove" => t.without_node(id),
        "weight" => t.with_weight(id, weight(change)?),
        op => panic!("unknown op {op}"),
    }
}

/// The same change applied in place.
fn apply_in_place(t: &mut SlotTable, change: &Value) -> Result<(), Error> {
    let id = change["id"].as_str().unwrap();
    match change["op"].as_str().unwrap() {
        "add" => t.add_node(Node::new(id).with_weight(weight(change)?)),
        "remove" => t.remove_node(id),
        "weight" => t.set_weight(id, weight(change)?),
        op => panic!("unknown op {op}"),
    }
}

/// What a caller can see of a table.
fn seen(t: &SlotTable) -> (Vec<u32>, Vec<u32>, Vec<Node>, usize) {
    (
        t.assignments().to_vec(),
        t.slot_counts(),
        t.placement().node_specs().to_vec(),
        t.changes().len(),
    )
}

/// The capacities a case records: the bound's, or every slot for a node of weight > 0 when the
/// table has no bound.
fn capacities(t: &SlotTable) -> Vec<u32> {
    t.capacities().unwrap_or_else(|| {
        t.placement()
            .node_specs()
            .iter()
            .map(|n| {
                if n.weight().to_fixed() == 0 {
                    0
                } else {
                    t.slots()
                }
            })
            .collect()
    })
}

fn check_state(t: &SlotTable, expected: &Value, what: &str) {
    assert_eq!(t.assignments(), &table(&expected["table"])[..], "{what}");
    if let Some(caps) = expected.get("capacities") {
        assert_eq!(capacities(t), table(caps), "{what}");
    }
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
    for (file, policy) in FILES {
        let v = vectors(file);
        assert_eq!(v["policy"], policy);
        let cases = v["cases"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let mut t = build(case).unwrap();
            assert_eq!(t.mode().policy(), policy);
            assert_eq!(
                t.mode().key_prefix(),
                format!("{policy}:").as_bytes(),
                "{name}"
            );
            let mut in_place = t.clone();
            check_state(&t, &case["expected"], name);
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
                check_state(&t, &change["expected"], &format!("{name}, change {n}"));
                apply_in_place(&mut in_place, change).unwrap();
                assert_eq!(seen(&in_place), seen(&t), "{name}, change {n} in place");
                assert_eq!(t.changes().len(), n + 1);
            }
        }
    }
}

#[test]
fn every_error_case() {
    for case in FILES
        .iter()
        .flat_map(|(file, _)| vectors(file)["error_cases"].as_array().unwrap().clone())
    {
        let case = &case;
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
