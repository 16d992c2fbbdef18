//! `hrw_slot_table`: the core's `SlotTable` (conformance/POLICIES.md, "slot-table (v1)" and
//! "slot-table-v2"; its document is conformance/SLOT-HISTORY.md, `hrwhash-slot-history-v1`)
//! behind an opaque handle.

use hrwhash_core::policy::{SlotChange, SlotMode, SlotTable};

use crate::ffi::{
    copy_to, copy_to_buffer, free_handle, get, guard, opt_out, opt_ref, too_small, try_bytes,
    try_mut, try_out, try_ref, try_span_mut, with_detail, Handle, Out,
};
use crate::placement::{hrw_node, hrw_placement, new_node, node_parts, seeded};
use crate::status::{hrw_error, hrw_status};

/// Length of a table fingerprint in bytes.
pub const HRW_TABLE_FINGERPRINT_LEN: usize = 16;

/// How a slot table assigns its slots (`hrw_slot_table_options.mode`,
/// `hrw_slot_table_figures.mode`). The numbers never change.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hrw_slot_mode {
    /// slot-table-v2, the default: the first table, then each change levels from the table
    /// before it, so the table depends on the order of the changes.
    Levelled = 0,
    /// slot-table-v1: every slot goes to the first node of its hrw-v1 ranking that has room;
    /// the table depends only on the current membership.
    Ranked = 1,
}

/// Optional settings of `hrw_slot_table_new`; a zero-initialised struct (or a NULL pointer)
/// means a levelled table.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_slot_table_options {
    /// An `hrw_slot_mode` (`HRW_SLOT_MODE_LEVELLED`, `HRW_SLOT_MODE_RANKED`); any other number is
    /// NULL_PARAMETER.
    pub mode: u32,
    /// Whether a ranked table has an overload bound (a levelled table has none: true there is
    /// NULL_PARAMETER).
    pub has_bound: bool,
    /// With `has_bound`, no node of a ranked table holds more than about
    /// (1 + overload_ppm / 10^6) times its share of the slots; without it every slot goes to the
    /// first node of its hrw-v1 ranking (the plain HRW slot table).
    pub overload_ppm: u32,
}

/// A slot table: keys hash to a fixed number of slots and each slot has an owner. It holds its
/// history (the first membership, the ordered changes and an epoch), which is its JSON document
/// (`hrw_slot_table_to_json`, `hrw_slot_table_from_json`).
///
/// Build it with `hrw_slot_table_new` (levelled or ranked) or `hrw_slot_table_from_json`;
/// release it with `hrw_slot_table_free`. The reads and the `with_*` copies leave the handle as
/// it was, so any number of threads may use them at once; `hrw_slot_table_push`, which changes it
/// in place, needs the handle, and the placements borrowed from `hrw_slot_table_summary`, to
/// itself for the length of the call.
pub struct hrw_slot_table {
    table: SlotTable,
    /// The current membership as a placement handle, lent out by `hrw_slot_table_summary`:
    /// its address outlives the in-place changes, which update its content.
    placement: hrw_placement,
    /// The first membership, lent out by `hrw_slot_table_summary`.
    initial: hrw_placement,
    /// Per-node capacities of a bounded ranked table, kept so that `hrw_slot_table_capacities`
    /// is a lookup.
    caps: Option<Vec<u32>>,
}

impl Handle for hrw_slot_table {}

impl hrw_slot_table {
    fn wrap(table: SlotTable) -> hrw_slot_table {
        hrw_slot_table {
            placement: hrw_placement {
                inner: table.placement().clone(),
            },
            initial: hrw_placement {
                inner: table.initial().clone(),
            },
            caps: table.capacities(),
            table,
        }
    }

    fn sync(&mut self) {
        self.placement.inner = self.table.placement().clone();
        self.caps = self.table.capacities();
    }
}

fn put(dst: Out<*mut hrw_slot_table>, table: SlotTable) {
    dst.put_box(hrw_slot_table::wrap(table));
}

/// Builds a table of `placement` with `slots` slots (1 to 2^24, else INVALID_SLOT_COUNT), at
/// epoch 0, in the mode `options` name (NULL: levelled). Levelled (slot-table-v2): every node
/// gets its share as one run of slots. Ranked (slot-table-v1): every slot goes to the first node
/// of its hrw-v1 ranking that has room under the bound, if any. NULL_PARAMETER for an unknown
/// `options->mode` or a bound on a levelled table. The table keeps its own copy of the
/// membership.
///
/// # Safety
/// `placement` is a live handle; `options` is NULL or readable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_new(
    placement: *const hrw_placement,
    slots: u64,
    options: *const hrw_slot_table_options,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = try_ref!(placement);
        let dst = try_out!(out_table);
        let table = match mode_of(opt_ref!(options))? {
            SlotMode::Levelled => SlotTable::new(&p.inner, slots),
            SlotMode::Ranked { overload_ppm } => SlotTable::ranked(&p.inner, slots, overload_ppm),
        };
        put(dst, table?);
        Ok(())
    })
}

/// The mode `options` ask for: NULL is levelled; an unknown `mode`, or a bound on a levelled
/// table, is NULL_PARAMETER (API.md's InvalidArgument: an unknown or conflicting option).
fn mode_of(options: Option<&hrw_slot_table_options>) -> Result<SlotMode, hrw_status> {
    let Some(o) = options else {
        return Ok(SlotMode::Levelled);
    };
    let bound = o.has_bound.then_some(o.overload_ppm);
    match o.mode {
        m if m == hrw_slot_mode::Levelled as u32 && bound.is_none() => Ok(SlotMode::Levelled),
        m if m == hrw_slot_mode::Ranked as u32 => Ok(SlotMode::Ranked {
            overload_ppm: bound,
        }),
        _ => Err(hrw_status::NullParameter),
    }
}

/// Loads a slot-table document (`text_len` bytes of UTF-8 JSON, not NUL-terminated) and
/// replays its changes, placing keys with `seed` (16 bytes, or NULL with length 0 for the
/// default seed). The checks and their order are those of SLOT-HISTORY.md section 5:
/// INVALID_JSON, INVALID_VIEW (`field` such as `changes.op`, `index` when `has_index`: the
/// position in `initial` or `changes`, `reason`), INVALID_SLOT_COUNT (`actual` = the value), the
/// membership errors of `initial`, SEED_MISMATCH, then the first failing change's error
/// (EMPTY_NODE_ID and DUPLICATE_NODE_ID with `index` = the change's position, UNKNOWN_NODE,
/// EMPTY_MEMBERSHIP, ALL_WEIGHTS_ZERO).
///
/// Node indices are the document's: `initial` in the order it lists them, then each added node
/// at the end. The canonical form lists `initial` in id order, so a table read back from
/// `hrw_slot_table_to_json` may number its nodes otherwise than the one that wrote it; the
/// owners' ids and the fingerprint are the same.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_from_json(
    text: *const u8,
    text_len: usize,
    seed: *const u8,
    seed_len: usize,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        // SAFETY: forwarded.
        let (dst, text, seed) = unsafe { seeded(out_table, text, text_len, seed, seed_len) }?;
        put(dst, SlotTable::from_json_bytes(text, seed)?);
        Ok(())
    })
}

/// The canonical JSON form (SLOT-HISTORY.md section 3: UTF-8, ending in a line feed, not
/// NUL-terminated) into `out` (`out_len` bytes); `*out_written` receives its length. When
/// `out_len` is shorter, BUFFER_TOO_SMALL and a non-NULL `error` has `expected` = the length
/// needed and `actual` = `out_len`. Ask for the length first with `out` NULL and `out_len` 0.
///
/// # Safety
/// `table` is a live handle; `out` is NULL or valid for `out_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_to_json(
    table: *const hrw_slot_table,
    out: *mut u8,
    out_len: usize,
    out_written: *mut usize,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let written = try_out!(out_written);
        let text = t.table.to_json();
        // The length before the buffer pointer, so that (NULL, 0) asks for the length.
        if out_len < text.len() {
            return Err(too_small(text.len(), out_len));
        }
        copy_to(
            try_span_mut!(crate::ffi::out(out)?, out_len),
            text.as_bytes(),
        )?;
        written.write(text.len());
        Ok(())
    })
}

/// Releases a slot table; NULL is a no-op.
///
/// # Safety
/// `table` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_free(table: *mut hrw_slot_table) {
    free_handle!(table);
}

/// A table's figures, as `hrw_slot_table_summary` gives them: its number of slots, its mode
/// and bound (the `hrw_slot_table_options` it was built with), where its history is, and its
/// current and first memberships.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_slot_table_figures {
    /// The number of slots.
    pub slots: u32,
    /// `HRW_SLOT_MODE_LEVELLED` or `HRW_SLOT_MODE_RANKED`.
    pub mode: hrw_slot_mode,
    /// Whether the table has an overload bound (only a ranked table may).
    pub has_bound: bool,
    /// The bound in parts per million (0 without one).
    pub overload_ppm: u32,
    /// The epoch.
    pub epoch: u64,
    /// The number of changes since the first membership.
    pub change_count: usize,
    /// The current membership, for node ids and weights (`hrw_placement_node`): borrowed, valid
    /// until the table is freed (`hrw_slot_table_push` updates it where it is); do not free it.
    /// `hrw_view_new(placement, epoch, ...)` makes it the table's view (SLOT-HISTORY.md 4.2).
    pub placement: *const hrw_placement,
    /// The first membership, before any change: borrowed, valid until the table is freed; do
    /// not free it.
    pub initial: *const hrw_placement,
}

/// The table's figures and memberships, all at once (one call where there were seven getters).
///
/// # Safety
/// `table` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_summary(
    table: *const hrw_slot_table,
    out: *mut hrw_slot_table_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(table, out, |handle| {
            let t = &handle.table;
            let bound = t.overload_ppm();
            Ok(hrw_slot_table_figures {
                slots: t.slots(),
                mode: match t.mode() {
                    SlotMode::Levelled => hrw_slot_mode::Levelled,
                    SlotMode::Ranked { .. } => hrw_slot_mode::Ranked,
                },
                has_bound: bound.is_some(),
                overload_ppm: bound.unwrap_or(0),
                epoch: t.epoch(),
                change_count: t.changes().len(),
                placement: &handle.placement,
                initial: &handle.initial,
            })
        })
    }
}

/// The index of the node that owns `key` (`key` may be NULL when `key_len` is 0): the owner of
/// its slot, which a non-NULL `out_slot` receives.
///
/// # Safety
/// `table` is a live handle; `key` is NULL or valid for `key_len` bytes; `out_slot` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_owner(
    table: *const hrw_slot_table,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
    out_slot: *mut u32,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        let index_dst = try_out!(out_index);
        let key = try_bytes!(key, key_len);
        index_dst.write(t.table.owner_index(key));
        if let Some(slot_dst) = opt_out!(out_slot) {
            slot_dst.write(t.table.slot(key));
        }
        Ok(())
    })
}

/// The index of the node that owns `slot`; SLOT_OUT_OF_RANGE when `slot` is not below the
/// number of slots.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_owner_of_slot(
    table: *const hrw_slot_table,
    slot: u64,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(table, out_index, |t| {
            t.table.owner_index_of_slot(slot).map_err(|e| (&e).into())
        })
    }
}

/// The owner of every slot as a node index, slot 0 first, into `out_owners` (`out_len` at least
/// the number of slots, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `table` is a live handle; `out_owners` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_assignments(
    table: *const hrw_slot_table,
    out_owners: *mut u32,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        copy_to(try_span_mut!(out_owners, out_len), t.table.assignments())
    })
}

/// How many slots each node holds, in node order, into `out_counts` (`out_len` at least the
/// number of nodes, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `table` is a live handle; `out_counts` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_slot_counts(
    table: *const hrw_slot_table,
    out_counts: *mut u32,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        copy_to(try_span_mut!(out_counts, out_len), &t.table.slot_counts())
    })
}

/// The most slots each node may hold in a bounded ranked table, in node order, into
/// `out_capacities` (`out_len` at least the number of nodes, else BUFFER_TOO_SMALL); NOT_OFFERED
/// for a levelled table and for an unbounded ranked one.
///
/// # Safety
/// `table` is a live handle; `out_capacities` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_capacities(
    table: *const hrw_slot_table,
    out_capacities: *mut u32,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        let caps = t.caps.as_deref().ok_or(hrw_status::NotOffered)?;
        copy_to(try_span_mut!(out_capacities, out_len), caps)
    })
}

/// The 16-byte table fingerprint (SLOT-HISTORY.md 4.1) into `out` (`out_len` at least
/// `HRW_TABLE_FINGERPRINT_LEN`, else BUFFER_TOO_SMALL): equal fingerprints, equal tables.
///
/// # Safety
/// `table` is a live handle; `out` is NULL or valid for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_fingerprint(
    table: *const hrw_slot_table,
    out: *mut u8,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        // SAFETY: forwarded.
        unsafe { copy_to_buffer(&t.table.fingerprint().to_bytes(), out, out_len) }
    })
}

// ---- changes -----------------------------------------------------------------------------
//
// A change is checked here only as far as C needs (its op, NULL pointers, a weight that is not a
// weight); everything else, and its order, is the core's `SlotTable::push`. Errors that name a
// position name the change's position in the history (the number of changes before it), as the
// document does.

/// What a change does (`hrw_slot_change.op`), as the document's `"op"` says it. The numbers
/// never change.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hrw_slot_op {
    /// Appends `node` (id and domain) with `weight`; its index is the old node count.
    Add = 0,
    /// Removes the node of `node.id` (indices after it shift down by one); `node.domain` and
    /// `weight` are not read.
    Remove = 1,
    /// Gives the node of `node.id` the weight `weight`; `node.domain` is not read.
    Weight = 2,
}

/// One change of a slot table's membership (`hrw_slot_table_push`, `hrw_slot_table_with_change`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_slot_change {
    /// An `hrw_slot_op` (`HRW_SLOT_OP_ADD`, ...); any other number is NULL_PARAMETER.
    pub op: u32,
    /// The node added, or whose id names the node removed or reweighted.
    pub node: hrw_node,
    /// The weight of an added or reweighted node, as in `hrw_placement_options.weights`.
    pub weight: f64,
}

/// A C change as the core takes it: a reweight goes as the id and the number, so that the core's
/// `set_weight` decides the order of its checks (UNKNOWN_NODE, then INVALID_WEIGHT;
/// SLOT-HISTORY.md 7).
enum Change {
    Push(SlotChange),
    Weight { id: Vec<u8>, weight: f64, at: usize },
}

impl Change {
    fn apply(self, t: &mut SlotTable) -> Result<(), hrw_error> {
        match self {
            Change::Push(c) => Ok(t.push(c)?),
            Change::Weight { id, weight, at } => {
                t.set_weight(id, weight).map_err(|e| placed(e, at))
            }
        }
    }

    fn copied(self, t: &SlotTable) -> Result<SlotTable, hrw_error> {
        match self {
            Change::Push(c) => Ok(t.with_change(c)?),
            Change::Weight { id, weight, at } => {
                t.with_weight(id, weight).map_err(|e| placed(e, at))
            }
        }
    }
}

/// The core's error of a reweight, an INVALID_WEIGHT naming the change's position.
fn placed(e: hrwhash_core::Error, at: usize) -> hrw_error {
    match e {
        e @ hrwhash_core::Error::InvalidWeight { .. } => hrw_error::from(e).at(at),
        e => e.into(),
    }
}

/// The core's change for a C one: NULL_PARAMETER for a NULL change or an unknown op; for an
/// add, NULL_PARAMETER, EMPTY_NODE_ID (by the core) and INVALID_WEIGHT naming the change's
/// position; for a reweight, NULL_PARAMETER here, then the core's checks.
///
/// # Safety
/// `change` is NULL or points to an `hrw_slot_change` whose node follows the `hrw_node`
/// contract.
unsafe fn change_of(t: &SlotTable, change: *const hrw_slot_change) -> Result<Change, hrw_error> {
    let c = try_ref!(change);
    let at = t.changes().len();
    let id = || -> Result<Vec<u8>, hrw_error> {
        // SAFETY: forwarded from the caller.
        Ok(unsafe { node_parts(&c.node) }
            .map_err(|s| hrw_error::from(s).at(at))?
            .0
            .to_vec())
    };
    match c.op {
        op if op == hrw_slot_op::Add as u32 => {
            // SAFETY: forwarded from the caller.
            Ok(Change::Push(SlotChange::Add(unsafe {
                new_node(&c.node, c.weight, at)
            }?)))
        }
        op if op == hrw_slot_op::Remove as u32 => Ok(Change::Push(SlotChange::Remove(id()?))),
        op if op == hrw_slot_op::Weight as u32 => Ok(Change::Weight {
            id: id()?,
            weight: c.weight,
            at,
        }),
        _ => Err(hrw_status::NullParameter.into()),
    }
}

/// Applies `change` to the table in place. Add: levelled, the new node takes its share one slot
/// at a time from the most loaded nodes; ranked, the table of the new membership. Remove:
/// levelled, its slots go one at a time to the least loaded nodes. Errors: NULL_PARAMETER (a
/// NULL change, an unknown op, a NULL id or domain with a length), EMPTY_NODE_ID,
/// DUPLICATE_NODE_ID (`first_index` = the node that has the id), UNKNOWN_NODE, INVALID_WEIGHT
/// (with the rejected `value`), EMPTY_MEMBERSHIP (the last node), ALL_WEIGHTS_ZERO (the last
/// weighted node), INVALID_VIEW (`changes`, out_of_range: the table already holds the most
/// changes a document may; or `changes.weight`, not_representable), each `index` naming the
/// change's position; on an error the table is unchanged. The placement borrowed from
/// `hrw_slot_table_summary` stays valid and shows the new membership.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `change` points to a
/// valid `hrw_slot_change`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_push(
    table: *mut hrw_slot_table,
    change: *const hrw_slot_change,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_mut!(table);
        // SAFETY: forwarded.
        let change = unsafe { change_of(&t.table, change) }?;
        change.apply(&mut t.table)?;
        t.sync();
        Ok(())
    })
}

/// The table with `change` applied, as a new handle; this one is unchanged. What
/// `hrw_slot_table_push` does, with its errors.
///
/// # Safety
/// `table` is a live handle; `change` points to a valid `hrw_slot_change`; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_with_change(
    table: *const hrw_slot_table,
    change: *const hrw_slot_change,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        // SAFETY: forwarded.
        let change = unsafe { change_of(&t.table, change) }?;
        put(dst, change.copied(&t.table)?);
        Ok(())
    })
}

/// The same table at another epoch, as a new handle.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_with_epoch(
    table: *const hrw_slot_table,
    epoch: u64,
    out_table: *mut *mut hrw_slot_table,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        put(dst, t.table.with_epoch(epoch));
        Ok(())
    })
}
