//! `hrw_placement`: the core's `Placement` behind an opaque handle.

use hrwhash_core::{v1, Error, Node, Placement, Seed, Weight};

use crate::ffi::{
    bytes, copy_to, copy_to_buffer, free_handle, get_by_key, get_by_key_detail, guard, opt_out,
    span, try_bytes, try_out, try_ref, try_span, try_span_mut, with_detail, Handle, Out,
};
use crate::status::{hrw_error, hrw_status};

/// An immutable placement of nodes (build it with `hrw_placement_new`, release it with
/// `hrw_placement_free`).
///
/// A built placement never changes, so one handle may be used from any number of threads at
/// once without locking; only `hrw_placement_free` must not race with other calls on it.
pub struct hrw_placement {
    pub(crate) inner: Placement,
}

impl Handle for hrw_placement {}

/// A node as the caller describes it. Zero-initialised fields mean "no domain".
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_node {
    /// The id bytes (need not be NUL-terminated; may contain NUL). Must not be empty.
    pub id: *const u8,
    /// Length of `id` in bytes.
    pub id_len: usize,
    /// The failure domain (rack, zone, host) or NULL for none; an empty domain needs a non-NULL
    /// pointer with length 0.
    pub domain: *const u8,
    /// Length of `domain` in bytes (0 when `domain` is NULL).
    pub domain_len: usize,
}

/// Optional settings of `hrw_placement_new`; a zero-initialised struct (or a NULL pointer) means
/// the default seed and weight 1.0 for every node.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_placement_options {
    /// 16 seed bytes, or NULL for the default seed.
    pub seed: *const u8,
    /// Length of `seed`: 16, or 0 when `seed` is NULL.
    pub seed_len: usize,
    /// One weight per node (in node order), or NULL for weight 1.0 everywhere. A non-NULL
    /// pointer is a weights list even when `weights_len` is 0, so its length must be the number
    /// of nodes (else LENGTH_MISMATCH). Weight 0.0 keeps a node in the membership but never
    /// selects it.
    pub weights: *const f64,
    /// Length of `weights`: the number of nodes, or 0 when `weights` is NULL.
    pub weights_len: usize,
}

/// The seed of a (pointer, length) span: NULL with length 0 is the default seed.
pub(crate) fn seed_from(ptr: *const u8, len: usize) -> Result<Result<Seed, Error>, hrw_status> {
    if ptr.is_null() && len == 0 {
        return Ok(Ok(Seed::DEFAULT));
    }
    // SAFETY: the caller promises `len` readable bytes at a non-NULL `ptr`.
    let s = unsafe { bytes(ptr, len) }?;
    Ok(Seed::from_slice(s))
}

/// The arguments of a call that reads a document under a seed, checked in this order: the
/// out-param, the text (or path) bytes, then the seed (`seed_from`).
///
/// # Safety
/// As `Out::new` for `dst` and `bytes` for the text.
pub(crate) unsafe fn seeded<'a, T>(
    dst: *mut T,
    text: *const u8,
    text_len: usize,
    seed: *const u8,
    seed_len: usize,
) -> Result<(Out<T>, &'a [u8], Seed), hrw_error> {
    let dst = try_out!(dst);
    let text = try_bytes!(text, text_len);
    Ok((dst, text, seed_from(seed, seed_len)??))
}

/// The id and domain of a C node, checked for NULL-with-length (NULL_PARAMETER).
///
/// # Safety
/// `n` follows the `hrw_node` contract.
pub(crate) unsafe fn node_parts<'a>(
    n: &hrw_node,
) -> Result<(&'a [u8], Option<&'a [u8]>), hrw_status> {
    // SAFETY: forwarded from the caller.
    let id = unsafe { bytes(n.id, n.id_len) }?;
    if n.domain.is_null() {
        if n.domain_len != 0 {
            return Err(hrw_status::NullParameter);
        }
        return Ok((id, None));
    }
    // SAFETY: forwarded from the caller.
    let domain = unsafe { bytes(n.domain, n.domain_len) }?;
    Ok((id, Some(domain)))
}

pub(crate) fn node_of(id: &[u8], domain: Option<&[u8]>, weight: Weight) -> Node {
    let node = Node::new(id).with_weight(weight);
    match domain {
        Some(d) => node.with_domain(d),
        None => node,
    }
}

/// A weight from C, or INVALID_WEIGHT naming the node `index` and the value.
pub(crate) fn weight_at(w: f64, index: usize) -> Result<Weight, hrw_error> {
    Weight::new(w).map_err(|e| hrw_error::from(e).at(index))
}

/// The node that a change appends at `index`: NULL_PARAMETER for a NULL `node`, then its id,
/// domain and weight checked with errors that name `index`.
///
/// # Safety
/// A non-NULL `node` points to an `hrw_node` that follows its contract.
pub(crate) unsafe fn new_node(
    node: *const hrw_node,
    weight: f64,
    index: usize,
) -> Result<Node, hrw_error> {
    let node = try_ref!(node);
    // SAFETY: forwarded from the caller.
    let (id, domain) = unsafe { node_parts(node) }.map_err(|s| hrw_error::from(s).at(index))?;
    Ok(node_of(id, domain, weight_at(weight, index)?))
}

/// The new weight of the node of this id: UNKNOWN_NODE first, then INVALID_WEIGHT naming its
/// index.
pub(crate) fn weight_of(members: &Placement, id: &[u8], weight: f64) -> Result<Weight, hrw_error> {
    let index = members.find(id).ok_or(hrw_status::UnknownNode)?.index();
    weight_at(weight, index)
}

/// Builds a placement of `nodes_len` nodes; the node index used by every lookup is the position
/// in `nodes`. Ids and domains are copied: the caller's buffers may be released afterwards.
///
/// `options` may be NULL. On failure, if `error` is non-NULL, it receives the details (which
/// node, which weight); `*out` is written only on success. Release the result with
/// `hrw_placement_free`.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_new(
    nodes: *const hrw_node,
    nodes_len: usize,
    options: *const hrw_placement_options,
    out_placement: *mut *mut hrw_placement,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let dst = try_out!(out_placement);
        // SAFETY: forwarded.
        let p = unsafe { build(nodes, nodes_len, options) }?;
        dst.put_box(hrw_placement { inner: p });
        Ok(())
    })
}

/// # Safety
/// As `hrw_placement_new`.
unsafe fn build(
    nodes: *const hrw_node,
    nodes_len: usize,
    options: *const hrw_placement_options,
) -> Result<Placement, hrw_error> {
    // The order of API.md section 4: the shape of every argument (nodes, weights, seed), then
    // lengths, then the checks of SPEC.md section 7.
    // Checked before the nodes are read: no buffer holds that many, so reading first would only
    // read past the caller's.
    if !nodes.is_null() && nodes_len > u32::MAX as usize {
        return Err(Error::TooManyNodes { count: nodes_len }.into());
    }
    // SAFETY: caller contract.
    let nodes = unsafe { span(nodes, nodes_len) }?;
    let mut parts = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        // SAFETY: caller contract on every node.
        parts.push(unsafe { node_parts(n) }.map_err(|s| hrw_error::from(s).at(i))?);
    }
    // SAFETY: a non-NULL `options` points to a readable struct (caller contract).
    let (seed_ptr, seed_len, w_ptr, w_len) = match unsafe { options.as_ref() } {
        Some(o) => (o.seed, o.seed_len, o.weights, o.weights_len),
        None => (std::ptr::null(), 0, std::ptr::null(), 0),
    };
    // SAFETY: caller contract.
    let weights = unsafe { span(w_ptr, w_len) }?;
    let seed = seed_from(seed_ptr, seed_len)?;
    // A non-NULL weights pointer is a list of weights, even an empty one: it must match.
    if !w_ptr.is_null() && weights.len() != nodes.len() {
        return Err(Error::LengthMismatch {
            expected: nodes.len(),
            actual: weights.len(),
        }
        .into());
    }
    let seed = seed?;
    let mut built = Vec::with_capacity(nodes.len());
    for (i, (id, domain)) in parts.into_iter().enumerate() {
        let weight = match weights.get(i) {
            Some(&w) => weight_at(w, i)?,
            None => Weight::ONE,
        };
        built.push(node_of(id, domain, weight));
    }
    Ok(Placement::from_nodes(seed, built)?)
}

/// Releases a placement; NULL is a no-op.
///
/// # Safety
/// `placement` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_free(placement: *mut hrw_placement) {
    free_handle!(placement);
}

/// The index of the node that owns `key` (`key` may be NULL when `key_len` is 0).
///
/// # Safety
/// `placement` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_owner(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(placement, key, key_len, out_index, |p, key| {
            Ok(p.inner.owner_index(key))
        })
    }
}

/// Owners of `key_count` keys in one call: the keys are concatenated in `keys` (`keys_len` bytes
/// in all) and `key_lens[i]` is the length of key `i`. `out_indices[i]` receives the owner of key
/// `i`; `out_len` must be at least `key_count` (else BUFFER_TOO_SMALL) and the lengths must add
/// up to `keys_len` (else LENGTH_MISMATCH).
///
/// # Safety
/// Every pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_owners(
    placement: *const hrw_placement,
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
        let mut done = 0;
        in_blocks(keys, |block| {
            let out = &mut dst[done..done + block.len()];
            done += block.len();
            p.owners_into(block, out)
        })
        .map_err(|e| (&e).into())
    })
}

/// The keys of a batch call, their lengths and the caller's buffer of results.
pub(crate) type BatchArgs<'a, T> = (&'a [u8], &'a [usize], &'a mut [T]);

/// The arguments of a batch call, checked in this order: the keys (`keys_len` bytes in all),
/// their `key_count` lengths, then the caller's buffer of results.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length (`span`, `span_mut`).
pub(crate) unsafe fn batch_args<'a, T>(
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    out_indices: *mut T,
    out_len: usize,
) -> Result<BatchArgs<'a, T>, hrw_status> {
    Ok((
        try_bytes!(keys, keys_len),
        try_span!(key_lens, key_count),
        try_span_mut!(out_indices, out_len),
    ))
}

/// `batch_args` of an owners call: the keys one by one (`split_keys`) and the first `key_count`
/// slots of the buffer, BUFFER_TOO_SMALL when it has fewer (checked before the key lengths).
pub(crate) fn owners_of<T>(
    (keys, lens, dst): BatchArgs<'_, T>,
) -> Result<(impl Iterator<Item = &[u8]>, &mut [T]), hrw_status> {
    let dst = dst
        .get_mut(..lens.len())
        .ok_or(hrw_status::BufferTooSmall)?;
    Ok((split_keys(keys, lens)?, dst))
}

/// The keys of a batch, `lens[i]` bytes each, taken in order from `keys`. LENGTH_MISMATCH
/// unless the lengths add up to exactly `keys.len()` (an overflowing sum never adds up), checked
/// before any key is read.
pub(crate) fn split_keys<'a>(
    keys: &'a [u8],
    lens: &'a [usize],
) -> Result<impl Iterator<Item = &'a [u8]> + 'a, hrw_status> {
    let total = lens
        .iter()
        .try_fold(0usize, |acc, &l| acc.checked_add(l))
        .ok_or(hrw_status::LengthMismatch)?;
    if total != keys.len() {
        return Err(hrw_status::LengthMismatch);
    }
    let mut rest = keys;
    Ok(lens.iter().map(move |&len| {
        let (key, tail) = rest.split_at(len);
        rest = tail;
        key
    }))
}

/// Calls `f` with the keys in order, a block of at most `KEYS_PER_BLOCK` at a time, so that the
/// core's batch calls (which digest several keys at once) see them as slices.
pub(crate) fn in_blocks<'a, E>(
    keys: impl Iterator<Item = &'a [u8]>,
    mut f: impl FnMut(&[&'a [u8]]) -> Result<(), E>,
) -> Result<(), E> {
    const KEYS_PER_BLOCK: usize = 1024;
    let mut block = Vec::with_capacity(KEYS_PER_BLOCK.min(keys.size_hint().0));
    for key in keys {
        block.push(key);
        if block.len() == KEYS_PER_BLOCK {
            f(&block)?;
            block.clear();
        }
    }
    if block.is_empty() {
        Ok(())
    } else {
        f(&block)
    }
}

/// Top-`k` rankings of `key_count` keys in one call, the keys given as for
/// `hrw_placement_owners`. Row `i` of `out_indices` is `k` slots long (`key_count * k` slots in
/// all, else BUFFER_TOO_SMALL; RESULT_TOO_LARGE when that product overflows) and its first
/// `*out_per_key = min(k, selectable nodes)` slots receive the ranking of key `i`; the rest of
/// each row is left as it was.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the keys and the rows are each a (pointer, length) pair
pub unsafe extern "C" fn hrw_placement_rank_many(
    placement: *const hrw_placement,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_per_key: *mut usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let per_key_dst = try_out!(out_per_key);
        let keys = try_bytes!(keys, keys_len);
        let lens = try_span!(key_lens, key_count);
        let slots = key_count.checked_mul(k).ok_or(hrw_status::ResultTooLarge)?;
        let dst = try_span_mut!(out_indices, out_len);
        if dst.len() < slots {
            return Err(hrw_status::BufferTooSmall);
        }
        let rows = split_keys(keys, lens)?;
        let per_key = k.min(p.selectable_len());
        if per_key > 0 {
            let dst = &mut dst[..slots];
            let mut done = 0;
            in_blocks(rows, |block| {
                let out = &mut dst[done..done + block.len() * k];
                done += out.len();
                p.rank_many_into(block, k, out).map(drop)
            })
            .map_err(|e| hrw_status::from(&e))?;
        }
        per_key_dst.write(per_key);
        Ok(())
    })
}

/// # Safety
/// Pointers valid for their lengths.
#[allow(clippy::too_many_arguments)] // mirrors the two exported signatures
unsafe fn top_k(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
    fill: fn(&Placement, &[u8], &mut [usize]) -> usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let count_dst = try_out!(out_count);
        let key = try_bytes!(key, key_len);
        let dst = try_span_mut!(out_indices, out_len);
        let want = k.min(p.selectable_len());
        if dst.len() < want {
            return Err(hrw_status::BufferTooSmall);
        }
        count_dst.write(fill(p, key, &mut dst[..want]));
        Ok(())
    })
}

/// The first `k` nodes of the ranking of `key` (the owner first), as node indices in
/// `out_indices`; `*out_count` receives how many were written, `min(k, selectable nodes)`.
/// BUFFER_TOO_SMALL when `out_len` is below that count.
///
/// # Safety
/// `placement` is a live handle; every other pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_rank(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        top_k(
            placement,
            key,
            key_len,
            k,
            out_indices,
            out_len,
            out_count,
            |p, key, dst| p.rank_into(key, dst),
        )
    }
}

/// Like `hrw_placement_rank`, but spread over failure domains: the ranking is walked once
/// taking only nodes of domains not yet used, then again to fill what is left. A node without a
/// domain is a domain of its own.
///
/// # Safety
/// As `hrw_placement_rank`.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_replicas(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        top_k(
            placement,
            key,
            key_len,
            k,
            out_indices,
            out_len,
            out_count,
            |p, key, dst| p.replicas_into(key, dst),
        )
    }
}

/// `hrw_placement_replicas` in `k` distinct failure domains: exactly `k` node indices into
/// `out_indices`. INVALID_REPLICA_COUNT when fewer than `k` failure domains hold a node of weight
/// above zero, where `hrw_placement_replicas` would put two replicas in one domain;
/// BUFFER_TOO_SMALL when `out_len` is below `k`. A node without a domain is a domain of its own.
///
/// # Safety
/// `placement` is a live handle; every other pointer is NULL or valid for its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_replicas_strict(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    k: usize,
    out_indices: *mut usize,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let key = try_bytes!(key, key_len);
        let dst = try_span_mut!(out_indices, out_len);
        let got: Vec<usize> = p
            .replicas_strict(key, k)
            .map_err(|e| hrw_status::from(&e))?
            .iter()
            .map(|n| n.index())
            .collect();
        copy_to(dst, &got)
    })
}

/// The number of nodes, including those of weight zero, and, when `out_selectable_len` is
/// non-NULL, the number that can be selected (weight above zero).
///
/// # Safety
/// `placement` is a live handle; `out_len` is writable; `out_selectable_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_len(
    placement: *const hrw_placement,
    out_len: *mut usize,
    out_selectable_len: *mut usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let len_dst = try_out!(out_len);
        len_dst.write(p.len());
        if let Some(dst) = opt_out!(out_selectable_len) {
            dst.write(p.selectable_len());
        }
        Ok(())
    })
}

/// The node at `index` (INDEX_OUT_OF_RANGE past the last one): `*out_node` receives its id and
/// its failure domain as an `hrw_node` that points into the placement (valid until it is freed,
/// not NUL-terminated; `domain` NULL when the node has none, non-NULL, possibly with length 0,
/// when it has one), so it can be passed back as it is (`hrw_placement_with_node`), and
/// `*out_weight` its weight (0 for a drained node).
///
/// # Safety
/// `placement` is a live handle; `out_node` and `out_weight` are writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_node(
    placement: *const hrw_placement,
    index: usize,
    out_node: *mut hrw_node,
    out_weight: *mut f64,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        let node_dst = try_out!(out_node);
        let weight_dst = try_out!(out_weight);
        let node = p.node(index).ok_or(hrw_status::IndexOutOfRange)?;
        let (id, domain) = (node.id(), node.domain());
        node_dst.write(hrw_node {
            id: id.as_ptr(),
            id_len: id.len(),
            domain: domain.map_or(std::ptr::null(), |d| d.as_ptr()),
            domain_len: domain.map_or(0, |d| d.len()),
        });
        weight_dst.write(node.weight().to_f64());
        Ok(())
    })
}

/// The index of the node with this id; UNKNOWN_NODE when there is none.
///
/// # Safety
/// `placement` is a live handle; `id` is NULL or valid for `id_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_find(
    placement: *const hrw_placement,
    id: *const u8,
    id_len: usize,
    out_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(placement, id, id_len, out_index, |p, id| {
            Ok(p.inner.find(id).ok_or(hrw_status::UnknownNode)?.index())
        })
    }
}

/// The 16 seed bytes, into `out_seed` (`out_len` at least 16, else BUFFER_TOO_SMALL).
///
/// # Safety
/// `placement` is a live handle; `out_seed` is NULL or valid for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_seed(
    placement: *const hrw_placement,
    out_seed: *mut u8,
    out_len: usize,
) -> hrw_status {
    guard(|| {
        let p = &try_ref!(placement).inner;
        // SAFETY: forwarded.
        unsafe { copy_to_buffer(&p.seed().to_bytes(), out_seed, out_len) }
    })
}

/// The hrw-v1 score of `key` for the node of this id (UNKNOWN_NODE when there is no such node).
/// By id, as in every language: a canonical view orders nodes by id, so an index would name
/// different nodes in the two orders. On failure a non-NULL `error` receives the status.
///
/// # Safety
/// `placement` is a live handle; `key` is NULL or valid for `key_len` bytes; `id` is NULL or
/// valid for `id_len` bytes; `out_score` is writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_score(
    placement: *const hrw_placement,
    key: *const u8,
    key_len: usize,
    id: *const u8,
    id_len: usize,
    out_score: *mut u64,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key_detail(placement, key, key_len, out_score, error, |p, key| {
            Ok(p.inner.score(key, bytes(id, id_len)?)?)
        })
    }
}

/// A new placement with one more node (appended: it gets index `len`). `weight` as in
/// `hrw_placement_options.weights`. On failure a non-NULL `error` receives the details; their
/// `index` is the new node's position, `len`.
///
/// # Safety
/// `placement` is a live handle; `node` points to a valid `hrw_node`; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_with_node(
    placement: *const hrw_placement,
    node: *const hrw_node,
    weight: f64,
    out_placement: *mut *mut hrw_placement,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_placement);
        // SAFETY: forwarded.
        let node = unsafe { new_node(node, weight, p.len()) }?;
        dst.put_box(hrw_placement {
            inner: p.with_node(node)?,
        });
        Ok(())
    })
}

/// A new placement without the node of this id; the other nodes keep their relative order (so
/// indices after the removed one shift down by one). UNKNOWN_NODE when there is no such node.
/// On failure a non-NULL `error` receives the status.
///
/// # Safety
/// `placement` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_without_node(
    placement: *const hrw_placement,
    id: *const u8,
    id_len: usize,
    out_placement: *mut *mut hrw_placement,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_placement);
        let inner = p.without_node(try_bytes!(id, id_len))?;
        dst.put_box(hrw_placement { inner });
        Ok(())
    })
}

/// A new placement where the node of this id has another weight. The node is looked up first
/// (UNKNOWN_NODE), then the weight is checked; on failure a non-NULL `error` receives the
/// details (INVALID_WEIGHT: the node's `index` and the rejected `value`).
///
/// # Safety
/// `placement` is a live handle; `id` is NULL or valid for `id_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_placement_with_weight(
    placement: *const hrw_placement,
    id: *const u8,
    id_len: usize,
    weight: f64,
    out_placement: *mut *mut hrw_placement,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_placement);
        let id = try_bytes!(id, id_len);
        let weight = weight_of(p, id, weight)?;
        dst.put_box(hrw_placement {
            inner: p.with_weight(id, weight)?,
        });
        Ok(())
    })
}

/// The fixed-point form of a weight, `round_half_even(w * 2^32)`; INVALID_WEIGHT when `w` is
/// not a valid weight (a non-NULL `error` then receives the `value`).
///
/// # Safety
/// `out_fixed` is NULL or writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_weight_to_fixed(
    weight: f64,
    out_fixed: *mut u64,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let dst = try_out!(out_fixed);
        dst.write(Weight::new(weight)?.to_fixed());
        Ok(())
    })
}

/// The hrw-v1 digest of a key under a seed (NULL seed with length 0: the default seed). On
/// failure a non-NULL `error` receives the details (INVALID_SEED_LENGTH: `expected` 16 and the
/// `actual` length).
///
/// # Safety
/// Pointers are NULL or valid for their lengths; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_key_digest(
    seed: *const u8,
    seed_len: usize,
    key: *const u8,
    key_len: usize,
    out_digest: *mut u64,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        digest(
            seed,
            seed_len,
            key,
            key_len,
            out_digest,
            error,
            v1::key_digest,
        )
    }
}

/// The body of the two digest calls: the out-param, the seed, then the bytes.
///
/// # Safety
/// As `hrw_key_digest`.
unsafe fn digest(
    seed: *const u8,
    seed_len: usize,
    text: *const u8,
    text_len: usize,
    out_digest: *mut u64,
    error: *mut hrw_error,
    f: fn(&Seed, &[u8]) -> u64,
) -> hrw_status {
    with_detail!(error, || {
        let dst = try_out!(out_digest);
        let seed = seed_from(seed, seed_len)??;
        dst.write(f(&seed, try_bytes!(text, text_len)));
        Ok(())
    })
}

/// The hrw-v1 digest of a node id under a seed (NULL seed with length 0: the default seed). On
/// failure a non-NULL `error` receives the details, as for `hrw_key_digest`.
///
/// # Safety
/// Pointers are NULL or valid for their lengths; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_node_digest(
    seed: *const u8,
    seed_len: usize,
    id: *const u8,
    id_len: usize,
    out_digest: *mut u64,
    error: *mut hrw_error,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        digest(
            seed,
            seed_len,
            id,
            id_len,
            out_digest,
            error,
            v1::node_digest,
        )
    }
}

/// The hrw-v1 score of a key digest for a node digest (SPEC.md section 3): what
/// `hrw_placement_score` gives for a node of weight 1.
///
/// # Safety
/// `out_score` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_score(
    key_digest: u64,
    node_digest: u64,
    out_score: *mut u64,
) -> hrw_status {
    guard(|| {
        try_out!(out_score).write(v1::score(key_digest, node_digest));
        Ok(())
    })
}

/// The hrw-v1 draw of a score (the `-ln(u)` term of weighted ranking, in fixed point).
///
/// # Safety
/// `out_draw` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_draw(score: u64, out_draw: *mut u64) -> hrw_status {
    guard(|| {
        try_out!(out_draw).write(v1::draw(score));
        Ok(())
    })
}
