//! The document of a slot table (`conformance/SLOT-HISTORY.md`, format `hrwhash-slot-history-v1`):
//! its first membership, number of slots, mode and ordered changes, written and loaded, and the
//! table fingerprint that compares two tables.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use sha2::{Digest, Sha256};

use super::{
    Ranked, SlotChange, SlotMode, SlotTable, Table, MAX_CHANGES, MAX_REPLAY_COST, MAX_SLOTS,
};
use crate::error::Fault;
use crate::view::json::{
    self, drain_map, drain_seq, not_an_object_is_none, other_types_are, MemberFault, RawNode,
    Scalar, Skip,
};
use crate::view::{
    fault, parse_epoch, parse_node, parse_seed, required, string, weight_decimal, write_text,
    Fingerprint,
};
use crate::{Error, Node, Placement, Seed, View, Weight};

/// The format tag of a slot history document.
pub const SLOT_HISTORY_FORMAT: &str = "hrwhash-slot-history-v1";

#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
impl SlotTable {
    /// Loads a table's document written for the default seed. See [`SlotTable::from_json_bytes`].
    pub fn from_json(text: &str) -> Result<SlotTable, Error> {
        SlotTable::from_json_bytes(text.as_bytes(), Seed::DEFAULT)
    }

    /// Loads a table's document (SLOT-HISTORY.md), placing keys with `seed`, and replays its
    /// changes; fails with the first fault SLOT-HISTORY.md, "Loading", names, in its order.
    ///
    /// Cost (SLOT-HISTORY.md, "Limits and growth"): at most [`MAX_CHANGES`] changes (`InvalidView`
    /// field `changes`, `out_of_range`) and `2^24` slots (`InvalidSlotCount`), both checked
    /// before the first table is built; replaying a levelled table costs about one pass over the
    /// slots per change, a ranked one is built once from the final membership. A history whose
    /// replay would cost more than [`MAX_REPLAY_COST`] is `ResultTooLarge` (a levelled one whose
    /// `changes x (slots + 1)` is past it, before any table is built). A file is read
    /// with [`crate::view::read_document`] (at most 1 GiB).
    pub fn from_json_bytes(bytes: &[u8], seed: Seed) -> Result<SlotTable, Error> {
        let raw = parse(bytes)?;
        let parsed = check_document(raw)?;
        let initial = Placement::from_nodes(seed, parsed.initial)?;
        let matches = match parsed.seed_fingerprint {
            None => seed == Seed::DEFAULT,
            Some(fp) => fp == Fingerprint::<8>::of(&seed).to_bytes(),
        };
        if !matches {
            return Err(Error::SeedMismatch);
        }
        match parsed.mode {
            SlotMode::Levelled => {
                // Every levelled change costs at least S + 1: a history past the cap on that
                // count alone fails before its first table is built (SLOT-HISTORY.md 5, check 13).
                let least = (parsed.changes.len() as u64).saturating_mul(parsed.slots + 1);
                if least > MAX_REPLAY_COST {
                    return Err(Error::ResultTooLarge);
                }
                let mut table = SlotTable::new(&initial, parsed.slots)?.with_epoch(parsed.epoch);
                table.changes.reserve_exact(parsed.changes.len());
                for change in parsed.changes {
                    table.push(change)?;
                }
                Ok(table)
            }
            SlotMode::Ranked { overload_ppm } => {
                // The table depends only on the final membership: one build, not one per change.
                super::check_initial(&initial)?;
                let mut placement = initial.clone();
                let mut cost = 0;
                for (at, change) in parsed.changes.iter().enumerate() {
                    cost = super::replay_cost(
                        cost,
                        parsed.mode,
                        parsed.slots as u32,
                        placement.len(),
                    )?;
                    placement = super::step(&placement, change, at)?.0;
                }
                let table = Ranked::new(&placement, parsed.slots, overload_ppm)?;
                Ok(SlotTable {
                    initial,
                    epoch: parsed.epoch,
                    changes: parsed.changes,
                    cost,
                    table: Table::Ranked(table),
                })
            }
        }
    }

    /// The current membership as a view at the table's epoch, to compare with a published view
    /// (SLOT-HISTORY.md 4.2).
    pub fn view(&self) -> View {
        View::new(self.placement().clone(), self.epoch)
            .expect("every weight of a slot table is checked to be representable")
    }

    /// The current membership's view fingerprint.
    pub fn view_fingerprint(&self) -> Fingerprint<16> {
        self.view().fingerprint()
    }

    /// The table fingerprint (SLOT-HISTORY.md 4.1): the mode, the current membership, the number
    /// of slots and every slot's owner named by its id's rank, so two tables with equal
    /// fingerprints give every key to the same node id, whatever their build order or history.
    pub fn fingerprint(&self) -> Fingerprint<16> {
        let placement = self.placement();
        let nodes = placement.node_specs();
        let mut by_id: Vec<usize> = (0..nodes.len()).collect();
        by_id.sort_unstable_by(|&a, &b| nodes[a].id().cmp(nodes[b].id()));
        let mut rank = alloc::vec![0u32; nodes.len()];
        for (r, &i) in by_id.iter().enumerate() {
            rank[i] = r as u32;
        }
        let mode = self.mode();
        let policy = mode.policy();
        let mut h = Sha256::new();
        h.update((policy.len() as u64).to_le_bytes());
        h.update(policy.as_bytes());
        if let SlotMode::Ranked { overload_ppm } = mode {
            // A flag byte, so that no bound is told apart from every bound.
            h.update([u8::from(overload_ppm.is_some())]);
            h.update(overload_ppm.unwrap_or(0).to_le_bytes());
        }
        h.update(self.view().fingerprint().to_bytes());
        h.update(u64::from(self.slots()).to_le_bytes());
        for &owner in self.assignments() {
            h.update(rank[owner as usize].to_le_bytes());
        }
        let digest = h.finalize();
        let mut out = [0u8; 16];
        out.copy_from_slice(&digest[..16]);
        Fingerprint(out)
    }

    /// The canonical JSON form (SLOT-HISTORY.md, "Canonical form"): the first membership in id
    /// order, the changes in their order, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256 + (self.initial.len() + self.changes.len()) * 40);
        out.push_str("{\n  \"format\": \"");
        out.push_str(SLOT_HISTORY_FORMAT);
        out.push_str("\",\n  \"policy\": \"");
        out.push_str(self.mode().policy());
        if let Some(p) = self.overload_ppm() {
            out.push_str("\",\n  \"overload_ppm\": ");
            out.push_str(&p.to_string());
            out.push_str(",\n  \"epoch\": \"");
        } else {
            out.push_str("\",\n  \"epoch\": \"");
        }
        out.push_str(&self.epoch.to_string());
        let seed = self.initial.seed();
        if seed == Seed::DEFAULT {
            out.push_str("\",\n  \"seed\": \"default\",\n");
        } else {
            out.push_str("\",\n  \"seed\": \"secret\",\n  \"seed_fingerprint\": \"");
            out.push_str(&Fingerprint::<8>::of(&seed).to_hex());
            out.push_str("\",\n");
        }
        out.push_str("  \"slots\": ");
        out.push_str(&self.slots().to_string());
        out.push_str(",\n  \"initial\": [\n");
        let mut nodes: Vec<&Node> = self.initial.node_specs().iter().collect();
        nodes.sort_unstable_by(|a, b| a.id().cmp(b.id()));
        for (i, node) in nodes.iter().enumerate() {
            out.push_str("    {");
            write_node(&mut out, node);
            out.push_str(if i + 1 == nodes.len() { "}\n" } else { "},\n" });
        }
        if self.changes.is_empty() {
            out.push_str("  ],\n  \"changes\": []\n}\n");
            return out;
        }
        out.push_str("  ],\n  \"changes\": [\n");
        for (i, change) in self.changes.iter().enumerate() {
            out.push_str("    {\"op\": ");
            match change {
                SlotChange::Add(node) => {
                    out.push_str("\"add\", ");
                    write_node(&mut out, node);
                }
                SlotChange::Remove(id) => {
                    out.push_str("\"remove\", ");
                    write_text(&mut out, "id", id);
                }
                SlotChange::Weight(id, w) => {
                    out.push_str("\"weight\", ");
                    write_text(&mut out, "id", id);
                    out.push_str(", \"weight\": ");
                    out.push_str(&weight_decimal(*w));
                }
            }
            let last = i + 1 == self.changes.len();
            out.push_str(if last { "}\n" } else { "},\n" });
        }
        out.push_str("  ]\n}\n");
        out
    }
}

/// The parts of a node as VIEW.md 3 writes them: id, weight unless 1, domain.
fn write_node(out: &mut String, node: &Node) {
    write_text(out, "id", node.id());
    if node.weight() != Weight::ONE {
        out.push_str(", \"weight\": ");
        out.push_str(&weight_decimal(node.weight()));
    }
    if let Some(domain) = node.domain() {
        out.push_str(", ");
        write_text(out, "domain", domain);
    }
}

// ---- loading --------------------------------------------------------------------------------

const TOP_MEMBERS: [&str; 9] = [
    "format",
    "policy",
    "overload_ppm",
    "epoch",
    "seed",
    "seed_fingerprint",
    "slots",
    "initial",
    "changes",
];
const CHANGE_MEMBERS: [&str; 6] = ["op", "id", "id_hex", "weight", "domain", "domain_hex"];
const NODE_MEMBERS: [&str; 5] = ["id", "id_hex", "weight", "domain", "domain_hex"];

/// The largest whole binary64 below 2^64 is `2^64 - 2048`; `2^64` itself is the first beyond.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// An array member: not an array, or its converted elements / its first element's error.
enum List<T> {
    NotArray,
    Items(Result<Vec<T>, Error>),
}

struct RawHistory<'de> {
    fault: MemberFault<'de>,
    /// `format` .. `slots`, in the order of [`TOP_MEMBERS`].
    members: [Option<Scalar<'de>>; 7],
    initial: Option<List<Node>>,
    changes: Option<List<SlotChange>>,
}

struct Parsed {
    mode: SlotMode,
    epoch: u64,
    seed_fingerprint: Option<[u8; 8]>,
    slots: u64,
    initial: Vec<Node>,
    changes: Vec<SlotChange>,
}

/// `InvalidView` faults inside an element of `list` name the member as `list.member`.
fn within(list: &str, e: Error) -> Error {
    match e {
        Error::InvalidView {
            field,
            index,
            reason,
        } => Error::InvalidView {
            field: format!("{list}.{field}"),
            index,
            reason,
        },
        e => e,
    }
}

fn list<T>(l: Option<List<T>>, name: &str) -> Result<Vec<T>, Error> {
    match l {
        None => Err(fault(name, None, Fault::Missing)),
        Some(List::NotArray) => Err(fault(name, None, Fault::WrongType)),
        Some(List::Items(items)) => items,
    }
}

fn initial_node(raw: Option<RawObject<'_, 5>>, index: usize) -> Result<Node, Error> {
    let raw = raw.ok_or_else(|| fault("initial", Some(index), Fault::WrongType))?;
    let node = RawNode {
        fault: raw.fault,
        members: raw.members,
    };
    parse_node(node, index).map_err(|e| within("initial", e))
}

fn change(raw: Option<RawObject<'_, 6>>, index: usize) -> Result<SlotChange, Error> {
    let raw = raw.ok_or_else(|| fault("changes", Some(index), Fault::WrongType))?;
    let bad = |name: &str, reason| fault(&format!("changes.{name}"), Some(index), reason);
    if let Some((name, reason)) = raw.fault {
        return Err(bad(&name, reason));
    }
    let [op, id, id_hex, weight, domain, domain_hex] = raw.members;
    let op = op.ok_or_else(|| bad("op", Fault::Missing))?;
    let Scalar::Str(op) = op else {
        return Err(bad("op", Fault::WrongType));
    };
    let allowed: &[bool; 3] = match op.as_ref() {
        "add" => &[true, true, true],
        "remove" => &[false, false, false],
        "weight" => &[true, false, false],
        _ => return Err(bad("op", Fault::Invalid)),
    };
    for ((name, present), ok) in ["weight", "domain", "domain_hex"]
        .iter()
        .zip([weight.is_some(), domain.is_some(), domain_hex.is_some()])
        .zip(allowed)
    {
        if present && !ok {
            return Err(bad(name, Fault::Unknown));
        }
    }
    let weight_missing = weight.is_none();
    let node = RawNode {
        fault: None,
        members: [id, id_hex, weight, domain, domain_hex],
    };
    let node = parse_node(node, index).map_err(|e| within("changes", e))?;
    Ok(match op.as_ref() {
        "add" => SlotChange::Add(node),
        "remove" => SlotChange::Remove(node.id().to_vec()),
        _ if weight_missing => return Err(bad("weight", Fault::Missing)),
        _ => SlotChange::Weight(node.id().to_vec(), node.weight()),
    })
}

/// Every check of SLOT-HISTORY.md, "Loading", before the membership checks.
fn check_document(doc: Option<RawHistory<'_>>) -> Result<Parsed, Error> {
    let Some(doc) = doc else {
        return Err(fault("", None, Fault::WrongType));
    };
    if let Some((name, reason)) = doc.fault {
        return Err(fault(&name, None, reason));
    }
    let [format, policy, overload_ppm, epoch, seed, seed_fingerprint, slots] = &doc.members;
    if string(required(format, "format")?, "format", None)? != SLOT_HISTORY_FORMAT {
        return Err(fault("format", None, Fault::Unsupported));
    }
    let levelled = match string(required(policy, "policy")?, "policy", None)? {
        super::SLOT_TABLE_POLICY => true,
        super::RANKED_SLOT_TABLE_POLICY => false,
        _ => return Err(fault("policy", None, Fault::Unsupported)),
    };
    let mode = match (levelled, overload_ppm) {
        (true, None) => SlotMode::Levelled,
        // A levelled table has no bound, as a default seed has no fingerprint.
        (true, Some(_)) => return Err(fault("overload_ppm", None, Fault::Conflict)),
        (false, None) => SlotMode::Ranked { overload_ppm: None },
        (false, Some(Scalar::Number(p))) => {
            let p = *p;
            // Above 2^32 - 1 (whole or not) is out of range; a negative number or a fraction is
            // not a bound at all. -0 is 0.
            if p > f64::from(u32::MAX) {
                return Err(fault("overload_ppm", None, Fault::OutOfRange));
            }
            if !(p >= 0.0 && f64::from(p as u32) == p) {
                return Err(fault("overload_ppm", None, Fault::Invalid));
            }
            let p = p as u32;
            SlotMode::Ranked {
                overload_ppm: Some(p),
            }
        }
        (false, Some(_)) => return Err(fault("overload_ppm", None, Fault::WrongType)),
    };
    let epoch = parse_epoch(string(required(epoch, "epoch")?, "epoch", None)?)?;
    let seed_fingerprint = parse_seed(seed, seed_fingerprint)?;
    let Scalar::Number(s) = *required(slots, "slots")? else {
        return Err(fault("slots", None, Fault::WrongType));
    };
    // Below 2^64 the cast is exact exactly when `s` is whole (no `f64::fract` without std).
    if !((0.0..TWO_POW_64).contains(&s) && (s as u64) as f64 == s) {
        return Err(fault("slots", None, Fault::Invalid));
    }
    let slots = s as u64;
    if slots == 0 || slots > MAX_SLOTS {
        return Err(Error::InvalidSlotCount { value: slots });
    }
    let initial = list(doc.initial, "initial")?;
    let changes = list(doc.changes, "changes")?;
    Ok(Parsed {
        mode,
        epoch,
        seed_fingerprint,
        slots,
        initial,
        changes,
    })
}

// ---- visitors ---------------------------------------------------------------------------

fn parse(bytes: &[u8]) -> Result<Option<RawHistory<'_>>, Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let doc = de
        .deserialize_any(HistoryVisitor)
        .and_then(|doc| de.end().map(|()| doc));
    // As for views (VIEW.md 5.1).
    doc.map_err(|e| crate::view::json::syntax_error(bytes, &e))
}

/// The scalar members of an object of `N` known names, after its first unknown or repeated one.
struct RawObject<'de, const N: usize> {
    fault: MemberFault<'de>,
    members: [Option<Scalar<'de>>; N],
}

struct ObjectVisitor<const N: usize>(&'static [&'static str; N]);

impl<'de, const N: usize> Visitor<'de> for ObjectVisitor<N> {
    /// `None`: not an object.
    type Value = Option<RawObject<'de, N>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut obj = RawObject {
            fault: None,
            members: core::array::from_fn(|_| None),
        };
        json::members(
            &mut map,
            self.0,
            &mut obj.members,
            &mut obj.fault,
            |map, _| map.next_value::<Skip>().map(|_| ()),
        )?;
        Ok(Some(obj))
    }
    not_an_object_is_none!();
}

impl<'de, const N: usize> DeserializeSeed<'de> for ObjectVisitor<N> {
    type Value = Option<RawObject<'de, N>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// An array of objects, each converted as it is read; after the first error (or past `limit`
/// elements) the rest is only parsed.
struct ListVisitor<const N: usize, T> {
    names: &'static [&'static str; N],
    limit: Option<(usize, &'static str)>,
    convert: fn(Option<RawObject<'_, N>>, usize) -> Result<T, Error>,
}

impl<'de, const N: usize, T> Visitor<'de> for ListVisitor<N, T> {
    type Value = Option<List<T>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        let mut index = 0;
        while let Some(raw) = seq.next_element_seed(ObjectVisitor(self.names))? {
            let converted = match self.limit {
                Some((max, name)) if index >= max => {
                    Err(fault(name, Some(index), Fault::OutOfRange))
                }
                _ => (self.convert)(raw, index),
            };
            match converted {
                Ok(item) => items.push(item),
                Err(e) => {
                    drain_seq(seq)?;
                    return Ok(Some(List::Items(Err(e))));
                }
            }
            index += 1;
        }
        Ok(Some(List::Items(Ok(items))))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|()| None)
    }
    other_types_are!(None);
}

impl<'de, const N: usize, T> DeserializeSeed<'de> for ListVisitor<N, T> {
    type Value = List<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<List<T>, D::Error> {
        Ok(d.deserialize_any(self)?.unwrap_or(List::NotArray))
    }
}

struct HistoryVisitor;

impl<'de> Visitor<'de> for HistoryVisitor {
    /// `None`: not an object.
    type Value = Option<RawHistory<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a slot history document")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut doc = RawHistory {
            fault: None,
            members: Default::default(),
            initial: None,
            changes: None,
        };
        let (mut initial, mut changes) = (None, None);
        json::members(
            &mut map,
            &TOP_MEMBERS,
            &mut doc.members,
            &mut doc.fault,
            |map, i| {
                if i == 7 {
                    initial = Some(map.next_value_seed(ListVisitor {
                        names: &NODE_MEMBERS,
                        limit: None,
                        convert: initial_node,
                    })?);
                } else {
                    changes = Some(map.next_value_seed(ListVisitor {
                        names: &CHANGE_MEMBERS,
                        limit: Some((MAX_CHANGES, "changes")),
                        convert: change,
                    })?);
                }
                Ok(())
            },
        )?;
        doc.initial = initial;
        doc.changes = changes;
        Ok(Some(doc))
    }
    not_an_object_is_none!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_fingerprint_debug_names_its_type() {
        let fp = Fingerprint([0x0f; 16]);
        assert_eq!(
            format!("{fp:?}"),
            format!("Fingerprint({})", "0f".repeat(16))
        );
    }

    fn history() -> SlotTable {
        let mut h = SlotTable::new(&Placement::new(["b", "a", "c"]).unwrap(), 48)
            .unwrap()
            .with_epoch(3);
        h.push(SlotChange::Add(
            Node::new("d").with_weight(Weight::new(2.0).unwrap()),
        ))
        .unwrap();
        h.push(SlotChange::Remove(b"a".to_vec())).unwrap();
        h.push(SlotChange::Weight(b"c".to_vec(), Weight::new(0.5).unwrap()))
            .unwrap();
        h
    }

    #[test]
    fn canonical_form_round_trips() {
        let h = history();
        let text = h.to_json();
        assert!(text.starts_with("{\n  \"format\": \"hrwhash-slot-history-v1\",\n"));
        assert!(text.contains("\"initial\": [\n    {\"id\": \"a\"},\n    {\"id\": \"b\"},\n"));
        assert!(text.contains("{\"op\": \"weight\", \"id\": \"c\", \"weight\": 0.5}\n  ]\n}\n"));
        let back = SlotTable::from_json(&text).unwrap();
        assert_eq!(back.to_json(), text);
        assert_eq!(back.assignments(), h.assignments());
        assert_eq!(back.fingerprint(), h.fingerprint());
    }

    #[test]
    fn the_table_is_the_replayed_table_in_either_mode() {
        let p = Placement::new(["b", "a", "c"]).unwrap();
        let t = SlotTable::new(&p, 48)
            .unwrap()
            .with_node(Node::new("d").with_weight(Weight::new(2.0).unwrap()))
            .unwrap()
            .without_node("a")
            .unwrap()
            .with_weight("c", Weight::new(0.5).unwrap())
            .unwrap();
        assert_eq!(history().assignments(), t.assignments());
        assert_eq!(
            history().view().fingerprint(),
            View::new(t.placement().clone(), 3).unwrap().fingerprint()
        );
        for ppm in [None, Some(0), Some(70_000), Some(u32::MAX)] {
            let mut ranked = SlotTable::ranked(&p, 48, ppm).unwrap().with_epoch(3);
            for c in history().changes() {
                ranked.push(c.clone()).unwrap();
            }
            let text = ranked.to_json();
            let loaded = SlotTable::from_json(&text).unwrap();
            assert_eq!(loaded.assignments(), ranked.assignments());
            assert_eq!(loaded.capacities(), ranked.capacities());
            assert_eq!(loaded.fingerprint(), ranked.fingerprint());
            assert_eq!(loaded.to_json(), text);
            let fresh = SlotTable::ranked(ranked.placement(), 48, ppm).unwrap();
            assert_eq!(loaded.assignments(), fresh.assignments());
            // The history is not part of a ranked table's fingerprint; the bound is.
            assert_eq!(fresh.with_epoch(3).fingerprint(), ranked.fingerprint());
            assert_ne!(ranked.fingerprint(), history().fingerprint());
        }
    }

    #[test]
    fn push_failures_leave_the_history_unchanged() {
        let mut h = history();
        let before = h.to_json();
        assert_eq!(
            h.push(SlotChange::Remove(b"zz".to_vec())).unwrap_err(),
            Error::UnknownNode
        );
        assert_eq!(
            h.push(SlotChange::Add(Node::new("b"))).unwrap_err(),
            Error::DuplicateNodeId {
                index: 3,
                first_index: 0
            }
        );
        assert_eq!(
            h.push(SlotChange::Add(Node::new(""))).unwrap_err(),
            Error::EmptyNodeId { index: 3 }
        );
        assert_eq!(
            h.push(SlotChange::Weight(
                b"d".to_vec(),
                Weight::from_fixed((1 << 60) + 1)
            ))
            .unwrap_err(),
            fault("changes.weight", Some(3), Fault::NotRepresentable)
        );
        assert_eq!(h.to_json(), before);
    }

    #[test]
    fn change_members_are_checked_per_op() {
        let doc = |change: &str| {
            format!(
                "{{\"format\": \"hrwhash-slot-history-v1\", \"policy\": \"slot-table-v2\", \
                 \"epoch\": \"0\", \"seed\": \"default\", \"slots\": 8, \
                 \"initial\": [{{\"id\": \"a\"}}], \"changes\": [{{\"op\": \"add\", \"id\": \"b\"}}, {change}]}}"
            )
        };
        for (change, field, reason) in [
            ("{\"id\": \"a\"}", "changes.op", Fault::Missing),
            ("{\"op\": 1, \"id\": \"a\"}", "changes.op", Fault::WrongType),
            (
                "{\"op\": \"drop\", \"id\": \"a\"}",
                "changes.op",
                Fault::Invalid,
            ),
            (
                "{\"op\": \"remove\", \"id\": \"a\", \"weight\": 1}",
                "changes.weight",
                Fault::Unknown,
            ),
            (
                "{\"op\": \"weight\", \"id\": \"a\", \"domain\": \"z\"}",
                "changes.domain",
                Fault::Unknown,
            ),
            (
                "{\"op\": \"weight\", \"id\": \"a\"}",
                "changes.weight",
                Fault::Missing,
            ),
            ("{\"op\": \"remove\"}", "changes.id", Fault::Missing),
            (
                "{\"op\": \"add\", \"id\": \"a\", \"x\": 1}",
                "changes.x",
                Fault::Unknown,
            ),
            ("[]", "changes", Fault::WrongType),
        ] {
            assert_eq!(
                SlotTable::from_json(&doc(change)).unwrap_err(),
                fault(field, Some(1), reason),
                "{change}"
            );
        }
        let ok = SlotTable::from_json(&doc(
            "{\"id_hex\": \"61\", \"op\": \"weight\", \"weight\": 2e0}",
        ))
        .unwrap();
        assert_eq!(ok.changes().len(), 2);
        assert_eq!(
            ok.placement().node_specs()[0].weight(),
            Weight::new(2.0).unwrap()
        );
    }
}
