//! Generator of `conformance/transitions.json`: the transition cases of VIEW.md 6 that
//! `views.json` (released, frozen) leaves out. Expected movement between memberships of two
//! different seeds (6.1, last paragraph), the `add` and `drop` order of `route_top` (with and
//! without failure domains), and the per-node rows of a diff and of a replica diff. Every
//! membership is written out literally, in a build order that is not the id order, so an
//! implementation that sorts, or sums in the wrong order, fails.

use hrwhash::transition::Transition;
use hrwhash::view::Fingerprint;
use hrwhash::{Seed, View, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, JsonFile, Stream};

const COMMENT: &str = "Conformance cases of the transitions of hrwhash-view-v1 (VIEW.md 6) that \
views.json does not have. Every membership is a view document (\"from\", \"to\"; nodes in build \
order, which in most cases is not the id order), loaded with \"from_seed\" and \"to_seed\" (32 hex digits; \
absent: the default seed). movement: expected_moved and optimum (VIEW.md 6.1, 6.2; binary64 \
values that must be reproduced exactly) between memberships of different seeds. routes: for each \
key, route_top(key, k) as indexes into the build order: before and after (each side's replicas), \
add (in the order the new side's replicas took them) and drop (in the order the old side's \
replicas took them). diffs: a diff (k = 1) or replica diff (k > 1) over the generated keys \
key-0 .. key-(keys - 1): keys counted, moved (for k > 1: keys whose replica set changed), flows \
(k = 1: [old index, new index, count] by old then new index), copies_added and copies_dropped \
(k > 1), and one row per id of either side (every old node in old order, then every node only in \
the new membership in new order) with its id, old_index and new_index (null where the id is not on \
that side), before, after, added and dropped. not_offered: per language, the parts of these cases \
it does not run, each with the reason (the API does not offer it); its runner must skip exactly \
those.";

/// The parts of the cases a language may not offer, as `not_offered` names them.
pub const PARTS: [&str; 5] = [
    // movement: expected_moved and optimum
    "movement",
    // routes: before and after
    "route_sets",
    // diffs: old_index and new_index of the rows (their order and ids are always checked)
    "diff_row_indexes",
    // diffs with k = 1: added and dropped of the rows
    "diff_row_moves",
    // diffs with k > 1
    "replica_diffs",
];

/// What each language's API does not offer of these cases, and why.
const NOT_OFFERED: &[(&str, &[(&str, &str)])] = &[
    ("rust", &[]),
    ("python", &[]),
    ("node", &[]),
    ("c", &[]),
    ("go", &[]),
    (
        "cli",
        &[
            (
                "movement",
                "diff prints no expected movement, and one --seed serves both memberships",
            ),
            (
                "route_sets",
                "plan --k prints the replicas to add and drop, not the sets",
            ),
            (
                "diff_row_indexes",
                "diff --json rows name ids; before and after are null where the id is absent",
            ),
            (
                "diff_row_moves",
                "diff --json without --k gives rows no added or dropped",
            ),
        ],
    ),
];

const ONE: u64 = 1 << 32;

/// A node of a case: id, fixed-point weight, domain.
type Spec = (String, u64, Option<&'static str>);

fn secret(n: u8) -> Seed {
    let mut b = *b"transition seed?";
    b[15] = n;
    Seed::from_bytes(b)
}

/// A view document with the nodes in the order given (the canonical form would sort them).
fn document(nodes: &[Spec], seed: Seed, epoch: u64) -> String {
    let seed_members = if seed == Seed::DEFAULT {
        r#""seed": "default""#.to_string()
    } else {
        format!(
            r#""seed": "secret", "seed_fingerprint": "{}""#,
            Fingerprint::<8>::of(&seed).to_hex()
        )
    };
    let nodes: Vec<String> = nodes
        .iter()
        .map(|(id, w, domain)| {
            let (w, domain) = (*w, *domain);
            let mut s = format!(r#"{{"id": "{id}""#);
            if w != ONE {
                let x = w as f64 / ONE as f64;
                assert_eq!(Weight::new(x).unwrap().to_fixed(), w, "{id}: not exact");
                s.push_str(&format!(r#", "weight": {x}"#));
            }
            if let Some(d) = domain {
                s.push_str(&format!(r#", "domain": "{d}""#));
            }
            s.push('}');
            s
        })
        .collect();
    format!(
        r#"{{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "{epoch}", {seed_members}, "nodes": [{}]}}"#,
        nodes.join(", ")
    )
}

/// A case's two memberships, loaded as every implementation loads them.
struct Pair {
    from: String,
    to: String,
    from_seed: Seed,
    to_seed: Seed,
    old: View,
    new: View,
}

impl Pair {
    fn new(old: &[Spec], new: &[Spec], from_seed: Seed, to_seed: Seed) -> Pair {
        let (from, to) = (document(old, from_seed, 1), document(new, to_seed, 2));
        let load = |text: &str, seed| View::from_json_with_seed(text, seed).unwrap();
        let (a, b) = (load(&from, from_seed), load(&to, to_seed));
        Pair {
            old: a,
            new: b,
            from,
            to,
            from_seed,
            to_seed,
        }
    }

    fn transition(&self) -> Transition {
        Transition::new(&self.old, &self.new)
    }

    fn head(&self, name: &str) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("name".into(), name.into());
        o.insert("from".into(), self.from.clone().into());
        o.insert("to".into(), self.to.clone().into());
        for (member, seed) in [("from_seed", self.from_seed), ("to_seed", self.to_seed)] {
            if seed != Seed::DEFAULT {
                o.insert(member.into(), hex(&seed.to_bytes()).into());
            }
        }
        o
    }
}

/// `(id, W, V)` of every id of either side, in the order given.
type Weights = Vec<(Vec<u8>, u64, u64)>;

fn weights(p: &Pair) -> Weights {
    let (old, new) = (p.old.placement(), p.new.placement());
    let mut out: Weights = old
        .nodes()
        .map(|n| {
            let v = new.find(n.id()).map_or(0, |m| m.weight().to_fixed());
            (n.id().to_vec(), n.weight().to_fixed(), v)
        })
        .collect();
    out.extend(
        new.nodes()
            .filter(|n| old.find(n.id()).is_none())
            .map(|n| (n.id().to_vec(), 0, n.weight().to_fixed())),
    );
    out
}

/// One way of evaluating `1 - sum_j (w_j / sum w)(v_j / sum v)` in binary64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Evaluation {
    /// VIEW.md 6.1: ascending bytewise id order, `(f(W)/sw) * (f(V)/sv)`.
    Specified,
    /// Old nodes in build order, then the new-only ones.
    BuildOrder,
    /// Descending id order.
    Reversed,
    /// `(f(W) * f(V)) / (sw * sv)`.
    ProductFirst,
    /// `((f(W) / sw) * f(V)) / sv`.
    LeftToRight,
}

const WRONG: [Evaluation; 4] = [
    Evaluation::BuildOrder,
    Evaluation::Reversed,
    Evaluation::ProductFirst,
    Evaluation::LeftToRight,
];

fn evaluate(mut w: Weights, how: Evaluation) -> f64 {
    let sw = w.iter().map(|x| x.1 as u128).sum::<u128>() as f64;
    let sv = w.iter().map(|x| x.2 as u128).sum::<u128>() as f64;
    match how {
        Evaluation::BuildOrder => {}
        Evaluation::Reversed => w.sort_by(|a, b| b.0.cmp(&a.0)),
        _ => w.sort_by(|a, b| a.0.cmp(&b.0)),
    }
    let mut stay = 0.0f64;
    for (_, a, b) in &w {
        let (a, b) = (*a as f64, *b as f64);
        stay += match how {
            Evaluation::ProductFirst => (a * b) / (sw * sv),
            Evaluation::LeftToRight => ((a / sw) * b) / sv,
            _ => (a / sw) * (b / sv),
        };
    }
    (1.0 - stay).max(0.0)
}

fn movement_case(name: &str, old: &[Spec], new: &[Spec], seeds: Seeds) -> (Value, Vec<Evaluation>) {
    assert_ne!(seeds.0, seeds.1, "{name}: the cases are of two seeds");
    let p = Pair::new(old, new, seeds.0, seeds.1);
    let t = p.transition();
    let w = weights(&p);
    let moved = t.expected_moved();
    assert_eq!(
        moved.to_bits(),
        evaluate(w.clone(), Evaluation::Specified).to_bits(),
        "{name}: the library differs from VIEW.md 6.1"
    );
    let differ = WRONG
        .iter()
        .copied()
        .filter(|&how| evaluate(w.clone(), how).to_bits() != moved.to_bits())
        .collect();
    let mut o = p.head(name);
    o.insert("expected_moved".into(), json!(moved));
    o.insert("optimum".into(), json!(t.optimum()));
    (Value::Object(o), differ)
}

fn n(id: &str, w: f64) -> Spec {
    (id.into(), Weight::new(w).unwrap().to_fixed(), None)
}

/// Generated nodes with weights that are not short binary fractions, in a shuffled order, and
/// one node ("hub") that holds most keys on both sides. With most keys staying, `1 - stay` is
/// exact, so a sum's rounding (which depends on its order) shows in the result; with few
/// staying, `1 - stay` rounds it away.
fn many(count: usize, stream: u64) -> Vec<Spec> {
    let mut s = Stream(stream);
    let mut nodes: Vec<Spec> = (0..count)
        .map(|i| {
            // Weights from 0.5 to 2.5 with every fixed-point bit in use, so that the terms are
            // of one magnitude and each sum rounds.
            let w = (1 << 31) + s.below(1 << 33);
            (format!("m{:02}", (i * 7) % count), w, None)
        })
        .collect();
    nodes.rotate_left(count / 3);
    let hub = (count as u64 * 24 + s.below(8)) << 32 | s.below(1 << 32);
    nodes.insert(count / 2, ("hub".into(), hub, None));
    nodes
}

/// The seeds of the old and the new membership.
type Seeds = (Seed, Seed);

fn movement_cases() -> Vec<Value> {
    let d = Seed::DEFAULT;
    let three = [n("a", 1.0), n("b", 1.0), n("c", 1.0)];
    let tenths = [
        n("k", 0.1),
        n("hub", 40.0),
        n("b", 0.3),
        n("z", 0.7),
        n("a", 1.1),
        n("q", 0.9),
        n("c", 1.3),
        n("e", 0.2),
    ];
    let tenths_after = [
        n("z", 0.5),
        n("hub", 41.3),
        n("a", 1.7),
        n("k", 0.3),
        n("f", 0.6),
        n("c", 1.3),
        n("b", 0.1),
        n("x", 2.9),
    ];
    let thirds: Vec<Spec> = ["y", "d", "m", "hub", "a", "t"]
        .iter()
        .zip([
            1.0 / 3.0,
            2.0 / 3.0,
            5.0 / 3.0,
            100.0 / 3.0,
            1.0 / 7.0,
            11.0 / 13.0,
        ])
        .map(|(&id, w)| n(id, w))
        .collect();
    let thirds_after: Vec<Spec> = ["t", "a", "hub", "m", "d", "y"]
        .iter()
        .zip([
            3.0 / 7.0,
            1.0 / 3.0,
            110.0 / 3.0,
            5.0 / 11.0,
            2.0 / 3.0,
            1.0 / 9.0,
        ])
        .map(|(&id, w)| n(id, w))
        .collect();
    let cases: Vec<(&str, Vec<Spec>, Vec<Spec>, Seeds)> = vec![
        (
            "reseed-three-equal",
            three.to_vec(),
            three.to_vec(),
            (d, secret(1)),
        ),
        (
            "reseed-one-node",
            vec![n("solo", 2.5)],
            vec![n("solo", 0.75)],
            (secret(1), d),
        ),
        (
            "reseed-one-node-beside-drained",
            vec![n("solo", 1.0), n("gone", 0.0)],
            vec![n("solo", 3.0)],
            (d, secret(2)),
        ),
        (
            "reseed-tenths",
            tenths.to_vec(),
            tenths_after.to_vec(),
            (d, secret(1)),
        ),
        (
            "two-secrets-thirds",
            thirds.clone(),
            thirds_after,
            (secret(1), secret(2)),
        ),
        (
            "reseed-disjoint",
            vec![n("p", 1.0), n("q", 2.0)],
            vec![n("r", 1.0), n("s", 0.5)],
            (secret(3), d),
        ),
        (
            "reseed-extreme-weights",
            vec![
                ("b".into(), (1 << 53) - 1, None),
                ("a".into(), 1, None),
                ("c".into(), ONE, None),
            ],
            vec![
                ("c".into(), 3, None),
                ("a".into(), (1 << 53) - 1, None),
                ("b".into(), 1, None),
            ],
            (d, secret(4)),
        ),
        ("reseed-many-40", many(40, 11), many(40, 12), (d, secret(5))),
        (
            "two-secrets-many-97",
            many(97, 13),
            many(97, 14),
            (secret(6), secret(7)),
        ),
    ];
    let mut seen = Vec::new();
    let out = cases
        .iter()
        .map(|(name, old, new, seeds)| {
            let (case, differ) = movement_case(name, old, new, *seeds);
            seen.extend(differ);
            case
        })
        .collect();
    // Each wrong evaluation order gives another binary64 result on at least one case.
    for how in WRONG {
        assert!(
            seen.contains(&how),
            "no case tells {how:?} from VIEW.md 6.1"
        );
    }
    out
}

/// How many cases distinguish each wrong evaluation from the specified one (for the tests).
pub fn wrong_evaluations_caught() -> Vec<(String, usize)> {
    let v: Value = serde_json::from_str(&generate()).unwrap();
    let mut counts: Vec<(String, usize)> = WRONG.iter().map(|h| (format!("{h:?}"), 0)).collect();
    for c in v["movement"].as_array().unwrap() {
        let seed = |m: &str| {
            c.get(m).map_or(Seed::DEFAULT, |s| {
                let s = s.as_str().unwrap();
                let b: Vec<u8> = (0..16)
                    .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
                    .collect();
                Seed::from_bytes(b.try_into().unwrap())
            })
        };
        let load = |doc: &str, m: &str| View::from_json_with_seed(doc, seed(m)).unwrap();
        let (old, new) = (
            load(c["from"].as_str().unwrap(), "from_seed"),
            load(c["to"].as_str().unwrap(), "to_seed"),
        );
        let p = Pair {
            from: String::new(),
            to: String::new(),
            from_seed: old.placement().seed(),
            to_seed: new.placement().seed(),
            old,
            new,
        };
        let want = c["expected_moved"].as_f64().unwrap();
        for (i, how) in WRONG.iter().enumerate() {
            if evaluate(weights(&p), *how).to_bits() != want.to_bits() {
                counts[i].1 += 1;
            }
        }
    }
    counts
}

fn key_list(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("key-{i}")).collect()
}

fn route_case(name: &str, old: &[Spec], new: &[Spec], k: usize, keys: &[String]) -> Value {
    let p = Pair::new(old, new, Seed::DEFAULT, Seed::DEFAULT);
    let t = p.transition();
    let routes: Vec<Value> = keys
        .iter()
        .map(|key| {
            let r = t.route_top(key, k);
            json!({"key": key, "before": r.before, "after": r.after, "add": r.add, "drop": r.drop})
        })
        .collect();
    let mut o = p.head(name);
    o.insert("k".into(), json!(k));
    o.insert("routes".into(), routes.into());
    Value::Object(o)
}

fn d(id: &str, w: f64, domain: &'static str) -> Spec {
    (id.into(), Weight::new(w).unwrap().to_fixed(), Some(domain))
}

/// The membership pairs of the route and diff cases.
fn pairs() -> Vec<(&'static str, Vec<Spec>, Vec<Spec>)> {
    let five = vec![
        n("e", 1.0),
        n("a", 1.0),
        n("d", 1.0),
        n("b", 1.0),
        n("c", 1.0),
    ];
    let mut six = five.clone();
    six.insert(2, n("f", 1.0));
    let racks = vec![
        d("a1", 1.0, "rack-a"),
        d("b1", 1.0, "rack-b"),
        d("a2", 2.0, "rack-a"),
        d("c1", 1.0, "rack-c"),
        d("b2", 1.5, "rack-b"),
        d("a3", 1.0, "rack-a"),
        d("c2", 0.5, "rack-c"),
    ];
    let racks_after = vec![
        d("c2", 0.5, "rack-c"),
        d("d1", 1.0, "rack-d"),
        d("a2", 2.0, "rack-a"),
        d("b1", 1.0, "rack-b"),
        d("a3", 1.0, "rack-c"),
        d("d2", 3.0, "rack-d"),
        d("a1", 1.0, "rack-a"),
        d("b2", 1.5, "rack-b"),
    ];
    let plain = vec![
        n("n3", 1.0),
        n("n1", 2.0),
        n("n4", 1.0),
        n("n2", 0.5),
        n("n5", 1.0),
        n("n0", 1.5),
    ];
    let zoned = vec![
        d("n5", 1.0, "z2"),
        d("n1", 2.0, "z1"),
        d("n2", 0.5, "z1"),
        d("n3", 1.0, "z1"),
        d("n0", 1.5, "z2"),
        d("n6", 1.0, "z3"),
    ];
    vec![
        ("join-one-in-the-middle", five.clone(), six),
        (
            "leave-one-and-reorder",
            five.clone(),
            vec![n("c", 1.0), n("b", 1.0), n("e", 1.0), n("a", 1.0)],
        ),
        (
            "drain-one-to-zero",
            five,
            vec![
                n("e", 1.0),
                n("a", 0.0),
                n("d", 1.0),
                n("b", 1.0),
                n("c", 1.0),
            ],
        ),
        ("racks-change", racks.clone(), racks_after.clone()),
        (
            "racks-removed",
            racks,
            racks_after
                .iter()
                .map(|(id, w, _)| (id.clone(), *w, None))
                .collect(),
        ),
        ("zones-named", plain, zoned),
    ]
}

fn route_cases() -> Vec<Value> {
    let keys = key_list(24);
    let mut out = Vec::new();
    for (name, old, new) in pairs() {
        let ks: &[usize] = match name {
            "join-one-in-the-middle" => &[1, 3],
            "leave-one-and-reorder" => &[2, 5],
            "drain-one-to-zero" => &[4],
            "racks-change" => &[1, 3, 4],
            "racks-removed" => &[3],
            _ => &[2, 4],
        };
        for &k in ks {
            out.push(route_case(&format!("{name}-k{k}"), &old, &new, k, &keys));
        }
    }
    out
}

fn diff_case(name: &str, old: &[Spec], new: &[Spec], k: usize, count: usize) -> Value {
    let p = Pair::new(old, new, Seed::DEFAULT, Seed::DEFAULT);
    let t = p.transition();
    let mut diff = if k == 1 { t.diff() } else { t.diff_top(k) };
    diff.add_many(key_list(count));
    let (a, b) = (p.old.placement(), p.new.placement());
    let rows: Vec<Value> = diff
        .nodes()
        .iter()
        .map(|r| {
            let id = match (r.old_index, r.new_index) {
                (Some(i), _) => a.node(i).unwrap().id(),
                (None, Some(j)) => b.node(j).unwrap().id(),
                (None, None) => unreachable!("a row names a node"),
            };
            json!({
                "id": std::str::from_utf8(id).unwrap(),
                "old_index": r.old_index,
                "new_index": r.new_index,
                "before": r.before,
                "after": r.after,
                "added": r.added,
                "dropped": r.dropped,
            })
        })
        .collect();
    let mut o = p.head(name);
    o.insert("k".into(), json!(k));
    o.insert("keys".into(), json!(count));
    o.insert("keys_counted".into(), json!(diff.keys()));
    o.insert("moved".into(), json!(diff.moved()));
    if k == 1 {
        let flows: Vec<Value> = diff
            .flows()
            .iter()
            .map(|&(f, t, c)| json!([f, t, c]))
            .collect();
        o.insert("flows".into(), flows.into());
    } else {
        o.insert("copies_added".into(), json!(diff.copies_added()));
        o.insert("copies_dropped".into(), json!(diff.copies_dropped()));
    }
    o.insert("nodes".into(), rows.into());
    Value::Object(o)
}

fn diff_cases() -> Vec<Value> {
    let mut out = Vec::new();
    for (name, old, new) in pairs() {
        let ks: &[usize] = match name {
            "racks-change" | "zones-named" => &[1, 2, 3],
            // More replicas than the new side has: fewer copies added than dropped.
            "leave-one-and-reorder" => &[1, 2, 5],
            _ => &[1, 2],
        };
        for &k in ks {
            out.push(diff_case(&format!("{name}-k{k}"), &old, &new, k, 2000));
        }
    }
    out
}

fn not_offered() -> Value {
    let mut o = Map::new();
    o.insert(
        "_comment".into(),
        format!(
            "per language, the parts of the cases it does not run, with the reason; the parts: {}",
            PARTS.join(", ")
        )
        .into(),
    );
    for (language, parts) in NOT_OFFERED {
        let mut m = Map::new();
        for (part, why) in *parts {
            assert!(PARTS.contains(part), "{language}: unknown part {part}");
            m.insert((*part).into(), (*why).into());
        }
        o.insert((*language).into(), Value::Object(m));
    }
    Value::Object(o)
}

/// The whole transitions file, byte for byte.
pub fn generate() -> String {
    JsonFile::new()
        .string("format", "hrwhash-view-v1")
        .string("_comment", COMMENT)
        .raw("not_offered", not_offered())
        .section("movement", &movement_cases())
        .section("routes", &route_cases())
        .section("diffs", &diff_cases())
        .finish()
}
