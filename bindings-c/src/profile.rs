//! `hrw_profile_placement`: the core's `ProfilePlacement` (a placement that answers exactly as
//! an incumbent library does, conformance/PROFILES.md) behind an opaque handle.

use std::ffi::{c_char, CStr};

use hrwhash_compat::{Profile, ProfilePlacement};
use hrwhash_core::Node;

use crate::ffi::{
    bytes, free_handle, get, get_by_key, guard, try_bytes, try_out, try_ref, try_span,
    try_span_mut, with_detail, Handle,
};
use crate::placement::{batch_args, owners_of, weight_at};
use crate::status::{hrw_error, hrw_status};

/// A membership placed the way an incumbent places it (build it with
/// `hrw_profile_placement_new`, release it with `hrw_profile_placement_free`).
///
/// Immutable once built: one handle may be used from any number of threads at once; only
/// `hrw_profile_placement_free` must not race with other calls on it.
pub struct hrw_profile_placement {
    inner: ProfilePlacement,
}

impl Handle for hrw_profile_placement {}

// The names as static C strings, in the order of `Profile::ALL`.
const NAMES: [&CStr; 4] = [
    c"go-redis-ring-v9",
    c"pymemcache-rendezvous",
    c"ketama-libmemcached",
    c"hashring-node-3",
];

// The table above is checked against the core when the library is built.
const _: () = {
    let mut i = 0;
    while i < NAMES.len() {
        assert!(same(NAMES[i].to_bytes(), Profile::ALL[i].name().as_bytes()));
        i += 1;
    }
    assert!(NAMES.len() == Profile::ALL.len());
};

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

fn c_name(profile: Profile) -> &'static CStr {
    let i = Profile::ALL
        .iter()
        .position(|&p| p == profile)
        .unwrap_or_default();
    NAMES[i]
}

/// The name of profile number `index` (0-based, in the order of conformance/PROFILES.md) as a
/// static NUL-terminated string; INDEX_OUT_OF_RANGE past the last one, so a loop from 0 lists
/// every profile this library knows.
///
/// # Safety
/// `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_name(
    index: usize,
    out_name: *mut *const c_char,
) -> hrw_status {
    guard(|| {
        let dst = try_out!(out_name);
        let name = NAMES.get(index).ok_or(hrw_status::IndexOutOfRange)?;
        dst.write(name.as_ptr());
        Ok(())
    })
}

/// Builds the placement of profile `profile_name` (`name_len` bytes, for example
/// "ketama-libmemcached"; UNKNOWN_PROFILE for any other name) over `count` nodes: node `i` has
/// the id `ids[i]` of `id_lens[i]` bytes and, when `weights` is non-NULL, the weight
/// `weights[i]` (`weights` holds `count` values). Lookups return positions in this order. Ids
/// are copied.
///
/// NOT_OFFERED when the profile's incumbent cannot take what was given (a weight other than 1
/// on an unweighted incumbent, a weight or id form it has no place for). On failure a non-NULL
/// `error` receives the details, as for `hrw_placement_new` (INVALID_WEIGHT: the node's `index`
/// and the rejected `value`; a NULL id with a length: its node's `index`). `*out_placement` is
/// written only on success; release it with `hrw_profile_placement_free`.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length (`ids`, `id_lens` and a non-NULL
/// `weights` for `count` elements); `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_new(
    profile_name: *const u8,
    name_len: usize,
    ids: *const *const u8,
    id_lens: *const usize,
    weights: *const f64,
    count: usize,
    out_placement: *mut *mut hrw_profile_placement,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let dst = try_out!(out_placement);
        let name = try_bytes!(profile_name, name_len);
        // A name that is not UTF-8 is not the name of any profile.
        let profile = Profile::from_name(&String::from_utf8_lossy(name))?;
        let id_ptrs = try_span!(ids, count);
        let lens = try_span!(id_lens, count);
        let weights = if weights.is_null() {
            None
        } else {
            Some(try_span!(weights, count))
        };
        let mut nodes = Vec::with_capacity(count);
        for (i, (&ptr, &len)) in id_ptrs.iter().zip(lens).enumerate() {
            // SAFETY: caller contract on every id.
            let id = unsafe { bytes(ptr, len) }.map_err(|s| hrw_error::from(s).at(i))?;
            let node = Node::new(id);
            nodes.push(match weights {
                Some(w) => node.with_weight(weight_at(w[i], i)?),
                None => node,
            });
        }
        dst.put_box(hrw_profile_placement {
            inner: ProfilePlacement::new(profile, nodes)?,
        });
        Ok(())
    })
}

/// Releases a profile placement; NULL is a no-op.
///
/// # Safety
/// `placement` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_free(placement: *mut hrw_profile_placement) {
    free_handle!(placement);
}

/// The index of the node the incumbent gives `key` to (`key` may be NULL when `key_len` is 0).
///
/// # Safety
/// `placement` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_owner(
    placement: *const hrw_profile_placement,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(placement, key, key_len, out_index, |p, key| {
            Ok(p.inner.owner(key))
        })
    }
}

/// Owners of `key_count` keys in one call, the keys given as for `hrw_placement_owners`
/// (concatenated in `keys`, `key_lens[i]` bytes each; BUFFER_TOO_SMALL when `out_len` is below
/// `key_count`, LENGTH_MISMATCH when the lengths do not add up to `keys_len`).
///
/// # Safety
/// Every pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_owners(
    placement: *const hrw_profile_placement,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    out_indices: *mut usize,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        // SAFETY: forwarded.
        let args =
            unsafe { batch_args(keys, keys_len, key_lens, key_count, out_indices, out_len) }?;
        let (keys, dst) = owners_of(args)?;
        for (key, slot) in keys.zip(dst) {
            *slot = p.owner(key);
        }
        Ok(())
    })
}

/// The incumbent's top-`k` lookup for `key`: the first `k` distinct nodes, owner first, as
/// node indices in `out_indices`; `*out_count` receives how many there are (fewer than `k`
/// when fewer nodes can be reached). BUFFER_TOO_SMALL when `out_len` is below that count;
/// NOT_OFFERED for a profile whose incumbent has no top-k lookup.
///
/// # Safety
/// `placement` is a live handle; every other pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_replicas(
    placement: *const hrw_profile_placement,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let count_dst = try_out!(out_count);
        let key = try_bytes!(key, key_len);
        let dst = try_span_mut!(out_indices, out_len);
        let ranked = p
            .replicas(key, k.min(p.len()))
            .map_err(|e| hrw_status::from(&e))?;
        dst.get_mut(..ranked.len())
            .ok_or(hrw_status::BufferTooSmall)?
            .copy_from_slice(&ranked);
        count_dst.write(ranked.len());
        Ok(())
    })
}

/// The number of nodes.
///
/// # Safety
/// `placement` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_len(
    placement: *const hrw_profile_placement,
    out_len: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { get(placement, out_len, |p| Ok(p.inner.len())) }
}

/// The id of the node at `index`: `*out_id` points into the placement (valid until it is freed,
/// not NUL-terminated) and `*out_id_len` is its length.
///
/// # Safety
/// `placement` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_node_id(
    placement: *const hrw_profile_placement,
    index: usize,
    out_id: *mut *const u8,
    out_id_len: *mut usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let id_dst = try_out!(out_id);
        let len_dst = try_out!(out_id_len);
        let id = p.node(index).ok_or(hrw_status::IndexOutOfRange)?.id();
        id_dst.write(id.as_ptr());
        len_dst.write(id.len());
        Ok(())
    })
}

/// The placement's profile name, static and NUL-terminated.
///
/// # Safety
/// `placement` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_profile_placement_profile(
    placement: *const hrw_profile_placement,
    out_name: *mut *const c_char,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(placement, out_name, |p| {
            Ok(c_name(p.inner.profile()).as_ptr())
        })
    }
}
