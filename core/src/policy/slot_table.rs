//! Slot tables (conformance/POLICIES.md, "slot-table (v1)" and "slot-table (v2)"): keys hash to a
//! fixed number of slots, and a table maps each slot to a node, so an owner lookup is one key
//! digest and one array read whatever the number of nodes.
//!
//! One type, [`SlotTable`], in one of two modes ([`SlotMode`]):
//!
//! - **levelled** (the default, tag `slot-table-v2`): the first table gives every node its share
//!   as a run of slots, and each change moves only the changed node's slots, one at a time to or
//!   from the most or least loaded nodes. The table depends on the order of changes.
//! - **ranked** (tag `slot-table-v1`): every slot goes to the first node of its hrw-v1 ranking that
//!   has room, with an optional overload bound. The table depends only on the current membership,
//!   so a client holding only a view can build it.
//!
//! Either way a table's state is its **history**: the first membership, the number of slots, the
//! mode, the ordered changes and an epoch. That is what its document holds
//! (conformance/SLOT-HISTORY.md, format `hrwhash-slot-history-v1`, with the `json` feature), what
//! the table fingerprint compares, and what every client that replays it shares. A levelled table cannot be shared any
//! other way: a view carries a membership, not the order of the changes that led to it.
//!
//! ```
//! use hrwhash::policy::{SlotMode, SlotTable};
//! use hrwhash::{Node, Placement};
//!
//! let fleet = Placement::new((0..100).map(|i| format!("node-{i}")))?;
//! let mut table = SlotTable::new(&fleet, 4096)?;
//! assert_eq!(table.mode(), SlotMode::Levelled);
//! assert_eq!(table.owner("user:42"), table.owner_of_slot(table.slot("user:42").into())?);
//! // 4096 / 100 = 40.96 slots per node: every node holds 40 or 41.
//! assert!(table.slot_counts().iter().all(|&c| c == 40 || c == 41));
//!
//! // One more node takes round(4096 / 101) = 41 slots, and no other slot moves.
//! let before = table.assignments().to_vec();
//! table.add_node(Node::new("node-100"))?;
//! let moved = before.iter().zip(table.assignments()).filter(|(a, b)| a != b);
//! assert!(moved.clone().all(|(_, &b)| b == 100));
//! assert_eq!(moved.count(), 41);
//!
//! // Ranked, bounded: no node holds more than ceil(1.05 * 4096 / 100) = 44 slots, and a change
//! // gives the table a fresh build over the new membership gives.
//! let ranked = SlotTable::ranked(&fleet, 4096, Some(50_000))?;
//! assert!(ranked.slot_counts().iter().all(|&c| c <= 44));
//! let grown = ranked.with_node(Node::new("node-100"))?;
//! let fresh = SlotTable::ranked(grown.placement(), 4096, Some(50_000))?;
//! assert_eq!(grown.assignments(), fresh.assignments());
//! # Ok::<(), hrwhash::Error>(())
//! ```

use alloc::vec::Vec;

use crate::error::Fault;
use crate::v1::key_digest;
use crate::weight::representable;
use crate::{Error, Node, NodeRef, Placement, Weight};

#[cfg(feature = "json")]
mod history;
mod levelled;
mod ranked;

#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub use history::SLOT_HISTORY_FORMAT;
pub use ranked::capacities;

use levelled::Levelled;
use ranked::Ranked;

/// The tag of the levelled mode, the default (POLICIES.md, "slot-table (v2)").
pub const SLOT_TABLE_POLICY: &str = "slot-table-v2";

/// The tag of the ranked mode (POLICIES.md, "slot-table (v1)").
pub const RANKED_SLOT_TABLE_POLICY: &str = "slot-table-v1";

/// The largest number of slots: 2^24 (a 64 MiB table of 32-bit node indices). It is the cap on
/// what one slot-table build or change may cost, since a caller names the count in a few bytes.
pub const MAX_SLOTS: u64 = 1 << 24;

/// The most changes a table's history holds (SLOT-HISTORY.md, "Limits"): replaying one costs
/// about one pass over the slots, so this bounds what loading a document can cost.
pub const MAX_CHANGES: usize = 65_536;

/// The most one table's history may cost to replay (SLOT-HISTORY.md, "Limits and growth"), in
/// units of one slot or one node looked at: a levelled change costs `S + N` (the slots, and the
/// `N` nodes of the membership before it), a ranked one `N` (a loader replays a ranked history on
/// the membership alone). A change that would take its history past the cap is
/// [`Error::ResultTooLarge`], whether it is replayed by a loader or pushed in place, so every
/// history a table can write, a loader can read. 2^25 is about 10 s of replay on one core for the
/// costliest shapes measured (2^24 slots and two nodes, or 20,000 nodes and 64 slots).
pub const MAX_REPLAY_COST: u64 = 1 << 25;

/// Capacities are `ceil(S * w_i * (10^6 + overload_ppm) / (10^6 * sum w))`.
pub const PPM: u64 = 1_000_000;

/// The slot of the key whose hrw-v1 key digest is `kd`, among `slots`: `floor(kd * slots / 2^64)`.
#[inline]
pub fn slot_of_digest(kd: u64, slots: u32) -> u32 {
    ((kd as u128 * slots as u128) >> 64) as u32
}

/// How a [`SlotTable`] gives slots to nodes, and how a change moves them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SlotMode {
    /// Tag `slot-table-v2`: each change levels from the table before it, moving only the changed
    /// node's slots; the table depends on the order of changes.
    #[default]
    Levelled,
    /// Tag `slot-table-v1`: every slot goes to the first node of its hrw-v1 ranking that has room;
    /// the table depends only on the current membership.
    Ranked {
        /// With `Some(p)`, no node holds more than `ceil(S * share * (1 + p / 10^6))` slots,
        /// where `share` is its weight over the sum of weights; `None` is the plain HRW slot table.
        overload_ppm: Option<u32>,
    },
}

impl SlotMode {
    /// The mode's policy tag: `slot-table-v2` (levelled) or `slot-table-v1` (ranked).
    pub const fn policy(self) -> &'static str {
        match self {
            SlotMode::Levelled => SLOT_TABLE_POLICY,
            SlotMode::Ranked { .. } => RANKED_SLOT_TABLE_POLICY,
        }
    }

    /// Prefix of the key whose hrw-v1 digest is a slot's digest: the policy tag and a colon.
    pub const fn key_prefix(self) -> &'static [u8] {
        match self {
            SlotMode::Levelled => levelled::KEY_PREFIX,
            SlotMode::Ranked { .. } => ranked::KEY_PREFIX,
        }
    }

    /// The overload bound of a bounded ranked table; `None` otherwise.
    pub const fn overload_ppm(self) -> Option<u32> {
        match self {
            SlotMode::Levelled => None,
            SlotMode::Ranked { overload_ppm } => overload_ppm,
        }
    }
}

/// One change of a slot table's history, applied as the [`SlotTable`] method of the same name.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotChange {
    /// Append a node ([`SlotTable::add_node`]).
    Add(Node),
    /// Remove the node of this id ([`SlotTable::remove_node`]).
    Remove(Vec<u8>),
    /// Give the node of this id another weight ([`SlotTable::set_weight`]).
    Weight(Vec<u8>, Weight),
}

#[derive(Clone)]
enum Table {
    Levelled(Levelled),
    Ranked(Ranked),
}

/// A slot table: `slot(key)`, `owner_of_slot(slot)` and `owner(key)` in O(1), with its history
/// (first membership, ordered changes, epoch) as its state.
///
/// Changes come in place ([`add_node`](SlotTable::add_node), [`remove_node`](SlotTable::remove_node),
/// [`set_weight`](SlotTable::set_weight), [`push`](SlotTable::push)) and as copies
/// ([`with_node`](SlotTable::with_node), [`without_node`](SlotTable::without_node),
/// [`with_weight`](SlotTable::with_weight), [`with_change`](SlotTable::with_change)); each one
/// appends to the history, and one that fails leaves the table as it was.
#[derive(Clone)]
pub struct SlotTable {
    initial: Placement,
    epoch: u64,
    changes: Vec<SlotChange>,
    /// What replaying `changes` costs, in [`MAX_REPLAY_COST`] units.
    cost: u64,
    table: Table,
}

impl core::fmt::Debug for SlotTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SlotTable")
            .field("mode", &self.mode())
            .field("slots", &self.slots())
            .field("epoch", &self.epoch)
            .field("initial", &self.initial.len())
            .field("changes", &self.changes.len())
            .field("placement", self.placement())
            .finish()
    }
}

fn fault(field: &str, index: Option<usize>, reason: Fault) -> Error {
    Error::InvalidView {
        field: field.into(),
        index,
        reason,
    }
}

/// What a change did to the membership, for the table to follow.
enum Step {
    Added,
    Removed(usize),
    Reweighted(usize),
}

/// The membership after `change`, the `at`-th change of a history, or its error (SLOT-HISTORY.md
/// 5, check 13, and the weight rule of section 3). `current` is not changed.
fn step(current: &Placement, change: &SlotChange, at: usize) -> Result<(Placement, Step), Error> {
    let weight = match change {
        SlotChange::Add(node) => Some(node.weight()),
        SlotChange::Weight(_, w) => Some(*w),
        SlotChange::Remove(_) => None,
    };
    if weight.is_some_and(|w| !representable(w)) {
        return Err(fault("changes.weight", Some(at), Fault::NotRepresentable));
    }
    match change {
        SlotChange::Add(node) => {
            let placement = current.with_node(node.clone()).map_err(|e| match e {
                Error::EmptyNodeId { .. } => Error::EmptyNodeId { index: at },
                Error::DuplicateNodeId { first_index, .. } => Error::DuplicateNodeId {
                    index: at,
                    first_index,
                },
                e => e,
            })?;
            Ok((placement, Step::Added))
        }
        SlotChange::Remove(id) => {
            let gone = current.find(id).ok_or(Error::UnknownNode)?.index();
            Ok((current.without_node(id)?, Step::Removed(gone)))
        }
        SlotChange::Weight(id, w) => {
            let index = current.find(id).ok_or(Error::UnknownNode)?.index();
            Ok((current.with_weight(id, *w)?, Step::Reweighted(index)))
        }
    }
}

fn check_initial(initial: &Placement) -> Result<(), Error> {
    match initial
        .node_specs()
        .iter()
        .position(|n| !representable(n.weight()))
    {
        Some(i) => Err(fault("initial.weight", Some(i), Fault::NotRepresentable)),
        None => Ok(()),
    }
}

impl SlotTable {
    /// The levelled table of `placement` with `slots` slots (1 to 2^24), at epoch 0 and with no
    /// change yet: every node gets its share of the slots rounded by largest remainder, as one run
    /// of consecutive slots, the nodes in node-digest order.
    ///
    /// Fails with [`Error::InvalidSlotCount`], then with `InvalidView` (field `initial.weight`,
    /// the node's position, reason `not_representable`) for a weight no JSON number holds
    /// exactly, since the table's document must hold it.
    ///
    /// Cost (POLICIES.md, slot-table (v2), "Cost"): [`MAX_SLOTS`] caps `slots`; a table holds
    /// about 28 bytes per slot. An add or a weight increase looks at each slot about once; a
    /// removal or a weight decrease looks at the changed node's slots once per node that takes
    /// some of them.
    pub fn new(placement: &Placement, slots: u64) -> Result<SlotTable, Error> {
        let table = Levelled::new(placement, slots)?;
        SlotTable::first(placement, Table::Levelled(table))
    }

    /// The ranked table of `placement` with `slots` slots (1 to 2^24), at epoch 0 and with no
    /// change yet. With `overload_ppm = Some(p)`, no node holds more than
    /// `ceil(S * share * (1 + p / 10^6))` slots, where `share` is its weight over the sum of
    /// weights (the bounded-load table); with `None` every slot goes to the first node of its
    /// ranking (the plain HRW slot table). Fails as [`SlotTable::new`] does.
    ///
    /// Cost (POLICIES.md, slot-table (v1), "Cost"): a build scores about 6 nodes per slot and
    /// holds about 50 bytes per slot; each change costs about one pass over the slots.
    pub fn ranked(
        placement: &Placement,
        slots: u64,
        overload_ppm: Option<u32>,
    ) -> Result<SlotTable, Error> {
        let table = Ranked::new(placement, slots, overload_ppm)?;
        SlotTable::first(placement, Table::Ranked(table))
    }

    /// A first table of `placement`, at epoch 0 with no change yet.
    fn first(placement: &Placement, table: Table) -> Result<SlotTable, Error> {
        check_initial(placement)?;
        Ok(SlotTable {
            initial: placement.clone(),
            epoch: 0,
            changes: Vec::new(),
            cost: 0,
            table,
        })
    }

    // ---- queries ---------------------------------------------------------------------------

    /// Number of slots.
    pub fn slots(&self) -> u32 {
        self.assignments().len() as u32
    }

    /// The mode, with the overload bound of a ranked table.
    pub fn mode(&self) -> SlotMode {
        match &self.table {
            Table::Levelled(_) => SlotMode::Levelled,
            Table::Ranked(t) => SlotMode::Ranked {
                overload_ppm: t.overload_ppm(),
            },
        }
    }

    /// The overload bound in parts per million of a bounded ranked table; `None` for a levelled
    /// table and for the plain HRW slot table.
    pub fn overload_ppm(&self) -> Option<u32> {
        self.mode().overload_ppm()
    }

    /// The current membership: the first one with every change applied.
    pub fn placement(&self) -> &Placement {
        match &self.table {
            Table::Levelled(t) => t.placement(),
            Table::Ranked(t) => t.placement(),
        }
    }

    /// The first membership, in build order.
    pub fn initial(&self) -> &Placement {
        &self.initial
    }

    /// The changes, in the order they apply.
    pub fn changes(&self) -> &[SlotChange] {
        &self.changes
    }

    /// The epoch (that of the current membership's view); 0 unless set.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The slot of `key`: `floor(key_digest * slots / 2^64)` with the hrw-v1 key digest.
    #[inline]
    pub fn slot(&self, key: impl AsRef<[u8]>) -> u32 {
        slot_of_digest(
            key_digest(&self.placement().seed(), key.as_ref()),
            self.slots(),
        )
    }

    /// The node that owns `slot`, or [`Error::SlotOutOfRange`].
    pub fn owner_of_slot(&self, slot: u64) -> Result<NodeRef<'_>, Error> {
        let index = self.owner_index_of_slot(slot)?;
        Ok(self.node_ref(index))
    }

    /// The build-order index of the node that owns `slot`, or [`Error::SlotOutOfRange`].
    pub fn owner_index_of_slot(&self, slot: u64) -> Result<usize, Error> {
        let table = self.assignments();
        usize::try_from(slot)
            .ok()
            .and_then(|s| table.get(s))
            .map(|&i| i as usize)
            .ok_or(Error::SlotOutOfRange {
                slot,
                slots: table.len() as u32,
            })
    }

    /// The owner of `key`: the owner of its slot.
    #[inline]
    pub fn owner(&self, key: impl AsRef<[u8]>) -> NodeRef<'_> {
        self.node_ref(self.owner_index(key))
    }

    /// The build-order index of the owner of `key`.
    #[inline]
    pub fn owner_index(&self, key: impl AsRef<[u8]>) -> usize {
        self.assignments()[self.slot(key) as usize] as usize
    }

    /// The owner (build-order index in the current membership) of every slot, in slot order.
    pub fn assignments(&self) -> &[u32] {
        match &self.table {
            Table::Levelled(t) => t.assignments(),
            Table::Ranked(t) => t.assignments(),
        }
    }

    /// How many slots each node holds, by build-order index.
    pub fn slot_counts(&self) -> Vec<u32> {
        match &self.table {
            Table::Levelled(t) => t.slot_counts(),
            Table::Ranked(t) => {
                let mut counts = alloc::vec![0u32; t.placement().len()];
                for &n in t.assignments() {
                    counts[n as usize] += 1;
                }
                counts
            }
        }
    }

    /// The most slots each node may hold, by build-order index, for a bounded ranked table
    /// (POLICIES.md, slot-table (v1), "Capacities"); `None` for a levelled table and for the plain
    /// HRW slot table, whose nodes have no bound.
    pub fn capacities(&self) -> Option<Vec<u32>> {
        match &self.table {
            Table::Ranked(t) if t.overload_ppm().is_some() => Some(t.caps().to_vec()),
            _ => None,
        }
    }

    fn node_ref(&self, index: usize) -> NodeRef<'_> {
        self.placement()
            .node(index)
            .expect("table entries are node indices of the placement")
    }

    // ---- changes ---------------------------------------------------------------------------

    /// Appends one change to the history in place and moves the table to it; on an error the
    /// table is unchanged. The errors, in this order: more than [`MAX_CHANGES`] changes
    /// (`InvalidView` field `changes`, the change's position, `out_of_range`); a history that
    /// would cost more than [`MAX_REPLAY_COST`] to replay (`ResultTooLarge`); a weight no JSON
    /// number holds exactly (`InvalidView` field `changes.weight`, `not_representable`); then the
    /// membership's (`EmptyNodeId` and `DuplicateNodeId` with the change's position in the history
    /// as `index`, `UnknownNode`, `EmptyMembership`, `AllWeightsZero`).
    ///
    /// ```
    /// use hrwhash::policy::{SlotChange, SlotTable};
    /// use hrwhash::{Error, Node, Placement};
    ///
    /// let mut table = SlotTable::new(&Placement::new(["a", "b", "c"])?, 1024)?;
    /// table.push(SlotChange::Add(Node::new("d")))?;
    /// let before = table.assignments().to_vec();
    /// assert_eq!(table.push(SlotChange::Remove(b"zz".to_vec())), Err(Error::UnknownNode));
    /// assert_eq!(table.assignments(), &before[..]);
    /// assert_eq!(table.changes().len(), 1);
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn push(&mut self, change: SlotChange) -> Result<(), Error> {
        let at = self.changes.len();
        if at >= MAX_CHANGES {
            return Err(fault("changes", Some(at), Fault::OutOfRange));
        }
        let cost = replay_cost(self.cost, self.mode(), self.slots(), self.placement().len())?;
        // Every fallible step comes before the first write, so an error leaves the table as it was.
        let (placement, step) = step(self.placement(), &change, at)?;
        match (&mut self.table, step) {
            (Table::Levelled(t), Step::Added) => t.add(placement),
            (Table::Levelled(t), Step::Removed(gone)) => t.remove(placement, gone),
            (Table::Levelled(t), Step::Reweighted(i)) => t.reweight(placement, i),
            (Table::Ranked(t), Step::Added) => *t = t.added(placement),
            (Table::Ranked(t), Step::Removed(gone)) => *t = t.removed(placement, gone),
            (Table::Ranked(t), Step::Reweighted(i)) => *t = t.reweighted(placement, i),
        }
        self.changes.push(change);
        self.cost = cost;
        Ok(())
    }

    /// Appends `node` to the membership in place ([`SlotChange::Add`]): in a levelled table the
    /// node takes its share and only the slots it takes move. Errors as [`SlotTable::push`].
    ///
    /// ```
    /// use hrwhash::policy::SlotTable;
    /// use hrwhash::{Node, Placement};
    ///
    /// let mut table = SlotTable::new(&Placement::new(["a", "b", "c"])?, 1024)?;
    /// let copy = table.with_node(Node::new("d"))?;
    /// table.add_node(Node::new("d"))?;
    /// assert_eq!(table.assignments(), copy.assignments());
    /// assert!(table.add_node(Node::new("a")).is_err());
    /// assert_eq!(table.assignments(), copy.assignments());
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn add_node(&mut self, node: Node) -> Result<(), Error> {
        self.push(SlotChange::Add(node))
    }

    /// Removes the node of this id in place ([`SlotChange::Remove`]); the nodes after it in build
    /// order move down one index. In a levelled table its slots go one at a time to the least
    /// loaded nodes. Errors as [`SlotTable::push`].
    pub fn remove_node(&mut self, id: impl AsRef<[u8]>) -> Result<(), Error> {
        self.push(SlotChange::Remove(id.as_ref().to_vec()))
    }

    /// Gives the node of this id another weight in place ([`SlotChange::Weight`]). In a levelled
    /// table it takes slots from the most loaded nodes or gives its slots to the least loaded
    /// until it holds its new share.
    ///
    /// `weight` is a [`Weight`] or a number (`f64`). The checks come in the one order every
    /// language has (SLOT-HISTORY.md 7): the id ([`Error::UnknownNode`]), then the number as a
    /// weight ([`Error::InvalidWeight`]), then those of [`SlotTable::push`]. So an unknown id
    /// with an invalid weight is `UnknownNode` in every binding, which all call this.
    ///
    /// ```
    /// use hrwhash::policy::SlotTable;
    /// use hrwhash::{Error, Placement, Weight};
    ///
    /// let mut table = SlotTable::new(&Placement::new(["a", "b", "c"])?, 1024)?;
    /// table.set_weight("a", 2.0)?;
    /// table.set_weight("b", Weight::ZERO)?;
    /// assert_eq!(table.set_weight("zz", -1.0), Err(Error::UnknownNode));
    /// assert_eq!(table.set_weight("c", -1.0), Err(Error::InvalidWeight { value: -1.0 }));
    /// assert_eq!(table.changes().len(), 2);
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn set_weight<W>(&mut self, id: impl AsRef<[u8]>, weight: W) -> Result<(), Error>
    where
        W: TryInto<Weight>,
        Error: From<W::Error>,
    {
        let change = self.weight_change(id.as_ref(), weight)?;
        self.push(change)
    }

    /// The change of [`SlotTable::set_weight`], after its own checks (id, then weight).
    fn weight_change<W>(&self, id: &[u8], weight: W) -> Result<SlotChange, Error>
    where
        W: TryInto<Weight>,
        Error: From<W::Error>,
    {
        self.placement().find(id).ok_or(Error::UnknownNode)?;
        Ok(SlotChange::Weight(id.to_vec(), weight.try_into()?))
    }

    /// A copy with one more change ([`SlotTable::push`]).
    pub fn with_change(&self, change: SlotChange) -> Result<SlotTable, Error> {
        let mut next = self.clone();
        next.push(change)?;
        Ok(next)
    }

    /// A copy with `node` appended ([`SlotTable::add_node`]).
    pub fn with_node(&self, node: Node) -> Result<SlotTable, Error> {
        self.with_change(SlotChange::Add(node))
    }

    /// A copy without the node of this id ([`SlotTable::remove_node`]).
    pub fn without_node(&self, id: impl AsRef<[u8]>) -> Result<SlotTable, Error> {
        self.with_change(SlotChange::Remove(id.as_ref().to_vec()))
    }

    /// A copy where the node of this id has another weight ([`SlotTable::set_weight`], with its
    /// order of checks).
    pub fn with_weight<W>(&self, id: impl AsRef<[u8]>, weight: W) -> Result<SlotTable, Error>
    where
        W: TryInto<Weight>,
        Error: From<W::Error>,
    {
        let change = self.weight_change(id.as_ref(), weight)?;
        self.with_change(change)
    }

    /// The same table at another epoch. Changes do not move the epoch: whoever publishes the
    /// table sets the epoch of the view it publishes with it.
    pub fn with_epoch(&self, epoch: u64) -> SlotTable {
        SlotTable {
            epoch,
            ..self.clone()
        }
    }

    #[cfg(test)]
    fn levelled(&self) -> &Levelled {
        match &self.table {
            Table::Levelled(t) => t,
            Table::Ranked(_) => panic!("a ranked table"),
        }
    }
}

/// The replay cost of a history that cost `before` once one more change applies to a table of
/// `slots` slots and `nodes` nodes, or [`Error::ResultTooLarge`] past [`MAX_REPLAY_COST`].
fn replay_cost(before: u64, mode: SlotMode, slots: u32, nodes: usize) -> Result<u64, Error> {
    let change = match mode {
        SlotMode::Levelled => slots as u64 + nodes as u64,
        SlotMode::Ranked { .. } => nodes as u64,
    };
    match before.checked_add(change) {
        Some(cost) if cost <= MAX_REPLAY_COST => Ok(cost),
        _ => Err(Error::ResultTooLarge),
    }
}

/// The digest of every slot of a table of `slots` slots (1 to [`MAX_SLOTS`]): the hrw-v1 digest
/// of the table kind's `prefix` followed by the slot number in little-endian.
fn slot_digests(placement: &Placement, prefix: &[u8], slots: u64) -> Result<Vec<u64>, Error> {
    if slots == 0 || slots > MAX_SLOTS {
        return Err(Error::InvalidSlotCount { value: slots });
    }
    let seed = placement.seed();
    let mut key = Vec::with_capacity(prefix.len() + 4);
    Ok((0..slots as u32)
        .map(|slot| {
            key.clear();
            key.extend_from_slice(prefix);
            key.extend_from_slice(&slot.to_le_bytes());
            key_digest(&seed, &key)
        })
        .collect())
}

/// What the tests of both kinds of table build on: the two kinds must answer bad input alike.
#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    /// `n` nodes `n0`, `n1`, ... with the weights taken in turn.
    pub(super) fn fleet(n: usize, weights: &[f64]) -> Placement {
        Placement::from_nodes(
            crate::Seed::DEFAULT,
            (0..n).map(|i| {
                Node::new(format!("n{i}"))
                    .with_weight(Weight::new(weights[i % weights.len()]).unwrap())
            }),
        )
        .unwrap()
    }

    /// Slot counts out of range are refused by `build`, and `t` (8 slots over `fleet(3, ..)`)
    /// refuses slots past its end, unknown nodes and a node it already has.
    pub(super) fn assert_refuses_bad_counts_slots_and_nodes(
        build: impl Fn(u64) -> Result<SlotTable, Error>,
        t: &SlotTable,
    ) {
        for bad in [0u64, MAX_SLOTS + 1, u64::MAX] {
            assert_eq!(
                build(bad).unwrap_err(),
                Error::InvalidSlotCount { value: bad }
            );
        }
        for bad in [8u64, u64::MAX] {
            assert_eq!(
                t.owner_of_slot(bad).unwrap_err(),
                Error::SlotOutOfRange {
                    slot: bad,
                    slots: 8
                }
            );
        }
        assert_refuses_unknown_and_known_nodes(
            t.without_node("zz"),
            t.with_weight("zz", Weight::ONE),
            t.with_node(Node::new("n1")),
        );
    }

    /// What a table over `fleet(3, ..)` with no change yet answers when it removes and reweighs
    /// the unknown node `zz` and adds `n1`, which it has: in place or on a copy, a table refuses
    /// the same changes with the same errors.
    pub(super) fn assert_refuses_unknown_and_known_nodes<T: core::fmt::Debug>(
        removed: Result<T, Error>,
        reweighed: Result<T, Error>,
        added: Result<T, Error>,
    ) {
        assert_eq!(removed.unwrap_err(), Error::UnknownNode);
        assert_eq!(reweighed.unwrap_err(), Error::UnknownNode);
        assert_eq!(
            added.unwrap_err(),
            // The index of the change in the table's history: none yet.
            Error::DuplicateNodeId {
                index: 0,
                first_index: 1
            }
        );
    }
}

#[cfg(test)]
mod cost_tests {
    use super::tests::fleet;
    use super::*;

    /// Each change is charged S + N (levelled) or N (ranked), N the nodes before it; the change
    /// that would pass MAX_REPLAY_COST fails with ResultTooLarge and leaves the table as it was,
    /// and the one that reaches it exactly is allowed.
    #[test]
    fn pushes_are_charged_and_capped() {
        for ranked in [false, true] {
            let p = fleet(3, &[1.0]);
            let mut t = if ranked {
                SlotTable::ranked(&p, 64, None).unwrap()
            } else {
                SlotTable::new(&p, 64).unwrap()
            };
            let per = |nodes: u64| if ranked { nodes } else { 64 + nodes };
            t.add_node(Node::new("x")).unwrap();
            t.remove_node("n0").unwrap();
            assert_eq!(t.cost, per(3) + per(4));
            // Three nodes now: the next change costs per(3).
            t.cost = MAX_REPLAY_COST - per(3) + 1;
            let before = (t.assignments().to_vec(), t.changes().len());
            assert_eq!(t.add_node(Node::new("y")), Err(Error::ResultTooLarge));
            assert_eq!(
                t.with_node(Node::new("y")).unwrap_err(),
                Error::ResultTooLarge
            );
            assert_eq!((t.assignments().to_vec(), t.changes().len()), before);
            t.cost = MAX_REPLAY_COST - per(3);
            t.add_node(Node::new("y")).unwrap();
            assert_eq!(t.cost, MAX_REPLAY_COST);
        }
    }

    /// A loaded history is charged what pushing its changes was charged.
    #[cfg(feature = "json")]
    #[test]
    fn a_loaded_history_costs_what_its_pushes_cost() {
        let mut t = SlotTable::new(&fleet(5, &[1.0, 2.0]), 100).unwrap();
        t.add_node(Node::new("x")).unwrap();
        t.set_weight("n1", Weight::new(3.0).unwrap()).unwrap();
        t.remove_node("n2").unwrap();
        let loaded = SlotTable::from_json(&t.to_json()).unwrap();
        assert_eq!(loaded.cost, (100 + 5) + (100 + 6) + (100 + 6));
        assert_eq!(loaded.cost, t.cost);
    }
}
