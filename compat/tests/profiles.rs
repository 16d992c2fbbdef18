//! Every lookup of every conformance/profiles/<name>.json, recorded from the incumbents.

use hrwhash::{Node, Weight};
use hrwhash_compat::{Profile, ProfilePlacement};
use serde_json::Value;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// `"<name>": text` or `"<name>_hex": hex`, as the vector files write bytes.
fn bytes(v: &Value, name: &str) -> Vec<u8> {
    match v.get(name) {
        Some(t) => t.as_str().expect("text").as_bytes().to_vec(),
        None => unhex(v[format!("{name}_hex")].as_str().expect("hex")),
    }
}

fn load(profile: Profile) -> Value {
    let path = format!(
        "{}/../conformance/profiles/{}.json",
        env!("CARGO_MANIFEST_DIR"),
        profile.name()
    );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (the recorded vectors of every profile)"));
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["profile"], profile.name());
    doc
}

#[test]
fn every_recorded_lookup_of_every_profile() {
    for profile in Profile::ALL {
        let doc = load(profile);
        let mut lookups = 0;
        for (c, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
            let nodes: Vec<Node> = case["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| {
                    let node = Node::new(bytes(n, "id"));
                    match n.get("weight") {
                        Some(w) => node.with_weight(Weight::new(w.as_f64().unwrap()).unwrap()),
                        None => node,
                    }
                })
                .collect();
            let p = ProfilePlacement::new(profile, nodes.clone())
                .unwrap_or_else(|e| panic!("{profile} case {c}: {e}"));
            let index_of = |id: &[u8]| nodes.iter().position(|n| n.id() == id).unwrap();
            for l in case["lookups"].as_array().unwrap() {
                let key = bytes(l, "key");
                let owner = index_of(&bytes(l, "owner"));
                assert_eq!(p.owner(&key), owner, "{profile} case {c} key {l}");
                match l.get("replicas") {
                    Some(r) => {
                        let want: Vec<usize> = r
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|id| index_of(id.as_str().unwrap().as_bytes()))
                            .collect();
                        for k in 0..=want.len() + 1 {
                            let got = p.replicas(&key, k).unwrap();
                            assert_eq!(got, want[..k.min(want.len())], "{profile} {l} k={k}");
                        }
                    }
                    None => assert!(p.replicas(&key, 1).is_err(), "{profile} has top-k"),
                }
                lookups += 1;
            }
        }
        assert!(lookups > 100, "{profile}: only {lookups} lookups");
    }
}
