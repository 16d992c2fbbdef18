//! `hrwhash view` and `hrwhash ramp` against the `hrwhash` library.

use std::path::Path;

use hrwhash::{Placement, RampPlan, Seed, View};
use serde_json::Value;

mod common;
use common::{hrwhash, scratch};

fn ok(args: &[&str]) -> String {
    let out = hrwhash(args);
    assert!(
        out.status.success(),
        "hrwhash {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Progress bars appear only on a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str], status: i32, message: &str) {
    let out = hrwhash(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: {stderr}");
}

fn testdata(name: &str) -> View {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    View::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn view_prints_what_the_library_computes() {
    let view = testdata("view-new.json");
    let doc: Value =
        serde_json::from_str(&ok(&["view", "testdata/view-new.json", "--json"])).unwrap();
    assert_eq!(doc["epoch"], view.epoch().to_string());
    assert_eq!(doc["fingerprint"], view.fingerprint().to_hex());
    assert_eq!(doc["seed"], "default");
    assert_eq!(doc["seed_fingerprint"], view.seed_fingerprint().to_hex());
    let nodes = doc["nodes"].as_array().unwrap();
    let total: f64 = view
        .placement()
        .node_specs()
        .iter()
        .map(|n| n.weight().to_f64())
        .sum();
    for (n, spec) in nodes.iter().zip(view.placement().node_specs()) {
        assert_eq!(n["id"].as_str().unwrap().as_bytes(), spec.id());
        assert_eq!(n["share"].as_f64().unwrap(), spec.weight().to_f64() / total);
    }
    let text = ok(&["view", "testdata/view-new.json"]);
    assert!(text.contains(&view.fingerprint().to_hex()));
    assert!(text.contains("50.00%"));
}

#[test]
fn view_with_a_secret_seed_and_binary_ids() {
    let dir = scratch("secret");
    let seed = Seed::from_bytes(*b"0123456789abcdef");
    let p = Placement::from_nodes(
        seed,
        [hrwhash::Node::new([0xffu8, 0x00]), hrwhash::Node::new("b")],
    )
    .unwrap();
    let file = dir.join("v.json");
    std::fs::write(&file, View::new(p, 3).unwrap().to_json()).unwrap();
    let path = file.to_str().unwrap();
    let seed_hex = "30313233343536373839616263646566";
    let doc: Value =
        serde_json::from_str(&ok(&["view", path, "--seed", seed_hex, "--json"])).unwrap();
    assert_eq!(doc["seed"], "secret");
    // Canonical order: "b" (0x62) before 0xff 0x00.
    assert_eq!(doc["nodes"][1]["id_hex"], "ff00");
    assert!(ok(&["view", path, "--seed", seed_hex]).contains("0xff00"));
    fails(&["view", path], 1, "seed does not match");
    fails(&["view", path, "--seed", "00"], 2, "--seed");
}

#[test]
fn view_rejects_bad_documents_with_their_position() {
    let dir = scratch("bad");
    let cases = [
        ("trailing.json", "{} x", "not well-formed JSON at line 1"),
        (
            "weight.json",
            r#"{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "1", "seed": "default", "nodes": [{"id": "a"}, {"id": "b", "weight": -1}]}"#,
            "weight.json: view: nodes[1] member \"weight\" is out of range",
        ),
        (
            "duplicate.json",
            r#"{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "1", "seed": "default", "nodes": [{"id": "a"}, {"id": "a"}]}"#,
            "duplicate.json: nodes[1]: duplicate node id (already the id of nodes[0])",
        ),
        (
            "unknown.json",
            r#"{"format": "hrwhash-view-v1", "extra": 1}"#,
            "member \"extra\" is not a member",
        ),
    ];
    for (name, text, message) in cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        fails(&["view", file.to_str().unwrap()], 1, message);
    }
    fails(
        &["view", dir.join("absent.json").to_str().unwrap()],
        1,
        "absent.json",
    );
}

#[test]
fn ramp_writes_the_library_plan() {
    let dir = scratch("ramp");
    let out = dir.join("steps");
    let svg = dir.join("ramp.svg");
    let args = [
        "ramp",
        "--from",
        "testdata/view-old.json",
        "--to",
        "testdata/view-new.json",
        "--max-move",
        "7.5%",
        "--out",
        out.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
        "--json",
    ];
    let doc: Value = serde_json::from_str(&ok(&args)).unwrap();
    let (from, to) = (testdata("view-old.json"), testdata("view-new.json"));
    let plan = RampPlan::new(&from, &to, 0.075).unwrap();
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), plan.steps().len());
    assert!(steps.len() > 2);
    for (i, (row, step)) in steps.iter().zip(plan.steps()).enumerate() {
        assert_eq!(row["moved"].as_f64().unwrap(), step.moved);
        assert!(step.moved <= 0.075);
        let written = std::fs::read_to_string(out.join(format!("step-{}.json", i + 1))).unwrap();
        let view = View::from_json(&written).unwrap();
        assert_eq!(view.epoch(), from.epoch() + i as u64 + 1);
        assert_eq!(view.fingerprint(), plan.view(i).unwrap().fingerprint());
        assert_eq!(row["fingerprint"], view.fingerprint().to_hex());
    }
    assert_eq!(
        steps.last().unwrap()["fingerprint"],
        to.fingerprint().to_hex()
    );
    assert_eq!(doc["total_moved"].as_f64().unwrap(), plan.total_moved());
    assert_eq!(doc["direct_moved"].as_f64().unwrap(), plan.direct_moved());
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("cache-d"));
}

#[test]
fn ramp_rejects_bad_limits_and_mixed_seeds() {
    let dir = scratch("ramp-bad");
    let out = dir.to_str().unwrap();
    let ramp = |limit: &str| {
        vec![
            "ramp".to_string(),
            "--from".into(),
            "testdata/view-old.json".into(),
            "--to".into(),
            "testdata/view-new.json".into(),
            "--max-move".into(),
            limit.into(),
            "--out".into(),
            out.into(),
        ]
    };
    for (limit, message) in [
        ("0%", "invalid per-step move limit"),
        ("150%", "invalid per-step move limit"),
        ("0.0000000001", "invalid per-step move limit"),
        ("lots", "not a percentage"),
        // A negative limit reaches the limit's parser and the core's check, not clap's
        // "unexpected argument".
        (
            "-1",
            "error[InvalidMoveLimit]: --max-move: invalid per-step move limit -1",
        ),
        ("-5%", "error[InvalidMoveLimit]"),
    ] {
        let args = ramp(limit);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, 2, message);
    }
    let secret =
        Placement::from_nodes(Seed::from_bytes([9; 16]), [hrwhash::Node::new("cache-a")]).unwrap();
    let file = dir.join("secret.json");
    std::fs::write(&file, View::new(secret, 50).unwrap().to_json()).unwrap();
    fails(
        &[
            "ramp",
            "--from",
            "testdata/view-old.json",
            "--to",
            file.to_str().unwrap(),
            "--max-move",
            "5%",
            "--out",
            out,
        ],
        1,
        "seed does not match",
    );
}

#[test]
fn diff_and_plan_take_view_files() {
    let (from, to) = (testdata("view-old.json"), testdata("view-new.json"));
    let t = hrwhash::Transition::new(&from, &to);
    let mut diff = t.diff();
    diff.add_many((0..5000).map(|i| format!("key-{i}")));
    let args = [
        "diff",
        "--from",
        "testdata/view-old.json",
        "--to",
        "testdata/view-new.json",
        "--keys",
        "5000",
        "--json",
    ];
    let doc: Value = serde_json::from_str(&ok(&args)).unwrap();
    assert_eq!(doc["moved_keys"].as_u64().unwrap(), diff.moved());
    assert_eq!(
        doc["optimum_percent"].as_f64().unwrap(),
        100.0 * t.optimum()
    );
    let flows: u64 = doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["count"].as_u64().unwrap())
        .sum();
    assert_eq!(flows, diff.moved());
    // The node files hold the same memberships, with cache-b drained instead of removed: the
    // same keys move.
    let nodes: Value = serde_json::from_str(&ok(&[
        "diff",
        "--from",
        "testdata/nodes-old.txt",
        "--to",
        "testdata/nodes-new.txt",
        "--keys",
        "5000",
        "--json",
    ]))
    .unwrap();
    assert_eq!(nodes["moved_keys"], doc["moved_keys"]);
    let plan: Value = serde_json::from_str(&ok(&[
        "plan",
        "--from",
        "testdata/view-old.json",
        "--to",
        "testdata/view-new.json",
        "--keys",
        "5000",
        "--summary",
        "--json",
    ]))
    .unwrap();
    assert_eq!(plan["moved_keys"].as_u64().unwrap(), diff.moved());
}

/// A node file stands in for a view wherever a membership is read: `view --from-nodes` writes
/// its view, `ramp` plans from node files (a view at epoch 0), and `place --nodes-file` and
/// `place --view` place keys as the library does on the same membership.
#[test]
fn node_files_and_views_are_interchangeable() {
    let (old, new) = (testdata("view-old.json"), testdata("view-new.json"));
    // testdata/nodes-*.txt hold the memberships of testdata/view-*.json.
    let written = ok(&[
        "view",
        "--from-nodes",
        "testdata/nodes-old.txt",
        "--epoch",
        "41",
    ]);
    let view = View::from_json(&written).unwrap();
    assert_eq!(view.fingerprint(), old.fingerprint());
    assert_eq!(view.epoch(), 41);
    // nodes-new.json lists cache-b at weight 0, which view-new.json leaves out.
    let nodes = [
        ("cache-a", 1.0, "rack-1"),
        ("cache-b", 0.0, "rack-1"),
        ("cache-c", 1.0, "rack-2"),
        ("cache-d", 2.0, "rack-2"),
    ]
    .map(|(id, w, d)| {
        hrwhash::Node::new(id)
            .with_weight(hrwhash::Weight::new(w).unwrap())
            .with_domain(d)
    });
    let drained = View::new(
        Placement::from_nodes(Seed::DEFAULT, nodes.to_vec()).unwrap(),
        0,
    )
    .unwrap();
    let view = View::from_json(&ok(&["view", "--from-nodes", "testdata/nodes-new.json"])).unwrap();
    assert_eq!(view.fingerprint(), drained.fingerprint());
    assert_eq!(view.epoch(), 0);
    fails(&["view"], 2, "--from-nodes");
    fails(
        &[
            "view",
            "testdata/view-old.json",
            "--from-nodes",
            "testdata/nodes-old.txt",
        ],
        2,
        "cannot be used with",
    );
    fails(
        &["view", "--from-nodes", "testdata/view-old.json"],
        1,
        "testdata/view-old.json",
    );

    let dir = scratch("ramp-nodes");
    let steps = dir.join("steps");
    let doc: Value = serde_json::from_str(&ok(&[
        "ramp",
        "--from",
        "testdata/nodes-old.txt",
        "--to",
        "testdata/nodes-new.json",
        "--max-move",
        "20%",
        "--out",
        steps.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let plan = RampPlan::new(&old.with_epoch(0), &drained, 0.2).unwrap();
    let rows = doc["steps"].as_array().unwrap();
    assert_eq!(rows.len(), plan.steps().len());
    for (i, (row, step)) in rows.iter().zip(plan.steps()).enumerate() {
        assert_eq!(row["moved"].as_f64().unwrap(), step.moved);
        assert_eq!(row["epoch"], (i + 1).to_string());
    }
    assert_eq!(doc["total_moved"].as_f64().unwrap(), plan.total_moved());

    let keys = ["user:1", "user:2", "session:abc", "k"];
    for source in [
        &["--view", "testdata/view-new.json"][..],
        &["--nodes-file", "testdata/nodes-new.txt"][..],
        &["--nodes-file", "testdata/nodes-new.json"][..],
    ] {
        let mut args = vec!["place", "--k", "2", "--json"];
        args.extend_from_slice(source);
        args.extend_from_slice(&keys);
        let doc: Value = serde_json::from_str(&ok(&args)).unwrap();
        for (item, key) in doc.as_array().unwrap().iter().zip(keys) {
            let rank: Vec<&[u8]> = new
                .placement()
                .rank(key, 2)
                .iter()
                .map(|n| n.id())
                .collect();
            let got: Vec<&[u8]> = item["rank"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().as_bytes())
                .collect();
            assert_eq!(got, rank, "{source:?} {key}");
        }
    }
    fails(
        &[
            "place",
            "--view",
            "testdata/view-new.json",
            "--nodes",
            "a",
            "k",
        ],
        2,
        "cannot be used with",
    );
    fails(
        &[
            "place",
            "--nodes-file",
            "testdata/nodes-new.txt",
            "--weights",
            "1",
            "k",
        ],
        2,
        "cannot be used with",
    );
}
