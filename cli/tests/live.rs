//! `hrwhash view publish`, `view watch` and `view from-endpointslices` (file publishing and
//! following; etcd is exercised by live/tests/followers.py, `make test-live`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use hrwhash::{Placement, View};
use hrwhash_live::{endpoint_slices_to_view, SliceOptions};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod common;
use common::{hrwhash, scratch};

// Writes the file whole, as publish_file does: the watcher polls every 10 ms and could otherwise
// read it truncated, between the two steps of a plain write, and report that instead.
fn replace(target: &std::path::Path, text: impl AsRef<[u8]>) {
    let staged = target.with_extension("staged");
    std::fs::write(&staged, text).unwrap();
    std::fs::rename(&staged, target).unwrap();
}

fn view(ids: &[&str], epoch: u64) -> View {
    View::new(Placement::new(ids.iter().copied()).unwrap(), epoch).unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn publish_writes_epochs_to_a_file_and_steps_through_a_ramp() {
    let dir = scratch("publish");
    let target = dir.join("live.json");
    let t = target.to_str().unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, view(&["n1", "n2", "n3"], 0).to_json()).unwrap();
    std::fs::write(&b, view(&["n1", "n2", "n3", "n4"], 0).to_json()).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let first = lines(&hrwhash(&["view", "publish", "--file", t, a, "--json"]));
    assert_eq!(first[0]["epoch"], "1");
    assert_eq!(first[0]["written"], true);
    assert_eq!(
        first[0]["fingerprint"],
        view(&["n1", "n2", "n3"], 0).fingerprint().to_hex()
    );
    let again = lines(&hrwhash(&["view", "publish", "--file", t, a, "--json"]));
    assert_eq!(
        (again[0]["epoch"].as_str(), again[0]["written"].as_bool()),
        (Some("1"), Some(false))
    );
    // Two documents in order: each a step.
    let steps = lines(&hrwhash(&[
        "view",
        "publish",
        "--file",
        t,
        b,
        a,
        "--interval",
        "10ms",
        "--json",
    ]));
    let epochs: Vec<&str> = steps.iter().map(|s| s["epoch"].as_str().unwrap()).collect();
    assert_eq!(epochs, ["2", "3"]);
    // A ramp folder, as `hrwhash ramp --out` writes it.
    let ramp = dir.join("ramp");
    let out = hrwhash(&[
        "ramp",
        "--from",
        a,
        "--to",
        b,
        "--max-move",
        "10%",
        "--out",
        ramp.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = std::fs::read_dir(&ramp)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("step-")
        })
        .count();
    assert!(n >= 2);
    let steps = lines(&hrwhash(&[
        "view",
        "publish",
        "--file",
        t,
        ramp.to_str().unwrap(),
        "--interval",
        "1ms",
        "--json",
    ]));
    assert_eq!(steps.len(), n);
    let epochs: Vec<u64> = steps
        .iter()
        .map(|s| s["epoch"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(epochs, (4..4 + n as u64).collect::<Vec<_>>());
    let stored = View::from_json(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(
        stored.fingerprint(),
        view(&["n1", "n2", "n3", "n4"], 0).fingerprint()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn publish_reports_bad_targets_with_their_kind() {
    let out = hrwhash(&[
        "view",
        "publish",
        "--etcd",
        "https://127.0.0.1:2379",
        "--key",
        "k",
        "testdata/view-new.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[InvalidArgument]"));
    // Nothing listens on port 1.
    let out = hrwhash(&[
        "view",
        "publish",
        "--etcd",
        "http://127.0.0.1:1",
        "--key",
        "k",
        "testdata/view-new.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error[Io]"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --etcd without --key, and no target at all: usage errors.
    assert_eq!(
        hrwhash(&[
            "view",
            "publish",
            "--etcd",
            "http://127.0.0.1:1",
            "testdata/view-new.json"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        hrwhash(&["view", "publish", "testdata/view-new.json"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        hrwhash(&[
            "view",
            "publish",
            "--file",
            "/tmp/x",
            "--interval",
            "soon",
            "testdata/view-new.json"
        ])
        .status
        .code(),
        Some(2)
    );
    // A document that is not a view.
    let dir = scratch("bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"format\": 1}").unwrap();
    let out = hrwhash(&[
        "view",
        "publish",
        "--file",
        dir.join("t.json").to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[InvalidView]"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The owners digest of the follower protocol, computed here from the library.
fn digest(view: &View, keys: &[&str]) -> String {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let joined = keys
        .iter()
        .map(|k| hex(view.placement().owner(k).id()))
        .collect::<Vec<_>>()
        .join("\n");
    hex(&Sha256::digest(joined.as_bytes()))
}

#[test]
fn watch_follows_a_file_and_prints_the_protocol() {
    let dir = scratch("watch");
    let target = dir.join("live.json");
    let keys_file = dir.join("keys.txt");
    let keys = ["user:1", "user:2", "user 3", "ключ"];
    std::fs::write(&keys_file, keys.join("\n") + "\n").unwrap();
    let v1 = view(&["a", "b", "c"], 1);
    hrwhash_live::publish_file(&target, &v1).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args([
            "view",
            "watch",
            "--file",
            target.to_str().unwrap(),
            "--keys",
            keys_file.to_str().unwrap(),
            "--poll",
            "10ms",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let first = next();
    assert_eq!(first["event"], "applied");
    assert_eq!(first["epoch"], "1");
    assert_eq!(first["fingerprint"], v1.fingerprint().to_hex());
    assert_eq!(first["owners"], digest(&v1, &keys));
    assert!(first["t_ns"].as_u64().unwrap() > 0);
    let v2 = view(&["a", "b", "c", "d"], 0);
    hrwhash_live::publish_file(&target, &v2).unwrap();
    let second = next();
    assert_eq!(
        (second["event"].as_str(), second["epoch"].as_str()),
        (Some("applied"), Some("2"))
    );
    assert_eq!(second["owners"], digest(&v2.with_epoch(2), &keys));
    replace(&target, view(&["z"], 1).to_json());
    let refused = next();
    assert_eq!(refused["event"], "refused");
    assert_eq!(refused["kind"], "StaleView");
    assert_eq!(refused["epoch"], "1");
    replace(&target, "{");
    let refused = next();
    assert_eq!(
        (refused["kind"].as_str(), refused["epoch"].as_str()),
        (Some("InvalidJson"), None)
    );
    std::fs::remove_file(&target).unwrap();
    let lost = next();
    assert_eq!(
        (lost["event"].as_str(), lost["kind"].as_str()),
        (Some("source_error"), Some("Io"))
    );
    // Closing stdin ends it.
    child.stdin.take().unwrap().flush().unwrap();
    assert!(child.wait().unwrap().success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_needs_a_readable_first_view() {
    let out = hrwhash(&[
        "view",
        "watch",
        "--file",
        "/nonexistent/live.json",
        "--keys",
        "testdata/view-new.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[Io]"));
    let out = hrwhash(&[
        "view",
        "watch",
        "--file",
        "testdata/view-new.json",
        "--keys",
        "/nonexistent/keys",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let out = hrwhash(&[
        "view",
        "watch",
        "--url",
        "ftp://x/v",
        "--keys",
        "testdata/view-new.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = hrwhash(&[
        "view",
        "watch",
        "--file",
        "testdata/view-new.json",
        "--keys",
        "testdata/view-new.json",
        "--store",
        "redis://x",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn from_endpointslices_prints_the_library_view() {
    let doc = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/endpointslices.json"),
    )
    .unwrap();
    let mut options = SliceOptions::new("example");
    options.epoch = 4;
    options.port_name = Some("http".into());
    let expected = endpoint_slices_to_view(&doc, &options).unwrap();
    let out = hrwhash(&[
        "view",
        "from-endpointslices",
        "testdata/endpointslices.json",
        "--service",
        "example",
        "--epoch",
        "4",
        "--port-name",
        "http",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected.to_json());
    let out = hrwhash(&[
        "view",
        "from-endpointslices",
        "testdata/endpointslices.json",
        "--service",
        "nothing",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[EmptyMembership]"));
    let out = hrwhash(&[
        "view",
        "from-endpointslices",
        "testdata/view-new.json",
        "--service",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[InvalidView]"));
}
