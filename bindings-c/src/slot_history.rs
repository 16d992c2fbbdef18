//! `hrw_slot_history`: the core's `SlotHistory` (conformance/SLOT-HISTORY.md,
//! `hrwhash-slot-history-v1`) behind an opaque handle.

use hrwhash_core::policy::{SlotChange, SlotHistory};

use crate::ffi::{
    copy_to_buffer, free_handle, guard, too_small, try_bytes, try_out, try_ref, try_span_mut,
    with_detail, Handle, Out,
};
use crate::levelled_slots::hrw_levelled_slot_table;
use crate::placement::{hrw_node, hrw_placement, new_node, seed_from, weight_at};
use crate::slots::SlotHandle;
use crate::status::{hrw_error, hrw_status};
use crate::view::{hrw_view, write_c_string};

/// Length of a table fingerprint in bytes.
pub const HRW_TABLE_FINGERPRINT_LEN: usize = 16;
/// Size of the buffer `hrw_slot_history_table_fingerprint_hex` needs: 32 hex digits and a NUL.
pub const HRW_TABLE_FINGERPRINT_HEX_SIZE: usize = 2 * HRW_TABLE_FINGERPRINT_LEN + 1;

/// The shared history of a levelled slot table: the first membership, the number of slots and
/// the ordered changes (load it with `hrw_slot_history_from_json` or start one with
/// `hrw_slot_history_new`; release it with `hrw_slot_history_free`). It never changes, so one
/// handle may be used from many threads at once; appending a change returns a new history.
pub struct hrw_slot_history {
    inner: SlotHistory,
}

impl Handle for hrw_slot_history {}

fn put(dst: Out<*mut hrw_slot_history>, inner: SlotHistory) {
    dst.put_box(hrw_slot_history { inner });
}

/// Loads and replays a history document (`text_len` bytes of UTF-8 JSON, not NUL-terminated),
/// placing keys with `seed` (16 bytes, or NULL with length 0 for the default seed). The checks
/// and their order are those of SLOT-HISTORY.md section 5: INVALID_JSON, INVALID_VIEW (`field`
/// such as `changes.op`, `index` when `has_index`: the position in `initial` or `changes`,
/// `reason`), INVALID_SLOT_COUNT (`actual` = the value), the membership errors of `initial`,
/// SEED_MISMATCH, then the first failing change's error (EMPTY_NODE_ID and DUPLICATE_NODE_ID
/// with `index` = the change's position, UNKNOWN_NODE, EMPTY_MEMBERSHIP, ALL_WEIGHTS_ZERO).
///
/// # Safety
/// Every pointer is NULL or valid for its stated length; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_from_json(
    text: *const u8,
    text_len: usize,
    seed: *const u8,
    seed_len: usize,
    out_history: *mut *mut hrw_slot_history,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let dst = try_out!(out_history);
        let text = try_bytes!(text, text_len);
        let seed = seed_from(seed, seed_len)??;
        put(dst, SlotHistory::from_json_bytes(text, seed)?);
        Ok(())
    })
}

/// A history with no change yet: the first table of `placement` with `slots` slots (1 to 2^24,
/// else INVALID_SLOT_COUNT), at `epoch`.
///
/// # Safety
/// `placement` is a live handle; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_new(
    placement: *const hrw_placement,
    slots: u64,
    epoch: u64,
    out_history: *mut *mut hrw_slot_history,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_history);
        put(dst, SlotHistory::new(p.clone(), slots, epoch)?);
        Ok(())
    })
}

/// Releases a history; NULL is a no-op.
///
/// # Safety
/// `history` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_free(history: *mut hrw_slot_history) {
    free_handle!(history);
}

/// The table the changes lead to, as a new handle (release it with
/// `hrw_levelled_slot_table_free`).
///
/// # Safety
/// `history` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_table(
    history: *const hrw_slot_history,
    out_table: *mut *mut hrw_levelled_slot_table,
) -> hrw_status {
    guard(|| {
        let h = &try_ref!(history).inner;
        let dst = try_out!(out_table);
        dst.put_box(hrw_levelled_slot_table::wrap(h.table().clone()));
        Ok(())
    })
}

/// The final membership as a view at the history's epoch, as a new handle (release it with
/// `hrw_view_free`).
///
/// # Safety
/// `history` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_view(
    history: *const hrw_slot_history,
    out_view: *mut *mut hrw_view,
) -> hrw_status {
    guard(|| {
        let h = &try_ref!(history).inner;
        let dst = try_out!(out_view);
        dst.put_box(hrw_view { inner: h.view() });
        Ok(())
    })
}

/// The epoch and the number of changes.
///
/// # Safety
/// `history` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_counts(
    history: *const hrw_slot_history,
    out_epoch: *mut u64,
    out_changes: *mut usize,
) -> hrw_status {
    guard(|| {
        let h = &try_ref!(history).inner;
        let e = try_out!(out_epoch);
        let c = try_out!(out_changes);
        e.write(h.epoch());
        c.write(h.changes().len());
        Ok(())
    })
}

/// The 16-byte table fingerprint (SLOT-HISTORY.md 4.1) into `out` (`out_len` at least
/// `HRW_TABLE_FINGERPRINT_LEN`, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `history` is a live handle; `out` is NULL or valid for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_table_fingerprint(
    history: *const hrw_slot_history,
    out: *mut u8,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let h = &try_ref!(history).inner;
        // SAFETY: forwarded.
        unsafe { copy_to_buffer(&h.table_fingerprint().to_bytes(), out, out_len) }
    })
}

/// The table fingerprint as 32 lowercase hex digits and a NUL (`out_len` at least
/// `HRW_TABLE_FINGERPRINT_HEX_SIZE`, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `history` is a live handle; `out` is NULL or valid for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_table_fingerprint_hex(
    history: *const hrw_slot_history,
    out: *mut u8,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let h = &try_ref!(history).inner;
        // SAFETY: forwarded.
        unsafe { write_c_string(&h.table_fingerprint().to_hex(), out, out_len) }
    })
}

/// The canonical JSON form (SLOT-HISTORY.md section 3: UTF-8, ending in a line feed, not
/// NUL-terminated) into `out` (`out_len` bytes); `*out_written` receives its length. When
/// `out_len` is shorter, BUFFER_TOO_SMALL and a non-NULL `error` has `expected` = the length
/// needed and `actual` = `out_len`. Ask for the length first with `out` NULL and `out_len` 0.
///
/// # Safety
/// `history` is a live handle; `out` is NULL or valid for `out_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_to_json(
    history: *const hrw_slot_history,
    out: *mut u8,
    out_len: usize,
    out_written: *mut usize,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let h = &try_ref!(history).inner;
        let written = try_out!(out_written);
        let text = h.to_json();
        // Unlike `hrw_view_to_json`, the length is checked before the buffer pointer.
        if out_len < text.len() {
            return Err(too_small(text.len(), out_len));
        }
        let dst = try_span_mut!(crate::ffi::out(out)?, out_len);
        dst[..text.len()].copy_from_slice(text.as_bytes());
        written.write(text.len());
        Ok(())
    })
}

/// The history with one more change, `node` appended; EMPTY_NODE_ID and DUPLICATE_NODE_ID have
/// `index` = the change's position (the number of changes before it); INVALID_WEIGHT.
///
/// # Safety
/// `history` is a live handle; `node` points to a valid `hrw_node`; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_with_node(
    history: *const hrw_slot_history,
    node: *const hrw_node,
    weight: f64,
    out_history: *mut *mut hrw_slot_history,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let h = &try_ref!(history).inner;
        let dst = try_out!(out_history);
        // SAFETY: forwarded.
        let node = unsafe { new_node(node, weight, h.changes().len()) }?;
        put(dst, h.with_change(SlotChange::Add(node))?);
        Ok(())
    })
}

/// The history with one more change: the node of this id removed (UNKNOWN_NODE,
/// EMPTY_MEMBERSHIP, ALL_WEIGHTS_ZERO).
///
/// # Safety
/// `history` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_without_node(
    history: *const hrw_slot_history,
    id: *const u8,
    id_len: usize,
    out_history: *mut *mut hrw_slot_history,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let h = &try_ref!(history).inner;
        let dst = try_out!(out_history);
        let id = try_bytes!(id, id_len).to_vec();
        put(dst, h.with_change(SlotChange::Remove(id))?);
        Ok(())
    })
}

/// The history with one more change: the node of this id at another weight. As
/// `hrw_placement_with_weight`, the node is looked up first in the current membership
/// (UNKNOWN_NODE), then the weight is checked (INVALID_WEIGHT: the change's position in the
/// history as `index`, and the rejected `value`), then the table's errors (ALL_WEIGHTS_ZERO).
///
/// # Safety
/// `history` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_slot_history_with_weight(
    history: *const hrw_slot_history,
    id: *const u8,
    id_len: usize,
    weight: f64,
    out_history: *mut *mut hrw_slot_history,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let h = &try_ref!(history).inner;
        let dst = try_out!(out_history);
        let id = try_bytes!(id, id_len).to_vec();
        h.table()
            .placement()
            .find(&id)
            .ok_or(hrw_status::UnknownNode)?;
        let weight = weight_at(weight, h.changes().len())?;
        put(dst, h.with_change(SlotChange::Weight(id, weight))?);
        Ok(())
    })
}
