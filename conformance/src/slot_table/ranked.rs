//! Generator of `conformance/policies/slot-table.json`: the slot-table-v1 cases (POLICIES.md,
//! "slot-table (v1)") every binding that exposes slot tables must reproduce. Every input is
//! written out literally or built from fixed formulas, so the file is the same on every run.

use hrwhash::policy::slot_table::{SlotMode, SlotTable, MAX_SLOTS, RANKED_SLOT_TABLE_POLICY};
use hrwhash::{Node, Placement, Seed, Weight};
use serde_json::{json, Map, Value};

use super::{
    error_name, head, insert_changes, keys_json, nodes, slots_json, Change, BAD_SLOTS,
    BAD_SLOT_COUNTS, MIXED_CHANGES,
};
use crate::JsonFile;

const COMMENT: &str = "Conformance cases of the slot-table-v1 policy (see POLICIES.md, \
\"slot-table (v1)\"). Node ids and keys are UTF-8 text; weights are JSON numbers (absent: 1); \
\"seed\" is 32 hex digits (absent: the default seed of SPEC.md); \"overload_ppm\" is the overload \
bound in parts per million, or null for the unbounded (plain HRW) table. cases: a membership, \
\"slots\" and \"overload_ppm\", with expected capacities (per node, in node order), table (the \
owner of each slot as a 0-based index into the node list, slot 0 first) and keys (each key's slot \
and owner); then changes, applied one after another to the table before: {\"op\": \"add\", id, \
weight?} appends a node, {\"op\": \"remove\", id} removes one (the others keep their order), \
{\"op\": \"weight\", id, weight} sets one; each with the capacities and table of the membership \
after it. error_cases: a table that cannot be built (\"slots\" may exceed 2^53 only as a decimal \
string), or a slot asked of a built table (\"slot\", decimal string), with the error it raises.";

fn secret() -> Seed {
    Seed::from_bytes(*b"not the default!")
}

fn state(t: &SlotTable) -> Map<String, Value> {
    let mut o = Map::new();
    // An unbounded table bounds no node: every slot, for a node that takes any.
    let caps: Vec<u32> = t.capacities().unwrap_or_else(|| {
        t.placement()
            .node_specs()
            .iter()
            .map(|n| {
                if n.weight() == Weight::ZERO {
                    0
                } else {
                    t.slots()
                }
            })
            .collect()
    });
    o.insert("capacities".into(), json!(caps));
    o.insert("table".into(), json!(t.assignments()));
    o
}

fn case(
    name: &str,
    seed: Option<Seed>,
    members: Vec<Node>,
    slots: u64,
    overload: Option<u32>,
    changes: &[Change],
) -> Value {
    let placement =
        Placement::from_nodes(seed.unwrap_or(Seed::DEFAULT), members.clone()).expect("membership");
    let table = SlotTable::ranked(&placement, slots, overload).expect("table");
    let mut o = head(name, seed, &members);
    o.insert("slots".into(), slots.into());
    o.insert("overload_ppm".into(), json!(overload));
    let mut expected = state(&table);
    expected.insert("keys".into(), keys_json(&table).into());
    o.insert("expected".into(), expected.into());
    insert_changes(&mut o, table, changes, |t| {
        // Order independence, as POLICIES.md promises: the same table as a fresh build.
        let fresh = SlotTable::ranked(t.placement(), slots, overload).expect("table");
        assert_eq!(t.assignments(), fresh.assignments(), "{name}");
        state(t).into()
    });
    Value::Object(o)
}

fn cases() -> Vec<Value> {
    use Change::*;
    vec![
        case("plain", None, nodes(10, &[1.0]), 64, None, &[]),
        case(
            "plain-changes",
            None,
            nodes(20, &[1.0]),
            256,
            None,
            &[Add("node-20", 1.0), Remove("node-3"), Weight("node-7", 2.5)],
        ),
        case(
            "bounded-5-percent",
            None,
            nodes(10, &[1.0]),
            256,
            Some(50_000),
            &[],
        ),
        case("no-overload", None, nodes(7, &[1.0]), 100, Some(0), &[]),
        case(
            "weighted",
            None,
            nodes(8, &[1.0, 2.0, 0.5, 3.25]),
            300,
            Some(100_000),
            &[],
        ),
        case(
            "draining",
            None,
            nodes(6, &[1.0, 0.0, 2.0]),
            50,
            Some(20_000),
            &[],
        ),
        case(
            "secret-seed",
            Some(secret()),
            nodes(12, &[1.0]),
            128,
            Some(30_000),
            &[],
        ),
        case("one-slot", None, nodes(3, &[1.0]), 1, Some(0), &[]),
        case("one-node", None, nodes(1, &[1.0]), 17, Some(50_000), &[]),
        case(
            "tiny-and-huge-weights",
            None,
            nodes(5, &[1e-6, 1.0, 1000.0]),
            33,
            Some(1),
            &[],
        ),
        case(
            "largest-overload",
            None,
            nodes(9, &[1.0]),
            81,
            Some(u32::MAX),
            &[],
        ),
        case(
            "changes",
            None,
            nodes(16, &[1.0, 2.0]),
            512,
            Some(30_000),
            &MIXED_CHANGES[..8],
        ),
    ]
}

fn error_cases() -> Vec<Value> {
    let p = Placement::new(["a", "b", "c"]).expect("membership");
    let members = json!([{"id": "a"}, {"id": "b"}, {"id": "c"}]);
    let mut out = Vec::new();
    for (name, slots) in BAD_SLOT_COUNTS {
        let e = SlotTable::ranked(&p, slots, Some(50_000)).expect_err("rejected");
        out.push(
            json!({"name": name, "nodes": members, "slots": slots_json(slots),
            "overload_ppm": 50_000, "error": error_name(&e)}),
        );
    }
    let t = SlotTable::ranked(&p, 16, None).expect("table");
    for (name, slot) in BAD_SLOTS {
        let e = t.owner_of_slot(slot).expect_err("rejected");
        out.push(
            json!({"name": name, "nodes": members, "slots": 16, "overload_ppm": null,
            "slot": slot.to_string(), "error": error_name(&e)}),
        );
    }
    out
}

/// The whole file.
pub fn generate() -> String {
    JsonFile::new()
        .string("policy", RANKED_SLOT_TABLE_POLICY)
        .string("_comment", COMMENT)
        .default_seed()
        .string(
            "slot_key_prefix",
            std::str::from_utf8(SlotMode::Ranked { overload_ppm: None }.key_prefix())
                .expect("ASCII"),
        )
        .raw("max_slots", MAX_SLOTS)
        .section("cases", &cases())
        .section("error_cases", &error_cases())
        .finish()
}
