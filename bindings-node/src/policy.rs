//! `BoundedLoad` (bounded-load-v1 of conformance/POLICIES.md) over a `Placement` or `View`,
//! answering with the placement's node ids in the form they were given; `ids`, which the other
//! policies answer with too.

use hrwhash::policy;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::js::{self, JsEnv, KeyBuf, Kind, Raw};
use crate::view::{id_value, membership};
use crate::{core_error, count_value, key_of, no_bad_text, slices, NodeForm, Placement};

/// Name and version of the policy `BoundedLoad` implements.
#[napi]
pub const BOUNDED_LOAD_POLICY: &str = policy::BOUNDED_LOAD_POLICY;

pub(crate) fn ids(
    env: impl JsEnv,
    p: &hrwhash::Placement,
    forms: &[NodeForm],
    indices: &[usize],
) -> Result<sys::napi_value> {
    let arr = js::new_array(env, indices.len())?;
    for (j, &i) in indices.iter().enumerate() {
        let v = id_value(env, p.node_specs()[i].id(), forms[i].id)?;
        js::set_element(env, arr, j as u32, v)?;
    }
    Ok(arr)
}

/// A factor's `num` or `den`: a number (`None` otherwise, a type error), and `Err` with its value
/// when it is not an integer of 0..2^32, which no factor has (POLICIES.md: InvalidBalanceFactor).
fn ratio_part(
    env: impl JsEnv,
    v: sys::napi_value,
) -> Result<Option<std::result::Result<u32, f64>>> {
    Ok(js::number(env, v)?.map(|d| {
        if d.fract() == 0.0 && (0.0..4_294_967_296.0).contains(&d) {
            Ok(d as u32)
        } else {
            Err(d)
        }
    }))
}

/// The balance factor: a number >= 1 (rounded to millionths), or an exact `[num, den]` pair.
fn factor_arg(env: impl JsEnv, c: Raw) -> Result<policy::BalanceFactor> {
    let made = if let Some(d) = js::number(env, c.0)? {
        policy::BalanceFactor::from_f64(d)
    } else if js::is_array(env, c.0)? && js::array_len(env, c.0)? == 2 {
        let num = ratio_part(env, js::element(env, c.0, 0)?)?;
        let den = ratio_part(env, js::element(env, c.0, 1)?)?;
        match (num, den) {
            (Some(Ok(num)), Some(Ok(den))) => policy::BalanceFactor::new(num, den),
            (Some(num), Some(den)) => Err(hrwhash::Error::InvalidBalanceFactor {
                value: num.map_or_else(|v| v, f64::from) / den.map_or_else(|v| v, f64::from),
            }),
            _ => {
                return Err(js::type_error(
                    env,
                    "c as an array is [num, den], two numbers",
                ))
            }
        }
    } else {
        return Err(js::type_error(
            env,
            &format!(
                "c is {}, not a number or a [num, den] array",
                js::describe(env, c.0)
            ),
        ));
    };
    made.map_err(|e| core_error(env, e))
}

/// Loads: an array of `bigint`s or safe-integer `number`s, each from 0 to 2^64 - 1.
fn loads_arg(env: impl JsEnv, loads: Raw) -> Result<Vec<u64>> {
    js::array(env, loads.0, "loads", "integers")?;
    let n = js::array_len(env, loads.0)?;
    let mut out = Vec::new();
    for i in 0..n {
        let v = js::element(env, loads.0, i)?;
        let index = i as usize;
        let load = match js::bigint_u64(env, v)? {
            Some(Ok(l)) => l,
            Some(Err(())) => return Err(load_range(env, index, "it is not in 0..2^64 - 1")),
            None => match js::number(env, v)? {
                Some(d) => count_value(env, d, &format!("loads[{i}]"))
                    .map_err(|_| load_range(env, index, "it is not a safe integer >= 0"))?
                    as u64,
                None => {
                    return Err(js::type_error_at(
                        env,
                        &format!(
                            "loads[{i}] is {}, not a bigint or a number",
                            js::describe(env, v)
                        ),
                        index,
                    ))
                }
            },
        };
        out.push(load);
    }
    Ok(out)
}

fn load_range(env: impl JsEnv, index: usize, problem: &str) -> napi::Error {
    // A pending exception from count_value is replaced by this one.
    let mut ignored = std::ptr::null_mut();
    unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut ignored) };
    js::throw(
        env,
        Kind::Range,
        "HRW_INVALID_COUNT",
        &format!("loads[{index}] is not a load: {problem}"),
        &[(c"index", index as f64)],
    )
}

/// Key affinity with an overload guard (bounded-load-v1): a key goes to the first node of its
/// ranking whose load is below its cap, about `c` times its share of the total.
#[napi]
pub struct BoundedLoad {
    inner: policy::BoundedLoad,
    forms: Vec<NodeForm>,
}

#[napi]
impl BoundedLoad {
    /// The policy over `placement` with balance factor `c`: a number >= 1 (rounded to
    /// millionths) or an exact `[num, den]` pair with `den >= 1` and `num >= den`.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "placement: Placement<Id> | ViewOf<Id>, c: number | [number, number]"
    )]
    pub fn new(env: Env, placement: Raw, c: Raw) -> Result<BoundedLoad> {
        let (p, forms) = membership(env, placement, "placement")?;
        let factor = factor_arg(env, c)?;
        Ok(BoundedLoad {
            inner: policy::BoundedLoad::new(p, factor),
            forms,
        })
    }

    /// The balance factor as an exact `[num, den]` pair.
    #[napi(getter, catch_unwind, ts_return_type = "[number, number]")]
    pub fn factor(&self, env: Env) -> Result<Raw> {
        let f = self.inner.factor();
        let arr = js::new_array(env, 2)?;
        js::set_element(env, arr, 0, js::new_number(env, f.num() as f64)?)?;
        js::set_element(env, arr, 1, js::new_number(env, f.den() as f64)?)?;
        Ok(Raw(arr))
    }

    /// The build-order index of the node for `key`, given the current load of every node (build
    /// order, nodes of weight 0 included). A placement loaded from a view document has its nodes
    /// in id order (VIEW.md section 2): match loads to `placement.nodes()` by id after a load.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, loads: ReadonlyArray<number | bigint>"
    )]
    pub fn owner_index(&self, env: Env, key: Raw, loads: Raw) -> Result<u32> {
        Ok(self.index(env, key, loads)? as u32)
    }

    /// The node id for `key`, given the current load of every node.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, loads: ReadonlyArray<number | bigint>",
        ts_return_type = "IdOf<Id>"
    )]
    pub fn owner(&self, env: Env, key: Raw, loads: Raw) -> Result<Raw> {
        let i = self.index(env, key, loads)?;
        ids(env, self.inner.placement(), &self.forms, &[i])
            .and_then(|arr| js::element(env, arr, 0))
            .map(Raw)
    }

    /// Batch assignment of `keys` in order: one build-order index per key.
    #[napi(catch_unwind, ts_args_type = "keys: ReadonlyArray<Key>")]
    pub fn assign_indices(&self, env: Env, keys: Raw) -> Result<Vec<u32>> {
        Ok(self
            .batch(env, keys)?
            .into_iter()
            .map(|i| i as u32)
            .collect())
    }

    /// Batch assignment of `keys` in order: one node id per key.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: ReadonlyArray<Key>",
        ts_return_type = "IdOf<Id>[]"
    )]
    pub fn assign(&self, env: Env, keys: Raw) -> Result<Raw> {
        let owners = self.batch(env, keys)?;
        ids(env, self.inner.placement(), &self.forms, &owners).map(Raw)
    }
}

impl BoundedLoad {
    fn index(&self, env: impl JsEnv, key: Raw, loads: Raw) -> Result<usize> {
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?.to_vec();
        let loads = loads_arg(env, loads)?;
        self.inner
            .owner_index(&key, &loads)
            .map_err(|e| core_error(env, e))
    }

    fn batch(&self, env: impl JsEnv, keys: Raw) -> Result<Vec<usize>> {
        let (data, ends, text) = Placement::collect_keys(env, keys)?;
        no_bad_text(env, text)?;
        self.inner
            .assign(&slices(&data, &ends))
            .map_err(|e| core_error(env, e))
    }
}
