//! Generator of `conformance/vectors.json`: the hrw-v1 cases every implementation must reproduce.
//!
//! Inputs come from a fixed pseudo-random stream, so the file is the same on every run and machine.

use hrwhash::v1::{draw, key_digest, node_digest, Seed};
use hrwhash::{Error, Node, Placement, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, insert_seed, per_node, u64s, JsonFile, Stream};

const COMMENT: &str = "Conformance vectors of hrw-v1 (see SPEC.md). Bytes are lowercase hex; \
every 64-bit integer is a decimal string; weights are JSON numbers that parse to the exact binary64. \
cases: a membership (either \"nodes\": [{id, weight?, weight_fixed?, domain?}] or \"node_prefix\" + \
\"node_count\": ids are the prefix bytes followed by the ASCII decimal of i for i in 0..node_count, \
with optional \"weight_cycle\": node i has weight weight_cycle[i % len]), an optional \"seed\" \
(absent: default_seed), a \"key\" and \"k\". expected: key_digest; owner (index into the node list); \
rank (the first min(k, non-draining nodes) indices of the ranking); replicas (only when some node \
has a domain); node_digests and scores per node (only for small memberships). draw_cases: score -> \
draw (SPEC.md 5.2). weight_cases: weight -> fixed point, or the error it raises (\"NaN\", \
\"Infinity\", \"-Infinity\" stand for those values). error_cases: a membership that must be rejected \
with the named error (SPEC.md 7).";

/// One membership as the vectors describe it.
#[derive(Clone)]
enum Members {
    Listed(Vec<Node>),
    Generated {
        prefix: Vec<u8>,
        count: usize,
        weight_cycle: Option<Vec<f64>>,
    },
}

impl Members {
    fn listed(ids: &[&[u8]]) -> Members {
        Members::Listed(ids.iter().map(Node::new).collect())
    }

    fn nodes(&self) -> Vec<Node> {
        match self {
            Members::Listed(nodes) => nodes.clone(),
            Members::Generated {
                prefix,
                count,
                weight_cycle,
            } => (0..*count)
                .map(|i| {
                    let mut id = prefix.clone();
                    id.extend_from_slice(i.to_string().as_bytes());
                    let node = Node::new(id);
                    match weight_cycle {
                        Some(c) => {
                            node.with_weight(Weight::new(c[i % c.len()]).expect("valid weight"))
                        }
                        None => node,
                    }
                })
                .collect(),
        }
    }

    fn describe(&self, out: &mut Map<String, Value>) {
        match self {
            Members::Listed(nodes) => {
                let list = nodes
                    .iter()
                    .map(|n| {
                        let mut o = Map::new();
                        o.insert("id".into(), hex(n.id()).into());
                        if n.weight() != Weight::ONE {
                            o.insert("weight".into(), json!(n.weight().to_f64()));
                            o.insert("weight_fixed".into(), u64s(n.weight().to_fixed()));
                        }
                        if let Some(d) = n.domain() {
                            o.insert("domain".into(), hex(d).into());
                        }
                        Value::Object(o)
                    })
                    .collect();
                out.insert("nodes".into(), Value::Array(list));
            }
            Members::Generated {
                prefix,
                count,
                weight_cycle,
            } => {
                out.insert("node_prefix".into(), hex(prefix).into());
                out.insert("node_count".into(), json!(count));
                if let Some(c) = weight_cycle {
                    out.insert("weight_cycle".into(), json!(c));
                }
            }
        }
    }
}

struct Vectors {
    cases: Vec<Value>,
    names: std::collections::HashMap<String, usize>,
}

impl Vectors {
    fn case(&mut self, family: &str, seed: Option<Seed>, members: &Members, key: &[u8], k: usize) {
        let n = self.names.entry(family.to_string()).or_insert(0);
        let name = format!("{family}-{n}");
        *n += 1;
        let seed_used = seed.unwrap_or(Seed::DEFAULT);
        let nodes = members.nodes();
        let placement = Placement::from_nodes(seed_used, nodes.clone()).expect("valid membership");
        let mut case = Map::new();
        case.insert("name".into(), name.into());
        insert_seed(&mut case, seed);
        members.describe(&mut case);
        case.insert("key".into(), hex(key).into());
        case.insert("k".into(), json!(k));

        let kd = key_digest(&seed_used, key);
        let mut expected = Map::new();
        expected.insert("key_digest".into(), u64s(kd));
        expected.insert("owner".into(), json!(placement.owner_index(key)));
        let mut top = vec![0usize; k.min(placement.selectable_len())];
        let got = placement.rank_into(key, &mut top);
        expected.insert("rank".into(), json!(&top[..got]));
        if nodes.iter().any(|n| n.domain().is_some()) {
            let mut reps = vec![0usize; k.min(placement.selectable_len())];
            let got = placement.replicas_into(key, &mut reps);
            expected.insert("replicas".into(), json!(&reps[..got]));
        }
        if nodes.len() <= 16 {
            let digests: Vec<u64> = nodes
                .iter()
                .map(|n| node_digest(&seed_used, n.id()))
                .collect();
            per_node(&mut expected, &digests, kd);
        }
        case.insert("expected".into(), Value::Object(expected));
        self.cases.push(Value::Object(case));
    }
}

fn text_ids(ids: &[&str]) -> Members {
    let bytes: Vec<&[u8]> = ids.iter().map(|s| s.as_bytes()).collect();
    Members::listed(&bytes)
}

fn generated(prefix: &str, count: usize) -> Members {
    Members::Generated {
        prefix: prefix.as_bytes().to_vec(),
        count,
        weight_cycle: None,
    }
}

fn weighted(ids: &[&str], weights: &[f64]) -> Members {
    Members::Listed(
        ids.iter()
            .zip(weights)
            .map(|(id, &w)| Node::new(id).with_weight(Weight::new(w).expect("valid weight")))
            .collect(),
    )
}

fn add_cases(v: &mut Vectors, s: &mut Stream) {
    // ASCII keys on small memberships, scores included.
    for n in 1..=16usize {
        let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        for _ in 0..25 {
            let key = format!("key-{}", s.below(1_000_000));
            let k = 1 + s.below(n as u64 + 2) as usize;
            v.case("ascii", None, &text_ids(&refs), key.as_bytes(), k);
        }
    }
    // Realistic ids: host:port, IPv6, URLs.
    let hosts = [
        "10.0.0.1:11211",
        "10.0.0.2:11211",
        "10.0.0.3:11211",
        "[::1]:6379",
        "cache-a.example.internal:11211",
    ];
    for i in 0..40 {
        let key = format!("user:{}:session", i * 7919);
        v.case("hosts", None, &text_ids(&hosts), key.as_bytes(), 3);
    }
    // Multi-byte UTF-8 and emoji, in keys and ids.
    let utf8_ids = [
        "nœud-α",
        "узел-β",
        "节点-γ",
        "ノード-δ",
        "🐙-ε",
        "e\u{301}-combining",
    ];
    let utf8_keys = [
        "clé",
        "ключ",
        "键值",
        "キー",
        "🔑",
        "🧑‍🚀",
        "👍🏽",
        "é",
        "e\u{301}",
        "Ω≈ç√∫",
        "\u{feff}bom",
        "\u{10ffff}",
    ];
    for (i, key) in utf8_keys.iter().enumerate() {
        for k in [1, 3, 6] {
            v.case(
                "utf8",
                None,
                &text_ids(&utf8_ids[..(i % 5) + 2]),
                key.as_bytes(),
                k,
            );
        }
    }
    for i in 0..60 {
        let key: String = (0..1 + s.below(12))
            .map(|_| *s.pick(&['é', '中', '🎉', 'ß', 'a', 'Ж', '😀', '\u{0}']))
            .collect();
        v.case(
            "utf8-random",
            None,
            &text_ids(&utf8_ids),
            key.as_bytes(),
            1 + i % 6,
        );
    }
    // The empty key.
    for n in [1usize, 2, 3, 5, 10, 100, 1000] {
        v.case("empty-key", None, &generated("node-", n), b"", 3);
    }
    v.case("empty-key", None, &text_ids(&["a", "b", "c"]), b"", 3);
    // Binary keys and ids: NUL bytes, invalid UTF-8, every byte value.
    let binary_keys: [&[u8]; 10] = [
        b"\x00",
        b"\x00\x00",
        b"a\x00b",
        b"\xff",
        b"\xc3\x28",
        b"\xed\xa0\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\x80",
        b"\xfe\xff",
        b"\x00\xff\x00\xff",
    ];
    let binary_ids: [&[u8]; 5] = [b"\x00", b"\x00\x00", b"\xff\xfe", b"n\x00de", b"\xc0\xaf"];
    for key in binary_keys {
        for k in [1, 5] {
            v.case("binary", None, &Members::listed(&binary_ids), key, k);
        }
    }
    for _ in 0..80 {
        let len = s.below(40) as usize;
        let key = s.bytes(len);
        let n = 1 + s.below(8) as usize;
        let ids: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let len = 1 + s.below(6) as usize;
                let mut id = s.bytes(len);
                id.push(i as u8);
                id
            })
            .collect();
        let refs: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
        v.case(
            "binary-random",
            None,
            &Members::listed(&refs),
            &key,
            1 + s.below(4) as usize,
        );
    }
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    v.case("all-bytes", None, &generated("node-", 7), &all_bytes, 7);
    // Long keys, across SipHash block boundaries and beyond 64 KiB.
    for len in [
        7usize, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 1023, 1024, 4096,
    ] {
        let key = s.bytes(len);
        v.case("long-key", None, &generated("node-", 10), &key, 2);
    }
    for len in [65536usize, 65537] {
        let key: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        v.case("key-64k", None, &generated("node-", 100), &key, 3);
    }
    // Framing: concatenations that must not collide, prefixes, keys equal to ids.
    let pairs: [(&[u8], &[u8]); 6] = [
        (b"ab", b"c"),
        (b"a", b"bc"),
        (b"abc", b"\x00"),
        (b"ab", b"c\x00"),
        (b"", b"abc"),
        (b"abc", b"abc"),
    ];
    let framing_ids = Members::listed(&[b"c", b"bc", b"abc", b"ab", b"a", b"c\x00", b"\x00"]);
    for (key, id) in pairs {
        v.case("framing", None, &framing_ids, key, 7);
        v.case("framing", None, &Members::listed(&[id, b"other"]), key, 2);
    }
    for key in [
        &b"a"[..],
        b"a\x00",
        b"a\x00\x00",
        b"\x00a",
        b"hrw-v1:key",
        b"hrw-v1:node",
        b"node-0",
        b"node-1",
    ] {
        v.case("framing", None, &generated("node-", 5), key, 5);
    }
    // Membership sizes 1..1000 and k from 0 to beyond N.
    for n in (1..=40usize).chain([
        50, 63, 64, 65, 99, 100, 101, 127, 128, 129, 255, 256, 257, 500, 511, 512, 999, 1000,
    ]) {
        let ks = [
            1usize,
            2,
            3,
            n.saturating_sub(1).max(1),
            n,
            n + 1,
            2 * n + 5,
        ];
        for i in 0..12 {
            let key = format!("key-{}", s.below(10_000_000));
            let k = if i == 0 && n <= 64 {
                0
            } else {
                ks[i % ks.len()]
            };
            v.case("size", None, &generated("node-", n), key.as_bytes(), k);
        }
    }
    // Caller-chosen seeds.
    let seeds: Vec<Seed> = (0..20)
        .map(|i| match i {
            0 => Seed::from_bytes([0; 16]),
            1 => Seed::from_bytes([0xff; 16]),
            2 => Seed::from_bytes(*b"0123456789abcdef"),
            _ => Seed::from_slice(&s.bytes(16)).expect("16 bytes"),
        })
        .collect();
    for (i, seed) in seeds.iter().enumerate() {
        for j in 0..12 {
            let n = [1usize, 3, 5, 10, 33, 100][j % 6];
            let key = format!("seeded-{i}-{j}");
            v.case(
                "seed",
                Some(*seed),
                &generated("node-", n),
                key.as_bytes(),
                3,
            );
        }
    }
    // Weighted fleets.
    let ids4 = ["w1", "w2", "w3", "w4"];
    for i in 0..60 {
        let key = format!("wkey-{i}");
        v.case(
            "weights-1234",
            None,
            &weighted(&ids4, &[1.0, 2.0, 3.0, 4.0]),
            key.as_bytes(),
            4,
        );
    }
    /// A fleet's ids and weights, and the `k` asked of it.
    type Fleet = (&'static [&'static str], &'static [f64], usize);
    // Each family: its key prefix, then every fleet it asks each key of.
    let fleets: [(&str, &str, [Fleet; 2]); 2] = [
        (
            "weights-extreme",
            "extreme",
            [
                (&["light", "heavy"], &[1.0, 1e6], 2),
                (&["light", "mid", "heavy"], &[1e-6, 1.0, 1e6], 3),
            ],
        ),
        (
            "weights-zero",
            "draining",
            [
                (&["a", "b", "c", "d"], &[0.0, 1.0, 0.0, 2.0], 4),
                (&["a", "b", "c"], &[0.0, 0.0, 5.0], 3),
            ],
        ),
    ];
    for (family, prefix, family_fleets) in fleets {
        for i in 0..40 {
            let key = format!("{prefix}-{i}");
            for (ids, weights, k) in family_fleets {
                v.case(family, None, &weighted(ids, weights), key.as_bytes(), k);
            }
        }
    }
    let random_weights: Vec<f64> = (0..20)
        .map(|_| 0.1 + (s.below(99_001) as f64) / 10_000.0)
        .collect();
    let ids20: Vec<String> = (0..20).map(|i| format!("rw-{i}")).collect();
    let refs20: Vec<&str> = ids20.iter().map(String::as_str).collect();
    for i in 0..60 {
        let key = format!("random-weights-{i}");
        v.case(
            "weights-random",
            None,
            &weighted(&refs20, &random_weights),
            key.as_bytes(),
            5,
        );
    }
    let odd = [
        1.0 / 3.0,
        0.1,
        2.0f64.powi(-32),
        2.0f64.powi(31),
        4294967295.5,
        1.5 / 4294967296.0,
        2.5 / 4294967296.0,
        7.0,
    ];
    let ids8 = ["o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7"];
    for i in 0..30 {
        let key = format!("odd-weights-{i}");
        v.case(
            "weights-odd",
            None,
            &weighted(&ids8, &odd),
            key.as_bytes(),
            8,
        );
    }
    for i in 0..30 {
        let key = format!("equal-weights-{i}");
        v.case(
            "weights-equal",
            None,
            &weighted(&["a", "b", "c", "d", "e"], &[2.5; 5]),
            key.as_bytes(),
            5,
        );
    }
    for (n, cycle) in [
        (100usize, vec![1.0, 2.0, 3.0, 4.0]),
        (1000, vec![1.0, 2.0, 3.0, 4.0]),
        (300, vec![0.5, 0.0, 8.0]),
        (64, vec![1.0, 1e6]),
        (40, (1..=40).map(|x| x as f64 * 0.25).collect()),
    ] {
        let members = Members::Generated {
            prefix: b"node-".to_vec(),
            count: n,
            weight_cycle: Some(cycle),
        };
        for i in 0..12 {
            let key = format!("fleet-{n}-{i}");
            v.case(
                "weights-fleet",
                None,
                &members,
                key.as_bytes(),
                [1, 3, 10][i % 3],
            );
        }
    }
    for (i, seed) in seeds.iter().take(6).enumerate() {
        let key = format!("weighted-seed-{i}");
        v.case(
            "weights-seed",
            Some(*seed),
            &weighted(&ids4, &[1.0, 2.0, 3.0, 4.0]),
            key.as_bytes(),
            4,
        );
    }
    // Ties: these two ids have the same node digest under the default seed (found by a collision
    // search), so they score equally for every key and only the tie-break orders them. The larger
    // id comes first in the list so that build order and id order disagree.
    let (tie_hi, tie_lo) = ("tie-f8de3fcc2f7f5a0f", "tie-2726c02dc96aa050");
    for i in 0..20 {
        let key = format!("tie-{i}");
        v.case(
            "ties",
            None,
            &text_ids(&[tie_hi, "other-a", tie_lo, "other-b"]),
            key.as_bytes(),
            4,
        );
        v.case(
            "ties",
            None,
            &text_ids(&[tie_hi, tie_lo]),
            key.as_bytes(),
            1,
        );
        v.case(
            "ties-weighted",
            None,
            &weighted(&[tie_hi, tie_lo, "other"], &[2.0, 2.0, 1.0]),
            key.as_bytes(),
            3,
        );
        v.case(
            "ties-weighted",
            None,
            &weighted(&[tie_hi, tie_lo, "other"], &[1.0, 3.0, 2.0]),
            key.as_bytes(),
            3,
        );
        let mut ids: Vec<&str> = vec![tie_hi, tie_lo];
        let names: Vec<String> = (0..10).map(|j| format!("spread-{j}")).collect();
        ids.extend(names.iter().map(String::as_str));
        let mut ws = vec![5.0, 5.0];
        ws.extend((0..10).map(|j| 1.0 + j as f64));
        v.case(
            "ties-weighted",
            None,
            &weighted(&ids, &ws),
            key.as_bytes(),
            5,
        );
    }
    // Failure domains.
    let racks: Vec<Node> = (0..9)
        .map(|i| Node::new(format!("n{i}")).with_domain(format!("rack-{}", i / 3)))
        .collect();
    let mut mixed: Vec<Node> = racks.clone();
    mixed.push(Node::new("loner"));
    mixed.push(
        Node::new("heavy")
            .with_weight(Weight::new(3.0).expect("valid"))
            .with_domain("rack-0"),
    );
    mixed.push(
        Node::new("drained")
            .with_weight(Weight::ZERO)
            .with_domain("rack-3"),
    );
    for i in 0..50 {
        let key = format!("replica-{i}");
        v.case(
            "domains",
            None,
            &Members::Listed(racks.clone()),
            key.as_bytes(),
            [2, 3, 4, 9, 12][i % 5],
        );
        v.case(
            "domains",
            None,
            &Members::Listed(mixed.clone()),
            key.as_bytes(),
            [1, 3, 5, 11][i % 4],
        );
    }
}

fn draw_cases(s: &mut Stream) -> Vec<Value> {
    let mut scores: Vec<u64> = vec![
        0,
        1,
        2,
        3,
        u64::MAX,
        u64::MAX - 1,
        u64::MAX - 2,
        (1 << 63) - 1,
        1 << 63,
    ];
    for e in 0..64 {
        let p = 1u64 << e;
        scores.extend([p - 1, p, p.wrapping_add(1)]);
    }
    // Every segment j at its start, its end and a random inside point, at random exponents.
    for j in 0..256u64 {
        for _ in 0..3 {
            let e = 40 + s.below(24);
            let base = (1u64 << 63) | (j << 55);
            let m = match s.below(3) {
                0 => base,
                1 => base | ((1 << 55) - 1),
                _ => base | (s.next() & ((1 << 55) - 1)),
            };
            let v = m >> (63 - e);
            scores.push(v.wrapping_sub(1));
        }
    }
    for _ in 0..200 {
        scores.push(s.next());
    }
    scores
        .iter()
        .map(|&sc| json!({"score": sc.to_string(), "draw": draw(sc).to_string()}))
        .collect()
}

fn weight_cases() -> Vec<Value> {
    let ulp = 2f64.powi(-32);
    let valid = [
        0.0,
        -0.0,
        1.0,
        0.5,
        2.0,
        3.0,
        1.0 / 3.0,
        0.1,
        1e6,
        1e-6,
        ulp,
        0.75 * ulp,
        1.5 * ulp,
        2.5 * ulp,
        3.5 * ulp,
        2f64.powi(-33) * 1.0000001,
        2f64.powi(31),
        4294967295.5,
        4294967296.0 - 2f64.powi(-21),
        123.456,
        1e-9,
        65535.99999,
    ];
    let mut out: Vec<Value> = valid
        .iter()
        .map(|&w| json!({"weight": w, "fixed": Weight::new(w).expect("valid").to_fixed().to_string()}))
        .collect();
    let invalid: [Value; 8] = [
        json!("NaN"),
        json!("Infinity"),
        json!("-Infinity"),
        json!(-1.0),
        json!(-1e-300),
        json!(4294967296.0),
        json!(2f64.powi(-33)),
        json!(1e-300),
    ];
    for w in invalid {
        let value = match &w {
            Value::String(s) if s == "NaN" => f64::NAN,
            Value::String(s) if s == "Infinity" => f64::INFINITY,
            Value::String(_) => f64::NEG_INFINITY,
            other => other.as_f64().expect("number"),
        };
        assert!(matches!(
            Weight::new(value),
            Err(Error::InvalidWeight { .. })
        ));
        out.push(json!({"weight": w, "error": "InvalidWeight"}));
    }
    out
}

fn error_cases() -> Vec<Value> {
    let node = |id: &str| json!({"id": hex(id.as_bytes())});
    let wnode = |id: &str, w: Value| json!({"id": hex(id.as_bytes()), "weight": w});
    let cases = [
        ("no-nodes", json!([]), None, "EmptyMembership"),
        (
            "empty-id",
            json!([node("a"), node("")]),
            None,
            "EmptyNodeId",
        ),
        ("only-empty-id", json!([node("")]), None, "EmptyNodeId"),
        (
            "duplicate",
            json!([node("a"), node("b"), node("a")]),
            None,
            "DuplicateNodeId",
        ),
        (
            "duplicate-binary",
            json!([{"id": "00"}, {"id": "00"}]),
            None,
            "DuplicateNodeId",
        ),
        (
            "all-zero",
            json!([wnode("a", json!(0.0)), wnode("b", json!(0.0))]),
            None,
            "AllWeightsZero",
        ),
        (
            "negative-weight",
            json!([wnode("a", json!(-1.0))]),
            None,
            "InvalidWeight",
        ),
        (
            "nan-weight",
            json!([node("a"), wnode("b", json!("NaN"))]),
            None,
            "InvalidWeight",
        ),
        (
            "infinite-weight",
            json!([wnode("a", json!("Infinity"))]),
            None,
            "InvalidWeight",
        ),
        (
            "huge-weight",
            json!([wnode("a", json!(4294967296.0))]),
            None,
            "InvalidWeight",
        ),
        (
            "tiny-weight",
            json!([wnode("a", json!(1e-300))]),
            None,
            "InvalidWeight",
        ),
        (
            "weight-before-duplicate",
            json!([node("a"), wnode("a", json!(-2.0))]),
            None,
            "InvalidWeight",
        ),
        (
            "weight-before-empty-id",
            json!([node(""), wnode("a", json!("NaN"))]),
            None,
            "InvalidWeight",
        ),
        (
            "empty-id-before-duplicate",
            json!([node("a"), node("a"), node("")]),
            None,
            "EmptyNodeId",
        ),
        (
            "zero-weights-and-duplicate",
            json!([wnode("a", json!(0.0)), wnode("a", json!(0.0))]),
            None,
            "DuplicateNodeId",
        ),
        (
            "short-seed",
            json!([node("a")]),
            Some("00112233"),
            "InvalidSeedLength",
        ),
        (
            "long-seed",
            json!([node("a")]),
            Some("00112233445566778899aabbccddeeff00"),
            "InvalidSeedLength",
        ),
        (
            "empty-seed",
            json!([node("a")]),
            Some(""),
            "InvalidSeedLength",
        ),
    ];
    cases
        .into_iter()
        .map(|(name, nodes, seed, error)| {
            let mut o = Map::new();
            o.insert("name".into(), name.into());
            o.insert("nodes".into(), nodes);
            if let Some(seed) = seed {
                o.insert("seed".into(), seed.into());
            }
            o.insert("error".into(), error.into());
            Value::Object(o)
        })
        .collect()
}

/// The whole vectors file, byte for byte.
pub fn generate() -> String {
    let mut stream = Stream(0x6872_772D_7631);
    let mut v = Vectors {
        cases: Vec::new(),
        names: Default::default(),
    };
    add_cases(&mut v, &mut stream);
    let draws = draw_cases(&mut stream);
    JsonFile::new()
        .string("algorithm", "hrw-v1")
        .string("_comment", COMMENT)
        .default_seed()
        .section("cases", &v.cases)
        .section("draw_cases", &draws)
        .section("weight_cases", &weight_cases())
        .section("error_cases", &error_cases())
        .finish()
}
