//! `hrw_bounded_load`: the core's bounded-load-v1 policy (conformance/POLICIES.md) behind an
//! opaque handle.

use hrwhash_core::policy::{BalanceFactor, BoundedLoad};

use crate::ffi::{bytes, guard, guard_detail, non_null, out, span};
use crate::placement::{hrw_placement, placement};
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
