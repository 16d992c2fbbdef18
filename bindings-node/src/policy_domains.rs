//! The domains-v1 policy (conformance/POLICIES.md, "domains (v1)") over a `Placement`: failure
//! domains first, then nodes, with domain paths read from the placement's domains.

use std::ptr;

use napi::bindgen_prelude::ObjectFinalize;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, JsEnv, KeyBuf, Raw};
use crate::view::instance;
use crate::{checked_replicas, core_error, count_of, key_of, read, Placement};

/// A placement read through the domains-v1 policy at one spread level: each node's domain is a
/// path of levels separated by `/`, and replicas go to distinct domains of that level.
#[napi(custom_finalize)]
pub struct Domains {
    inner: hrwhash::policy::Domains,
    /// The JS `Placement`, which holds the ids in the form they were given.
    placement: sys::napi_ref,
}

impl ObjectFinalize for Domains {
    fn finalize(self, env: Env) -> Result<()> {
        unsafe { sys::napi_delete_reference(env.raw(), self.placement) };
        Ok(())
    }
}

impl Domains {
    fn placement_value(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        let mut v = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_get_reference_value(env.raw(), self.placement, &mut v)
        })?;
        Ok(v)
    }

    /// The JS placement; alive as long as this object holds its reference.
    fn js_placement(&self, env: impl JsEnv) -> Result<&'static Placement> {
        let v = self.placement_value(env)?;
        instance::<Placement>(env, Raw(v))
            .ok_or_else(|| js::type_error(env, "the placement of these Domains is gone"))
    }
}

#[napi]
impl Domains {
    /// The policy over `placement` spreading over `level` (0-based: 0 is the outermost level of
    /// the paths). Every node needs a domain path of the same number of levels.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement<Id>, level: number"
    )]
    pub fn new(env: Env, placement: Raw, level: Raw) -> Result<Domains> {
        let Some(p) = instance::<Placement>(env, placement) else {
            return Err(js::type_error(
                env,
                &format!(
                    "placement is {}, not a Placement",
                    js::describe(env, placement.0)
                ),
            ));
        };
        let level = count_of(env, level, "level")?;
        let inner =
            hrwhash::policy::Domains::new(&p.inner, level).map_err(|e| core_error(env, e))?;
        let mut r = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_create_reference(env.raw(), placement.0, 1, &mut r)
        })?;
        Ok(Domains {
            inner,
            placement: r,
        })
    }

    /// The owner of `key`: the first of its replicas.
    #[napi(catch_unwind, ts_args_type = "key: Key", ts_return_type = "IdOf<Id>")]
    pub fn owner(&self, env: Env, key: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        let p = self.js_placement(env)?;
        Ok(Raw(p.id_value(env, index)?))
    }

    /// The first `k` replicas of `key`, in distinct domains of the spread level while there are
    /// enough; `k` from 1 to the number of nodes of weight above zero.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, k: number",
        ts_return_type = "IdOf<Id>[]"
    )]
    pub fn replicas(&self, env: Env, key: Raw, k: Raw) -> Result<Raw> {
        let indices = checked_replicas(env, key, k, |key, k| self.inner.replica_indices(key, k))?;
        let p = self.js_placement(env)?;
        Ok(Raw(p.id_list(env, &indices)?))
    }

    /// The domain of the spread level `node` is in: its path up to that level (a string when it
    /// is UTF-8, a `Buffer` otherwise).
    #[napi(
        js_name = "domainOf",
        catch_unwind,
        ts_args_type = "node: NodeIdLike",
        ts_return_type = "string | Buffer"
    )]
    pub fn domain_of(&self, env: Env, node: Raw) -> Result<Raw> {
        let mut buf = KeyBuf::new();
        let mut text = None;
        let (id, _) = read(
            env,
            node.0,
            &mut buf,
            &|| "node".to_owned(),
            None,
            &mut text,
        )?;
        crate::no_bad_text(env, text)?;
        let p = self.js_placement(env)?;
        let index = p.index_of(env, id)?;
        let domain = self.inner.domain_of(index).unwrap_or_default();
        Ok(Raw(match std::str::from_utf8(domain) {
            Ok(t) => js::new_string(env, t)?,
            Err(_) => js::new_buffer(env, domain)?,
        }))
    }

    /// The placement the policy reads.
    #[napi(getter, catch_unwind, ts_return_type = "Placement<Id>")]
    pub fn placement(&self, env: Env) -> Result<Raw> {
        Ok(Raw(self.placement_value(env)?))
    }

    /// The spread level (0-based).
    #[napi(getter, catch_unwind)]
    pub fn level(&self) -> u32 {
        self.inner.level() as u32
    }

    /// The number of levels of every domain path.
    #[napi(getter, catch_unwind)]
    pub fn depth(&self) -> u32 {
        self.inner.depth() as u32
    }

    /// The number of domains of the spread level with a node of weight above zero.
    #[napi(getter, js_name = "domainCount", catch_unwind)]
    pub fn domain_count(&self) -> u32 {
        self.inner.domain_count() as u32
    }
}

/// The policy tag: `"domains-v1"`.
#[napi]
pub const DOMAINS_POLICY: &str = hrwhash::policy::domains::DOMAINS_POLICY;
