//! Node bindings for hrwhash: `Placement` answers "which node owns this key?" with hrw-v1,
//! bit for bit like every other hrwhash binding.
//!
//! Node ids come back in the form they were given: a string id as that same string, a binary id
//! as a new `Buffer` (a copy, so a caller cannot alter the placement's answers by mutating it).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod fast;
mod js;

use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use hrwhash::{Node, Seed, Weight};
use napi::bindgen_prelude::ObjectFinalize;
use napi::sys::ValueType as T;
use napi::{sys, Env, Result};
use napi_derive::napi;

use js::{Form, KeyBuf, Kind, Raw};

/// Name of the algorithm; placements agree across languages only when this agrees.
#[napi]
pub const ALGORITHM: &str = hrwhash::ALGORITHM;

/// The seed used when none is given, as 32 lowercase hex digits.
#[napi]
pub const DEFAULT_SEED: &str = "687277686173682d76312d736565642e";

/// Throws the JS form of a core error: an `Error` whose `code` names the variant.
fn core_error(env: sys::napi_env, e: hrwhash::Error) -> napi::Error {
    use hrwhash::Error as E;
    let msg = e.to_string();
    let (code, props): (&str, Vec<(&CStr, f64)>) = match e {
        E::EmptyMembership => ("HRW_EMPTY_MEMBERSHIP", vec![]),
        E::EmptyNodeId { index } => ("HRW_EMPTY_NODE_ID", vec![(c"index", index as f64)]),
        E::DuplicateNodeId { index, first_index } => (
            "HRW_DUPLICATE_NODE_ID",
            vec![
                (c"index", index as f64),
                (c"firstIndex", first_index as f64),
            ],
        ),
        E::InvalidWeight { value } => ("HRW_INVALID_WEIGHT", vec![(c"value", value)]),
        E::AllWeightsZero => ("HRW_ALL_WEIGHTS_ZERO", vec![]),
        E::InvalidSeedLength { len } => ("HRW_INVALID_SEED_LENGTH", vec![(c"length", len as f64)]),
        E::LengthMismatch { expected, actual } => (
            "HRW_LENGTH_MISMATCH",
            vec![(c"expected", expected as f64), (c"actual", actual as f64)],
        ),
        E::UnknownNode => ("HRW_UNKNOWN_NODE", vec![]),
        _ => ("HRW_ERROR", vec![]),
    };
    js::throw(env, Kind::Error, code, &msg, &props)
}

/// How one node was given, so answers go back in the same form.
#[derive(Clone, Copy)]
struct NodeForm {
    id: Form,
    domain: Option<Form>,
}

/// A node parsed from JS, with the original string id (strings are returned as given).
struct Parsed {
    node: Node,
    form: NodeForm,
    id_value: Option<sys::napi_value>,
}

fn key_of<'a>(env: sys::napi_env, v: Raw, buf: &'a mut KeyBuf, what: &str) -> Result<&'a [u8]> {
    match js::bytes(env, v.0, buf)? {
        Some((b, _)) => Ok(b),
        None => Err(js::type_error(
            env,
            &format!("{what} must be a string, Buffer or Uint8Array"),
        )),
    }
}

fn weight_of(env: sys::napi_env, v: sys::napi_value, what: &str) -> Result<Weight> {
    match js::number(env, v)? {
        Some(w) => Weight::new(w).map_err(|e| core_error(env, e)),
        None => Err(js::type_error(env, &format!("{what} must be a number"))),
    }
}

/// `k` as a count: a non-negative integer.
fn count_of(env: sys::napi_env, v: Raw, what: &str) -> Result<usize> {
    match js::number(env, v.0)? {
        Some(k) if k >= 0.0 && k.fract() == 0.0 && k <= u32::MAX as f64 => Ok(k as usize),
        Some(k) => Err(js::range_error(
            env,
            &format!("{what} must be an integer from 0 to 2^32-1, got {k}"),
        )),
        None => Err(js::type_error(env, &format!("{what} must be a number"))),
    }
}

/// One node: an id (string, `Buffer`, `Uint8Array`) or `{ id, weight?, domain? }`.
fn parse_node(env: sys::napi_env, v: sys::napi_value, what: &str) -> Result<Parsed> {
    let mut buf = KeyBuf::new();
    if let Some((id, form)) = js::bytes(env, v, &mut buf)? {
        return Ok(Parsed {
            node: Node::new(id),
            form: NodeForm {
                id: form,
                domain: None,
            },
            id_value: (form == Form::Text).then_some(v),
        });
    }
    let shape = || {
        js::type_error(
            env,
            &format!(
                "{what} must be a string, Buffer, Uint8Array or {{ id, weight?, domain? }} object"
            ),
        )
    };
    if js::type_of(env, v)? != T::napi_object {
        return Err(shape());
    }
    let Some(id_v) = js::property(env, v, c"id")? else {
        return Err(shape());
    };
    let Some((id, id_form)) = js::bytes(env, id_v, &mut buf)? else {
        return Err(js::type_error(
            env,
            &format!("{what}.id must be a string, Buffer or Uint8Array"),
        ));
    };
    let mut node = Node::new(id);
    if let Some(w) = js::property(env, v, c"weight")? {
        node = node.with_weight(weight_of(env, w, &format!("{what}.weight"))?);
    }
    let mut domain = None;
    if let Some(d) = js::property(env, v, c"domain")? {
        let mut dbuf = KeyBuf::new();
        let Some((d, form)) = js::bytes(env, d, &mut dbuf)? else {
            return Err(js::type_error(
                env,
                &format!("{what}.domain must be a string, Buffer or Uint8Array"),
            ));
        };
        node = node.with_domain(d);
        domain = Some(form);
    }
    Ok(Parsed {
        node,
        form: NodeForm {
            id: id_form,
            domain,
        },
        id_value: (id_form == Form::Text).then_some(id_v),
    })
}

fn parse_seed(env: sys::napi_env, v: sys::napi_value) -> Result<Seed> {
    let bytes = match js::type_of(env, v)? {
        T::napi_string => {
            let mut buf = KeyBuf::new();
            let Some((text, _)) = js::bytes(env, v, &mut buf)? else {
                return Err(js::type_error(
                    env,
                    "options.seed must be a hex string or a Uint8Array",
                ));
            };
            match decode_hex(text) {
                Some(b) => b,
                None => {
                    return Err(js::throw(
                        env,
                        Kind::Type,
                        "ERR_INVALID_ARG_VALUE",
                        "options.seed as a string must be hex digits (32 of them for the 16 seed bytes)",
                        &[],
                    ))
                }
            }
        }
        _ => match js::uint8_array(env, v)? {
            Some(b) => b.to_vec(),
            None => {
                return Err(js::type_error(
                    env,
                    "options.seed must be a hex string or a Uint8Array",
                ))
            }
        },
    };
    Seed::from_slice(&bytes).map_err(|e| core_error(env, e))
}

fn decode_hex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An immutable set of nodes that maps keys to nodes with rendezvous hashing (hrw-v1).
///
/// Lookups never fail once built; every "change" returns a new `Placement`.
#[napi(custom_finalize)]
pub struct Placement {
    inner: hrwhash::Placement,
    forms: Vec<NodeForm>,
    /// A JS array holding each string id at its node's index, so string answers cost no
    /// allocation and keep the caller's exact string.
    ids: sys::napi_ref,
    /// Where `fast.rs` found this placement when it checked its type tag (0: not yet).
    verified_at: Cell<usize>,
}

impl ObjectFinalize for Placement {
    fn finalize(self, env: Env) -> Result<()> {
        if self.verified_at.get() != 0 {
            fast::forget(self.verified_at.get());
        }
        unsafe { sys::napi_delete_reference(env.raw(), self.ids) };
        Ok(())
    }
}

impl Placement {
    fn build(env: sys::napi_env, seed: Seed, parsed: Vec<Parsed>) -> Result<Placement> {
        let ids = js::new_array(env, parsed.len())?;
        let mut nodes = Vec::with_capacity(parsed.len());
        let mut forms = Vec::with_capacity(parsed.len());
        for (i, p) in parsed.into_iter().enumerate() {
            if let Some(v) = p.id_value {
                js::set_element(env, ids, i as u32, v)?;
            }
            nodes.push(p.node);
            forms.push(p.form);
        }
        let inner = hrwhash::Placement::from_nodes(seed, nodes).map_err(|e| core_error(env, e))?;
        let mut r = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_create_reference(env, ids, 1, &mut r)
        })?;
        Ok(Placement {
            inner,
            forms,
            ids: r,
            verified_at: Cell::new(0),
        })
    }

    fn ids_array(&self, env: sys::napi_env) -> Result<sys::napi_value> {
        let mut v = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_get_reference_value(env, self.ids, &mut v)
        })?;
        Ok(v)
    }

    /// The id of node `index` as the caller gave it.
    fn id_value(
        &self,
        env: sys::napi_env,
        ids: sys::napi_value,
        index: usize,
    ) -> Result<sys::napi_value> {
        match self.forms[index].id {
            Form::Text => match std::str::from_utf8(self.inner.node_specs()[index].id()) {
                // V8 makes a short string from UTF-8 faster than Node-API reads an array element.
                // A string holding a lone surrogate was stored as U+FFFD, so only for an id
                // containing U+FFFD is the caller's own string fetched back.
                Ok(text) if !text.contains('\u{FFFD}') => js::new_string(env, text),
                _ => js::element(env, ids, index as u32),
            },
            Form::Binary => js::new_buffer(env, self.inner.node_specs()[index].id()),
        }
    }

    fn id_list(
        &self,
        env: sys::napi_env,
        ids: sys::napi_value,
        indices: &[usize],
    ) -> Result<sys::napi_value> {
        let arr = js::new_array(env, indices.len())?;
        // Long batches repeat ids: fetch each string id from the cache array once.
        let mut seen: Vec<sys::napi_value> = if indices.len() > self.forms.len() {
            vec![ptr::null_mut(); self.forms.len()]
        } else {
            Vec::new()
        };
        for (j, &i) in indices.iter().enumerate() {
            let v = match seen.get(i) {
                Some(v) if !v.is_null() && self.forms[i].id == Form::Text => *v,
                _ => {
                    let v = self.id_value(env, ids, i)?;
                    if let Some(slot) = seen.get_mut(i) {
                        *slot = v;
                    }
                    v
                }
            };
            js::set_element(env, arr, j as u32, v)?;
        }
        Ok(arr)
    }

    /// The current nodes in the form `Parsed` carries them, for deriving a new placement.
    fn reparse(&self, env: sys::napi_env) -> Result<Vec<Parsed>> {
        let ids = self.ids_array(env)?;
        self.inner
            .node_specs()
            .iter()
            .zip(&self.forms)
            .enumerate()
            .map(|(i, (node, form))| {
                Ok(Parsed {
                    node: node.clone(),
                    form: *form,
                    id_value: match form.id {
                        Form::Text => Some(js::element(env, ids, i as u32)?),
                        Form::Binary => None,
                    },
                })
            })
            .collect()
    }

    fn index_of(&self, env: sys::napi_env, node: Raw) -> Result<usize> {
        let mut buf = KeyBuf::new();
        let id = key_of(env, node, &mut buf, "node")?;
        match self.inner.find(id) {
            Some(n) => Ok(n.index()),
            None => Err(core_error(env, hrwhash::Error::UnknownNode)),
        }
    }

    /// Keys of a JS array, copied into one buffer (a getter on the array could run JS and free a
    /// borrowed `Uint8Array`, so nothing is borrowed across elements).
    fn collect_keys(env: sys::napi_env, keys: Raw) -> Result<(Vec<u8>, Vec<usize>)> {
        if !js::is_array(env, keys.0)? {
            return Err(js::type_error(env, "keys must be an array"));
        }
        let n = js::array_len(env, keys.0)?;
        let mut data = Vec::new();
        let mut ends = Vec::with_capacity(n as usize);
        let mut buf = KeyBuf::new();
        for i in 0..n {
            let v = js::element(env, keys.0, i)?;
            let Some((key, _)) = js::bytes(env, v, &mut buf)? else {
                return Err(js::type_error(
                    env,
                    &format!("keys[{i}] must be a string, Buffer or Uint8Array"),
                ));
            };
            data.extend_from_slice(key);
            ends.push(data.len());
        }
        Ok((data, ends))
    }
}

fn slices<'a>(data: &'a [u8], ends: &[usize]) -> Vec<&'a [u8]> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let s = &data[start..end];
            start = end;
            s
        })
        .collect()
}

/// The single-key lookups, called from `fast.rs`'s callbacks (see there for why they bypass the
/// `#[napi]` glue).
impl Placement {
    fn owner(&self, env: sys::napi_env, key: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        let ids = self.ids_array(env)?;
        self.id_value(env, ids, index)
    }

    fn owner_index(&self, env: sys::napi_env, key: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        js::new_number(env, index as f64)
    }

    fn rank(&self, env: sys::napi_env, key: Raw, k: Raw) -> Result<sys::napi_value> {
        let k = count_of(env, k, "k")?.min(self.inner.selectable_len());
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?;
        let mut stack = [0usize; STACK_RANK];
        let mut heap = Vec::new();
        let out = if k <= STACK_RANK {
            &mut stack[..k]
        } else {
            heap.resize(k, 0);
            &mut heap[..]
        };
        let n = self.inner.rank_into(key, out);
        let ids = self.ids_array(env)?;
        self.id_list(env, ids, &out[..n])
    }
}

/// Room for common `k` without a heap allocation per lookup.
const STACK_RANK: usize = 16;

#[napi]
impl Placement {
    /// Builds a placement. Node ids are non-empty and unique; weights default to 1 (0 keeps a
    /// node in the membership but never selects it); the seed defaults to `DEFAULT_SEED`.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "nodes: ReadonlyArray<NodeIdLike | NodeSpec>, options?: PlacementOptions"
    )]
    pub fn new(env: Env, nodes: Raw, options: Option<Raw>) -> Result<Placement> {
        let env = env.raw();
        if !js::is_array(env, nodes.0)? {
            return Err(js::type_error(env, "nodes must be an array"));
        }
        let n = js::array_len(env, nodes.0)?;
        let mut parsed = Vec::with_capacity(n as usize);
        for i in 0..n {
            let v = js::element(env, nodes.0, i)?;
            parsed.push(parse_node(env, v, &format!("nodes[{i}]"))?);
        }
        let mut seed = Seed::DEFAULT;
        if let Some(opts) = options {
            match js::type_of(env, opts.0)? {
                T::napi_undefined | T::napi_null => {}
                T::napi_object => {
                    if let Some(s) = js::property(env, opts.0, c"seed")? {
                        seed = parse_seed(env, s)?;
                    }
                    if let Some(w) = js::property(env, opts.0, c"weights")? {
                        if !js::is_array(env, w)? {
                            return Err(js::type_error(
                                env,
                                "options.weights must be an array of numbers",
                            ));
                        }
                        let len = js::array_len(env, w)? as usize;
                        if len != parsed.len() {
                            return Err(core_error(
                                env,
                                hrwhash::Error::LengthMismatch {
                                    expected: parsed.len(),
                                    actual: len,
                                },
                            ));
                        }
                        for (i, p) in parsed.iter_mut().enumerate() {
                            let wv = js::element(env, w, i as u32)?;
                            let weight = weight_of(env, wv, &format!("options.weights[{i}]"))?;
                            p.node = p.node.clone().with_weight(weight);
                        }
                    }
                }
                _ => return Err(js::type_error(env, "options must be an object")),
            }
        }
        Placement::build(env, seed, parsed)
    }

    /// Up to `k` nodes for replicas of `key`, spread over failure domains first (a node without a
    /// domain is a domain of its own), then filled in ranking order.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, k: number",
        ts_return_type = "NodeId[]"
    )]
    pub fn replicas(&self, env: Env, key: Raw, k: Raw) -> Result<Raw> {
        let env = env.raw();
        let k = count_of(env, k, "k")?.min(self.inner.selectable_len());
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?;
        let mut out = vec![0usize; k];
        let n = self.inner.replicas_into(key, &mut out);
        let ids = self.ids_array(env)?;
        Ok(Raw(self.id_list(env, ids, &out[..n])?))
    }

    /// The hrw-v1 score of `key` for `node` (an id in the placement), as an unsigned 64-bit BigInt.
    #[napi(
        catch_unwind,
        ts_args_type = "key: Key, node: NodeIdLike",
        ts_return_type = "bigint"
    )]
    pub fn score(&self, env: Env, key: Raw, node: Raw) -> Result<Raw> {
        let env = env.raw();
        let index = self.index_of(env, node)?;
        let mut buf = KeyBuf::new();
        let key = key_of(env, key, &mut buf, "key")?;
        match self.inner.score(key, index) {
            Some(s) => Ok(Raw(js::new_bigint(env, s)?)),
            None => Err(core_error(env, hrwhash::Error::UnknownNode)),
        }
    }

    /// Owners of many keys, in order.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: ReadonlyArray<Key>",
        ts_return_type = "NodeId[]"
    )]
    pub fn owners(&self, env: Env, keys: Raw) -> Result<Raw> {
        let env = env.raw();
        let (data, ends) = Placement::collect_keys(env, keys)?;
        let owners = self.inner.owners(&slices(&data, &ends));
        let ids = self.ids_array(env)?;
        Ok(Raw(self.id_list(env, ids, &owners)?))
    }

    /// The first `k` nodes of the ranking of each key.
    #[napi(
        catch_unwind,
        ts_args_type = "keys: ReadonlyArray<Key>, k: number",
        ts_return_type = "NodeId[][]"
    )]
    pub fn rank_many(&self, env: Env, keys: Raw, k: Raw) -> Result<Raw> {
        let env = env.raw();
        let k = count_of(env, k, "k")?;
        let (data, ends) = Placement::collect_keys(env, keys)?;
        let k = k.min(self.inner.selectable_len());
        let mut out = vec![0usize; ends.len() * k];
        let per_key = self
            .inner
            .rank_many_into(&slices(&data, &ends), k, &mut out)
            .map_err(|e| core_error(env, e))?;
        let ids = self.ids_array(env)?;
        let rows = js::new_array(env, ends.len())?;
        for (i, row) in out.chunks_exact(k.max(1)).take(ends.len()).enumerate() {
            js::set_element(
                env,
                rows,
                i as u32,
                self.id_list(env, ids, &row[..per_key])?,
            )?;
        }
        if k == 0 {
            for i in 0..ends.len() {
                js::set_element(env, rows, i as u32, js::new_array(env, 0)?)?;
            }
        }
        Ok(Raw(rows))
    }

    /// Owners of keys packed into one buffer, without a JS value per key: key `i` is
    /// `data[offsets[i] .. offsets[i + 1]]`. Returns node indices (positions in `nodes()`).
    #[napi(
        catch_unwind,
        ts_args_type = "data: Uint8Array, offsets: Uint32Array",
        ts_return_type = "Uint32Array"
    )]
    pub fn owners_packed(&self, env: Env, data: Raw, offsets: Raw) -> Result<Raw> {
        let env = env.raw();
        let bytes = match js::type_of(env, data.0)? {
            T::napi_object => js::uint8_array(env, data.0)?,
            _ => None,
        };
        let Some(bytes) = bytes else {
            return Err(js::type_error(env, "data must be a Buffer or Uint8Array"));
        };
        let Some(offsets) = js::uint32_array(env, offsets.0)? else {
            return Err(js::type_error(env, "offsets must be a Uint32Array"));
        };
        if offsets.is_empty() {
            return Err(js::range_error(
                env,
                "offsets must hold at least one entry (n keys need n + 1)",
            ));
        }
        let mut keys = Vec::with_capacity(offsets.len() - 1);
        for (i, w) in offsets.windows(2).enumerate() {
            let (a, b) = (w[0] as usize, w[1] as usize);
            if a > b || b > bytes.len() {
                return Err(js::range_error(
                    env,
                    &format!(
                        "offsets[{i}..{}] = {a}..{b} is not a range within data ({} bytes)",
                        i + 1,
                        bytes.len()
                    ),
                ));
            }
            keys.push(&bytes[a..b]);
        }
        let mut owners = vec![0usize; keys.len()];
        self.inner
            .owners_into(&keys, &mut owners)
            .map_err(|e| core_error(env, e))?;
        // Allocating the result may run the GC, so it comes after the last use of `bytes`.
        drop(keys);
        let (arr, out) = js::new_u32_array(env, owners.len())?;
        for (i, o) in owners.iter().enumerate() {
            unsafe { out.add(i).write(*o as u32) };
        }
        Ok(Raw(arr))
    }

    /// A placement with one more node (at the end of the node list).
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike | NodeSpec")]
    pub fn with_node(&self, env: Env, node: Raw) -> Result<Placement> {
        let env = env.raw();
        let extra = parse_node(env, node.0, "node")?;
        let mut parsed = self.reparse(env)?;
        parsed.push(extra);
        Placement::build(env, self.inner.seed(), parsed)
    }

    /// A placement without the node of this id; the others keep their order.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike")]
    pub fn without_node(&self, env: Env, node: Raw) -> Result<Placement> {
        let env = env.raw();
        let index = self.index_of(env, node)?;
        let mut parsed = self.reparse(env)?;
        parsed.remove(index);
        Placement::build(env, self.inner.seed(), parsed)
    }

    /// A placement where the node of this id has another weight.
    #[napi(catch_unwind, ts_args_type = "node: NodeIdLike, weight: number")]
    pub fn with_weight(&self, env: Env, node: Raw, weight: Raw) -> Result<Placement> {
        let env = env.raw();
        let index = self.index_of(env, node)?;
        let weight = weight_of(env, weight.0, "weight")?;
        let mut parsed = self.reparse(env)?;
        parsed[index].node = parsed[index].node.clone().with_weight(weight);
        Placement::build(env, self.inner.seed(), parsed)
    }

    /// The nodes in build order, with their weights and domains.
    #[napi(catch_unwind, ts_return_type = "NodeInfo[]")]
    pub fn nodes(&self, env: Env) -> Result<Raw> {
        let env = env.raw();
        let ids = self.ids_array(env)?;
        let arr = js::new_array(env, self.inner.len())?;
        for (i, (node, form)) in self.inner.node_specs().iter().zip(&self.forms).enumerate() {
            let o = js::new_object(env)?;
            js::set_property(env, o, c"id", self.id_value(env, ids, i)?)?;
            js::set_property(
                env,
                o,
                c"weight",
                js::new_number(env, node.weight().to_f64())?,
            )?;
            js::set_property(
                env,
                o,
                c"weightFixed",
                js::new_bigint(env, node.weight().to_fixed())?,
            )?;
            let domain = match (node.domain(), form.domain) {
                (Some(d), Some(Form::Text)) => js::new_string(env, &String::from_utf8_lossy(d))?,
                (Some(d), _) => js::new_buffer(env, d)?,
                (None, _) => {
                    let mut v = ptr::null_mut();
                    js::check(env, unsafe { sys::napi_get_null(env, &mut v) })?;
                    v
                }
            };
            js::set_property(env, o, c"domain", domain)?;
            js::set_element(env, arr, i as u32, o)?;
        }
        Ok(Raw(arr))
    }

    /// Number of nodes, including those of weight zero.
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Number of nodes that can be selected (weight above zero).
    #[napi(getter)]
    pub fn selectable_length(&self) -> u32 {
        self.inner.selectable_len() as u32
    }

    /// Whether any two selectable nodes have different weights.
    #[napi(getter)]
    pub fn is_weighted(&self) -> bool {
        self.inner.is_weighted()
    }

    /// The seed, as 32 lowercase hex digits.
    #[napi(getter)]
    pub fn seed(&self) -> String {
        encode_hex(&self.inner.seed().to_bytes())
    }
}

/// hrw-v1's digest of a key under a seed (default: `DEFAULT_SEED`), as an unsigned
/// 64-bit BigInt: the building block of every score.
#[napi(
    catch_unwind,
    ts_args_type = "key: Key, seed?: string | Uint8Array",
    ts_return_type = "bigint"
)]
pub fn key_digest(env: Env, key: Raw, seed: Option<Raw>) -> Result<Raw> {
    let env = env.raw();
    let seed = optional_seed(env, seed)?;
    let mut buf = KeyBuf::new();
    let key = key_of(env, key, &mut buf, "key")?;
    Ok(Raw(js::new_bigint(
        env,
        hrwhash::v1::key_digest(&seed, key),
    )?))
}

fn optional_seed(env: sys::napi_env, seed: Option<Raw>) -> Result<Seed> {
    match seed {
        Some(s) if !matches!(js::type_of(env, s.0)?, T::napi_undefined | T::napi_null) => {
            parse_seed(env, s.0)
        }
        _ => Ok(Seed::DEFAULT),
    }
}

/// hrw-v1's digest of a node id under a seed (default: `DEFAULT_SEED`), as an unsigned 64-bit
/// BigInt.
#[napi(
    catch_unwind,
    ts_args_type = "id: NodeIdLike, seed?: string | Uint8Array",
    ts_return_type = "bigint"
)]
pub fn node_digest(env: Env, id: Raw, seed: Option<Raw>) -> Result<Raw> {
    let env = env.raw();
    let seed = optional_seed(env, seed)?;
    let mut buf = KeyBuf::new();
    let id = key_of(env, id, &mut buf, "id")?;
    Ok(Raw(js::new_bigint(
        env,
        hrwhash::v1::node_digest(&seed, id),
    )?))
}

/// hrw-v1's draw of a score (the uniform variate weighted ranking divides by the weight), as an
/// unsigned 64-bit BigInt.
#[napi(
    catch_unwind,
    ts_args_type = "score: bigint",
    ts_return_type = "bigint"
)]
pub fn draw(env: Env, score: Raw) -> Result<Raw> {
    let env = env.raw();
    match js::bigint_u64(env, score.0)? {
        Some(Ok(s)) => Ok(Raw(js::new_bigint(env, hrwhash::v1::draw(s))?)),
        Some(Err(())) => Err(js::range_error(
            env,
            "score must be a bigint from 0 to 2^64-1",
        )),
        None => Err(js::type_error(env, "score must be a bigint")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_seed_constant_matches_core() {
        assert_eq!(DEFAULT_SEED, encode_hex(&Seed::DEFAULT.to_bytes()));
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(decode_hex(b"00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(decode_hex(b"0g"), None);
        assert_eq!(decode_hex(b"abc"), None);
    }
}
