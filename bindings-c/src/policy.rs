//! `hrw_bounded_load`: the core's bounded-load-v1 policy (conformance/POLICIES.md) behind an
//! opaque handle.

use hrwhash_core::policy::{BalanceFactor, BoundedLoad};

use crate::ffi::{bytes, guard, guard_detail, non_null, out, span, span_mut};
use crate::placement::{hrw_placement, placement, split_keys};
use crate::status::{hrw_error, hrw_status};

/// A placement with bounded loads (build it with `hrw_bounded_load_new`, release it with
/// `hrw_bounded_load_free`). Immutable: one handle may be used from any number of threads at
/// once; only `hrw_bounded_load_free` must not race with other calls on it.
pub struct hrw_bounded_load {
    inner: BoundedLoad,
}

/// The bounded-load-v1 policy over a copy of `placement` with balance factor `c = num / den`,
/// which needs `den >= 1` and `num >= den` (else INVALID_BALANCE_FACTOR, with `num / den` in
/// `error->value`). The placement may be freed afterwards. `error` may be NULL; `*out` is written
/// only on success. Release the result with `hrw_bounded_load_free`.
///
/// # Safety
/// `placement` is a live handle; `out_bounded_load` and a non-NULL `error` are writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_bounded_load_new(
    placement: *const hrw_placement,
    num: u32,
    den: u32,
    out_bounded_load: *mut *mut hrw_bounded_load,
    error: *mut hrw_error,
) -> hrw_status {
    let call = || -> Result<(), hrw_error> {
        // SAFETY: caller contract.
        let p = unsafe { placement_of(placement) }?;
        let dst = out(out_bounded_load)?;
        let factor = BalanceFactor::new(num, den)?;
        let handle = Box::into_raw(Box::new(hrw_bounded_load {
            inner: BoundedLoad::new(p.clone(), factor),
        }));
        // SAFETY: checked non-NULL.
        unsafe { dst.write(handle) };
        Ok(())
    };
    // SAFETY: `error` is NULL or writable (caller contract).
    unsafe { guard_detail(error, call) }
}

// Named apart from `placement` so that the exported parameter keeps its plain name.
unsafe fn placement_of<'a>(
    p: *const hrw_placement,
) -> Result<&'a hrwhash_core::Placement, hrw_status> {
    // SAFETY: forwarded from the caller.
    unsafe { placement(p) }
}

/// Releases a bounded-load handle; NULL is a no-op.
///
/// # Safety
/// `bounded_load` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_bounded_load_free(bounded_load: *mut hrw_bounded_load) {
    guard(|| {
        if !bounded_load.is_null() {
            // SAFETY: the handle came from Box::into_raw in `hrw_bounded_load_new`, freed once.
            drop(unsafe { Box::from_raw(bounded_load) });
        }
        Ok(())
    });
}

/// Online lookup: the index of the first node of `key`'s hrw-v1 ranking whose load is below its
/// cap, where `loads[i]` is the current load of node `i` (one entry per node, draining nodes
/// included). LENGTH_MISMATCH when `loads_len` is not the number of nodes (`error->expected`,
/// `error->actual`), LOAD_OVERFLOW when the loads add up to more than 2^64 - 1.
///
/// # Safety
/// `bounded_load` is a live handle; `key` and `loads` are NULL or valid for their lengths;
/// `out_index` and a non-NULL `error` are writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_bounded_load_owner(
    bounded_load: *const hrw_bounded_load,
    key: *const u8,
    key_len: usize,
    loads: *const u64,
    loads_len: usize,
    out_index: *mut usize,
    error: *mut hrw_error,
) -> hrw_status {
    let call = || -> Result<(), hrw_error> {
        let bl = non_null(bounded_load)?;
        let dst = out(out_index)?;
        // SAFETY: caller contract.
        let key = unsafe { bytes(key, key_len) }?;
        // SAFETY: caller contract.
        let loads = unsafe { span(loads, loads_len) }?;
        // SAFETY: a live handle (caller contract).
        let owner = unsafe { &(*bl).inner }.owner_index(key, loads)?;
        // SAFETY: checked non-NULL.
        unsafe { dst.write(owner) };
        Ok(())
    };
    // SAFETY: `error` is NULL or writable (caller contract).
    unsafe { guard_detail(error, call) }
}

/// Batch assignment (bounded-load-v1, "Batch"): each of the `key_count` keys, in order, takes
/// the first node of its ranking that holds fewer than `ceil(c * key_count * share)` of the keys
/// before it. The keys are given as for `hrw_placement_owners` (concatenated in `keys`,
/// `key_lens[i]` the length of key `i`); `out_indices[i]` receives the node of key `i`, so
/// `out_len` must be `key_count`. LENGTH_MISMATCH (POLICIES.md, bounded-load-v1, "Errors") when
/// it is not (`error->expected`: `key_count`, `error->actual`: `out_len`), then when the key
/// lengths do not add up to `keys_len` (`error->expected`: `keys_len`, `error->actual`: their
/// sum, `SIZE_MAX` when it overflows). Nothing is written to `out_indices` unless the call
/// succeeds.
///
/// # Safety
/// `bounded_load` is a live handle; every buffer is NULL or valid for its stated length; a
/// non-NULL `error` is writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the keys and the output are each a (pointer, length) pair
pub unsafe extern "C" fn hrw_bounded_load_assign(
    bounded_load: *const hrw_bounded_load,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    out_indices: *mut usize,
    out_len: usize,
    error: *mut hrw_error,
) -> hrw_status {
    let call = || -> Result<(), hrw_error> {
        let bl = non_null(bounded_load)?;
        // SAFETY: caller contract.
        let keys = unsafe { bytes(keys, keys_len) }?;
        // SAFETY: caller contract.
        let lens = unsafe { span(key_lens, key_count) }?;
        // SAFETY: caller contract.
        let dst = unsafe { span_mut(out_indices, out_len) }?;
        if dst.len() != lens.len() {
            return Err(lengths(hrw_status::LengthMismatch, lens.len(), out_len));
        }
        let split: Vec<&[u8]> = match split_keys(keys, lens) {
            Ok(split) => split.collect(),
            Err(status) => {
                let sum = lens
                    .iter()
                    .try_fold(0usize, |acc, &l| acc.checked_add(l))
                    .unwrap_or(usize::MAX);
                return Err(lengths(status, keys.len(), sum));
            }
        };
        // SAFETY: a live handle (caller contract).
        unsafe { &(*bl).inner }.assign_into(&split, dst)?;
        Ok(())
    };
    // SAFETY: `error` is NULL or writable (caller contract).
    unsafe { guard_detail(error, call) }
}

fn lengths(status: hrw_status, expected: usize, actual: usize) -> hrw_error {
    hrw_error {
        expected,
        actual,
        ..hrw_error::from_status(status)
    }
}
