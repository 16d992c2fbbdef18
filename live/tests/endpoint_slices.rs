//! EndpointSlices (in the form the Kubernetes documentation shows them) -> views.

use hrwhash::{Node, Placement, Seed, View, Weight};
use hrwhash_live::{endpoint_slices_to_view, SliceOptions};

/// Two slices of service `example` (one endpoint in both), one of another service.
const SLICES: &str = r#"{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "discovery.k8s.io/v1",
      "kind": "EndpointSlice",
      "metadata": {"name": "example-abc", "labels": {"kubernetes.io/service-name": "example"}},
      "addressType": "IPv4",
      "ports": [{"name": "http", "protocol": "TCP", "port": 80}],
      "endpoints": [
        {"addresses": ["10.1.2.3"], "conditions": {"ready": true}, "hostname": "pod-1",
         "nodeName": "node-1", "zone": "us-west2-a"},
        {"addresses": ["10.1.2.4"], "conditions": {"ready": false, "serving": true, "terminating": true},
         "nodeName": "node-2", "zone": "us-west2-b"},
        {"addresses": ["10.1.2.5"], "conditions": {"ready": false, "serving": false, "terminating": true},
         "zone": "us-west2-b"},
        {"addresses": ["10.1.2.6"], "zone": "us-west2-c"}
      ]
    },
    {
      "apiVersion": "discovery.k8s.io/v1",
      "kind": "EndpointSlice",
      "metadata": {"name": "example-def", "labels": {"kubernetes.io/service-name": "example"}},
      "addressType": "IPv4",
      "ports": [{"name": "http", "protocol": "TCP", "port": 80}],
      "endpoints": [
        {"addresses": ["10.1.2.4"], "conditions": {"ready": true}, "zone": "us-west2-b"},
        {"addresses": ["10.1.2.7", "10.1.2.8"], "conditions": {"ready": false}}
      ]
    },
    {
      "apiVersion": "discovery.k8s.io/v1",
      "kind": "EndpointSlice",
      "metadata": {"name": "other-xyz", "labels": {"kubernetes.io/service-name": "other"}},
      "addressType": "IPv4",
      "ports": [{"name": "http", "protocol": "TCP", "port": 80}],
      "endpoints": [{"addresses": ["10.9.9.9"], "conditions": {"ready": true}}]
    }
  ]
}"#;

fn node(id: &str, weight: f64, zone: &str) -> Node {
    Node::new(id)
        .with_weight(Weight::new(weight).unwrap())
        .with_domain(zone)
}

#[test]
fn ready_endpoints_are_members_and_terminating_ones_drain() {
    let mut options = SliceOptions::new("example");
    options.epoch = 12;
    let view = endpoint_slices_to_view(SLICES.as_bytes(), &options).unwrap();
    // 10.1.2.3 ready; 10.1.2.4 draining in one slice and ready in the other: ready wins;
    // 10.1.2.5 neither ready nor serving: out; 10.1.2.6 no conditions: ready; 10.1.2.7 not ready:
    // out; 10.9.9.9 another service.
    let expected = Placement::from_nodes(
        Seed::DEFAULT,
        vec![
            node("10.1.2.3", 1.0, "us-west2-a"),
            node("10.1.2.4", 1.0, "us-west2-b"),
            node("10.1.2.6", 1.0, "us-west2-c"),
        ],
    )
    .unwrap();
    assert_eq!(
        view.fingerprint(),
        View::new(expected, 12).unwrap().fingerprint()
    );
    assert_eq!(view.epoch(), 12);

    // The bare list form, with a port name and a weight; the draining endpoint alone.
    let items: serde_json::Value = serde_json::from_str(SLICES).unwrap();
    let first = serde_json::to_vec(&[&items["items"][0]]).unwrap();
    let mut options = SliceOptions::new("example");
    options.port_name = Some("http".into());
    options.weight = 2.5;
    let view = endpoint_slices_to_view(&first, &options).unwrap();
    let expected = Placement::from_nodes(
        Seed::DEFAULT,
        vec![
            node("10.1.2.3:80", 2.5, "us-west2-a"),
            node("10.1.2.4:80", 0.0, "us-west2-b"),
            node("10.1.2.6:80", 2.5, "us-west2-c"),
        ],
    )
    .unwrap();
    assert_eq!(
        view.fingerprint(),
        View::new(expected, 0).unwrap().fingerprint()
    );
}

#[test]
fn bad_slices_are_typed_errors() {
    let kind = |doc: &str, service: &str| {
        endpoint_slices_to_view(doc.as_bytes(), &SliceOptions::new(service))
            .unwrap_err()
            .kind_name()
    };
    assert_eq!(kind("{\"items\": [", "example"), "InvalidJson");
    assert_eq!(kind("\"slices\"", "example"), "InvalidView");
    assert_eq!(kind("{\"items\": 3}", "example"), "InvalidView");
    assert_eq!(kind("[3]", "example"), "InvalidView");
    let labelled =
        r#"[{"metadata": {"labels": {"kubernetes.io/service-name": "s"}}, "endpoints": X}]"#;
    assert_eq!(kind(&labelled.replace('X', "{}"), "s"), "InvalidView");
    assert_eq!(
        kind(&labelled.replace('X', "[{\"addresses\": \"a\"}]"), "s"),
        "InvalidView"
    );
    assert_eq!(
        kind(
            &labelled.replace(
                'X',
                "[{\"addresses\": [\"a\"], \"conditions\": {\"ready\": 1}}]"
            ),
            "s"
        ),
        "InvalidView"
    );
    // No endpoint of the service, or only draining ones.
    assert_eq!(kind(SLICES, "absent"), "EmptyMembership");
    let draining = r#"[{"addresses": ["a"], "conditions": {"ready": false, "serving": true, "terminating": true}}]"#;
    assert_eq!(
        kind(&labelled.replace('X', draining), "s"),
        "AllWeightsZero"
    );
    let mut options = SliceOptions::new("example");
    options.weight = -1.0;
    let err = endpoint_slices_to_view(SLICES.as_bytes(), &options).unwrap_err();
    assert_eq!(err.kind_name(), "InvalidWeight");
}

/// Every case of conformance/endpointslices.json (LIVE-VIEW.md section 8).
#[test]
fn conformance_cases() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/endpointslices.json"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(doc["version"], "hrwhash-endpointslices-v1");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 20, "the cases file lost cases");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let input = match case.get("input_text") {
            Some(text) => text.as_str().unwrap().as_bytes().to_vec(),
            None => serde_json::to_vec(&case["input"]).unwrap(),
        };
        let mut options = SliceOptions::new(case["service"].as_str().unwrap());
        options.port_name = case
            .get("port_name")
            .map(|p| p.as_str().unwrap().to_string());
        options.weight = case.get("weight").map_or(1.0, |w| w.as_f64().unwrap());
        options.epoch = case["epoch"].as_str().unwrap().parse().unwrap();
        let got = endpoint_slices_to_view(&input, &options);
        match (case.get("expected"), case.get("error")) {
            (Some(expected), None) => {
                let view = got.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(view.to_json(), expected.as_str().unwrap(), "{name}");
            }
            (None, Some(error)) => {
                let err = got.map(|v| v.to_json()).unwrap_err();
                assert_eq!(err.kind_name(), error.as_str().unwrap(), "{name}: {err}");
            }
            _ => panic!("{name}: a case has expected or error"),
        }
    }
}
