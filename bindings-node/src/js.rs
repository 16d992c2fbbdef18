//! The few raw Node-API operations the hot paths need.
//!
//! Keys are read straight from V8 into a stack buffer (strings) or borrowed in place
//! (`Uint8Array`), so a lookup allocates nothing; napi-rs's typed conversions would allocate a
//! `String` per call. Every status is checked: a failed call turns into a thrown JS error, never
//! a panic.

use std::ffi::{c_char, CStr};
use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, ValidateNapiValue};
use napi::sys::ValueType as T;
use napi::{sys, Error, Result, Status, ValueType};

/// A JS value passed through untouched; the binding converts it itself.
#[derive(Clone, Copy)]
pub struct Raw(pub sys::napi_value);

impl FromNapiValue for Raw {
    unsafe fn from_napi_value(_env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        Ok(Raw(value))
    }
}

impl ToNapiValue for Raw {
    unsafe fn to_napi_value(_env: sys::napi_env, value: Self) -> Result<sys::napi_value> {
        Ok(value.0)
    }
}

impl TypeName for Raw {
    fn type_name() -> &'static str {
        "unknown"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ValidateNapiValue for Raw {}

/// The error napi-rs returns for an exception that is already being thrown.
pub fn pending() -> Error {
    Error::new(Status::PendingException, String::new())
}

#[derive(Clone, Copy)]
pub enum Kind {
    Error,
    Type,
    Range,
}

/// Throws `Error`/`TypeError`/`RangeError` with a `code` and numeric detail properties.
pub fn throw(
    env: sys::napi_env,
    kind: Kind,
    code: &str,
    message: &str,
    props: &[(&CStr, f64)],
) -> Error {
    unsafe {
        let mut code_v = ptr::null_mut();
        let mut msg_v = ptr::null_mut();
        let mut err = ptr::null_mut();
        let create = match kind {
            Kind::Error => sys::napi_create_error,
            Kind::Type => sys::napi_create_type_error,
            Kind::Range => sys::napi_create_range_error,
        };
        if sys::napi_create_string_utf8(env, code.as_ptr().cast(), code.len() as isize, &mut code_v)
            == 0
            && sys::napi_create_string_utf8(
                env,
                message.as_ptr().cast(),
                message.len() as isize,
                &mut msg_v,
            ) == 0
            && create(env, code_v, msg_v, &mut err) == 0
        {
            for (name, value) in props {
                let mut v = ptr::null_mut();
                if sys::napi_create_double(env, *value, &mut v) == 0 {
                    sys::napi_set_named_property(env, err, name.as_ptr(), v);
                }
            }
            sys::napi_throw(env, err);
            return pending();
        }
    }
    // Could not even build an error object (the environment is shutting down).
    Error::new(Status::GenericFailure, message.to_owned())
}

pub fn type_error(env: sys::napi_env, message: &str) -> Error {
    throw(env, Kind::Type, "ERR_INVALID_ARG_TYPE", message, &[])
}

pub fn range_error(env: sys::napi_env, message: &str) -> Error {
    throw(env, Kind::Range, "ERR_OUT_OF_RANGE", message, &[])
}

/// Turns a failed Node-API status into a thrown error (or keeps the one already pending).
pub fn check(env: sys::napi_env, status: sys::napi_status) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    let mut pending_exc = false;
    unsafe { sys::napi_is_exception_pending(env, &mut pending_exc) };
    if pending_exc {
        return Err(pending());
    }
    Err(throw(
        env,
        Kind::Error,
        "ERR_NAPI",
        &format!("Node-API call failed with status {status}"),
        &[],
    ))
}

pub fn type_of(env: sys::napi_env, value: sys::napi_value) -> Result<sys::napi_valuetype> {
    let mut t = 0;
    check(env, unsafe { sys::napi_typeof(env, value, &mut t) })?;
    Ok(t)
}

/// Room for typical keys on the stack; longer keys go to a reused heap buffer.
const STACK_KEY: usize = 256;

/// Scratch space that a string key is decoded into.
pub struct KeyBuf {
    stack: [u8; STACK_KEY],
    heap: Vec<u8>,
}

impl KeyBuf {
    pub fn new() -> KeyBuf {
        KeyBuf {
            stack: [0; STACK_KEY],
            heap: Vec::new(),
        }
    }
}

/// Whether a byte string came from a JS string (so it goes back as one) or from a `Uint8Array`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    Text,
    Binary,
}

/// The bytes of a key or id: a string's UTF-8, or a `Uint8Array`'s contents.
///
/// `None` when the value is neither; the caller raises the `TypeError` naming the argument.
pub fn bytes(
    env: sys::napi_env,
    value: sys::napi_value,
    buf: &mut KeyBuf,
) -> Result<Option<(&[u8], Form)>> {
    unsafe {
        // Strings first, without a `napi_typeof`: it is the common case, and the call reports
        // `napi_string_expected` for anything else.
        let mut len = 0usize;
        let status = sys::napi_get_value_string_utf8(
            env,
            value,
            buf.stack.as_mut_ptr() as *mut c_char,
            STACK_KEY,
            &mut len,
        );
        if status == sys::Status::napi_string_expected {
            return match type_of(env, value)? {
                T::napi_object => Ok(uint8_array(env, value)?.map(|b| (b, Form::Binary))),
                _ => Ok(None),
            };
        }
        check(env, status)?;
        // V8 writes whole code points only, so a result this far below the capacity cannot have
        // been cut short.
        if len + 4 < STACK_KEY {
            return Ok(Some((&buf.stack[..len], Form::Text)));
        }
        check(
            env,
            sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len),
        )?;
        buf.heap.clear();
        buf.heap.resize(len + 1, 0);
        let mut written = 0usize;
        check(
            env,
            sys::napi_get_value_string_utf8(
                env,
                value,
                buf.heap.as_mut_ptr() as *mut c_char,
                len + 1,
                &mut written,
            ),
        )?;
        Ok(Some((&buf.heap[..written], Form::Text)))
    }
}

/// The contents of a `Uint8Array` (or `Buffer`), borrowed; `None` for any other object.
pub fn uint8_array<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<Option<&'a [u8]>> {
    typed_array(env, value, sys::TypedarrayType::uint8_array)
}

/// The contents of a `Uint32Array`, borrowed; `None` for any other value.
pub fn uint32_array<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<Option<&'a [u32]>> {
    if type_of(env, value)? != T::napi_object {
        return Ok(None);
    }
    typed_array(env, value, sys::TypedarrayType::uint32_array)
}

/// The elements of a typed array of type `expected` (whose elements are `E`), borrowed; `None`
/// for any other value.
fn typed_array<'a, E>(
    env: sys::napi_env,
    value: sys::napi_value,
    expected: sys::napi_typedarray_type,
) -> Result<Option<&'a [E]>> {
    unsafe {
        let mut is_ta = false;
        check(env, sys::napi_is_typedarray(env, value, &mut is_ta))?;
        if !is_ta {
            return Ok(None);
        }
        let mut ty = 0;
        let mut len = 0usize;
        let mut data = ptr::null_mut();
        let mut ab = ptr::null_mut();
        let mut off = 0usize;
        check(
            env,
            sys::napi_get_typedarray_info(
                env, value, &mut ty, &mut len, &mut data, &mut ab, &mut off,
            ),
        )?;
        if ty != expected {
            return Ok(None);
        }
        if len == 0 || data.is_null() {
            return Ok(Some(&[]));
        }
        // The backing store stays put for the duration of this native call: no JS runs in it.
        Ok(Some(std::slice::from_raw_parts(data as *const E, len)))
    }
}

pub fn is_array(env: sys::napi_env, value: sys::napi_value) -> Result<bool> {
    let mut r = false;
    check(env, unsafe { sys::napi_is_array(env, value, &mut r) })?;
    Ok(r)
}

pub fn array_len(env: sys::napi_env, value: sys::napi_value) -> Result<u32> {
    let mut n = 0;
    check(env, unsafe {
        sys::napi_get_array_length(env, value, &mut n)
    })?;
    Ok(n)
}

pub fn element(env: sys::napi_env, array: sys::napi_value, i: u32) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_get_element(env, array, i, &mut v) })?;
    Ok(v)
}

pub fn set_element(
    env: sys::napi_env,
    array: sys::napi_value,
    i: u32,
    v: sys::napi_value,
) -> Result<()> {
    check(env, unsafe { sys::napi_set_element(env, array, i, v) })
}

pub fn new_array(env: sys::napi_env, len: usize) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_array_with_length(env, len, &mut v)
    })?;
    Ok(v)
}

/// `obj[name]`, or `None` when it is `undefined`.
pub fn property(
    env: sys::napi_env,
    obj: sys::napi_value,
    name: &CStr,
) -> Result<Option<sys::napi_value>> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_get_named_property(env, obj, name.as_ptr(), &mut v)
    })?;
    Ok((type_of(env, v)? != T::napi_undefined).then_some(v))
}

pub fn number(env: sys::napi_env, value: sys::napi_value) -> Result<Option<f64>> {
    if type_of(env, value)? != T::napi_number {
        return Ok(None);
    }
    let mut d = 0.0;
    check(env, unsafe {
        sys::napi_get_value_double(env, value, &mut d)
    })?;
    Ok(Some(d))
}

pub fn new_number(env: sys::napi_env, d: f64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_create_double(env, d, &mut v) })?;
    Ok(v)
}

pub fn new_string(env: sys::napi_env, s: &str) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v)
    })?;
    Ok(v)
}

pub fn new_buffer(env: sys::napi_env, bytes: &[u8]) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    let mut data = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_buffer_copy(env, bytes.len(), bytes.as_ptr().cast(), &mut data, &mut v)
    })?;
    Ok(v)
}

pub fn new_bigint(env: sys::napi_env, n: u64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_bigint_uint64(env, n, &mut v)
    })?;
    Ok(v)
}

pub fn set_property(
    env: sys::napi_env,
    obj: sys::napi_value,
    name: &CStr,
    v: sys::napi_value,
) -> Result<()> {
    check(env, unsafe {
        sys::napi_set_named_property(env, obj, name.as_ptr(), v)
    })
}

pub fn new_object(env: sys::napi_env) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_create_object(env, &mut v) })?;
    Ok(v)
}

/// A fresh `Uint32Array` of `len` elements and a pointer to its storage.
pub fn new_u32_array(env: sys::napi_env, len: usize) -> Result<(sys::napi_value, *mut u32)> {
    unsafe {
        let mut data = ptr::null_mut();
        let mut ab = ptr::null_mut();
        check(
            env,
            sys::napi_create_arraybuffer(env, len * 4, &mut data, &mut ab),
        )?;
        let mut ta = ptr::null_mut();
        check(
            env,
            sys::napi_create_typedarray(
                env,
                sys::TypedarrayType::uint32_array,
                len,
                ab,
                0,
                &mut ta,
            ),
        )?;
        Ok((ta, data as *mut u32))
    }
}

/// A `bigint` that fits in 64 unsigned bits; `Some(Err(()))` when it does not.
pub fn bigint_u64(
    env: sys::napi_env,
    value: sys::napi_value,
) -> Result<Option<std::result::Result<u64, ()>>> {
    if type_of(env, value)? != T::napi_bigint {
        return Ok(None);
    }
    let mut n = 0u64;
    let mut lossless = false;
    check(env, unsafe {
        sys::napi_get_value_bigint_uint64(env, value, &mut n, &mut lossless)
    })?;
    Ok(Some(if lossless { Ok(n) } else { Err(()) }))
}
