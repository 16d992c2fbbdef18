//! The panic boundary and pointer checks every exported function goes through.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::slice;

use crate::status::{hrw_error, hrw_status};

/// Runs `f`, turning a panic into `HRW_STATUS_PANIC` so that it never unwinds across the ABI.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), hrw_status>) -> hrw_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => hrw_status::Ok,
        Ok(Err(status)) => status,
        Err(_) => hrw_status::Panic,
    }
}

/// Like `guard`, for calls that also report details: on failure a non-NULL `error` receives
/// them (a panic or a bare status gets a zeroed detail with only `status` set).
///
/// # Safety
/// A non-NULL `error` points to a writable `hrw_error`.
pub(crate) unsafe fn guard_detail(
    error: *mut hrw_error,
    f: impl FnOnce() -> Result<(), hrw_error>,
) -> hrw_status {
    let mut detail = None;
    let status = guard(|| {
        f().map_err(|d| {
            detail = Some(d);
            d.status
        })
    });
    if status != hrw_status::Ok && !error.is_null() {
        let d = detail.unwrap_or_else(|| hrw_error::from_status(status));
        // SAFETY: caller contract.
        unsafe { error.write(d) };
    }
    status
}

/// A borrowed byte span from C: NULL is accepted only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], hrw_status> {
    // SAFETY: forwarded to the caller; the NULL case never dereferences.
    unsafe { span(ptr, len) }
}

/// Whether `len` elements of `T` could fit in one allocation. A longer slice would be UB to
/// form, so a length beyond it is a caller error, never a view.
fn fits<T>(len: usize) -> bool {
    len <= isize::MAX as usize / std::mem::size_of::<T>().max(1)
}

/// A borrowed array from C: NULL is accepted only when `len` is 0. A length no buffer can have
/// is LENGTH_MISMATCH.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable, initialised `T`s that outlive `'a`.
pub(crate) unsafe fn span<'a, T>(ptr: *const T, len: usize) -> Result<&'a [T], hrw_status> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(hrw_status::NullParameter)
        };
    }
    if !fits::<T>(len) {
        return Err(hrw_status::LengthMismatch);
    }
    // SAFETY: the caller promises `len` readable elements at `ptr`.
    Ok(unsafe { slice::from_raw_parts(ptr, len) })
}

/// A caller-owned output buffer: NULL is accepted only when `len` is 0. A length no buffer can
/// have (its size in bytes overflows the address space) is RESULT_TOO_LARGE.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` writable `T`s, not aliased during `'a`.
pub(crate) unsafe fn span_mut<'a, T>(ptr: *mut T, len: usize) -> Result<&'a mut [T], hrw_status> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&mut [])
        } else {
            Err(hrw_status::NullParameter)
        };
    }
    if !fits::<T>(len) {
        return Err(hrw_status::ResultTooLarge);
    }
    // SAFETY: the caller promises `len` writable elements at `ptr`.
    Ok(unsafe { slice::from_raw_parts_mut(ptr, len) })
}

/// A required pointer.
pub(crate) fn non_null<T>(ptr: *const T) -> Result<*const T, hrw_status> {
    if ptr.is_null() {
        Err(hrw_status::NullParameter)
    } else {
        Ok(ptr)
    }
}

/// A required out-pointer.
pub(crate) fn out<T>(ptr: *mut T) -> Result<*mut T, hrw_status> {
    if ptr.is_null() {
        Err(hrw_status::NullParameter)
    } else {
        Ok(ptr)
    }
}
