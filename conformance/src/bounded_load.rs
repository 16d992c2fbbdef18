//! Generator of `conformance/policies/bounded-load.json`: the bounded-load-v1 cases
//! (POLICIES.md) every binding that exposes the policy reproduces. Inputs come from fixed formulas
//! and a fixed SplitMix64 stream, so the file is the same on every run and machine.

use hrwhash::policy::{BalanceFactor, BoundedLoad, BOUNDED_LOAD_POLICY};
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, u64s, JsonFile, Stream};

/// The format of a bounded-load-v1 vectors file, which bounded-load-boundaries.json shares.
pub(crate) const FORMAT: &str = "Bytes are \
lowercase hex; every 64-bit integer is a decimal string. A membership is \"nodes\": [{id, weight?, \
weight_fixed?}] or \"node_prefix\" + \"node_count\" (+ \"weight_cycle\") as in vectors.json, with \
the default seed. factor: {num, den}. online: a key, loads (one per node, build order); expected: \
owner (build-order index) and position (0-based, in the key's hrw-v1 ranking). batch: keys are the \
ASCII text key_prefix followed by the decimal of i for i in 0..key_count, assigned in that order; \
expected: owners (one build-order index per key) and counts (keys per node). factor_cases: a \
binary64 factor (\"NaN\", \"Infinity\", \"-Infinity\" stand for those) and the num/den it becomes \
with den 10^6, or the error. error_cases: online lookups that fail with the named error.";

/// A membership as the file states it.
pub(crate) struct Fleet {
    prefix: &'static str,
    pub(crate) count: usize,
    cycle: Option<Vec<f64>>,
}

impl Fleet {
    pub(crate) fn equal(count: usize) -> Fleet {
        Fleet {
            prefix: "node-",
            count,
            cycle: None,
        }
    }
    pub(crate) fn weighted(count: usize, cycle: &[f64]) -> Fleet {
        Fleet {
            prefix: "node-",
            count,
            cycle: Some(cycle.to_vec()),
        }
    }
    pub(crate) fn placement(&self) -> Placement {
        let nodes: Vec<_> = (0..self.count)
            .map(|i| {
                let node = Node::new(format!("{}{i}", self.prefix));
                match &self.cycle {
                    Some(c) => node.with_weight(Weight::new(c[i % c.len()]).expect("valid")),
                    None => node,
                }
            })
            .collect();
        Placement::from_nodes(Seed::DEFAULT, nodes).expect("valid membership")
    }
    pub(crate) fn describe(&self, out: &mut Map<String, Value>) {
        out.insert("node_prefix".into(), hex(self.prefix.as_bytes()).into());
        out.insert("node_count".into(), json!(self.count));
        if let Some(c) = &self.cycle {
            out.insert("weight_cycle".into(), json!(c));
        }
    }
}

const FACTORS: [(u32, u32); 9] = [
    (1, 1),
    (105, 100),
    (11, 10),
    (5, 4),
    (3, 2),
    (2, 1),
    (1_250_000, 1_000_000),
    (7, 3),
    (u32::MAX, 1),
];

/// A batch case: the keys `prefix` + i for i in 0..owners.len() and the owner of each, with the
/// count of keys per node.
pub(crate) fn batch_case(
    name: &str,
    fleet: &Fleet,
    factor: BalanceFactor,
    prefix: &str,
    owners: &[usize],
) -> Value {
    let mut counts = vec![0usize; fleet.count];
    for &o in owners {
        counts[o] += 1;
    }
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    fleet.describe(&mut o);
    o.insert("factor".into(), factor_json(factor));
    o.insert("key_prefix".into(), prefix.into());
    o.insert("key_count".into(), json!(owners.len()));
    o.insert(
        "expected".into(),
        json!({"owners": owners, "counts": counts}),
    );
    Value::Object(o)
}

pub(crate) fn factor_json(f: BalanceFactor) -> Value {
    json!({"num": f.num(), "den": f.den()})
}

pub(crate) fn position(placement: &Placement, key: &[u8], index: usize) -> usize {
    placement
        .ranking(key)
        .position(|n| n.index() == index)
        .expect("the answer is in the ranking")
}

pub(crate) fn online_case(
    name: String,
    fleet: &Fleet,
    factor: BalanceFactor,
    key: &[u8],
    loads: &[u64],
) -> Value {
    let placement = fleet.placement();
    let owner = BoundedLoad::new(placement.clone(), factor)
        .owner_index(key, loads)
        .expect("valid lookup");
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    fleet.describe(&mut o);
    o.insert("factor".into(), factor_json(factor));
    o.insert("key".into(), hex(key).into());
    o.insert(
        "loads".into(),
        loads.iter().map(|&l| u64s(l)).collect::<Vec<_>>().into(),
    );
    o.insert(
        "expected".into(),
        json!({"owner": owner, "position": position(&placement, key, owner)}),
    );
    Value::Object(o)
}

fn online(s: &mut Stream) -> Vec<Value> {
    let mut cases = Vec::new();
    let fleets = [
        Fleet::equal(1),
        Fleet::equal(2),
        Fleet::equal(3),
        Fleet::equal(5),
        Fleet::weighted(4, &[1.0, 2.0, 3.0, 4.0]),
        Fleet::weighted(6, &[0.5, 1.0, 0.0]),
        Fleet::equal(20),
        Fleet::weighted(30, &[1.0, 1.0, 3.0, 0.25]),
    ];
    // Random loads, with the key's first choices made heavy so that it probes further.
    for (f, fleet) in fleets.iter().enumerate() {
        let placement = fleet.placement();
        for i in 0..24 {
            let (num, den) = FACTORS[(f + i) % (FACTORS.len() - 1)];
            let factor = BalanceFactor::new(num, den).expect("valid");
            let key = format!("key-{}", s.below(1_000_000));
            let mut loads: Vec<u64> = (0..fleet.count).map(|_| s.below(40)).collect();
            let heavy = s.below(placement.selectable_len() as u64 + 1) as usize;
            for n in placement.ranking(&key).take(heavy) {
                loads[n.index()] = 40 + s.below(400);
            }
            cases.push(online_case(
                format!("random-{f}-{i}"),
                fleet,
                factor,
                key.as_bytes(),
                &loads,
            ));
        }
    }
    // The owner exactly at its cap, and one below: the largest owner load that is accepted.
    // Every share times c is below 1 (at most 3/8 * 7/3), so the owner fills up eventually.
    let fleet = Fleet::weighted(5, &[1.0, 2.0, 3.0, 1.0, 1.0]);
    let placement = fleet.placement();
    for (num, den) in FACTORS[..8].iter().copied() {
        let factor = BalanceFactor::new(num, den).expect("valid");
        let policy = BoundedLoad::new(placement.clone(), factor);
        for j in 0..3 {
            let key = format!("edge-{num}-{den}-{j}");
            let owner = placement.owner_index(&key);
            let mut loads = vec![7 * j as u64, 11, 5 + j as u64, 3, 0];
            loads[owner] = 0;
            while policy.owner_index(&key, &loads) == Ok(owner) {
                loads[owner] += 1;
                assert!(loads[owner] < 10_000, "{key}: the owner never fills");
            }
            for x in [loads[owner] - 1, loads[owner]] {
                loads[owner] = x;
                cases.push(online_case(
                    format!("cap-edge-{num}-{den}-{j}-{x}"),
                    &fleet,
                    factor,
                    key.as_bytes(),
                    &loads,
                ));
            }
        }
    }
    // Caps that are exact integers where a binary64 share rounds up across them: weights 7, 9, 9,
    // c = 1 and a total of 24 give slots 25 and a cap of exactly 7 for the first node, while
    // 25.0 * (7.0 / 25.0) is above 7 in binary64 (whose ceiling is 8).
    let fleet = Fleet::weighted(3, &[7.0, 9.0, 9.0]);
    let placement = fleet.placement();
    let owned_by_first = (0..)
        .map(|i| format!("share-{i}"))
        .filter(|k| placement.owner_index(k) == 0);
    for (j, key) in owned_by_first.take(4).enumerate() {
        let loads = if j % 2 == 0 { [7, 9, 8] } else { [7, 8, 9] };
        cases.push(online_case(
            format!("exact-share-{j}"),
            &fleet,
            BalanceFactor::new(1, 1).expect("valid"),
            key.as_bytes(),
            &loads,
        ));
    }
    // Every node but one far above its cap: probes beyond the 8th and 64th positions.
    let fleet = Fleet::equal(200);
    let placement = fleet.placement();
    for (i, depth) in [5usize, 8, 9, 40, 63, 64, 70, 150, 199].iter().enumerate() {
        let key = format!("deep-{i}");
        let mut loads = vec![1000u64; 200];
        let free = placement
            .ranking(&key)
            .nth(*depth)
            .expect("200 nodes")
            .index();
        loads[free] = 0;
        let factor = BalanceFactor::new(1, 1).expect("valid");
        cases.push(online_case(
            format!("deep-{depth}"),
            &fleet,
            factor,
            key.as_bytes(),
            &loads,
        ));
    }
    // Totals near 2^64, huge and tiny weights, the largest factor: products far beyond 2^64.
    let big = [
        (
            Fleet::weighted(3, &[4294967295.0, 1.0 / 4294967296.0, 1.0]),
            0u64,
        ),
        (Fleet::equal(4), 1),
        (Fleet::weighted(5, &[4294967295.999, 4294967295.5, 2.0]), 2),
    ];
    for (fleet, j) in big {
        let placement = fleet.placement();
        for (num, den) in [(1, 1), (u32::MAX, 1), (u32::MAX, u32::MAX - 1), (3, 2)] {
            let factor = BalanceFactor::new(num, den).expect("valid");
            for t in 0..3u64 {
                let key = format!("big-{j}-{t}");
                let mut loads = vec![0u64; fleet.count];
                let owner = placement.owner_index(&key);
                let total = u64::MAX - t * (u64::MAX / 3);
                loads[owner] = total / 2 + t;
                let last = fleet.count - 1;
                loads[(owner + 1) % fleet.count] = total - loads[owner] - (last as u64);
                loads[(owner + 2) % fleet.count] += last as u64;
                cases.push(online_case(
                    format!("big-{j}-{num}-{den}-{t}"),
                    &fleet,
                    factor,
                    key.as_bytes(),
                    &loads,
                ));
            }
        }
    }
    cases
}

fn batch() -> Vec<Value> {
    let mut cases = Vec::new();
    let fleets = [
        Fleet::equal(1),
        Fleet::equal(3),
        Fleet::weighted(4, &[1.0, 2.0, 3.0, 4.0]),
        Fleet::weighted(5, &[1.0, 0.0, 2.5]),
        Fleet::equal(16),
    ];
    for (f, fleet) in fleets.iter().enumerate() {
        for (c, count) in [(0usize, 1usize), (1, 10), (2, 101), (3, 1000)] {
            let (num, den) = FACTORS[(f + c) % 8];
            let factor = BalanceFactor::new(num, den).expect("valid");
            let keys: Vec<String> = (0..count).map(|i| format!("key-{i}")).collect();
            let policy = BoundedLoad::new(fleet.placement(), factor);
            let owners = policy.assign(&keys).expect("valid batch");
            let name = format!("batch-{f}-{count}");
            cases.push(batch_case(&name, fleet, factor, "key-", &owners));
        }
    }
    cases
}

pub(crate) fn float_json(c: f64) -> Value {
    if c.is_nan() {
        "NaN".into()
    } else if c.is_infinite() {
        if c > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        json!(c)
    }
}

fn factor_cases() -> Vec<Value> {
    factor_cases_of(&[
        1.0,
        1.05,
        1.1,
        1.25,
        1.5,
        2.0,
        1.0 + 1.0 / 2_097_152.0,
        1.0 + 1.0 / 1_048_576.0,
        1.000_000_5,
        1.000_001_5,
        4_294.967_295,
        4_294.967_295_4,
        4_294.967_295_5,
        0.999_999_9,
        0.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
    ])
}

/// The num/den (or the error) `BalanceFactor::from_f64` gives each value.
pub(crate) fn factor_cases_of(values: &[f64]) -> Vec<Value> {
    values
        .iter()
        .map(|&c| match BalanceFactor::from_f64(c) {
            Ok(f) => json!({"factor": float_json(c), "num": f.num(), "den": f.den()}),
            Err(Error::InvalidBalanceFactor { .. }) => {
                json!({"factor": float_json(c), "error": "InvalidBalanceFactor"})
            }
            Err(e) => panic!("{c}: {e}"),
        })
        .collect()
}

fn error_cases() -> Vec<Value> {
    let fleet = Fleet::equal(3);
    let policy = BoundedLoad::new(fleet.placement(), BalanceFactor::new(5, 4).expect("valid"));
    let cases: [(&str, Vec<u64>, &str); 5] = [
        ("short-loads", vec![0, 0], "LengthMismatch"),
        ("long-loads", vec![0, 0, 0, 0], "LengthMismatch"),
        ("no-loads", vec![], "LengthMismatch"),
        ("overflow", vec![u64::MAX, 1, 0], "LoadOverflow"),
        (
            "overflow-spread",
            vec![u64::MAX / 2 + 1, u64::MAX / 2 + 1, 0],
            "LoadOverflow",
        ),
    ];
    let mut out: Vec<Value> = cases
        .iter()
        .map(|(name, loads, error)| {
            let got = policy.owner_index("key", loads).expect_err(name);
            assert_eq!(
                matches!(got, Error::LengthMismatch { .. }),
                *error == "LengthMismatch"
            );
            let mut o = Map::new();
            o.insert("name".into(), (*name).into());
            fleet.describe(&mut o);
            o.insert("factor".into(), json!({"num": 5, "den": 4}));
            o.insert("key".into(), hex(b"key").into());
            o.insert(
                "loads".into(),
                loads.iter().map(|&l| u64s(l)).collect::<Vec<_>>().into(),
            );
            o.insert("error".into(), (*error).into());
            Value::Object(o)
        })
        .collect();
    for (num, den) in [(99u32, 100u32), (0, 1), (1, 0), (0, 0)] {
        assert!(BalanceFactor::new(num, den).is_err());
        let mut o = Map::new();
        o.insert("name".into(), format!("factor-{num}-{den}").into());
        fleet.describe(&mut o);
        o.insert("factor".into(), json!({"num": num, "den": den}));
        o.insert("key".into(), hex(b"key").into());
        o.insert("loads".into(), json!(["0", "0", "0"]));
        o.insert("error".into(), "InvalidBalanceFactor".into());
        out.push(Value::Object(o));
    }
    out
}

/// The whole vectors file, byte for byte.
pub fn generate() -> String {
    // The seed spells "bounded" in ASCII, so the grouping is by byte, not a literal suffix.
    #[allow(clippy::mistyped_literal_suffixes)]
    let mut stream = Stream(0x626f_756e_6465_64);
    let online = online(&mut stream);
    write_file(
        "Conformance cases of bounded-load-v1 (see POLICIES.md).",
        &online,
        &batch(),
        &factor_cases(),
        &error_cases(),
    )
}

/// A bounded-load-v1 vectors file: `intro`, then [`FORMAT`] as its `_comment`, and the sections.
pub(crate) fn write_file(
    intro: &str,
    online: &[Value],
    batch: &[Value],
    factor_cases: &[Value],
    error_cases: &[Value],
) -> String {
    JsonFile::new()
        .string("policy", BOUNDED_LOAD_POLICY)
        .string("_comment", &format!("{intro} {FORMAT}"))
        .default_seed()
        .section("online", online)
        .section("batch", batch)
        .section("factor_cases", factor_cases)
        .section("error_cases", error_cases)
        .finish()
}
