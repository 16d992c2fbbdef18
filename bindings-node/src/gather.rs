//! Short answer arrays of string ids, built by a small JS function.
//!
//! Through Node-API, a `rank` answer of three string ids costs an array, three strings made from
//! UTF-8 (or three generic element reads from the cached id array) and three generic element
//! stores: each of those six calls goes through V8's generic property path and costs about a
//! lookup at small N. Called once from native code, a JS function reads the cached ids and makes
//! the array on V8's fast paths, and hands back the caller's own strings.
use std::cell::Cell;
use std::ptr;

use napi::{sys, Result};

use crate::js::{self, JsEnv};

/// Longest answer built this way; `rank`'s stack buffer is as long.
pub(crate) const MAX: usize = 16;

/// `this` is the cached id array; the arguments are the indices.
const SOURCE: &str = "(function () {\n\
  const n = arguments.length;\n\
  const out = new Array(n);\n\
  for (let j = 0; j < n; j++) out[j] = this[arguments[j]];\n\
  return out;\n\
})";

thread_local! {
    /// The function, for the environment that made it (one per thread in practice: the main
    /// thread or a worker).
    static GATHER: Cell<(sys::napi_env, sys::napi_ref)> =
        const { Cell::new((ptr::null_mut(), ptr::null_mut())) };
}

/// Makes the function for `env` (at module load).
pub(crate) fn install(env: impl JsEnv) -> Result<()> {
    let source = js::new_string(env, SOURCE)?;
    let mut f = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_run_script(env.raw(), source, &mut f)
    })?;
    let mut r = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_reference(env.raw(), f, 1, &mut r)
    })?;
    GATHER.set((env.raw(), r));
    Ok(())
}

/// `[ids[i] for i in indices]` from the cached id array `ids`, which holds every id as a string;
/// `None` when this environment has no function (the caller then builds the array itself).
pub(crate) fn gather(
    env: impl JsEnv,
    ids: sys::napi_value,
    indices: &[usize],
) -> Result<Option<sys::napi_value>> {
    let (owner, r) = GATHER.get();
    if owner != env.raw() || r.is_null() || indices.len() > MAX {
        return Ok(None);
    }
    let mut f = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_get_reference_value(env.raw(), r, &mut f)
    })?;
    let mut argv = [ptr::null_mut(); MAX];
    for (slot, &i) in argv.iter_mut().zip(indices) {
        // Node indices fit: a placement has at most 2^32 - 1 nodes.
        js::check(env, unsafe {
            sys::napi_create_uint32(env.raw(), i as u32, slot)
        })?;
    }
    let mut out = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_call_function(env.raw(), ids, f, indices.len(), argv.as_ptr(), &mut out)
    })?;
    Ok(Some(out))
}
