//! Runs the `hrwhash` binary and checks its answers against the `hrwhash` library.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};

use hrwhash::v1::key_digest;
use hrwhash::{Node, Placement, Seed, Weight};
use serde_json::Value;

mod common;
use common::{hrwhash, hrwhash_with_stdin, json, ok, scratch};

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn numbered(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("node-{i}")).collect()
}

// ---- simulate ---------------------------------------------------------------------------

#[test]
fn simulate_default_meets_the_hrw_promises() {
    let doc = json(&["simulate", "--json"]);
    assert_eq!(doc["algorithm"], "hrw-v1");
    assert_eq!(u(&doc["keys"]), 100_000);

    let add = &doc["add"];
    assert_eq!((u(&add["nodes_before"]), u(&add["nodes_after"])), (5, 6));
    let moved = f(&add["hrw"]["moved_percent"]);
    assert!((16.17..=17.17).contains(&moved), "5 -> 6 moved {moved}%");
    assert!((f(&add["optimum_percent"]) - 100.0 / 6.0).abs() < 1e-9);
    assert_eq!(u(&add["hrw"]["moved_to_old_node"]), 0);
    // hash % N moves most keys, most of them between old nodes.
    assert!(f(&add["mod_n"]["moved_percent"]) > 50.0);
    assert!(u(&add["mod_n"]["moved_to_old_node"]) > 0);

    let remove = &doc["remove"];
    assert_eq!(u(&remove["hrw"]["unnecessary_moves"]), 0);
    assert!(u(&remove["mod_n"]["unnecessary_moves"]) > 0);
    // With no unnecessary moves, exactly the removed node's keys move.
    assert_eq!(
        u(&remove["hrw"]["moved_keys"]),
        u(&doc["balance"]["nodes"][0]["keys"])
    );

    let weighted = doc["weighted"]["nodes"].as_array().unwrap();
    assert_eq!(weighted.len(), 4);
    let mut total = 0;
    for (node, w) in weighted.iter().zip([1.0, 2.0, 3.0, 4.0]) {
        assert!((f(&node["intended_percent"]) - 10.0 * w).abs() < 1e-9);
        let measured = f(&node["share_percent"]);
        let relative = (measured - 10.0 * w) / (10.0 * w);
        assert!(relative.abs() < 0.01, "{node}");
        assert!((f(&node["relative_error_percent"]) - 100.0 * relative).abs() < 1e-9);
        total += u(&node["keys"]);
    }
    assert_eq!(total, 100_000);
    // The 1% bound is about 1.6 standard deviations for the 20% node at 100,000 keys; the
    // chi-square test is the check that does not depend on that margin.
    assert!(f(&doc["weighted"]["chi_square"]["p_value"]) > 0.001);

    let balance = &doc["balance"];
    let counts: Vec<u64> = balance["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| u(&n["keys"]))
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 100_000);
    let ratio = *counts.iter().min().unwrap() as f64 / *counts.iter().max().unwrap() as f64;
    assert!((f(&balance["min_max_ratio"]) - ratio).abs() < 1e-12);
    let expected = 20_000.0;
    let chi: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    assert!((f(&balance["chi_square"]["statistic"]) - chi).abs() < 1e-9);
    assert_eq!(u(&balance["chi_square"]["degrees_of_freedom"]), 4);
    assert!(f(&balance["chi_square"]["p_value"]) > 0.001);
}

#[test]
fn simulate_counts_match_the_library() {
    let doc = json(&[
        "simulate", "--json", "--nodes", "7", "--keys", "20000", "--add", "2", "--remove", "3",
    ]);
    let seed = Seed::DEFAULT;
    let base = Placement::new(numbered(7)).unwrap();
    let grown = Placement::new(numbered(9)).unwrap();
    let shrunk = Placement::new(&numbered(7)[3..]).unwrap();
    let (mut counts, mut add_moved, mut remove_moved, mut remove_unneeded) =
        (vec![0u64; 7], 0, 0, 0);
    let (mut mod_add_moved, mut mod_add_old, mut mod_remove_unneeded) = (0, 0, 0);
    for i in 0..20000 {
        let key = format!("key-{i}");
        let owner = base.owner(&key).id();
        counts[base.owner_index(&key)] += 1;
        add_moved += u64::from(grown.owner(&key).id() != owner);
        if shrunk.owner(&key).id() != owner {
            remove_moved += 1;
            remove_unneeded += u64::from(shrunk.find(owner).is_some());
        }
        let d = key_digest(&seed, key.as_bytes());
        let (before, after) = (d % 7, d % 9);
        if before != after {
            mod_add_moved += 1;
            mod_add_old += u64::from(after < 7);
        }
        let after_remove = 3 + d % 4;
        mod_remove_unneeded += u64::from(before >= 3 && before != after_remove);
    }
    for (i, c) in counts.iter().enumerate() {
        assert_eq!(u(&doc["balance"]["nodes"][i]["keys"]), *c);
    }
    assert_eq!(u(&doc["add"]["hrw"]["moved_keys"]), add_moved);
    assert_eq!(u(&doc["add"]["mod_n"]["moved_keys"]), mod_add_moved);
    assert_eq!(u(&doc["add"]["mod_n"]["moved_to_old_node"]), mod_add_old);
    assert_eq!(u(&doc["remove"]["hrw"]["moved_keys"]), remove_moved);
    assert_eq!(remove_unneeded, 0);
    assert_eq!(u(&doc["remove"]["hrw"]["unnecessary_moves"]), 0);
    assert_eq!(
        u(&doc["remove"]["mod_n"]["unnecessary_moves"]),
        mod_remove_unneeded
    );
    assert_eq!(doc["add"]["added"], serde_json::json!(["node-7", "node-8"]));
    assert_eq!(
        doc["remove"]["removed"],
        serde_json::json!(["node-0", "node-1", "node-2"])
    );
}

#[test]
fn simulate_text_shows_the_json_numbers() {
    let doc = json(&["simulate", "--json"]);
    let text = ok(&["simulate"]);
    for (section, name) in [
        ("add", "hrw"),
        ("add", "mod_n"),
        ("remove", "hrw"),
        ("remove", "mod_n"),
    ] {
        let moved = format!("{:.2}%", f(&doc[section][name]["moved_percent"]));
        assert!(
            text.contains(&moved),
            "{section}/{name} {moved} not in:\n{text}"
        );
    }
    assert!(text.contains("16.67%"));
    for node in doc["weighted"]["nodes"].as_array().unwrap() {
        let share = format!("{:.2}%", f(&node["share_percent"]));
        assert!(text.contains(&share), "{share} not in:\n{text}");
    }
}

#[test]
fn simulate_honours_seed_and_zero_weights() {
    let seed = "000102030405060708090a0b0c0d0e0f";
    let doc = json(&[
        "simulate",
        "--json",
        "--keys",
        "5000",
        "--seed",
        seed,
        "--weights",
        "1,0,2",
    ]);
    assert_eq!(doc["seed"], seed);
    let fleet = Placement::from_nodes(
        Seed::from_bytes(core::array::from_fn(|i| i as u8)),
        vec![
            Node::new("node-0"),
            Node::new("node-1").with_weight(Weight::ZERO),
            Node::new("node-2").with_weight(Weight::new(2.0).unwrap()),
        ],
    )
    .unwrap();
    let mut counts = [0u64; 3];
    for i in 0..5000 {
        counts[fleet.owner_index(format!("key-{i}"))] += 1;
    }
    let nodes = doc["weighted"]["nodes"].as_array().unwrap();
    for (node, c) in nodes.iter().zip(counts) {
        assert_eq!(u(&node["keys"]), c);
    }
    assert_eq!(counts[1], 0);
    assert!(nodes[1]["relative_error_percent"].is_null());
    assert_eq!(u(&doc["weighted"]["chi_square"]["degrees_of_freedom"]), 1);
}

// ---- place -------------------------------------------------------------------------------

#[test]
fn place_agrees_with_the_library() {
    let keys = [
        "user:1",
        "user:2",
        "",
        "session:ÿ",
        "a longer key with spaces",
    ];
    let seed_hex = "ffeeddccbbaa99887766554433221100";
    let seed = Seed::from_bytes(core::array::from_fn(|i| 0xff - 0x11 * i as u8));
    let nodes = ["alpha", "beta", "gamma", "delta"];
    let weights = [1.0, 2.5, 0.0, 4.0];
    let library = Placement::from_nodes(
        seed,
        nodes
            .iter()
            .zip(weights)
            .map(|(id, w)| Node::new(id).with_weight(Weight::new(w).unwrap())),
    )
    .unwrap();

    let mut args = vec![
        "place",
        "--nodes",
        "alpha,beta,gamma,delta",
        "--weights",
        "1,2.5,0,4",
        "--seed",
        seed_hex,
    ];
    args.extend(keys);
    let text = ok(&args);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), keys.len());
    for (line, key) in lines.iter().zip(keys) {
        let owner = std::str::from_utf8(library.owner(key).id()).unwrap();
        assert_eq!(*line, format!("{key}\t{owner}"));
    }

    args.extend(["--json", "--k", "3"]);
    let doc = json(&args);
    for (item, key) in doc.as_array().unwrap().iter().zip(keys) {
        assert_eq!(item["key"], key);
        assert_eq!(
            item["owner"].as_str().unwrap().as_bytes(),
            library.owner(key).id()
        );
        let rank: Vec<&[u8]> = library.rank(key, 3).iter().map(|n| n.id()).collect();
        let printed: Vec<&[u8]> = item["rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().as_bytes())
            .collect();
        assert_eq!(printed, rank);
        // The drained node is never ranked.
        assert!(!printed.contains(&&b"gamma"[..]));
    }
}

#[test]
fn place_reads_stdin_when_no_key_is_given() {
    let library = Placement::new(["a", "b", "c"]).unwrap();
    let out = hrwhash_with_stdin(&["place", "--nodes", "a,b,c"], b"k1\nk2\r\n\nk3");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let expected: String = ["k1", "k2", "k3"]
        .iter()
        .map(|k| {
            format!(
                "{k}\t{}\n",
                std::str::from_utf8(library.owner(k).id()).unwrap()
            )
        })
        .collect();
    assert_eq!(text, expected);

    let out = hrwhash_with_stdin(&["place", "--nodes", "a,b,c", "--json"], b"");
    assert!(out.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::json!([])
    );
}

#[cfg(unix)]
#[test]
fn place_uses_the_exact_bytes_of_a_key() {
    use std::os::unix::ffi::OsStrExt;
    let key: &[u8] = b"\xff\xfe not utf-8";
    let library = Placement::new(numbered(16)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args(["place", "--nodes", &numbered(16).join(",")])
        .arg(std::ffi::OsStr::from_bytes(key))
        .output()
        .unwrap();
    assert!(out.status.success());
    let owner = String::from_utf8(out.stdout).unwrap();
    let owner = owner.trim_end().rsplit('\t').next().unwrap().to_string();
    assert_eq!(owner.as_bytes(), library.owner(key).id());
}

// ---- diff and plan -----------------------------------------------------------------------

struct Change {
    name: &'static str,
    from: &'static str,
    to: &'static str,
}

const CHANGES: &[Change] = &[
    Change {
        name: "add",
        from: "a\nb\nc\nd\ne\n",
        to: "a\nb\nc\nd\ne\nf\n",
    },
    Change {
        name: "remove",
        from: "a\nb\nc\nd\ne\n",
        to: "a\nb\nd\ne\n",
    },
    Change {
        name: "reweight",
        from: "a,1\nb,1\nc,1\n",
        to: "a,3\nb,1\nc,0.5\n",
    },
    Change {
        name: "mixed",
        from: "# racks\na,1,r1\nb,2,r1\nc,1,r2\n",
        to: "b,2,r1\n\nc,0,r2\nd,1.5,r3\ne,1,r3\n",
    },
];

/// Parses a node file the way the README documents it, independently of the binary.
fn library_placement(text: &str) -> Placement {
    let nodes: Vec<_> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            let mut node = Node::new(fields[0]);
            if let Some(w) = fields.get(1) {
                node = node.with_weight(Weight::new(w.parse().unwrap()).unwrap());
            }
            if let Some(d) = fields.get(2) {
                node = node.with_domain(d);
            }
            node
        })
        .collect();
    Placement::from_nodes(Seed::DEFAULT, nodes).unwrap()
}

/// (key, old owner, new owner) for every key whose owner changes.
fn library_moves(from: &str, to: &str, keys: &[String]) -> BTreeSet<(String, String, String)> {
    let (from, to) = (library_placement(from), library_placement(to));
    let id = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    keys.iter()
        .filter(|k| from.owner(k).id() != to.owner(k).id())
        .map(|k| (k.clone(), id(from.owner(k).id()), id(to.owner(k).id())))
        .collect()
}

#[test]
fn diff_and_plan_move_exactly_the_keys_whose_owner_changes() {
    let keys: Vec<String> = (0..3000).map(|i| format!("key-{i}")).collect();
    for change in CHANGES {
        let dir = scratch(change.name);
        let from = write(&dir, "from.txt", change.from);
        let to = write(&dir, "to.txt", change.to);
        let expected = library_moves(change.from, change.to, &keys);

        let diff = json(&[
            "diff", "--from", &from, "--to", &to, "--keys", "3000", "--json",
        ]);
        assert_eq!(u(&diff["keys"]), 3000);
        assert_eq!(
            u(&diff["moved_keys"]),
            expected.len() as u64,
            "{}",
            change.name
        );
        let flows = diff["flows"].as_array().unwrap();
        assert_eq!(
            flows.iter().map(|fl| u(&fl["count"])).sum::<u64>(),
            expected.len() as u64
        );
        let mut by_flow: BTreeMap<(String, String), u64> = BTreeMap::new();
        for (_, a, b) in &expected {
            *by_flow.entry((a.clone(), b.clone())).or_default() += 1;
        }
        for fl in flows {
            let pair = (
                fl["from"].as_str().unwrap().to_string(),
                fl["to"].as_str().unwrap().to_string(),
            );
            assert_eq!(
                by_flow.get(&pair),
                Some(&u(&fl["count"])),
                "{} {pair:?}",
                change.name
            );
        }
        assert_eq!(flows.len(), by_flow.len());
        let nodes = diff["nodes"].as_array().unwrap();
        let before: u64 = nodes.iter().filter_map(|n| n["before"].as_u64()).sum();
        let after: u64 = nodes.iter().filter_map(|n| n["after"].as_u64()).sum();
        assert_eq!((before, after), (3000, 3000));

        let plan = json(&[
            "plan", "--from", &from, "--to", &to, "--keys", "3000", "--json",
        ]);
        // One move per key, in input order.
        let mut planned = BTreeSet::new();
        let mut order = Vec::new();
        for m in plan["moves"].as_array().unwrap() {
            let entry = (
                m["key"].as_str().unwrap().to_string(),
                m["from"].as_str().unwrap().to_string(),
                m["to"].as_str().unwrap().to_string(),
            );
            order.push(keys.iter().position(|k| *k == entry.0).unwrap());
            assert!(planned.insert(entry), "key planned twice");
        }
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "moves out of input order"
        );
        assert_eq!(planned, expected, "{}", change.name);
        assert_eq!(u(&plan["moved_keys"]), expected.len() as u64);
        assert_eq!(u(&plan["keys"]), 3000);

        let summary = json(&[
            "plan",
            "--from",
            &from,
            "--to",
            &to,
            "--keys",
            "3000",
            "--json",
            "--summary",
        ]);
        assert_eq!(summary["flows"], diff["flows"]);
        assert!(summary.get("moves").is_none());

        // Text: a comment line, then `key<TAB>from<TAB>to` per moved key, then the totals.
        let text = ok(&["plan", "--from", &from, "--to", &to, "--keys", "3000"]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("# hrwhash plan"));
        assert_eq!(
            lines.last().unwrap(),
            &format!(
                "# copy {} of 3000 keys ({:.2}%) to their new owner before switching",
                expected.len(),
                100.0 * expected.len() as f64 / 3000.0
            )
        );
        let listed: BTreeSet<(String, String, String)> = lines[1..lines.len() - 1]
            .iter()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 3, "{l}");
                (f[0].to_string(), f[1].to_string(), f[2].to_string())
            })
            .collect();
        assert_eq!(listed, expected);
    }
}

#[test]
fn diff_reports_the_optimum_and_reads_keys_from_a_file() {
    let dir = scratch("optimum");
    let from = write(&dir, "from.txt", "a\nb\nc\nd\ne\n");
    let to = write(&dir, "to.txt", "a\nb\nc\nd\ne\nf\n");
    let doc = json(&["diff", "--from", &from, "--to", &to, "--json"]);
    assert!((f(&doc["optimum_percent"]) - 100.0 / 6.0).abs() < 1e-9);
    assert!((16.17..=17.17).contains(&f(&doc["moved_percent"])));
    // Every flow of an addition ends on the new node.
    for fl in doc["flows"].as_array().unwrap() {
        assert_eq!(fl["to"], "f");
    }

    let keys: Vec<String> = vec!["x".into(), "y".into(), "zz".into(), "user:7".into()];
    let keys_file = write(&dir, "keys.txt", &(keys.join("\n") + "\n"));
    let doc = json(&[
        "diff",
        "--from",
        &from,
        "--to",
        &to,
        "--keys-from",
        &keys_file,
        "--json",
    ]);
    assert_eq!(u(&doc["keys"]), 4);
    let expected = library_moves("a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne\nf\n", &keys);
    assert_eq!(u(&doc["moved_keys"]), expected.len() as u64);
}

// ---- errors ------------------------------------------------------------------------------

#[test]
fn every_bad_input_is_a_clear_error_not_a_panic() {
    let dir = scratch("errors");
    let good = write(&dir, "good.txt", "a\nb\n");
    let dup = write(&dir, "dup.txt", "a\nb\n# comment\na\n");
    let bad_weight = write(&dir, "bad-weight.txt", "a,1\nb,heavy\n");
    let negative = write(&dir, "negative.txt", "a,1\nb,-2\n");
    let zeros = write(&dir, "zeros.txt", "a,0\nb,0\n");
    let fields = write(&dir, "fields.txt", "a,1,r1,extra\n");
    let empty = write(&dir, "empty.txt", "# nothing\n\n");
    let empty_id = write(&dir, "empty-id.txt", "a\n,2\n");
    let missing = dir.join("missing.txt").to_str().unwrap().to_string();
    let a_dir = dir.to_str().unwrap().to_string();

    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        // Usage errors: exit 2.
        (vec![], 2, "Usage"),
        (vec!["frobnicate"], 2, "unrecognized subcommand"),
        (vec!["place", "k"], 2, "--nodes"),
        (
            vec!["place", "--nodes", "", "k"],
            2,
            "error[EmptyMembership]: no nodes given",
        ),
        (
            vec!["place", "--nodes", "a,b,a", "k"],
            2,
            "error[DuplicateNodeId]: --nodes index 2: node id 'a' is already the id at --nodes index 0",
        ),
        (
            vec!["place", "--nodes", "a,,b", "k"],
            2,
            "error[EmptyNodeId]: --nodes index 1: node id is empty",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "1,x", "k"],
            2,
            "error[InvalidArgument]: --weights index 1: 'x' is not a number",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "1", "k"],
            2,
            "error[LengthMismatch]: --weights has 1 items but --nodes has 2",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "-1,1", "k"],
            2,
            "error[InvalidWeight]: --weights index 0: weight -1 is negative",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "1,inf", "k"],
            2,
            "--weights index 1: weight inf is infinite",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "1,NaN", "k"],
            2,
            "--weights index 1: weight NaN is not a number",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "1,5e9", "k"],
            2,
            "--weights index 1: weight 5e9 is 2^32 (4294967296) or more",
        ),
        (
            vec!["place", "--nodes", "a,b", "--weights", "0,0", "k"],
            2,
            "error[AllWeightsZero]: every node has weight 0",
        ),
        (
            vec!["place", "--nodes", "a", "--seed", "abc", "k"],
            2,
            "error[InvalidArgument]: --seed: 'abc' has an odd number of hex digits",
        ),
        (
            vec!["place", "--nodes", "a", "--seed", "zz", "k"],
            2,
            "not hexadecimal",
        ),
        (
            vec!["place", "--nodes", "a", "--seed", "0011", "k"],
            2,
            "error[InvalidSeedLength]: --seed is 2 bytes (4 hex digits), not 16",
        ),
        (
            vec!["place", "--nodes", "a", "--k", "-1", "k"],
            2,
            "error[InvalidCount]: --k -1 is negative",
        ),
        (
            vec!["place", "--nodes", "a", "--k", "two", "k"],
            2,
            "error[InvalidArgument]: --k 'two' is not a number",
        ),
        (
            vec!["simulate", "--nodes", "0"],
            2,
            "error[EmptyMembership]: --nodes 0 gives no node",
        ),
        (
            vec!["simulate", "--nodes", "x"],
            2,
            "error[InvalidArgument]: --nodes 'x' is not a number",
        ),
        (
            vec!["simulate", "--keys", "0"],
            2,
            "--keys 0 gives no keys",
        ),
        (vec!["simulate", "--remove", "5"], 2, "would leave no node"),
        (
            vec!["simulate", "--nodes", "100001"],
            2,
            "error[ResultTooLarge]: --nodes 100001 plus --add 1 is more than the 100000 nodes",
        ),
        (
            vec!["simulate", "--weights", "1,-3"],
            2,
            "error[InvalidWeight]: --weights index 1: weight -3 is negative",
        ),
        (
            vec!["simulate", "--weights", "0,0"],
            2,
            "every node has weight 0",
        ),
        (
            vec!["simulate", "--seed", "00112233"],
            2,
            "error[InvalidSeedLength]: --seed is 4 bytes",
        ),
        (
            vec!["diff", "--from", &good, "--to", &good, "--keys", "0"],
            2,
            "--keys 0 gives no keys",
        ),
        (
            vec![
                "plan",
                "--from",
                &good,
                "--to",
                &good,
                "--keys",
                "3",
                "--keys-from",
                &good,
            ],
            2,
            "cannot be used with",
        ),
        // Input errors: exit 1.
        (
            vec!["diff", "--from", &missing, "--to", &good],
            1,
            "cannot read",
        ),
        (
            vec!["diff", "--from", &good, "--to", &a_dir],
            1,
            "cannot read",
        ),
        (
            vec!["plan", "--from", &dup, "--to", &good],
            1,
            "error[DuplicateNodeId]: ",
        ),
        (
            vec!["plan", "--from", &dup, "--to", &good],
            1,
            "dup.txt line 4: node id 'a' is already the id at ",
        ),
        (
            vec!["diff", "--from", &good, "--to", &bad_weight],
            1,
            "error[InvalidArgument]: ",
        ),
        (
            vec!["diff", "--from", &good, "--to", &bad_weight],
            1,
            "bad-weight.txt line 2: 'heavy' is not a number",
        ),
        (
            vec!["diff", "--from", &good, "--to", &negative],
            1,
            "negative.txt line 2: weight -2 is negative",
        ),
        (
            vec!["diff", "--from", &zeros, "--to", &good],
            1,
            "error[AllWeightsZero]: ",
        ),
        (
            vec!["diff", "--from", &zeros, "--to", &good],
            1,
            "zeros.txt: every node has weight 0",
        ),
        (
            vec!["diff", "--from", &good, "--to", &fields],
            1,
            "expected id[,weight[,domain]], found 4 fields",
        ),
        (
            vec!["diff", "--from", &empty, "--to", &good],
            1,
            "error[EmptyMembership]: ",
        ),
        (
            vec!["diff", "--from", &empty, "--to", &good],
            1,
            "empty.txt: no nodes in the file",
        ),
        (
            vec!["diff", "--from", &empty_id, "--to", &good],
            1,
            "error[EmptyNodeId]: ",
        ),
        (
            vec!["diff", "--from", &empty_id, "--to", &good],
            1,
            "empty-id.txt line 2: node id is empty",
        ),
        (
            vec![
                "plan",
                "--from",
                &good,
                "--to",
                &good,
                "--keys-from",
                &missing,
            ],
            1,
            "cannot read",
        ),
    ];
    for (args, code, message) in cases {
        let out = hrwhash(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.contains(message),
            "{args:?}: expected {message:?} in {stderr:?}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a result");
    }
}

/// A reader that goes away early took all it wanted, as with `hrwhash plan ... | head -1`: the
/// plan of 100,000 keys is far more than a pipe buffer holds, so the writer is still writing when
/// the pipe closes, and it ends quietly with status 0, as ripgrep and b3sum do. A standard output
/// that was closed before the start is an error: nothing could ever have been read.
#[test]
fn a_closed_pipe_ends_quietly_and_a_closed_stdout_is_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args([
            "plan",
            "--from",
            "testdata/nodes-old.txt",
            "--to",
            "testdata/nodes-new.txt",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");

    // Through a shell pipe, as a user types it; `pipefail` makes the status hrwhash's own.
    let out = Command::new("bash")
        .args([
            "-c",
            concat!(
                "set -o pipefail; ",
                env!("CARGO_BIN_EXE_hrwhash"),
                " plan --from testdata/nodes-old.txt --to testdata/nodes-new.txt | head -1"
            ),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "# hrwhash plan (hrw-v1): key, node to copy it from, node to copy it to\n"
    );

    // `>&-` closes descriptor 1 before the program starts.
    let out = Command::new("sh")
        .args([
            "-c",
            concat!(env!("CARGO_BIN_EXE_hrwhash"), " place --nodes a,b key >&-"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "hrwhash: error: cannot write output: standard output is closed\n"
    );

    // Output that goes to /dev/null on purpose is fine.
    let out = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args(["place", "--nodes", "a,b", "key"])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---- README ------------------------------------------------------------------------------

/// Every `$ ...` line of a `console` block in README.md runs (from `cli/`, through `sh`, with
/// this build's `hrwhash` first on PATH) and prints exactly the lines shown under it, if any.
#[test]
fn readme_examples_run() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(Path::new(dir).join("README.md")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_hrwhash")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let mut examples: Vec<(String, String)> = Vec::new();
    let mut in_console = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_console = line == "```console";
        } else if !in_console {
        } else if let Some(command) = line.strip_prefix("$ ") {
            examples.push((command.to_string(), String::new()));
        } else if let Some((_, shown)) = examples.last_mut() {
            shown.push_str(line);
            shown.push('\n');
        }
    }
    assert!(examples.len() >= 8, "README lost its examples");
    for (command, shown) in examples {
        let out = Command::new("sh")
            .args(["-c", &command])
            .current_dir(dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success() && !out.stdout.is_empty(),
            "README example failed: {command}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if !shown.is_empty() {
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                shown,
                "README output of: {command}"
            );
        }
    }
}

// ---- conformance vectors -----------------------------------------------------------------

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// `place` reproduces the owner and rank of every vector case a command line can express: node ids
/// that are UTF-8 without commas or NUL (`--nodes` is comma-separated text in a C string), keys
/// without a newline or a trailing `\r` (stdin is line-based; the empty key goes as an argument).
#[test]
fn place_matches_the_conformance_vectors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors.json");
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    let mut checked = 0;
    'cases: for case in cases {
        let mut ids = Vec::new();
        let mut weights = Vec::new();
        if let Some(nodes) = case["nodes"].as_array() {
            for node in nodes {
                // `--nodes` items lose the ASCII whitespace around them.
                match String::from_utf8(unhex(node["id"].as_str().unwrap())) {
                    Ok(id) if !id.contains([',', '\0']) && id.trim_ascii() == id => ids.push(id),
                    _ => continue 'cases,
                }
                weights.push(node["weight"].as_f64().unwrap_or(1.0));
            }
        } else {
            let Ok(prefix) = String::from_utf8(unhex(case["node_prefix"].as_str().unwrap())) else {
                continue;
            };
            let cycle: Vec<f64> = case["weight_cycle"]
                .as_array()
                .map_or(vec![1.0], |c| c.iter().map(f).collect());
            for i in 0..u(&case["node_count"]) as usize {
                ids.push(format!("{prefix}{i}"));
                weights.push(cycle[i % cycle.len()]);
            }
        }
        if ids.iter().any(|id| id.contains([',', '\0'])) {
            continue;
        }
        let key = unhex(case["key"].as_str().unwrap());
        if key.contains(&b'\n') || key.ends_with(b"\r") {
            continue;
        }
        let nodes = ids.join(",");
        let weights: Vec<String> = weights.iter().map(|w| format!("{w:?}")).collect();
        let weights = weights.join(",");
        let k = u(&case["k"]).to_string();
        let seed = case["seed"]
            .as_str()
            .unwrap_or(vectors["default_seed"].as_str().unwrap());
        let mut args = vec![
            "place",
            "--json",
            "--nodes",
            &nodes,
            "--weights",
            &weights,
            "--seed",
            seed,
            "--k",
            &k,
        ];
        let out = if key.is_empty() {
            args.push("");
            hrwhash(&args)
        } else {
            let mut line = key.clone();
            line.push(b'\n');
            hrwhash_with_stdin(&args, &line)
        };
        let name = case["name"].as_str().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let printed: Vec<&str> = doc[0]["rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let expected: Vec<&str> = case["expected"]["rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| ids[u(i) as usize].as_str())
            .collect();
        assert_eq!(printed, expected, "{name}");
        assert_eq!(
            doc[0]["owner"],
            ids[u(&case["expected"]["owner"]) as usize],
            "{name}"
        );
        checked += 1;
    }
    // Most cases are expressible; a drop means the filter above went wrong.
    assert!(
        checked * 10 >= cases.len() * 8,
        "only {checked} of {} cases checked",
        cases.len()
    );
}

#[test]
fn root_readme_commands_run() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let prefix = "cargo run --release -p hrwhash-cli -- ";
    let commands: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .collect();
    assert!(
        commands.len() >= 2,
        "the README lost its command-line examples"
    );
    for args in commands {
        let out = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{args} printed nothing");
    }
}
