#[test]
fn checked_in_vectors_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors.json");
    let current = std::fs::read_to_string(path).expect("conformance/vectors.json is readable");
    let fresh = hrwhash_conformance::generate();
    assert!(
        current == fresh,
        "conformance/vectors.json differs from the generator's output; hrw-v1 is frozen, so an \
         intended change needs a new algorithm version. Regenerate with: \
         cargo run -p hrwhash-conformance --bin generate-vectors -- conformance/vectors.json"
    );
}

#[test]
fn vectors_cover_what_the_spec_promises() {
    let text = hrwhash_conformance::generate();
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["algorithm"], "hrw-v1");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 2000, "{} cases", cases.len());
    let longest_key = cases
        .iter()
        .map(|c| c["key"].as_str().unwrap().len() / 2)
        .max()
        .unwrap();
    assert!(longest_key >= 65536);
    let largest = cases
        .iter()
        .filter_map(|c| c["node_count"].as_u64())
        .max()
        .unwrap();
    assert!(largest >= 1000);
    assert!(cases.iter().any(|c| c["key"] == ""));
    assert!(cases.iter().any(|c| c.get("seed").is_some()));
    assert!(cases
        .iter()
        .any(|c| c["expected"].get("replicas").is_some()));
    assert!(cases.iter().any(
        |c| c["k"].as_u64().unwrap() as usize > c["expected"]["rank"].as_array().unwrap().len()
    ));
    // Every draw segment is exercised at least once.
    let mut segments = [false; 256];
    for d in v["draw_cases"].as_array().unwrap() {
        let s: u64 = d["score"].as_str().unwrap().parse().unwrap();
        if let Some(v) = s.checked_add(1) {
            segments[((v << v.leading_zeros()) >> 55) as usize & 0xFF] = true;
        }
    }
    assert!(segments.iter().all(|&s| s));
}

#[test]
fn checked_in_views_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/views.json");
    let current = std::fs::read_to_string(path).expect("conformance/views.json is readable");
    let fresh = hrwhash_conformance::views::generate();
    assert!(
        current == fresh,
        "conformance/views.json differs from the generator's output; the hrwhash-view-v1 outputs \
         are fixed, so an intended change needs a new view format tag. Regenerate with: \
         cargo run -p hrwhash-conformance --bin generate-views -- conformance/views.json"
    );
}

#[test]
fn views_cover_what_view_md_promises() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::views::generate()).expect("valid JSON");
    assert_eq!(v["format"], "hrwhash-view-v1");
    let invalid = v["invalid"].as_array().unwrap();
    let reasons: std::collections::BTreeSet<&str> = invalid
        .iter()
        .filter_map(|c| c["reason"].as_str())
        .collect();
    for reason in [
        "missing",
        "wrong_type",
        "unknown",
        "duplicate",
        "conflict",
        "unsupported",
        "invalid",
        "out_of_range",
    ] {
        assert!(
            reasons.contains(reason),
            "no invalid case with reason {reason}"
        );
    }
    let errors: std::collections::BTreeSet<&str> =
        invalid.iter().filter_map(|c| c["error"].as_str()).collect();
    for error in [
        "InvalidJson",
        "InvalidView",
        "EmptyMembership",
        "EmptyNodeId",
        "DuplicateNodeId",
        "AllWeightsZero",
        "SeedMismatch",
    ] {
        assert!(errors.contains(error), "no invalid case with error {error}");
    }
    assert!(invalid.iter().any(|c| c.get("document_hex").is_some()));
    let valid = v["valid"].as_array().unwrap();
    assert!(valid.iter().any(|c| c.get("seed").is_some()));
    assert!(valid
        .iter()
        .any(|c| c["canonical"].as_str().unwrap().contains("\"id_hex\"")));
    let ramps = v["ramps"].as_array().unwrap();
    assert!(ramps.iter().any(|r| r.get("error").is_some()));
    assert!(ramps.iter().any(|r| r["steps"]
        .as_array()
        .is_some_and(|s| s.len() > 3 && s.iter().any(|s| s["removes_drained"] == true))));
}

#[test]
fn checked_in_edge_vectors_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors-edge.json");
    let current = std::fs::read_to_string(path).expect("conformance/vectors-edge.json is readable");
    let fresh = hrwhash_conformance::edge::generate();
    assert!(
        current == fresh,
        "conformance/vectors-edge.json differs from the generator's output; cases may be added, \
         but an existing case's outputs are hrw-v1 and never change. Regenerate with: \
         cargo run -p hrwhash-conformance --bin generate-edge-vectors -- conformance/vectors-edge.json"
    );
}

#[test]
fn edge_vectors_hold_what_they_claim() {
    use hrwhash::v1::{draw, key_digest, node_digest, score, Seed};
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::edge::generate()).expect("valid JSON");
    assert_eq!(v["algorithm"], "hrw-v1");
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let fixed = |n: &serde_json::Value| -> u128 {
        n.get("weight_fixed")
            .map_or(1 << 32, |f| f.as_str().unwrap().parse().unwrap())
    };
    // Each tie family has, for every case, two nodes whose cross products are exactly equal, and
    // (except tie-ids) whose scores differ; each near-tie case has two whose cross products differ
    // by less than one part in 2^53.
    let (mut ties, mut near) = (0, 0);
    for c in v["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let key = hex(c["key"].as_str().unwrap());
        let kd = key_digest(&Seed::DEFAULT, &key);
        let nodes: Vec<(u64, u128, u128)> = c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let s = score(
                    kd,
                    node_digest(&Seed::DEFAULT, &hex(n["id"].as_str().unwrap())),
                );
                (s, draw(s) as u128, fixed(n))
            })
            .collect();
        let pairs = || {
            nodes
                .iter()
                .enumerate()
                .flat_map(|(i, a)| nodes[i + 1..].iter().map(move |b| (a, b)))
                .filter(|(a, b)| a.2 != 0 && b.2 != 0)
        };
        if name.starts_with("tie-") {
            let equal_scores = name.starts_with("tie-ids");
            assert!(
                pairs().any(|(a, b)| a.1 * b.2 == b.1 * a.2 && (a.0 == b.0) == equal_scores),
                "{name}"
            );
            ties += 1;
        }
        if name.starts_with("near-tie") {
            assert!(
                pairs().any(|(a, b)| {
                    let (x, y) = (a.1 * b.2, b.1 * a.2);
                    x != y && x.abs_diff(y) < x >> 53
                }),
                "{name}"
            );
            near += 1;
        }
    }
    assert!(
        ties >= 60 && near >= 60,
        "{ties} tie cases, {near} near-tie cases"
    );
    let halves = v["weight_cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| {
            w["weight"]
                .as_f64()
                .is_some_and(|w| (w * 4294967296.0).fract() == 0.5)
        })
        .count();
    assert!(halves >= 15, "{halves} half-way weight cases");
}

#[test]
fn checked_in_slot_table_vectors_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/slot-table.json");
    let current = std::fs::read_to_string(path).expect("conformance/policies/slot-table.json");
    assert!(
        current == hrwhash_conformance::slot_table::generate(),
        "conformance/policies/slot-table.json differs from the generator's output. Regenerate \
         with: cargo run -p hrwhash-conformance --bin generate-slot-table -- \
         conformance/policies/slot-table.json"
    );
}

#[test]
fn checked_in_domains_vectors_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/domains.json");
    let current = std::fs::read_to_string(path).expect("conformance/policies/domains.json");
    assert!(
        current == hrwhash_conformance::domains::generate(),
        "conformance/policies/domains.json differs from the generator's output. Regenerate with: \
         cargo run -p hrwhash-conformance --bin generate-domains -- conformance/policies/domains.json"
    );
}

#[test]
fn checked_in_live_view_cases_match_the_generator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/live-view.json");
    let current = std::fs::read_to_string(path).expect("conformance/live-view.json is readable");
    assert!(
        current == hrwhash_conformance::live_view::generate(),
        "conformance/live-view.json differs from the generator's output. Regenerate with: \
         cargo run -p hrwhash-conformance --bin generate-live-view -- conformance/live-view.json"
    );
}
