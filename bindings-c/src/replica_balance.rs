//! `hrw_replica_balance`: the core's replica-balance policy (conformance/POLICIES.md, tag
//! `replica-balance-v2`) behind an opaque handle.

use hrwhash_core::policy::ReplicaBalance;

use crate::ffi::{bytes, guard, guard_detail, non_null, out, span_mut};
// Renamed so that the exported parameter keeps its plain name `placement`.
use crate::placement::{hrw_placement, placement as placement_of};
use crate::status::{hrw_error, hrw_status};

/// Replica sets of `k` nodes whose share of replicas follows the weights (replica-balance,
/// conformance/POLICIES.md). Build it with `hrw_replica_balance_new`, release it with
/// `hrw_replica_balance_free`; immutable and shareable between threads like `hrw_placement`.
pub struct hrw_replica_balance {
    inner: ReplicaBalance,
}

/// Replica sets of `k` nodes over a copy of `placement`. INVALID_COUNT when `k` is 0;
/// INFEASIBLE_REPLICA_WEIGHTS when a node has more than `1 / k` of the total weight
/// (`error->index`: the node, `error->expected`: `k`). `error` may be NULL; `*out` is written only
/// on success.
///
/// # Safety
/// `placement` is a live handle; `out_replica_balance` and a non-NULL `error` are writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_new(
    placement: *const hrw_placement,
    k: usize,
    out_replica_balance: *mut *mut hrw_replica_balance,
    error: *mut hrw_error,
) -> hrw_status {
    let call = || -> Result<(), hrw_error> {
        // SAFETY: caller contract.
        let p = unsafe { placement_of(placement) }?;
        let dst = out(out_replica_balance)?;
        let inner = ReplicaBalance::new(p.clone(), k)?;
        let handle = Box::into_raw(Box::new(hrw_replica_balance { inner }));
        // SAFETY: checked non-NULL.
        unsafe { dst.write(handle) };
        Ok(())
    };
    // SAFETY: `error` is NULL or writable (caller contract).
    unsafe { guard_detail(error, call) }
}

/// Releases a replica-balance handle; NULL is a no-op.
///
/// # Safety
/// `replica_balance` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_free(replica_balance: *mut hrw_replica_balance) {
    guard(|| {
        if !replica_balance.is_null() {
            // SAFETY: the handle came from Box::into_raw in `hrw_replica_balance_new`.
            drop(unsafe { Box::from_raw(replica_balance) });
        }
        Ok(())
    });
}

/// # Safety
/// A non-NULL `rb` is a live handle.
unsafe fn balance_ref<'a>(
    rb: *const hrw_replica_balance,
) -> Result<&'a ReplicaBalance, hrw_status> {
    let rb = non_null(rb)?;
    // SAFETY: forwarded from the caller.
    Ok(unsafe { &(*rb).inner })
}

/// The replica set of `key` (primary first) into `out_indices`, which must hold `k` entries
/// (else BUFFER_TOO_SMALL); `*out_count` receives `k`.
///
/// # Safety
/// `replica_balance` is a live handle; the buffers are NULL or valid for their lengths.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_replicas(
    replica_balance: *const hrw_replica_balance,
    key: *const u8,
    key_len: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    guard(|| {
        // SAFETY: caller contract.
        let rb = unsafe { balance_ref(replica_balance) }?;
        let count = out(out_count)?;
        // SAFETY: caller contract.
        let key = unsafe { bytes(key, key_len) }?;
        // SAFETY: caller contract.
        let dst = unsafe { span_mut(out_indices, out_len) }?;
        if dst.len() < rb.k() {
            return Err(hrw_status::BufferTooSmall);
        }
        let n = rb.replicas_into(key, &mut dst[..rb.k()]);
        // SAFETY: checked non-NULL.
        unsafe { count.write(n) };
        Ok(())
    })
}

/// The weights that rank positions 2 to k, in fixed point (`w * 2^32`), build order:
/// `out_weights` must hold one per node (else BUFFER_TOO_SMALL). `*out_iterations`, if not NULL,
/// receives how many times the solver evaluated the inclusion probabilities, and `*out_residual`,
/// if not NULL, the solver's largest relative distance from a target when it stopped.
///
/// # Safety
/// `replica_balance` is a live handle; the buffers are NULL or valid for their lengths.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_adjusted_fixed(
    replica_balance: *const hrw_replica_balance,
    out_weights: *mut u64,
    out_len: usize,
    out_iterations: *mut u32,
    out_residual: *mut f64,
) -> hrw_status {
    guard(|| {
        // SAFETY: caller contract.
        let rb = unsafe { balance_ref(replica_balance) }?;
        // SAFETY: caller contract.
        let dst = unsafe { span_mut(out_weights, out_len) }?;
        let weights = rb.adjusted_weights();
        if dst.len() < weights.len() {
            return Err(hrw_status::BufferTooSmall);
        }
        for (d, w) in dst.iter_mut().zip(&weights) {
            *d = w.to_fixed();
        }
        if !out_iterations.is_null() {
            // SAFETY: a non-NULL `out_iterations` is writable (caller contract).
            unsafe { out_iterations.write(rb.iterations()) };
        }
        if !out_residual.is_null() {
            // SAFETY: a non-NULL `out_residual` is writable (caller contract).
            unsafe { out_residual.write(rb.residual()) };
        }
        Ok(())
    })
}
