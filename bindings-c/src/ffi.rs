//! The panic boundary and pointer checks every exported function goes through.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::slice;

use crate::status::hrw_status;

/// Runs `f`, turning a panic into `HRW_STATUS_PANIC` so that it never unwinds across the ABI.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), hrw_status>) -> hrw_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => hrw_status::Ok,
        Ok(Err(status)) => status,
        Err(_) => hrw_status::Panic,
    }
}

/// A borrowed byte span from C: NULL is accepted only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], hrw_status> {
    // SAFETY: forwarded to the caller; the NULL case never dereferences.
    unsafe { span(ptr, len) }
}

/// A borrowed array from C: NULL is accepted only when `len` is 0.
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
    // SAFETY: the caller promises `len` readable elements at `ptr`.
    Ok(unsafe { slice::from_raw_parts(ptr, len) })
}

/// A caller-owned output buffer: NULL is accepted only when `len` is 0.
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
