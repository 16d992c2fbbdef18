//! Compatibility profiles (conformance/PROFILES.md): `ProfilePlacement`, which places keys the
//! way an incumbent library does; `Transition` measures a switch between it and any other
//! placement. Ids come back in the form they were given, as `Placement`'s do.

use hrwhash_compat::Profile;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::args::BadText;
use crate::js::{self, Bytes, Form, JsEnv, KeyBuf, Raw};
use crate::view::id_value;
use crate::{
    checked_replicas, core_error, key_of, no_bad_text, parse_membership, slices, Placement,
};

/// The options `new ProfilePlacement` knows.
const OPTIONS: [&str; 1] = ["weights"];

/// A membership placed the way an incumbent library places it: `"go-redis-ring-v9"`,
/// `"pymemcache-rendezvous"`, `"ketama-libmemcached"` or `"hashring-node-3"`.
#[napi]
pub struct ProfilePlacement {
    pub(crate) inner: hrwhash_compat::ProfilePlacement,
    pub(crate) forms: Vec<Form>,
}

impl ProfilePlacement {
    fn id(&self, env: impl JsEnv, i: usize) -> Result<sys::napi_value> {
        id_value(env, self.inner.nodes()[i].id(), self.forms[i])
    }

    fn ids(&self, env: impl JsEnv, indices: &[usize]) -> Result<sys::napi_value> {
        let arr = js::new_array(env, indices.len())?;
        for (j, &i) in indices.iter().enumerate() {
            js::set_element(env, arr, j as u32, self.id(env, i)?)?;
        }
        Ok(arr)
    }
}

#[napi]
impl ProfilePlacement {
    /// Builds the incumbent's placement of `nodes` (ids, or `{ id, weight }` objects) in the order
    /// given; `options.weights` for the weighted profiles.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "profile: string, nodes: ReadonlyArray<Id | NodeSpec<Id>> & ReadonlyArray<NodeIdLike | NodeSpec>, options?: { weights?: ReadonlyArray<number> } | null"
    )]
    pub fn new(
        env: Env,
        profile: Raw,
        nodes: Raw,
        options: Option<Raw>,
    ) -> Result<ProfilePlacement> {
        let mut buf = KeyBuf::new();
        let name = match js::bytes(env, profile.0, &mut buf)? {
            Bytes::Ok(b, Form::Text) => String::from_utf8_lossy(b).into_owned(),
            // A string, so not a type error: it has no UTF-8 form (API.md section 3), as in Python.
            Bytes::IllFormed { at, unit } => {
                return Err(BadText {
                    what: "profile".into(),
                    index: None,
                    at,
                    unit,
                }
                .throw(env))
            }
            _ => {
                return Err(js::type_error(
                    env,
                    &format!("profile is {}, not a string", js::describe(env, profile.0)),
                ))
            }
        };
        if let Some(opts) =
            options.filter(|o| !matches!(js::is_null_or_undefined(env, o.0), Ok(true)))
        {
            if js::type_of(env, opts.0)? == napi::sys::ValueType::napi_object
                && !js::is_array(env, opts.0)?
            {
                js::only_options(env, opts.0, &OPTIONS, "ProfilePlacement (it has weights)")?;
            }
        }
        let (_, parsed) = parse_membership(env, nodes, options)?;
        let profile = Profile::from_name(&name).map_err(|e| core_error(env, e))?;
        let forms = parsed.iter().map(|p| p.form.id).collect();
        let inner =
            hrwhash_compat::ProfilePlacement::new(profile, parsed.into_iter().map(|p| p.node))
                .map_err(|e| core_error(env, e))?;
        Ok(ProfilePlacement { inner, forms })
    }

    /// The profile's name.
    #[napi(getter, catch_unwind)]
    pub fn profile(&self) -> &'static str {
        self.inner.profile().name()
    }

    /// The node ids, in the order given.
    #[napi(getter, catch_unwind, ts_return_type = "IdOf<Id>[]")]
    pub fn nodes(&self, env: Env) -> Result<Raw> {
        let all: Vec<usize> = (0..self.inner.len()).collect();
        Ok(Raw(self.ids(env, &all)?))
    }

    /// Number of nodes.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        self.inner.len() as u32
    }

    /// The node the incumbent gives `key` to.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "IdOf<Id>")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner(key_of(env, key, &mut buf, "key")?);
        Ok(Raw(self.id(env, index)?))
    }

    /// The owner of every key of `keys`, in order.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: ReadonlyArray<Key>",
        ts_return_type = "IdOf<Id>[]"
    )]
    pub fn owners(&self, env: Env, keys: Raw) -> Result<Raw> {
        let (data, ends, text) = Placement::collect_keys(env, keys)?;
        no_bad_text(env, text)?;
        let owners = self.inner.owners(&slices(&data, &ends));
        Ok(Raw(self.ids(env, &owners)?))
    }

    /// The first `k` distinct nodes of the incumbent's top-k lookup of `key`, owner first
    /// (`HRW_NOT_OFFERED` where the incumbent has none).
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, k: number",
        ts_return_type = "IdOf<Id>[]"
    )]
    pub fn replicas(&self, env: Env, key: Raw, k: Raw) -> Result<Raw> {
        let r = checked_replicas(env, key, k, |key, k| self.inner.replicas(key, k))?;
        Ok(Raw(self.ids(env, &r)?))
    }
}
