//! Generator of `conformance/policies/replica-balance-v2.json`: the replica-balance cases
//! (POLICIES.md, tag `replica-balance-v2`), solved weights included, that every binding exposing
//! the policy reproduces, with the second key digest and `exp_neg` on their own so that a mismatch
//! can be located.

use hrwhash::policy::replica_balance::{exp_neg, second_digest};
use hrwhash::policy::{ReplicaBalance, REPLICA_BALANCE_POLICY};
use hrwhash::v1::key_digest;
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, u64s, JsonFile};

const COMMENT: &str = "Conformance cases of replica-balance-v2 (see POLICIES.md). Bytes are \
lowercase hex; every 64-bit integer is a decimal string. A membership is \"nodes\": [{id, weight, \
weight_fixed}] with the default seed; k is the number of replicas. expected: adjusted_fixed (the \
solved fixed-point weights V, build order), iterations (the solver's t), and replicas: for each \
key (text), the build-order indices of its replica set. error_cases: the error the policy's \
construction fails with. second_digests: a key (text), its hrw-v1 key digest under the default \
seed and its second digest. exp_neg: x and exp_neg(x), both as the 16 hex digits of their \
binary64 bits.";

/// Text keys: a few edge cases, and more so that every case puts each node at several positions.
fn keys() -> Vec<String> {
    let mut keys: Vec<String> = ["", "a", "user:42", "object-7", "key-99999", "ÿ"]
        .iter()
        .map(|k| k.to_string())
        .collect();
    keys.extend((0..26).map(|i| format!("key-{i}")));
    keys
}

fn membership(weights: &[f64]) -> (Value, Placement) {
    let nodes: Vec<Node> = weights
        .iter()
        .enumerate()
        .map(|(i, &w)| Node::new(format!("osd.{i}")).with_weight(Weight::new(w).expect("valid")))
        .collect();
    let described = nodes
        .iter()
        .map(|n| {
            json!({
                "id": hex(n.id()),
                "weight": n.weight().to_f64(),
                "weight_fixed": u64s(n.weight().to_fixed()),
            })
        })
        .collect::<Vec<_>>();
    let placement = Placement::from_nodes(Seed::DEFAULT, nodes).expect("valid membership");
    (described.into(), placement)
}

/// A case's name, nodes and `k`, in that order: a case and an error case start alike, so a
/// reader finds both the same way.
fn case_head(name: &str, nodes: Value, k: usize) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    o.insert("nodes".into(), nodes);
    o.insert("k".into(), json!(k));
    o
}

fn case(name: &str, weights: &[f64], k: usize) -> Value {
    let (nodes, placement) = membership(weights);
    let policy = ReplicaBalance::new(placement, k).expect(name);
    let mut o = case_head(name, nodes, k);
    let replicas: Vec<Value> = keys()
        .iter()
        .map(|key| json!({"key": key, "replicas": policy.replicas(key)}))
        .collect();
    o.insert(
        "expected".into(),
        json!({
            "adjusted_fixed": policy
                .adjusted_fixed()
                .into_iter()
                .map(u64s)
                .collect::<Vec<_>>(),
            "iterations": policy.iterations(),
            "replicas": replicas,
        }),
    );
    Value::Object(o)
}

fn cases() -> Vec<Value> {
    let twelve = [10.0, 5.0, 6.0, 9.0, 1.0, 8.0, 4.0, 1.0, 3.0, 2.0, 6.0, 8.0];
    vec![
        case("ceph-3331", &[3.0, 3.0, 3.0, 1.0], 3),
        case("ceph-3331-k2", &[3.0, 3.0, 3.0, 1.0], 2),
        case("ceph-test-map", &[10.0, 10.0, 10.0, 10.0, 1.0], 3),
        case("ramp", &[1.0, 2.0, 3.0, 4.0, 5.0], 2),
        case("equal", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 3),
        case("k1", &[1.0, 5.0, 2.0], 1),
        case("k-equals-n", &[2.0, 2.0, 2.0], 3),
        case("draining", &[2.0, 0.0, 1.0, 1.0, 0.0, 3.0], 2),
        // A node with exactly 1/k of the weight: the solver stops at its iteration cap.
        case("at-the-limit", &[2.0, 1.0, 1.0], 2),
        case("fractional", &[0.75, 0.5, 0.3, 0.25, 1.5, 0.0001], 2),
        case("eight", &[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], 4),
        case("twelve-k5", &twelve, 5),
    ]
}

fn error_cases() -> Vec<Value> {
    let list: [(&str, &[f64], usize, &str); 5] = [
        ("k-zero", &[1.0, 1.0], 0, "InvalidCount"),
        (
            "heavy-node",
            &[1.0, 5.0, 1.0, 1.0],
            2,
            "InfeasibleReplicaWeights",
        ),
        ("k-above-n", &[1.0, 1.0, 1.0], 4, "InfeasibleReplicaWeights"),
        (
            "k-above-selectable",
            &[1.0, 0.0, 1.0],
            3,
            "InfeasibleReplicaWeights",
        ),
        (
            "just-over",
            &[2.000001, 1.0, 1.0],
            2,
            "InfeasibleReplicaWeights",
        ),
    ];
    list.iter()
        .map(|&(name, weights, k, error)| {
            let (nodes, placement) = membership(weights);
            let got = ReplicaBalance::new(placement, k).expect_err(name);
            let mut o = case_head(name, nodes, k);
            o.insert("error".into(), error.into());
            if let Error::InfeasibleReplicaWeights { index, .. } = got {
                assert_eq!(error, "InfeasibleReplicaWeights");
                o.insert("index".into(), json!(index));
            } else {
                assert_eq!(got, Error::InvalidCount, "{name}");
            }
            Value::Object(o)
        })
        .collect()
}

fn second_digests() -> Vec<Value> {
    keys()
        .iter()
        .take(8)
        .map(|key| {
            let kd = key_digest(&Seed::DEFAULT, key.as_bytes());
            json!({"key": key, "key_digest": u64s(kd), "second_digest": u64s(second_digest(kd))})
        })
        .collect()
}

fn exp_cases() -> Vec<Value> {
    let mut xs = vec![
        0.0,
        1e-300,
        1e-9,
        0.25,
        0.5,
        std::f64::consts::LN_2,
        1.0,
        2.0,
        10.0,
    ];
    xs.extend([
        31.5,
        64.0,
        100.0 / 3.0,
        512.25,
        699.999,
        700.0,
        700.0000001,
        1e6,
    ]);
    xs.iter()
        .map(|&x: &f64| {
            json!({
                "x": format!("{:016x}", x.to_bits()),
                "exp_neg": format!("{:016x}", exp_neg(x).to_bits()),
            })
        })
        .collect()
}

/// The whole vectors file, byte for byte.
pub fn generate() -> String {
    JsonFile::new()
        .string("policy", REPLICA_BALANCE_POLICY)
        .string("_comment", COMMENT)
        .default_seed()
        .section("second_digests", &second_digests())
        .section("exp_neg", &exp_cases())
        .section("cases", &cases())
        .section("error_cases", &error_cases())
        .finish()
}
