//! `Placement`: an immutable membership that answers "which node owns this key?" with hrw-v1.
//!
//! Node ids come back in the form they were given: a string id as that same string, a binary id
//! as a new `Buffer` (a copy, so a caller cannot alter the placement's answers by mutating it).
//!
//! Only the constructor goes through napi-derive's glue. Every method and getter is a raw
//! Node-API callback installed by `fast.rs`, for two measured or tested reasons:
//! - `owner`, `ownerIndex` and `rank` are the hot paths: skipping the glue halved the call
//!   overhead and remembering the receiver check cut a further 90 ns of `owner()` at N=100
//!   (BENCHMARKS.md, "Node peers"); `owners`/`rankMany` read arrays element by element and
//!   `ownerIndices` runs at the core's speed only without a JS value per key (same section).
//! - napi-derive's methods and getters carry a V8 signature, so a call on a foreign receiver
//!   throws V8's "Illegal invocation" without a `code`; the package's contract is a `TypeError`
//!   with `ERR_INVALID_ARG_TYPE` for every method and getter (test/contract.test.js).
use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use hrwhash::{Node, Seed, Weight};
use napi::bindgen_prelude::ObjectFinalize;
use napi::sys::ValueType as T;
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::args::{
    accept, added_node, checked_replicas, core_error, count_arg, count_value, encode_hex,
    invalid_at, key_and_count, key_of, known_node, new_weight, no_bad_text, read, seed_arg,
    seed_of, slices, weight_arg, weight_error, BadText,
};
use crate::fast;
use crate::gather;
use crate::js::{self, Bytes, Form, JsEnv, KeyBuf, Kind, Raw, View};

/// How one node was given, so answers go back in the same form.
#[derive(Clone, Copy)]
pub(crate) struct NodeForm {
    pub(crate) id: Form,
    pub(crate) domain: Option<Form>,
}

/// A node parsed from JS, with the original string id (strings are returned as given).
pub(crate) struct Parsed {
    pub(crate) node: Node,
    pub(crate) form: NodeForm,
    pub(crate) id_value: Option<sys::napi_value>,
}

/// A node as the caller gave it: its weight, if any, is checked after every argument's shape.
pub(crate) struct Given {
    pub(crate) parsed: Parsed,
    pub(crate) weight: Option<f64>,
}

/// `obj[name]`, or `None` when it is `undefined` or `null` (both mean "not given").
pub(crate) fn optional(
    env: impl JsEnv,
    obj: sys::napi_value,
    name: &CStr,
) -> Result<Option<sys::napi_value>> {
    match js::property(env, obj, name)? {
        Some(v) if !js::is_null_or_undefined(env, v)? => Ok(Some(v)),
        _ => Ok(None),
    }
}

/// The members of a node object `{ id, weight?, domain? }`.
const NODE_MEMBERS: [&str; 3] = ["id", "weight", "domain"];

/// One node: an id (string, `Buffer`, `Uint8Array`) or `{ id, weight?, domain? }`.
pub(crate) fn parse_node(
    env: impl JsEnv,
    v: sys::napi_value,
    what: &dyn Fn() -> String,
    index: Option<usize>,
    text: &mut Option<BadText>,
) -> Result<Given> {
    let mut buf = KeyBuf::new();
    match js::bytes(env, v, &mut buf)? {
        Bytes::Other => {}
        got => {
            let (id, form) = accept(env, v, got, what, index, text)?;
            return Ok(Given {
                parsed: Parsed {
                    node: Node::new(id),
                    form: NodeForm {
                        id: form,
                        domain: None,
                    },
                    id_value: (form == Form::Text).then_some(v),
                },
                weight: None,
            });
        }
    }
    let id_v = match js::type_of(env, v)? {
        T::napi_object if !js::is_array(env, v)? => js::property(env, v, c"id")?,
        _ => None,
    };
    let Some(id_v) = id_v else {
        return Err(invalid_at(
            env,
            &format!(
                "{} is {}, not a string, Buffer, Uint8Array or {{ id, weight?, domain? }} object",
                what(),
                js::describe(env, v)
            ),
            index,
        ));
    };
    // A misspelled member (`wieght`) would otherwise be ignored and the node given weight 1.
    for key in js::own_keys(env, v)? {
        if !NODE_MEMBERS.contains(&key.as_str()) {
            return Err(invalid_at(
                env,
                &format!(
                    "{}.{key} is not a member of a node object (it has id, weight and domain)",
                    what()
                ),
                index,
            ));
        }
    }
    let (id, id_form) = read(
        env,
        id_v,
        &mut buf,
        &|| format!("{}.id", what()),
        index,
        text,
    )?;
    let mut node = Node::new(id);
    let weight = match optional(env, v, c"weight")? {
        Some(w) => Some(weight_arg(env, w, &|| format!("{}.weight", what()), index)?),
        None => None,
    };
    let mut domain = None;
    if let Some(d) = optional(env, v, c"domain")? {
        let mut dbuf = KeyBuf::new();
        let (d, form) = read(
            env,
            d,
            &mut dbuf,
            &|| format!("{}.domain", what()),
            index,
            text,
        )?;
        node = node.with_domain(d);
        domain = Some(form);
    }
    Ok(Given {
        parsed: Parsed {
            node,
            form: NodeForm {
                id: id_form,
                domain,
            },
            id_value: (id_form == Form::Text).then_some(id_v),
        },
        weight,
    })
}

/// The options `new Placement` knows; any other name is a mistake the caller must hear about.
pub(crate) const OPTIONS: [&str; 3] = ["weights", "domains", "seed"];

/// The ids, weights, domains and seed of `new Placement(nodes, options)`, checked in the order of
/// API.md section 4.
pub(crate) fn parse_membership(
    env: impl JsEnv,
    nodes: Raw,
    options: Option<Raw>,
) -> Result<(Seed, Vec<Parsed>)> {
    let mut text = None;
    js::array(
        env,
        nodes.0,
        "nodes",
        "ids or { id, weight?, domain? } objects",
    )?;
    // Nothing is sized by `length` before its elements are read: an array-like may claim any
    // length without holding anything.
    let n = js::array_len(env, nodes.0)?;
    let mut given = Vec::new();
    for i in 0..n {
        let v = js::element(env, nodes.0, i)?;
        let i = i as usize;
        given.push(parse_node(
            env,
            v,
            &|| format!("nodes[{i}]"),
            Some(i),
            &mut text,
        )?);
    }
    let mut weights: Option<Vec<f64>> = None;
    let mut domains: Option<Vec<Domain>> = None;
    // The lists' own lengths, which may exceed what was read of them.
    let (mut weights_len, mut domains_len) = (None, None);
    let mut seed = None;
    if let Some(opts) = js::options(env, options, "{ weights?, domains?, seed? }")? {
        if let Some(w) = optional(env, opts, c"weights")? {
            weights = Some(parse_weights(env, w, &given)?);
            weights_len = Some(js::array_len(env, w)? as usize);
        }
        if let Some(d) = optional(env, opts, c"domains")? {
            domains = Some(parse_domains(env, d, &given, &mut text)?);
            domains_len = Some(js::array_len(env, d)? as usize);
        }
        if let Some(s) = optional(env, opts, c"seed")? {
            seed = Some(seed_arg(env, s, "options.seed")?);
        }
        js::only_options(
            env,
            opts,
            &OPTIONS,
            "Placement (it has weights, domains and seed)",
        )?;
    }
    no_bad_text(env, text)?;
    for (list, len) in [
        ("options.weights", weights_len),
        ("options.domains", domains_len),
    ] {
        if let Some(len) = len.filter(|&l| l != given.len()) {
            return Err(js::throw(
                env,
                Kind::Error,
                "HRW_LENGTH_MISMATCH",
                &format!(
                    "{list} has {len} {} for {} nodes",
                    if len == 1 { "entry" } else { "entries" },
                    given.len()
                ),
                &[(c"expected", given.len() as f64), (c"actual", len as f64)],
            ));
        }
    }
    // SPEC.md section 7: the seed, then every weight, then the core's membership checks.
    let seed = seed_of(env, seed)?;
    let mut parsed = Vec::with_capacity(given.len());
    for (i, g) in given.into_iter().enumerate() {
        let mut p = g.parsed;
        let (weight, what) = match &weights {
            Some(ws) => (Some(ws[i]), "options.weights"),
            None => (g.weight, "nodes"),
        };
        if let Some(w) = weight {
            let what = if what == "nodes" {
                format!("nodes[{i}].weight")
            } else {
                format!("options.weights[{i}]")
            };
            let w = Weight::new(w).map_err(|_| weight_error(env, w, Some(i), &what))?;
            p.node = p.node.with_weight(w);
        }
        if let Some(Some((d, form))) = domains.as_mut().map(|ds| ds[i].take()) {
            p.node = p.node.with_domain(d);
            p.form.domain = Some(form);
        }
        parsed.push(p);
    }
    Ok((seed, parsed))
}

/// How many elements of a weights or domains list to read: all of them, or one more than the
/// nodes when it is longer. That one shows the mismatch; reading on would only check elements the
/// mismatch already rejects, and a hole is "no domain", so an array-like of length 2^32 - 1 would
/// take minutes.
pub(crate) fn list_len(env: impl JsEnv, list: sys::napi_value, nodes: usize) -> Result<u32> {
    let len = js::array_len(env, list)?;
    Ok(len.min(u32::try_from(nodes + 1).unwrap_or(u32::MAX)))
}

/// `options.weights`: numbers, one per node, none for a node that has its own.
pub(crate) fn parse_weights(
    env: impl JsEnv,
    w: sys::napi_value,
    given: &[Given],
) -> Result<Vec<f64>> {
    js::array(env, w, "options.weights", "numbers")?;
    let mut out = Vec::new();
    for i in 0..list_len(env, w, given.len())? {
        let v = js::element(env, w, i)?;
        let i = i as usize;
        out.push(weight_arg(
            env,
            v,
            &|| format!("options.weights[{i}]"),
            Some(i),
        )?);
        if given.get(i).is_some_and(|g| g.weight.is_some()) {
            return Err(js::type_error_at(
                env,
                &format!(
                    "nodes[{i}] has a weight of its own and options.weights[{i}] gives it another"
                ),
                i,
            ));
        }
    }
    Ok(out)
}

/// A node's failure domain from `options.domains`: its bytes and form, or `None` for no domain.
pub(crate) type Domain = Option<(Vec<u8>, Form)>;

/// `options.domains`: a domain (or `null` for none) per node, none for a node that has its own.
pub(crate) fn parse_domains(
    env: impl JsEnv,
    d: sys::napi_value,
    given: &[Given],
    text: &mut Option<BadText>,
) -> Result<Vec<Domain>> {
    js::array(env, d, "options.domains", "strings, Buffers or Uint8Arrays")?;
    let mut out = Vec::new();
    let mut buf = KeyBuf::new();
    for i in 0..list_len(env, d, given.len())? {
        let v = js::element(env, d, i)?;
        let i = i as usize;
        if js::is_null_or_undefined(env, v)? {
            out.push(None);
            continue;
        }
        let (b, form) = read(
            env,
            v,
            &mut buf,
            &|| format!("options.domains[{i}]"),
            Some(i),
            text,
        )?;
        out.push(Some((b.to_vec(), form)));
        if given.get(i).is_some_and(|g| g.parsed.form.domain.is_some()) {
            return Err(js::type_error_at(
                env,
                &format!(
                    "nodes[{i}] has a domain of its own and options.domains[{i}] gives it another"
                ),
                i,
            ));
        }
    }
    Ok(out)
}

/// An immutable set of nodes that maps keys to nodes with rendezvous hashing (hrw-v1).
///
/// Lookups never fail once built; every "change" returns a new `Placement`.
#[napi(custom_finalize)]
pub struct Placement {
    pub(crate) inner: hrwhash::Placement,
    pub(crate) forms: Vec<NodeForm>,
    /// A JS array holding each string id at its node's index, so string answers cost no
    /// allocation and keep the caller's exact string.
    pub(crate) ids: sys::napi_ref,
    /// Whether every id is a string (then short answers are built by `gather`).
    pub(crate) text_ids: bool,
    /// Per node: its id is a string whose UTF-8 holds no U+FFFD, so an answer can make it again
    /// from the bytes without checking them (checked once here, not on every answer).
    pub(crate) plain_text: Vec<bool>,
    /// Where `fast.rs` found this placement when it checked its type tag (0: not yet).
    pub(crate) verified_at: Cell<usize>,
}

impl ObjectFinalize for Placement {
    fn finalize(self, env: Env) -> Result<()> {
        if self.verified_at.get() != 0 {
            fast::forget(env.raw(), self.verified_at.get());
        }
        unsafe { sys::napi_delete_reference(env.raw(), self.ids) };
        Ok(())
    }
}

impl Placement {
    pub(crate) fn build(env: impl JsEnv, seed: Seed, parsed: Vec<Parsed>) -> Result<Placement> {
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
            sys::napi_create_reference(env.raw(), ids, 1, &mut r)
        })?;
        let plain_text = inner
            .node_specs()
            .iter()
            .zip(&forms)
            .map(|(n, f)| {
                f.id == Form::Text
                    && std::str::from_utf8(n.id()).is_ok_and(|t| !t.contains('\u{FFFD}'))
            })
            .collect();
        Ok(Placement {
            inner,
            text_ids: forms.iter().all(|f| f.id == Form::Text),
            plain_text,
            forms,
            ids: r,
            verified_at: Cell::new(0),
        })
    }

    pub(crate) fn ids_array(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        let mut v = ptr::null_mut();
        js::check(env, unsafe {
            sys::napi_get_reference_value(env.raw(), self.ids, &mut v)
        })?;
        Ok(v)
    }

    /// The id of node `index` as the caller gave it.
    pub(crate) fn id_value(&self, env: impl JsEnv, index: usize) -> Result<sys::napi_value> {
        if self.plain_text[index] {
            // SAFETY: checked to be UTF-8 when the placement was built.
            let text =
                unsafe { std::str::from_utf8_unchecked(self.inner.node_specs()[index].id()) };
            return js::new_string(env, text);
        }
        match self.forms[index].id {
            Form::Text => match std::str::from_utf8(self.inner.node_specs()[index].id()) {
                // V8 makes a short string from UTF-8 faster than Node-API reads an array element.
                // A string holding a lone surrogate was stored as U+FFFD, so only for an id
                // containing U+FFFD is the caller's own string fetched back.
                Ok(text) if !text.contains('\u{FFFD}') => js::new_string(env, text),
                _ => js::element(env, self.ids_array(env)?, index as u32),
            },
            Form::Binary => js::new_buffer(env, self.inner.node_specs()[index].id()),
        }
    }

    pub(crate) fn id_list(&self, env: impl JsEnv, indices: &[usize]) -> Result<sys::napi_value> {
        if self.text_ids && indices.len() <= gather::MAX {
            if let Some(arr) = gather::gather(env, self.ids_array(env)?, indices)? {
                return Ok(arr);
            }
        }
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
                    let v = self.id_value(env, i)?;
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
    pub(crate) fn reparse(&self, env: impl JsEnv) -> Result<Vec<Parsed>> {
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

    /// The index of the node whose id `id` is (a `read` result), or `UnknownNode`.
    pub(crate) fn index_of(&self, env: impl JsEnv, id: &[u8]) -> Result<usize> {
        match self.inner.find(id) {
            Some(n) => Ok(n.index()),
            None => Err(core_error(env, hrwhash::Error::UnknownNode)),
        }
    }

    /// Keys of a JS array, copied into one buffer (a getter on the array could run JS and free a
    /// borrowed `Uint8Array`, so nothing is borrowed across elements). A key without a UTF-8 form
    /// is returned, not thrown, so that a later argument's type error comes first.
    pub(crate) fn collect_keys(
        env: impl JsEnv,
        keys: Raw,
    ) -> Result<(Vec<u8>, Vec<usize>, Option<BadText>)> {
        js::array(env, keys.0, "keys", "keys")?;
        // Nothing is sized by `length` before its elements are read: an array-like may claim any
        // length without holding anything.
        let n = js::array_len(env, keys.0)?;
        let mut data = Vec::new();
        let mut ends = Vec::new();
        let mut buf = KeyBuf::new();
        let mut text = None;
        for i in 0..n {
            let v = js::element(env, keys.0, i)?;
            let i = i as usize;
            let (key, _) = read(
                env,
                v,
                &mut buf,
                &|| format!("keys[{i}]"),
                Some(i),
                &mut text,
            )?;
            data.extend_from_slice(key);
            ends.push(data.len());
        }
        Ok((data, ends, text))
    }
}

/// The single-key lookups, called from `fast.rs`'s callbacks (see there for why they bypass the
/// `#[napi]` glue).
impl Placement {
    /// The owner of `key` for `fast.js`: the id array with the owner's index in the scratch, or
    /// the id itself.
    pub(crate) fn owner_ids(&self, env: impl JsEnv, key: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        if self.forms[index].id == Form::Text {
            if let Some(scratch) = fast::scratch(env.raw()) {
                // Fits, and is never the scratch's NONE: a placement has fewer than 2^32 - 1 nodes.
                scratch[0] = index as u32;
                return self.ids_array(env);
            }
        }
        self.id_value(env, index)
    }

    pub(crate) fn owner_index(&self, env: impl JsEnv, key: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let index = self.inner.owner_index(key_of(env, key, &mut buf, "key")?);
        js::new_number(env, index as f64)
    }

    /// `rank` for `fast.js`: the id array with the count and indices in the scratch, or the
    /// whole answer.
    pub(crate) fn rank_ids(&self, env: impl JsEnv, key: Raw, k: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let (key, k) = key_and_count(env, key, k, &mut buf)?;
        let k = k.min(self.inner.selectable_len());
        let mut stack = [0usize; STACK_RANK];
        let mut heap = Vec::new();
        let out = if k <= STACK_RANK {
            &mut stack[..k]
        } else {
            heap.resize(k, 0);
            &mut heap[..]
        };
        let n = self.inner.rank_into(key, out);
        if self.text_ids && n <= gather::MAX {
            if let Some(scratch) = fast::scratch(env.raw()) {
                scratch[0] = n as u32;
                for (slot, &i) in scratch[1..].iter_mut().zip(&out[..n]) {
                    *slot = i as u32;
                }
                return self.ids_array(env);
            }
        }
        self.id_list(env, &out[..n])
    }
}

/// Room for common `k` without a heap allocation per lookup.
pub(crate) const STACK_RANK: usize = gather::MAX;

#[napi]
impl Placement {
    /// Builds a placement. Node ids are non-empty and unique; weights default to 1 (0 keeps a
    /// node in the membership but never selects it); the seed defaults to `DEFAULT_SEED`.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "nodes: ReadonlyArray<Id | NodeSpec<Id>> & ReadonlyArray<NodeIdLike | NodeSpec>, options?: PlacementOptions | null"
    )]
    pub fn new(env: Env, nodes: Raw, options: Option<Raw>) -> Result<Placement> {
        let (seed, parsed) = parse_membership(env, nodes, options)?;
        Placement::build(env, seed, parsed)
    }
}

/// The other methods and getters, called from `fast.rs`'s callbacks (see there for why they are
/// not `#[napi]` methods).
impl Placement {
    pub(crate) fn replicas(&self, env: impl JsEnv, key: Raw, k: Raw) -> Result<sys::napi_value> {
        let mut buf = KeyBuf::new();
        let (key, k) = key_and_count(env, key, k, &mut buf)?;
        let k = k.min(self.inner.selectable_len());
        let mut out = vec![0usize; k];
        let n = self.inner.replicas_into(key, &mut out);
        self.id_list(env, &out[..n])
    }

    pub(crate) fn replicas_strict(
        &self,
        env: impl JsEnv,
        key: Raw,
        k: Raw,
    ) -> Result<sys::napi_value> {
        let indices = checked_replicas(env, key, k, |key, k| {
            let nodes = self.inner.replicas_strict(key, k)?;
            Ok(nodes.iter().map(|n| n.index()).collect())
        })?;
        self.id_list(env, &indices)
    }

    pub(crate) fn score(&self, env: impl JsEnv, key: Raw, node: Raw) -> Result<sys::napi_value> {
        let mut text = None;
        let (mut kbuf, mut nbuf) = (KeyBuf::new(), KeyBuf::new());
        let (key, _) = read(env, key.0, &mut kbuf, &|| "key".to_owned(), None, &mut text)?;
        let (id, _) = read(
            env,
            node.0,
            &mut nbuf,
            &|| "node".to_owned(),
            None,
            &mut text,
        )?;
        no_bad_text(env, text)?;
        match self.inner.score(key, id) {
            Ok(s) => js::new_bigint(env, s),
            Err(e) => Err(core_error(env, e)),
        }
    }

    pub(crate) fn owners(&self, env: impl JsEnv, keys: Raw) -> Result<sys::napi_value> {
        let (data, ends, text) = Placement::collect_keys(env, keys)?;
        no_bad_text(env, text)?;
        let owners = self.inner.owners(&slices(&data, &ends));
        self.id_list(env, &owners)
    }

    pub(crate) fn rank_many(&self, env: impl JsEnv, keys: Raw, k: Raw) -> Result<sys::napi_value> {
        let (data, ends, text) = Placement::collect_keys(env, keys)?;
        let k = count_arg(env, k, "k")?;
        no_bad_text(env, text)?;
        let k = count_value(env, k, "k")?.min(self.inner.selectable_len());
        self.check_result_size(env, ends.len(), k)?;
        let keys = slices(&data, &ends);
        let rows = js::new_array(env, keys.len())?;
        // The native buffer holds a slice of the answer at a time, never keys x k slots at once.
        let per_chunk = (RANK_MANY_SLOTS / k.max(1)).max(1);
        let mut out = vec![0usize; per_chunk.min(keys.len()) * k];
        for (c, chunk) in keys.chunks(per_chunk).enumerate() {
            let out = &mut out[..chunk.len() * k];
            let per_key = self
                .inner
                .rank_many_into(chunk, k, out)
                .map_err(|e| core_error(env, e))?;
            for (j, row) in out.chunks_exact(k.max(1)).enumerate() {
                let row = if k == 0 { &[][..] } else { &row[..per_key] };
                let i = (c * per_chunk + j) as u32;
                js::set_element(env, rows, i, self.id_list(env, row)?)?;
            }
            if k == 0 {
                for j in 0..chunk.len() {
                    let i = (c * per_chunk + j) as u32;
                    js::set_element(env, rows, i, js::new_array(env, 0)?)?;
                }
            }
        }
        Ok(rows)
    }

    /// `ResultTooLarge` for a batch ranking of `keys` keys with `k` ids each (`k` already capped
    /// at the selectable nodes) that no array could hold or the JS heap has no room for: V8 ends
    /// the process when it runs out of heap, so this is the last moment to say so.
    pub(crate) fn check_result_size(&self, env: impl JsEnv, keys: usize, k: usize) -> Result<()> {
        let too_large = |why: String| {
            js::throw(
                env,
                Kind::Range,
                "HRW_RESULT_TOO_LARGE",
                &format!("rankMany of {keys} keys with {k} ids each is {why}"),
                &[],
            )
        };
        let Some(ids) = keys.checked_mul(k).filter(|&n| n <= u32::MAX as usize) else {
            return Err(too_large(format!(
                "{} ids, more than 2^32 - 1",
                keys as u128 * k as u128
            )));
        };
        // A row costs at least its array and its elements' slots; a binary id is a new Buffer
        // each time it appears (a lower bound of their sizes: a result this size surely fails).
        let per_id = if self.forms.iter().any(|f| f.id == Form::Binary) {
            8.0 + 96.0
        } else {
            8.0
        };
        let need = ids as f64 * per_id + keys as f64 * 48.0;
        if need >= HEAP_CHECK_BYTES {
            if let Some(available) = js::heap_available(env) {
                if need > available {
                    return Err(too_large(format!(
                        "{ids} ids, which need at least {need:.0} bytes of JavaScript heap; {available:.0} are available"
                    )));
                }
            }
        }
        Ok(())
    }

    pub(crate) fn owner_indices(
        &self,
        env: impl JsEnv,
        data: Raw,
        offsets: Raw,
    ) -> Result<sys::napi_value> {
        let bytes = match js::uint8_array(env, data.0)? {
            View::Elements(b) => b,
            View::Detached => return Err(detached(env, "data is a Uint8Array")),
            View::Other => return Err(not_array(env, "data", data, "a Buffer or Uint8Array")),
        };
        // Arrow's string and binary arrays keep int32 offsets; both widths are read as i64.
        let offsets: Vec<i64> = match js::uint32_array(env, offsets.0)? {
            View::Elements(o) => o.iter().map(|&x| x as i64).collect(),
            View::Detached => return Err(detached(env, "offsets is a typed array")),
            View::Other => match js::int32_array(env, offsets.0)? {
                View::Elements(o) => o.iter().map(|&x| x as i64).collect(),
                View::Detached => return Err(detached(env, "offsets is a typed array")),
                View::Other => {
                    let expected = "a Uint32Array or Int32Array";
                    return Err(not_array(env, "offsets", offsets, expected));
                }
            },
        };
        if offsets.is_empty() {
            return Err(js::type_error(
                env,
                "offsets is empty; n keys need n + 1 offsets",
            ));
        }
        let mut keys = Vec::with_capacity(offsets.len() - 1);
        for (i, w) in offsets.windows(2).enumerate() {
            let (a, b) = (w[0], w[1]);
            let problem = if a < 0 {
                Some((i, format!("offsets[{i}] = {a} is negative")))
            } else if b < a {
                Some((
                    i + 1,
                    format!("offsets[{}] = {b} is below offsets[{i}] = {a}", i + 1),
                ))
            } else if b as u64 > bytes.len() as u64 {
                Some((
                    i + 1,
                    format!(
                        "offsets[{}] = {b} is beyond the end of data ({} bytes)",
                        i + 1,
                        bytes.len()
                    ),
                ))
            } else {
                None
            };
            if let Some((at, message)) = problem {
                return Err(js::type_error_at(env, &message, at));
            }
            keys.push(&bytes[a as usize..b as usize]);
        }
        if let [only] = offsets[..] {
            if only < 0 || only as u64 > bytes.len() as u64 {
                return Err(js::type_error_at(
                    env,
                    &format!(
                        "offsets[0] = {only} is not within data ({} bytes)",
                        bytes.len()
                    ),
                    0,
                ));
            }
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
        #[cfg(target_family = "wasm")]
        js::flush(env, arr, owners.len() * 4)?;
        Ok(arr)
    }

    pub(crate) fn with_node(&self, env: impl JsEnv, node: Raw) -> Result<Placement> {
        // It is appended, so its index is the current length.
        let added = added_node(env, node, self.inner.len())?;
        let mut parsed = self.reparse(env)?;
        parsed.push(added);
        Placement::build(env, self.inner.seed(), parsed)
    }

    pub(crate) fn without_node(&self, env: impl JsEnv, node: Raw) -> Result<Placement> {
        let mut buf = KeyBuf::new();
        let (_, index) = known_node(env, node, &mut buf, &self.inner)?;
        let mut parsed = self.reparse(env)?;
        parsed.remove(index);
        Placement::build(env, self.inner.seed(), parsed)
    }

    pub(crate) fn with_weight(&self, env: impl JsEnv, node: Raw, weight: Raw) -> Result<Placement> {
        let mut buf = KeyBuf::new();
        let (_, index, w) = new_weight(env, node, weight, &mut buf, &self.inner)?;
        let mut parsed = self.reparse(env)?;
        parsed[index].node = parsed[index].node.clone().with_weight(w);
        Placement::build(env, self.inner.seed(), parsed)
    }

    pub(crate) fn nodes(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        let arr = js::new_array(env, self.inner.len())?;
        for (i, (node, form)) in self.inner.node_specs().iter().zip(&self.forms).enumerate() {
            let o = js::new_object(env)?;
            js::set_property(env, o, c"id", self.id_value(env, i)?)?;
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
                (None, _) => js::null(env)?,
            };
            js::set_property(env, o, c"domain", domain)?;
            js::set_element(env, arr, i as u32, o)?;
        }
        Ok(arr)
    }

    /// Number of nodes, including those of weight zero.
    pub(crate) fn length(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        js::new_number(env, self.inner.len() as f64)
    }

    /// Number of nodes that can be selected (weight above zero).
    pub(crate) fn selectable_length(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        js::new_number(env, self.inner.selectable_len() as f64)
    }

    /// Whether any two selectable nodes have different weights.
    pub(crate) fn is_weighted(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        js::new_bool(env, self.inner.is_weighted())
    }

    /// The seed, as 32 lowercase hex digits.
    pub(crate) fn seed(&self, env: impl JsEnv) -> Result<sys::napi_value> {
        js::new_string(env, &encode_hex(&self.inner.seed().to_bytes()))
    }
}

/// Slots of native scratch space `rankMany` fills at a time.
pub(crate) const RANK_MANY_SLOTS: usize = 1 << 16;

/// Results smaller than this are built without asking V8 how much heap is left.
pub(crate) const HEAP_CHECK_BYTES: f64 = (64u64 << 20) as f64;

/// The TypeError of a typed-array argument whose buffer is detached (`what` names it).
fn detached(env: impl JsEnv, what: &str) -> napi::Error {
    js::type_error(env, &format!("{what} whose buffer is detached"))
}

/// The TypeError of argument `name`, `value`, that is none of the arrays `expected` names.
fn not_array(env: impl JsEnv, name: &str, value: Raw, expected: &str) -> napi::Error {
    js::type_error(
        env,
        &format!("{name} is {}, not {expected}", js::describe(env, value.0)),
    )
}
