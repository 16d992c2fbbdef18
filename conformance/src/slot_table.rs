//! The slot-table cases (POLICIES.md): one table concept, two modes, one vectors file each.
//! `ranked` writes `policies/slot-table.json` (slot-table-v1), `levelled` writes
//! `policies/slot-table-v2.json` (slot-table-v2). Every input is written out literally or built
//! from fixed formulas, so the files are the same on every run.

pub mod levelled;
pub mod ranked;

use hrwhash::policy::slot_table::{SlotTable, MAX_SLOTS};
use hrwhash::{Error, Node, Seed, Weight};
use serde_json::{json, Map, Value};

use crate::insert_seed;

pub(crate) const KEYS: [&str; 6] = ["", "a", "user:42", "session:ÿ", "key-0", "key-99999"];

pub(crate) fn node_json(n: &Node) -> Value {
    let id = String::from_utf8(n.id().to_vec()).expect("text ids");
    if n.weight() == Weight::ONE {
        json!({ "id": id })
    } else {
        json!({ "id": id, "weight": n.weight().to_f64() })
    }
}

pub(crate) fn nodes(count: usize, weights: &[f64]) -> Vec<Node> {
    (0..count)
        .map(|i| {
            Node::new(format!("node-{i}"))
                .with_weight(Weight::new(weights[i % weights.len()]).expect("weight"))
        })
        .collect()
}

pub(crate) enum Change {
    Add(&'static str, f64),
    Remove(&'static str),
    Weight(&'static str, f64),
}

impl Change {
    pub(crate) fn json(&self) -> Map<String, Value> {
        let v = match *self {
            Change::Add(id, w) => {
                let mut s = json!({"op": "add"});
                let node = Node::new(id).with_weight(Weight::new(w).expect("weight"));
                for (k, v) in node_json(&node).as_object().expect("object") {
                    s[k] = v.clone();
                }
                s
            }
            Change::Remove(id) => json!({"op": "remove", "id": id}),
            Change::Weight(id, w) => json!({"op": "weight", "id": id, "weight": w}),
        };
        v.as_object().cloned().expect("object")
    }

    pub(crate) fn apply(&self, t: &SlotTable) -> Result<SlotTable, Error> {
        match *self {
            Change::Add(id, w) => t.with_node(Node::new(id).with_weight(Weight::new(w)?)),
            Change::Remove(id) => t.without_node(id),
            Change::Weight(id, w) => t.with_weight(id, Weight::new(w)?),
        }
    }
}

pub(crate) fn head(name: &str, seed: Option<Seed>, members: &[Node]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    insert_seed(&mut o, seed);
    o.insert(
        "nodes".into(),
        members.iter().map(node_json).collect::<Vec<_>>().into(),
    );
    o
}

/// Each key of `KEYS` with its slot and owner in `t`.
pub(crate) fn keys_json(t: &SlotTable) -> Vec<Value> {
    KEYS.iter()
        .map(|k| json!({"key": k, "slot": t.slot(k), "owner": t.owner_index(k)}))
        .collect()
}

/// `changes` applied one after another from `t`, each with `expected`: what `state` says of the
/// table after it; nothing when there are no changes.
pub(crate) fn insert_changes(
    o: &mut Map<String, Value>,
    mut t: SlotTable,
    changes: &[Change],
    mut state: impl FnMut(&SlotTable) -> Value,
) {
    let mut steps = Vec::new();
    for c in changes {
        t = c.apply(&t).expect("change");
        let mut step = c.json();
        step.insert("expected".into(), state(&t));
        steps.push(Value::Object(step));
    }
    if !steps.is_empty() {
        o.insert("changes".into(), steps.into());
    }
}

/// Every kind of change, several times, on `nodes(16, &[1.0, 2.0])`: the "changes" case of both
/// modes, so their files walk the same membership (slot-table-v1 stops after the first eight).
pub(crate) const MIXED_CHANGES: [Change; 10] = [
    Change::Add("node-16", 1.0),
    Change::Remove("node-4"),
    Change::Weight("node-7", 5.0),
    Change::Add("node-17", 0.5),
    Change::Weight("node-13", 0.0),
    Change::Remove("node-0"),
    Change::Add("node-18", 3.0),
    Change::Weight("node-13", 1.0),
    Change::Remove("node-18"),
    Change::Weight("node-7", 1.0),
];

/// Slot counts no table accepts, each with its case name.
pub(crate) const BAD_SLOT_COUNTS: [(&str, u64); 3] = [
    ("zero-slots", 0),
    ("above-2^24", MAX_SLOTS + 1),
    ("largest-u64", u64::MAX),
];

/// Slots outside a table of 16 slots, each with its case name.
pub(crate) const BAD_SLOTS: [(&str, u64); 2] =
    [("slot-equal-to-slots", 16), ("slot-largest-u64", u64::MAX)];

/// A slot count as JSON: a number while every JSON reader holds it exactly (below 2^53), else
/// its decimal text.
pub(crate) fn slots_json(slots: u64) -> Value {
    if slots < (1 << 53) {
        json!(slots)
    } else {
        json!(slots.to_string())
    }
}

pub(crate) fn error_name(e: &Error) -> &'static str {
    match e {
        Error::InvalidSlotCount { .. } => "InvalidSlotCount",
        Error::SlotOutOfRange { .. } => "SlotOutOfRange",
        Error::UnknownNode => "UnknownNode",
        Error::DuplicateNodeId { .. } => "DuplicateNodeId",
        Error::EmptyMembership => "EmptyMembership",
        Error::AllWeightsZero => "AllWeightsZero",
        other => panic!("unexpected error {other:?}"),
    }
}
