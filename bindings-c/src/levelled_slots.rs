//! `hrw_levelled_slot_table`: the core's `LevelledSlotTable` (conformance/POLICIES.md,
//! "slot-table-v2") behind an opaque handle.

use hrwhash_core::policy::LevelledSlotTable;

use crate::ffi::{bytes, guard, guard_detail, non_null, out, span_mut};
use crate::placement::{hrw_node, hrw_placement, node_of, node_parts, weight_at};
use crate::status::{hrw_error, hrw_status};

/// A levelled slot table: keys hash to a fixed number of slots and each slot has an owner; a
/// change moves only the changed node's slots, so the table depends on the order of the changes
/// (build it with `hrw_levelled_slot_table_new`, release it with `hrw_levelled_slot_table_free`).
/// The `with_*` changes return a new table and leave this one as it was, so one handle may be
/// used from many threads at once; the in-place changes (`hrw_levelled_slot_table_add_node`,
/// `_remove_node`, `_set_weight`) need the handle to themselves for the length of the call.
pub struct hrw_levelled_slot_table {
    table: LevelledSlotTable,
    /// The table's membership as a placement handle, lent out by
    /// `hrw_levelled_slot_table_placement`.
    placement: hrw_placement,
}

pub(crate) fn boxed(table: LevelledSlotTable, dst: *mut *mut hrw_levelled_slot_table) {
    let placement = hrw_placement {
        inner: table.placement().clone(),
    };
    let handle = Box::into_raw(Box::new(hrw_levelled_slot_table { table, placement }));
    // SAFETY: `dst` was checked non-NULL by the caller of `boxed`.
    unsafe { dst.write(handle) };
}

/// # Safety
/// A non-NULL `t` must come from `hrw_levelled_slot_table_new` (or a change) and not be
/// freed.
unsafe fn table<'a>(
    t: *const hrw_levelled_slot_table,
) -> Result<&'a hrw_levelled_slot_table, hrw_status> {
    let t = non_null(t)?;
    // SAFETY: forwarded from the caller.
    Ok(unsafe { &*t })
}

/// # Safety
/// A non-NULL `t` must come from `hrw_levelled_slot_table_new` (or a change), not be freed and
/// not be in use by another thread.
unsafe fn table_mut<'a>(
    t: *mut hrw_levelled_slot_table,
) -> Result<&'a mut hrw_levelled_slot_table, hrw_status> {
    let t = non_null(t)?;
    // SAFETY: forwarded from the caller.
    Ok(unsafe { &mut *t.cast_mut() })
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let p = crate::placement::placement(placement)?;
            let dst = out(out_table)?;
            boxed(LevelledSlotTable::new(p, slots)?, dst);
            Ok(())
        })
    }
}

/// Releases a slot table; NULL is a no-op.
///
/// # Safety
/// `table` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_levelled_slot_table_free(table: *mut hrw_levelled_slot_table) {
    guard(|| {
        if !table.is_null() {
            // SAFETY: the handle came from Box::into_raw in `boxed` and is freed once.
            drop(unsafe { Box::from_raw(table) });
        }
        Ok(())
    });
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        let dst = out(out_placement)?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(&t.placement) };
        Ok(())
    })
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        let dst = out(out_slots)?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(t.table.slots()) };
        Ok(())
    })
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        let dst = out(out_slot)?;
        // SAFETY: caller contract.
        let key = unsafe { bytes(key, key_len) }?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(t.table.slot(key)) };
        Ok(())
    })
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        let dst = out(out_index)?;
        let index = t
            .table
            .owner_index_of_slot(slot)
            .map_err(|e| hrw_status::from(&e))?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(index) };
        Ok(())
    })
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        let dst = out(out_index)?;
        // SAFETY: caller contract.
        let key = unsafe { bytes(key, key_len) }?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(t.table.owner_index(key)) };
        Ok(())
    })
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
    guard(|| {
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        // SAFETY: caller contract.
        let dst = unsafe { span_mut(out_owners, out_len) }?;
        let owners = t.table.assignments();
        let dst = dst
            .get_mut(..owners.len())
            .ok_or(hrw_status::BufferTooSmall)?;
        dst.copy_from_slice(owners);
        Ok(())
    })
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
        // SAFETY: caller contract.
        let t = unsafe { self::table(table) }?;
        // SAFETY: caller contract.
        let dst = unsafe { span_mut(out_counts, out_len) }?;
        let counts = t.table.slot_counts();
        let dst = dst
            .get_mut(..counts.len())
            .ok_or(hrw_status::BufferTooSmall)?;
        dst.copy_from_slice(&counts);
        Ok(())
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = self::table(table)?;
            let dst = out(out_table)?;
            let index = t.table.placement().len();
            let node = non_null(node)?.as_ref().ok_or(hrw_status::NullParameter)?;
            let (id, domain) = node_parts(node).map_err(|s| hrw_error::from(s).at(index))?;
            let weight = weight_at(weight, index)?;
            boxed(t.table.with_node(node_of(id, domain, weight))?, dst);
            Ok(())
        })
    }
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = self::table(table)?;
            let dst = out(out_table)?;
            let id = bytes(id, id_len)?;
            boxed(t.table.without_node(id)?, dst);
            Ok(())
        })
    }
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = self::table(table)?;
            let dst = out(out_table)?;
            let id = bytes(id, id_len)?;
            let index = t
                .table
                .placement()
                .find(id)
                .ok_or(hrw_status::UnknownNode)?
                .index();
            let weight = weight_at(weight, index)?;
            boxed(t.table.with_weight(id, weight)?, dst);
            Ok(())
        })
    }
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = table_mut(table)?;
            let index = t.table.placement().len();
            let node = non_null(node)?.as_ref().ok_or(hrw_status::NullParameter)?;
            let (id, domain) = node_parts(node).map_err(|s| hrw_error::from(s).at(index))?;
            let weight = weight_at(weight, index)?;
            t.table.add_node(node_of(id, domain, weight))?;
            t.sync_placement();
            Ok(())
        })
    }
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = table_mut(table)?;
            let id = bytes(id, id_len)?;
            t.table.remove_node(id)?;
            t.sync_placement();
            Ok(())
        })
    }
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
    // SAFETY: caller contract.
    unsafe {
        guard_detail(error, || {
            let t = table_mut(table)?;
            let id = bytes(id, id_len)?;
            let index = t
                .table
                .placement()
                .find(id)
                .ok_or(hrw_status::UnknownNode)?
                .index();
            let weight = weight_at(weight, index)?;
            t.table.set_weight(id, weight)?;
            t.sync_placement();
            Ok(())
        })
    }
}
