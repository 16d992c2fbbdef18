//! `hrw_live_view`: the view a client follows as its publisher issues new epochs
//! (conformance/LIVE-VIEW.md). C gets the holder; sources (files, etcd) are the application's.

use std::ffi::c_void;
use std::time::Duration;

use hrwhash_core::LiveView;

use crate::ffi::{
    free_handle, get, guard, opt_ref, too_small, try_bytes, try_out, try_ref, try_span_mut,
    with_detail, Handle,
};
use crate::status::{hrw_error, hrw_status};
use crate::view::{hrw_view, HRW_VIEW_FINGERPRINT_LEN};

/// A live view (build it with `hrw_live_view_new`, release it with `hrw_live_view_free`).
///
/// Every call but `hrw_live_view_free` may be made from any number of threads at once: lookups
/// never wait for an update and each answers from one state (LIVE-VIEW.md section 3); updates and
/// `hrw_live_view_finish_move` are serialized among themselves.
pub struct hrw_live_view {
    inner: LiveView,
}

impl Handle for hrw_live_view {}

/// What `hrw_live_view_update` did with a view it accepted. The numbers never change.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum hrw_update_outcome {
    /// The view had a higher epoch: it is now current, the one it replaced is the previous one,
    /// and a move began.
    Applied = 0,
    /// The view had the current epoch and fingerprint: nothing changed (a confirmation).
    Unchanged = 1,
}

impl hrw_update_outcome {
    fn of(applied: bool) -> hrw_update_outcome {
        if applied {
            hrw_update_outcome::Applied
        } else {
            hrw_update_outcome::Unchanged
        }
    }
}

/// Where a key is read and written, as `hrw_live_view_route` answers. The ids are in the
/// caller's buffer: `read_len` bytes of the read id, then `write_len` bytes of the write id.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct hrw_live_route {
    /// Length of the id of the key's owner in the previous view (the current owner when no move
    /// is in progress): where the key's data still is.
    pub read_len: usize,
    /// Length of the id of the key's owner in the current view: where to write.
    pub write_len: usize,
    /// Whether the two ids differ.
    pub moved: bool,
}

/// A live view of `view` (its seed is the live view's for good). With `move_deadline_ms` NULL a
/// move ends by `hrw_live_view_finish_move` only; otherwise it also ends by itself
/// `*move_deadline_ms` milliseconds after the update that began it. The view is shared, not
/// copied: the caller may free its handle afterwards.
///
/// # Safety
/// `view` is a live handle; `move_deadline_ms` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_new(
    view: *const hrw_view,
    move_deadline_ms: *const u64,
    out_live_view: *mut *mut hrw_live_view,
) -> hrw_status {
    guard(|| {
        let v = &try_ref!(view).inner;
        let dst = try_out!(out_live_view);
        let inner = match opt_ref!(move_deadline_ms) {
            None => LiveView::new(v.clone()),
            Some(&ms) => LiveView::with_move_deadline(v.clone(), Duration::from_millis(ms)),
        };
        dst.put_box(hrw_live_view { inner });
        Ok(())
    })
}

/// Releases a live view; NULL is a no-op. Views taken from it stay valid.
///
/// # Safety
/// `live_view` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_free(live_view: *mut hrw_live_view) {
    free_handle!(live_view);
}

/// Offers `view` (LIVE-VIEW.md section 2): SEED_MISMATCH when its seed is not the live view's;
/// STALE_VIEW (details: `epoch`, the view's; `current_epoch`, the live view's) when its epoch is
/// lower; VIEW_CONFLICT (`epoch`) for the same epoch with another fingerprint; else
/// `*out_outcome` is UNCHANGED (same epoch and fingerprint) or APPLIED (a higher epoch: a move
/// begins, and the change callbacks run on this thread before the call returns). A refused view
/// changes nothing. The view is shared, not copied.
///
/// # Safety
/// `live_view` and `view` are live handles; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_update(
    live_view: *const hrw_live_view,
    view: *const hrw_view,
    out_outcome: *mut hrw_update_outcome,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let lv = &try_ref!(live_view).inner;
        // SAFETY: forwarded.
        let v = unsafe { crate::view::view(view) }?;
        let dst = try_out!(out_outcome);
        dst.write(hrw_update_outcome::of(lv.update(v.clone())?));
        Ok(())
    })
}

/// Ends the move in progress, if any; a non-NULL `out_was_moving` receives whether one was (a
/// move whose deadline had passed was over already).
///
/// # Safety
/// `live_view` is a live handle; `out_was_moving` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_finish_move(
    live_view: *const hrw_live_view,
    out_was_moving: *mut bool,
) -> hrw_status {
    guard(|| {
        let lv = &try_ref!(live_view).inner;
        let was = lv.finish_move();
        if let Some(dst) = crate::ffi::opt_out!(out_was_moving) {
            dst.write(was);
        }
        Ok(())
    })
}

/// The id of the owner of `key` in the current view (where to write it), copied into `out_id`
/// (`out_len` bytes); `*out_id_len` receives its length. When `out_len` is shorter,
/// BUFFER_TOO_SMALL and a non-NULL `error` has `expected` = the length needed and `actual` =
/// `out_len`. Ids are copied because the view they belong to may be replaced at any time.
///
/// # Safety
/// `live_view` is a live handle; `key` and `out_id` are NULL or valid for their lengths;
/// `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_owner(
    live_view: *const hrw_live_view,
    key: *const u8,
    key_len: usize,
    out_id: *mut u8,
    out_len: usize,
    out_id_len: *mut usize,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let lv = &try_ref!(live_view).inner;
        let len_dst = try_out!(out_id_len);
        let key = try_bytes!(key, key_len);
        let id = lv.owner(key);
        let dst = try_span_mut!(crate::ffi::out(out_id)?, out_len);
        dst.get_mut(..id.len())
            .ok_or_else(|| too_small(id.len(), out_len))?
            .copy_from_slice(&id);
        len_dst.write(id.len());
        Ok(())
    })
}

/// Where `key` is read and written (LIVE-VIEW.md section 3), from one state of the live view:
/// `out_ids` (`out_len` bytes) receives the read id followed by the write id, and `*out_route`
/// their lengths and whether they differ. With no move in progress both ids are the current
/// owner. When `out_len` is shorter than the two ids, BUFFER_TOO_SMALL and a non-NULL `error`
/// has `expected` = the length needed and `actual` = `out_len`.
///
/// # Safety
/// `live_view` is a live handle; `key` and `out_ids` are NULL or valid for their lengths;
/// `out_route` is writable; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_route(
    live_view: *const hrw_live_view,
    key: *const u8,
    key_len: usize,
    out_ids: *mut u8,
    out_len: usize,
    out_route: *mut hrw_live_route,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let lv = &try_ref!(live_view).inner;
        let route_dst = try_out!(out_route);
        let key = try_bytes!(key, key_len);
        let r = lv.route(key);
        let needed = r.read.len() + r.write.len();
        let dst = try_span_mut!(crate::ffi::out(out_ids)?, out_len);
        let dst = dst
            .get_mut(..needed)
            .ok_or_else(|| too_small(needed, out_len))?;
        dst[..r.read.len()].copy_from_slice(&r.read);
        dst[r.read.len()..].copy_from_slice(&r.write);
        route_dst.write(hrw_live_route {
            read_len: r.read.len(),
            write_len: r.write.len(),
            moved: r.moved,
        });
        Ok(())
    })
}

/// One state of the live view, for a batch of lookups: `*out_current` receives the current view
/// and `*out_previous` the previous one while a move is in progress, else NULL (both new handles,
/// owned by the caller: release them with `hrw_view_free`). Look keys up in them (and, for
/// routes, build an `hrw_transition` between them) without another update interleaving.
///
/// # Safety
/// `live_view` is a live handle; the out-params are writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_snapshot(
    live_view: *const hrw_live_view,
    out_current: *mut *mut hrw_view,
    out_previous: *mut *mut hrw_view,
) -> hrw_status {
    guard(|| {
        let lv = &try_ref!(live_view).inner;
        let current = try_out!(out_current);
        let previous = try_out!(out_previous);
        let s = lv.snapshot();
        current.put_box(hrw_view {
            inner: s.current().clone(),
        });
        match s.previous() {
            Some(p) => previous.put_box(hrw_view { inner: p.clone() }),
            None => previous.write(std::ptr::null_mut()),
        }
        Ok(())
    })
}

/// A live view's state, as `hrw_live_view_summary` gives it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_live_view_figures {
    /// The current view's epoch.
    pub epoch: u64,
    /// The current view's fingerprint.
    pub fingerprint: [u8; HRW_VIEW_FINGERPRINT_LEN],
    /// Whether a move is in progress.
    pub moving: bool,
    /// Milliseconds since the last update that was applied or unchanged (or since the live view
    /// was built).
    pub since_update_ms: u64,
}

/// The live view's epoch, fingerprint and move, from one state (an update in between cannot
/// mix two), and the time since its last update (one call where there were four getters).
///
/// # Safety
/// `live_view` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_summary(
    live_view: *const hrw_live_view,
    out: *mut hrw_live_view_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(live_view, out, |lv| {
            let lv = &lv.inner;
            let s = lv.snapshot();
            Ok(hrw_live_view_figures {
                epoch: s.current().epoch(),
                fingerprint: s.current().fingerprint().to_bytes(),
                moving: s.moving(),
                since_update_ms: u64::try_from(lv.since_update().as_millis()).unwrap_or(u64::MAX),
            })
        })
    }
}

/// A change callback: called after every applied update with the previous and the current view
/// (borrowed for the call only: take `hrw_view_with_epoch` copies to keep them) and the
/// `user_data` it was registered with.
pub type hrw_live_view_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        previous: *const hrw_view,
        current: *const hrw_view,
    ),
>;

struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *const hrw_view, *const hrw_view),
    user_data: *mut c_void,
}

impl Callback {
    // A method, so that the closure captures the whole `Callback` (Send + Sync), not its fields.
    fn call(&self, previous: &hrw_view, current: &hrw_view) {
        // SAFETY: the registration's contract: `f` takes these pointers for the call.
        unsafe { (self.f)(self.user_data, previous, current) }
    }
}

// SAFETY: the caller of `hrw_live_view_on_change` promises that the callback and its data may be
// used from whichever thread calls `hrw_live_view_update`.
unsafe impl Send for Callback {}
// SAFETY: as above; the callback is only ever called, never changed.
unsafe impl Sync for Callback {}

/// Registers `callback`, called with `user_data` after every applied update, on the thread that
/// called `hrw_live_view_update`, after the swap, in registration order. It may look keys up and
/// call `hrw_live_view_finish_move`, but must not call `hrw_live_view_update` or
/// `hrw_live_view_on_change` on the same live view (they would wait for it to return), and must
/// not unwind into hrwhash. NULL_PARAMETER for a NULL callback.
///
/// # Safety
/// `live_view` is a live handle; `callback` and `user_data` may be used from any thread that
/// updates the live view, for as long as the live view lives.
#[no_mangle]
pub unsafe extern "C" fn hrw_live_view_on_change(
    live_view: *const hrw_live_view,
    callback: hrw_live_view_callback,
    user_data: *mut c_void,
) -> hrw_status {
    guard(|| {
        let lv = &try_ref!(live_view).inner;
        let f = callback.ok_or(hrw_status::NullParameter)?;
        let cb = Callback { f, user_data };
        lv.on_change(move |t| {
            let previous = hrw_view {
                inner: t.old_placement().clone(),
            };
            let current = hrw_view {
                inner: t.new_placement().clone(),
            };
            cb.call(&previous, &current)
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    fn view_of(doc: &str) -> *mut hrw_view {
        let mut v = ptr::null_mut();
        // SAFETY: valid buffers.
        let s = unsafe {
            crate::view::hrw_view_from_json(
                doc.as_ptr(),
                doc.len(),
                ptr::null(),
                0,
                &mut v,
                ptr::null_mut(),
            )
        };
        assert_eq!(s, hrw_status::Ok);
        v
    }

    fn doc(epoch: u64, ids: &[&str]) -> String {
        let nodes: Vec<String> = ids.iter().map(|i| format!(r#"{{"id": "{i}"}}"#)).collect();
        format!(
            r#"{{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "{epoch}", "seed": "default", "nodes": [{}]}}"#,
            nodes.join(", ")
        )
    }

    #[test]
    fn stale_details_and_null_arguments() {
        let v1 = view_of(&doc(5, &["a", "b"]));
        let v0 = view_of(&doc(4, &["a"]));
        let mut lv = ptr::null_mut();
        // SAFETY: live handles and writable out-params throughout.
        unsafe {
            assert_eq!(hrw_live_view_new(v1, ptr::null(), &mut lv), hrw_status::Ok);
            let mut outcome = hrw_update_outcome::Applied;
            let mut e = hrw_error::from_status(hrw_status::Ok);
            assert_eq!(
                hrw_live_view_update(lv, v0, &mut outcome, &mut e),
                hrw_status::StaleView
            );
            assert_eq!((e.epoch, e.current_epoch), (4, 5));
            assert_eq!(
                hrw_live_view_update(lv, ptr::null(), &mut outcome, ptr::null_mut()),
                hrw_status::NullParameter
            );
            assert_eq!(
                hrw_live_view_update(ptr::null(), v1, &mut outcome, ptr::null_mut()),
                hrw_status::NullParameter
            );
            assert_eq!(
                hrw_live_view_on_change(lv, None, ptr::null_mut()),
                hrw_status::NullParameter
            );
            hrw_live_view_free(lv);
            hrw_live_view_free(ptr::null_mut());
            crate::view::hrw_view_free(v1);
            crate::view::hrw_view_free(v0);
        }
    }
}
