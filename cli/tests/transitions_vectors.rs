//! conformance/transitions.json (VIEW.md 6) through `hrwhash plan` and `hrwhash diff`: the
//! replicas to add and drop per key in the order the file gives them, and the rows of a diff and a
//! replica diff. What the commands do not offer is skipped only as the file's not_offered names it
//! for the CLI.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

mod common;
use common::{json, scratch};

const LANGUAGE: &str = "cli";
/// The parts of the cases this suite does not run: the commands print no expected movement (and
/// one --seed serves both sides), plans name the replicas to add and drop but not the sets, and
/// diff rows name ids, with no added or dropped without --k.
const SKIPPED: [&str; 4] = [
    "diff_row_indexes",
    "diff_row_moves",
    "movement",
    "route_sets",
];

fn file() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/transitions.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The case's two documents as files, with the ids of each side in build order.
fn sides(c: &Value, dir: &Path) -> [(PathBuf, Vec<String>); 2] {
    assert!(
        c.get("from_seed").is_none() && c.get("to_seed").is_none(),
        "{}: one --seed serves both memberships",
        c["name"]
    );
    ["from", "to"].map(|side| {
        let text = c[side].as_str().unwrap();
        let path = dir.join(format!("{side}.json"));
        std::fs::write(&path, text).unwrap();
        let doc: Value = serde_json::from_str(text).unwrap();
        let ids = doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect();
        (path, ids)
    })
}

fn names(ids: &[String], indexes: &Value) -> Vec<Value> {
    indexes
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json!(ids[i.as_u64().unwrap() as usize]))
        .collect()
}

#[test]
fn not_offered_names_what_the_cli_skips() {
    let f = file();
    let mut got: Vec<&str> = f["not_offered"][LANGUAGE]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    got.sort_unstable();
    assert_eq!(got, SKIPPED);
    assert!(!f["movement"].as_array().unwrap().is_empty());
}

#[test]
fn plans_list_the_replicas_to_add_and_drop_in_replica_order() {
    for c in file()["routes"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let dir = scratch(&format!("route-{name}"));
        let [(from, old), (to, new)] = sides(c, &dir);
        let routes = c["routes"].as_array().unwrap();
        let keys: String = routes
            .iter()
            .map(|r| format!("{}\n", r["key"].as_str().unwrap()))
            .collect();
        let keys_file = dir.join("keys.txt");
        std::fs::write(&keys_file, keys).unwrap();
        let k = c["k"].to_string();
        let out = json(&[
            "plan",
            "--from",
            from.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
            "--keys-from",
            keys_file.to_str().unwrap(),
            "--k",
            &k,
            "--json",
            "--quiet",
        ]);
        // Only the keys whose set changes are listed, in input order.
        let want: Vec<Value> = routes
            .iter()
            .filter(|r| r["add"] != json!([]) || r["drop"] != json!([]))
            .map(|r| {
                let key = r["key"].clone();
                let source = json!(old[r["before"][0].as_u64().unwrap() as usize]);
                if c["k"] == 1 {
                    // Without --k a plan gives the one owner to copy from and the one to copy to.
                    let [add, drop] = [&r["add"], &r["drop"]].map(|l| l.as_array().unwrap().len());
                    assert_eq!((add, drop), (1, 1), "{name}");
                    let to = json!(new[r["add"][0].as_u64().unwrap() as usize]);
                    assert_eq!(source, json!(old[r["drop"][0].as_u64().unwrap() as usize]));
                    json!({"key": key, "from": source, "to": to})
                } else {
                    json!({"key": key, "from": source, "add": names(&new, &r["add"]), "drop": names(&old, &r["drop"])})
                }
            })
            .collect();
        assert_eq!(out["moves"], Value::from(want), "{name}");
    }
}

#[test]
fn diffs_give_the_rows_in_order_with_their_counts() {
    for c in file()["diffs"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let dir = scratch(&format!("diff-{name}"));
        let [(from, old), (to, new)] = sides(c, &dir);
        let (k, keys) = (c["k"].to_string(), c["keys"].to_string());
        let out = json(&[
            "diff",
            "--from",
            from.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
            "--keys",
            &keys,
            "--k",
            &k,
            "--json",
            "--quiet",
        ]);
        assert_eq!(out["keys"], c["keys_counted"], "{name}");
        let rows: Vec<Value> = c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                // Absent from a side: its count there is null.
                let on = |index: &str, count: &str| {
                    if r[index].is_null() {
                        Value::Null
                    } else {
                        r[count].clone()
                    }
                };
                let mut row = json!({"id": r["id"], "before": on("old_index", "before"), "after": on("new_index", "after")});
                if c["k"] != 1 {
                    row["added"] = r["added"].clone();
                    row["dropped"] = r["dropped"].clone();
                }
                row
            })
            .collect();
        assert_eq!(out["nodes"], Value::from(rows), "{name}");
        if c["k"] == 1 {
            assert_eq!(out["moved_keys"], c["moved"], "{name}");
            let flows: Vec<Value> = c["flows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let at = |i: usize| f[i].as_u64().unwrap() as usize;
                    json!({"from": old[at(0)], "to": new[at(1)], "count": f[2]})
                })
                .collect();
            assert_eq!(out["flows"], Value::from(flows), "{name}");
        } else {
            assert_eq!(out["changed_keys"], c["moved"], "{name}");
            assert_eq!(out["copies_added"], c["copies_added"], "{name}");
            assert_eq!(out["copies_dropped"], c["copies_dropped"], "{name}");
        }
    }
}
