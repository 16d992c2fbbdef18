//! Every case of conformance/live-view.json (LIVE-VIEW.md), through the public API.
#![cfg(all(feature = "std", feature = "json"))]

use hrwhash::{Error, LiveView, Seed, View};
use serde_json::{json, Value};

fn cases() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/live-view.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("live-view.json")).expect("JSON")
}

fn seed(v: &Value) -> Option<Seed> {
    let text = v.as_str()?;
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect();
    Some(Seed::from_slice(&bytes).expect("16 bytes"))
}

fn outcome(result: Result<bool, Error>) -> Value {
    match result {
        Ok(true) => "applied".into(),
        Ok(false) => "unchanged".into(),
        Err(Error::StaleView { epoch, current }) => json!({
            "error": "StaleView", "epoch": epoch.to_string(), "current": current.to_string()
        }),
        Err(Error::ViewConflict { epoch }) => {
            json!({"error": "ViewConflict", "epoch": epoch.to_string()})
        }
        Err(e) => json!({"error": e.kind().name()}),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 ids")
}

fn state(live: &LiveView, keys: &[Value]) -> Value {
    let snapshot = live.snapshot();
    let routes: Vec<Value> = keys
        .iter()
        .map(|k| {
            let k = k.as_str().expect("key");
            let r = live.route(k);
            // One snapshot answers as the live view does, and owner is where to write.
            assert_eq!(snapshot.route(k), r);
            assert_eq!(live.owner(k), r.write);
            assert_eq!(snapshot.owner(k).id(), r.write.as_slice());
            json!([text(&r.read), text(&r.write), r.moved])
        })
        .collect();
    assert_eq!(snapshot.moving(), snapshot.previous().is_some());
    json!({
        "epoch": live.epoch().to_string(),
        "fingerprint": live.fingerprint().to_hex(),
        "moving": live.moving(),
        "last_error": live.last_error().map(kind_name),
        "routes": routes,
    })
}

#[test]
fn every_live_view_case() {
    let doc = cases();
    assert_eq!(doc["version"], "hrwhash-live-view-v1");
    let keys = doc["keys"].as_array().expect("keys");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 9);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let case_seed = seed(&case["seed"]).unwrap_or(Seed::DEFAULT);
        let initial = case["initial"].as_str().expect("initial");
        let live = LiveView::new(View::from_json_with_seed(initial, case_seed).expect(name));
        for (n, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
            if let Some(document) = step["update"].as_str() {
                let s = seed(&step["seed"]).unwrap_or(case_seed);
                let result = View::from_json_with_seed(document, s)
                    .inspect_err(|e| live.report_error(e.clone()))
                    .and_then(|view| live.update(view));
                assert_eq!(outcome(result), step["expect"], "{name} step {n}");
            } else if step["finish_move"] == true {
                assert_eq!(
                    Value::from(live.finish_move()),
                    step["returns"],
                    "{name} {n}"
                );
            } else if let Some(kind) = step["report_error"].as_str() {
                live.report_error(Error::Source {
                    kind: kind.to_string(),
                    message: "a source error".to_string(),
                });
            } else {
                panic!("{name} step {n}: unknown step");
            }
            assert_eq!(state(&live, keys), step["state"], "{name} step {n}");
        }
    }
}

/// The name the cases give a live view's last error: a source's own kind, else the error kind.
fn kind_name(e: Error) -> String {
    match e {
        Error::Source { kind, .. } => kind,
        e => e.kind().name().to_string(),
    }
}
