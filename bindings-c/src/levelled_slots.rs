//! `hrw_levelled_slot_table`: the core's `LevelledSlotTable` (conformance/POLICIES.md,
//! "slot-table-v2") behind an opaque handle. The calls it shares with `hrw_slot_table` are in
//! `slots.rs`; the in-place changes are its own.

use hrwhash_core::policy::LevelledSlotTable;

use crate::ffi::{
    copy_to, free_handle, guard, try_bytes, try_mut, try_out, try_ref, try_span_mut, with_detail,
};
use crate::placement::{hrw_node, hrw_placement, new_node, weight_of};
use crate::slots::{self, SlotHandle};
use crate::status::{hrw_error, hrw_status};

/// A levelled slot table: keys hash to a fixed number of slots and each slot has an owner; a
/// change moves only the changed node's slots, so the table depends on the order of the changes
/// (build it with `hrw_levelled_slot_table_new`, release it with `hrw_levelled_slot_table_free`).
/// The `with_*` changes return a new table and leave this one as it was, so one handle may be
/// used from many threads at once; the in-place changes (`hrw_levelled_slot_table_add_node`,
/// `_remove_node`, `_set_weight`) need the handle to themselves for the length of the call.
pub struct hrw_levelled_slot_table {
    pub(crate) table: LevelledSlotTable,
    /// The table's membership as a placement handle, lent out by
    /// `hrw_levelled_slot_table_placement`.
    pub(crate) placement: hrw_placement,
}

impl hrw_levelled_slot_table {
    /// After an in-place change: the lent placement handle keeps its address and shows the new
    /// membership.
    fn sync_placement(&mut self) {
        self.placement.inner = self.table.placement().clone();
    }
}

/// Builds the first table of `placement` with `slots` slots (1 to 2^24, else
/// INVALID_SLOT_COUNT): every node gets its share as one run of slots. The table keeps its own
/// copy of the membership.
///
/// # Safety
/// `placement` is a live handle; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_new(
    placement: *const hrw_placement,
    slots: u64,
    out_table: *mut *mut hrw_levelled_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = try_ref!(placement);
        let dst = try_out!(out_table);
        dst.put_box(hrw_levelled_slot_table::wrap(LevelledSlotTable::new(
            &p.inner, slots,
        )?));
        Ok(())
    })
}

/// Releases a slot table; NULL is a no-op.
///
/// # Safety
/// `table` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_free(table: *mut hrw_levelled_slot_table) {
    free_handle!(table);
}

/// The table's membership, for node ids and weights (`hrw_placement_node_id`, ...): borrowed,
/// valid until the table is freed; do not free it.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_placement(
    table: *const hrw_levelled_slot_table,
    out_placement: *mut *const hrw_placement,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::placement(table, out_placement) }
}

/// The number of slots.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_slots(
    table: *const hrw_levelled_slot_table,
    out_slots: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::slots(table, out_slots) }
}

/// The slot of `key` (`key` may be NULL when `key_len` is 0).
///
/// # Safety
/// `table` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_slot(
    table: *const hrw_levelled_slot_table,
    key: *const u8,
    key_len: usize,
    out_slot: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::slot(table, key, key_len, out_slot) }
}

/// The index of the node that owns `slot`; SLOT_OUT_OF_RANGE when `slot` is not below the
/// number of slots.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_owner_of_slot(
    table: *const hrw_levelled_slot_table,
    slot: u64,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::owner_of_slot(table, slot, out_index) }
}

/// The index of the node that owns `key`: the owner of its slot.
///
/// # Safety
/// `table` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_owner(
    table: *const hrw_levelled_slot_table,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::owner(table, key, key_len, out_index) }
}

/// The owner of every slot as a node index, slot 0 first, into `out_owners` (`out_len` at least
/// the number of slots, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `table` is a live handle; `out_owners` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_assignments(
    table: *const hrw_levelled_slot_table,
    out_owners: *mut u32,
    out_len: usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::assignments(table, out_owners, out_len) }
}

/// How many slots each node holds, in node order, into `out_counts` (`out_len` at least the
/// number of nodes, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `table` is a live handle; `out_counts` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_slot_counts(
    table: *const hrw_levelled_slot_table,
    out_counts: *mut u32,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let t = try_ref!(table);
        copy_to(try_span_mut!(out_counts, out_len), &t.table.slot_counts())
    })
}

/// The table with one more node (appended, so its index is the old node count), computed from
/// this one: the node takes its share one slot at a time from the most loaded nodes.
/// Errors as `hrw_placement_with_node`.
///
/// # Safety
/// `table` is a live handle; `node` points to a valid `hrw_node`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_with_node(
    table: *const hrw_levelled_slot_table,
    node: *const hrw_node,
    weight: f64,
    out_table: *mut *mut hrw_levelled_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::with_node(table, node, weight, out_table, error) }
}

/// The table without the node of this id (indices after it shift down by one), computed from
/// this one: its slots go one at a time to the least loaded nodes;
/// UNKNOWN_NODE when there is no such node.
///
/// # Safety
/// `table` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_without_node(
    table: *const hrw_levelled_slot_table,
    id: *const u8,
    id_len: usize,
    out_table: *mut *mut hrw_levelled_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::without_node(table, id, id_len, out_table, error) }
}

/// The table where the node of this id has another weight, computed from this one: it takes or
/// gives slots until it holds its new share. The node is
/// looked up first (UNKNOWN_NODE), then the weight is checked (INVALID_WEIGHT with its index).
///
/// # Safety
/// `table` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_with_weight(
    table: *const hrw_levelled_slot_table,
    id: *const u8,
    id_len: usize,
    weight: f64,
    out_table: *mut *mut hrw_levelled_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::with_weight(table, id, id_len, weight, out_table, error) }
}

/// Appends a node to this table in place (its index is the old node count): the node takes its
/// share one slot at a time from the most loaded nodes, exactly as
/// `hrw_levelled_slot_table_with_node` would, without copying the table. Errors as
/// `hrw_placement_with_node`; on an error the table is unchanged. The placement borrowed from
/// `hrw_levelled_slot_table_placement` stays valid and shows the new membership.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `node` points to a valid
/// `hrw_node`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_add_node(
    table: *mut hrw_levelled_slot_table,
    node: *const hrw_node,
    weight: f64,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_mut!(table);
        // SAFETY: forwarded.
        let node = unsafe { new_node(node, weight, t.table.placement().len()) }?;
        t.table.add_node(node)?;
        t.sync_placement();
        Ok(())
    })
}

/// Removes the node of this id from this table in place (indices after it shift down by one):
/// its slots go one at a time to the least loaded nodes, exactly as
/// `hrw_levelled_slot_table_without_node` would, without copying the table. UNKNOWN_NODE when
/// there is no such node; on an error the table is unchanged. The placement borrowed from
/// `hrw_levelled_slot_table_placement` stays valid and shows the new membership.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `id` is NULL or valid
/// for `id_len` bytes; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_remove_node(
    table: *mut hrw_levelled_slot_table,
    id: *const u8,
    id_len: usize,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_mut!(table);
        t.table.remove_node(try_bytes!(id, id_len))?;
        t.sync_placement();
        Ok(())
    })
}

/// Gives the node of this id another weight in this table, in place: it takes or gives slots
/// until it holds its new share, exactly as `hrw_levelled_slot_table_with_weight` would, without
/// copying the table. The node is looked up first (UNKNOWN_NODE), then the weight is checked
/// (INVALID_WEIGHT with its index); on an error the table is unchanged. The placement borrowed
/// from `hrw_levelled_slot_table_placement` stays valid and shows the new membership.
///
/// # Safety
/// `table` is a live handle that no other thread uses during the call; `id` is NULL or valid
/// for `id_len` bytes; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_set_weight(
    table: *mut hrw_levelled_slot_table,
    id: *const u8,
    id_len: usize,
    weight: f64,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let t = try_mut!(table);
        let id = try_bytes!(id, id_len);
        let weight = weight_of(t.table.placement(), id, weight)?;
        t.table.set_weight(id, weight)?;
        t.sync_placement();
        Ok(())
    })
}
