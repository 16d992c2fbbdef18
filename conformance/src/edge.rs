//! Generator of `conformance/vectors-edge.json`: hrw-v1 cases that `vectors.json` leaves loose.
//!
//! An implementation can pass every case of `vectors.json` with tie rule 2 of SPEC.md 5.3
//! reversed, or with `D / W` compared in binary64, because random memberships almost never put
//! two nodes at equal or nearly equal cross products `D_a * W_b` and `D_b * W_a`. The cases here
//! are built so that they do, by choosing the weights from the draws of one key:
//!
//! - equal cross products, different weights: two nodes with draws `D_a`, `D_b` below 2^53 get
//!   fixed-point weights `D_a / g` and `D_b / g` (`g = gcd(D_a, D_b)`), so `D_a * W_b = D_b * W_a`
//!   exactly and only rule 2 (then rule 3) orders them;
//! - equal cross products, equal weights: two nodes whose draws are equal while their scores
//!   differ, found by a birthday search over the ids `eq-0`, `eq-1`, ... for one key (draws keep
//!   41 significant bits of the score, so about 2^21 ids are tried);
//! - cross products that differ by less than binary64 resolves: weights `p` and `q` from a
//!   continued-fraction convergent of `D_a / D_b`, on the side where the exact order is the
//!   opposite of the score order, kept only when `D / W` and `D * W` in binary64 both compare equal;
//! - weights exactly half-way between two fixed-point values, in placements where rounding the
//!   other way would swap two nodes.
//!
//! Every search walks ids in a fixed order, so the file is the same on every run and machine.

use std::collections::HashMap;

use hrwhash::v1::{draw, key_digest, node_digest, score, Seed};
use hrwhash::{Error, Node, Placement, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, per_node, u64s, JsonFile};

const COMMENT: &str = "Edge cases of hrw-v1 (see SPEC.md), beside vectors.json and in the same \
format: every runner of vectors.json reads this file too. Bytes are lowercase hex; every 64-bit \
integer is a decimal string; weights are JSON numbers that parse to the exact binary64 and \
weight_fixed is the fixed point it rounds to (SPEC.md 5.1). cases: a membership (\"nodes\": \
[{id, weight?, weight_fixed?, domain?}]), a \"key\" and \"k\"; expected: key_digest, owner, rank, \
replicas (when some node has a domain), node_digests and scores (up to 16 nodes). The families: \
tie-proportional (two nodes with exactly equal cross products D_a*W_b = D_b*W_a and different \
weights and scores: tie rule 2 decides), tie-equal-draws (equal weights, equal draws, different \
scores), tie-ids (equal node digests: tie rule 3 decides), near-tie (cross products closer than \
binary64 resolves, exact order against the score order), half-way (a weight exactly half-way \
between two fixed-point values decides the order), domains (several nodes without a domain and an \
empty domain). draw_cases: score -> draw at the least significant bit that takes part. \
weight_cases: weights half-way between fixed-point values and their neighbours. error_cases: \
memberships rejected only because a half-way weight rounds to zero.";

/// A node as the file states it: the weight is the binary64 a caller passes, not its fixed point.
#[derive(Clone)]
struct Spec {
    id: Vec<u8>,
    weight: Option<f64>,
    domain: Option<Vec<u8>>,
}

fn plain(id: &str) -> Spec {
    Spec {
        id: id.as_bytes().to_vec(),
        weight: None,
        domain: None,
    }
}

fn weighted(id: &str, w: f64) -> Spec {
    Spec {
        weight: Some(w),
        ..plain(id)
    }
}

fn in_domain(id: &str, w: Option<f64>, domain: Option<&str>) -> Spec {
    Spec {
        id: id.as_bytes().to_vec(),
        weight: w,
        domain: domain.map(|d| d.as_bytes().to_vec()),
    }
}

/// The binary64 whose fixed point is exactly `fixed` (below 2^53, so the division is exact).
fn weight_of_fixed(fixed: u64) -> f64 {
    assert!(fixed > 0 && fixed < 1 << 53);
    let w = fixed as f64 / 4_294_967_296.0;
    assert_eq!(Weight::new(w).expect("valid").to_fixed(), fixed);
    w
}

fn placement(nodes: &[Spec]) -> Placement {
    let nodes: Vec<_> = nodes
        .iter()
        .map(|s| {
            let mut n = Node::new(&s.id);
            if let Some(w) = s.weight {
                n = n.with_weight(Weight::new(w).expect("valid weight"));
            }
            if let Some(d) = &s.domain {
                n = n.with_domain(d);
            }
            n
        })
        .collect();
    Placement::from_nodes(Seed::DEFAULT, nodes).expect("valid membership")
}

struct Cases {
    cases: Vec<Value>,
    counts: HashMap<String, usize>,
}

impl Cases {
    fn case(&mut self, family: &str, nodes: &[Spec], key: &[u8], k: usize) {
        let n = self.counts.entry(family.to_string()).or_insert(0);
        let name = format!("{family}-{n}");
        *n += 1;
        let p = placement(nodes);
        let seed = Seed::DEFAULT;
        let mut case = Map::new();
        case.insert("name".into(), name.into());
        let list: Vec<Value> = nodes
            .iter()
            .map(|s| {
                let mut o = Map::new();
                o.insert("id".into(), hex(&s.id).into());
                if let Some(w) = s.weight {
                    o.insert("weight".into(), json!(w));
                    let fixed = Weight::new(w).expect("valid").to_fixed();
                    o.insert("weight_fixed".into(), u64s(fixed));
                }
                if let Some(d) = &s.domain {
                    o.insert("domain".into(), hex(d).into());
                }
                Value::Object(o)
            })
            .collect();
        case.insert("nodes".into(), Value::Array(list));
        case.insert("key".into(), hex(key).into());
        case.insert("k".into(), json!(k));

        let kd = key_digest(&seed, key);
        let mut expected = Map::new();
        expected.insert("key_digest".into(), u64s(kd));
        expected.insert("owner".into(), json!(p.owner_index(key)));
        let rank: Vec<usize> = p.rank(key, k).iter().map(|r| r.index()).collect();
        expected.insert("rank".into(), json!(rank));
        if nodes.iter().any(|s| s.domain.is_some()) {
            let replicas: Vec<usize> = p.replicas(key, k).iter().map(|r| r.index()).collect();
            expected.insert("replicas".into(), json!(replicas));
        }
        if nodes.len() <= 16 {
            let digests: Vec<u64> = nodes.iter().map(|s| node_digest(&seed, &s.id)).collect();
            per_node(&mut expected, &digests, kd);
        }
        case.insert("expected".into(), Value::Object(expected));
        self.cases.push(Value::Object(case));
    }
}

/// Score and draw of `id` for the key digest `kd` under the default seed.
fn score_draw(kd: u64, id: &str) -> (u64, u64) {
    let s = score(kd, node_digest(&Seed::DEFAULT, id.as_bytes()));
    (s, draw(s))
}

/// The first ids `{prefix}-0`, `{prefix}-1`, ... whose draw for `kd` is below 2^53, so that the
/// draw and any weight derived from it are exact binary64 values.
fn small_draws(kd: u64, prefix: &str, count: usize) -> Vec<(String, u64, u64)> {
    (0..)
        .map(|j| format!("{prefix}-{j}"))
        .map(|id| {
            let (s, d) = score_draw(kd, &id);
            (id, s, d)
        })
        .filter(|&(_, _, d)| d < 1 << 53)
        .take(count)
        .collect()
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Other nodes beside a pair that decides the order: none; a few of small weights; enough
/// distinct weights that the core ranks node by node instead of by weight group; or more than 16
/// nodes, so that a k beyond 16 leaves the fixed-size top-k lists.
fn extras(variant: usize) -> Vec<Spec> {
    match variant % 4 {
        0 => Vec::new(),
        1 => vec![
            weighted("x-0", 1.0),
            weighted("x-1", 2.0),
            weighted("x-2", 0.5),
        ],
        2 => (0..10)
            .map(|i| weighted(&format!("x-{i}"), 1.0 + i as f64 * 0.375))
            .collect(),
        _ => (0..22)
            .map(|i| weighted(&format!("x-{i}"), [1.0, 2.0][i % 2]))
            .collect(),
    }
}

/// `pair` placed among `extras(variant)`, first or last, in either order.
fn with_extras(pair: [Spec; 2], variant: usize) -> Vec<Spec> {
    let [a, b] = pair;
    let pair = if variant.is_multiple_of(2) {
        [a, b]
    } else {
        [b, a]
    };
    let mut nodes = extras(variant);
    if (variant / 4).is_multiple_of(2) {
        nodes.splice(0..0, pair);
    } else {
        nodes.extend(pair);
    }
    nodes
}

/// The k values a membership of `n` nodes is checked with: the owner, the pair, everything and
/// beyond, and 17 (past the fixed-size lists) when there are enough nodes.
fn ks(n: usize, variant: usize) -> Vec<usize> {
    let mut ks = vec![1, 2, n, n + 1];
    if n > 17 {
        ks.push(17);
    }
    let turn = variant % ks.len();
    ks.rotate_left(turn);
    ks.truncate(2);
    ks
}

fn tie_proportional(v: &mut Cases) {
    for i in 0..24 {
        let key = format!("edge-tie-{i}");
        let kd = key_digest(&Seed::DEFAULT, key.as_bytes());
        // Rule 2 puts the higher score first, rule 3 the smaller id: in every other case they
        // disagree, so that an implementation that skips rule 2 fails too.
        let disagree = i % 2 == 0;
        let found = small_draws(kd, &format!("tie-{i}"), 6);
        let pairs = found
            .iter()
            .enumerate()
            .flat_map(|(x, a)| found[x + 1..].iter().map(move |b| (a, b)));
        let (a, b) = pairs
            .into_iter()
            .find(|(a, b)| a.1 != b.1 && ((a.1 > b.1) != (a.0 < b.0)) == disagree)
            .expect("among six candidates some pair has the wanted id order");
        let ((ida, _, da), (idb, _, db)) = (a.clone(), b.clone());
        let g = gcd(da, db);
        let (wa, wb) = (da / g, db / g);
        assert_eq!(da as u128 * wb as u128, db as u128 * wa as u128);
        assert_ne!(wa, wb);
        let pair = [
            weighted(&ida, weight_of_fixed(wa)),
            weighted(&idb, weight_of_fixed(wb)),
        ];
        let nodes = with_extras(pair, i);
        for k in ks(nodes.len(), i) {
            v.case("tie-proportional", &nodes, key.as_bytes(), k);
        }
    }
}

/// Two ids with equal draws and different scores for `key`: a birthday search over `eq-{j}`.
fn equal_draws(key: &[u8]) -> (String, String) {
    let kd = key_digest(&Seed::DEFAULT, key);
    let mut seen: HashMap<u64, (u64, u64)> = HashMap::new();
    for j in 0u64.. {
        let (s, d) = score_draw(kd, &format!("eq-{j}"));
        match seen.get(&d) {
            Some(&(first, s0)) if s0 != s => return (format!("eq-{first}"), format!("eq-{j}")),
            Some(_) => {}
            None => {
                seen.insert(d, (j, s));
            }
        }
    }
    unreachable!("the search ends when it finds a pair")
}

fn tie_equal_draws(v: &mut Cases) {
    let key = b"edge-equal-draws";
    let (a, b) = equal_draws(key);
    for (i, pair_weight) in [1e6, 1e6, 2.0, 1.0, 1.0, 3.0].into_iter().enumerate() {
        let pair = [weighted(&a, pair_weight), weighted(&b, pair_weight)];
        let mut nodes = with_extras(pair, i);
        if nodes.len() == 2 {
            // A second weight, so that the weighted order applies at all.
            nodes.push(weighted("x-0", 0.5));
        }
        for k in ks(nodes.len(), i) {
            v.case("tie-equal-draws", &nodes, key, k);
        }
        v.case("tie-equal-draws", &nodes, key, nodes.len());
    }
}

fn tie_ids(v: &mut Cases) {
    // Equal node digests under the default seed (the pair of vectors.json's "ties" cases): their
    // scores, draws and cross products are equal for every key, so only rule 3 orders them.
    let (hi, lo) = ("tie-f8de3fcc2f7f5a0f", "tie-2726c02dc96aa050");
    assert_eq!(
        node_digest(&Seed::DEFAULT, hi.as_bytes()),
        node_digest(&Seed::DEFAULT, lo.as_bytes())
    );
    for i in 0..12 {
        let key = format!("edge-ids-{i}");
        let w = [1e6, 2.0, 1.0][i % 3];
        let pair = [weighted(hi, w), weighted(lo, w)];
        let mut nodes = with_extras(pair, i);
        if nodes.len() == 2 {
            nodes.push(weighted("x-0", 0.25));
        }
        for k in ks(nodes.len(), i) {
            v.case("tie-ids", &nodes, key.as_bytes(), k);
        }
    }
}

/// Convergents `p / q` of `a / b` with `p, q <= limit`.
fn convergents(a: u64, b: u64, limit: u128) -> Vec<(u128, u128)> {
    let (mut p0, mut q0, mut p1, mut q1) = (0u128, 1u128, 1u128, 0u128);
    let (mut num, mut den) = (a as u128, b as u128);
    let mut out = Vec::new();
    while den != 0 {
        let t = num / den;
        let (p2, q2) = (t * p1 + p0, t * q1 + q0);
        if p2 > limit || q2 > limit {
            break;
        }
        out.push((p2, q2));
        (num, den) = (den, num - t * den);
        (p0, q0, p1, q1) = (p1, q1, p2, q2);
    }
    out
}

/// Weights for the lower-scoring node `lo` and the higher-scoring `hi` that put `lo` first by
/// a margin binary64 cannot see, when the draws allow it.
fn near_tie_weights(d_lo: u64, d_hi: u64, limit: u128) -> Option<(u64, u64)> {
    // lo first <=> D_lo * W_hi < D_hi * W_lo <=> W_lo / W_hi > D_lo / D_hi.
    let (p, q) = convergents(d_lo, d_hi, limit)
        .into_iter()
        .rev()
        .find(|&(p, q)| p >= 1 && q >= 1 && p * d_hi as u128 > q * d_lo as u128)?;
    let (w_lo, w_hi) = (p as u64, q as u64);
    let (dl, dh, wl, wh) = (d_lo as f64, d_hi as f64, w_lo as f64, w_hi as f64);
    (dl / wl == dh / wh && dl * wh == dh * wl).then_some((w_lo, w_hi))
}

fn near_ties(v: &mut Cases) {
    for i in 0..32 {
        let key = format!("edge-near-{i}");
        let kd = key_digest(&Seed::DEFAULT, key.as_bytes());
        let limit: u128 = if i % 2 == 0 { 1 << 52 } else { 1 << 40 };
        let candidates = small_draws(kd, &format!("near-{i}"), 12);
        let (pair, w_lo, w_hi) = candidates
            .windows(2)
            .find_map(|w| {
                let (hi, lo) = if w[0].1 > w[1].1 {
                    (&w[0], &w[1])
                } else {
                    (&w[1], &w[0])
                };
                near_tie_weights(lo.2, hi.2, limit).map(|(wl, wh)| ((lo, hi), wl, wh))
            })
            .expect("a pair among the candidates admits a near tie");
        let (lo, hi) = pair;
        let nodes = with_extras(
            [
                weighted(&hi.0, weight_of_fixed(w_hi)),
                weighted(&lo.0, weight_of_fixed(w_lo)),
            ],
            i,
        );
        for k in ks(nodes.len(), i) {
            v.case("near-tie", &nodes, key.as_bytes(), k);
        }
    }
}

fn half_way(v: &mut Cases) {
    for i in 0..24 {
        let key = format!("edge-half-{i}");
        let kd = key_digest(&Seed::DEFAULT, key.as_bytes());
        let (ida, idb) = (format!("half-{i}-a"), format!("half-{i}-b"));
        let (_, da) = score_draw(kd, &ida);
        let (_, db) = score_draw(kd, &idb);
        // W_b is picked so that W_a = m + 1/2 sits between the two fixed points that order a and
        // b differently: D_b * m < D_a * W_b < D_b * (m + 1). Even m catches rounding half up,
        // odd m rounding half down or truncating.
        let base = [1u64 << 32, 3 << 32, 1 << 30, 15 << 31][i % 4];
        let want_odd = i % 2 == 1;
        let (wb, m) = (0..)
            .map(|t| base + t)
            .map(|wb| (wb, da as u128 * wb as u128 / db as u128))
            .find(|&(wb, m)| m % 2 == want_odd as u128 && m * db as u128 != da as u128 * wb as u128)
            .expect("some W_b gives m of each parity");
        assert!(
            (1..1 << 52).contains(&m),
            "m + 1/2 must be an exact binary64 fixed point"
        );
        let wa = (2 * m as u64 + 1) as f64 / 8_589_934_592.0;
        assert_eq!(
            Weight::new(wa).expect("valid").to_fixed(),
            if want_odd { m as u64 + 1 } else { m as u64 }
        );
        let pair = [weighted(&ida, wa), weighted(&idb, weight_of_fixed(wb))];
        let nodes = with_extras(pair, i);
        v.case("half-way", &nodes, key.as_bytes(), nodes.len());
        v.case("half-way", &nodes, key.as_bytes(), 1);
    }
}

fn domains(v: &mut Cases) {
    let nodes = vec![
        in_domain("n-0", None, None),
        in_domain("n-1", None, None),
        in_domain("n-2", Some(2.0), None),
        in_domain("e-0", None, Some("")),
        in_domain("e-1", Some(2.0), Some("")),
        in_domain("r-0", None, Some("r")),
        in_domain("r-1", None, Some("r")),
        in_domain("d-0", Some(0.0), Some("")),
        in_domain("x", Some(0.5), Some("x")),
    ];
    for i in 0..40 {
        let key = format!("edge-domains-{i}");
        v.case("domains", &nodes, key.as_bytes(), 1 + i % 9);
    }
}

fn draw_cases() -> Vec<Value> {
    let mut scores = Vec::new();
    // For each exponent whose v = s + 1 has bits below the 41 that take part: the lowest bit that
    // takes part set and clear, and the bits below it all clear and all set.
    for e in 41..=63u32 {
        let low = e - 40; // bits of v below the 41 significant ones
        for j in [0u64, 1, 127, 128, 254, 255] {
            for d in [0u64, 1, 2, 3, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF] {
                let top = (1u64 << 40) | (j << 32) | d;
                for rest in [0, (1u64 << low) - 1] {
                    let v = (top << low) | rest;
                    scores.push(v - 1);
                }
            }
        }
    }
    scores
        .iter()
        .map(|&s| json!({"score": s.to_string(), "draw": draw(s).to_string()}))
        .collect()
}

fn weight_cases() -> Vec<Value> {
    let half = |m: u64| (2 * m + 1) as f64 / 8_589_934_592.0; // (m + 1/2) / 2^32
    let ms = [
        1u64,
        2,
        3,
        4,
        5,
        6,
        7,
        (1 << 20) - 1,
        1 << 20,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 1,
        (1 << 51) - 1,
        1 << 51,
        (1 << 52) - 2,
        (1 << 52) - 1,
    ];
    // The binary64 neighbours of a positive finite weight (f64::next_up needs Rust 1.86).
    let down = |w: f64| f64::from_bits(w.to_bits() - 1);
    let up = |w: f64| f64::from_bits(w.to_bits() + 1);
    let mut weights: Vec<f64> = Vec::new();
    for m in ms {
        let w = half(m);
        weights.extend([w, down(w), up(w)]);
    }
    // Beyond 2^53 / 2^32 every weight is a whole fixed point; the last ones below 2^32.
    weights.extend([
        2_097_152.0 + 2f64.powi(-31),
        4_294_967_296.0 - 2f64.powi(-21),
        4_294_967_296.0 - 2f64.powi(-20),
        up(2f64.powi(-33)),
        down(2f64.powi(-32)),
    ]);
    let mut out: Vec<Value> = weights
        .iter()
        .map(|&w| {
            let fixed = Weight::new(w).expect("valid").to_fixed();
            json!({"weight": w, "fixed": fixed.to_string()})
        })
        .collect();
    for w in [2f64.powi(-33), down(2f64.powi(-33)), 5e-324] {
        assert!(matches!(Weight::new(w), Err(Error::InvalidWeight { .. })));
        out.push(json!({"weight": w, "error": "InvalidWeight"}));
    }
    out
}

fn error_cases() -> Vec<Value> {
    let node = |id: &str, w: f64| json!({"id": hex(id.as_bytes()), "weight": w});
    let tie = 2f64.powi(-33); // half-way between fixed points 0 and 1: rounds to 0
    [
        ("half-way-to-zero", json!([node("a", tie)])),
        (
            "half-way-to-zero-second",
            json!([node("a", 1.0), node("b", tie)]),
        ),
        (
            "half-way-to-zero-drained",
            json!([node("a", 0.0), node("b", tie)]),
        ),
    ]
    .into_iter()
    .map(|(name, nodes)| json!({"name": name, "nodes": nodes, "error": "InvalidWeight"}))
    .collect()
}

/// The whole edge vectors file, byte for byte.
pub fn generate() -> String {
    let mut v = Cases {
        cases: Vec::new(),
        counts: HashMap::new(),
    };
    tie_proportional(&mut v);
    tie_equal_draws(&mut v);
    tie_ids(&mut v);
    near_ties(&mut v);
    half_way(&mut v);
    domains(&mut v);
    JsonFile::new()
        .string("algorithm", "hrw-v1")
        .string("_comment", COMMENT)
        .default_seed()
        .section("cases", &v.cases)
        .section("draw_cases", &draw_cases())
        .section("weight_cases", &weight_cases())
        .section("error_cases", &error_cases())
        .finish()
}
