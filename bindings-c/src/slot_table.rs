//! `hrw_slot_table`: the core's `SlotTable` (conformance/POLICIES.md, "slot-table (v1)") behind
//! an opaque handle. The calls it shares with `hrw_levelled_slot_table` are in `slots.rs`.

use hrwhash_core::policy::SlotTable;

use crate::ffi::{free_handle, get, opt_ref, try_out, try_ref, with_detail};
use crate::placement::{hrw_node, hrw_placement};
use crate::slots::{self, SlotHandle};
use crate::status::{hrw_error, hrw_status};

/// A slot table: keys hash to a fixed number of slots and each slot has an owner (build it with
/// `hrw_slot_table_new`, release it with `hrw_slot_table_free`). Like a placement it never
/// changes, so one handle may be used from many threads at once; changes return a new table.
pub struct hrw_slot_table {
    pub(crate) table: SlotTable,
    /// The table's membership as a placement handle, lent out by `hrw_slot_table_placement`.
    pub(crate) placement: hrw_placement,
}

/// Builds the slot table of `placement` with `slots` slots (1 to 2^24, else INVALID_SLOT_COUNT).
/// `overload_ppm` NULL: every slot goes to the first node of its hrw-v1 ranking (the plain HRW
/// slot table); otherwise no node holds more than about (1 + *overload_ppm / 10^6) times its
/// share of the slots. The table keeps its own copy of the membership.
///
/// # Safety
/// `placement` is a live handle; `overload_ppm` is NULL or readable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_new(
    placement: *const hrw_placement,
    slots: u64,
    overload_ppm: *const u32,
    out_table: *mut *mut hrw_slot_table,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = try_ref!(placement);
        let dst = try_out!(out_table);
        let overload = opt_ref!(overload_ppm).copied();
        dst.put_box(hrw_slot_table::wrap(SlotTable::new(
            &p.inner, slots, overload,
        )?));
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

/// The table's membership, for node ids and weights (`hrw_placement_node_id`, ...): borrowed,
/// valid until the table is freed; do not free it.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_placement(
    table: *const hrw_slot_table,
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
pub unsafe extern "C" fn hrw_slot_table_slots(
    table: *const hrw_slot_table,
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
pub unsafe extern "C" fn hrw_slot_table_slot(
    table: *const hrw_slot_table,
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
pub unsafe extern "C" fn hrw_slot_table_owner_of_slot(
    table: *const hrw_slot_table,
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
pub unsafe extern "C" fn hrw_slot_table_owner(
    table: *const hrw_slot_table,
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
pub unsafe extern "C" fn hrw_slot_table_assignments(
    table: *const hrw_slot_table,
    out_owners: *mut u32,
    out_len: usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { slots::assignments(table, out_owners, out_len) }
}

/// The most slots the node at `index` may hold; INDEX_OUT_OF_RANGE past the last node.
///
/// # Safety
/// `table` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_table_capacity(
    table: *const hrw_slot_table,
    index: usize,
    out_capacity: *mut u32,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(table, out_capacity, |t| {
            t.table.capacity(index).ok_or(hrw_status::IndexOutOfRange)
        })
    }
}

/// The table with one more node (appended, so its index is the old node count), computed from
/// this one. Errors as `hrw_placement_with_node`.
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
    unsafe { slots::with_node(table, node, weight, out_table, error) }
}

/// The table without the node of this id (indices after it shift down by one), computed from
/// this one; UNKNOWN_NODE when there is no such node.
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
    unsafe { slots::without_node(table, id, id_len, out_table, error) }
}

/// The table where the node of this id has another weight, computed from this one. The node is
/// looked up first (UNKNOWN_NODE), then the weight is checked (INVALID_WEIGHT with its index).
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
    unsafe { slots::with_weight(table, id, id_len, weight, out_table, error) }
}
