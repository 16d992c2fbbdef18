//! `hrw_transition` and `hrw_diff`: what a change from one membership to the next does to keys
//! (conformance/VIEW.md section 6).

use hrwhash_core::transition::{Diff, NodeChange};
use hrwhash_core::{Placement, Transition};

use crate::ffi::{
    copy_to, free_handle, get, get_by_key, guard, try_bytes, try_mut, try_out, try_ref, try_span,
    try_span_mut, Handle,
};
use crate::placement::{batch_args, hrw_placement, owners_of, split_keys};
use crate::status::hrw_status;

/// The change from an old membership to a new one (`hrw_transition_new`; release with
/// `hrw_transition_free`). Nodes of the two are
/// the same node when their ids are equal.
///
/// Immutable: one handle may be used from any number of threads at once; only
/// `hrw_transition_free` must not race with other calls on it.
pub struct hrw_transition {
    inner: Transition,
}

impl Handle for hrw_transition {}

/// Owner counts of a stream of keys under one transition (`hrw_transition_diff`). Its memory
/// depends on the number of nodes and flows, never on the number of keys.
///
/// `hrw_diff_add` and `hrw_diff_add_many` change it: a diff is used by one thread at a time
/// (give each thread its own and combine them with `hrw_diff_merge`).
pub struct hrw_diff {
    inner: Diff,
}

impl Handle for hrw_diff {}

/// Where one key is during a migration. Read from `new_index` and, on a miss, from `old_index`;
/// write to `new_index`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_route {
    /// Index of the owner in the old membership.
    pub old_index: usize,
    /// Index of the owner in the new membership.
    pub new_index: usize,
    /// Whether the two owners have different ids.
    pub moved: bool,
}

/// How many indices `hrw_transition_route_top` wrote into each of its four arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_route_set {
    /// The key's replicas in the old placement (old indices, as `hrw_placement_replicas` gives
    /// them): `min(k, old selectable nodes)`.
    pub before_len: usize,
    /// The key's replicas in the new placement (new indices): `min(k, new selectable nodes)`.
    pub after_len: usize,
    /// Nodes of `after` whose id is not in `before` (new indices, in replica order): the
    /// replicas to fill.
    pub add_len: usize,
    /// Nodes of `before` whose id is not in `after` (old indices, in replica order): the
    /// replicas to drop once the new ones are filled.
    pub drop_len: usize,
}

/// One key that changes owner, as `hrw_transition_plan` lists it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_move {
    /// Position of the key in the batch (0-based).
    pub key_index: usize,
    /// Old-membership index of the node to copy it from.
    pub from: usize,
    /// New-membership index of the node to copy it to.
    pub to: usize,
}

/// Keys that moved from one old node to one new node.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_flow {
    /// Old-membership index of the node the keys leave.
    pub from: usize,
    /// New-membership index of the node they go to.
    pub to: usize,
    /// How many keys.
    pub count: u64,
}

/// One id of either membership with the keys it owns before and after.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_node_change {
    /// Whether the id is in the old membership (then `old_index` is its index; else 0).
    pub has_old: bool,
    /// Index in the old membership.
    pub old_index: usize,
    /// Whether the id is in the new membership (then `new_index` is its index; else 0).
    pub has_new: bool,
    /// Index in the new membership.
    pub new_index: usize,
    /// Keys it owned before.
    pub before: u64,
    /// Keys it owns after.
    pub after: u64,
}

/// The transition from placement `old` to placement `new` (of a view: `hrw_view_placement`).
/// Both placements may be freed afterwards.
///
/// # Safety
/// `old` and `new` are live handles.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_new(
    old: *const hrw_placement,
    new: *const hrw_placement,
    out_transition: *mut *mut hrw_transition,
) -> hrw_status {
    guard(|| {
        let (a, b) = (&try_ref!(old).inner, &try_ref!(new).inner);
        let dst = try_out!(out_transition);
        dst.put_box(hrw_transition {
            inner: Transition::new(a, b),
        });
        Ok(())
    })
}

/// Releases a transition; NULL is a no-op. Diffs made from it stay valid.
///
/// # Safety
/// `transition` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_free(transition: *mut hrw_transition) {
    free_handle!(transition);
}

fn side(t: &Transition, new: bool) -> &Placement {
    if new {
        t.new_placement()
    } else {
        t.old_placement()
    }
}

/// # Safety
/// `transition` is a live handle.
unsafe fn member(
    transition: *const hrw_transition,
    new: bool,
    out_placement: *mut *mut hrw_placement,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let dst = try_out!(out_placement);
        dst.put_box(hrw_placement {
            inner: side(t, new).clone(),
        });
        Ok(())
    })
}

/// The old membership as a new placement handle (the caller releases it with
/// `hrw_placement_free`; it shares the nodes, so this is cheap).
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_old_placement(
    transition: *const hrw_transition,
    out_placement: *mut *mut hrw_placement,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { member(transition, false, out_placement) }
}

/// The new membership as a new placement handle, as `hrw_transition_old_placement`.
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_new_placement(
    transition: *const hrw_transition,
    out_placement: *mut *mut hrw_placement,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { member(transition, true, out_placement) }
}

/// # Safety
/// `transition` is a live handle.
unsafe fn match_index(
    transition: *const hrw_transition,
    from_new: bool,
    index: usize,
    out_index: *mut usize,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let dst = try_out!(out_index);
        if index >= side(t, from_new).len() {
            return Err(hrw_status::IndexOutOfRange);
        }
        let found = if from_new {
            t.new_to_old(index)
        } else {
            t.old_to_new(index)
        };
        dst.write(found.ok_or(hrw_status::UnknownNode)?);
        Ok(())
    })
}

/// The index in the new membership of the node with the id of old node `old_index`:
/// INDEX_OUT_OF_RANGE past the old membership's last node, UNKNOWN_NODE when the new membership
/// has no node of that id.
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_old_to_new(
    transition: *const hrw_transition,
    old_index: usize,
    out_new_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { match_index(transition, false, old_index, out_new_index) }
}

/// The index in the old membership of the node with the id of new node `new_index`, as
/// `hrw_transition_old_to_new` the other way.
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_new_to_old(
    transition: *const hrw_transition,
    new_index: usize,
    out_old_index: *mut usize,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe { match_index(transition, true, new_index, out_old_index) }
}

/// The owners of `key` before and after, and whether their ids differ.
///
/// # Safety
/// `transition` is a live handle; `key` is NULL or valid for `key_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_route(
    transition: *const hrw_transition,
    key: *const u8,
    key_len: usize,
    out_route: *mut hrw_route,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get_by_key(transition, key, key_len, out_route, |t, key| {
            let r = t.inner.route(key);
            Ok(hrw_route {
                old_index: r.old_index,
                new_index: r.new_index,
                moved: r.moved,
            })
        })
    }
}

/// The replica sets of `key` before and after (`hrw_placement_replicas` of each side, spread
/// over failure domains when a placement names them), and what changes between them: into
/// `before`, `after`, `add` and `drop`, each an array of `capacity` indices, which must be at
/// least `min(k, selectable nodes)` of the larger membership (else BUFFER_TOO_SMALL). `*out_set`
/// receives how many indices each array got; slots past them are left as they were. The arrays
/// should not overlap (if they do, the later ones overwrite the earlier ones).
///
/// # Safety
/// `transition` is a live handle; `key` is NULL or valid for `key_len` bytes; each array is NULL
/// or valid for `capacity` elements.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // four caller arrays of one capacity
pub unsafe extern "C" fn hrw_transition_route_top(
    transition: *const hrw_transition,
    key: *const u8,
    key_len: usize,
    k: usize,
    before: *mut usize,
    after: *mut usize,
    add: *mut usize,
    drop: *mut usize,
    capacity: usize,
    out_set: *mut hrw_route_set,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let set_dst = try_out!(out_set);
        let key = try_bytes!(key, key_len);
        // The four arrays may overlap (a caller's mistake that is still no reason for UB): they
        // are written through raw pointers, never as slices that would alias.
        let arrays = [
            out_array(before, capacity)?,
            out_array(after, capacity)?,
            out_array(add, capacity)?,
            out_array(drop, capacity)?,
        ];
        let need = k
            .min(t.old_placement().selectable_len())
            .max(k.min(t.new_placement().selectable_len()));
        if capacity < need {
            return Err(hrw_status::BufferTooSmall);
        }
        let r = t.route_top(key, k);
        for (dst, src) in arrays
            .into_iter()
            .zip([&r.before, &r.after, &r.add, &r.drop])
        {
            if !src.is_empty() {
                // SAFETY: `dst` is valid for `capacity` >= `need` >= `src.len()` elements (caller
                // contract, checked non-NULL), and `src` is our own vector.
                unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
            }
        }
        set_dst.write(hrw_route_set {
            before_len: r.before.len(),
            after_len: r.after.len(),
            add_len: r.add.len(),
            drop_len: r.drop.len(),
        });
        Ok(())
    })
}

/// A caller array of `capacity` indices: NULL only with capacity 0 (NULL_PARAMETER), and a
/// capacity some buffer can have (RESULT_TOO_LARGE).
fn out_array(ptr: *mut usize, capacity: usize) -> Result<*mut usize, hrw_status> {
    if ptr.is_null() && capacity != 0 {
        return Err(hrw_status::NullParameter);
    }
    if capacity > isize::MAX as usize / std::mem::size_of::<usize>() {
        return Err(hrw_status::ResultTooLarge);
    }
    Ok(ptr)
}

/// The moved keys of a batch, in batch order: the keys are given as for
/// `hrw_placement_owners` (concatenated in `keys`, `key_lens[i]` bytes each, adding up to
/// `keys_len`, else LENGTH_MISMATCH), and each key whose owner changes gets one `hrw_move` in
/// `out_moves`. `out_len` must be at least `key_count` (else BUFFER_TOO_SMALL, checked before any
/// key is read); `*out_count` receives how many moves were written. Call it batch by batch to
/// plan a stream of any length.
///
/// # Safety
/// `transition` is a live handle; every other pointer is NULL or valid for its stated length.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the keys and the moves are each a (pointer, length) pair
pub unsafe extern "C" fn hrw_transition_plan(
    transition: *const hrw_transition,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    out_moves: *mut hrw_move,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    let batch = (keys, keys_len, key_lens, key_count);
    // SAFETY: forwarded.
    unsafe {
        plan_rows(
            transition,
            batch,
            out_moves,
            out_len,
            out_count,
            |t, i, key| {
                let r = t.route(key);
                r.moved.then_some(hrw_move {
                    key_index: i,
                    from: r.old_index,
                    to: r.new_index,
                })
            },
        )
    }
}

/// The rows `pick` makes of a batch's keys (given as for `hrw_placement_owners`), in batch order,
/// into `out` (at least `key_count` rows, else BUFFER_TOO_SMALL before any key is read);
/// `*out_count` receives how many.
///
/// # Safety
/// As `hrw_transition_plan`.
unsafe fn plan_rows<T>(
    transition: *const hrw_transition,
    (keys, keys_len, key_lens, key_count): (*const u8, usize, *const usize, usize),
    out: *mut T,
    out_len: usize,
    out_count: *mut usize,
    mut pick: impl FnMut(&Transition, usize, &[u8]) -> Option<T>,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let count_dst = try_out!(out_count);
        // SAFETY: forwarded.
        let args = unsafe { batch_args(keys, keys_len, key_lens, key_count, out, out_len) }?;
        let (keys, dst) = owners_of(args)?;
        let mut n = 0;
        for (i, key) in keys.enumerate() {
            if let Some(row) = pick(t, i, key) {
                dst[n] = row;
                n += 1;
            }
        }
        count_dst.write(n);
        Ok(())
    })
}

/// A transition's expected movement, as `hrw_transition_summary` gives it (fractions of all
/// keys; the same binary64 values in every language).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_transition_figures {
    /// The expected fraction of all keys whose owner changes, from the weights alone (VIEW.md
    /// 6.1).
    pub expected_moved: f64,
    /// The least fraction of keys any scheme must move for the new shares (VIEW.md 6.2).
    pub optimum: f64,
}

/// The transition's expected movement and its optimum, both at once (one call where there were
/// two getters).
///
/// # Safety
/// `transition` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_summary(
    transition: *const hrw_transition,
    out: *mut hrw_transition_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(transition, out, |t| {
            Ok(hrw_transition_figures {
                expected_moved: t.inner.expected_moved(),
                optimum: t.inner.optimum(),
            })
        })
    }
}

/// A new, empty diff of this transition (release it with `hrw_diff_free`; it keeps what it needs
/// of the transition, which may be freed first).
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_diff(
    transition: *const hrw_transition,
    out_diff: *mut *mut hrw_diff,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let dst = try_out!(out_diff);
        dst.put_box(hrw_diff { inner: t.diff() });
        Ok(())
    })
}

/// A new, empty replica diff of this transition (release it with `hrw_diff_free`): each key's
/// `hrw_placement_replicas` with `k` on either side, compared as sets (VIEW.md 6). Over such a
/// diff, `moved` of `hrw_diff_summary` counts the keys whose replica set changed,
/// `hrw_diff_flows` gives no rows, and the rows of `hrw_diff_nodes` and `hrw_diff_node_moves`
/// count replicas. `k = 1` counts the keys `hrw_transition_diff` counts; `k = 0` compares empty
/// sets, and a `k` beyond the nodes compares every selectable node. `hrw_diff_merge` takes only a
/// diff of the same transition handle and `k`.
///
/// # Safety
/// `transition` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_transition_diff_top(
    transition: *const hrw_transition,
    k: usize,
    out_diff: *mut *mut hrw_diff,
) -> hrw_status {
    guard(|| {
        let t = &try_ref!(transition).inner;
        let dst = try_out!(out_diff);
        dst.put_box(hrw_diff {
            inner: t.diff_top(k),
        });
        Ok(())
    })
}

/// The keys of a batch whose set of `k` replicas changes (`hrw_transition_route_top` gives a
/// non-empty `add` or `drop`), in batch order: the keys are given as for `hrw_transition_plan`,
/// and the position of each such key in the batch is written to `out_key_indices`. `out_len` must
/// be at least `key_count` (else BUFFER_TOO_SMALL, checked before any key is read);
/// `*out_count` receives how many were written. `hrw_transition_route_top` of a listed key gives
/// the replicas to add and to drop.
///
/// # Safety
/// `transition` is a live handle; every other pointer is NULL or valid for its stated length.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the keys and the indices are each a (pointer, length) pair
pub unsafe extern "C" fn hrw_transition_plan_top(
    transition: *const hrw_transition,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
    k: usize,
    out_key_indices: *mut usize,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    let mut set = hrwhash_core::transition::RouteSet::default();
    let batch = (keys, keys_len, key_lens, key_count);
    // SAFETY: forwarded.
    unsafe {
        plan_rows(
            transition,
            batch,
            out_key_indices,
            out_len,
            out_count,
            |t, i, key| {
                t.route_top_into(key, k, &mut set);
                set.changed().then_some(i)
            },
        )
    }
}

/// Releases a diff; NULL is a no-op.
///
/// # Safety
/// `diff` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_free(diff: *mut hrw_diff) {
    free_handle!(diff);
}

/// Counts a batch of keys (one key is a batch of one), given as for `hrw_placement_owners`. The lengths are checked
/// (LENGTH_MISMATCH) before any key is counted, so a failed call counts nothing.
///
/// # Safety
/// `diff` is a live handle no other thread is using; every other pointer is NULL or valid for
/// its stated length.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_add_many(
    diff: *mut hrw_diff,
    keys: *const u8,
    keys_len: usize,
    key_lens: *const usize,
    key_count: usize,
) -> hrw_status {
    guard(|| {
        let d = &mut try_mut!(diff).inner;
        let keys = try_bytes!(keys, keys_len);
        let lens = try_span!(key_lens, key_count);
        d.add_many(split_keys(keys, lens)?);
        Ok(())
    })
}

/// Adds the counts of `other` to `diff` (for diffs fed by several threads). NULL_PARAMETER (the
/// contract's InvalidArgument), adding nothing, when `other` is a diff of another transition
/// handle, or is `diff` itself.
///
/// # Safety
/// `diff` is a live handle no other thread is using; `other` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_merge(diff: *mut hrw_diff, other: *const hrw_diff) -> hrw_status {
    guard(|| {
        if std::ptr::eq(diff.cast_const(), other) {
            return Err(hrw_status::NullParameter);
        }
        // The two handles are distinct (checked above).
        let d = &mut try_mut!(diff).inner;
        if d.merge(&try_ref!(other).inner) {
            Ok(())
        } else {
            Err(hrw_status::NullParameter)
        }
    })
}

/// A diff's counts with the movement its transition expects, as `hrw_diff_summary` gives them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_diff_figures {
    /// The number of keys counted.
    pub keys: u64,
    /// The number of counted keys whose owner changed.
    pub moved: u64,
    /// `expected_moved` of the diff's transition (`hrw_transition_summary`), to compare with the
    /// counts.
    pub expected_moved: f64,
    /// `optimum` of the diff's transition (`hrw_transition_summary`).
    pub optimum: f64,
}

/// The diff's counts and its transition's expected movement, all at once.
///
/// # Safety
/// `diff` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_summary(
    diff: *const hrw_diff,
    out: *mut hrw_diff_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(diff, out, |d| {
            let d = &d.inner;
            Ok(hrw_diff_figures {
                keys: d.keys(),
                moved: d.moved(),
                expected_moved: d.transition().expected_moved(),
                optimum: d.transition().optimum(),
            })
        })
    }
}

/// # Safety
/// `dst` is NULL or valid for `len` elements.
unsafe fn write_rows<T: Copy>(
    rows: &[T],
    dst: *mut T,
    len: usize,
    count: *mut usize,
) -> Result<(), hrw_status> {
    let count = try_out!(count);
    if !(dst.is_null() && len == 0) {
        copy_to(try_span_mut!(dst, len), rows)?;
    }
    count.write(rows.len());
    Ok(())
}

/// The moved keys per (old node, new node), ordered by old index then new index, into `out`
/// (`out_len` rows; too few is BUFFER_TOO_SMALL); `*out_count` receives how many. With `out`
/// NULL and `out_len` 0 nothing is written and `*out_count` receives the number of rows. Their
/// counts add up to `moved` of `hrw_diff_summary`.
///
/// # Safety
/// `diff` is a live handle; `out` is NULL or valid for `out_len` elements.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_flows(
    diff: *const hrw_diff,
    out: *mut hrw_flow,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    guard(|| {
        let d = &try_ref!(diff).inner;
        let rows: Vec<hrw_flow> = d
            .flows()
            .into_iter()
            .map(|(from, to, count)| hrw_flow { from, to, count })
            .collect();
        // SAFETY: caller contract.
        unsafe { write_rows(&rows, out, out_len, out_count) }
    })
}

/// Per row of `hrw_diff_nodes`, in the same order, the moved keys the node receives
/// (`out_added[i]`) and gives up (`out_dropped[i]`); for a replica diff
/// (`hrw_transition_diff_top`), how often it is in a key's `add` and `drop`. Both arrays hold
/// `out_len` rows (too few is BUFFER_TOO_SMALL); `*out_count` receives how many rows were
/// written. With both NULL and `out_len` 0 nothing is written and `*out_count` receives the number
/// of rows.
///
/// # Safety
/// `diff` is a live handle; `out_added` and `out_dropped` are NULL or valid for `out_len`
/// elements each.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_node_moves(
    diff: *const hrw_diff,
    out_added: *mut u64,
    out_dropped: *mut u64,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    guard(|| {
        let d = &try_ref!(diff).inner;
        let count = try_out!(out_count);
        let rows = d.nodes();
        if !(out_added.is_null() && out_dropped.is_null() && out_len == 0) {
            // Both arrays are checked before either is written; they may overlap (a caller's
            // mistake that is still no reason for UB), so they are written through raw pointers.
            if out_added.is_null() || out_dropped.is_null() {
                return Err(hrw_status::NullParameter);
            }
            if out_len < rows.len() {
                return Err(hrw_status::BufferTooSmall);
            }
            for (i, r) in rows.iter().enumerate() {
                // SAFETY: both arrays are valid for `out_len` >= `rows.len()` elements (caller
                // contract, checked non-NULL).
                unsafe {
                    out_added.add(i).write(r.added);
                    out_dropped.add(i).write(r.dropped);
                }
            }
        }
        count.write(rows.len());
        Ok(())
    })
}

/// Per id of either membership the keys it owns before and after: every old node in old order,
/// then every node only in the new membership in new order, into `out` (`out_len` rows; too few
/// is BUFFER_TOO_SMALL); `*out_count` receives how many. With `out` NULL and `out_len` 0 nothing
/// is written and `*out_count` receives the number of rows.
///
/// # Safety
/// `diff` is a live handle; `out` is NULL or valid for `out_len` elements.
#[no_mangle]
pub unsafe extern "C" fn hrw_diff_nodes(
    diff: *const hrw_diff,
    out: *mut hrw_node_change,
    out_len: usize,
    out_count: *mut usize,
) -> hrw_status {
    guard(|| {
        let d = &try_ref!(diff).inner;
        let rows: Vec<hrw_node_change> = d
            .nodes()
            .into_iter()
            .map(
                |NodeChange {
                     old_index: old,
                     new_index: new,
                     before,
                     after,
                     ..
                 }| hrw_node_change {
                    has_old: old.is_some(),
                    old_index: old.unwrap_or(0),
                    has_new: new.is_some(),
                    new_index: new.unwrap_or(0),
                    before,
                    after,
                },
            )
            .collect();
        // SAFETY: caller contract.
        unsafe { write_rows(&rows, out, out_len, out_count) }
    })
}
