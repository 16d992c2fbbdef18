//! The few raw Node-API operations the hot paths need.
//!
//! Keys are read straight from V8 into a stack buffer (strings) or borrowed in place
//! (`Uint8Array`), so a lookup allocates nothing; napi-rs's typed conversions would allocate a
//! `String` per call. Every status is checked: a failed call turns into a thrown JS error, never
//! a panic.

#[cfg(not(target_family = "wasm"))]
use std::ffi::c_char;
use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, ValidateNapiValue};
use napi::sys::ValueType as T;
use napi::{sys, Error, Result, Status, ValueType};

/// The environment a helper runs in: napi-rs's `Env`, as a method receives it, or the raw handle
/// the hot paths hold. Both are the same pointer, so neither side converts anything.
pub trait JsEnv: Copy {
    fn raw(self) -> sys::napi_env;
}

impl JsEnv for sys::napi_env {
    #[inline(always)]
    fn raw(self) -> sys::napi_env {
        self
    }
}

impl JsEnv for napi::Env {
    #[inline(always)]
    fn raw(self) -> sys::napi_env {
        napi::Env::raw(&self)
    }
}

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
    env: impl JsEnv,
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
        if sys::napi_create_string_utf8(
            env.raw(),
            code.as_ptr().cast(),
            code.len() as isize,
            &mut code_v,
        ) == 0
            && sys::napi_create_string_utf8(
                env.raw(),
                message.as_ptr().cast(),
                message.len() as isize,
                &mut msg_v,
            ) == 0
            && create(env.raw(), code_v, msg_v, &mut err) == 0
        {
            for (name, value) in props {
                let mut v = ptr::null_mut();
                if sys::napi_create_double(env.raw(), *value, &mut v) == 0 {
                    sys::napi_set_named_property(env.raw(), err, name.as_ptr(), v);
                }
            }
            sys::napi_throw(env.raw(), err);
            return pending();
        }
    }
    // Could not even build an error object (the environment is shutting down).
    Error::new(Status::GenericFailure, message.to_owned())
}

/// A detail of an error: a number, a string, or `null`.
pub enum Detail<'a> {
    Number(f64),
    BigInt(u64),
    Text(&'a str),
    Null,
}

/// `throw` with details that may be strings or `null` (`throw` has numbers only).
pub fn throw_details(
    env: impl JsEnv,
    kind: Kind,
    code: &str,
    message: &str,
    props: &[(&CStr, Detail)],
) -> Error {
    let e = throw(env, kind, code, message, &[]);
    unsafe {
        let mut err = ptr::null_mut();
        // `throw` left the error pending; take it back to add the details, then rethrow it.
        if sys::napi_get_and_clear_last_exception(env.raw(), &mut err) != 0 || err.is_null() {
            return e;
        }
        for (name, value) in props {
            let v = match value {
                Detail::Number(n) => new_number(env, *n),
                Detail::BigInt(n) => new_bigint(env, *n),
                Detail::Text(s) => new_string(env, s),
                Detail::Null => null(env),
            };
            if let Ok(v) = v {
                sys::napi_set_named_property(env.raw(), err, name.as_ptr(), v);
            }
        }
        sys::napi_throw(env.raw(), err);
    }
    pending()
}

/// `InvalidArgument`: a value of the wrong type or shape.
pub fn type_error(env: impl JsEnv, message: &str) -> Error {
    throw(env, Kind::Type, "ERR_INVALID_ARG_TYPE", message, &[])
}

/// `InvalidArgument` for element `index` of a list.
pub fn type_error_at(env: impl JsEnv, message: &str, index: usize) -> Error {
    throw(
        env,
        Kind::Type,
        "ERR_INVALID_ARG_TYPE",
        message,
        &[(c"index", index as f64)],
    )
}

/// How a value that was not accepted looks, for messages: its type, and its value when short.
pub fn describe(env: impl JsEnv, value: sys::napi_value) -> String {
    let Ok(t) = type_of(env, value) else {
        return "a value".into();
    };
    match t {
        T::napi_undefined => "undefined".into(),
        T::napi_null => "null".into(),
        T::napi_boolean => {
            let mut b = false;
            unsafe { sys::napi_get_value_bool(env.raw(), value, &mut b) };
            format!("the boolean {b}")
        }
        T::napi_number => {
            let mut d = 0.0;
            unsafe { sys::napi_get_value_double(env.raw(), value, &mut d) };
            format!("the number {}", number_text(d))
        }
        T::napi_string => {
            let mut buf = KeyBuf::new();
            match bytes(env, value, &mut buf) {
                Ok(Bytes::Ok(b, _)) if b.len() <= 40 => {
                    format!("the string {:?}", String::from_utf8_lossy(b))
                }
                _ => "a string".into(),
            }
        }
        T::napi_symbol => "a symbol".into(),
        T::napi_bigint => "a bigint".into(),
        T::napi_function => "a function".into(),
        _ => match is_array(env, value) {
            Ok(true) => "an array".into(),
            _ => match uint8_array(env, value) {
                Ok(View::Detached) => "a Uint8Array whose buffer is detached".into(),
                _ => "an object".into(),
            },
        },
    }
}

/// A number as JavaScript prints it (`String(d)`), for messages.
pub fn number_text(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if d != 0.0 && (d.abs() < 1e-6 || d.abs() >= 1e21) {
        let e = format!("{d:e}");
        if e.contains("e-") {
            e
        } else {
            e.replace('e', "e+")
        }
    } else {
        // Rust's shortest round-trip form, like JavaScript's, without ".0" on integers.
        format!("{d}")
    }
}

/// Turns a failed Node-API status into a thrown error (or keeps the one already pending).
pub fn check(env: impl JsEnv, status: sys::napi_status) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    let mut pending_exc = false;
    unsafe { sys::napi_is_exception_pending(env.raw(), &mut pending_exc) };
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

pub fn type_of(env: impl JsEnv, value: sys::napi_value) -> Result<sys::napi_valuetype> {
    let mut t = 0;
    check(env, unsafe { sys::napi_typeof(env.raw(), value, &mut t) })?;
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

/// What a value given as a key, id or domain turned out to be.
pub enum Bytes<'a> {
    /// A string's UTF-8, or a `Uint8Array`'s contents.
    Ok(&'a [u8], Form),
    /// A string holding a lone surrogate: code unit `unit` at UTF-16 position `at`. It has no UTF-8
    /// form (Node-API would have written U+FFFD in its place).
    IllFormed { at: usize, unit: u16 },
    /// A `Uint8Array` whose `ArrayBuffer` was detached (transferred): not an empty key.
    Detached,
    /// Neither a string nor a `Uint8Array`.
    Other,
}

/// The bytes of a key or id: a string's UTF-8, or a `Uint8Array`'s contents.
pub fn bytes<'a>(
    env: impl JsEnv,
    value: sys::napi_value,
    buf: &'a mut KeyBuf,
) -> Result<Bytes<'a>> {
    #[cfg(target_family = "wasm")]
    return wasm::bytes(env, value, buf);
    #[cfg(not(target_family = "wasm"))]
    unsafe {
        // Strings first, without a `napi_typeof`: it is the common case, and the call reports
        // `napi_string_expected` for anything else.
        let mut len = 0usize;
        let status = sys::napi_get_value_string_utf8(
            env.raw(),
            value,
            buf.stack.as_mut_ptr() as *mut c_char,
            STACK_KEY,
            &mut len,
        );
        if status == sys::Status::napi_string_expected {
            return not_string(env, value);
        }
        check(env, status)?;
        // V8 writes whole code points only, so a result this far below the capacity cannot have
        // been cut short.
        let text = if len + 4 < STACK_KEY {
            &buf.stack[..len]
        } else {
            check(
                env,
                sys::napi_get_value_string_utf8(env.raw(), value, ptr::null_mut(), 0, &mut len),
            )?;
            buf.heap.clear();
            buf.heap.resize(len + 1, 0);
            let mut written = 0usize;
            check(
                env,
                sys::napi_get_value_string_utf8(
                    env.raw(),
                    value,
                    buf.heap.as_mut_ptr() as *mut c_char,
                    len + 1,
                    &mut written,
                ),
            )?;
            &buf.heap[..written]
        };
        // Node-API writes U+FFFD for a lone surrogate, so only a string whose UTF-8 holds U+FFFD
        // (rare, and found with a memchr for its first byte) is read again as UTF-16 to tell a
        // lone surrogate from a U+FFFD the caller wrote.
        if text.contains(&0xEF) && text.windows(3).any(|w| w == "\u{FFFD}".as_bytes()) {
            if let Some((at, unit)) = lone_surrogate(env, value)? {
                return Ok(Bytes::IllFormed { at, unit });
            }
        }
        Ok(Bytes::Ok(text, Form::Text))
    }
}

/// The bytes of a key or id that is not a string.
#[inline]
fn not_string<'a>(env: impl JsEnv, value: sys::napi_value) -> Result<Bytes<'a>> {
    match type_of(env, value)? {
        T::napi_object => Ok(match uint8_array(env, value)? {
            View::Elements(b) => Bytes::Ok(b, Form::Binary),
            View::Detached => Bytes::Detached,
            View::Other => Bytes::Other,
        }),
        _ => Ok(Bytes::Other),
    }
}

/// Strings and typed arrays under WebAssembly (emnapi), where the Node-API calls are JavaScript
/// over the module's memory.
#[cfg(target_family = "wasm")]
mod wasm {
    use super::*;

    /// A string is read as UTF-16 and encoded here: emnapi's UTF-8 encoder turns a lone
    /// surrogate and the unit after it into four bytes of no meaning, where V8 writes U+FFFD.
    pub(super) fn bytes<'a>(
        env: impl JsEnv,
        value: sys::napi_value,
        buf: &'a mut KeyBuf,
    ) -> Result<Bytes<'a>> {
        let mut stack = [0u16; STACK_KEY];
        let mut heap = Vec::new();
        let mut written = 0usize;
        let status = unsafe {
            sys::napi_get_value_string_utf16(
                env.raw(),
                value,
                stack.as_mut_ptr(),
                STACK_KEY,
                &mut written,
            )
        };
        if status == sys::Status::napi_string_expected {
            return not_string(env, value);
        }
        check(env, status)?;
        // The call leaves room for a terminating unit, so a string that fills the rest may
        // have been cut short.
        let units = if written + 1 < STACK_KEY {
            &stack[..written]
        } else {
            let mut len = 0usize;
            check(env, unsafe {
                sys::napi_get_value_string_utf16(env.raw(), value, ptr::null_mut(), 0, &mut len)
            })?;
            heap.resize(len + 1, 0);
            check(env, unsafe {
                sys::napi_get_value_string_utf16(
                    env.raw(),
                    value,
                    heap.as_mut_ptr(),
                    heap.len(),
                    &mut written,
                )
            })?;
            &heap[..written]
        };
        // A UTF-16 unit takes at most three UTF-8 bytes.
        let out: &mut [u8] = if units.len() * 3 <= STACK_KEY {
            &mut buf.stack[..]
        } else {
            buf.heap.clear();
            buf.heap.resize(units.len() * 3, 0);
            &mut buf.heap[..]
        };
        let (mut at, mut n) = (0, 0);
        for r in char::decode_utf16(units.iter().copied()) {
            match r {
                Ok(c) => {
                    n += c.encode_utf8(&mut out[n..]).len();
                    at += c.len_utf16();
                }
                Err(e) => {
                    return Ok(Bytes::IllFormed {
                        at,
                        unit: e.unpaired_surrogate(),
                    })
                }
            }
        }
        Ok(Bytes::Ok(&out[..n], Form::Text))
    }
}

/// The first lone surrogate of a string, as (UTF-16 position, code unit).
#[cfg_attr(target_family = "wasm", allow(dead_code))]
#[cold]
#[inline(never)]
fn lone_surrogate(env: impl JsEnv, value: sys::napi_value) -> Result<Option<(usize, u16)>> {
    let mut len = 0usize;
    check(env, unsafe {
        sys::napi_get_value_string_utf16(env.raw(), value, ptr::null_mut(), 0, &mut len)
    })?;
    // Keys that fit the inline UTF-8 buffer fit this one too (a UTF-16 unit is never shorter).
    let mut stack = [0u16; STACK_KEY];
    let mut heap = Vec::new();
    let units = if len < STACK_KEY {
        &mut stack[..]
    } else {
        heap.resize(len + 1, 0);
        &mut heap[..]
    };
    let mut written = 0usize;
    check(env, unsafe {
        sys::napi_get_value_string_utf16(
            env.raw(),
            value,
            units.as_mut_ptr(),
            units.len(),
            &mut written,
        )
    })?;
    let mut at = 0;
    for r in char::decode_utf16(units[..written].iter().copied()) {
        match r {
            Ok(c) => at += c.len_utf16(),
            Err(e) => return Ok(Some((at, e.unpaired_surrogate()))),
        }
    }
    Ok(None)
}

/// A typed array's elements, borrowed.
pub enum View<'a, E> {
    Elements(&'a [E]),
    /// A view of a detached `ArrayBuffer`.
    Detached,
    /// Not a typed array of the expected element type.
    Other,
}

/// The contents of a `Uint8Array` (or `Buffer`).
pub fn uint8_array<'a>(env: impl JsEnv, value: sys::napi_value) -> Result<View<'a, u8>> {
    typed_array(env, value, sys::TypedarrayType::uint8_array)
}

/// The contents of a `Uint32Array`.
pub fn uint32_array<'a>(env: impl JsEnv, value: sys::napi_value) -> Result<View<'a, u32>> {
    if type_of(env, value)? != T::napi_object {
        return Ok(View::Other);
    }
    typed_array(env, value, sys::TypedarrayType::uint32_array)
}

/// The contents of an `Int32Array`.
pub fn int32_array<'a>(env: impl JsEnv, value: sys::napi_value) -> Result<View<'a, i32>> {
    if type_of(env, value)? != T::napi_object {
        return Ok(View::Other);
    }
    typed_array(env, value, sys::TypedarrayType::int32_array)
}

/// The elements of a typed array of type `expected` (whose elements are `E`), borrowed.
fn typed_array<'a, E>(
    env: impl JsEnv,
    value: sys::napi_value,
    expected: sys::napi_typedarray_type,
) -> Result<View<'a, E>> {
    unsafe {
        let mut is_ta = false;
        check(env, sys::napi_is_typedarray(env.raw(), value, &mut is_ta))?;
        if !is_ta {
            return Ok(View::Other);
        }
        let mut ty = 0;
        let mut len = 0usize;
        let mut data = ptr::null_mut();
        let mut ab = ptr::null_mut();
        let mut off = 0usize;
        check(
            env,
            sys::napi_get_typedarray_info(
                env.raw(),
                value,
                &mut ty,
                &mut len,
                &mut data,
                &mut ab,
                &mut off,
            ),
        )?;
        if ty != expected {
            return Ok(View::Other);
        }
        if len == 0 || data.is_null() {
            // A detached buffer reads as empty; only then is it worth asking.
            let mut detached = false;
            check(
                env,
                sys::napi_is_detached_arraybuffer(env.raw(), ab, &mut detached),
            )?;
            return Ok(if detached {
                View::Detached
            } else {
                View::Elements(&[])
            });
        }
        // The backing store stays put for the duration of this native call: no JS runs in it.
        Ok(View::Elements(std::slice::from_raw_parts(
            data as *const E,
            len,
        )))
    }
}

pub fn is_array(env: impl JsEnv, value: sys::napi_value) -> Result<bool> {
    let mut r = false;
    check(env, unsafe { sys::napi_is_array(env.raw(), value, &mut r) })?;
    Ok(r)
}

pub fn array_len(env: impl JsEnv, value: sys::napi_value) -> Result<u32> {
    let mut n = 0;
    check(env, unsafe {
        sys::napi_get_array_length(env.raw(), value, &mut n)
    })?;
    Ok(n)
}

pub fn element(env: impl JsEnv, array: sys::napi_value, i: u32) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_get_element(env.raw(), array, i, &mut v)
    })?;
    Ok(v)
}

pub fn set_element(
    env: impl JsEnv,
    array: sys::napi_value,
    i: u32,
    v: sys::napi_value,
) -> Result<()> {
    check(env, unsafe {
        sys::napi_set_element(env.raw(), array, i, v)
    })
}

pub fn new_array(env: impl JsEnv, len: usize) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_array_with_length(env.raw(), len, &mut v)
    })?;
    Ok(v)
}

/// `obj[name]`, or `None` when it is `undefined`.
pub fn property(
    env: impl JsEnv,
    obj: sys::napi_value,
    name: &CStr,
) -> Result<Option<sys::napi_value>> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_get_named_property(env.raw(), obj, name.as_ptr(), &mut v)
    })?;
    Ok((type_of(env, v)? != T::napi_undefined).then_some(v))
}

pub fn number(env: impl JsEnv, value: sys::napi_value) -> Result<Option<f64>> {
    if type_of(env, value)? != T::napi_number {
        return Ok(None);
    }
    let mut d = 0.0;
    check(env, unsafe {
        sys::napi_get_value_double(env.raw(), value, &mut d)
    })?;
    Ok(Some(d))
}

pub fn new_number(env: impl JsEnv, d: f64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_double(env.raw(), d, &mut v)
    })?;
    Ok(v)
}

pub fn new_string(env: impl JsEnv, s: &str) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_string_utf8(env.raw(), s.as_ptr().cast(), s.len() as isize, &mut v)
    })?;
    Ok(v)
}

pub fn new_buffer(env: impl JsEnv, bytes: &[u8]) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    let mut data = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_buffer_copy(
            env.raw(),
            bytes.len(),
            bytes.as_ptr().cast(),
            &mut data,
            &mut v,
        )
    })?;
    Ok(v)
}

pub fn new_bigint(env: impl JsEnv, n: u64) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe {
        sys::napi_create_bigint_uint64(env.raw(), n, &mut v)
    })?;
    Ok(v)
}

pub fn set_property(
    env: impl JsEnv,
    obj: sys::napi_value,
    name: &CStr,
    v: sys::napi_value,
) -> Result<()> {
    check(env, unsafe {
        sys::napi_set_named_property(env.raw(), obj, name.as_ptr(), v)
    })
}

pub fn new_object(env: impl JsEnv) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_create_object(env.raw(), &mut v) })?;
    Ok(v)
}

/// A fresh `Uint32Array` of `len` elements and a pointer to its storage.
pub fn new_u32_array(env: impl JsEnv, len: usize) -> Result<(sys::napi_value, *mut u32)> {
    unsafe {
        let mut data = ptr::null_mut();
        let mut ab = ptr::null_mut();
        check(
            env,
            sys::napi_create_arraybuffer(env.raw(), len * 4, &mut data, &mut ab),
        )?;
        let mut ta = ptr::null_mut();
        check(
            env,
            sys::napi_create_typedarray(
                env.raw(),
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

/// Copies the first `bytes` bytes that native code wrote into the storage of `array` (a typed
/// array made by `new_u32_array`) to JavaScript: emnapi's storage is a copy in the module's
/// memory.
#[cfg(target_family = "wasm")]
pub fn flush(env: impl JsEnv, mut array: sys::napi_value, bytes: usize) -> Result<()> {
    extern "C" {
        fn emnapi_sync_memory(
            env: sys::napi_env,
            js_to_wasm: bool,
            arraybuffer_or_view: *mut sys::napi_value,
            byte_offset: usize,
            length: usize,
        ) -> sys::napi_status;
    }
    // emnapi throws for an empty buffer, which has no copy.
    if bytes == 0 {
        return Ok(());
    }
    check(env, unsafe {
        emnapi_sync_memory(env.raw(), false, &mut array, 0, bytes)
    })
}

/// A `bigint` that fits in 64 unsigned bits; `Some(Err(()))` when it does not.
pub fn bigint_u64(
    env: impl JsEnv,
    value: sys::napi_value,
) -> Result<Option<std::result::Result<u64, ()>>> {
    if type_of(env, value)? != T::napi_bigint {
        return Ok(None);
    }
    let mut n = 0u64;
    let mut lossless = false;
    check(env, unsafe {
        sys::napi_get_value_bigint_uint64(env.raw(), value, &mut n, &mut lossless)
    })?;
    Ok(Some(if lossless { Ok(n) } else { Err(()) }))
}

/// The own enumerable string-keyed property names of `obj`.
pub fn own_keys(env: impl JsEnv, obj: sys::napi_value) -> Result<Vec<String>> {
    let mut names = ptr::null_mut();
    check(env, unsafe {
        sys::napi_get_all_property_names(
            env.raw(),
            obj,
            sys::KeyCollectionMode::own_only,
            sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
            sys::KeyConversion::numbers_to_strings,
            &mut names,
        )
    })?;
    let n = array_len(env, names)?;
    let mut out = Vec::new();
    let mut buf = KeyBuf::new();
    for i in 0..n {
        let name = element(env, names, i)?;
        if let Bytes::Ok(b, _) = bytes(env, name, &mut buf)? {
            out.push(String::from_utf8_lossy(b).into_owned());
        }
    }
    Ok(out)
}

/// `value`, a list named `name` in messages, checked to be an array of `what`.
pub fn array(env: impl JsEnv, value: sys::napi_value, name: &str, what: &str) -> Result<()> {
    if is_array(env, value)? {
        return Ok(());
    }
    Err(type_error(
        env,
        &format!("{name} is {}, not an array of {what}", describe(env, value)),
    ))
}

/// An options argument: `None` when absent, `null` or `undefined`; else it must be an object
/// (not an array) of the `shape` a message shows.
pub fn options(
    env: impl JsEnv,
    options: Option<Raw>,
    shape: &str,
) -> Result<Option<sys::napi_value>> {
    let Some(Raw(opts)) = options else {
        return Ok(None);
    };
    if is_null_or_undefined(env, opts)? {
        return Ok(None);
    }
    if type_of(env, opts)? != T::napi_object || is_array(env, opts)? {
        return Err(type_error(
            env,
            &format!("options is {}, not an object {shape}", describe(env, opts)),
        ));
    }
    Ok(Some(opts))
}

/// A `TypeError` for the first member of `opts` not in `known`; `of` says what takes which.
pub fn only_options(
    env: impl JsEnv,
    opts: sys::napi_value,
    known: &[&str],
    of: &str,
) -> Result<()> {
    match own_keys(env, opts)?
        .into_iter()
        .find(|k| !known.contains(&k.as_str()))
    {
        Some(name) => Err(type_error(
            env,
            &format!("options.{name} is not an option of {of}"),
        )),
        None => Ok(()),
    }
}

pub fn is_null_or_undefined(env: impl JsEnv, value: sys::napi_value) -> Result<bool> {
    Ok(matches!(
        type_of(env, value)?,
        T::napi_undefined | T::napi_null
    ))
}

/// The bytes the V8 heap can still grow by (`v8.getHeapStatistics().total_available_size`), or
/// `None` when this Node cannot say (no `process.getBuiltinModule` before Node 20.16).
pub fn heap_available(env: impl JsEnv) -> Option<f64> {
    let found = (|| -> Result<Option<f64>> {
        let mut global = ptr::null_mut();
        check(env, unsafe { sys::napi_get_global(env.raw(), &mut global) })?;
        let Some(process) = property(env, global, c"process")? else {
            return Ok(None);
        };
        let Some(get) = property(env, process, c"getBuiltinModule")? else {
            return Ok(None);
        };
        let name = new_string(env, "v8")?;
        let v8 = call_function(env, process, get, &[name])?;
        let Some(stats_fn) = property(env, v8, c"getHeapStatistics")? else {
            return Ok(None);
        };
        let stats = call_function(env, v8, stats_fn, &[])?;
        match property(env, stats, c"total_available_size")? {
            Some(v) => number(env, v),
            None => Ok(None),
        }
    })();
    match found {
        Ok(n) => n,
        Err(_) => {
            // Not knowing only skips this check; the caller's call goes on.
            let mut exc = ptr::null_mut();
            unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut exc) };
            None
        }
    }
}

fn call_function(
    env: impl JsEnv,
    this: sys::napi_value,
    f: sys::napi_value,
    args: &[sys::napi_value],
) -> Result<sys::napi_value> {
    if type_of(env, f)? != T::napi_function {
        return Err(Error::new(Status::FunctionExpected, String::new()));
    }
    let mut out = ptr::null_mut();
    check(env, unsafe {
        sys::napi_call_function(env.raw(), this, f, args.len(), args.as_ptr(), &mut out)
    })?;
    Ok(out)
}

pub fn null(env: impl JsEnv) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_get_null(env.raw(), &mut v) })?;
    Ok(v)
}

pub fn new_bool(env: impl JsEnv, b: bool) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(env, unsafe { sys::napi_get_boolean(env.raw(), b, &mut v) })?;
    Ok(v)
}

/// The `message` of a thrown value when it has a string one, else its description: for errors a
/// callback threw, recorded rather than rethrown.
pub fn error_message(env: impl JsEnv, thrown: sys::napi_value) -> String {
    if matches!(type_of(env, thrown), Ok(T::napi_object)) {
        if let Ok(Some(m)) = property(env, thrown, c"message") {
            if matches!(type_of(env, m), Ok(T::napi_string)) {
                let mut len = 0usize;
                let ok = unsafe {
                    sys::napi_get_value_string_utf8(env.raw(), m, ptr::null_mut(), 0, &mut len)
                } == sys::Status::napi_ok;
                if ok {
                    let mut buf = vec![0u8; len + 1];
                    let mut written = 0usize;
                    unsafe {
                        sys::napi_get_value_string_utf8(
                            env.raw(),
                            m,
                            buf.as_mut_ptr().cast(),
                            buf.len(),
                            &mut written,
                        )
                    };
                    buf.truncate(written);
                    return String::from_utf8_lossy(&buf).into_owned();
                }
            }
        }
    }
    describe(env, thrown)
}
