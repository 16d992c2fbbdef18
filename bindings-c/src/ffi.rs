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

/// Like `guard`, for calls that also report details: on failure `error`, when given, receives
/// them (a panic or a bare status gets a zeroed detail with only `status` set).
pub(crate) fn guard_detail(
    error: Option<Out<hrw_error>>,
    f: impl FnOnce() -> Result<(), hrw_error>,
) -> hrw_status {
    let mut detail = None;
    let status = guard(|| {
        f().map_err(|d| {
            detail = Some(d);
            d.status
        })
    });
    if let (false, Some(error)) = (status == hrw_status::Ok, error) {
        error.write(detail.unwrap_or_else(|| hrw_error::from_status(status)));
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

/// A required out-pointer.
pub(crate) fn out<T>(ptr: *mut T) -> Result<*mut T, hrw_status> {
    if ptr.is_null() {
        Err(hrw_status::NullParameter)
    } else {
        Ok(ptr)
    }
}

/// A Rust struct handed to C as an opaque `hrw_<type>` pointer: boxed by `Out::put_box`,
/// borrowed by `try_ref!`/`try_mut!`, released by `free_handle!`. Only the handle types are
/// marked, so no other pointer can be boxed or freed through these helpers by mistake.
pub(crate) trait Handle {}

/// The value behind a required pointer argument (NULL is NULL_PARAMETER).
///
/// # Safety
/// A non-NULL `ptr` points to a live, initialised `T` (a handle not yet freed, or a caller's
/// struct) that nobody changes during `'a`.
pub(crate) unsafe fn arg_ref<'a, T>(ptr: *const T) -> Result<&'a T, hrw_status> {
    // SAFETY: forwarded from the caller; `as_ref` checks NULL.
    unsafe { ptr.as_ref() }.ok_or(hrw_status::NullParameter)
}

/// The value behind an optional pointer argument (NULL is `None`).
///
/// # Safety
/// As `arg_ref`.
pub(crate) unsafe fn arg_opt<'a, T>(ptr: *const T) -> Option<&'a T> {
    // SAFETY: forwarded from the caller; `as_ref` checks NULL.
    unsafe { ptr.as_ref() }
}

/// The handle behind a required pointer, for the calls that change it in place.
///
/// # Safety
/// A non-NULL `ptr` points to a live `T` that nothing else uses during `'a`.
pub(crate) unsafe fn arg_mut<'a, T: Handle>(ptr: *mut T) -> Result<&'a mut T, hrw_status> {
    // SAFETY: forwarded from the caller; `as_mut` checks NULL.
    unsafe { ptr.as_mut() }.ok_or(hrw_status::NullParameter)
}

/// Releases a handle built by `Out::put_box`; NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or a live `T` from `Out::put_box` that nothing uses afterwards.
pub(crate) unsafe fn free_box<T: Handle>(ptr: *mut T) {
    guard(|| {
        if !ptr.is_null() {
            // SAFETY: forwarded from the caller: the pointer came from `Box::into_raw`, once.
            drop(unsafe { Box::from_raw(ptr) });
        }
        Ok(())
    });
}

/// A required out-param, checked non-NULL up front so that the call fails before it computes
/// anything, and written only once the call has succeeded.
pub(crate) struct Out<T>(std::ptr::NonNull<T>);

impl<T> Out<T> {
    /// # Safety
    /// A non-NULL `ptr` is valid for one write of a `T` until the exported call returns.
    pub(crate) unsafe fn new(ptr: *mut T) -> Result<Out<T>, hrw_status> {
        std::ptr::NonNull::new(ptr)
            .map(Out)
            .ok_or(hrw_status::NullParameter)
    }

    /// An optional out-param: NULL means the caller does not want it.
    ///
    /// # Safety
    /// As `Out::new`.
    pub(crate) unsafe fn optional(ptr: *mut T) -> Option<Out<T>> {
        std::ptr::NonNull::new(ptr).map(Out)
    }

    pub(crate) fn write(self, value: T) {
        // SAFETY: `Out::new` was given a pointer valid for this write.
        unsafe { self.0.as_ptr().write(value) }
    }
}

impl<T: Handle> Out<*mut T> {
    /// Boxes `value` and hands the caller the new handle (released by `free_handle!`).
    pub(crate) fn put_box(self, value: T) {
        self.write(Box::into_raw(Box::new(value)));
    }
}

/// Copies `src` to the front of a caller's buffer, leaving the rest as it was; BUFFER_TOO_SMALL
/// (nothing written) when it does not fit. The needed length is the caller's to know.
pub(crate) fn copy_to<T: Copy>(dst: &mut [T], src: &[T]) -> Result<(), hrw_status> {
    dst.get_mut(..src.len())
        .ok_or(hrw_status::BufferTooSmall)?
        .copy_from_slice(src);
    Ok(())
}

/// `copy_to` into a required buffer: NULL is NULL_PARAMETER even when `len` is 0.
///
/// # Safety
/// As `span_mut`.
pub(crate) unsafe fn copy_to_buffer<T: Copy>(
    src: &[T],
    ptr: *mut T,
    len: usize,
) -> Result<(), hrw_status> {
    let ptr = out(ptr)?;
    // SAFETY: forwarded from the caller.
    copy_to(unsafe { span_mut(ptr, len) }?, src)
}

/// BUFFER_TOO_SMALL for a text, naming the length it needs (`expected`) and the one given
/// (`actual`), so that the caller can retry with the right size.
pub(crate) fn too_small(needed: usize, given: usize) -> hrw_error {
    hrw_error {
        expected: needed,
        actual: given,
        ..hrw_error::from_status(hrw_status::BufferTooSmall)
    }
}

// The argument macros below hold the one `unsafe` of each argument check: every exported
// function is `unsafe extern "C"` and documents, in its `# Safety`, the very contract each
// helper above states, so the call site need not repeat it.

/// `&T` from a required pointer argument, or return NULL_PARAMETER.
macro_rules! try_ref {
    ($ptr:expr) => {
        unsafe { $crate::ffi::arg_ref($ptr) }?
    };
}

/// `Option<&T>` from an optional pointer argument.
macro_rules! opt_ref {
    ($ptr:expr) => {
        unsafe { $crate::ffi::arg_opt($ptr) }
    };
}

/// `Option<Out>` from an optional out-param.
macro_rules! opt_out {
    ($ptr:expr) => {
        unsafe { $crate::ffi::Out::optional($ptr) }
    };
}

/// `&mut T` from a required handle that the call changes in place, or return NULL_PARAMETER.
macro_rules! try_mut {
    ($ptr:expr) => {
        unsafe { $crate::ffi::arg_mut($ptr) }?
    };
}

/// An `Out` from a required out-param, or return NULL_PARAMETER.
macro_rules! try_out {
    ($ptr:expr) => {
        unsafe { $crate::ffi::Out::new($ptr) }?
    };
}

/// A byte span (`bytes`), an array (`span`) or a caller's buffer (`span_mut`), or return its
/// status.
macro_rules! try_bytes {
    ($ptr:expr, $len:expr) => {
        unsafe { $crate::ffi::bytes($ptr, $len) }?
    };
}
macro_rules! try_span {
    ($ptr:expr, $len:expr) => {
        unsafe { $crate::ffi::span($ptr, $len) }?
    };
}
macro_rules! try_span_mut {
    ($ptr:expr, $len:expr) => {
        unsafe { $crate::ffi::span_mut($ptr, $len) }?
    };
}

/// Releases a handle (`free_box`) inside the panic boundary; NULL is a no-op.
macro_rules! free_handle {
    ($ptr:expr) => {
        unsafe { $crate::ffi::free_box($ptr) }
    };
}

/// `guard_detail` with an optional `hrw_error *` out-param.
macro_rules! with_detail {
    ($error:expr, $f:expr) => {
        $crate::ffi::guard_detail($crate::ffi::opt_out!($error), $f)
    };
}

pub(crate) use {
    free_handle, opt_out, opt_ref, try_bytes, try_mut, try_out, try_ref, try_span, try_span_mut,
    with_detail,
};

/// The body of a getter: `f` of a handle, written to a required out-param. NULL handle, then
/// NULL out-param, then `f`'s own error.
///
/// # Safety
/// As `arg_ref` for `handle` and `Out::new` for `dst`.
pub(crate) unsafe fn get<H, R>(
    handle: *const H,
    dst: *mut R,
    f: impl FnOnce(&H) -> Result<R, hrw_status>,
) -> hrw_status {
    guard(|| {
        let h = try_ref!(handle);
        let dst = try_out!(dst);
        dst.write(f(h)?);
        Ok(())
    })
}

/// `get` of a lookup by key, the key checked after the out-param (`bytes`).
///
/// # Safety
/// As `get`, and `bytes` for the key.
pub(crate) unsafe fn get_by_key<H, R>(
    handle: *const H,
    key: *const u8,
    key_len: usize,
    dst: *mut R,
    f: impl FnOnce(&H, &[u8]) -> Result<R, hrw_status>,
) -> hrw_status {
    // SAFETY: forwarded.
    guard(|| unsafe { by_key(handle, key, key_len, dst, f) })
}

/// `get_by_key` for the calls that also report details (`guard_detail`).
///
/// # Safety
/// As `get_by_key`.
pub(crate) unsafe fn get_by_key_detail<H, R>(
    handle: *const H,
    key: *const u8,
    key_len: usize,
    dst: *mut R,
    error: *mut hrw_error,
    f: impl FnOnce(&H, &[u8]) -> Result<R, hrw_error>,
) -> hrw_status {
    // SAFETY: forwarded.
    with_detail!(error, || unsafe { by_key(handle, key, key_len, dst, f) })
}

/// # Safety
/// As `get_by_key`.
unsafe fn by_key<H, R, E: From<hrw_status>>(
    handle: *const H,
    key: *const u8,
    key_len: usize,
    dst: *mut R,
    f: impl FnOnce(&H, &[u8]) -> Result<R, E>,
) -> Result<(), E> {
    let h = try_ref!(handle);
    let dst = try_out!(dst);
    dst.write(f(h, try_bytes!(key, key_len))?);
    Ok(())
}
