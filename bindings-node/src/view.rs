//! Views, transitions and ramps (conformance/VIEW.md): `View`, `Transition`, `Plan` and
//! `RampPlan`, thin over the core's types of the same names.
//!
//! Ids come back as a string when the id was given as one (a view's ids are strings when they are
//! UTF-8, since the JSON form writes them so) and as a fresh `Buffer` otherwise.
use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use hrwhash::{Error, Lookup, Seed};
#[cfg(not(target_family = "wasm"))]
use napi::bindgen_prelude::validate_type_tag;
#[cfg(target_family = "wasm")]
use napi::bindgen_prelude::FromNapiValue;
use napi::bindgen_prelude::{ObjectFinalize, ToNapiValue, TypeTag};
use napi::sys::ValueType as T;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, Form, JsEnv, KeyBuf, Kind, Raw};
use crate::profile::ProfilePlacement;
use crate::{
    core_error, count_of, key_and_count, key_of, no_bad_text, optional, read, seed_arg, seed_of,
    NodeForm, Parsed, Placement,
};

/// The JS value of an id given in `form`.
pub(crate) fn id_value(env: impl JsEnv, id: &[u8], form: Form) -> Result<sys::napi_value> {
    match (form, std::str::from_utf8(id)) {
        (Form::Text, Ok(text)) => js::new_string(env, text),
        _ => js::new_buffer(env, id),
    }
}

/// The form a view's ids and domains come back in: text when they are UTF-8.
pub(crate) fn text_form(bytes: &[u8]) -> Form {
    if std::str::from_utf8(bytes).is_ok() {
        Form::Text
    } else {
        Form::Binary
    }
}

/// How a view's node comes back: its id and domain as text when they are UTF-8.
pub(crate) fn view_form(node: &hrwhash::Node) -> NodeForm {
    NodeForm {
        id: text_form(node.id()),
        domain: node.domain().map(text_form),
    }
}

/// `value` as an instance of the class `C`, or `None` when it is something else. The type tag is
/// checked as napi-rs checks a `&C` argument; the borrow is only used within the current call.
pub(crate) fn instance<C: TypeTag + 'static>(env: impl JsEnv, value: Raw) -> Option<&'static C> {
    if !matches!(js::type_of(env, value.0), Ok(T::napi_object)) {
        return None;
    }
    let mut wrapped = ptr::null_mut();
    unsafe {
        if sys::napi_unwrap(env.raw(), value.0, &mut wrapped) != sys::Status::napi_ok
            || wrapped.is_null()
        {
            // A failed unwrap leaves no exception pending, but be sure the next throw is ours.
            let mut ignored = ptr::null_mut();
            sys::napi_get_and_clear_last_exception(env.raw(), &mut ignored);
            return None;
        }
        #[cfg(not(target_family = "wasm"))]
        validate_type_tag(env.raw(), value.0, &C::type_tag(), "").ok()?;
        // napi-rs checks no type tag under WebAssembly (`validate_type_tag` accepts anything
        // there): a `ClassInstance` checks the class it recorded when it wrapped the object.
        #[cfg(target_family = "wasm")]
        napi::bindgen_prelude::ClassInstance::<C>::from_napi_value(env.raw(), value.0).ok()?;
        Some(&*(wrapped as *const C))
    }
}

pub(crate) fn view_arg(env: impl JsEnv, value: Raw, what: &str) -> Result<&'static View> {
    instance::<View>(env, value).ok_or_else(|| {
        js::type_error(
            env,
            &format!("{what} is {}, not a View", js::describe(env, value.0)),
        )
    })
}

/// A membership given as a `View` or a `Placement`, with the form of each id.
pub(crate) fn membership(
    env: impl JsEnv,
    value: Raw,
    what: &str,
) -> Result<(hrwhash::Placement, Vec<NodeForm>)> {
    if let Some(v) = instance::<View>(env, value) {
        let p = v.inner.placement().clone();
        let forms = p.node_specs().iter().map(view_form).collect();
        return Ok((p, forms));
    }
    if let Some(p) = instance::<Placement>(env, value) {
        return Ok((p.inner.clone(), p.forms.clone()));
    }
    Err(js::type_error(
        env,
        &format!(
            "{what} is {}, not a View or a Placement",
            js::describe(env, value.0)
        ),
    ))
}

/// An epoch: a `bigint` from 0 to 2^64 - 1 or a safe integer `number`.
pub(crate) fn epoch_arg(env: impl JsEnv, value: Raw) -> Result<u64> {
    match js::bigint_u64(env, value.0)? {
        Some(Ok(e)) => return Ok(e),
        Some(Err(())) => {
            return Err(js::throw(
                env,
                Kind::Range,
                "HRW_INVALID_COUNT",
                "epoch is a bigint outside 0 to 2^64 - 1",
                &[],
            ))
        }
        None => {}
    }
    Ok(count_of(env, value, "epoch")? as u64)
}

/// Parses a document given as a string or its UTF-8 bytes, with the seed of `options`: the text
/// is read first, so a wrong type of text is reported before a bad seed.
pub(crate) fn load_document<T>(
    env: impl JsEnv,
    text: Raw,
    options: Option<Raw>,
    parse: impl FnOnce(&[u8], Seed) -> core::result::Result<T, hrwhash::Error>,
) -> Result<T> {
    let mut buf = KeyBuf::new();
    let mut bad = None;
    let (bytes, _) = read(env, text.0, &mut buf, &|| "text".to_owned(), None, &mut bad)?;
    let seed = load_seed(env, options)?;
    no_bad_text(env, bad)?;
    parse(bytes, seed).map_err(|e| core_error(env, e))
}

/// The seed of `{ seed? }`, the options of `View.fromJson` and `View.fromFile`.
pub(crate) fn load_seed(env: impl JsEnv, options: Option<Raw>) -> Result<Seed> {
    let Some(opts) = js::options(env, options, "{ seed? }")? else {
        return Ok(Seed::DEFAULT);
    };
    let seed = match optional(env, opts, c"seed")? {
        Some(s) => Some(seed_arg(env, s, "options.seed")?),
        None => None,
    };
    js::only_options(env, opts, &["seed"], "a view load (it has seed)")?;
    seed_of(env, seed)
}

/// `p` as a new JS `Placement`, its nodes in `forms` (by default as a view gives them).
pub(crate) fn placement_value(
    env: impl JsEnv,
    p: &hrwhash::Placement,
    forms: Option<&[NodeForm]>,
) -> Result<Raw> {
    let parsed = p
        .node_specs()
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let form = forms.map_or_else(|| view_form(node), |f| f[i]);
            Ok(Parsed {
                node: node.clone(),
                form,
                id_value: match form.id {
                    Form::Text => Some(id_value(env, node.id(), form.id)?),
                    Form::Binary => None,
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let placement = Placement::build(env, p.seed(), parsed)?;
    Ok(Raw(unsafe {
        Placement::to_napi_value(env.raw(), placement)?
    }))
}

/// A membership with its epoch and seed identity: the document every client of one cluster loads
/// (conformance/VIEW.md).
#[napi]
pub struct View {
    pub(crate) inner: hrwhash::View,
}

#[napi]
impl View {
    /// A view of `placement` at `epoch` (a bigint or a safe integer).
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement<Id>, epoch: bigint | number"
    )]
    pub fn new(env: Env, placement: Raw, epoch: Raw) -> Result<View> {
        let p = instance::<Placement>(env, placement).ok_or_else(|| {
            js::type_error(
                env,
                &format!(
                    "placement is {}, not a Placement",
                    js::describe(env, placement.0)
                ),
            )
        })?;
        let epoch = epoch_arg(env, epoch)?;
        let inner = hrwhash::View::new(p.inner.clone(), epoch).map_err(|e| core_error(env, e))?;
        Ok(View { inner })
    }

    /// Loads a view document (a string, or its UTF-8 bytes). A view written for a secret seed
    /// needs `options.seed`; a wrong seed is `HRW_SEED_MISMATCH`. Bytes (a `Buffer` such as
    /// `fs.readFileSync(path)`) are parsed where they are; a string is first copied as UTF-8, as
    /// Node-API lends no string's contents, so a large document costs one copy less as bytes or
    /// through `fromFile`.
    #[napi(
        factory,
        catch_unwind,
        ts_generic_types = "Id extends NodeId = NodeId",
        ts_args_type = "text: string | Uint8Array, options?: ViewLoadOptions | null",
        ts_return_type = "View<Id>"
    )]
    pub fn from_json(env: Env, text: Raw, options: Option<Raw>) -> Result<View> {
        let inner = load_document(env, text, options, hrwhash::View::from_json_bytes)?;
        Ok(View { inner })
    }

    /// Loads the view document in the file at `path` (a string, or a `Buffer` of the name's bytes,
    /// as `fs` takes). A file that cannot be read throws an
    /// `Error` whose `code` is the system's (`ENOENT`, `EACCES`, `EISDIR`, else `EIO`). At most
    /// 1 GiB is read (`HRW_RESULT_TOO_LARGE` past it), and no further than the first control
    /// byte, so an endless stream such as `/dev/zero` fails at once with `HRW_INVALID_JSON`.
    #[napi(
        factory,
        catch_unwind,
        ts_generic_types = "Id extends NodeId = NodeId",
        ts_args_type = "path: string | Uint8Array, options?: ViewLoadOptions | null",
        ts_return_type = "View<Id>"
    )]
    pub fn from_file(env: Env, path: Raw, options: Option<Raw>) -> Result<View> {
        let mut buf = KeyBuf::new();
        let path = key_of(env, path, &mut buf, "path")?;
        // A Buffer path is the file name's bytes, as for `fs`: on Linux a name need not be UTF-8.
        #[cfg(unix)]
        let path = std::path::PathBuf::from(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path),
        );
        // WASI names files by UTF-8 strings, so no other name can be reached there; read as
        // U+FFFD, the bytes would name another file.
        #[cfg(target_os = "wasi")]
        let path = match std::str::from_utf8(path) {
            Ok(p) => std::path::PathBuf::from(p),
            Err(_) => {
                let name = String::from_utf8_lossy(path);
                let message =
                    format!("cannot read the view file {name}: WASI file names are UTF-8");
                return Err(js::throw(env, Kind::Error, "EINVAL", &message, &[]));
            }
        };
        #[cfg(not(any(unix, target_os = "wasi")))]
        let path = std::path::PathBuf::from(String::from_utf8_lossy(path).into_owned());
        let seed = load_seed(env, options)?;
        let read = std::fs::File::open(&path).and_then(hrwhash::view::read_document);
        let bytes = read.map_err(|e| {
            use std::io::ErrorKind as K;
            let code = match e.kind() {
                K::NotFound => "ENOENT",
                K::PermissionDenied => "EACCES",
                K::IsADirectory => "EISDIR",
                // A path holding a NUL byte names no file (the C ABI's HRW_STATUS_IO).
                K::InvalidInput => "EINVAL",
                _ => "EIO",
            };
            js::throw(
                env,
                Kind::Error,
                code,
                &format!("cannot read the view file {}: {e}", path.display()),
                &[],
            )
        })?;
        let bytes = bytes.map_err(|e| core_error(env, e))?;
        let inner = hrwhash::View::from_json_bytes(&bytes, seed).map_err(|e| core_error(env, e))?;
        Ok(View { inner })
    }

    /// The canonical JSON form (VIEW.md section 3), ending in a newline. A secret seed is never
    /// written: only its fingerprint.
    #[napi(catch_unwind)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The same membership at another epoch.
    #[napi(
        catch_unwind,
        ts_args_type = "epoch: bigint | number",
        ts_return_type = "View<Id>"
    )]
    pub fn with_epoch(&self, env: Env, epoch: Raw) -> Result<View> {
        let epoch = epoch_arg(env, epoch)?;
        Ok(View {
            inner: self.inner.with_epoch(epoch),
        })
    }

    /// The membership, as a new `Placement` (ids and domains are strings when they are UTF-8).
    #[napi(getter, catch_unwind, ts_return_type = "Placement<ViewIdOf<Id>>")]
    pub fn placement(&self, env: Env) -> Result<Raw> {
        placement_value(env, self.inner.placement(), None)
    }

    /// The epoch, as an unsigned 64-bit BigInt.
    #[napi(getter, catch_unwind, ts_return_type = "bigint")]
    pub fn epoch(&self, env: Env) -> Result<Raw> {
        Ok(Raw(js::new_bigint(env, self.inner.epoch())?))
    }

    /// The view fingerprint (32 hex digits): equal exactly when two views place every key alike,
    /// whatever their node order or epoch.
    #[napi(getter, catch_unwind)]
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_hex()
    }

    /// The seed fingerprint (16 hex digits), as written in the view.
    #[napi(getter, catch_unwind)]
    pub fn seed_fingerprint(&self) -> String {
        self.inner.seed_fingerprint().to_hex()
    }

    /// Whether the view uses the public default seed.
    #[napi(getter, catch_unwind)]
    pub fn has_default_seed(&self) -> bool {
        self.inner.has_default_seed()
    }
}

/// The iterator of a JS iterable (`TypeError` for anything else, and for a string, whose
/// characters are not meant as keys), with its `next` method.
fn iterator(
    env: impl JsEnv,
    iterable: sys::napi_value,
) -> Result<(sys::napi_value, sys::napi_value)> {
    let not_iterable = || {
        js::type_error(
            env,
            &format!(
                "keys is {}, not an iterable of keys",
                js::describe(env, iterable)
            ),
        )
    };
    if !matches!(
        js::type_of(env, iterable)?,
        T::napi_object | T::napi_function
    ) {
        return Err(not_iterable());
    }
    let symbol = iterator_symbol(env)?;
    let mut method = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_get_property(env.raw(), iterable, symbol, &mut method)
    })?;
    if js::type_of(env, method)? != T::napi_function {
        return Err(not_iterable());
    }
    let mut it = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_call_function(env.raw(), iterable, method, 0, ptr::null(), &mut it)
    })?;
    let next = match js::type_of(env, it)? {
        T::napi_object => js::property(env, it, c"next")?,
        _ => None,
    };
    match next {
        Some(next) if js::type_of(env, next)? == T::napi_function => Ok((it, next)),
        _ => Err(js::type_error(
            env,
            "keys[Symbol.iterator]() did not return an iterator",
        )),
    }
}

fn iterator_symbol(env: impl JsEnv) -> Result<sys::napi_value> {
    let mut global = ptr::null_mut();
    js::check(env, unsafe { sys::napi_get_global(env.raw(), &mut global) })?;
    let missing = || napi::Error::from_reason("hrwhash: no Symbol.iterator");
    let symbol = js::property(env, global, c"Symbol")?.ok_or_else(missing)?;
    js::property(env, symbol, c"iterator")?.ok_or_else(missing)
}

/// The next value of an iterator, or `None` once it is done.
fn step(
    env: impl JsEnv,
    it: sys::napi_value,
    next: sys::napi_value,
) -> Result<Option<sys::napi_value>> {
    let mut result = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_call_function(env.raw(), it, next, 0, ptr::null(), &mut result)
    })?;
    if js::type_of(env, result)? != T::napi_object {
        return Err(js::type_error(
            env,
            "the keys iterator's next() did not return an object",
        ));
    }
    let done = match js::property(env, result, c"done")? {
        Some(d) => {
            let mut b = ptr::null_mut();
            let mut done = false;
            js::check(env, unsafe {
                sys::napi_coerce_to_bool(env.raw(), d, &mut b)
            })?;
            js::check(env, unsafe {
                sys::napi_get_value_bool(env.raw(), b, &mut done)
            })?;
            done
        }
        None => false,
    };
    if done {
        return Ok(None);
    }
    match js::property(env, result, c"value")? {
        Some(v) => Ok(Some(v)),
        None => {
            let mut u = ptr::null_mut();
            js::check(env, unsafe { sys::napi_get_undefined(env.raw(), &mut u) })?;
            Ok(Some(u))
        }
    }
}

/// Where a stream's keys come from: an array, read by index (the iterator protocol costs more
/// than a lookup per key), or any other iterable's iterator and its `next`.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    Array(sys::napi_value),
    Iter(sys::napi_value, sys::napi_value),
}

pub(crate) fn source(env: impl JsEnv, keys: sys::napi_value) -> Result<Source> {
    if js::is_array(env, keys)? {
        return Ok(Source::Array(keys));
    }
    let (it, next) = iterator(env, keys)?;
    Ok(Source::Iter(it, next))
}

/// Key `i` of a source (the `i`-th pull), or `None` at its end.
pub(crate) fn pull(env: impl JsEnv, src: Source, i: usize) -> Result<Option<sys::napi_value>> {
    match src {
        // The length is read each time: a getter of an earlier element may have changed it.
        Source::Array(a) => match u32::try_from(i) {
            Ok(i) if i < js::array_len(env, a)? => Ok(Some(js::element(env, a, i)?)),
            _ => Ok(None),
        },
        Source::Iter(it, next) => step(env, it, next),
    }
}

/// An escapable handle scope, closed when dropped: a stream of any length would otherwise keep
/// every key's handles alive until the call returns.
pub(crate) struct Scope {
    env: sys::napi_env,
    scope: sys::napi_escapable_handle_scope,
}

impl Scope {
    pub(crate) fn open(env: impl JsEnv) -> Result<Scope> {
        let mut scope = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_open_escapable_handle_scope(env.raw(), &mut scope)
        })?;
        Ok(Scope {
            env: env.raw(),
            scope,
        })
    }

    /// `v`, kept alive in the enclosing scope (once per scope).
    fn escape(&self, v: sys::napi_value) -> Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        js::check(self.env, unsafe {
            sys::napi_escape_handle(self.env, self.scope, v, &mut out)
        })?;
        Ok(out)
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        unsafe { sys::napi_close_escapable_handle_scope(self.env, self.scope) };
    }
}

/// Key `i` of a key stream, its text checked at once (nothing later could fail first).
pub(crate) fn stream_key(
    env: impl JsEnv,
    v: sys::napi_value,
    buf: &mut KeyBuf,
    i: usize,
) -> Result<&[u8]> {
    let mut text = None;
    let (key, _) = read(env, v, buf, &|| format!("keys[{i}]"), Some(i), &mut text)?;
    no_bad_text(env, text)?;
    Ok(key)
}

/// One side of a transition as the caller gave it, with the form of each id.
#[derive(Clone)]
enum Member {
    /// A placement, or the placement of a view.
    Hrw(hrwhash::Placement, Vec<NodeForm>),
    /// An incumbent's profile placement.
    Profile(hrwhash_compat::ProfilePlacement, Vec<Form>),
}

impl Member {
    fn of(env: impl JsEnv, value: Raw, what: &str) -> Result<Member> {
        if let Some(p) = instance::<ProfilePlacement>(env, value) {
            return Ok(Member::Profile(p.inner.clone(), p.forms.clone()));
        }
        if instance::<View>(env, value).is_none() && instance::<Placement>(env, value).is_none() {
            return Err(js::type_error(
                env,
                &format!(
                    "{what} is {}, not a View, Placement or ProfilePlacement",
                    js::describe(env, value.0)
                ),
            ));
        }
        let (p, forms) = membership(env, value, what)?;
        Ok(Member::Hrw(p, forms))
    }

    fn id(&self, env: impl JsEnv, i: usize) -> Result<sys::napi_value> {
        match self {
            Member::Hrw(p, forms) => id_value(env, p.node_specs()[i].id(), forms[i].id),
            Member::Profile(p, forms) => id_value(env, p.nodes()[i].id(), forms[i]),
        }
    }

    fn lookup(&self) -> Box<dyn Lookup> {
        match self {
            Member::Hrw(p, _) => Box::new(p.clone()),
            Member::Profile(p, _) => Box::new(p.clone()),
        }
    }

    /// A new `Placement` or `ProfilePlacement` of the same nodes.
    fn value(&self, env: impl JsEnv) -> Result<Raw> {
        match self {
            Member::Hrw(p, forms) => placement_value(env, p, Some(forms)),
            Member::Profile(p, forms) => {
                let v = ProfilePlacement {
                    inner: p.clone(),
                    forms: forms.clone(),
                };
                Ok(Raw(unsafe {
                    ProfilePlacement::to_napi_value(env.raw(), v)?
                }))
            }
        }
    }
}

/// The core transition: hrw-v1 on both sides (with replica routes and expected movement), or a
/// profile on either side (owners only).
#[derive(Clone)]
enum Core {
    Hrw(hrwhash::Transition),
    Any(hrwhash::Transition<Box<dyn Lookup>, Box<dyn Lookup>>),
}

/// The change from one membership (a `View`, `Placement` or `ProfilePlacement`) to another: where
/// each key is during a migration, how many keys move, and which.
#[napi]
pub struct Transition {
    inner: Core,
    old: Member,
    new: Member,
}

impl Transition {
    /// The transition between two views, as `new Transition(old, new)` builds it.
    pub(crate) fn of_views(old: &hrwhash::View, new: &hrwhash::View) -> Transition {
        let member = |v: &hrwhash::View| {
            let p = v.placement().clone();
            let forms = p.node_specs().iter().map(view_form).collect();
            Member::Hrw(p, forms)
        };
        Transition {
            inner: Core::Hrw(hrwhash::Transition::new(old.placement(), new.placement())),
            old: member(old),
            new: member(new),
        }
    }

    fn old_id(&self, env: impl JsEnv, i: usize) -> Result<sys::napi_value> {
        self.old.id(env, i)
    }

    fn new_id(&self, env: impl JsEnv, i: usize) -> Result<sys::napi_value> {
        self.new.id(env, i)
    }

    fn route_of(&self, key: &[u8]) -> hrwhash::transition::Route {
        match &self.inner {
            Core::Hrw(t) => t.route(key),
            Core::Any(t) => t.route(key),
        }
    }

    /// A plan over `keys`: of moved keys, or with `k` of changed replica sets.
    fn plan_of(&self, env: impl JsEnv, keys: Raw, k: Option<usize>) -> Result<Raw> {
        let (first, second) = match source(env, keys.0)? {
            Source::Array(a) => (a, None),
            Source::Iter(it, next) => (it, Some(next)),
        };
        let plan = Plan {
            transition: Transition {
                inner: self.inner.clone(),
                old: self.old.clone(),
                new: self.new.clone(),
            },
            first: reference(env, first)?,
            second: second.map(|n| reference(env, n)).transpose()?,
            k,
            index: Cell::new(0),
            done: Cell::new(false),
            busy: Cell::new(false),
        };
        let obj = unsafe { Plan::to_napi_value(env.raw(), plan)? };
        // `for (const m of t.plan(keys))` asks the plan for its iterator: itself.
        let f = iterator_method(env)?;
        let symbol = iterator_symbol(env)?;
        js::check(env, unsafe {
            sys::napi_set_property(env.raw(), obj, symbol, f)
        })?;
        Ok(Raw(obj))
    }

    /// The hrw-v1 transition, or `NotOffered` in the words of the profile on either side.
    fn hrw(&self, env: impl JsEnv, what: &'static str) -> Result<&hrwhash::Transition> {
        match (&self.inner, &self.old, &self.new) {
            (Core::Hrw(t), _, _) => Ok(t),
            (_, Member::Profile(p, _), _) | (_, _, Member::Profile(p, _)) => {
                let profile = p.profile().name();
                Err(core_error(env, Error::NotOffered { profile, what }))
            }
            _ => unreachable!("a transition without a profile is hrw-v1 on both sides"),
        }
    }

    /// The JS form of a route set: `{ before, after, add, drop }` by the caller's ids.
    fn route_set(
        &self,
        env: impl JsEnv,
        r: &hrwhash::transition::RouteSet,
    ) -> Result<sys::napi_value> {
        let o = js::new_object(env)?;
        js::set_property(env, o, c"before", self.id_list(env, &r.before, true)?)?;
        js::set_property(env, o, c"after", self.id_list(env, &r.after, false)?)?;
        js::set_property(env, o, c"add", self.id_list(env, &r.add, false)?)?;
        js::set_property(env, o, c"drop", self.id_list(env, &r.drop, true)?)?;
        Ok(o)
    }

    fn hrw_only(&self) -> Option<&hrwhash::Transition> {
        match &self.inner {
            Core::Hrw(t) => Some(t),
            Core::Any(_) => None,
        }
    }

    fn id_list(&self, env: impl JsEnv, indices: &[usize], old: bool) -> Result<sys::napi_value> {
        let arr = js::new_array(env, indices.len())?;
        for (j, &i) in indices.iter().enumerate() {
            let v = if old {
                self.old_id(env, i)?
            } else {
                self.new_id(env, i)?
            };
            js::set_element(env, arr, j as u32, v)?;
        }
        Ok(arr)
    }

    /// The JS form of a diff: flows and rows name nodes by the caller's ids.
    fn diff_value<A: Lookup, B: Lookup>(
        &self,
        env: impl JsEnv,
        diff: &hrwhash::transition::Diff<A, B>,
    ) -> Result<Raw> {
        let o = js::new_object(env)?;
        js::set_property(env, o, c"keys", js::new_number(env, diff.keys() as f64)?)?;
        js::set_property(env, o, c"moved", js::new_number(env, diff.moved() as f64)?)?;
        js::set_property(env, o, c"k", js::new_number(env, diff.k() as f64)?)?;
        let copies = [
            (c"copiesAdded", diff.copies_added()),
            (c"copiesDropped", diff.copies_dropped()),
        ];
        for (name, n) in copies {
            js::set_property(env, o, name, js::new_number(env, n as f64)?)?;
        }
        let flows = diff.flows();
        let arr = js::new_array(env, flows.len())?;
        for (j, &(from, to, count)) in flows.iter().enumerate() {
            let fo = js::new_object(env)?;
            js::set_property(env, fo, c"from", self.old_id(env, from)?)?;
            js::set_property(env, fo, c"to", self.new_id(env, to)?)?;
            js::set_property(env, fo, c"count", js::new_number(env, count as f64)?)?;
            js::set_element(env, arr, j as u32, fo)?;
        }
        js::set_property(env, o, c"flows", arr)?;
        let nodes = diff.nodes();
        let arr = js::new_array(env, nodes.len())?;
        for (j, n) in nodes.iter().enumerate() {
            let no = js::new_object(env)?;
            let id = match (n.old_index, n.new_index) {
                (Some(i), _) => self.old_id(env, i)?,
                (None, Some(i)) => self.new_id(env, i)?,
                (None, None) => js::null(env)?,
            };
            js::set_property(env, no, c"id", id)?;
            js::set_property(env, no, c"before", js::new_number(env, n.before as f64)?)?;
            js::set_property(env, no, c"after", js::new_number(env, n.after as f64)?)?;
            js::set_property(env, no, c"inOld", js::new_bool(env, n.old_index.is_some())?)?;
            js::set_property(env, no, c"inNew", js::new_bool(env, n.new_index.is_some())?)?;
            for (name, index) in [(c"oldIndex", n.old_index), (c"newIndex", n.new_index)] {
                let v = match index {
                    Some(i) => js::new_number(env, i as f64)?,
                    None => js::null(env)?,
                };
                js::set_property(env, no, name, v)?;
            }
            js::set_property(env, no, c"added", js::new_number(env, n.added as f64)?)?;
            js::set_property(env, no, c"dropped", js::new_number(env, n.dropped as f64)?)?;
            js::set_element(env, arr, j as u32, no)?;
        }
        js::set_property(env, o, c"nodes", arr)?;
        let number_or_null = |x: Option<f64>| match x {
            Some(x) => js::new_number(env, x),
            None => js::null(env),
        };
        let hrw = self.hrw_only();
        js::set_property(
            env,
            o,
            c"expectedMoved",
            number_or_null(hrw.map(|t| t.expected_moved()))?,
        )?;
        js::set_property(
            env,
            o,
            c"optimum",
            number_or_null(hrw.map(|t| t.optimum()))?,
        )?;
        Ok(Raw(o))
    }
}

/// Counts the keys of `src` into `diff`.
fn count<A: Lookup, B: Lookup>(
    env: impl JsEnv,
    mut diff: hrwhash::transition::Diff<A, B>,
    src: Source,
) -> Result<hrwhash::transition::Diff<A, B>> {
    let mut buf = KeyBuf::new();
    let mut i = 0usize;
    loop {
        let _scope = Scope::open(env)?;
        let Some(v) = pull(env, src, i)? else { break };
        diff.add(stream_key(env, v, &mut buf, i)?);
        i += 1;
    }
    Ok(diff)
}

#[napi]
impl Transition {
    /// The transition from `from` to `to`; nodes are the same node when their ids are equal.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "from: Placement<Old> | ViewOf<Old> | ProfilePlacement<Old>, to: Placement<New> | ViewOf<New> | ProfilePlacement<New>"
    )]
    pub fn new(env: Env, old: Raw, new: Raw) -> Result<Transition> {
        let old = Member::of(env, old, "from")?;
        let new = Member::of(env, new, "to")?;
        let inner = match (&old, &new) {
            (Member::Hrw(a, _), Member::Hrw(b, _)) => Core::Hrw(hrwhash::Transition::new(a, b)),
            _ => Core::Any(hrwhash::Transition::between(old.lookup(), new.lookup())),
        };
        Ok(Transition { inner, old, new })
    }

    /// The owners of `key` before and after: read from `new`, on a miss from `old`; write to `new`.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key",
        ts_return_type = "Route<IdOf<Old>, IdOf<New>>"
    )]
    pub fn route(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let r = self.route_of(key_of(env, key, &mut buf, "key")?);
        let o = js::new_object(env)?;
        js::set_property(env, o, c"old", self.old_id(env, r.old_index)?)?;
        js::set_property(env, o, c"new", self.new_id(env, r.new_index)?)?;
        js::set_property(env, o, c"moved", js::new_bool(env, r.moved)?)?;
        js::set_property(
            env,
            o,
            c"oldIndex",
            js::new_number(env, r.old_index as f64)?,
        )?;
        js::set_property(
            env,
            o,
            c"newIndex",
            js::new_number(env, r.new_index as f64)?,
        )?;
        Ok(Raw(o))
    }

    /// The replicas of `key` before and after (`replicas(key, k)` of each side: spread over failure
    /// domains when a placement names them), the replicas to fill (`add`, new ids) and those to
    /// drop once they are filled (`drop`, old ids).
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, k: number",
        ts_return_type = "RouteSet<IdOf<Old>, IdOf<New>>"
    )]
    pub fn route_top(&self, env: Env, key: Raw, k: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let (key, k) = key_and_count(env, key, k, &mut buf)?;
        let t = self.hrw(env, "replica routes in a transition")?;
        self.route_set(env, &t.route_top(key, k)).map(Raw)
    }

    /// Counts owner changes over `keys` (any iterable, consumed once; memory does not grow with
    /// the number of keys).
    #[napi(
        catch_unwind,
        ts_args_type = "keys: Iterable<Key>",
        ts_return_type = "Diff<IdOf<Old>, IdOf<New>>"
    )]
    pub fn diff(&self, env: Env, keys: Raw) -> Result<Raw> {
        let src = source(env, keys.0)?;
        match &self.inner {
            Core::Hrw(t) => self.diff_value(env, &count(env, t.diff(), src)?),
            Core::Any(t) => self.diff_value(env, &count(env, t.diff(), src)?),
        }
    }

    /// Counts the changes of the replica sets (`replicas(key, k)` of each side) over `keys`, read
    /// as `diff` reads them; `k = 1` counts what `diff` counts but the flows.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: Iterable<Key>, k: number",
        ts_return_type = "Diff<IdOf<Old>, IdOf<New>>"
    )]
    pub fn diff_top(&self, env: Env, keys: Raw, k: Raw) -> Result<Raw> {
        let k = count_of(env, k, "k")?;
        let t = self.hrw(env, "replica diffs in a transition")?;
        let src = source(env, keys.0)?;
        self.diff_value(env, &count(env, t.diff_top(k), src)?)
    }

    /// The keys of `keys` that change owner, each with the node to copy it from and to, as an
    /// iterator that pulls from `keys` as it is advanced (constant memory).
    #[napi(
        catch_unwind,
        ts_args_type = "keys: Iterable<Key>",
        ts_return_type = "Plan<IdOf<Old>, IdOf<New>>"
    )]
    pub fn plan(&self, env: Env, keys: Raw) -> Result<Raw> {
        self.plan_of(env, keys, None)
    }

    /// The keys of `keys` whose set of `k` replicas changes, each as `{ key, route }` with its
    /// route set (the replicas to add and to drop), as an iterator like `plan`'s.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: Iterable<Key>, k: number",
        ts_return_type = "PlanTop<IdOf<Old>, IdOf<New>>"
    )]
    pub fn plan_top(&self, env: Env, keys: Raw, k: Raw) -> Result<Raw> {
        let k = count_of(env, k, "k")?;
        self.hrw(env, "replica plans in a transition")?;
        self.plan_of(env, keys, Some(k))
    }

    /// The membership before, as a new `Placement` (a view's placement) or `ProfilePlacement`.
    #[napi(
        getter,
        catch_unwind,
        ts_return_type = "Placement<Old> | ProfilePlacement<Old>"
    )]
    pub fn old_placement(&self, env: Env) -> Result<Raw> {
        self.old.value(env)
    }

    /// The membership after, as a new `Placement` (a view's placement) or `ProfilePlacement`.
    #[napi(
        getter,
        catch_unwind,
        ts_return_type = "Placement<New> | ProfilePlacement<New>"
    )]
    pub fn new_placement(&self, env: Env) -> Result<Raw> {
        self.new.value(env)
    }

    /// The expected fraction of all keys whose owner changes, from the weights alone (VIEW.md
    /// 6.1); null unless both sides are hrw-v1.
    #[napi(getter, catch_unwind)]
    pub fn expected_moved(&self) -> Option<f64> {
        self.hrw_only().map(|t| t.expected_moved())
    }

    /// The least fraction of keys any scheme must move for the new shares (VIEW.md 6.2); null
    /// unless both sides are hrw-v1.
    #[napi(getter, catch_unwind)]
    pub fn optimum(&self) -> Option<f64> {
        self.hrw_only().map(|t| t.optimum())
    }
}

/// `[Symbol.iterator]() { return this; }`, named as a class's method of that key is.
fn iterator_method(env: impl JsEnv) -> Result<sys::napi_value> {
    const NAME: &CStr = c"[Symbol.iterator]";
    // emnapi takes only an identifier as a function's name; the name is then set as a property.
    let given = if cfg!(target_family = "wasm") {
        0
    } else {
        NAME.to_bytes().len()
    };
    let mut f = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_function(
            env.raw(),
            NAME.as_ptr(),
            given as isize,
            Some(return_this),
            ptr::null_mut(),
            &mut f,
        )
    })?;
    #[cfg(target_family = "wasm")]
    {
        let desc = sys::napi_property_descriptor {
            utf8name: c"name".as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: None,
            setter: None,
            value: js::new_string(env, "[Symbol.iterator]")?,
            attributes: sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        js::check(env, unsafe {
            sys::napi_define_properties(env.raw(), f, 1, &desc)
        })?;
    }
    Ok(f)
}

unsafe extern "C" fn return_this(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let mut this = ptr::null_mut();
    sys::napi_get_cb_info(
        env,
        info,
        ptr::null_mut(),
        ptr::null_mut(),
        &mut this,
        ptr::null_mut(),
    );
    this
}

fn reference(env: impl JsEnv, v: sys::napi_value) -> Result<sys::napi_ref> {
    let mut r = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_create_reference(env.raw(), v, 1, &mut r)
    })?;
    Ok(r)
}

fn dereference(env: impl JsEnv, r: sys::napi_ref) -> Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    js::check(env, unsafe {
        sys::napi_get_reference_value(env.raw(), r, &mut v)
    })?;
    Ok(v)
}

/// The moved keys of a key stream, as an iterator of `{ key, from, to }` (the key as given).
// `next` takes `&self`, with its state in cells: napi-rs refuses a second `&mut` borrow with its
// own status as the `code` ("InvalidArg"), which is none of this package's codes. A key source
// that calls `next` of its own plan is refused by `busy` instead, with the package's TypeError.
#[napi(custom_finalize)]
pub struct Plan {
    transition: Transition,
    /// The source array, or the source iterator followed by its `next` method.
    first: sys::napi_ref,
    second: Option<sys::napi_ref>,
    /// `planTop`'s `k`: the plan lists changed replica sets rather than moved owners.
    k: Option<usize>,
    index: Cell<usize>,
    done: Cell<bool>,
    busy: Cell<bool>,
}

/// Clears `Plan::busy` however `next` returns.
struct Busy<'a>(&'a Cell<bool>);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl ObjectFinalize for Plan {
    fn finalize(self, env: Env) -> Result<()> {
        unsafe {
            sys::napi_delete_reference(env.raw(), self.first);
            if let Some(r) = self.second {
                sys::napi_delete_reference(env.raw(), r);
            }
        }
        Ok(())
    }
}

#[napi]
impl Plan {
    /// The next moved key, pulling keys from the source until one moves. A key source that
    /// calls `next` of the plan it feeds gets a `TypeError` (`ERR_INVALID_ARG_TYPE`).
    #[napi(
        catch_unwind,
        ts_return_type = "IteratorResult<Move<Old, New>, undefined>"
    )]
    pub fn next(&self, env: Env) -> Result<Raw> {
        if self.busy.replace(true) {
            return Err(js::type_error(
                env,
                "Plan.next() was called from inside the plan's own key source, \
                 while the plan was reading a key from it",
            ));
        }
        let _busy = Busy(&self.busy);
        let result = js::new_object(env)?;
        let mut buf = KeyBuf::new();
        let first = dereference(env, self.first)?;
        let src = match self.second {
            Some(next) => Source::Iter(first, dereference(env, next)?),
            None => Source::Array(first),
        };
        while !self.done.get() {
            let scope = Scope::open(env)?;
            let i = self.index.get();
            let Some(v) = pull(env, src, i)? else {
                self.done.set(true);
                break;
            };
            self.index.set(i + 1);
            let key = stream_key(env, v, &mut buf, i)?;
            if let Some(k) = self.k {
                let t = self.transition.hrw(env, "replica plans in a transition")?;
                let r = t.route_top(key, k);
                if r.changed() {
                    let v = scope.escape(v)?;
                    drop(scope);
                    let m = js::new_object(env)?;
                    js::set_property(env, m, c"key", v)?;
                    js::set_property(env, m, c"route", self.transition.route_set(env, &r)?)?;
                    js::set_property(env, result, c"value", m)?;
                    js::set_property(env, result, c"done", js::new_bool(env, false)?)?;
                    return Ok(Raw(result));
                }
                continue;
            }
            let r = self.transition.route_of(key);
            if r.moved {
                let v = scope.escape(v)?;
                drop(scope);
                let m = js::new_object(env)?;
                js::set_property(env, m, c"key", v)?;
                js::set_property(env, m, c"from", self.transition.old_id(env, r.old_index)?)?;
                js::set_property(env, m, c"to", self.transition.new_id(env, r.new_index)?)?;
                js::set_property(env, result, c"value", m)?;
                js::set_property(env, result, c"done", js::new_bool(env, false)?)?;
                return Ok(Raw(result));
            }
        }
        js::set_property(env, result, c"done", js::new_bool(env, true)?)?;
        Ok(Raw(result))
    }
}

/// Positions of a ramp's line from the old weights (0) to the new ones (`RAMP_GRID`).
#[napi]
pub const RAMP_GRID: u32 = hrwhash::ramp::GRID;

/// A ramp from one view to another in steps that each move at most `maxMove` of the keys
/// (conformance/VIEW.md section 7).
#[napi]
pub struct RampPlan {
    inner: hrwhash::RampPlan,
}

#[napi]
impl RampPlan {
    /// Plans the ramp; both views need the same seed (`HRW_SEED_MISMATCH`), `maxMove` is a
    /// fraction in (0, 1] (`HRW_INVALID_MOVE_LIMIT`).
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "from: ViewOf<Id>, to: ViewOf<Id>, maxMove: number"
    )]
    pub fn new(env: Env, old: Raw, new: Raw, max_move: Raw) -> Result<RampPlan> {
        let old = view_arg(env, old, "from")?;
        let new = view_arg(env, new, "to")?;
        let Some(limit) = js::number(env, max_move.0)? else {
            return Err(js::type_error(
                env,
                &format!("maxMove is {}, not a number", js::describe(env, max_move.0)),
            ));
        };
        let inner = hrwhash::RampPlan::new(&old.inner, &new.inner, limit)
            .map_err(|e| core_error(env, e))?;
        Ok(RampPlan { inner })
    }

    /// The steps, in order (none when the two views already place keys alike).
    #[napi(getter, catch_unwind, ts_return_type = "RampStep[]")]
    pub fn steps(&self, env: Env) -> Result<Raw> {
        let steps = self.inner.steps();
        let arr = js::new_array(env, steps.len())?;
        for (i, s) in steps.iter().enumerate() {
            let o = js::new_object(env)?;
            js::set_property(env, o, c"epoch", js::new_bigint(env, s.epoch)?)?;
            js::set_property(env, o, c"position", js::new_number(env, s.position as f64)?)?;
            js::set_property(env, o, c"moved", js::new_number(env, s.moved)?)?;
            js::set_property(
                env,
                o,
                c"removesDrained",
                js::new_bool(env, s.removes_drained)?,
            )?;
            js::set_element(env, arr, i as u32, o)?;
        }
        Ok(Raw(arr))
    }

    /// The view of step `step` (0-based); the last one places keys like the target view.
    #[napi(
        catch_unwind,
        ts_args_type = "step: number",
        ts_return_type = "View<Id>"
    )]
    pub fn view(&self, env: Env, step: Raw) -> Result<View> {
        let s = count_of(env, step, "step")?;
        let inner = self.inner.view(s).map_err(|e| core_error(env, e))?;
        Ok(View { inner })
    }

    /// Every step's view, in order.
    #[napi(catch_unwind, ts_return_type = "View<Id>[]")]
    pub fn views(&self, env: Env) -> Result<Vec<View>> {
        (0..self.inner.steps().len())
            .map(|s| {
                self.inner
                    .view(s)
                    .map(|inner| View { inner })
                    .map_err(|e| core_error(env, e))
            })
            .collect()
    }

    /// The per-step limit.
    #[napi(getter, catch_unwind)]
    pub fn max_move(&self) -> f64 {
        self.inner.max_move()
    }

    /// Sum of the steps' expected movements (a key that moves twice counts twice).
    #[napi(getter, catch_unwind)]
    pub fn total_moved(&self) -> f64 {
        self.inner.total_moved()
    }

    /// Expected movement of switching directly; `totalMoved - directMoved` is the cost of going
    /// gradually.
    #[napi(getter, catch_unwind)]
    pub fn direct_moved(&self) -> f64 {
        self.inner.direct_moved()
    }

    /// The least movement any scheme needs for the new shares.
    #[napi(getter, catch_unwind)]
    pub fn optimum(&self) -> f64 {
        self.inner.optimum()
    }
}

/// `new RampPlan(from, to, maxMove)`.
#[napi(
    catch_unwind,
    ts_generic_types = "Id = NodeId",
    ts_args_type = "from: ViewOf<Id>, to: ViewOf<Id>, maxMove: number",
    ts_return_type = "RampPlan<Id>"
)]
pub fn ramp(env: Env, old: Raw, new: Raw, max_move: Raw) -> Result<RampPlan> {
    RampPlan::new(env, old, new, max_move)
}
