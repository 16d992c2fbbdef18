//! `hrw_domains`: the domains-v1 policy (conformance/POLICIES.md, "domains (v1)") over a
//! placement, behind an opaque handle. Each node's domain is its path, levels separated by `/`.

use hrwhash_core::policy::Domains;
use hrwhash_core::Error;
use hrwhash_core::Fault;

use crate::ffi::{
    copy_to, free_handle, get, get_by_key, guard, opt_out, try_bytes, try_out, try_ref,
    try_span_mut, Handle,
};
use crate::placement::hrw_placement;
use crate::status::hrw_status;

/// A placement read through the domains-v1 policy at one spread level (build it with
/// `hrw_domains_new`, release it with `hrw_domains_free`). It keeps its own reference to the
/// placement's nodes, so the `hrw_placement` may be freed first. Usable from any number of
/// threads at once; only `hrw_domains_free` must not race with other calls on it.
pub struct hrw_domains {
    inner: Domains,
}

impl Handle for hrw_domains {}

/// What is wrong with the paths or the level given to `hrw_domains_new` (the `reason` of
/// POLICIES.md). The numbers are part of the ABI.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hrw_domain_fault {
    /// Not an INVALID_DOMAINS failure.
    None = 0,
    /// A node has no domain (`missing`).
    Missing = 1,
    /// A level of a node's path is empty (`empty_level`).
    EmptyLevel = 2,
    /// A node's path has another number of levels than node 0's (`depth_mismatch`).
    DepthMismatch = 3,
    /// The level is not below the depth of the paths (`level_out_of_range`).
    LevelOutOfRange = 4,
    /// The fixed-point weights add up to 2^64 or more (`weight_overflow`).
    WeightOverflow = 5,
}

/// Details of a failed `hrw_domains_new`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_domains_error {
    /// Same as the returned status.
    pub status: hrw_status,
    /// INVALID_DOMAINS: position of the node at fault (0-based), or SIZE_MAX when the fault is
    /// the level.
    pub index: usize,
    /// INVALID_DOMAINS: what is wrong; NONE for every other status.
    pub reason: hrw_domain_fault,
}

fn fault_of(reason: Fault) -> hrw_domain_fault {
    match reason {
        Fault::Missing => hrw_domain_fault::Missing,
        Fault::EmptyLevel => hrw_domain_fault::EmptyLevel,
        Fault::DepthMismatch => hrw_domain_fault::DepthMismatch,
        Fault::LevelOutOfRange => hrw_domain_fault::LevelOutOfRange,
        Fault::WeightOverflow => hrw_domain_fault::WeightOverflow,
        // A document's fault, never a domain's, or one added to the core after this binding.
        _ => hrw_domain_fault::None,
    }
}

/// The policy over `placement` spreading over `level` (0-based: 0 is the outermost level of the
/// paths). Every node needs a domain path of the same number of levels. `*out_domains` is written
/// only on success; on failure a non-NULL `error` receives the details. Release the result with
/// `hrw_domains_free`.
///
/// # Safety
/// `placement` is a live handle; `out_domains` is writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_new(
    placement: *const hrw_placement,
    level: usize,
    out_domains: *mut *mut hrw_domains,
    error: *mut hrw_domains_error,
) -> hrw_status {
    let mut detail = (usize::MAX, hrw_domain_fault::None);
    let status = guard(|| {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_domains);
        let inner = Domains::new(p, level).map_err(|e| {
            if let Error::InvalidDomains { index, reason } = &e {
                detail = (index.unwrap_or(usize::MAX), fault_of(*reason));
            }
            hrw_status::from(&e)
        })?;
        dst.put_box(hrw_domains { inner });
        Ok(())
    });
    if status != hrw_status::Ok {
        let (index, reason) = match status {
            hrw_status::InvalidDomains => detail,
            _ => (0, hrw_domain_fault::None),
        };
        if let Some(error) = opt_out!(error) {
            error.write(hrw_domains_error {
                status,
                index,
                reason,
            });
        }
    }
    status
}

/// Releases the policy; NULL is a no-op.
///
/// # Safety
/// `domains` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_free(domains: *mut hrw_domains) {
    free_handle!(domains);
}

/// The index (in the placement's node list) of the owner of `key`: the first of its replicas.
///
/// # Safety
/// `domains` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_owner(
    domains: *const hrw_domains,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(domains, key, key_len, out_index, |d, key| {
            Ok(d.inner.owner_index(key))
        })
    }
}

/// The first `k` replicas of `key` into `out_indices[0..k]`, in distinct domains of the spread
/// level while there are enough. `k` is from 1 to the number of nodes of weight above zero (else
/// INVALID_REPLICA_COUNT); `out_len` must be at least `k` (else BUFFER_TOO_SMALL).
///
/// # Safety
/// `domains` is a live handle; `key` is NULL or valid for `key_len` bytes; `out_indices` is NULL
/// or valid for `out_len` writes.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_replicas(
    domains: *const hrw_domains,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let d = &try_ref!(domains).inner;
        let key = try_bytes!(key, key_len);
        let dst = try_span_mut!(out_indices, out_len);
        let got = d
            .replica_indices(key, k)
            .map_err(|e| hrw_status::from(&e))?;
        copy_to(dst, &got)
    })
}

/// The number of domains of the spread level that have a node of weight above zero.
///
/// # Safety
/// `domains` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_domain_count(
    domains: *const hrw_domains,
    out_count: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(domains, out_count, |d| Ok(d.inner.domain_count())) }
}

/// The domain of the spread level that node `index` is in (its path up to that level):
/// `*out_domain` points into the policy (valid until it is freed, not NUL-terminated).
///
/// # Safety
/// `domains` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_domains_domain_of(
    domains: *const hrw_domains,
    index: usize,
    out_domain: *mut *const u8,
    out_domain_len: *mut usize,
) -> hrw_status {
    guard(|| {
        let d = &try_ref!(domains).inner;
        let ptr_dst = try_out!(out_domain);
        let len_dst = try_out!(out_domain_len);
        let domain = d.domain_of(index).ok_or(hrw_status::IndexOutOfRange)?;
        ptr_dst.write(domain.as_ptr());
        len_dst.write(domain.len());
        Ok(())
    })
}
