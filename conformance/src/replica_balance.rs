//! Generator of `conformance/policies/replica-balance.json`: the replica-balance-v1 cases
//! (POLICIES.md), solved weights included, that every binding exposing the policy reproduces.
//! The sample counts are small (2^8 to 2^10) so that the reference can rerun every solve.

use hrwhash::policy::{ReplicaBalance, REPLICA_BALANCE};
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, u64s};

const COMMENT: &str = "Conformance cases of replica-balance-v1 (see POLICIES.md). Bytes are \
lowercase hex; every 64-bit integer is a decimal string. A membership is \"nodes\": [{id, weight, \
weight_fixed}] with the default seed; k is the number of replicas and samples_log2 the solver's m. \
expected: adjusted_fixed (the solved fixed-point weights V, build order), iterations (the solver's \
t), and replicas: for each key (text), the build-order indices of its replica set. error_cases: the \
error the policy's construction fails with.";

const KEYS: [&str; 8] = [
    "",
    "a",
    "user:42",
    "object-7",
    "key-0",
    "key-1",
    "key-99999",
    "ÿ",
];

pub(crate) fn membership(weights: &[f64]) -> (Value, Placement) {
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

fn case(name: &str, weights: &[f64], k: usize, samples_log2: u32) -> Value {
    let (nodes, placement) = membership(weights);
    let policy = ReplicaBalance::with_samples(placement, k, samples_log2).expect(name);
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    o.insert("nodes".into(), nodes);
    o.insert("k".into(), json!(k));
    o.insert("samples_log2".into(), json!(samples_log2));
    let replicas: Vec<Value> = KEYS
        .iter()
        .map(|key| json!({"key": key, "replicas": policy.replicas(key)}))
        .collect();
    o.insert(
        "expected".into(),
        json!({
            "adjusted_fixed": policy
                .adjusted_weights()
                .iter()
                .map(|w| u64s(w.to_fixed()))
                .collect::<Vec<_>>(),
            "iterations": policy.iterations(),
            "replicas": replicas,
        }),
    );
    Value::Object(o)
}

fn cases() -> Vec<Value> {
    vec![
        case("ceph-3331", &[3.0, 3.0, 3.0, 1.0], 3, 10),
        case("ceph-3331-k2", &[3.0, 3.0, 3.0, 1.0], 2, 9),
        case("ceph-test-map", &[10.0, 10.0, 10.0, 10.0, 1.0], 3, 10),
        case("ramp", &[1.0, 2.0, 3.0, 4.0, 5.0], 2, 9),
        case("equal", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 3, 8),
        case("k1", &[1.0, 5.0, 2.0], 1, 8),
        case("k-equals-n", &[2.0, 2.0, 2.0], 3, 8),
        case("draining", &[2.0, 0.0, 1.0, 1.0, 0.0, 3.0], 2, 9),
        case("at-the-limit", &[2.0, 1.0, 1.0], 2, 8),
        case("fractional", &[0.75, 0.5, 0.3, 0.25, 1.5, 0.0001], 2, 9),
        case("eight", &[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], 4, 8),
    ]
}

fn error_cases() -> Vec<Value> {
    let list: [(&str, &[f64], usize, u32, &str); 7] = [
        ("k-zero", &[1.0, 1.0], 0, 10, "InvalidCount"),
        ("samples-too-few", &[1.0, 1.0], 2, 7, "InvalidCount"),
        ("samples-too-many", &[1.0, 1.0], 2, 23, "InvalidCount"),
        (
            "heavy-node",
            &[1.0, 5.0, 1.0, 1.0],
            2,
            10,
            "InfeasibleReplicaWeights",
        ),
        (
            "k-above-n",
            &[1.0, 1.0, 1.0],
            4,
            10,
            "InfeasibleReplicaWeights",
        ),
        (
            "k-above-selectable",
            &[1.0, 0.0, 1.0],
            3,
            10,
            "InfeasibleReplicaWeights",
        ),
        (
            "just-over",
            &[2.000001, 1.0, 1.0],
            2,
            10,
            "InfeasibleReplicaWeights",
        ),
    ];
    list.iter()
        .map(|&(name, weights, k, m, error)| {
            let (nodes, placement) = membership(weights);
            let got = ReplicaBalance::with_samples(placement, k, m).expect_err(name);
            let mut o = Map::new();
            o.insert("name".into(), name.into());
            o.insert("nodes".into(), nodes);
            o.insert("k".into(), json!(k));
            o.insert("samples_log2".into(), json!(m));
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

/// The whole vectors file, byte for byte.
pub fn generate() -> String {
    let mut out = String::new();
    out.push_str("{\n");
    out.push_str(&format!("  \"policy\": \"{REPLICA_BALANCE}\",\n"));
    out.push_str(&format!(
        "  \"_comment\": {},\n",
        Value::String(COMMENT.into())
    ));
    out.push_str(&format!(
        "  \"default_seed\": \"{}\",\n",
        hex(&Seed::DEFAULT.to_bytes())
    ));
    let section = |out: &mut String, name: &str, items: &[Value], last: bool| {
        out.push_str(&format!("  \"{name}\": [\n"));
        for (i, item) in items.iter().enumerate() {
            let sep = if i + 1 == items.len() { "" } else { "," };
            out.push_str(&format!("    {item}{sep}\n"));
        }
        out.push_str(if last { "  ]\n" } else { "  ],\n" });
    };
    section(&mut out, "cases", &cases(), false);
    section(&mut out, "error_cases", &error_cases(), true);
    out.push_str("}\n");
    out
}
