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
