//! Slot histories (`conformance/SLOT-HISTORY.md`, format `hrwhash-slot-history-v1`): the
//! document that makes a [`LevelledSlotTable`] a shared fact. A slot-table-v2 table depends on
//! the order of its changes, which a view cannot carry, so the history holds the first membership,
//! the number of slots and the ordered changes; every client that replays them holds the same
//! table, and compares it with others by its [`TableFingerprint`].
//!
//! ```
//! use hrwhash::policy::{SlotChange, SlotHistory};
//! use hrwhash::{Node, Placement, Weight};
//!
//! let mut history = SlotHistory::new(Placement::new(["a", "b", "c"])?, 64, 1)?;
//! history.push(SlotChange::Add(Node::new("d")))?;
//! history.push(SlotChange::Remove(b"a".to_vec()))?;
//! let text = history.to_json();
//! let loaded = SlotHistory::from_json(&text)?; // what every client loads
//! assert_eq!(loaded.table_fingerprint(), history.table_fingerprint());
//! assert_eq!(loaded.table().owner("user:42").id(), history.table().owner("user:42").id());
//! // The history ends at the published view of the membership.
//! assert_eq!(loaded.view().fingerprint(), history.view().fingerprint());
//! # Ok::<(), hrwhash::Error>(())
//! ```

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use sha2::{Digest, Sha256};

use crate::error::ViewFault;
use crate::policy::levelled_slots::{LevelledSlotTable, LEVELLED_SLOTS_POLICY};
use crate::view::json::{
    self, drain_map, drain_seq, other_types_are, Fault, RawNode, Scalar, Skip,
};
use crate::view::{
    fault, parse_epoch, parse_node, representable, string, unhex, weight_decimal, write_text,
    SeedFingerprint, ViewFingerprint,
};
use crate::{Error, Node, Placement, Seed, View, Weight};

/// The format tag of a slot history document.
pub const SLOT_HISTORY_FORMAT: &str = "hrwhash-slot-history-v1";

/// The most changes a history holds (SLOT-HISTORY.md, "Limits"): replaying one costs about one
/// pass over the slots, so this bounds what loading a document can cost.
pub const MAX_CHANGES: usize = 65_536;

/// One change of a slot history, replayed as the [`LevelledSlotTable`] call of the same name.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotChange {
    /// Append a node ([`LevelledSlotTable::with_node`]).
    Add(Node),
    /// Remove the node of this id ([`LevelledSlotTable::without_node`]).
    Remove(Vec<u8>),
    /// Give the node of this id another weight ([`LevelledSlotTable::with_weight`]).
    Weight(Vec<u8>, Weight),
}

/// The 128-bit digest of a table: the final membership's view fingerprint, the number of slots
/// and every slot's owner by its rank in id order, so it does not depend on build order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableFingerprint([u8; 16]);

impl TableFingerprint {
    /// The 16 bytes.
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// 32 lowercase hex digits.
    pub fn to_hex(self) -> String {
        crate::view::hex(&self.0)
    }
}

impl fmt::Display for TableFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for TableFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TableFingerprint({self})")
    }
}

/// A first membership, a number of slots, an epoch and ordered changes, with the table they give.
#[derive(Clone)]
pub struct SlotHistory {
    initial: Placement,
    epoch: u64,
    changes: Vec<SlotChange>,
    table: LevelledSlotTable,
}

impl fmt::Debug for SlotHistory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlotHistory")
            .field("epoch", &self.epoch)
            .field("slots", &self.table.slots())
            .field("initial", &self.initial.len())
            .field("changes", &self.changes.len())
            .finish()
    }
}

impl SlotHistory {
    /// A history with no change yet: the first table of `initial` with `slots` slots (1 to 2^24).
    /// Fails like [`LevelledSlotTable::new`], and with `InvalidView` (field `initial.weight`,
    /// reason `not_representable`) for a weight no JSON number holds exactly.
    pub fn new(initial: Placement, slots: u64, epoch: u64) -> Result<SlotHistory, Error> {
        let table = LevelledSlotTable::new(&initial, slots)?;
        if let Some(i) = initial
            .node_specs()
            .iter()
            .position(|n| !representable(n.weight()))
        {
            return Err(fault(
                "initial.weight",
                Some(i),
                ViewFault::NotRepresentable,
            ));
        }
        Ok(SlotHistory {
            initial,
            epoch,
            changes: Vec::new(),
            table,
        })
    }

    /// Loads a history written for the default seed. See [`SlotHistory::from_json_bytes`].
    pub fn from_json(text: &str) -> Result<SlotHistory, Error> {
        SlotHistory::from_json_bytes(text.as_bytes(), Seed::DEFAULT)
    }

    /// Loads a history, placing keys with `seed`, and replays its changes; fails with the first
    /// fault SLOT-HISTORY.md, "Loading", names, in its order.
    ///
    /// Cost (SLOT-HISTORY.md, "Limits and growth"): at most [`MAX_CHANGES`] changes (`InvalidView`
    /// field `changes`, `out_of_range`) and `2^24` slots (`InvalidSlotCount`), both checked
    /// before the first table is built; replaying costs about one pass over the slots per
    /// change. A file is read with [`crate::view::read_document`] (at most 1 GiB).
    pub fn from_json_bytes(bytes: &[u8], seed: Seed) -> Result<SlotHistory, Error> {
        let raw = parse(bytes)?;
        let parsed = check_document(raw)?;
        let initial = Placement::from_nodes(seed, parsed.initial)?;
        let matches = match parsed.seed_fingerprint {
            None => seed == Seed::DEFAULT,
            Some(fp) => fp == SeedFingerprint::of(&seed).to_bytes(),
        };
        if !matches {
            return Err(Error::SeedMismatch);
        }
        let mut history = SlotHistory::new(initial, parsed.slots, parsed.epoch)?;
        history.changes.reserve_exact(parsed.changes.len());
        for change in parsed.changes {
            history.push(change)?;
        }
        Ok(history)
    }

    /// Applies one more change in place; on error the history is unchanged. The errors are the
    /// table's (`UnknownNode`, `AllWeightsZero`, ...), with the change's position in the
    /// history as the `index` of `EmptyNodeId` and `DuplicateNodeId`.
    pub fn push(&mut self, change: SlotChange) -> Result<(), Error> {
        let at = self.changes.len();
        if at >= MAX_CHANGES {
            return Err(fault("changes", Some(at), ViewFault::OutOfRange));
        }
        let weight = match &change {
            SlotChange::Add(node) => Some(node.weight()),
            SlotChange::Weight(_, w) => Some(*w),
            SlotChange::Remove(_) => None,
        };
        if weight.is_some_and(|w| !representable(w)) {
            return Err(fault(
                "changes.weight",
                Some(at),
                ViewFault::NotRepresentable,
            ));
        }
        // In place: a failed change leaves the table as it was.
        match &change {
            SlotChange::Add(node) => self.table.add_node(node.clone()).map_err(|e| match e {
                Error::EmptyNodeId { .. } => Error::EmptyNodeId { index: at },
                Error::DuplicateNodeId { first_index, .. } => Error::DuplicateNodeId {
                    index: at,
                    first_index,
                },
                e => e,
            })?,
            SlotChange::Remove(id) => self.table.remove_node(id)?,
            SlotChange::Weight(id, w) => self.table.set_weight(id, *w)?,
        }
        self.changes.push(change);
        Ok(())
    }

    /// The history with one more change.
    pub fn with_change(&self, change: SlotChange) -> Result<SlotHistory, Error> {
        let mut next = self.clone();
        next.push(change)?;
        Ok(next)
    }

    /// The same history at another epoch.
    pub fn with_epoch(&self, epoch: u64) -> SlotHistory {
        SlotHistory {
            epoch,
            ..self.clone()
        }
    }

    /// The table the changes lead to.
    pub fn table(&self) -> &LevelledSlotTable {
        &self.table
    }

    /// The first membership, in build order.
    pub fn initial(&self) -> &Placement {
        &self.initial
    }

    /// The changes, in the order they apply.
    pub fn changes(&self) -> &[SlotChange] {
        &self.changes
    }

    /// The epoch (that of the final membership's view).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The final membership as a view at the history's epoch, to compare with a published view.
    pub fn view(&self) -> View {
        View::new(self.table.placement().clone(), self.epoch)
            .expect("every weight of a history is checked to be representable")
    }

    /// SLOT-HISTORY.md, "Table fingerprint".
    pub fn table_fingerprint(&self) -> TableFingerprint {
        let placement = self.table.placement();
        let nodes = placement.node_specs();
        let mut by_id: Vec<usize> = (0..nodes.len()).collect();
        by_id.sort_unstable_by(|&a, &b| nodes[a].id().cmp(nodes[b].id()));
        let mut rank = alloc::vec![0u32; nodes.len()];
        for (r, &i) in by_id.iter().enumerate() {
            rank[i] = r as u32;
        }
        let mut h = Sha256::new();
        h.update((LEVELLED_SLOTS_POLICY.len() as u64).to_le_bytes());
        h.update(LEVELLED_SLOTS_POLICY.as_bytes());
        h.update(self.view().fingerprint().to_bytes());
        h.update(u64::from(self.table.slots()).to_le_bytes());
        for &owner in self.table.assignments() {
            h.update(rank[owner as usize].to_le_bytes());
        }
        let digest = h.finalize();
        let mut out = [0u8; 16];
        out.copy_from_slice(&digest[..16]);
        TableFingerprint(out)
    }

    /// The final membership's view fingerprint.
    pub fn view_fingerprint(&self) -> ViewFingerprint {
        self.view().fingerprint()
    }

    /// The canonical JSON form (SLOT-HISTORY.md, "Canonical form"): the first membership in id
    /// order, the changes in their order, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256 + (self.initial.len() + self.changes.len()) * 40);
        out.push_str("{\n  \"format\": \"");
        out.push_str(SLOT_HISTORY_FORMAT);
        out.push_str("\",\n  \"policy\": \"");
        out.push_str(LEVELLED_SLOTS_POLICY);
        out.push_str("\",\n  \"epoch\": \"");
        out.push_str(&self.epoch.to_string());
        let seed = self.initial.seed();
        if seed == Seed::DEFAULT {
            out.push_str("\",\n  \"seed\": \"default\",\n");
        } else {
            out.push_str("\",\n  \"seed\": \"secret\",\n  \"seed_fingerprint\": \"");
            out.push_str(&SeedFingerprint::of(&seed).to_hex());
            out.push_str("\",\n");
        }
        out.push_str("  \"slots\": ");
        out.push_str(&self.table.slots().to_string());
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

const TOP_MEMBERS: [&str; 8] = [
    "format",
    "policy",
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
    fault: Fault<'de>,
    /// `format` .. `slots`, in the order of [`TOP_MEMBERS`].
    members: [Option<Scalar<'de>>; 6],
    initial: Option<List<Node>>,
    changes: Option<List<SlotChange>>,
}

struct Parsed {
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
        None => Err(fault(name, None, ViewFault::Missing)),
        Some(List::NotArray) => Err(fault(name, None, ViewFault::WrongType)),
        Some(List::Items(items)) => items,
    }
}

fn required<'a, 'de>(
    value: &'a Option<Scalar<'de>>,
    field: &str,
) -> Result<&'a Scalar<'de>, Error> {
    value
        .as_ref()
        .ok_or_else(|| fault(field, None, ViewFault::Missing))
}

fn initial_node(raw: Option<RawObject<'_, 5>>, index: usize) -> Result<Node, Error> {
    let raw = raw.ok_or_else(|| fault("initial", Some(index), ViewFault::WrongType))?;
    let node = RawNode {
        fault: raw.fault,
        members: raw.members,
    };
    parse_node(node, index).map_err(|e| within("initial", e))
}

fn change(raw: Option<RawObject<'_, 6>>, index: usize) -> Result<SlotChange, Error> {
    let raw = raw.ok_or_else(|| fault("changes", Some(index), ViewFault::WrongType))?;
    let bad = |name: &str, reason| fault(&format!("changes.{name}"), Some(index), reason);
    if let Some((name, reason)) = raw.fault {
        return Err(bad(&name, reason));
    }
    let [op, id, id_hex, weight, domain, domain_hex] = raw.members;
    let op = op.ok_or_else(|| bad("op", ViewFault::Missing))?;
    let Scalar::Str(op) = op else {
        return Err(bad("op", ViewFault::WrongType));
    };
    let allowed: &[bool; 3] = match op.as_ref() {
        "add" => &[true, true, true],
        "remove" => &[false, false, false],
        "weight" => &[true, false, false],
        _ => return Err(bad("op", ViewFault::Invalid)),
    };
    for ((name, present), ok) in ["weight", "domain", "domain_hex"]
        .iter()
        .zip([weight.is_some(), domain.is_some(), domain_hex.is_some()])
        .zip(allowed)
    {
        if present && !ok {
            return Err(bad(name, ViewFault::Unknown));
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
        _ if weight_missing => return Err(bad("weight", ViewFault::Missing)),
        _ => SlotChange::Weight(node.id().to_vec(), node.weight()),
    })
}

/// Every check of SLOT-HISTORY.md, "Loading", before the membership checks.
fn check_document(doc: Option<RawHistory<'_>>) -> Result<Parsed, Error> {
    let Some(doc) = doc else {
        return Err(fault("", None, ViewFault::WrongType));
    };
    if let Some((name, reason)) = doc.fault {
        return Err(fault(&name, None, reason));
    }
    let [format, policy, epoch, seed, seed_fingerprint, slots] = &doc.members;
    for (value, name, want) in [
        (format, "format", SLOT_HISTORY_FORMAT),
        (policy, "policy", LEVELLED_SLOTS_POLICY),
    ] {
        if string(required(value, name)?, name, None)? != want {
            return Err(fault(name, None, ViewFault::Unsupported));
        }
    }
    let epoch = parse_epoch(string(required(epoch, "epoch")?, "epoch", None)?)?;
    let seed_fingerprint = match string(required(seed, "seed")?, "seed", None)? {
        "default" => match seed_fingerprint {
            Some(_) => return Err(fault("seed_fingerprint", None, ViewFault::Conflict)),
            None => None,
        },
        "secret" => {
            let fp = required(seed_fingerprint, "seed_fingerprint")?;
            let fp = string(fp, "seed_fingerprint", None)?;
            let bytes = unhex(fp)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .ok_or_else(|| fault("seed_fingerprint", None, ViewFault::Invalid))?;
            Some(bytes)
        }
        _ => return Err(fault("seed", None, ViewFault::Invalid)),
    };
    let Scalar::Number(s) = *required(slots, "slots")? else {
        return Err(fault("slots", None, ViewFault::WrongType));
    };
    // Below 2^64 the cast is exact exactly when `s` is whole (no `f64::fract` without std).
    if !((0.0..TWO_POW_64).contains(&s) && (s as u64) as f64 == s) {
        return Err(fault("slots", None, ViewFault::Invalid));
    }
    let slots = s as u64;
    if slots == 0 || slots > crate::policy::slot_table::MAX_SLOTS {
        return Err(Error::InvalidSlotCount { value: slots });
    }
    let initial = list(doc.initial, "initial")?;
    let changes = list(doc.changes, "changes")?;
    Ok(Parsed {
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
    fault: Fault<'de>,
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
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| None)
    }
    other_types_are!(None);
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
                    Err(fault(name, Some(index), ViewFault::OutOfRange))
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
                if i == 6 {
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
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq).map(|()| None)
    }
    other_types_are!(None);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> SlotHistory {
        let mut h = SlotHistory::new(Placement::new(["b", "a", "c"]).unwrap(), 48, 3).unwrap();
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
        let back = SlotHistory::from_json(&text).unwrap();
        assert_eq!(back.to_json(), text);
        assert_eq!(back.table().assignments(), h.table().assignments());
        assert_eq!(back.table_fingerprint(), h.table_fingerprint());
    }

    #[test]
    fn the_table_is_the_replayed_levelled_table() {
        let p = Placement::new(["b", "a", "c"]).unwrap();
        let t = LevelledSlotTable::new(&p, 48)
            .unwrap()
            .with_node(Node::new("d").with_weight(Weight::new(2.0).unwrap()))
            .unwrap()
            .without_node("a")
            .unwrap()
            .with_weight("c", Weight::new(0.5).unwrap())
            .unwrap();
        assert_eq!(history().table().assignments(), t.assignments());
        assert_eq!(
            history().view().fingerprint(),
            View::new(t.placement().clone(), 3).unwrap().fingerprint()
        );
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
            fault("changes.weight", Some(3), ViewFault::NotRepresentable)
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
            ("{\"id\": \"a\"}", "changes.op", ViewFault::Missing),
            (
                "{\"op\": 1, \"id\": \"a\"}",
                "changes.op",
                ViewFault::WrongType,
            ),
            (
                "{\"op\": \"drop\", \"id\": \"a\"}",
                "changes.op",
                ViewFault::Invalid,
            ),
            (
                "{\"op\": \"remove\", \"id\": \"a\", \"weight\": 1}",
                "changes.weight",
                ViewFault::Unknown,
            ),
            (
                "{\"op\": \"weight\", \"id\": \"a\", \"domain\": \"z\"}",
                "changes.domain",
                ViewFault::Unknown,
            ),
            (
                "{\"op\": \"weight\", \"id\": \"a\"}",
                "changes.weight",
                ViewFault::Missing,
            ),
            ("{\"op\": \"remove\"}", "changes.id", ViewFault::Missing),
            (
                "{\"op\": \"add\", \"id\": \"a\", \"x\": 1}",
                "changes.x",
                ViewFault::Unknown,
            ),
            ("[]", "changes", ViewFault::WrongType),
        ] {
            assert_eq!(
                SlotHistory::from_json(&doc(change)).unwrap_err(),
                fault(field, Some(1), reason),
                "{change}"
            );
        }
        let ok = SlotHistory::from_json(&doc(
            "{\"id_hex\": \"61\", \"op\": \"weight\", \"weight\": 2e0}",
        ))
        .unwrap();
        assert_eq!(ok.changes().len(), 2);
        assert_eq!(
            ok.table().placement().node_specs()[0].weight(),
            Weight::new(2.0).unwrap()
        );
    }
}
