//! Reading the arguments every class shares (keys, ids, weights, counts, seeds) and throwing the
//! errors of bad ones, in the order of conformance/API.md section 4.
use std::ffi::CStr;

use hrwhash::{Seed, Weight};
use napi::sys::ValueType as T;
use napi::{sys, Result};

use crate::error_table;
use crate::js::{self, Bytes, Form, JsEnv, KeyBuf, Kind, Raw, View};
use crate::placement::{parse_node, Parsed};

/// Throws the JS form of a core error: the class, `code` and details of its kind in
/// conformance/errors.json (`error_table.rs` is generated from it).
pub(crate) fn core_error(env: impl JsEnv, e: hrwhash::Error) -> napi::Error {
    let (kind, code, props) = error_table::js_error(&e);
    js::throw_details(env, kind, code, &e.to_string(), &props)
}

/// `InvalidWeight` for `value` given as `what`, of the node at `index` when it belongs to one.
pub(crate) fn weight_error(
    env: impl JsEnv,
    value: f64,
    index: Option<usize>,
    what: &str,
) -> napi::Error {
    let problem = if value.is_nan() {
        "it is not a number"
    } else if value.is_infinite() {
        "it is infinite"
    } else if value < 0.0 {
        "it is negative"
    } else if value >= 4_294_967_296.0 {
        "it is 2^32 or more"
    } else {
        "it is positive but rounds to 0 at 32 fraction bits"
    };
    let message = format!(
        "{what} = {} is not a valid weight: {problem}",
        js::number_text(value)
    );
    let mut props = vec![(c"value", value)];
    if let Some(i) = index {
        props.push((c"index", i as f64));
    }
    js::throw(env, Kind::Error, "HRW_INVALID_WEIGHT", &message, &props)
}

/// A string without a UTF-8 form, found while the shapes of a call's arguments are checked and
/// reported (`InvalidText`) only once every argument has the right shape (API.md section 4).
pub(crate) struct BadText {
    pub(crate) what: String,
    pub(crate) index: Option<usize>,
    pub(crate) at: usize,
    pub(crate) unit: u16,
}

impl BadText {
    pub(crate) fn throw(self, env: impl JsEnv) -> napi::Error {
        let message = format!(
            "{} is a string with a lone surrogate (\\u{:04x} at position {}), which has no UTF-8 form",
            self.what, self.unit, self.at
        );
        let props: Vec<(&CStr, f64)> = self
            .index
            .map(|i| (c"index", i as f64))
            .into_iter()
            .collect();
        js::throw(env, Kind::Error, "HRW_INVALID_TEXT", &message, &props)
    }
}

/// Throws the first string without a UTF-8 form, if any.
pub(crate) fn no_bad_text(env: impl JsEnv, text: Option<BadText>) -> Result<()> {
    match text {
        Some(t) => Err(t.throw(env)),
        None => Ok(()),
    }
}

/// Reads a key, id or domain (`what`, element `index` of a list): its bytes, or a `TypeError`
/// for anything but a string, `Buffer` or `Uint8Array`. A string without a UTF-8 form is noted in
/// `text` (the first one only) and read as empty bytes, which nothing uses: the call throws
/// `InvalidText` before it looks anything up.
pub(crate) fn read<'a>(
    env: impl JsEnv,
    v: sys::napi_value,
    buf: &'a mut KeyBuf,
    what: &dyn Fn() -> String,
    index: Option<usize>,
    text: &mut Option<BadText>,
) -> Result<(&'a [u8], Form)> {
    let got = js::bytes(env, v, buf)?;
    accept(env, v, got, what, index, text)
}

/// `read` for a value `js::bytes` has already read as `got`.
pub(crate) fn accept<'a>(
    env: impl JsEnv,
    v: sys::napi_value,
    got: Bytes<'a>,
    what: &dyn Fn() -> String,
    index: Option<usize>,
    text: &mut Option<BadText>,
) -> Result<(&'a [u8], Form)> {
    match got {
        Bytes::Ok(b, form) => Ok((b, form)),
        Bytes::IllFormed { at, unit } => {
            if text.is_none() {
                *text = Some(BadText {
                    what: what(),
                    index,
                    at,
                    unit,
                });
            }
            Ok((&[], Form::Text))
        }
        Bytes::Detached => Err(invalid_at(
            env,
            &format!("{} is a Uint8Array whose buffer is detached", what()),
            index,
        )),
        Bytes::Other => Err(invalid_at(
            env,
            &format!(
                "{} is {}, not a string, Buffer or Uint8Array",
                what(),
                js::describe(env, v)
            ),
            index,
        )),
    }
}

pub(crate) fn invalid_at(env: impl JsEnv, message: &str, index: Option<usize>) -> napi::Error {
    match index {
        Some(i) => js::type_error_at(env, message, i),
        None => js::type_error(env, message),
    }
}

/// A single key argument, its text checked at once (for calls with no later argument).
pub(crate) fn key_of<'a>(
    env: impl JsEnv,
    v: Raw,
    buf: &'a mut KeyBuf,
    what: &str,
) -> Result<&'a [u8]> {
    match js::bytes(env, v.0, buf)? {
        Bytes::Ok(b, _) => Ok(b),
        other => Err(not_a_key(env, v, other, what)),
    }
}

/// The error for a single key argument that `js::bytes` did not read as bytes.
#[cold]
#[inline(never)]
pub(crate) fn not_a_key(env: impl JsEnv, v: Raw, got: Bytes<'_>, what: &str) -> napi::Error {
    let mut text = None;
    match accept(env, v.0, got, &|| what.to_owned(), None, &mut text) {
        Err(e) => e,
        Ok(_) => match text {
            Some(t) => t.throw(env),
            None => js::pending(),
        },
    }
}

/// A weight argument's type: a number (`TypeError` otherwise); its value is checked later.
pub(crate) fn weight_arg(
    env: impl JsEnv,
    v: sys::napi_value,
    what: &dyn Fn() -> String,
    index: Option<usize>,
) -> Result<f64> {
    match js::number(env, v)? {
        Some(w) => Ok(w),
        None => Err(invalid_at(
            env,
            &format!("{} is {}, not a number", what(), js::describe(env, v)),
            index,
        )),
    }
}

/// `k`'s type: a number (`TypeError` otherwise); `count_value` checks its value.
pub(crate) fn count_arg(env: impl JsEnv, v: Raw, what: &str) -> Result<f64> {
    match js::number(env, v.0)? {
        Some(k) => Ok(k),
        None => Err(js::type_error(
            env,
            &format!("{what} is {}, not a number", js::describe(env, v.0)),
        )),
    }
}

/// `count_arg`, then `count_value`: a count given by itself.
pub(crate) fn count_of(env: impl JsEnv, v: Raw, what: &str) -> Result<usize> {
    count_value(env, count_arg(env, v, what)?, what)
}

/// `k` as a count: an integer from 0 to 2^53 - 1 (`InvalidCount` otherwise). It never sizes an
/// allocation by itself: callers cap it at the number of selectable nodes.
pub(crate) fn count_value(env: impl JsEnv, k: f64, what: &str) -> Result<usize> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    let problem = if k.is_nan() {
        "it is not a number"
    } else if k.is_infinite() {
        "it is infinite"
    } else if k < 0.0 {
        "it is negative"
    } else if k.fract() != 0.0 {
        "it is not an integer"
    } else if k > MAX_SAFE_INTEGER {
        "it is above 2^53 - 1, beyond the exact integers"
    } else {
        // Saturates on 32-bit targets, where the cap at the node count makes it exact again.
        return Ok(k as usize);
    };
    Err(js::throw(
        env,
        Kind::Range,
        "HRW_INVALID_COUNT",
        &format!("{what} = {} is not a count: {problem}", js::number_text(k)),
        &[(c"value", k)],
    ))
}

/// The `node` of a change that adds one (`withNode`, `addNode`): an id or `{ id, weight?,
/// domain? }`, its weight checked as that of the node it becomes, at `index`. Every membership
/// that changes (placements, slot tables) reads it here, so they agree on its errors.
pub(crate) fn added_node(env: impl JsEnv, node: Raw, index: usize) -> Result<Parsed> {
    let mut text = None;
    let given = parse_node(env, node.0, &|| "node".to_owned(), None, &mut text)?;
    no_bad_text(env, text)?;
    let mut added = given.parsed;
    if let Some(w) = given.weight {
        let w = Weight::new(w).map_err(|_| weight_error(env, w, Some(index), "node.weight"))?;
        added.node = added.node.with_weight(w);
    }
    Ok(added)
}

/// The `node` of a change to a node of `nodes` (`withoutNode`, `removeNode`): its id and index,
/// or `UnknownNode`.
pub(crate) fn known_node<'a>(
    env: impl JsEnv,
    node: Raw,
    buf: &'a mut KeyBuf,
    nodes: &hrwhash::Placement,
) -> Result<(&'a [u8], usize)> {
    let id = key_of(env, node, buf, "node")?;
    Ok((id, index_in(env, nodes, id)?))
}

/// `node` and `weight` of a change of weight, their types and text checked: what a slot table's
/// `setWeight` hands to the core, whose `set_weight` checks the node and then the weight.
pub(crate) fn weight_args(
    env: impl JsEnv,
    node: Raw,
    weight: Raw,
    buf: &mut KeyBuf,
) -> Result<(&[u8], f64)> {
    let mut text = None;
    let (id, _) = read(env, node.0, buf, &|| "node".to_owned(), None, &mut text)?;
    let w = weight_arg(env, weight.0, &|| "weight".to_owned(), None)?;
    no_bad_text(env, text)?;
    Ok((id, w))
}

/// `node` and `weight` of a placement's `withWeight`, checked in API.md's
/// order: both types, then the text, then the node (`UnknownNode`), then the weight's value.
pub(crate) fn new_weight<'a>(
    env: impl JsEnv,
    node: Raw,
    weight: Raw,
    buf: &'a mut KeyBuf,
    nodes: &hrwhash::Placement,
) -> Result<(&'a [u8], usize, Weight)> {
    let (id, w) = weight_args(env, node, weight, buf)?;
    let index = index_in(env, nodes, id)?;
    let w = Weight::new(w).map_err(|_| weight_error(env, w, Some(index), "weight"))?;
    Ok((id, index, w))
}

fn index_in(env: impl JsEnv, nodes: &hrwhash::Placement, id: &[u8]) -> Result<usize> {
    nodes
        .find(id)
        .map(|n| n.index())
        .ok_or_else(|| core_error(env, hrwhash::Error::UnknownNode))
}

/// A seed argument's bytes: 32 hex digits or a `Uint8Array`. Its length is checked later.
pub(crate) fn seed_arg(env: impl JsEnv, v: sys::napi_value, what: &str) -> Result<Vec<u8>> {
    if js::type_of(env, v)? == T::napi_string {
        let mut buf = KeyBuf::new();
        if let Bytes::Ok(text, _) = js::bytes(env, v, &mut buf)? {
            if let Some(b) = decode_hex(text) {
                return Ok(b);
            }
        }
        return Err(js::type_error(
            env,
            &format!(
                "{what} is {}, not hex digits (32 of them for the 16 seed bytes)",
                js::describe(env, v)
            ),
        ));
    }
    match js::uint8_array(env, v)? {
        View::Elements(b) => Ok(b.to_vec()),
        View::Detached => Err(js::type_error(
            env,
            &format!("{what} is a Uint8Array whose buffer is detached"),
        )),
        View::Other => Err(js::type_error(
            env,
            &format!(
                "{what} is {}, not a hex string or a Uint8Array",
                js::describe(env, v)
            ),
        )),
    }
}

pub(crate) fn seed_of(env: impl JsEnv, bytes: Option<Vec<u8>>) -> Result<Seed> {
    match bytes {
        Some(b) => Seed::from_slice(&b).map_err(|e| core_error(env, e)),
        None => Ok(Seed::DEFAULT),
    }
}

pub(crate) fn decode_hex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

pub(crate) fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn slices<'a>(data: &'a [u8], ends: &[usize]) -> Vec<&'a [u8]> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let s = &data[start..end];
            start = end;
            s
        })
        .collect()
}

/// `key` and `k` of `rank`/`replicas`, checked in API.md's order: both types, then the key's
/// text, then the count.
pub(crate) fn key_and_count(
    env: impl JsEnv,
    key: Raw,
    k: Raw,
    buf: &mut KeyBuf,
) -> Result<(&[u8], usize)> {
    let mut text = None;
    let (key, _) = read(env, key.0, buf, &|| "key".to_owned(), None, &mut text)?;
    let k = count_arg(env, k, "k")?;
    no_bad_text(env, text)?;
    Ok((key, count_value(env, k, "k")?))
}

/// The node indices `lookup` finds for `key` and `k`, read by [`key_and_count`], with a core
/// error thrown as its JS error: every `replicas` that can refuse a count or a key reads its
/// arguments, and fails, the same way.
pub(crate) fn checked_replicas(
    env: impl JsEnv,
    key: Raw,
    k: Raw,
    lookup: impl FnOnce(&[u8], usize) -> std::result::Result<Vec<usize>, hrwhash::Error>,
) -> Result<Vec<usize>> {
    let mut buf = KeyBuf::new();
    let (key, k) = key_and_count(env, key, k, &mut buf)?;
    lookup(key, k).map_err(|e| core_error(env, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        assert_eq!(decode_hex(b"00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(decode_hex(b"0g"), None);
        assert_eq!(decode_hex(b"abc"), None);
    }
}
