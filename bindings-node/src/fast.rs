//! `owner`, `ownerIndex` and `rank` as plain Node-API callbacks on `Placement.prototype`.
//!
//! napi-derive's generated method glue (borrow-scope bookkeeping around every call) costs about as
//! much as a whole lookup at small N, so the single-key lookups skip it. The receiver is still
//! checked as napi-rs checks it (`unwrap_raw`: the object must carry the `Placement` type tag), so
//! `Placement.prototype.owner.call(somethingElse)` throws instead of reading foreign memory; as
//! that check costs about a lookup too, its result is remembered per live placement. Their
//! TypeScript declarations are in types-header.d.ts (merged into the class).
use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::bindgen_prelude::{panic_to_error, CallbackInfo, Object};
use napi::{sys, Env, JsError, JsValue, Result};
use napi_derive::napi;

use crate::js::{self, Raw};
use crate::Placement;

thread_local! {
    /// Addresses of the live placements of this thread that passed the type-tag check. An address
    /// leaves the set when its placement is finalized, before its memory can be reused.
    static VERIFIED: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
}

/// Called when a placement verified at `address` is finalized.
pub(crate) fn forget(address: usize) {
    // The set may already be gone while the thread exits; then there is nothing to forget.
    let _ = VERIFIED.try_with(|v| v.borrow_mut().remove(&address));
}

/// The `Placement` that `this` wraps, or a `TypeError` for anything else.
unsafe fn receiver(env: sys::napi_env, cb: &mut CallbackInfo<2>) -> Result<*const Placement> {
    let not_placement = || js::type_error(env, "receiver is not a Placement");
    let mut wrapped = ptr::null_mut();
    if sys::napi_unwrap(env, cb.this(), &mut wrapped) != sys::Status::napi_ok || wrapped.is_null() {
        return Err(not_placement());
    }
    let address = wrapped as usize;
    if VERIFIED.with(|v| v.borrow().contains(&address)) {
        return Ok(wrapped as *const Placement);
    }
    let placement = cb.unwrap_raw::<Placement>().map_err(|_| not_placement())?;
    (*placement).verified_at.set(address);
    VERIFIED.with(|v| v.borrow_mut().insert(address));
    Ok(placement)
}

/// Runs a method body for a verified `Placement` receiver, throwing its error if it fails.
unsafe fn call(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    body: impl FnOnce(&Placement, [Raw; 2]) -> Result<sys::napi_value>,
) -> sys::napi_value {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut cb = CallbackInfo::<2>::new(env, info, None, false)?;
        let this = receiver(env, &mut cb)?;
        // No JS runs during a lookup, so the placement cannot be finalized under us.
        body(&*this, [Raw(cb.get_arg(0)), Raw(cb.get_arg(1))])
    }))
    .map_err(panic_to_error)
    .and_then(|r| r);
    match result {
        Ok(v) => v,
        Err(e) => {
            JsError::from(e).throw_into(env);
            ptr::null_mut()
        }
    }
}

unsafe extern "C" fn owner(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    call(env, info, |p, [key, _]| p.owner(env, key))
}

unsafe extern "C" fn owner_index(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    call(env, info, |p, [key, _]| p.owner_index(env, key))
}

unsafe extern "C" fn rank(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    call(env, info, |p, [key, k]| p.rank(env, key, k))
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

const METHODS: [(&CStr, Callback); 3] = [
    (c"owner", owner),
    (c"ownerIndex", owner_index),
    (c"rank", rank),
];

#[napi(module_exports)]
pub fn install(exports: Object, env: Env) -> Result<()> {
    let env = env.raw();
    let exports = exports.raw();
    let missing = || napi::Error::from_reason("hrwhash: Placement class not exported");
    let class = js::property(env, exports, c"Placement")?.ok_or_else(missing)?;
    let proto = js::property(env, class, c"prototype")?.ok_or_else(missing)?;
    for (name, cb) in METHODS {
        let bytes = name.to_bytes();
        let mut f = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_create_function(
                env,
                name.as_ptr(),
                bytes.len() as isize,
                Some(cb),
                ptr::null_mut(),
                &mut f,
            )
        })?;
        // Non-enumerable like class methods.
        let desc = sys::napi_property_descriptor {
            utf8name: name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: None,
            setter: None,
            value: f,
            attributes: sys::PropertyAttributes::writable | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        js::check(env, unsafe {
            sys::napi_define_properties(env, proto, 1, &desc)
        })?;
    }
    Ok(())
}
