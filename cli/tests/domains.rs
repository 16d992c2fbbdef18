//! `place --policy domains` and `simulate-domains` against the library's domains-v1 policy.

use hrwhash::policy::Domains;
use hrwhash::{Node, Placement};
use serde_json::Value;

mod common;
use common::hrwhash;

const IDS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];
const PATHS: [&str; 6] = ["z1/r1", "z1/r1", "z1/r2", "z2/r1", "z2/r1", "z2/r2"];

fn library(level: usize) -> Domains {
    let nodes = IDS
        .iter()
        .zip(PATHS)
        .map(|(id, p)| Node::new(id).with_domain(p));
    Domains::new(
        &Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).unwrap(),
        level,
    )
    .unwrap()
}

#[test]
fn place_prints_the_replicas_of_the_library() {
    let (nodes, domains) = (IDS.join(","), PATHS.join(","));
    for (level, flag) in [(0, "zone"), (1, "rack"), (1, "1")] {
        let keys: Vec<String> = (0..50).map(|i| format!("key-{i}")).collect();
        let mut args = vec![
            "place",
            "--policy",
            "domains",
            "--levels",
            "zone,rack",
            "--level",
            flag,
            "--k",
            "3",
            "--nodes",
            &nodes,
            "--domains",
            &domains,
            "--json",
        ];
        args.extend(keys.iter().map(String::as_str));
        let out = hrwhash(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = library(level);
        for (item, key) in v.as_array().unwrap().iter().zip(&keys) {
            let want: Vec<&str> = d
                .replica_indices(key, 3)
                .unwrap()
                .iter()
                .map(|&i| IDS[i])
                .collect();
            assert_eq!(item["key"], key.as_str());
            assert_eq!(item["owner"], want[0]);
            assert_eq!(item["replicas"], serde_json::json!(want));
        }
    }
}

#[test]
fn bad_policy_inputs_are_typed_errors_before_any_output() {
    for (args, variant) in [
        (vec!["--domains", "z1,z2", "--level", "1"], "InvalidDomains"),
        (vec!["--domains", "z1,"], "InvalidDomains"),
        (vec!["--domains", "z1/r,z2"], "InvalidDomains"),
        (vec![], "InvalidDomains"),
        (vec!["--domains", "z1"], "LengthMismatch"),
        (
            vec!["--domains", "z1,z2", "--k", "0"],
            "InvalidReplicaCount",
        ),
        (
            vec!["--domains", "z1,z2", "--k", "3"],
            "InvalidReplicaCount",
        ),
        (vec!["--domains", "z1,z2", "--level", "-1"], "InvalidCount"),
        (
            vec!["--domains", "z1,z2", "--level", "rack"],
            "InvalidArgument",
        ),
    ] {
        let mut all = vec!["place", "--policy", "domains", "--nodes", "a,b", "--json"];
        all.extend(args.iter());
        all.push("user:42");
        let out = hrwhash(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(out.stdout.is_empty(), "{all:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("error[{variant}]")), "{all:?}: {err}");
    }
    let out = hrwhash(&["place", "--policy", "crush", "--nodes", "a", "k"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn simulate_domains_moves_only_the_keys_with_a_replica_in_the_removed_rack() {
    let out = hrwhash(&[
        "simulate-domains",
        "--fleet",
        "2x3x2",
        "--keys",
        "2000",
        "--k",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 12);
    assert_eq!(v["domains"], 6);
    let d = &v["domains_v1"];
    assert_eq!(d["moved"], d["with_a_replica_there"]);
    assert!(d["moved"].as_u64().unwrap() > 0);
    assert_eq!(d["spread"], 1.0);
}

/// `place --strict`: the library's `replicas_strict` for a node file's failure domains, or
/// `error[InvalidReplicaCount]` before any output when too few domains hold a node.
#[test]
fn place_strict_spreads_or_refuses() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("place-strict");
    std::fs::create_dir_all(&dir).unwrap();
    // Zone c is lost: two zones are left.
    let file = dir.join("nodes.txt");
    std::fs::write(&file, "a1,1,a\na2,1,a\nb1,1,b\nb2,1,b\nc1,0,c\n").unwrap();
    let nodes = [("a1", "a"), ("a2", "a"), ("b1", "b"), ("b2", "b")]
        .map(|(id, d)| Node::new(id).with_domain(d));
    let lib = Placement::from_nodes(
        hrwhash::Seed::DEFAULT,
        nodes.into_iter().chain([Node::new("c1")
            .with_domain("c")
            .with_weight(hrwhash::Weight::ZERO)]),
    )
    .unwrap();
    let keys: Vec<String> = (0..50).map(|i| format!("key-{i}")).collect();
    let file = file.to_str().unwrap();
    let mut args = vec!["place", "--nodes-file", file, "--strict", "--k", "2"];
    args.extend(keys.iter().map(String::as_str));
    let out = hrwhash(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for (line, key) in text.lines().zip(&keys) {
        let want: Vec<String> = lib
            .replicas_strict(key, 2)
            .unwrap()
            .iter()
            .map(|n| String::from_utf8(n.id().to_vec()).unwrap())
            .collect();
        assert_eq!(line, format!("{key}\t{}", want.join(",")));
    }
    assert_eq!(text.lines().count(), keys.len());
    let out = hrwhash(&[
        "place",
        "--nodes-file",
        file,
        "--strict",
        "--k",
        "3",
        "key-0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error[InvalidReplicaCount]"), "{err}");
}
