//! Generator of `conformance/policies/slot-table-v2.json`: the slot-table-v2 cases (POLICIES.md,
//! "slot-table (v2)"), a first table and a sequence of changes applied in order. Every input is
//! written out literally or built from fixed formulas, so the file is the same on every run.

use hrwhash::policy::slot_table::{SlotMode, SlotTable, MAX_SLOTS, SLOT_TABLE_POLICY};
use hrwhash::{Error, Node, Placement, Seed};
use serde_json::{json, Value};

use super::{
    error_name, head, insert_changes, keys_json, nodes, slots_json, Change, BAD_SLOTS,
    BAD_SLOT_COUNTS, MIXED_CHANGES,
};
use crate::JsonFile;

const COMMENT: &str = "Conformance cases of the slot-table-v2 policy, the levelled slot table \
(see POLICIES.md, \"slot-table (v2)\"). The table depends on the order of changes: each case is a \
first table and changes applied one after another, in the order given. Node ids and keys are \
UTF-8 text; weights are JSON numbers (absent: 1); \"seed\" is 32 hex digits (absent: the default \
seed of SPEC.md). cases: a membership and \"slots\", with the expected first table (the owner of \
each slot as a 0-based index into the node list, slot 0 first) and keys (each key's slot and \
owner); then changes: {\"op\": \"add\", id, weight?} appends a node, {\"op\": \"remove\", id} \
removes one (the others keep their order), {\"op\": \"weight\", id, weight} sets one; each with \
the table after it, in the indices of the membership after it. error_cases: a table that cannot \
be built (\"slots\" may exceed 2^53 only as a decimal string), a slot asked of a built table \
(\"slot\", decimal string), or changes whose last one fails, with the error raised.";

fn build(seed: Option<Seed>, members: &[Node], slots: u64) -> Result<SlotTable, Error> {
    let placement = Placement::from_nodes(seed.unwrap_or(Seed::DEFAULT), members.to_vec())?;
    SlotTable::new(&placement, slots)
}

fn case(
    name: &str,
    seed: Option<Seed>,
    members: Vec<Node>,
    slots: u64,
    changes: &[Change],
) -> Value {
    let table = build(seed, &members, slots).expect("table");
    let mut o = head(name, seed, &members);
    o.insert("slots".into(), slots.into());
    o.insert(
        "expected".into(),
        json!({"table": table.assignments(), "keys": keys_json(&table)}),
    );
    insert_changes(
        &mut o,
        table,
        changes,
        |t| json!({"table": t.assignments()}),
    );
    Value::Object(o)
}

fn cases() -> Vec<Value> {
    use Change::*;
    let secret = Seed::from_bytes(*b"not the default!");
    vec![
        case("first-table", None, nodes(10, &[1.0]), 64, &[]),
        case(
            "one-slot",
            None,
            nodes(3, &[1.0]),
            1,
            &[Add("node-3", 1.0), Remove("node-1")],
        ),
        case(
            "one-node",
            None,
            nodes(1, &[1.0]),
            17,
            &[Add("node-1", 2.0)],
        ),
        case(
            "weighted-first-table",
            None,
            nodes(8, &[1.0, 2.0, 0.5, 3.25]),
            300,
            &[],
        ),
        case(
            "draining",
            None,
            nodes(6, &[1.0, 0.0, 2.0]),
            50,
            &[
                Weight("node-1", 1.0),
                Weight("node-0", 0.0),
                Add("node-6", 0.0),
            ],
        ),
        case(
            "secret-seed",
            Some(secret),
            nodes(12, &[1.0]),
            128,
            &[Add("node-12", 1.0), Remove("node-5")],
        ),
        case(
            "tiny-and-huge-weights",
            None,
            nodes(5, &[1e-6, 1.0, 1000.0]),
            33,
            &[Add("node-5", 1e-6), Weight("node-2", 1.0)],
        ),
        case(
            "grow-from-one",
            None,
            nodes(1, &[1.0]),
            100,
            &[
                Add("node-1", 1.0),
                Add("node-2", 1.0),
                Add("node-3", 1.0),
                Add("node-4", 1.0),
                Add("node-5", 1.0),
                Add("node-6", 1.0),
            ],
        ),
        case("changes", None, nodes(16, &[1.0, 2.0]), 512, &MIXED_CHANGES),
        // The same two changes in the other order give another table.
        case(
            "order-a",
            None,
            nodes(7, &[1.0]),
            90,
            &[Add("node-7", 1.0), Remove("node-2")],
        ),
        case(
            "order-b",
            None,
            nodes(7, &[1.0]),
            90,
            &[Remove("node-2"), Add("node-7", 1.0)],
        ),
    ]
}

fn error_cases() -> Vec<Value> {
    use Change::*;
    let members = nodes(3, &[1.0]);
    let mut out = Vec::new();
    for (name, slots) in BAD_SLOT_COUNTS {
        let e = build(None, &members, slots).expect_err("rejected");
        let mut o = head(name, None, &members);
        o.insert("slots".into(), slots_json(slots));
        o.insert("error".into(), error_name(&e).into());
        out.push(Value::Object(o));
    }
    let t = build(None, &members, 16).expect("table");
    for (name, slot) in BAD_SLOTS {
        let e = t.owner_of_slot(slot).expect_err("rejected");
        let mut o = head(name, None, &members);
        o.insert("slots".into(), 16.into());
        o.insert("slot".into(), slot.to_string().into());
        o.insert("error".into(), error_name(&e).into());
        out.push(Value::Object(o));
    }
    let failing: [(&str, Vec<Change>); 5] = [
        ("remove-unknown", vec![Remove("node-9")]),
        ("weight-of-unknown", vec![Weight("node-9", 1.0)]),
        ("add-duplicate", vec![Add("node-1", 1.0)]),
        (
            "remove-every-node",
            vec![Remove("node-0"), Remove("node-1"), Remove("node-2")],
        ),
        (
            "drain-every-node",
            vec![
                Weight("node-0", 0.0),
                Weight("node-1", 0.0),
                Weight("node-2", 0.0),
            ],
        ),
    ];
    for (name, changes) in failing {
        let mut t = build(None, &members, 16).expect("table");
        let mut err = None;
        for (k, c) in changes.iter().enumerate() {
            match c.apply(&t) {
                Ok(next) => t = next,
                Err(e) => {
                    assert_eq!(k + 1, changes.len(), "{name}: only the last change fails");
                    err = Some(e);
                }
            }
        }
        let e = err.expect("the last change fails");
        let mut o = head(name, None, &members);
        o.insert("slots".into(), 16.into());
        o.insert(
            "changes".into(),
            changes
                .iter()
                .map(|c| Value::Object(c.json()))
                .collect::<Vec<_>>()
                .into(),
        );
        o.insert("error".into(), error_name(&e).into());
        out.push(Value::Object(o));
    }
    out
}

/// The whole file.
pub fn generate() -> String {
    JsonFile::new()
        .string("policy", SLOT_TABLE_POLICY)
        .string("_comment", COMMENT)
        .default_seed()
        .string(
            "slot_key_prefix",
            std::str::from_utf8(SlotMode::Levelled.key_prefix()).expect("ASCII"),
        )
        .raw("max_slots", MAX_SLOTS)
        .section("cases", &cases())
        .section("error_cases", &error_cases())
        .finish()
}
