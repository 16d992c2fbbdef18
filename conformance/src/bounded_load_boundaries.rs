//! Generator of `conformance/policies/bounded-load-boundaries.json`: bounded-load-v1 cases
//! (POLICIES.md) built so that an implementation one step off a cap fails at least one of them.
//! bounded-load.json is frozen and mostly random; here every online case puts the key's owner
//! exactly at its cap or one below it, with the numbers chosen so that each likely slip (`<=`
//! for `<`, a floor for a ceiling, `L` for `L + 1`, an unweighted or a binary64 share, one
//! ceiling for two, the draining nodes' loads left out of `L`) moves the answer; and every batch
//! fills a node to its capacity `ceil(c * K * share)` and then turns a key away from it.

use hrwhash::policy::{BalanceFactor, BoundedLoad};
use hrwhash::Placement;
use serde_json::{json, Map, Value};

use crate::bounded_load::{batch_case, factor_cases_of, online_case, position, write_file, Fleet};
use crate::{hex, u64s};

const INTRO: &str = "Boundary cases of bounded-load-v1 (see POLICIES.md, \"Boundary vectors\"): \
in every online case node 0 owns the key and its load is at its cap or one below; every batch \
fills a node to its capacity and then turns a key away from it. The names say which boundary a \
case is about.";

fn factor(num: u32, den: u32) -> BalanceFactor {
    BalanceFactor::new(num, den).expect("valid factor")
}

/// The first of `prefix0`, `prefix1`, ... whose hrw-v1 owner is node 0.
fn key_owned_by_first(placement: &Placement, prefix: &str) -> String {
    (0..)
        .map(|i| format!("{prefix}{i}"))
        .find(|k| placement.owner_index(k) == 0)
        .expect("node 0 owns some key")
}

/// The online cases: (name, fleet, factor, loads with node 0 the owner), and what each is about.
fn online() -> Vec<Value> {
    let half = 1u64 << 63;
    let specs: Vec<(&str, Fleet, BalanceFactor, Vec<u64>)> = vec![
        // slots = 8, cap = 2 exactly: a node at its cap refuses (`<=` or floor + 1 accept).
        (
            "at-integer-cap",
            Fleet::equal(4),
            factor(1, 1),
            vec![2, 5, 0, 0],
        ),
        (
            "below-integer-cap",
            Fleet::equal(4),
            factor(1, 1),
            vec![1, 6, 0, 0],
        ),
        // slots = 5, cap = ceil(5/3) = 2: one below accepts (a floor, with or without the
        // minimum of 1, refuses), at it refuses.
        (
            "below-fractional-cap",
            Fleet::equal(3),
            factor(1, 1),
            vec![1, 3, 0],
        ),
        (
            "at-fractional-cap",
            Fleet::equal(3),
            factor(1, 1),
            vec![2, 2, 0],
        ),
        // Weights 1 and 8, slots 4 or 5: the light node's cap is ceil(4/9) = 1, the minimum a
        // selectable node has; idle it accepts (a floor refuses), at 1 it refuses.
        (
            "light-idle",
            Fleet::weighted(2, &[1.0, 8.0]),
            factor(1, 1),
            vec![0, 3],
        ),
        (
            "light-at-cap-one",
            Fleet::weighted(2, &[1.0, 8.0]),
            factor(1, 1),
            vec![1, 3],
        ),
        // L + 1: slots = 5, cap = 3 accepts a load of 2 (slots = L = 4 gives cap 2) ...
        ("total-plus-one", Fleet::equal(2), factor(1, 1), vec![2, 2]),
        // ... and slots = 4, cap 2 refuses it (slots = L + 2 = 5 gives cap 3).
        (
            "total-plus-one-not-two",
            Fleet::equal(2),
            factor(1, 1),
            vec![2, 1],
        ),
        // Nothing loaded: slots = 1, every cap 1 (slots = L = 0 leaves no node a place).
        ("idle-fleet", Fleet::equal(3), factor(1, 1), vec![0, 0, 0]),
        // c = 3/2, L = 2: slots = ceil(4.5) = 5 and cap = 3 (floor or half-even: 4 and 2).
        (
            "slots-rounded-up",
            Fleet::equal(2),
            factor(3, 2),
            vec![2, 0],
        ),
        // Weights 2, 1, 1, 1, c = 3/2, L = 4: slots = ceil(7.5) = 8, cap = ceil(8 * 2/5) = 4;
        // one ceiling of (L + 1) * c * share is ceil(3) = 3 and refuses the load of 3.
        (
            "two-ceilings",
            Fleet::weighted(4, &[2.0, 1.0, 1.0, 1.0]),
            factor(3, 2),
            vec![3, 1, 0, 0],
        ),
        // Weights 3, 1, slots 8: the heavy node's cap is 6 and accepts 5 (an equal share, 4,
        // refuses); the light node's is 2 and refuses 2 (an equal share accepts).
        (
            "weighted-heavy",
            Fleet::weighted(2, &[3.0, 1.0]),
            factor(1, 1),
            vec![5, 2],
        ),
        (
            "weighted-light",
            Fleet::weighted(2, &[1.0, 3.0]),
            factor(1, 1),
            vec![2, 5],
        ),
        // Weights 7, 9, 9, L = 24: slots 25 and a cap of exactly 7, where the binary64 product
        // 25.0 * (7.0 / 25.0) is above 7.
        (
            "exact-share",
            Fleet::weighted(3, &[7.0, 9.0, 9.0]),
            factor(1, 1),
            vec![7, 9, 8],
        ),
        // A draining node's load counts in L: L = 7, slots 8, cap 4 accepts 3 (without it:
        // L = 3, cap 2).
        (
            "draining-load-counts",
            Fleet::weighted(3, &[1.0, 1.0, 0.0]),
            factor(1, 1),
            vec![3, 0, 4],
        ),
        // c just above 1: slots = ceil(8 * 1.000001) = 9, cap 3 accepts 2 (c = 1 refuses).
        (
            "factor-just-above-one",
            Fleet::equal(4),
            factor(1_000_001, 1_000_000),
            vec![2, 5, 0, 0],
        ),
        // c = 1 written as (2^32 - 1) / (2^32 - 1): the same caps as 1/1.
        (
            "factor-one-largest-terms",
            Fleet::equal(4),
            factor(u32::MAX, u32::MAX),
            vec![2, 5, 0, 0],
        ),
        // L = 2^64 - 1, the largest total: slots 2^64, cap 2^63, the owner at it refuses.
        (
            "largest-total-at-cap",
            Fleet::equal(2),
            factor(1, 1),
            vec![half, half - 1],
        ),
        (
            "largest-total-below-cap",
            Fleet::equal(2),
            factor(1, 1),
            vec![half - 1, half],
        ),
        (
            "largest-total-largest-terms",
            Fleet::equal(2),
            factor(u32::MAX, u32::MAX),
            vec![half, half - 1],
        ),
    ];
    let mut cases = Vec::new();
    for (name, fleet, c, loads) in specs {
        let key = key_owned_by_first(&fleet.placement(), &format!("{name}-"));
        cases.push(online_case(
            name.to_string(),
            &fleet,
            c,
            key.as_bytes(),
            &loads,
        ));
    }
    cases
}

/// `ceil(num * K * W_i / (den * S))`, recomputed here to pick the keys (the expected outputs
/// come from the core).
fn capacities(placement: &Placement, c: BalanceFactor, k: usize) -> Vec<u128> {
    let w: Vec<u128> = placement
        .node_specs()
        .iter()
        .map(|n| n.weight().to_fixed() as u128)
        .collect();
    let s: u128 = w.iter().sum();
    w.iter()
        .map(|&wi| (c.num() as u128 * k as u128 * wi).div_ceil(c.den() as u128 * s))
        .collect()
}

/// Batches whose keys are the first `prefix` (of `name-0-`, `name-1-`, ...) under which every
/// node of `must_fill` reaches its capacity and then refuses a key that ranks it higher than
/// the node the key gets: any change to those capacities changes an owner.
fn batch() -> Vec<Value> {
    let specs: Vec<(&str, Fleet, BalanceFactor, usize, Vec<usize>)> = vec![
        // Capacities exactly 3 = 9 / 3, all reached (`<=`, K + 1 or floor + 1 give 4).
        (
            "batch-integer-capacity",
            Fleet::equal(3),
            factor(1, 1),
            9,
            vec![0, 1],
        ),
        // ceil(10 / 3) = 4 (a floor gives 3, and 3 nodes then hold only 9 of 10 keys).
        (
            "batch-fractional-capacity",
            Fleet::equal(3),
            factor(1, 1),
            10,
            vec![0],
        ),
        // c = 5/4, K = 10: ceil(12.5 / 4) = 4 (a floor gives 3).
        ("batch-factor", Fleet::equal(4), factor(5, 4), 10, vec![0]),
        // Weights 2, 1, 1, 1, c = 3/2, K = 5: ceil(7.5 * 2/5) = 3 for node 0, where the online
        // formula's two ceilings give ceil(8 * 2/5) = 4.
        (
            "batch-one-ceiling",
            Fleet::weighted(4, &[2.0, 1.0, 1.0, 1.0]),
            factor(3, 2),
            5,
            vec![0],
        ),
        // Weights 3, 1, K = 8: capacities 6 and 2 (an equal share gives 4 and 4).
        (
            "batch-weighted",
            Fleet::weighted(2, &[3.0, 1.0]),
            factor(1, 1),
            8,
            vec![1],
        ),
        // Weights 1, 8, K = 3: the light node's capacity is ceil(3 / 9) = 1 (a floor gives 0).
        (
            "batch-light-capacity-one",
            Fleet::weighted(2, &[1.0, 8.0]),
            factor(1, 1),
            3,
            vec![0],
        ),
        // Weights 7, 9, 9, K = 25: capacities exactly 7, 9, 9 (25.0 * (7.0 / 25.0) is above 7).
        (
            "batch-exact-share",
            Fleet::weighted(3, &[7.0, 9.0, 9.0]),
            factor(1, 1),
            25,
            vec![0],
        ),
    ];
    let mut cases = Vec::new();
    for (name, fleet, c, count, must_fill) in specs {
        let placement = fleet.placement();
        let policy = BoundedLoad::new(placement.clone(), c);
        let caps = capacities(&placement, c, count);
        let (prefix, owners) = (0..10_000)
            .find_map(|t| {
                let prefix = format!("{name}-{t}-");
                let keys: Vec<String> = (0..count).map(|i| format!("{prefix}{i}")).collect();
                let owners = policy.assign(&keys).expect("valid batch");
                let mut refused = vec![false; fleet.count];
                for (key, &o) in keys.iter().zip(&owners) {
                    let at = position(&placement, key.as_bytes(), o);
                    for n in placement.ranking(key).take(at) {
                        refused[n.index()] = true;
                    }
                }
                let counts = (0..fleet.count).map(|i| owners.iter().filter(|&&o| o == i).count());
                let full: Vec<bool> = counts
                    .zip(&caps)
                    .map(|(n, &cap)| n as u128 == cap)
                    .collect();
                must_fill
                    .iter()
                    .all(|&i| refused[i] && full[i])
                    .then_some((prefix, owners))
            })
            .expect("some prefix fills the nodes");
        cases.push(batch_case(name, &fleet, c, &prefix, &owners));
    }
    cases
}

/// Factors at the edges of the float conversion: just below 1, 1, the last and first
/// millionths around a half, and the largest and first too large numerators.
fn factor_cases() -> Vec<Value> {
    factor_cases_of(&[
        1.0,
        f64::from_bits(1.0f64.to_bits() - 1),
        1.000_000_5,
        1.000_001_5,
        1.000_002_5,
        1.000_003_5,
        4_294.967_295,
        4_294.967_295_499_999,
        4_294.967_295_5,
        4_294.967_296,
    ])
}

fn error_cases() -> Vec<Value> {
    let half = 1u64 << 63;
    // (name, fleet, factor as (num, den), loads, error)
    type ErrorCase = (&'static str, Fleet, (u32, u32), Vec<u64>, &'static str);
    let cases: Vec<ErrorCase> = vec![
        // The total one past 2^64 - 1.
        (
            "total-two-to-the-64",
            Fleet::equal(2),
            (1, 1),
            vec![half, half],
            "LoadOverflow",
        ),
        (
            "total-max-plus-one",
            Fleet::equal(3),
            (1, 1),
            vec![u64::MAX, 0, 1],
            "LoadOverflow",
        ),
        // c one step below 1, for either size of terms.
        (
            "factor-just-below-one",
            Fleet::equal(2),
            (999_999, 1_000_000),
            vec![0, 0],
            "InvalidBalanceFactor",
        ),
        (
            "factor-just-below-one-largest-terms",
            Fleet::equal(2),
            (u32::MAX - 1, u32::MAX),
            vec![0, 0],
            "InvalidBalanceFactor",
        ),
        // A draining node has a load too: loads for the selectable nodes only are too short.
        (
            "loads-without-the-draining-node",
            Fleet::weighted(3, &[1.0, 1.0, 0.0]),
            (1, 1),
            vec![0, 0],
            "LengthMismatch",
        ),
    ];
    cases
        .into_iter()
        .map(|(name, fleet, (num, den), loads, error)| {
            let got = BalanceFactor::new(num, den)
                .and_then(|c| BoundedLoad::new(fleet.placement(), c).owner_index("key", &loads));
            let got = format!("{:?}", got.expect_err(name));
            assert!(got.starts_with(error), "{name}: {got}");
            let mut o = Map::new();
            o.insert("name".into(), name.into());
            fleet.describe(&mut o);
            o.insert("factor".into(), json!({"num": num, "den": den}));
            o.insert("key".into(), hex(b"key").into());
            o.insert(
                "loads".into(),
                loads.iter().map(|&l| u64s(l)).collect::<Vec<_>>().into(),
            );
            o.insert("error".into(), error.into());
            Value::Object(o)
        })
        .collect()
}

/// The whole vectors file, byte for byte.
pub fn generate() -> String {
    write_file(INTRO, &online(), &batch(), &factor_cases(), &error_cases())
}
