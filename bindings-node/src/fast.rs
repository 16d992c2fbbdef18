//! Every method and getter of `Placement.prototype` as a plain Node-API callback.
//!
//! napi-derive's generated method glue (borrow-scope bookkeeping around every call) costs about as
//! much as a whole lookup at small N, so the lookups skip it; and the methods it defines carry a
//! V8 signature, so a call on another receiver (`replicas.call({})`) throws V8's "Illegal
//! invocation" without a `code`. Here the receiver is checked as napi-rs checks it (`unwrap_raw`:
//! the object must carry the `Placement` type tag), so `Placement.prototype.owner.call(somethingElse)`
//! throws this package's `TypeError` instead of reading foreign memory; as that check costs about a
//! lookup too, its result is remembered per live placement. Even `napi_unwrap` costs about a
//! lookup at small N (a private-property read), so the last receiver of the thread is remembered
//! as well and recognized by one strict equality. `owner` and `rank` are the JS functions of
//! `fast.js` around two of these callbacks, so that their answers are the caller's id strings read
//! in JS rather than strings made again through Node-API. Their TypeScript declarations are in
//! types-header.d.ts (merged into the class).
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::bindgen_prelude::{panic_to_error, CallbackInfo, Object, ToNapiValue};
use napi::{sys, Env, JsError, JsValue, Result};
use napi_derive::napi;

use crate::js::{self, Raw};
use crate::Placement;

thread_local! {
    /// Addresses of the live placements of this thread that passed the type-tag check. An address
    /// leaves the set when its placement is finalized, before its memory can be reused.
    static VERIFIED: RefCell<HashSet<usize>> = RefCell::new(HashSet::new());
}

/// The receiver of this thread's last call: its environment, a weak reference to its JS object,
/// and the address of its verified placement. A loop over keys calls one placement again and
/// again.
#[derive(Clone, Copy)]
struct Last {
    env: sys::napi_env,
    object: sys::napi_ref,
    address: usize,
}

thread_local! {
    static LAST: Cell<Last> = const {
        Cell::new(Last { env: ptr::null_mut(), object: ptr::null_mut(), address: 0 })
    };
}

/// Called when a placement verified at `address` is finalized.
pub(crate) fn forget(env: sys::napi_env, address: usize) {
    // The set may already be gone while the thread exits; then there is nothing to forget.
    let _ = VERIFIED.try_with(|v| v.borrow_mut().remove(&address));
    let _ = LAST.try_with(|last| {
        let l = last.get();
        if l.address == address {
            last.set(Last {
                env: ptr::null_mut(),
                object: ptr::null_mut(),
                address: 0,
            });
            if l.env == env {
                unsafe { sys::napi_delete_reference(env, l.object) };
            }
        }
    });
}

/// The placement of the last receiver if `this` is that same live object.
unsafe fn last_receiver(env: sys::napi_env, this: sys::napi_value) -> Option<*const Placement> {
    let l = LAST.get();
    if l.env != env || l.object.is_null() {
        return None;
    }
    let mut object = ptr::null_mut();
    // A collected object reads as null (its placement's finalizer may not have run yet).
    if sys::napi_get_reference_value(env, l.object, &mut object) != sys::Status::napi_ok
        || object.is_null()
    {
        return None;
    }
    let mut same = false;
    if sys::napi_strict_equals(env, object, this, &mut same) != sys::Status::napi_ok || !same {
        return None;
    }
    Some(l.address as *const Placement)
}

/// Makes `this`, verified as the placement at `address`, the last receiver.
unsafe fn remember(env: sys::napi_env, this: sys::napi_value, address: usize) {
    let old = LAST.get();
    if !old.object.is_null() && old.env == env {
        sys::napi_delete_reference(env, old.object);
    }
    let mut object = ptr::null_mut();
    // Weak (count 0): remembering a placement must not keep it alive.
    let last = if sys::napi_create_reference(env, this, 0, &mut object) == sys::Status::napi_ok {
        Last {
            env,
            object,
            address,
        }
    } else {
        Last {
            env: ptr::null_mut(),
            object: ptr::null_mut(),
            address: 0,
        }
    };
    LAST.set(last);
}

/// The `Placement` that `this` wraps, or a `TypeError` for anything else.
unsafe fn receiver(env: sys::napi_env, cb: &mut CallbackInfo<2>) -> Result<*const Placement> {
    if let Some(placement) = last_receiver(env, cb.this()) {
        return Ok(placement);
    }
    let not_placement = || js::type_error(env, "receiver is not a Placement");
    let mut wrapped = ptr::null_mut();
    if sys::napi_unwrap(env, cb.this(), &mut wrapped) != sys::Status::napi_ok || wrapped.is_null() {
        return Err(not_placement());
    }
    let address = wrapped as usize;
    if VERIFIED.with(|v| v.borrow().contains(&address)) {
        remember(env, cb.this(), address);
        return Ok(wrapped as *const Placement);
    }
    let placement = cb.unwrap_raw::<Placement>().map_err(|_| not_placement())?;
    (*placement).verified_at.set(address);
    VERIFIED.with(|v| v.borrow_mut().insert(address));
    remember(env, cb.this(), address);
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

/// A method that returns a new placement.
unsafe fn instance(env: sys::napi_env, p: Result<Placement>) -> Result<sys::napi_value> {
    Placement::to_napi_value(env, p?)
}

macro_rules! callbacks {
    ($($name:ident => |$p:ident, $env:ident, $args:pat_param| $body:expr;)*) => {
        $(
            unsafe extern "C" fn $name(
                $env: sys::napi_env,
                info: sys::napi_callback_info,
            ) -> sys::napi_value {
                call($env, info, |$p, $args| $body)
            }
        )*
    };
}

callbacks! {
    owner_ids => |p, env, [key, _]| p.owner_ids(env, key);
    owner_index => |p, env, [key, _]| p.owner_index(env, key);
    rank_ids => |p, env, [key, k]| p.rank_ids(env, key, k);
    replicas => |p, env, [key, k]| p.replicas(env, key, k);
    replicas_strict => |p, env, [key, k]| p.replicas_strict(env, key, k);
    score => |p, env, [key, node]| p.score(env, key, node);
    owners => |p, env, [keys, _]| p.owners(env, keys);
    rank_many => |p, env, [keys, k]| p.rank_many(env, keys, k);
    owner_indices => |p, env, [data, offsets]| p.owner_indices(env, data, offsets);
    with_node => |p, env, [node, _]| instance(env, p.with_node(env, node));
    without_node => |p, env, [node, _]| instance(env, p.without_node(env, node));
    with_weight => |p, env, [node, weight]| instance(env, p.with_weight(env, node, weight));
    nodes => |p, env, _| p.nodes(env);
    length => |p, env, _| p.length(env);
    selectable_length => |p, env, _| p.selectable_length(env);
    is_weighted => |p, env, _| p.is_weighted(env);
    seed => |p, env, _| p.seed(env);
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

const METHODS: [(&CStr, Callback); 11] = [
    (c"ownerIndex", owner_index),
    (c"replicas", replicas),
    (c"replicasStrict", replicas_strict),
    (c"score", score),
    (c"owners", owners),
    (c"rankMany", rank_many),
    (c"ownerIndices", owner_indices),
    (c"withNode", with_node),
    (c"withoutNode", without_node),
    (c"withWeight", with_weight),
    (c"nodes", nodes),
];

const GETTERS: [(&CStr, Callback); 4] = [
    (c"length", length),
    (c"selectableLength", selectable_length),
    (c"isWeighted", is_weighted),
    (c"seed", seed),
];

fn function(env: sys::napi_env, name: &CStr, cb: Callback) -> Result<sys::napi_value> {
    let mut f = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr(),
            name.to_bytes().len() as isize,
            Some(cb),
            ptr::null_mut(),
            &mut f,
        )
    })?;
    Ok(f)
}

/// Length of the scratch `fast.js` shares with `owner_ids`/`rank_ids`: a count and `rank`'s
/// indices.
const SCRATCH_LEN: usize = 1 + crate::gather::MAX;

thread_local! {
    /// The scratch of the environment that installed `fast.js` on this thread (one per thread in
    /// practice: the main thread or a worker), kept alive by a reference that is never deleted.
    static SCRATCH: Cell<(sys::napi_env, *mut u32)> = const { Cell::new((ptr::null_mut(), ptr::null_mut())) };
}

/// The scratch of `env`'s `fast.js`, or `None` (then a lookup returns its whole answer).
pub(crate) fn scratch(env: sys::napi_env) -> Option<&'static mut [u32; SCRATCH_LEN]> {
    let (owner, data) = SCRATCH.get();
    if owner != env || data.is_null() {
        return None;
    }
    // SAFETY: the array is never freed (a strong reference) nor detached (no JS code but fast.js
    // sees it), and only this thread touches it, between JS statements.
    Some(unsafe { &mut *(data as *mut [u32; SCRATCH_LEN]) })
}

/// A new scratch: a `Uint32Array` and its storage.
#[cfg(not(target_family = "wasm"))]
fn scratch_array(env: sys::napi_env) -> Result<(sys::napi_value, *mut u32)> {
    js::new_u32_array(env, SCRATCH_LEN)
}

/// A new scratch. Under WebAssembly, emnapi gives native code a copy of an `ArrayBuffer`'s
/// contents in the module's memory, so the scratch is instead a view of that memory, which both
/// sides read and write without a copy. The memory is shared (wasm32-wasip1-threads), so it grows
/// in place and the view stays valid; the storage is never freed, like the reference that keeps
/// the view.
#[cfg(target_family = "wasm")]
fn scratch_array(env: sys::napi_env) -> Result<(sys::napi_value, *mut u32)> {
    extern "C" {
        fn emnapi_create_memory_view(
            env: sys::napi_env,
            typedarray_type: i32,
            external_data: *mut std::ffi::c_void,
            byte_length: usize,
            finalize_cb: sys::napi_finalize,
            finalize_hint: *mut std::ffi::c_void,
            result: *mut sys::napi_value,
        ) -> sys::napi_status;
    }
    const EMNAPI_UINT32_ARRAY: i32 = 6;
    let data = Box::leak(Box::new([0u32; SCRATCH_LEN])).as_mut_ptr();
    let mut array = ptr::null_mut();
    js::check(env, unsafe {
        emnapi_create_memory_view(
            env,
            EMNAPI_UINT32_ARRAY,
            data.cast(),
            SCRATCH_LEN * 4,
            None,
            ptr::null_mut(),
            &mut array,
        )
    })?;
    Ok((array, data))
}

/// `owner` and `rank` from `fast.js`, around `owner_ids` and `rank_ids`.
fn js_lookups(env: sys::napi_env) -> Result<[sys::napi_value; 2]> {
    let source = js::new_string(env, include_str!("fast.js"))?;
    let mut factory = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_run_script(env, source, &mut factory)
    })?;
    let (array, data) = scratch_array(env)?;
    let mut keep = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_reference(env, array, 1, &mut keep)
    })?;
    let args = [
        function(env, c"owner", owner_ids)?,
        function(env, c"rank", rank_ids)?,
        array,
    ];
    let mut global = ptr::null_mut();
    js::check(env, unsafe { sys::napi_get_global(env, &mut global) })?;
    let mut pair = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_call_function(env, global, factory, args.len(), args.as_ptr(), &mut pair)
    })?;
    SCRATCH.set((env, data));
    Ok([js::element(env, pair, 0)?, js::element(env, pair, 1)?])
}

#[napi(module_exports)]
pub fn install(exports: Object, env: Env) -> Result<()> {
    let env = env.raw();
    crate::gather::install(env)?;
    let exports = exports.raw();
    let missing = || napi::Error::from_reason("hrwhash: Placement class not exported");
    let class = js::property(env, exports, c"Placement")?.ok_or_else(missing)?;
    let proto = js::property(env, class, c"prototype")?.ok_or_else(missing)?;
    let mut methods = Vec::with_capacity(METHODS.len() + 2);
    for (name, cb) in METHODS {
        methods.push((name, function(env, name, cb)?));
    }
    let [owner, rank] = js_lookups(env)?;
    methods.push((c"owner", owner));
    methods.push((c"rank", rank));
    for (name, f) in methods {
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
    for (name, cb) in GETTERS {
        // Non-enumerable like class accessors.
        let desc = sys::napi_property_descriptor {
            utf8name: name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: Some(cb),
            setter: None,
            value: ptr::null_mut(),
            attributes: sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        js::check(env, unsafe {
            sys::napi_define_properties(env, proto, 1, &desc)
        })?;
    }
    Ok(())
}
