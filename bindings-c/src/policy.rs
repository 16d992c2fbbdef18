//! `hrw_bounded_load`: the core's bounded-load-v1 policy (conformance/POLICIES.md) behind an
//! opaque handle.

use hrwhash_core::policy::{BalanceFactor, BoundedLoad};

use crate::ffi::{free_handle, get_by_key_detail, span, try_out, try_ref, with_detail, Handle};
use crate::placement::{batch_args, hrw_placement, split_keys};
use crate::status::{hrw_error, hrw_status};

/// A placement with bounded loads (build it with `hrw_bounded_load_new`, release it with
/// `hrw_bounded_load_free`). Immutable: one handle may be used from any number of threads at
/// once; only `hrw_bounded_load_free` must not race with other calls on it.
pub struct hrw_bounded_load {
    inner: BoundedLoad,
}

impl Handle for hrw_bounded_load {}

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
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_bounded_load);
        let factor = BalanceFactor::new(num, den)?;
        dst.put_box(hrw_bounded_load {
            inner: BoundedLoad::new(p.clone(), factor),
        });
        Ok(())
    })
}

/// Releases a bounded-load handle; NULL is a no-op.
///
/// # Safety
/// `bounded_load` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_bounded_load_free(bounded_load: *mut hrw_bounded_load) {
    free_handle!(bounded_load);
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
    // SAFETY: forwarded.
    unsafe {
        get_by_key_detail(bounded_load, key, key_len, out_index, error, |bl, key| {
            Ok(bl.inner.owner_index(key, span(loads, loads_len)?)?)
        })
    }
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
    with_detail!(error, || {
        let bl = &try_ref!(bounded_load).inner;
        // SAFETY: forwarded.
        let (keys, lens, dst) =
            unsafe { batch_args(keys, keys_len, key_lens, key_count, out_indices, out_len) }?;
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
        bl.assign_into(&split, dst)?;
        Ok(())
    })
}

fn lengths(status: hrw_status, expected: usize, actual: usize) -> hrw_error {
    hrw_error {
        expected,
        actual,
        ..hrw_error::from_status(status)
    }
}
