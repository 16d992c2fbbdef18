//! hrw-v1's building blocks as free functions (conformance/SPEC.md): the digests of a key and
//! of a node id, a weight in fixed point, and the draw of a score.
use hrwhash::{Seed, Weight};
use napi::{sys, Env, Result};
use napi_derive::napi;

use crate::args::{no_bad_text, read, seed_arg, seed_of, weight_arg, weight_error};
use crate::js::{self, KeyBuf, Raw};

/// Name of the algorithm; placements agree across languages only when this agrees.
#[napi]
pub const ALGORITHM: &str = hrwhash::ALGORITHM;

/// The seed used when none is given, as 32 lowercase hex digits.
#[napi]
pub const DEFAULT_SEED: &str = "687277686173682d76312d736565642e";

/// hrw-v1's digest of a key under a seed (default: `DEFAULT_SEED`), as an unsigned
/// 64-bit BigInt: the building block of every score.
#[napi(
    catch_unwind,
    ts_args_type = "key: Key, seed?: string | Uint8Array | null",
    ts_return_type = "bigint"
)]
pub fn key_digest(env: Env, key: Raw, seed: Option<Raw>) -> Result<Raw> {
    let env = env.raw();
    let mut buf = KeyBuf::new();
    let (key, seed) = bytes_and_seed(env, key, seed, "key", &mut buf)?;
    Ok(Raw(js::new_bigint(
        env,
        hrwhash::v1::key_digest(&seed, key),
    )?))
}

/// A key or id and an optional seed, checked in API.md's order: both types, the text, the seed's
/// length.
fn bytes_and_seed<'a>(
    env: sys::napi_env,
    v: Raw,
    seed: Option<Raw>,
    what: &str,
    buf: &'a mut KeyBuf,
) -> Result<(&'a [u8], Seed)> {
    let mut text = None;
    let (b, _) = read(env, v.0, buf, &|| what.to_owned(), None, &mut text)?;
    let seed = match seed {
        Some(s) if !js::is_null_or_undefined(env, s.0)? => Some(seed_arg(env, s.0, "seed")?),
        _ => None,
    };
    no_bad_text(env, text)?;
    Ok((b, seed_of(env, seed)?))
}

/// hrw-v1's digest of a node id under a seed (default: `DEFAULT_SEED`), as an unsigned 64-bit
/// BigInt.
#[napi(
    catch_unwind,
    ts_args_type = "id: NodeIdLike, seed?: string | Uint8Array | null",
    ts_return_type = "bigint"
)]
pub fn node_digest(env: Env, id: Raw, seed: Option<Raw>) -> Result<Raw> {
    let env = env.raw();
    let mut buf = KeyBuf::new();
    let (id, seed) = bytes_and_seed(env, id, seed, "id", &mut buf)?;
    Ok(Raw(js::new_bigint(
        env,
        hrwhash::v1::node_digest(&seed, id),
    )?))
}

/// A weight as hrw-v1 uses it: fixed point with 32 fraction bits, as an unsigned 64-bit BigInt
/// (`NodeInfo.weightFixed` of a node of this weight).
#[napi(
    catch_unwind,
    ts_args_type = "weight: number",
    ts_return_type = "bigint"
)]
pub fn weight_fixed(env: Env, weight: Raw) -> Result<Raw> {
    let env = env.raw();
    let w = weight_arg(env, weight.0, &|| "weight".to_owned(), None)?;
    let w = Weight::new(w).map_err(|_| weight_error(env, w, None, "weight"))?;
    Ok(Raw(js::new_bigint(env, w.to_fixed())?))
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
        Some(Err(())) => Err(js::type_error(
            env,
            "score is a bigint outside 0 to 2^64 - 1, not a 64-bit score",
        )),
        None => Err(js::type_error(
            env,
            &format!("score is {}, not a bigint", js::describe(env, score.0)),
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
