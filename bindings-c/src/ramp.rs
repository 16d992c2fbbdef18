//! `hrw_ramp`: a change of view split into steps that each move at most a given fraction of the
//! keys (conformance/VIEW.md section 7).

use hrwhash_core::{Error, RampPlan};

use crate::ffi::{free_handle, get, opt_out, try_out, try_ref, with_detail, Handle};
use crate::status::{hrw_error, hrw_status};
use crate::view::hrw_view;

/// Positions of a ramp's line from the old weights (0) to the new ones (`HRW_RAMP_GRID`).
pub const HRW_RAMP_GRID: u32 = 65536;

const _: () = assert!(HRW_RAMP_GRID == hrwhash_core::ramp::GRID);

/// A planned ramp (`hrw_ramp_new`, released by `hrw_ramp_free`). Immutable: one handle may be
/// used from any number of threads at once; only `hrw_ramp_free` must not race with other
/// calls on it.
pub struct hrw_ramp {
    inner: RampPlan,
}

impl Handle for hrw_ramp {}

/// One step of a ramp.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_ramp_step {
    /// The epoch of the step's view: the old view's epoch plus the step's 1-based number.
    pub epoch: u64,
    /// Where the weights are on the line, 0 to `HRW_RAMP_GRID`.
    pub position: u32,
    /// Expected fraction of all keys that change owner from the previous step to this one.
    pub moved: f64,
    /// Whether this is the last step, which removes the drained leaving nodes.
    pub removes_drained: bool,
}

fn step_error(plan: &RampPlan, step: usize) -> hrw_error {
    Error::IndexOutOfRange {
        index: step,
        len: plan.steps().len(),
    }
    .into()
}

/// Plans the ramp from view `old` to view `new`, each step moving at most `max_move` of the keys.
/// INVALID_MOVE_LIMIT (detail `value`) for a limit outside (0, 1], NaN, or too small to advance
/// one grid position; SEED_MISMATCH when the views have different seeds; ALL_WEIGHTS_ZERO should
/// a step have no selectable node; INVALID_VIEW (field `epoch`) when the step epochs would pass
/// 2^64 - 1. On failure a non-NULL `error` receives the details. Both views may be freed
/// afterwards.
///
/// # Safety
/// `old` and `new` are live handles; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_ramp_new(
    old: *const hrw_view,
    new: *const hrw_view,
    max_move: f64,
    out_ramp: *mut *mut hrw_ramp,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let (a, b) = (&try_ref!(old).inner, &try_ref!(new).inner);
        let dst = try_out!(out_ramp);
        let inner = RampPlan::new(a, b, max_move)?;
        dst.put_box(hrw_ramp { inner });
        Ok(())
    })
}

/// Releases a ramp; NULL is a no-op. Step views taken from it stay valid.
///
/// # Safety
/// `ramp` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_ramp_free(ramp: *mut hrw_ramp) {
    free_handle!(ramp);
}

/// Step `step` (0-based) into `*out_step` and, when `out_view` is non-NULL, its view as a new
/// handle into `*out_view` (release it with `hrw_view_free`; the last step's view has the new
/// view's membership, equal fingerprint, at the old epoch plus the number of steps).
/// INDEX_OUT_OF_RANGE past the last step (details: `index` the step asked for, `expected` the
/// number of steps).
///
/// # Safety
/// `ramp` is a live handle; `out_step` is writable; `out_view` is NULL or writable; `error` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_ramp_get_step(
    ramp: *const hrw_ramp,
    step: usize,
    out_step: *mut hrw_ramp_step,
    out_view: *mut *mut hrw_view,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let r = &try_ref!(ramp).inner;
        let dst = try_out!(out_step);
        let s = r.steps().get(step).ok_or_else(|| step_error(r, step))?;
        // The view first: it is the part that can fail, and nothing is written then.
        let view = match opt_out!(out_view) {
            Some(view_dst) => Some((view_dst, r.view(step)?)),
            None => None,
        };
        dst.write(hrw_ramp_step {
            epoch: s.epoch,
            position: s.position,
            moved: s.moved,
            removes_drained: s.removes_drained,
        });
        if let Some((view_dst, inner)) = view {
            view_dst.put_box(hrw_view { inner });
        }
        Ok(())
    })
}

/// A ramp's number of steps and expected movements (fractions of all keys), as
/// `hrw_ramp_summary` gives them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_ramp_figures {
    /// The number of steps (0 when the two views already place every key alike).
    pub len: usize,
    /// The per-step limit the ramp was planned with.
    pub max_move: f64,
    /// The sum of the steps' movements (a key that moves twice counts twice).
    pub total_moved: f64,
    /// The movement of switching directly from the old view to the new one.
    pub direct_moved: f64,
    /// The least movement any scheme needs for the new shares (VIEW.md 6.2).
    pub optimum: f64,
}

/// The ramp's number of steps and its movements, all at once (one call where there were five
/// getters).
///
/// # Safety
/// `ramp` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_ramp_summary(
    ramp: *const hrw_ramp,
    out: *mut hrw_ramp_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(ramp, out, |r| {
            let r = &r.inner;
            Ok(hrw_ramp_figures {
                len: r.steps().len(),
                max_move: r.max_move(),
                total_moved: r.total_moved(),
                direct_moved: r.direct_moved(),
                optimum: r.optimum(),
            })
        })
    }
}
