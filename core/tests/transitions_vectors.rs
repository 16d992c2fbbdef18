//! Every case of conformance/transitions.json (VIEW.md 6), through the public API.
// The memberships are view documents: the `json` feature's.
#![cfg(feature = "json")]

use hrwhash::transition::{Diff, Transition};
use hrwhash::{Seed, View};
use serde_json::{json, Value};

fn file() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/transitions.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("transitions.json")).expect("JSON")
}

fn seed(case: &Value, member: &str) -> Seed {
    case.get(member).map_or(Seed::DEFAULT, |s| {
        let s = s.as_str().unwrap();
        let bytes: Vec<u8> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect();
        Seed::from_slice(&bytes).unwrap()
    })
}

fn name(case: &Value) -> &str {
    case["name"].as_str().unwrap()
}

fn transition(case: &Value) -> Transition {
    let load = |doc: &str, seed_member: &str| {
        View::from_json_with_seed(case[doc].as_str().unwrap(), seed(case, seed_member))
            .unwrap_or_else(|e| panic!("{}: {doc}: {e}", name(case)))
    };
    Transition::new(&load("from", "from_seed"), &load("to", "to_seed"))
}

#[test]
fn the_file_has_the_sections_this_suite_runs_and_rust_skips_nothing() {
    let v = file();
    let mut members: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    members.sort_unstable();
    assert_eq!(
        members,
        [
            "_comment",
            "diffs",
            "format",
            "movement",
            "not_offered",
            "routes"
        ]
    );
    assert_eq!(v["format"], "hrwhash-view-v1");
    assert_eq!(v["not_offered"]["rust"], json!({}));
    for section in ["movement", "routes", "diffs"] {
        assert!(!v[section].as_array().unwrap().is_empty(), "{section}");
    }
}

#[test]
fn movement_between_seeds_is_reproduced_bit_for_bit() {
    for case in file()["movement"].as_array().unwrap() {
        let t = transition(case);
        let want = case["expected_moved"].as_f64().unwrap();
        assert_eq!(
            t.expected_moved().to_bits(),
            want.to_bits(),
            "{}",
            name(case)
        );
        let want = case["optimum"].as_f64().unwrap();
        assert_eq!(t.optimum().to_bits(), want.to_bits(), "{}", name(case));
    }
}

#[test]
fn route_top_gives_the_sets_and_the_add_and_drop_order() {
    for case in file()["routes"].as_array().unwrap() {
        let t = transition(case);
        let k = case["k"].as_u64().unwrap() as usize;
        for r in case["routes"].as_array().unwrap() {
            let key = r["key"].as_str().unwrap();
            let got = t.route_top(key, k);
            let got = json!({"key": key, "before": got.before, "after": got.after, "add": got.add, "drop": got.drop});
            assert_eq!(&got, r, "{}: {key}", name(case));
        }
    }
}

fn rows(d: &Diff, t: &Transition) -> Vec<Value> {
    d.nodes()
        .iter()
        .map(|r| {
            let id = match (r.old_index, r.new_index) {
                (Some(i), _) => t.old_placement().node(i).unwrap().id(),
                (_, Some(j)) => t.new_placement().node(j).unwrap().id(),
                (None, None) => panic!("a row of no node"),
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
        .collect()
}

#[test]
fn diff_rows_and_counts_are_reproduced() {
    for case in file()["diffs"].as_array().unwrap() {
        let t = transition(case);
        let k = case["k"].as_u64().unwrap() as usize;
        let keys = (0..case["keys"].as_u64().unwrap()).map(|i| format!("key-{i}"));
        let mut d = if k == 1 { t.diff() } else { t.diff_top(k) };
        d.add_many(keys);
        assert_eq!(d.keys(), case["keys_counted"], "{}", name(case));
        assert_eq!(d.moved(), case["moved"], "{}", name(case));
        if k == 1 {
            let flows: Vec<Value> = d
                .flows()
                .iter()
                .map(|&(f, t, c)| json!([f, t, c]))
                .collect();
            assert_eq!(Value::from(flows), case["flows"], "{}", name(case));
        } else {
            assert_eq!(d.copies_added(), case["copies_added"], "{}", name(case));
            assert_eq!(d.copies_dropped(), case["copies_dropped"], "{}", name(case));
        }
        assert_eq!(Value::from(rows(&d, &t)), case["nodes"], "{}", name(case));
    }
}
