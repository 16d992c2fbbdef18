//! Compatibility profiles (conformance/PROFILES.md): `ProfilePlacement`, which places keys the
//! way an incumbent library does, and `profileDiff`, what a switch between any two placements
//! moves. Ids come back in the form they were given, as `Placement`'s do.

use hrwhash_compat::{AnyPlacement, Lookup, Profile, Switch};
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, Bytes, Form, KeyBuf, Raw};
use crate::view::{id_value, instance, pull, source, stream_key, Scope, View};
use crate::{
    core_error, key_and_count, key_of, no_bad_text, parse_membership, slices, NodeForm, Placement,
};

/// The options `new ProfilePlacement` knows.
const OPTIONS: [&str; 1] = ["weights"];

/// A membership placed the way an incumbent library places it: `"go-redis-ring-v9"`,
/// `"pymemcache-rendezvous"`, `"ketama-libmemcached"` or `"hashring-node-3"`.
#[napi]
pub struct ProfilePlacement {
    inner: hrwhash_compat::ProfilePlacement,
    forms: Vec<Form>,
}

impl ProfilePlacement {
    fn id(&self, env: sys::napi_env, i: usize) -> Result<sys::napi_value> {
        id_value(env, self.inner.nodes()[i].id(), self.forms[i])
    }

    fn ids(&self, env: sys::napi_env, indices: &[usize]) -> Result<sys::napi_value> {
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
        ts_args_type = "profile: string, nodes: ReadonlyArray<NodeIdLike | NodeSpec>, options?: { weights?: ReadonlyArray<number> } | null"
    )]
    pub fn new(
        env: Env,
        profile: Raw,
        nodes: Raw,
        options: Option<Raw>,
    ) -> Result<ProfilePlacement> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let name = match js::bytes(env, profile.0, &mut buf)? {
            Bytes::Ok(b, Form::Text) => String::from_utf8_lossy(b).into_owned(),
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
                for key in js::own_keys(env, opts.0)? {
                    if !OPTIONS.contains(&key.as_str()) {
                        return Err(js::type_error(
                            env,
                            &format!("options.{key} is not an option of ProfilePlacement (it has weights)"),
                        ));
                    }
                }
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
    #[napi(getter, catch_unwind, ts_return_type = "NodeId[]")]
    pub fn nodes(&self, env: Env) -> Result<Raw> {
        let all: Vec<usize> = (0..self.inner.len()).collect();
        Ok(Raw(self.ids(env.raw(), &all)?))
    }

    /// Number of nodes.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        self.inner.len() as u32
    }

    /// The node the incumbent gives `key` to.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "NodeId")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let index = self.inner.owner(key_of(env, key, &mut buf, "key")?);
        Ok(Raw(self.id(env, index)?))
    }

    /// The owner of every key of `keys`, in order.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: ReadonlyArray<Key>",
        ts_return_type = "NodeId[]"
    )]
    pub fn owners(&self, env: Env, keys: Raw) -> Result<Raw> {
        let env = env.raw();
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
        ts_return_type = "NodeId[]"
    )]
    pub fn replicas(&self, env: Env, key: Raw, k: Raw) -> Result<Raw> {
        let env = env.raw();
        let mut buf = KeyBuf::new();
        let (key, k) = key_and_count(env, key, k, &mut buf)?;
        let r = self
            .inner
            .replicas(key, k)
            .map_err(|e| core_error(env, e))?;
        Ok(Raw(self.ids(env, &r)?))
    }
}

/// Either side of a diff, with the forms of its ids.
fn side(env: sys::napi_env, value: Raw, what: &str) -> Result<(AnyPlacement, Vec<Form>)> {
    if let Some(p) = instance::<ProfilePlacement>(env, value) {
        return Ok((AnyPlacement::Profile(p.inner.clone()), p.forms.clone()));
    }
    if let Some(p) = instance::<Placement>(env, value) {
        let forms = p.forms.iter().map(|f: &NodeForm| f.id).collect();
        return Ok((AnyPlacement::Hrw(p.inner.clone()), forms));
    }
    if let Some(v) = instance::<View>(env, value) {
        let p = v.inner.placement().clone();
        let forms = p
            .node_specs()
            .iter()
            .map(|n| match std::str::from_utf8(n.id()) {
                Ok(_) => Form::Text,
                Err(_) => Form::Binary,
            })
            .collect();
        return Ok((AnyPlacement::Hrw(p), forms));
    }
    Err(js::type_error(
        env,
        &format!(
            "{what} is {}, not a ProfilePlacement, Placement or View",
            js::describe(env, value.0)
        ),
    ))
}

/// What switching from `from` to `to` (each a ProfilePlacement, Placement or View) moves over
/// `keys` (an array or any iterable): `{ from, to, keys, moved, flows: [{ from, to, count }],
/// nodes: [{ id, before, after, inOld, inNew }] }`, `from` and `to` naming the algorithms.
#[napi(
    catch_unwind,
    ts_args_type = "from: ProfilePlacement | Placement | View, to: ProfilePlacement | Placement | View, keys: Iterable<Key>",
    ts_return_type = "ProfileDiff"
)]
pub fn profile_diff(env: Env, from: Raw, to: Raw, keys: Raw) -> Result<Raw> {
    let env = env.raw();
    let (old, old_forms) = side(env, from, "from")?;
    let (new, new_forms) = side(env, to, "to")?;
    let (from_name, to_name) = (old.algorithm(), new.algorithm());
    let switch = Switch::new(old, new);
    let src = source(env, keys.0)?;
    let mut diff = switch.diff();
    let mut buf = KeyBuf::new();
    let mut i = 0usize;
    loop {
        let _scope = Scope::open(env)?;
        let Some(v) = pull(env, src, i)? else { break };
        diff.add(stream_key(env, v, &mut buf, i)?);
        i += 1;
    }
    let old_id = |i: usize| id_value(env, switch.from().node_id(i), old_forms[i]);
    let new_id = |i: usize| id_value(env, switch.to().node_id(i), new_forms[i]);
    let o = js::new_object(env)?;
    js::set_property(env, o, c"from", js::new_string(env, from_name)?)?;
    js::set_property(env, o, c"to", js::new_string(env, to_name)?)?;
    js::set_property(env, o, c"keys", js::new_number(env, diff.keys() as f64)?)?;
    js::set_property(env, o, c"moved", js::new_number(env, diff.moved() as f64)?)?;
    let flows = diff.flows();
    let arr = js::new_array(env, flows.len())?;
    for (j, f) in flows.iter().enumerate() {
        let fo = js::new_object(env)?;
        js::set_property(env, fo, c"from", old_id(f.from)?)?;
        js::set_property(env, fo, c"to", new_id(f.to)?)?;
        js::set_property(env, fo, c"count", js::new_number(env, f.count as f64)?)?;
        js::set_element(env, arr, j as u32, fo)?;
    }
    js::set_property(env, o, c"flows", arr)?;
    let nodes = diff.nodes();
    let arr = js::new_array(env, nodes.len())?;
    for (j, n) in nodes.iter().enumerate() {
        let no = js::new_object(env)?;
        let id = match (n.old, n.new) {
            (Some(i), _) => old_id(i)?,
            (None, Some(i)) => new_id(i)?,
            (None, None) => js::null(env)?,
        };
        js::set_property(env, no, c"id", id)?;
        js::set_property(env, no, c"before", js::new_number(env, n.before as f64)?)?;
        js::set_property(env, no, c"after", js::new_number(env, n.after as f64)?)?;
        js::set_property(env, no, c"inOld", js::new_bool(env, n.old.is_some())?)?;
        js::set_property(env, no, c"inNew", js::new_bool(env, n.new.is_some())?)?;
        js::set_element(env, arr, j as u32, no)?;
    }
    js::set_property(env, o, c"nodes", arr)?;
    Ok(Raw(o))
}
