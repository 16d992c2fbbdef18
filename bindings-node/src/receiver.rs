//! The methods and accessors of every class but `Placement` (whose own callbacks in fast.rs check
//! their receiver), redefined to check their receiver first.
//!
//! `napi_define_class` gives a method a V8 signature, so on a foreign receiver
//! (`View.prototype.toJson.call({})`) V8 throws "Illegal invocation" without a `code`, and a getter
//! reaches napi-rs, which throws "Failed to unwrap" with its status `InvalidArg` as the code; none
//! is an `HrwErrorCode`. Each is replaced by a function without a signature whose callback
//! checks the class's type tag, throws this package's `TypeError` for anything else, and
//! otherwise calls the original with the same receiver and arguments.
use std::ffi::CString;
use std::ptr;

use napi::bindgen_prelude::TypeTag;
use napi::{sys, Result};

use crate::js;
use crate::live_view::LiveView;
use crate::policy::BoundedLoad;
use crate::policy_domains::Domains;
use crate::profile::ProfilePlacement;
use crate::replica_balance::ReplicaBalance;
use crate::slot_table::SlotTable;
use crate::view::{Plan, RampPlan, Transition, View};

/// What a replacement needs: whose tag to check, the names for the message, and what to call.
struct Guard {
    tag: sys::napi_type_tag,
    class: &'static str,
    name: String,
    original: sys::napi_ref,
}

fn classes() -> [(&'static str, sys::napi_type_tag); 10] {
    [
        ("View", View::type_tag()),
        ("Transition", Transition::type_tag()),
        ("Plan", Plan::type_tag()),
        ("RampPlan", RampPlan::type_tag()),
        ("SlotTable", SlotTable::type_tag()),
        ("BoundedLoad", BoundedLoad::type_tag()),
        ("Domains", Domains::type_tag()),
        ("ReplicaBalance", ReplicaBalance::type_tag()),
        ("ProfilePlacement", ProfilePlacement::type_tag()),
        ("LiveView", LiveView::type_tag()),
    ]
}

/// The `TypeError` for a call of `class.prototype.name` on `this`. V8 hands a native function
/// the global object for a `null` or `undefined` receiver, and a wrapper object for a primitive.
fn foreign(env: sys::napi_env, class: &str, name: &str, this: sys::napi_value) -> napi::Error {
    let mut global = ptr::null_mut();
    let mut is_global = false;
    unsafe {
        if sys::napi_get_global(env, &mut global) == 0 {
            sys::napi_strict_equals(env, global, this, &mut is_global);
        }
    }
    let what = if is_global {
        "null or undefined".to_owned()
    } else {
        format!("an object that is not a {class}")
    };
    js::type_error(
        env,
        &format!("{class}.prototype.{name} was called on {what}"),
    )
}

unsafe extern "C" fn guarded(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    const INLINE: usize = 4;
    let mut argc = INLINE;
    let mut inline = [ptr::null_mut(); INLINE];
    let mut this = ptr::null_mut();
    let mut data = ptr::null_mut();
    if sys::napi_get_cb_info(
        env,
        info,
        &mut argc,
        inline.as_mut_ptr(),
        &mut this,
        &mut data,
    ) != 0
    {
        return ptr::null_mut();
    }
    let guard = &*(data as *const Guard);
    let mut tagged = false;
    if sys::napi_check_object_type_tag(env, this, &guard.tag, &mut tagged) != 0 || !tagged {
        foreign(env, guard.class, &guard.name, this);
        return ptr::null_mut();
    }
    let mut more = Vec::new();
    let args = if argc <= INLINE {
        &inline[..argc]
    } else {
        more.resize(argc, ptr::null_mut());
        sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            more.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        &more[..]
    };
    let mut original = ptr::null_mut();
    let mut result = ptr::null_mut();
    // A failed call leaves its exception pending, which is what the caller sees.
    if sys::napi_get_reference_value(env, guard.original, &mut original) == 0 {
        sys::napi_call_function(env, this, original, args.len(), args.as_ptr(), &mut result);
    }
    result
}

unsafe extern "C" fn free_guard(
    _env: sys::napi_env,
    data: *mut std::ffi::c_void,
    _: *mut std::ffi::c_void,
) {
    drop(Box::from_raw(data as *mut Guard));
}

/// A function without a signature that calls `original` for receivers tagged `tag`.
fn replacement(
    env: sys::napi_env,
    tag: sys::napi_type_tag,
    class: &'static str,
    name: &str,
    original: sys::napi_value,
) -> Result<sys::napi_value> {
    let mut keep = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_reference(env, original, 1, &mut keep)
    })?;
    let guard = Box::into_raw(Box::new(Guard {
        tag,
        class,
        name: name.to_owned(),
        original: keep,
    }));
    let mut f = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr().cast(),
            name.len() as isize,
            Some(guarded),
            guard.cast(),
            &mut f,
        )
    })?;
    js::check(env, unsafe {
        sys::napi_add_finalizer(
            env,
            f,
            guard.cast(),
            Some(free_guard),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    })?;
    Ok(f)
}

/// `Object.getOwnPropertyDescriptor` and `Object.defineProperty`.
fn object_functions(env: sys::napi_env) -> Result<[sys::napi_value; 2]> {
    let mut global = ptr::null_mut();
    js::check(env, unsafe { sys::napi_get_global(env, &mut global) })?;
    let missing = || napi::Error::from_reason("hrwhash: no Object in this environment");
    let object = js::property(env, global, c"Object")?.ok_or_else(missing)?;
    Ok([
        js::property(env, object, c"getOwnPropertyDescriptor")?.ok_or_else(missing)?,
        js::property(env, object, c"defineProperty")?.ok_or_else(missing)?,
    ])
}

fn call(
    env: sys::napi_env,
    f: sys::napi_value,
    args: &[sys::napi_value],
) -> Result<sys::napi_value> {
    let mut out = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_call_function(env, f, f, args.len(), args.as_ptr(), &mut out)
    })?;
    Ok(out)
}

pub(crate) fn install(env: sys::napi_env, exports: sys::napi_value) -> Result<()> {
    let [describe, define] = object_functions(env)?;
    for (class, tag) in classes() {
        let cname = CString::new(class).map_err(|e| napi::Error::from_reason(e.to_string()))?;
        let missing = || napi::Error::from_reason(format!("hrwhash: {class} class not exported"));
        let ctor = js::property(env, exports, &cname)?.ok_or_else(missing)?;
        let proto = js::property(env, ctor, c"prototype")?.ok_or_else(missing)?;
        // Configurable ones only, as the class's own are; string-keyed, as the methods are.
        let filter = sys::KeyFilter::configurable | sys::KeyFilter::skip_symbols;
        for name in js::names_of(env, proto, filter)? {
            if name == "constructor" {
                continue;
            }
            let key = js::new_string(env, &name)?;
            let d = call(env, describe, &[proto, key])?;
            for part in [c"value", c"get", c"set"] {
                let Some(f) = js::property(env, d, part)? else {
                    continue;
                };
                if js::type_of(env, f)? == sys::ValueType::napi_function {
                    let f = replacement(env, tag, class, &name, f)?;
                    js::set_property(env, d, part, f)?;
                }
            }
            call(env, define, &[proto, key, d])?;
        }
    }
    Ok(())
}
