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
