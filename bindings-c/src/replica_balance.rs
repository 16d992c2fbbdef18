//! `hrw_replica_balance`: the core's replica-balance policy (conformance/POLICIES.md, tag
//! `replica-balance-v2`) behind an opaque handle.

use hrwhash_core::policy::ReplicaBalance;

use crate::ffi::{
    copy_to, free_handle, guard, opt_out, try_bytes, try_out, try_ref, try_span_mut, with_detail,
    Handle,
};
use crate::placement::hrw_placement;
use crate::status::{hrw_error, hrw_status};

/// Replica sets of `k` nodes whose share of replicas follows the weights (replica-balance,
/// conformance/POLICIES.md). Build it with `hrw_replica_balance_new`, release it with
/// `hrw_replica_balance_free`; immutable and shareable between threads like `hrw_placement`.
pub struct hrw_replica_balance {
    inner: ReplicaBalance,
}

impl Handle for hrw_replica_balance {}

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
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_replica_balance);
        let inner = ReplicaBalance::new(p.clone(), k)?;
        dst.put_box(hrw_replica_balance { inner });
        Ok(())
    })
}

/// Releases a replica-balance handle; NULL is a no-op.
///
/// # Safety
/// `replica_balance` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_free(replica_balance: *mut hrw_replica_balance) {
    free_handle!(replica_balance);
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
        let rb = &try_ref!(replica_balance).inner;
        let count = try_out!(out_count);
        let key = try_bytes!(key, key_len);
        let dst = try_span_mut!(out_indices, out_len);
        let dst = dst.get_mut(..rb.k()).ok_or(hrw_status::BufferTooSmall)?;
        count.write(rb.replicas_into(key, dst));
        Ok(())
    })
}

/// The weights that rank positions 2 to k as numbers (`hrw_replica_balance_adjusted_fixed`
/// divided by 2^32), build order: `out_weights` must hold one per node (else BUFFER_TOO_SMALL).
///
/// # Safety
/// `replica_balance` is a live handle; `out_weights` is NULL or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_replica_balance_adjusted_weights(
    replica_balance: *const hrw_replica_balance,
    out_weights: *mut f64,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let rb = &try_ref!(replica_balance).inner;
        let dst = try_span_mut!(out_weights, out_len);
        let weights: Vec<f64> = rb.adjusted_weights().iter().map(|w| w.to_f64()).collect();
        copy_to(dst, &weights)
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
        let rb = &try_ref!(replica_balance).inner;
        let dst = try_span_mut!(out_weights, out_len);
        let weights: Vec<u64> = rb.adjusted_weights().iter().map(|w| w.to_fixed()).collect();
        copy_to(dst, &weights)?;
        if let Some(iterations) = opt_out!(out_iterations) {
            iterations.write(rb.iterations());
        }
        if let Some(residual) = opt_out!(out_residual) {
            residual.write(rb.residual());
        }
        Ok(())
    })
}
