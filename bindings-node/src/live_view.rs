//! Live views (conformance/LIVE-VIEW.md): `LiveView`, thin over the core's holder of the same
//! name. JavaScript runs one thread per isolate, so the change callbacks are kept here as JS
//! function references and called after an applied `update`, with the `Transition` previous ->
//! current; the core's own callbacks (which need `Send`) are not used.
use std::ptr;
use std::time::Duration;

use napi::bindgen_prelude::ToNapiValue;
use napi::sys::ValueType as T;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, JsEnv, Raw};
use crate::view::{id_value, text_form, view_arg, Transition, View};
use crate::{core_error, count_of};

/// The view a client follows: a `View` replaced only by newer epochs, with the previous view kept
/// while keys move.
#[napi(custom_finalize)]
pub struct LiveView {
    inner: hrwhash::LiveView,
    callbacks: Vec<sys::napi_ref>,
}

impl napi::bindgen_prelude::ObjectFinalize for LiveView {
    fn finalize(self, env: Env) -> Result<()> {
        for r in self.callbacks {
            unsafe { sys::napi_delete_reference(env.raw(), r) };
        }
        Ok(())
    }
}

fn view_value(env: impl JsEnv, v: &hrwhash::View) -> Result<sys::napi_value> {
    unsafe { View::to_napi_value(env.raw(), View { inner: v.clone() }) }
}

fn id_of(env: impl JsEnv, id: &[u8]) -> Result<sys::napi_value> {
    id_value(env, id, text_form(id))
}

/// `{ moveDeadline?: number }`: milliseconds after an applied update at which its move ends by
/// itself.
fn move_deadline(env: impl JsEnv, options: Option<Raw>) -> Result<Option<Duration>> {
    let Some(opts) = options else { return Ok(None) };
    if js::is_null_or_undefined(env, opts.0)? {
        return Ok(None);
    }
    if js::type_of(env, opts.0)? != T::napi_object {
        return Err(js::type_error(
            env,
            &format!("options is {}, not an object", js::describe(env, opts.0)),
        ));
    }
    for name in js::own_keys(env, opts.0)? {
        if name != "moveDeadline" {
            return Err(js::type_error(
                env,
                &format!("options has an unknown member {name:?}; LiveView takes moveDeadline"),
            ));
        }
    }
    let Some(value) = js::property(env, opts.0, c"moveDeadline")? else {
        return Ok(None);
    };
    if js::is_null_or_undefined(env, value)? {
        return Ok(None);
    }
    let ms = count_of(env, Raw(value), "moveDeadline")?;
    Ok(Some(Duration::from_millis(ms as u64)))
}

#[napi]
impl LiveView {
    /// A live view of `view`, whose seed it keeps for good. `options.moveDeadline` (milliseconds)
    /// ends each move by itself; without it a move ends only by `finishMove()`.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "view: ViewOf<Id>, options?: LiveViewOptions | null"
    )]
    pub fn new(env: Env, view: Raw, options: Option<Raw>) -> Result<LiveView> {
        let v = view_arg(env, view, "view")?;
        let inner = match move_deadline(env, options)? {
            Some(d) => hrwhash::LiveView::with_move_deadline(v.inner.clone(), d),
            None => hrwhash::LiveView::new(v.inner.clone()),
        };
        Ok(LiveView {
            inner,
            callbacks: Vec::new(),
        })
    }

    /// Offers `view`: `'applied'` (a higher epoch; a move begins and the change callbacks run
    /// before this returns) or `'unchanged'` (the same epoch and fingerprint). A lower epoch throws
    /// `HRW_STALE_VIEW`, the same epoch with another membership `HRW_VIEW_CONFLICT`, another seed
    /// `HRW_SEED_MISMATCH`; a refused view changes nothing but `lastError`. A callback that throws
    /// does not stop the others; its error is recorded in `lastError` (kind `'Callback'`).
    #[napi(
        catch_unwind,
        ts_args_type = "view: ViewOf<Id>",
        ts_return_type = "'applied' | 'unchanged'"
    )]
    pub fn update(&self, env: Env, view: Raw) -> Result<Raw> {
        let v = view_arg(env, view, "view")?;
        let applied = self
            .inner
            .update(v.inner.clone())
            .map_err(|e| core_error(env, e))?;
        if applied && !self.callbacks.is_empty() {
            self.call_back(env)?;
        }
        let outcome = if applied { "applied" } else { "unchanged" };
        Ok(Raw(js::new_string(env, outcome)?))
    }

    fn call_back(&self, env: impl JsEnv) -> Result<()> {
        let snapshot = self.inner.snapshot();
        let (Some(previous), current) = (snapshot.previous(), snapshot.current()) else {
            // The move already ended (a deadline of 0): there is no transition to hand over.
            return Ok(());
        };
        let t = Transition::of_views(previous, current);
        let t = unsafe { Transition::to_napi_value(env.raw(), t)? };
        let mut undefined = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_get_undefined(env.raw(), &mut undefined)
        })?;
        for r in &self.callbacks {
            let mut f = ptr::null_mut();
            js::check(env, unsafe {
                sys::napi_get_reference_value(env.raw(), *r, &mut f)
            })?;
            let mut result = ptr::null_mut();
            let status = unsafe {
                sys::napi_call_function(env.raw(), undefined, f, 1, [t].as_ptr(), &mut result)
            };
            if status != sys::Status::napi_ok {
                let mut exception = ptr::null_mut();
                unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut exception) };
                let message = if exception.is_null() {
                    "a change callback failed".to_owned()
                } else {
                    js::error_message(env, exception)
                };
                self.inner.report_error(hrwhash::Error::Source {
                    kind: "Callback".to_owned(),
                    message,
                });
            }
        }
        Ok(())
    }

    /// Ends the move in progress: lookups answer from the current view alone. Returns whether a
    /// move was in progress.
    #[napi(catch_unwind)]
    pub fn finish_move(&self) -> bool {
        self.inner.finish_move()
    }

    /// Calls `callback(transition)` after every applied update, in registration order.
    #[napi(
        catch_unwind,
        ts_args_type = "callback: (transition: Transition<Id, Id>) => void"
    )]
    pub fn on_change(&mut self, env: Env, callback: Raw) -> Result<()> {
        if js::type_of(env, callback.0)? != T::napi_function {
            return Err(js::type_error(
                env,
                &format!(
                    "callback is {}, not a function",
                    js::describe(env, callback.0)
                ),
            ));
        }
        let mut r = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_create_reference(env.raw(), callback.0, 1, &mut r)
        })?;
        self.callbacks.push(r);
        Ok(())
    }

    /// The owner of `key` in the current view: where to write.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "IdOf<Id>")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = js::KeyBuf::new();
        let key = crate::key_of(env, key, &mut buf, "key")?;
        let snapshot = self.inner.snapshot();
        Ok(Raw(id_of(env, snapshot.owner(key).id())?))
    }

    /// Where `key` is: `read` (the previous view's owner while a move is in progress), `write`
    /// (the current view's owner) and whether they differ.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key",
        ts_return_type = "LiveRoute<IdOf<Id>>"
    )]
    pub fn route(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = js::KeyBuf::new();
        let key = crate::key_of(env, key, &mut buf, "key")?;
        let r = self.inner.route(key);
        let o = js::new_object(env)?;
        js::set_property(env, o, c"read", id_of(env, &r.read)?)?;
        js::set_property(env, o, c"write", id_of(env, &r.write)?)?;
        js::set_property(env, o, c"moved", js::new_bool(env, r.moved)?)?;
        Ok(Raw(o))
    }

    /// The current view.
    #[napi(getter, catch_unwind, ts_return_type = "View<Id>")]
    pub fn current(&self, env: Env) -> Result<Raw> {
        Ok(Raw(view_value(env, &self.inner.current())?))
    }

    /// The previous view while a move is in progress, else `null`.
    #[napi(getter, catch_unwind, ts_return_type = "View<Id> | null")]
    pub fn previous(&self, env: Env) -> Result<Raw> {
        let snapshot = self.inner.snapshot();
        Ok(Raw(match snapshot.previous() {
            Some(v) => view_value(env, v)?,
            None => js::null(env)?,
        }))
    }

    /// The current epoch, as an unsigned 64-bit BigInt.
    #[napi(getter, catch_unwind, ts_return_type = "bigint")]
    pub fn epoch(&self, env: Env) -> Result<Raw> {
        Ok(Raw(js::new_bigint(env, self.inner.epoch())?))
    }

    /// The current view's fingerprint (32 hex digits).
    #[napi(getter, catch_unwind)]
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_hex()
    }

    /// Whether a move is in progress.
    #[napi(getter, catch_unwind)]
    pub fn moving(&self) -> bool {
        self.inner.moving()
    }

    /// Milliseconds since the last applied or unchanged update (or since construction).
    #[napi(getter, catch_unwind)]
    pub fn since_update(&self) -> f64 {
        self.inner.since_update().as_secs_f64() * 1000.0
    }

    /// The last refusal or source error, `{ kind, message }`, or `null`; cleared by the next
    /// applied or unchanged update.
    #[napi(getter, catch_unwind, ts_return_type = "LiveError | null")]
    pub fn last_error(&self, env: Env) -> Result<Raw> {
        let Some(e) = self.inner.last_error() else {
            return Ok(Raw(js::null(env)?));
        };
        // A source's own failure is named by the source; a refusal by its error kind.
        let (kind, message) = match e {
            hrwhash::Error::Source { kind, message } => (kind, message),
            e => (e.kind().name().to_owned(), e.to_string()),
        };
        let o = js::new_object(env)?;
        js::set_property(env, o, c"kind", js::new_string(env, &kind)?)?;
        js::set_property(env, o, c"message", js::new_string(env, &message)?)?;
        Ok(Raw(o))
    }

    /// Records a source's error (a lost connection, an unreadable file) without changing the view.
    #[napi(catch_unwind, ts_args_type = "kind: string, message: string")]
    pub fn report_error(&self, env: Env, kind: Raw, message: Raw) -> Result<()> {
        let text = |v: Raw, what: &str| -> Result<String> {
            if js::type_of(env, v.0)? != T::napi_string {
                return Err(js::type_error(
                    env,
                    &format!("{what} is {}, not a string", js::describe(env, v.0)),
                ));
            }
            let mut buf = js::KeyBuf::new();
            let bytes = crate::key_of(env, v, &mut buf, what)?;
            Ok(String::from_utf8_lossy(bytes).into_owned())
        };
        let kind = text(kind, "kind")?;
        let message = text(message, "message")?;
        self.inner
            .report_error(hrwhash::Error::Source { kind, message });
        Ok(())
    }
}
