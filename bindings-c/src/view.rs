//! `hrw_view`: a membership with its epoch and seed identity, read from and written to the JSON
//! document of conformance/VIEW.md.

use hrwhash_core::View;

use crate::ffi::{
    free_handle, get, guard, too_small, try_out, try_ref, try_span_mut, with_detail, Handle,
};
use crate::placement::{hrw_placement, seeded};
use crate::status::{hrw_error, hrw_status};

/// Length of a view fingerprint in bytes.
pub const HRW_VIEW_FINGERPRINT_LEN: usize = 16;
/// Length of a seed fingerprint in bytes.
pub const HRW_SEED_FINGERPRINT_LEN: usize = 8;

/// An immutable view (load it with `hrw_view_from_json`, or make one with `hrw_view_new`;
/// release it with `hrw_view_free`).
///
/// A view never changes, so one handle may be used from any number of threads at once without
/// locking; only `hrw_view_free` must not race with other calls on it.
pub struct hrw_view {
    pub(crate) inner: View,
}

impl Handle for hrw_view {}

/// # Safety
/// A non-NULL `v` must come from a constructor of `hrw_view` and not be freed.
pub(crate) unsafe fn view<'a>(v: *const hrw_view) -> Result<&'a View, hrw_status> {
    Ok(&try_ref!(v).inner)
}

/// Loads a view document (`text_len` bytes of UTF-8 JSON, not NUL-terminated), placing keys
/// with `seed` (16 bytes, or NULL with length 0 for the default seed). The checks and their
/// order are those of VIEW.md section 5: INVALID_JSON (details `line`, `column`), INVALID_VIEW
/// (`field`, `index` when `has_index`, `reason`), EMPTY_MEMBERSHIP, EMPTY_NODE_ID (`index`),
/// DUPLICATE_NODE_ID (`index`, `first_index`), ALL_WEIGHTS_ZERO, then SEED_MISMATCH when the view
/// was written for another seed. INVALID_SEED_LENGTH for a seed that is not 16 bytes.
///
/// On failure a non-NULL `error` receives the details; `*out_view` is written only on success.
/// Release the result with `hrw_view_free`. Node indices of the view's placement are positions
/// in the document's `"nodes"`.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_from_json(
    text: *const u8,
    text_len: usize,
    seed: *const u8,
    seed_len: usize,
    out_view: *mut *mut hrw_view,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        // SAFETY: forwarded.
        let (dst, text, seed) = unsafe { seeded(out_view, text, text_len, seed, seed_len) }?;
        let inner = View::from_json_bytes(text, seed)?;
        dst.put_box(hrw_view { inner });
        Ok(())
    })
}

/// Loads the view document in the file at `path` (`path_len` bytes, not NUL-terminated), as
/// `hrw_view_from_json` does with its text. IO (details: `os_error`) when the file cannot be
/// read; INVALID_TEXT when `path` is not UTF-8 on a platform whose paths are Unicode;
/// RESULT_TOO_LARGE past 1 GiB (`MAX_DOCUMENT_BYTES`). Reading stops at the first control byte,
/// so an endless stream such as `/dev/zero` fails at once with INVALID_JSON at line 1, column 1.
///
/// # Safety
/// Every pointer is NULL or valid for its stated length; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_from_file(
    path: *const u8,
    path_len: usize,
    seed: *const u8,
    seed_len: usize,
    out_view: *mut *mut hrw_view,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        // SAFETY: forwarded.
        let (dst, path, seed) = unsafe { seeded(out_view, path, path_len, seed, seed_len) }?;
        let text = std::fs::File::open(file_path(path)?)
            .and_then(hrwhash_core::view::read_document)
            .map_err(|e| hrw_error {
                os_error: e.raw_os_error().unwrap_or(0),
                ..hrw_error::from_status(hrw_status::Io)
            })??;
        let inner = View::from_json_bytes(&text, seed)?;
        dst.put_box(hrw_view { inner });
        Ok(())
    })
}

#[cfg(unix)]
fn file_path(path: &[u8]) -> Result<&std::path::Path, hrw_status> {
    use std::os::unix::ffi::OsStrExt;
    Ok(std::path::Path::new(std::ffi::OsStr::from_bytes(path)))
}

#[cfg(not(unix))]
fn file_path(path: &[u8]) -> Result<&std::path::Path, hrw_status> {
    core::str::from_utf8(path)
        .map(std::path::Path::new)
        .map_err(|_| hrw_status::InvalidText)
}

/// A view of `placement` at `epoch` (the placement is shared, not copied: the caller may free
/// its handle afterwards). INVALID_VIEW (field `weight`, the node's `index`, reason
/// NOT_REPRESENTABLE) when a weight has more than 53 significant bits.
///
/// # Safety
/// `placement` is a live handle; `error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_new(
    placement: *const hrw_placement,
    epoch: u64,
    out_view: *mut *mut hrw_view,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let p = &try_ref!(placement).inner;
        let dst = try_out!(out_view);
        let inner = View::new(p.clone(), epoch)?;
        dst.put_box(hrw_view { inner });
        Ok(())
    })
}

/// The same membership at another epoch, as a new handle.
///
/// # Safety
/// `view` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_with_epoch(
    view: *const hrw_view,
    epoch: u64,
    out_view: *mut *mut hrw_view,
) -> hrw_status {
    guard(|| {
        let v = &try_ref!(view).inner;
        let dst = try_out!(out_view);
        dst.put_box(hrw_view {
            inner: v.with_epoch(epoch),
        });
        Ok(())
    })
}

/// Releases a view; NULL is a no-op. Placements taken from it stay valid.
///
/// # Safety
/// `view` is NULL or a live handle that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_free(view: *mut hrw_view) {
    free_handle!(view);
}

/// The view's membership as a new placement handle, owned by the caller: release it with
/// `hrw_placement_free`; it stays valid after the view is freed. It shares the view's nodes
/// (no copy), so taking it is cheap.
///
/// # Safety
/// `view` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_placement(
    view: *const hrw_view,
    out_placement: *mut *mut hrw_placement,
) -> hrw_status {
    guard(|| {
        let v = &try_ref!(view).inner;
        let dst = try_out!(out_placement);
        dst.put_box(hrw_placement {
            inner: v.placement().clone(),
        });
        Ok(())
    })
}

/// A view's figures, as `hrw_view_summary` gives them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct hrw_view_figures {
    /// The epoch.
    pub epoch: u64,
    /// Whether the view uses the public default seed (its document says `"seed": "default"`).
    pub has_default_seed: bool,
    /// The view fingerprint (VIEW.md 4.2). Equal fingerprints place every key on the same node
    /// id; the epoch does not enter it.
    pub fingerprint: [u8; HRW_VIEW_FINGERPRINT_LEN],
    /// The seed fingerprint (VIEW.md 4.1): it names the seed without revealing it.
    pub seed_fingerprint: [u8; HRW_SEED_FINGERPRINT_LEN],
}

/// The view's epoch, seed kind and fingerprints, all at once (one call where there were four
/// getters).
///
/// # Safety
/// `view` is a live handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_summary(
    view: *const hrw_view,
    out: *mut hrw_view_figures,
) -> hrw_status {
    // SAFETY: forwarded.
    unsafe {
        get(view, out, |v| {
            let v = &v.inner;
            Ok(hrw_view_figures {
                epoch: v.epoch(),
                has_default_seed: v.has_default_seed(),
                fingerprint: v.fingerprint().to_bytes(),
                seed_fingerprint: v.seed_fingerprint().to_bytes(),
            })
        })
    }
}

/// The canonical JSON form (VIEW.md section 3: UTF-8, ending in a line feed, not
/// NUL-terminated) into `out` (`out_len` bytes); `*out_written` receives its length. With `out`
/// NULL and `out_len` 0 nothing is written and `*out_written` receives the length needed. When
/// `out_len` is shorter, BUFFER_TOO_SMALL and a non-NULL `error` has `expected` = the length
/// needed and `actual` = `out_len`. A secret seed is never written, only its fingerprint.
///
/// # Safety
/// `view` is a live handle; `out` is NULL or valid for `out_len` bytes; `error` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn hrw_view_to_json(
    view: *const hrw_view,
    out: *mut u8,
    out_len: usize,
    out_written: *mut usize,
    error: *mut hrw_error,
) -> hrw_status {
    with_detail!(error, || {
        let v = &try_ref!(view).inner;
        let written = try_out!(out_written);
        let text = v.to_json();
        if out.is_null() && out_len == 0 {
            written.write(text.len());
            return Ok(());
        }
        let dst = try_span_mut!(crate::ffi::out(out)?, out_len);
        dst.get_mut(..text.len())
            .ok_or_else(|| too_small(text.len(), out_len))?
            .copy_from_slice(text.as_bytes());
        written.write(text.len());
        Ok(())
    })
}
