//! hrw-v1's building blocks as free functions (conformance/SPEC.md): the digests of a key and
//! of a node id, a weight in fixed point, and the score of a key for a node and the draw of a score.
use hrwhash::{Seed, Weight};
use napi::bindgen_prelude::{BigInt, FromNapiValue};
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::args::{no_bad_text, read, seed_arg, seed_of, weight_arg, weight_error, BadText};
use crate::js::{self, JsEnv, KeyBuf, Raw};

/// Name of the algorithm; placements agree across languages only when this agrees.
#[napi]
pub const ALGORITHM: &str = hrwhash::ALGORITHM;

/// The seed used when none is given, as 32 lowercase hex digits.
#[napi]
pub const DEFAULT_SEED: &str = "687277686173682d76312d736565642e";

/// A `Key` argument: its bytes, and the lone surrogate that leaves a string without any, which
/// is thrown only once every argument's type has been checked (API.md section 4).
pub struct Key(Vec<u8>, Option<BadText>);

/// A `NodeIdLike` argument, read as a `Key` is.
pub struct NodeIdLike(Vec<u8>, Option<BadText>);

/// A seed argument: 32 hex digits or a `Uint8Array`; its length is checked after the other
/// arguments' text.
pub struct SeedLike(Vec<u8>);

/// The bytes of a key or id argument (`what`): a `TypeError` for anything but a string, `Buffer`
/// or `Uint8Array`.
fn id_bytes(env: impl JsEnv, v: sys::napi_value, what: &str) -> Result<(Vec<u8>, Option<BadText>)> {
    let mut buf = KeyBuf::new();
    let mut text = None;
    let (b, _) = read(env, v, &mut buf, &|| what.to_owned(), None, &mut text)?;
    Ok((b.to_vec(), text))
}

impl FromNapiValue for Key {
    unsafe fn from_napi_value(env: sys::napi_env, v: sys::napi_value) -> Result<Self> {
        id_bytes(env, v, "key").map(|(b, text)| Key(b, text))
    }
}

impl FromNapiValue for NodeIdLike {
    unsafe fn from_napi_value(env: sys::napi_env, v: sys::napi_value) -> Result<Self> {
        id_bytes(env, v, "id").map(|(b, text)| NodeIdLike(b, text))
    }
}

impl FromNapiValue for SeedLike {
    unsafe fn from_napi_value(env: sys::napi_env, v: sys::napi_value) -> Result<Self> {
        seed_arg(env, v, "seed").map(SeedLike)
    }
}

/// The text of a key or id, then the seed's length: API.md's order once both types are checked.
fn checked_seed(env: Env, text: Option<BadText>, seed: Option<SeedLike>) -> Result<Seed> {
    no_bad_text(env, text)?;
    seed_of(env, seed.map(|s| s.0))
}

/// hrw-v1's digest of a key under a seed (default: `DEFAULT_SEED`), as an unsigned
/// 64-bit BigInt: the building block of every score.
#[napi(catch_unwind)]
pub fn key_digest(env: Env, key: Key, seed: Option<SeedLike>) -> Result<BigInt> {
    let seed = checked_seed(env, key.1, seed)?;
    Ok(hrwhash::v1::key_digest(&seed, &key.0).into())
}

/// hrw-v1's digest of a node id under a seed (default: `DEFAULT_SEED`), as an unsigned 64-bit
/// BigInt.
#[napi(catch_unwind)]
pub fn node_digest(env: Env, id: NodeIdLike, seed: Option<SeedLike>) -> Result<BigInt> {
    let seed = checked_seed(env, id.1, seed)?;
    Ok(hrwhash::v1::node_digest(&seed, &id.0).into())
}

/// A weight as hrw-v1 uses it: fixed point with 32 fraction bits, as an unsigned 64-bit BigInt
/// (`NodeInfo.weightFixed` of a node of this weight).
#[napi(catch_unwind, ts_args_type = "weight: number")]
pub fn weight_to_fixed(env: Env, weight: Raw) -> Result<BigInt> {
    let w = weight_arg(env, weight.0, &|| "weight".to_owned(), None)?;
    let w = Weight::new(w).map_err(|_| weight_error(env, w, None, "weight"))?;
    Ok(w.to_fixed().into())
}

/// hrw-v1's draw of a score (the uniform variate weighted ranking divides by the weight), as an
/// unsigned 64-bit BigInt.
#[napi(catch_unwind, ts_args_type = "score: bigint")]
pub fn draw(env: Env, score: Raw) -> Result<BigInt> {
    let score = u64_arg(env, score.0, "score", "a 64-bit score")?;
    Ok(hrwhash::v1::draw(score).into())
}

/// hrw-v1's score of a key digest for a node digest (`keyDigest`, `nodeDigest`), as an unsigned
/// 64-bit BigInt: what `Placement.score` gives for a node of weight 1.
#[napi(catch_unwind, ts_args_type = "keyDigest: bigint, nodeDigest: bigint")]
pub fn score(env: Env, key_digest: Raw, node_digest: Raw) -> Result<BigInt> {
    let k = u64_arg(env, key_digest.0, "keyDigest", "a 64-bit digest")?;
    let n = u64_arg(env, node_digest.0, "nodeDigest", "a 64-bit digest")?;
    Ok(hrwhash::v1::score(k, n).into())
}

/// A BigInt argument that must hold an unsigned 64-bit value.
fn u64_arg(env: impl JsEnv, value: sys::napi_value, name: &str, what: &str) -> Result<u64> {
    match js::bigint_u64(env, value)? {
        Some(Ok(v)) => Ok(v),
        Some(Err(())) => Err(js::type_error(
            env,
            &format!("{name} is a bigint outside 0 to 2^64 - 1, not {what}"),
        )),
        None => Err(js::type_error(
            env,
            &format!("{name} is {}, not a bigint", js::describe(env, value)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::encode_hex;

    #[test]
    fn default_seed_constant_matches_core() {
        assert_eq!(DEFAULT_SEED, encode_hex(&Seed::DEFAULT.to_bytes()));
    }
}
