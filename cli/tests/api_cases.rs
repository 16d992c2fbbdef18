//! Every case of conformance/api-cases.json that the command line can pose, through the `hrwhash`
//! binary: `new` as `place --nodes ... [--weights ...] [--seed HEX] probe`, `owner` as
//! `place KEY`, `rank` as `place --k K KEY`, `replicas_strict` as `place --strict --k K KEY`. An error is one stderr line
//! `hrwhash: error[<Variant>]: <message>` whose message names the positions and counts the case
//! gives; a result is checked against the `hrwhash` library.

use std::process::{Command, Output};

use hrwhash::{Node, Placement, Seed, Weight};
use serde_json::Value;

const LANGUAGE: &str = "cli";

fn cases_file() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/api-cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("api-cases.json")).expect("JSON")
}

fn hex(s: &str) -> String {
    assert!(
        s.len().is_multiple_of(2) && s.bytes().all(|b| b.is_ascii_hexdigit()),
        "hex {s:?}"
    );
    s.to_string()
}

/// A text value as command-line text.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => panic!("not a value form the command line can give as text: {other}"),
    }
}

fn texts(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.iter().map(text).collect(),
        Value::Object(o) if o.len() == 1 && o.contains_key("range") => {
            let r = &o["range"];
            let prefix = r["prefix"].as_str().expect("prefix");
            (0..r["count"].as_u64().expect("count"))
                .map(|i| format!("{prefix}{i}"))
                .collect()
        }
        other => panic!("not a list value form for the command line: {other}"),
    }
}

/// A number as the decimal text a user would type; the CLI parses it.
fn number_text(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_f64() => format!("{:?}", n.as_f64().unwrap()),
        Value::Number(n) => n.to_string(),
        Value::Object(o) if o.len() == 1 && o.contains_key("float") => {
            match o["float"].as_str().expect("float name") {
                "nan" => "NaN".into(),
                "inf" => "inf".into(),
                "-inf" => "-inf".into(),
                other => panic!("unknown float {other}"),
            }
        }
        Value::Object(o) if o.len() == 1 && o.contains_key("int") => {
            let d = o["int"].as_str().expect("decimal");
            assert!(d
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit()));
            d.to_string()
        }
        other => panic!("not a number value form for the command line: {other}"),
    }
}

/// `--nodes`, `--weights` and `--seed` flags for a membership.
fn membership_flags(args: &Value) -> Vec<String> {
    let args = args.as_object().expect("args");
    for k in args.keys() {
        assert!(
            ["nodes", "weights", "seed"].contains(&k.as_str()),
            "the command line cannot give {k:?}; the case must say so"
        );
    }
    let mut flags = vec!["--nodes".to_string(), texts(&args["nodes"]).join(",")];
    if let Some(w) = args.get("weights") {
        let w: Vec<String> = w
            .as_array()
            .expect("weights list")
            .iter()
            .map(number_text)
            .collect();
        flags.extend(["--weights".to_string(), w.join(",")]);
    }
    if let Some(seed) = args.get("seed") {
        let seed = match seed {
            Value::Object(o) if o.len() == 1 && o.contains_key("bytes") => {
                hex(o["bytes"].as_str().unwrap())
            }
            other => panic!("not a seed value form for the command line: {other}"),
        };
        flags.extend(["--seed".to_string(), seed]);
    }
    flags
}

/// The library's placement for the same membership, to check answers against.
fn library(args: &Value) -> Placement {
    let ids = texts(&args["nodes"]);
    let weights: Vec<f64> = match args.get("weights") {
        Some(w) => w
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .collect(),
        None => vec![1.0; ids.len()],
    };
    let nodes: Vec<_> = ids
        .iter()
        .zip(weights)
        .map(|(id, w)| Node::new(id).with_weight(Weight::new(w).unwrap()))
        .collect();
    Placement::from_nodes(Seed::DEFAULT, nodes).unwrap()
}

fn place(flags: &[String], extra: &[&str], keys: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .arg("place")
        .args(flags)
        .args(["--json"])
        .args(extra)
        .arg("--")
        .args(keys)
        .output()
        .expect("the hrwhash binary starts")
}

/// The JSON items of a successful `place`.
fn placed_items(name: &str, out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    doc.as_array().expect("an array").clone()
}

fn check_error(name: &str, case: &Value, out: &Output) {
    let want = case["error"].as_str().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
    assert!(out.stdout.is_empty(), "{name}: printed a result");
    assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    let prefix = format!("hrwhash: error[{want}]: ");
    let message = stderr
        .trim_end()
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{name}: expected {prefix:?}, got {stderr:?}"));
    let detail = |k: &str| case.get(k).map(|v| v.as_u64().expect("detail"));
    // A position is where the message says the problem is: "<flag> index <i>: ...".
    if let Some(i) = detail("index") {
        let flag = if want == "InvalidWeight" {
            "--weights"
        } else {
            "--nodes"
        };
        assert!(
            message.starts_with(&format!("{flag} index {i}: ")),
            "{name}: {message}"
        );
    }
    if let Some(i) = detail("first_index") {
        assert!(
            message.ends_with(&format!(" --nodes index {i}")),
            "{name}: {message}"
        );
    }
    match want {
        "LengthMismatch" => {
            let (e, a) = (detail("expected").unwrap(), detail("actual").unwrap());
            assert_eq!(
                message,
                format!("--weights has {a} items but --nodes has {e}"),
                "{name}"
            );
        }
        "InvalidSeedLength" => {
            let a = detail("actual").unwrap();
            assert!(
                message.starts_with(&format!("--seed is {a} bytes")),
                "{name}: {message}"
            );
        }
        _ => {
            assert!(
                detail("expected").is_none() && detail("actual").is_none(),
                "{name}"
            );
        }
    }
}

fn check_result(name: &str, case: &Value, flags: &[String], out: &Output) {
    let result = case["result"].as_object().unwrap();
    let op = case["op"].as_str().unwrap();
    let built = if op == "new" {
        &case["args"]
    } else {
        &case["placement"]
    };
    let items = placed_items(name, out);
    for (k, want) in result {
        match (k.as_str(), op) {
            ("ok", _) => {
                assert_eq!(want, &Value::Bool(true));
                assert_eq!(items.len(), 1, "{name}");
            }
            ("len", "rank") => {
                let rank = items[0]["rank"].as_array().unwrap();
                assert_eq!(rank.len() as u64, want.as_u64().unwrap(), "{name}");
            }
            ("len", "replicas_strict") => {
                let replicas = items[0]["replicas"].as_array().unwrap();
                assert_eq!(replicas.len() as u64, want.as_u64().unwrap(), "{name}");
            }
            ("selectable", "new") => {
                // The full ranking of the probe key holds every selectable node.
                let out = place(flags, &["--k", "18446744073709551615"], &["probe".into()]);
                let rank = placed_items(name, &out)[0]["rank"]
                    .as_array()
                    .unwrap()
                    .len();
                assert_eq!(rank as u64, want.as_u64().unwrap(), "{name}");
            }
            ("weights" | "owner_of_every_key", "new") => {
                let keys: Vec<String> = (0..64).map(|i| i.to_string()).collect();
                let out = place(flags, &["--k", "18446744073709551615"], &keys);
                let placed = placed_items(name, &out);
                let mut spec = built.clone();
                if k == "weights" {
                    spec["weights"] = want.clone();
                }
                let lib = library(&spec);
                for (item, key) in placed.iter().zip(&keys) {
                    if k == "owner_of_every_key" {
                        assert_eq!(&item["owner"], want, "{name}: key {key}");
                    }
                    let rank: Vec<&[u8]> =
                        lib.rank(key, usize::MAX).iter().map(|n| n.id()).collect();
                    let printed: Vec<&[u8]> = item["rank"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap().as_bytes())
                        .collect();
                    assert_eq!(printed, rank, "{name}: key {key}");
                }
            }
            (k, op) => panic!("{name}: result key {k:?} of {op} has no command-line check"),
        }
    }
}

#[test]
fn every_case_the_command_line_can_pose() {
    let file = cases_file();
    assert_eq!(file["version"], "hrwhash-api-v1");
    let languages: Vec<&str> = file["languages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(languages.contains(&LANGUAGE));
    let ops = file["ops"].as_object().unwrap();
    let not_offered: Vec<&str> = file["not_offered"][LANGUAGE]
        .as_array()
        .expect("a not_offered list for the CLI")
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    let (mut ran, mut not_expressible, mut skipped) = (0, 0, Vec::new());
    for case in file["cases"].as_array().unwrap() {
        let name = case["name"].as_str().expect("name");
        let op = case["op"].as_str().expect("op");
        assert!(ops.contains_key(op), "{name}: unknown op {op}");
        for k in case.as_object().unwrap().keys() {
            assert!(
                [
                    "name",
                    "op",
                    "args",
                    "placement",
                    "error",
                    "result",
                    "not_expressible",
                    "index",
                    "first_index",
                    "expected",
                    "actual"
                ]
                .contains(&k.as_str()),
                "{name}: unknown case key {k}"
            );
        }
        if let Some(ne) = case.get("not_expressible") {
            for lang in ne.as_object().unwrap().keys() {
                assert!(
                    languages.contains(&lang.as_str()),
                    "{name}: language {lang}"
                );
            }
            if ne.get(LANGUAGE).is_some() {
                not_expressible += 1;
                continue;
            }
        }
        if not_offered.contains(&op) {
            skipped.push(name);
            continue;
        }
        let args = &case["args"];
        let (flags, extra, keys) = match op {
            "new" => (membership_flags(args), vec![], vec!["probe".to_string()]),
            "owner" => (
                membership_flags(&case["placement"]),
                vec![],
                vec![text(&args["key"])],
            ),
            "rank" => (
                membership_flags(&case["placement"]),
                vec!["--k".to_string(), number_text(&args["k"])],
                vec![text(&args["key"])],
            ),
            "replicas_strict" => (
                membership_flags(&case["placement"]),
                vec![
                    "--strict".to_string(),
                    "--k".to_string(),
                    number_text(&args["k"]),
                ],
                vec![text(&args["key"])],
            ),
            other => panic!("{name}: the CLI runner has no command for {other}"),
        };
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let out = place(&flags, &extra, &keys);
        match (case.get("error"), case.get("result")) {
            (Some(_), None) => check_error(name, case, &out),
            (None, Some(_)) => check_result(name, case, &flags, &out),
            _ => panic!("{name}: a case has exactly one of error and result"),
        }
        ran += 1;
    }
    println!(
        "api-cases.json, cli: {ran} cases ran, {not_expressible} not expressible, {} not offered {:?}",
        skipped.len(),
        skipped
    );
    assert!(ran > 0);
}

/// `slot_table` builds a slot table from a placement with a size and an overload bound, and
/// `set_weight` changes a weight of one in place. The CLI has neither: its `slot-table` command
/// loads a document (SLOT-HISTORY.md), where a bad overload bound is the document's InvalidView,
/// not the constructor's InvalidCount that the cases expect. So the file lists both ops as not
/// offered for the CLI, and the runner above skips every case of them (the released file also
/// marks `set_weight`'s cases not expressible for the CLI, which says the same).
#[test]
fn slot_table_ops_are_listed_as_not_offered_and_the_cli_has_no_command_for_them() {
    let file = cases_file();
    let not_offered = file["not_offered"][LANGUAGE].as_array().unwrap();
    for op in ["slot_table", "set_weight"] {
        assert!(not_offered.contains(&Value::from(op)), "{op}");
        let cases: Vec<&Value> = file["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["op"] == op)
            .collect();
        assert!(!cases.is_empty(), "no {op} cases");
        for c in cases {
            if let Some(why) = c["not_expressible"].get(LANGUAGE) {
                assert!(
                    why.as_str().unwrap().contains("slot-table"),
                    "{}: not expressible for another reason: {why}",
                    c["name"]
                );
            }
        }
    }
    let help = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args(["slot-table", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("<FILE>"), "{help}");
    for option in ["--slots", "--overload", "--nodes", "--weight"] {
        assert!(
            !help.contains(option),
            "slot-table offers {option}: pose the cases"
        );
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("api-cases-slot-table");
    std::fs::create_dir_all(&dir).unwrap();
    let doc = dir.join("table.json");
    std::fs::write(
        &doc,
        r#"{"format": "hrwhash-slot-history-v1", "policy": "slot-table-v1", "epoch": "0", "seed": "default", "slots": 64, "overload_ppm": 4294967296, "initial": [{"id": "a"}, {"id": "b"}, {"id": "c"}], "changes": []}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .arg("slot-table")
        .arg(&doc)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("error[InvalidView]"), "{stderr}");
}
