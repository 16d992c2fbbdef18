//! `hrwhash slot-table` on every case of conformance/policies/slot-history-v1.json.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

mod common;
use common::{hrwhash, scratch};

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../conformance/policies/slot-history-v1.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn write(dir: &std::path::Path, name: &str, case: &Value) -> PathBuf {
    let bytes = match case.get("document") {
        Some(d) => d.as_str().unwrap().as_bytes().to_vec(),
        None => unhex(case["document_hex"].as_str().unwrap()),
    };
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run(path: &Path, case: &Value, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["slot-table".as_ref(), path.as_os_str()];
    if let Some(seed) = case.get("seed") {
        args.push("--seed".as_ref());
        args.push(seed.as_str().unwrap().as_ref());
    }
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    hrwhash(&args)
}

#[test]
fn valid_histories_print_their_fingerprints_owners_and_canonical_form() {
    let dir = scratch("valid");
    for case in vectors()["valid"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let path = write(&dir, name, case);
        let keys: Vec<&str> = case["owners"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o.get("key").map(|k| k.as_str().unwrap()))
            .collect();
        let mut extra = vec!["--json"];
        extra.extend(&keys);
        let out = run(&path, case, &extra);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            doc["table_fingerprint"], case["table_fingerprint"],
            "{name}"
        );
        assert_eq!(doc["view_fingerprint"], case["view_fingerprint"], "{name}");
        assert_eq!(doc["changes"], case["changes"], "{name}");
        let canonical = case["canonical"].as_str().unwrap();
        let ranked = canonical.contains("\"policy\": \"slot-table-v1\"");
        assert_eq!(
            doc["policy"],
            if ranked {
                "slot-table-v1"
            } else {
                "slot-table-v2"
            }
        );
        assert_eq!(
            doc["mode"],
            if ranked { "ranked" } else { "levelled" },
            "{name}"
        );
        assert_eq!(
            doc["overload_ppm"].is_null(),
            !canonical.contains("\"overload_ppm\""),
            "{name}"
        );
        let owners: Vec<&Value> = case["owners"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o.get("key").is_some())
            .collect();
        for (got, want) in doc["keys"].as_array().unwrap().iter().zip(owners) {
            assert_eq!(got["slot"], want["slot"], "{name}");
            match want.get("owner") {
                Some(id) => assert_eq!(&got["owner"], id, "{name}"),
                None => assert_eq!(got["owner_hex"], want["owner_hex"], "{name}"),
            }
        }
        let canonical = run(&path, case, &["--canonical"]);
        assert_eq!(
            String::from_utf8(canonical.stdout).unwrap(),
            case["canonical"].as_str().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn invalid_histories_fail_with_their_error() {
    let dir = scratch("invalid");
    for case in vectors()["invalid"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let out = run(&write(&dir, name, case), case, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        let error = case["error"].as_str().unwrap();
        assert!(
            stderr.contains(&format!("error[{error}]")),
            "{name}: {stderr}"
        );
        if let Some(field) = case
            .get("field")
            .and_then(|f| f.as_str())
            .filter(|f| !f.is_empty())
        {
            assert!(stderr.contains(field), "{name}: {stderr}");
        }
        assert!(out.stdout.is_empty(), "{name}");
    }
}

#[test]
fn a_missing_file_is_an_input_error() {
    let out =
        hrwhash::<&std::ffi::OsStr>(&["slot-table".as_ref(), "/nonexistent/history.json".as_ref()]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/history.json"));
}

/// An endless stream is read only up to its first byte no JSON holds, as a view or a history.
#[cfg(unix)]
#[test]
fn dev_zero_is_invalid_json_at_once() {
    for command in ["slot-table", "view"] {
        let out = hrwhash::<&std::ffi::OsStr>(&[command.as_ref(), "/dev/zero".as_ref()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("InvalidJson") && err.contains("line 1, column 1"),
            "{command}: {err}"
        );
    }
}

/// KEY arguments are bytes, as in `place`: a key that is not UTF-8 gets the library's slot and
/// owner, written as `key_hex` in JSON and escaped in text.
#[cfg(unix)]
#[test]
fn keys_that_are_not_utf8_are_placed() {
    use std::os::unix::ffi::OsStrExt;

    let dir = scratch("bytes");
    let case = &vectors()["valid"][0];
    let path = write(&dir, "bytes", case);
    let seed = match case.get("seed") {
        Some(hex) => hrwhash::Seed::from_slice(&unhex(hex.as_str().unwrap())).unwrap(),
        None => hrwhash::Seed::DEFAULT,
    };
    let table =
        hrwhash::policy::SlotTable::from_json_bytes(&std::fs::read(&path).unwrap(), seed).unwrap();
    let key: &[u8] = b"user:\xff\xfe";
    let owner = table.owner(key).id().to_vec();

    let mut args: Vec<&std::ffi::OsStr> = vec!["slot-table".as_ref(), path.as_os_str()];
    if let Some(seed) = case.get("seed") {
        args.push("--seed".as_ref());
        args.push(seed.as_str().unwrap().as_ref());
    }
    args.push(std::ffi::OsStr::from_bytes(key));
    let mut json = args.clone();
    json.push("--json".as_ref());
    let out = hrwhash(&json);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = &doc["keys"][0];
    assert_eq!(got["key_hex"], "757365723afffe");
    assert_eq!(got["slot"], table.slot(key));
    assert_eq!(got["owner"].as_str().unwrap().as_bytes(), owner);

    let out = hrwhash(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = format!("  {:<24} {:>8}  ", "user:\\xff\\xfe", table.slot(key));
    assert!(text.contains(&line), "{line:?} not in {text}");
}
