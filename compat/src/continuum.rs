//! The sorted ring of 32-bit points that ketama-style incumbents build from MD5 digests.

use alloc::vec::Vec;

use md5::{Digest, Md5};

/// Points in ascending order; a point's owner is an index into the caller's nodes.
pub(crate) struct Continuum {
    pub(crate) values: Vec<u32>,
    pub(crate) owners: Vec<u32>,
}

impl Continuum {
    /// Sorts `(value, owner)` points by value; equal values keep the order they were pushed in
    /// (the incumbents' sorts, PROFILES.md).
    pub(crate) fn from_points(mut points: Vec<(u32, u32)>) -> Continuum {
        points.sort_by_key(|p| p.0);
        Continuum {
            values: points.iter().map(|p| p.0).collect(),
            owners: points.iter().map(|p| p.1).collect(),
        }
    }
}

pub(crate) fn md5(bytes: &[u8]) -> [u8; 16] {
    Md5::digest(bytes).into()
}

/// Four little-endian 32-bit words of an MD5 digest (ketama's `hashValue`).
pub(crate) fn words(digest: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|j| {
        u32::from_le_bytes([
            digest[4 * j],
            digest[4 * j + 1],
            digest[4 * j + 2],
            digest[4 * j + 3],
        ])
    })
}

/// The first word of the MD5 digest of `key`: how both incumbents hash a key.
pub(crate) fn key_value(key: &[u8]) -> u32 {
    words(&md5(key))[0]
}
