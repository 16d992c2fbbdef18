//! `hrw_slot_table`: the core's `SlotTable` (conformance/POLICIES.md, "slot-table (v1)" and
//! "slot-table-v2"; its document is conformance/SLOT-HISTORY.md, `hrwhash-slot-history-v1`)
//! behind an opaque handle.

use hrwhash_core::policy::{SlotChange, SlotMode, SlotTable};

use crate::ffi::{
    copy_to, copy_to_buffer, free_handle, get, get_by_key, guard, opt_ref, too_small, try_bytes,
    try_mut, try_out, try_ref, try_span_mut, with_detail, Handle, Out,
};
use crate::placement::{hrw_node, hrw_placement, new_node, seed_from, weight_at};
use crate::status::{hrw_error, hrw_status};
use crate::view::hrw_view;

/// Length of a table fingerprint in bytes.
pub const HRW_TABLE_FINGERPRINT_LEN: usize = 16;

/// How a slot table assigns its slots (`hrw_slot_table_mode`). The numbers never change.
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

/// A slot table: keys hash to a fixed number of slots and each slot has an owner. It holds its
/// history (the first membership, the ordered changes and an epoch), which is its JSON document
/// (`hrw_slot_table_to_json`, `hrw_slot_table_from_json`).
///
/// Build it with `hrw_slot_table_new` (levelled), `hrw_slot_table_new_ranked` or
/// `hrw_slot_table_from_json`; release it with `hrw_slot_table_free`. The reads and the `with_*`
/// copies leave the handle as it was, so any number of threads may use them at once; the
/// in-place changes (`hrw_slot_table_add_node`, `_remove_node`, `_set_weight`) need the handle,
/// and the placement borrowed from `hrw_slot_table_placement`, to themselves for the length of
/// the call.
pub struct hrw_slot_table {
    table: SlotTable,
    /// The current membership as a placement handle, lent out by `hrw_slot_table_placement`:
    /// its address outlives the in-place changes, which update its content.
    placement: hrw_placement,
    /// The first membership, lent out by `hrw_slot_table_initial`.
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

/// Builds a levelled table (slot-table-v2) of `placement` with `slots` slots (1 to 2^24, else
/// INVALID_SLOT_COUNT), at epoch 0: every node gets its share as one run of slots. The table
/// keeps its own copy of the membership.
///
/// # Safety
/// `placement` is a live handle; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_new(
    placement: *const hrw_placement,
    slots: u64,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = try_ref!(placement);
        let dst = try_out!(out_table);
        put(dst, SlotTable::new(&p.inner, slots)?);
        Ok(())
    })
}

/// Builds a ranked table (slot-table-v1) of `placement` with `slots` slots, at epoch 0.
/// `overload_ppm` NULL: every slot goes to the first node of its hrw-v1 ranking (the plain HRW
/// slot table); otherwise no node holds more than about (1 + *overload_ppm / 10^6) times its
/// share of the slots. Errors as `hrw_slot_table_new`.
///
/// # Safety
/// `placement` is a live handle; `overload_ppm` is NULL or readable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_new_ranked(
    placement: *const hrw_placement,
    slots: u64,
    overload_ppm: *const u32,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = try_ref!(placement);
        let dst = try_out!(out_table);
        let ppm = opt_ref!(overload_ppm).copied();
        put(dst, SlotTable::ranked(&p.inner, slots, ppm)?);
        Ok(())
    })
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
        let dst = try_out!(out_table);
        let text = try_bytes!(text, text_len);
        let seed = seed_from(seed, seed_len)??;
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

/// The number of slots.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_slots(
    table: *const hrw_slot_table,
    out_slots: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_slots, |t| Ok(t.table.slots())) }
}

/// Whether the table is levelled or ranked.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_mode(
    table: *const hrw_slot_table,
    out_mode: *mut hrw_slot_mode,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(table, out_mode, |t| {
            Ok(match t.table.mode() {
                SlotMode::Levelled => hrw_slot_mode::Levelled,
                SlotMode::Ranked { .. } => hrw_slot_mode::Ranked,
            })
        })
    }
}

/// The overload bound of a ranked table: `*out_has_bound` says whether it has one (false for a
/// levelled table and for an unbounded ranked one), and `*out_overload_ppm` receives it (0
/// without one).
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_overload_ppm(
    table: *const hrw_slot_table,
    out_has_bound: *mut bool,
    out_overload_ppm: *mut u32,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        let has = try_out!(out_has_bound);
        let ppm = try_out!(out_overload_ppm);
        let bound = t.table.overload_ppm();
        has.write(bound.is_some());
        ppm.write(bound.unwrap_or(0));
        Ok(())
    })
}

/// The slot of `key` (`key` may be NULL when `key_len` is 0).
///
/// # Safety
/// `table` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_slot(
    table: *const hrw_slot_table,
    key: *const u8,
    key_len: usize,
    out_slot: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(table, key, key_len, out_slot, |t, key| {
            Ok(t.table.slot(key))
        })
    }
}

/// The index of the node that owns `key`: the owner of its slot.
///
/// # Safety
/// `table` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_owner(
    table: *const hrw_slot_table,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(table, key, key_len, out_index, |t, key| {
            Ok(t.table.owner_index(key))
        })
    }
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

/// The current membership, for node ids and weights (`hrw_placement_node_id`, ...): borrowed,
/// valid until the table is freed (an in-place change updates it where it is); do not free it.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_placement(
    table: *const hrw_slot_table,
    out_placement: *mut *const hrw_placement,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_placement, |t| Ok(&t.placement as *const _)) }
}

/// The first membership, before any change (`hrw_slot_table_placement` is the current one):
/// borrowed, valid until the table is freed; do not free it.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_initial(
    table: *const hrw_slot_table,
    out_placement: *mut *const hrw_placement,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_placement, |t| Ok(&t.initial as *const _)) }
}

/// The current membership as a view at the table's epoch, as a new handle (release it with
/// `hrw_view_free`).
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_view(
    table: *const hrw_slot_table,
    out_view: *mut *mut hrw_view,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        let dst = try_out!(out_view);
        dst.put_box(hrw_view {
            inner: t.table.view(),
        });
        Ok(())
    })
}

/// The epoch (that of `hrw_slot_table_view`).
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_epoch(
    table: *const hrw_slot_table,
    out_epoch: *mut u64,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_epoch, |t| Ok(t.table.epoch())) }
}

/// The number of changes since the first membership.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_change_count(
    table: *const hrw_slot_table,
    out_count: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(table, out_count, |t| Ok(t.table.changes().len())) }
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
// Each change is checked here only as far as C needs (NULL pointers, a weight that is not a
// weight); everything else, and its order, is the core's `SlotTable::push`. Errors that name a
// position name the change's position in the history (the number of changes before it), as the
// document does.

/// The change that appends `node`: NULL_PARAMETER, EMPTY_NODE_ID (by the core) and
/// INVALID_WEIGHT naming the change's position.
///
/// # Safety
/// `node` is NULL or points to a valid `hrw_node`.
unsafe fn add(t: &SlotTable, node: *const hrw_node, weight: f64) -> Result<SlotChange, hrw_error> {
    // SAFETY: forwarded.
    Ok(SlotChange::Add(unsafe {
        new_node(node, weight, t.changes().len())
    }?))
}

/// # Safety
/// `id` is NULL or valid for `id_len` bytes.
unsafe fn remove(id: *const u8, id_len: usize) -> Result<SlotChange, hrw_error> {
    Ok(SlotChange::Remove(try_bytes!(id, id_len).to_vec()))
}

/// The change that reweights the node of `id`: UNKNOWN_NODE in the current membership first,
/// as `hrw_placement_with_weight`, then INVALID_WEIGHT naming the change's position.
///
/// # Safety
/// `id` is NULL or valid for `id_len` bytes.
unsafe fn reweight(
    t: &SlotTable,
    id: *const u8,
    id_len: usize,
    weight: f64,
) -> Result<SlotChange, hrw_error> {
    let id = try_bytes!(id, id_len);
    t.placement().find(id).ok_or(hrw_status::UnknownNode)?;
    let weight = weight_at(weight, t.changes().len())?;
    Ok(SlotChange::Weight(id.to_vec(), weight))
}

/// Applies a change to the handle in place; on an error the table is unchanged.
///
/// # Safety
/// `table` is NULL or a live handle nobody else uses during the call.
unsafe fn change_in_place(
    table: *mut hrw_slot_table,
    error: *mut hrw_error,
    change: impl FnOnce(&SlotTable) -> Result<SlotChange, hrw_error>,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_mut!(table);
        let change = change(&t.table)?;
        t.table.push(change)?;
        t.sync();
        Ok(())
    })
}

/// The table with one more change, as a new handle.
///
/// # Safety
/// `table` is NULL or a live handle; `out_table` is NULL or writable.
unsafe fn changed(
    table: *const hrw_slot_table,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
    change: impl FnOnce(&SlotTable) -> Result<SlotChange, hrw_error>,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_ref!(table);
        let dst = try_out!(out_table);
        put(dst, t.table.with_change(change(&t.table)?)?);
        Ok(())
    })
}

/// Appends a node in place (its index is the old node count). Levelled: it takes its share one
/// slot at a time from the most loaded nodes; ranked: the table of the new membership. Errors:
/// NULL_PARAMETER (a NULL node, or a NULL id or domain with a length), EMPTY_NODE_ID,
/// DUPLICATE_NODE_ID (`first_index` = the node that has the id), INVALID_WEIGHT, INVALID_VIEW
/// (`changes`, out_of_range: the table already holds the most changes a document may; or
/// `changes.weight`, not_representable), each `index` naming the change's position; on an error
/// the table is unchanged. The placement borrowed from `hrw_slot_table_placement` stays valid
/// and shows the new membership.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `node` points to a valid
/// `hrw_node`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_add_node(
    table: *mut hrw_slot_table,
    node: *const hrw_node,
    weight: f64,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { change_in_place(table, error, |t| add(t, node, weight)) }
}

/// Removes the node of this id in place (indices after it shift down by one). Levelled: its
/// slots go one at a time to the least loaded nodes. UNKNOWN_NODE, EMPTY_MEMBERSHIP (the last
/// node), ALL_WEIGHTS_ZERO (the last weighted node), INVALID_VIEW as `hrw_slot_table_add_node`;
/// on an error the table is unchanged.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `id` is NULL or valid
/// for `id_len` bytes; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_remove_node(
    table: *mut hrw_slot_table,
    id: *const u8,
    id_len: usize,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { change_in_place(table, error, |_| remove(id, id_len)) }
}

/// Gives the node of this id another weight in place. The node is looked up first
/// (UNKNOWN_NODE), then the weight is checked (INVALID_WEIGHT with the change's position as
/// `index` and the rejected `value`), then the table's errors (ALL_WEIGHTS_ZERO, INVALID_VIEW as
/// `hrw_slot_table_add_node`); on an error the table is unchanged.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `id` is NULL or valid
/// for `id_len` bytes; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_set_weight(
    table: *mut hrw_slot_table,
    id: *const u8,
    id_len: usize,
    weight: f64,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { change_in_place(table, error, |t| reweight(t, id, id_len, weight)) }
}

/// The table with one more node, as a new handle; this one is unchanged. What
/// `hrw_slot_table_add_node` does, with its errors.
///
/// # Safety
/// `table` is a live handle; `node` points to a valid `hrw_node`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_with_node(
    table: *const hrw_slot_table,
    node: *const hrw_node,
    weight: f64,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { changed(table, out_table, error, |t| add(t, node, weight)) }
}

/// The table without the node of this id, as a new handle; this one is unchanged. What
/// `hrw_slot_table_remove_node` does, with its errors.
///
/// # Safety
/// `table` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_without_node(
    table: *const hrw_slot_table,
    id: *const u8,
    id_len: usize,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { changed(table, out_table, error, |_| remove(id, id_len)) }
}

/// The table where the node of this id has another weight, as a new handle; this one is
/// unchanged. What `hrw_slot_table_set_weight` does, with its errors.
///
/// # Safety
/// `table` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_with_weight(
    table: *const hrw_slot_table,
    id: *const u8,
    id_len: usize,
    weight: f64,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { changed(table, out_table, error, |t| reweight(t, id, id_len, weight)) }
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
