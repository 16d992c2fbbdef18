//! `place --profile` and `diff --from-profile` against the recorded vectors and the core.

use hrwhash::{Node, Placement, Transition};
use hrwhash_compat::{Profile, ProfilePlacement};
use serde_json::Value;

mod common;
use common::{hrwhash_with_stdin, scratch};

fn json(args: &[&str], stdin: &[u8]) -> Value {
    let out = hrwhash_with_stdin(args, stdin);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn text_or_hex(v: &Value, name: &str) -> Vec<u8> {
    match v.get(name) {
        Some(t) => t.as_str().unwrap().as_bytes().to_vec(),
        None => unhex(v[format!("{name}_hex")].as_str().unwrap()),
    }
}

#[test]
fn place_answers_every_recorded_lookup() {
    for profile in Profile::ALL {
        let path = format!(
            "{}/../conformance/profiles/{}.json",
            env!("CARGO_MANIFEST_DIR"),
            profile.name()
        );
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in doc["cases"].as_array().unwrap() {
            let nodes = case["nodes"].as_array().unwrap();
            // --nodes is comma-separated text: cases whose ids cannot be written so are run
            // through the library's own tests instead.
            let ids: Option<Vec<&str>> = nodes.iter().map(|n| n["id"].as_str()).collect();
            let Some(ids) = ids.filter(|ids| ids.iter().all(|id| !id.contains(','))) else {
                continue;
            };
            let lookups = case["lookups"].as_array().unwrap();
            // Keys go one per line on stdin (empty lines skipped), so the empty key and keys
            // holding a line break are left to the library's tests.
            let keys: Vec<Vec<u8>> = lookups.iter().map(|l| text_or_hex(l, "key")).collect();
            let usable: Vec<usize> = (0..keys.len())
                .filter(|&i| {
                    !keys[i].is_empty() && !keys[i].contains(&b'\n') && !keys[i].contains(&b'\r')
                })
                .collect();
            let mut stdin = Vec::new();
            for &i in &usable {
                stdin.extend_from_slice(&keys[i]);
                stdin.push(b'\n');
            }
            let weights: Vec<String> = nodes
                .iter()
                .map(|n| n.get("weight").map_or("1".into(), |w| w.to_string()))
                .collect();
            let (joined, w) = (ids.join(","), weights.join(","));
            let mut args = vec![
                "place",
                "--json",
                "--profile",
                profile.name(),
                "--nodes",
                &joined,
            ];
            if profile.offers_weights() {
                args.extend(["--weights", &w]);
            }
            let got = json(&args, &stdin);
            let got = got.as_array().unwrap();
            assert_eq!(got.len(), usable.len());
            for (g, &i) in got.iter().zip(&usable) {
                assert_eq!(text_or_hex(g, "key"), keys[i]);
                assert_eq!(
                    text_or_hex(g, "owner"),
                    text_or_hex(&lookups[i], "owner"),
                    "{profile} key {}",
                    lookups[i]
                );
            }
            assert!(!usable.is_empty());
        }
    }
}

#[test]
fn place_prints_pymemcache_test_answers_and_hashring_ranges() {
    let out = hrwhash_with_stdin(
        &[
            "place",
            "--profile",
            "pymemcache-rendezvous",
            "--nodes",
            "0,1,2",
            "ok",
            "mykey",
            "wat",
        ],
        b"",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "ok\t0\nmykey\t1\nwat\t2\n"
    );
    let ids = ["a:1", "b:1", "c:1", "d:1"];
    let p = ProfilePlacement::new(Profile::HashringNode3, ids.map(Node::new)).unwrap();
    let got = json(
        &[
            "place",
            "--json",
            "--profile",
            "hashring-node-3",
            "--nodes",
            &ids.join(","),
            "--k",
            "3",
            "x",
            "y",
        ],
        b"",
    );
    for (g, key) in got.as_array().unwrap().iter().zip(["x", "y"]) {
        let want: Vec<&str> = p
            .replicas(key, 3)
            .unwrap()
            .iter()
            .map(|&i| ids[i])
            .collect();
        let rank: Vec<&str> = g["rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(rank, want);
    }
}

#[test]
fn bad_profile_input_is_a_named_error_with_its_exit_status() {
    let cases: [(&[&str], &str, i32); 5] = [
        (
            &["place", "--profile", "go-redis", "--nodes", "a", "k"],
            "UnknownProfile",
            2,
        ),
        (
            &[
                "place",
                "--profile",
                "go-redis-ring-v9",
                "--nodes",
                "a,b",
                "--weights",
                "1,2",
                "k",
            ],
            "NotOffered",
            2,
        ),
        (
            &[
                "place",
                "--profile",
                "pymemcache-rendezvous",
                "--nodes",
                "a,b",
                "--k",
                "2",
                "k",
            ],
            "NotOffered",
            2,
        ),
        (
            &[
                "place",
                "--profile",
                "ketama-libmemcached",
                "--nodes",
                "a,b",
                "--weights",
                "1,0.5",
                "k",
            ],
            "NotOffered",
            2,
        ),
        (
            &[
                "place",
                "--profile",
                "hashring-node-3",
                "--nodes",
                "a,a",
                "k",
            ],
            "DuplicateNodeId",
            2,
        ),
    ];
    for (args, variant, code) in cases {
        let out = hrwhash_with_stdin(args, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(
            err.contains(&format!("error[{variant}]")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    let dir = scratch("profiles");
    let nodes = dir.join("nodes.txt");
    std::fs::write(&nodes, "a,1,rack-1\nb\n").unwrap();
    let nodes = nodes.to_str().unwrap();
    let out = hrwhash_with_stdin(
        &[
            "diff",
            "--from-profile",
            "go-redis-ring-v9",
            "--nodes",
            nodes,
            "--to",
            nodes,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[NotOffered]"));
}

#[test]
fn diff_from_a_profile_counts_what_the_core_switch_counts() {
    let dir = scratch("switch");
    let old_ids = ["cache-a:11211", "cache-b:11211", "cache-c:11211"];
    let new_ids = [
        "cache-a:11211",
        "cache-b:11211",
        "cache-c:11211",
        "cache-d:11211",
    ];
    let (old, new) = (dir.join("old.txt"), dir.join("new.txt"));
    std::fs::write(&old, old_ids.join("\n")).unwrap();
    std::fs::write(&new, new_ids.join("\n")).unwrap();
    for profile in Profile::ALL {
        let args = [
            "diff",
            "--json",
            "--keys",
            "5000",
            "--from-profile",
            profile.name(),
            "--nodes",
            old.to_str().unwrap(),
            "--to",
            new.to_str().unwrap(),
        ];
        let got = json(&args, b"");
        let from = ProfilePlacement::new(profile, old_ids.map(Node::new)).unwrap();
        let s = Transition::between(from, Placement::new(new_ids).unwrap());
        let mut d = s.diff();
        d.add_many((0..5000).map(|i| format!("key-{i}")));
        assert_eq!(got["from"], profile.name());
        assert_eq!(got["to"], "hrw-v1");
        assert_eq!(got["moved_keys"], d.moved());
        let flows = got["flows"].as_array().unwrap();
        assert_eq!(flows.len(), d.flows().len());
        for (g, (from, to, count)) in flows.iter().zip(d.flows()) {
            assert_eq!(g["from"], old_ids[from]);
            assert_eq!(g["to"], new_ids[to]);
            assert_eq!(g["count"], count);
        }
        assert_eq!(
            flows
                .iter()
                .map(|f| f["count"].as_u64().unwrap())
                .sum::<u64>(),
            d.moved()
        );
        // And between two profiles: an incumbent growing by one node.
        let args = [
            "diff",
            "--json",
            "--keys",
            "5000",
            "--from-profile",
            profile.name(),
            "--nodes",
            old.to_str().unwrap(),
            "--to",
            new.to_str().unwrap(),
            "--to-profile",
            profile.name(),
        ];
        let got = json(&args, b"");
        let grown = Transition::between(
            ProfilePlacement::new(profile, old_ids.map(Node::new)).unwrap(),
            ProfilePlacement::new(profile, new_ids.map(Node::new)).unwrap(),
        );
        let mut d = grown.diff();
        d.add_many((0..5000).map(|i| format!("key-{i}")));
        assert_eq!(got["moved_keys"], d.moved());
        assert_eq!(got["to"], profile.name());
    }
}

/// `args` fail with `variant`: exit status 2 for a command-line value, 1 for a file's content.
fn fails_with(args: &[&str], variant: &str) {
    let out = hrwhash_with_stdin(args, b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let status = if args.iter().any(|a| a.ends_with("racked.txt")) {
        1
    } else {
        2
    };
    assert_eq!(out.status.code(), Some(status), "{args:?}: {stderr}");
    assert!(
        stderr.starts_with(&format!("hrwhash: error[{variant}]: ")),
        "{args:?}: {stderr}"
    );
    assert!(out.stdout.is_empty(), "{args:?}");
}

/// What a profile does not offer is `NotOffered`, never a silently different answer: a diff with
/// a profile compares owners, so `--k` other than 1 is refused (for every profile, also one
/// whose `place --k 2` works); `place --profile` with domains is refused as the libraries refuse
/// it; a node file with domains is refused by `diff --from-profile` as by `place`.
#[test]
fn what_a_profile_does_not_offer_is_not_offered() {
    let dir = scratch("offered");
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, "a:1\nb:1\nc:1\n").unwrap();
    let racked = dir.join("racked.txt");
    std::fs::write(&racked, "a:1,1,rack-1\nb:1,1,rack-2\n").unwrap();
    let plain: &'static str = plain.to_str().unwrap().to_string().leak();
    let racked: &'static str = racked.to_str().unwrap().to_string().leak();
    for profile in Profile::ALL {
        let name = profile.name();
        let diff = |extra: &[&'static str]| -> Vec<&'static str> {
            let mut args = vec!["diff", "--keys", "100", "--from-profile", name, "--nodes"];
            args.extend_from_slice(extra);
            args
        };
        // --k 1 is the owner diff itself: nothing moves when the incumbent keeps its nodes.
        let one = json(
            &[
                diff(&[plain, "--to", plain, "--json", "--to-profile", name]),
                vec!["--k", "1"],
            ]
            .concat(),
            b"",
        );
        assert_eq!(one["moved_keys"], 0, "{name}");
        for k in ["2", "3"] {
            fails_with(
                &[diff(&[plain, "--to", plain]), vec!["--k", k]].concat(),
                "NotOffered",
            );
            fails_with(
                &[
                    diff(&[plain, "--to", plain, "--to-profile", name]),
                    vec!["--k", k],
                ]
                .concat(),
                "NotOffered",
            );
        }
        fails_with(&diff(&[racked, "--to", plain]), "NotOffered");
        // Two profiles leave no side for a seed to place.
        let out = hrwhash_with_stdin(
            &diff(&[
                plain,
                "--to",
                plain,
                "--to-profile",
                name,
                "--seed",
                "00112233445566778899aabbccddeeff",
            ]),
            b"",
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("a profile takes no seed"));
        fails_with(
            &[
                "diff",
                "--from",
                plain,
                "--to",
                racked,
                "--to-profile",
                name,
            ],
            "NotOffered",
        );
        let place = ["place", "--profile", name, "--nodes", "a:1,b:1"];
        fails_with(
            &[&place[..], &["--policy", "domains", "k"]].concat(),
            "NotOffered",
        );
        fails_with(
            &[&place[..], &["--domains", "r1,r2", "k"]].concat(),
            "NotOffered",
        );
        fails_with(
            &["place", "--profile", name, "--nodes-file", racked, "k"],
            "NotOffered",
        );
    }
}
