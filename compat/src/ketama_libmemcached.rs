//! libmemcached weighted ketama (PROFILES.md, "ketama-libmemcached").

use alloc::vec::Vec;

use super::continuum::{key_value, md5, words, Continuum};
use super::{whole_weight, Profile};
use hrwhash::{Error, Node};

const DEFAULT_PORT: u32 = 11211;
const POINTS_PER_SERVER: f32 = 160.0;
/// libmemcached refuses host names of `MEMCACHED_NI_MAXHOST` (1025) bytes or more.
const MAX_HOST_LEN: usize = 1024;

/// Splits `host:port`: the port is the decimal digits after the last `:` when they are a port
/// number; port 0 or no port means the default 11211, as in `memcached_server_add`. The second
/// value is the port as written (`None` when the id has none).
pub(crate) fn host_port(id: &[u8]) -> (&[u8], u32, Option<&[u8]>) {
    if let Some(colon) = id.iter().rposition(|&b| b == b':') {
        let digits = &id[colon + 1..];
        if !digits.is_empty() && digits.len() <= 5 && digits.iter().all(u8::is_ascii_digit) {
            let port = digits.iter().fold(0u32, |p, &d| p * 10 + (d - b'0') as u32);
            if port <= 65535 {
                let port = if port == 0 { DEFAULT_PORT } else { port };
                return (&id[..colon], port, Some(digits));
            }
        }
    }
    (id, DEFAULT_PORT, None)
}

/// The host and the port libmemcached hashes into a server's point strings, or why the id names
/// no libmemcached server unambiguously (PROFILES.md 4, "Nodes").
pub(crate) fn server(id: &[u8]) -> Result<(&[u8], u32), &'static str> {
    if id.contains(&0) {
        return Err("a host name that holds a NUL byte");
    }
    let (host, port, written) = if id.first() == Some(&b'[') {
        // `[address]` or `[address]:port`: the brackets only delimit an IPv6 address, which is
        // what libmemcached is given.
        let close = id.iter().position(|&b| b == b']');
        let (host, rest) = match close {
            Some(c) => (&id[1..c], &id[c + 1..]),
            None => return Err("an id that opens a [ it does not close"),
        };
        match rest {
            [] => (host, DEFAULT_PORT, None),
            [b':', ..] => match host_port(rest) {
                (b"", port, Some(digits)) => (host, port, Some(digits)),
                _ => return Err("an id [address]:port whose port is not a port number"),
            },
            _ => return Err("an id [address] followed by more than :port"),
        }
    } else {
        let (host, port, written) = host_port(id);
        // Without brackets `2001:db8::0` reads two ways: as host `2001:db8:` with port 0 (the
        // default) and as the address `2001:db8::0` on the default port, whose point strings
        // differ; so do the two readings of a last group 11211 or with a leading zero. Where
        // they agree (`2001:db8::1`) either answer is libmemcached's.
        if let Some(digits) = written {
            if host.contains(&b':') && (port == DEFAULT_PORT || digits[0] == b'0') {
                return Err(
                    "an IPv6 address without brackets whose last group reads as port 0 or \
                     11211 or has a leading zero (write [address] or [address]:port)",
                );
            }
        }
        (host, port, written)
    };
    if host.is_empty() || host.len() > MAX_HOST_LEN {
        return Err("a host name that is empty or longer than 1024 bytes");
    }
    if host[0] == b'/' {
        // A path is a UNIX socket to libmemcached either way, but
        // `memcached_server_add_unix_socket_with_weight` keeps port 0 (points `path:0-i`) and
        // `memcached_server_add_with_weight` sets 11211 (points `path-i`).
        return match written {
            Some(digits) if digits.iter().all(|&d| d == b'0') => Ok((host, 0)),
            Some(_) => Ok((host, port)),
            None => Err("a UNIX socket path without a port (write path:0 for \
                         memcached_server_add_unix_socket, path:11211 for memcached_server_add)"),
        };
    }
    Ok((host, port))
}

/// The number of points of a server: libmemcached's `update_continuum` in single precision.
pub(crate) fn points(weight: u32, total: u64, servers: u32) -> u32 {
    let pct = weight as f32 / total as f32;
    let per_digest = pct * POINTS_PER_SERVER / 4.0 * servers as f32 + 0.000_000_000_1_f32;
    // Non-negative, so truncation is the floor (and needs no libm without std).
    (per_digest as u32) * 4
}

pub(crate) fn continuum(nodes: &[Node]) -> Result<Continuum, Error> {
    let profile = Profile::KetamaLibmemcached;
    let mut weights = Vec::with_capacity(nodes.len());
    for n in nodes {
        weights.push(whole_weight(profile, n)?);
        server(n.id()).map_err(|what| Error::NotOffered {
            profile: profile.name(),
            what,
        })?;
    }
    let total: u64 = weights.iter().map(|&w| w as u64).sum();
    let mut ring = Vec::new();
    let mut name = Vec::new();
    for (index, n) in nodes.iter().enumerate() {
        let (host, port) = server(n.id()).expect("checked above");
        for p in 0..points(weights[index], total, nodes.len() as u32) / 4 {
            name.clear();
            name.extend_from_slice(host);
            if port != DEFAULT_PORT {
                name.push(b':');
                push_decimal(&mut name, port);
            }
            name.push(b'-');
            push_decimal(&mut name, p);
            ring.extend(words(&md5(&name)).map(|v| (v, index as u32)));
        }
    }
    Ok(Continuum::from_points(ring))
}

fn push_decimal(out: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// libmemcached `dispatch_host`: the first point at or above the key's value, wrapping to the
/// first point.
pub(crate) fn owner(c: &Continuum, key: &[u8]) -> usize {
    let hash = key_value(key);
    let i = c.values.partition_point(|&v| v < hash);
    c.owners[if i == c.values.len() { 0 } else { i }] as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use hrwhash::Weight;

    #[test]
    fn ids_split_into_host_and_port() {
        let ok = |id: &'static [u8], host: &'static [u8], port| {
            assert_eq!(
                server(id),
                Ok((host, port)),
                "{}",
                String::from_utf8_lossy(id)
            )
        };
        ok(b"10.0.1.1:11211", b"10.0.1.1", 11211);
        ok(b"cache:11212", b"cache", 11212);
        ok(b"cache", b"cache", 11211);
        ok(b"cache:0", b"cache", 11211);
        ok(b"cache:99999", b"cache:99999", 11211);
        ok(b"cache:x1", b"cache:x1", 11211);
        // IPv6: bracketed, or unbracketed where both readings give the same point strings.
        ok(b"[2001:db8::0]", b"2001:db8::0", 11211);
        ok(b"[2001:db8::0]:11211", b"2001:db8::0", 11211);
        ok(b"[::1]:0", b"::1", 11211);
        ok(b"[::1]:11212", b"::1", 11212);
        ok(b"2001:db8::1", b"2001:db8:", 1);
        ok(b"2001:db8::ab", b"2001:db8::ab", 11211);
        ok(b"2001:db8::1:11212", b"2001:db8::1", 11212);
        // A UNIX socket: port 0 is memcached_server_add_unix_socket's, any other port
        // memcached_server_add's.
        ok(b"/run/memcached.sock:0", b"/run/memcached.sock", 0);
        ok(b"/run/memcached.sock:11211", b"/run/memcached.sock", 11211);
        ok(b"/run/memcached.sock:11212", b"/run/memcached.sock", 11212);
    }

    #[test]
    fn ids_that_name_no_server_unambiguously_are_refused() {
        for id in [
            &b"2001:db8::0"[..],
            b"2001:db8::11211",
            b"2001:db8::0080",
            b"::0",
            b"2001:db8::1:11211",
            b"/run/memcached.sock",
            b"[::1",
            b"[::1]x",
            b"[::1]:",
            b"[::1]:99999",
            b"[]:11211",
            b":11211",
            b"a\0b:11211",
        ] {
            assert!(server(id).is_err(), "{}", String::from_utf8_lossy(id));
        }
    }

    #[test]
    fn equal_weights_give_160_points_unless_single_precision_rounds_down() {
        assert_eq!(points(1, 1, 1), 160);
        assert_eq!(points(1, 8, 8), 160);
        // f32(1/25) * 40 * 25 is 39.999998: libmemcached 1.1.4 gives each of 25 equal servers
        // 156 points (checked against it: the owners of 20,000 keys agree).
        assert_eq!(points(1, 25, 25), 156);
        for n in 1..=64 {
            assert!(points(1, n as u64, n) <= 160);
            assert!(points(1, n as u64, n) >= 156);
        }
    }

    /// libmemcached's test/tests/memcached/ketama.cpp ("generate hash") with the fixture of
    /// test/fixtures/ketama.hpp: the weighted servers and the keys' expected servers.
    #[test]
    fn libmemcached_ketama_compat_test() {
        let servers = [
            ("10.0.1.1:11211", 600.0),
            ("10.0.1.2:11211", 300.0),
            ("10.0.1.3:11211", 200.0),
            ("10.0.1.4:11211", 350.0),
            ("10.0.1.5:11211", 1000.0),
            ("10.0.1.6:11211", 800.0),
            ("10.0.1.7:11211", 950.0),
            ("10.0.1.8:11211", 100.0),
        ];
        let nodes: Vec<Node> = servers
            .iter()
            .map(|&(id, w)| Node::new(id).with_weight(Weight::new(w).unwrap()))
            .collect();
        let c = continuum(&nodes).unwrap();
        // "VDEAAAAA hashes to fffcd1b5, after the last continuum point".
        assert_eq!(key_value(b"VDEAAAAA"), 0xfffcd1b5);
        assert!(*c.values.last().unwrap() < 0xfffcd1b5);
        assert_eq!(owner(&c, b"VDEAAAAA"), c.owners[0] as usize);
        let fixture = include_str!("../tests/data/ketama-libmemcached.txt");
        let mut cases = 0;
        for (key, server) in crate::fixture_cases(fixture) {
            let got = servers[owner(&c, key.as_bytes())].0;
            assert_eq!(got.split(':').next().unwrap(), server, "key {key}");
            cases += 1;
        }
        assert_eq!(cases, 99);
    }
}
