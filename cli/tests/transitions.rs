//! `diff` and `plan` with `--k R`, `--plot` on `simulate` and `diff`, plans streamed through a
//! pipe, and progress bars that stay out of output that is not a terminal. Expected results come
//! from the library's replica sets (`Placement::replicas`, spread over the node files' failure
//! domains), not from `Transition`, which the command uses.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use hrwhash::{Node, Placement, Weight};
use serde_json::Value;

mod common;
use common::{hrwhash, json, ok, scratch};

const OLD: &str = "testdata/nodes-old.txt";
const NEW: &str = "testdata/nodes-new.txt";

/// A node file as its README section describes it: `id[,weight[,domain]]`, `#` comments.
fn placement(path: &str) -> Placement {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let nodes = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let mut n = Node::new(f[0]);
            if let Some(w) = f.get(1) {
                n = n.with_weight(Weight::new(w.parse().unwrap()).unwrap());
            }
            if let Some(d) = f.get(2) {
                n = n.with_domain(*d);
            }
            n
        });
    Placement::from_nodes(hrwhash::Seed::DEFAULT, nodes).unwrap()
}

fn ids(p: &Placement, key: &str, k: usize) -> Vec<String> {
    p.replicas(key, k)
        .iter()
        .map(|n| String::from_utf8(n.id().to_vec()).unwrap())
        .collect()
}

/// Per key whose set of first `k` replicas changes: (key, old first replica, added, dropped).
fn changes(keys: &[String], k: usize) -> Vec<(String, String, Vec<String>, Vec<String>)> {
    let (old, new) = (placement(OLD), placement(NEW));
    keys.iter()
        .filter_map(|key| {
            let (a, b) = (ids(&old, key, k), ids(&new, key, k));
            let add: Vec<String> = b.iter().filter(|id| !a.contains(id)).cloned().collect();
            let drop: Vec<String> = a.iter().filter(|id| !b.contains(id)).cloned().collect();
            (!add.is_empty() || !drop.is_empty()).then(|| (key.clone(), a[0].clone(), add, drop))
        })
        .collect()
}

fn generated(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key-{i}")).collect()
}

#[test]
fn diff_with_k_counts_replica_sets_as_replicas_gives_them() {
    let keys = generated(3000);
    let (old, new) = (placement(OLD), placement(NEW));
    // The node files name domains, so replica sets are not the top of the ranking for every key.
    let ranked = |p: &Placement, key: &str| -> Vec<String> {
        p.rank(key, 2)
            .iter()
            .map(|n| String::from_utf8(n.id().to_vec()).unwrap())
            .collect()
    };
    assert!(keys
        .iter()
        .any(|key| ids(&new, key, 2) != ranked(&new, key)));
    for k in [2usize, 3, 4, 7] {
        let doc = json(&[
            "diff",
            "--from",
            OLD,
            "--to",
            NEW,
            "--keys",
            "3000",
            "--k",
            &k.to_string(),
            "--json",
        ]);
        let changed = changes(&keys, k);
        assert_eq!(doc["keys"], 3000);
        assert_eq!(doc["k"], k);
        assert_eq!(doc["changed_keys"], changed.len(), "k = {k}");
        let (mut before, mut after) = (BTreeMap::new(), BTreeMap::new());
        let (mut added, mut dropped) = (
            BTreeMap::<String, u64>::new(),
            BTreeMap::<String, u64>::new(),
        );
        for key in &keys {
            ids(&old, key, k)
                .into_iter()
                .for_each(|id| *before.entry(id).or_insert(0u64) += 1);
            ids(&new, key, k)
                .into_iter()
                .for_each(|id| *after.entry(id).or_insert(0u64) += 1);
        }
        for (_, _, add, drop) in &changed {
            add.iter()
                .for_each(|id| *added.entry(id.clone()).or_default() += 1);
            drop.iter()
                .for_each(|id| *dropped.entry(id.clone()).or_default() += 1);
        }
        assert_eq!(doc["copies_added"], added.values().sum::<u64>());
        assert_eq!(doc["copies_dropped"], dropped.values().sum::<u64>());
        let rows = doc["nodes"].as_array().unwrap();
        assert_eq!(rows.len(), 4);
        for row in rows {
            let id = row["id"].as_str().unwrap();
            let count = |m: &BTreeMap<String, u64>| m.get(id).copied().unwrap_or(0);
            // cache-d is not in the old membership: its "before" is null, not 0.
            if id == "cache-d" {
                assert!(row["before"].is_null());
            } else {
                assert_eq!(row["before"], count(&before), "{id} k = {k}");
            }
            assert_eq!(row["after"], count(&after), "{id} k = {k}");
            assert_eq!(row["added"], count(&added), "{id} k = {k}");
            assert_eq!(row["dropped"], count(&dropped), "{id} k = {k}");
        }
    }
    // --k 1 is the owner diff.
    let plain = json(&[
        "diff", "--from", OLD, "--to", NEW, "--keys", "3000", "--json",
    ]);
    let one = json(&[
        "diff", "--from", OLD, "--to", NEW, "--keys", "3000", "--k", "1", "--json",
    ]);
    assert_eq!(plain, one);
    assert_eq!(plain["moved_keys"], changes(&keys, 1).len());
}

#[test]
fn plan_with_k_lists_each_changed_key_with_its_copies_in_input_order() {
    let dir = scratch("plan-k");
    // Input order that is not sorted order, with a repeated key and an empty line.
    let keys: Vec<String> = (0..1500).rev().map(|i| format!("user:{i}")).collect();
    let mut text = keys.join("\n");
    text.push_str("\n\nuser:7\n");
    let file = dir.join("keys.txt");
    std::fs::write(&file, &text).unwrap();
    let file = file.to_str().unwrap();
    let mut all = keys.clone();
    all.push("user:7".into());
    let expected = changes(&all, 2);
    assert!(expected.len() > 100);

    let doc = json(&[
        "plan",
        "--from",
        OLD,
        "--to",
        NEW,
        "--keys-from",
        file,
        "--k",
        "2",
        "--json",
    ]);
    let moves: Vec<(String, String, Vec<String>, Vec<String>)> = doc["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let list = |v: &Value| -> Vec<String> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect()
            };
            (
                m["key"].as_str().unwrap().to_string(),
                m["from"].as_str().unwrap().to_string(),
                list(&m["add"]),
                list(&m["drop"]),
            )
        })
        .collect();
    assert_eq!(moves, expected);
    assert_eq!(doc["keys"], all.len());
    assert_eq!(doc["changed_keys"], expected.len());

    let text = ok(&[
        "plan",
        "--from",
        OLD,
        "--to",
        NEW,
        "--keys-from",
        file,
        "--k",
        "2",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("# hrwhash plan (hrw-v1, 2 replicas)"));
    assert!(lines.last().unwrap().starts_with(&format!(
        "# {} of {} keys",
        expected.len(),
        all.len()
    )));
    let shown: Vec<String> = expected
        .iter()
        .map(|(key, from, add, drop)| {
            let list = |v: &[String]| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    v.join(",")
                }
            };
            format!("{key}\t{from}\t{}\t{}", list(add), list(drop))
        })
        .collect();
    assert_eq!(lines[1..lines.len() - 1], shown[..]);

    // The summary counts what the plan lists.
    let summary = json(&[
        "plan",
        "--from",
        OLD,
        "--to",
        NEW,
        "--keys-from",
        file,
        "--k",
        "2",
        "--json",
        "--summary",
    ]);
    assert_eq!(summary["changed_keys"], expected.len());
    let added: u64 = summary["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["added"].as_u64().unwrap())
        .sum();
    assert_eq!(
        added,
        expected.iter().map(|c| c.2.len() as u64).sum::<u64>()
    );
}

#[test]
fn a_bad_k_is_a_usage_error() {
    for (k, variant) in [
        ("-1", "InvalidCount"),
        ("1.5", "InvalidCount"),
        ("two", "InvalidArgument"),
    ] {
        for command in ["diff", "plan"] {
            let out = hrwhash(&[command, "--from", OLD, "--to", NEW, "--k", k]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} --k {k}: {stderr}");
            assert!(stderr.contains(&format!("error[{variant}]")), "{stderr}");
            assert!(out.stdout.is_empty());
        }
    }
    // k = 0 compares empty sets: nothing changes.
    let doc = json(&[
        "diff", "--from", OLD, "--to", NEW, "--keys", "100", "--k", "0", "--json",
    ]);
    assert_eq!(doc["changed_keys"], 0);
}

// ---- plots --------------------------------------------------------------------------------

/// The fills of the `rect` elements of a well-formed SVG document, with how often each occurs.
fn bar_fills(path: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the plot is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut fills = BTreeMap::new();
    for rect in doc.descendants().filter(|n| n.has_tag_name("rect")) {
        let fill = rect.attribute("fill").unwrap_or("none");
        if !["none", "#FFFFFF"].contains(&fill) {
            *fills.entry(fill.to_string()).or_insert(0) += 1;
        }
    }
    fills
}

fn texts(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

#[test]
fn diff_plots_one_bar_per_node_before_and_after() {
    let dir = scratch("plot-diff");
    for k in ["1", "2"] {
        let svg = dir.join(format!("diff-{k}.svg"));
        ok(&[
            "diff",
            "--from",
            OLD,
            "--to",
            NEW,
            "--keys",
            "5000",
            "--k",
            k,
            "--plot",
            svg.to_str().unwrap(),
        ]);
        // Two series (before, after), each one bar per node of either membership plus its
        // legend swatch.
        let fills = bar_fills(&svg);
        assert_eq!(fills.len(), 2, "{fills:?}");
        assert!(fills.values().all(|&c| c == 4 + 1), "{fills:?}");
        let labels = texts(&svg);
        for id in [
            "cache-a", "cache-b", "cache-c", "cache-d", "before", "after",
        ] {
            assert!(labels.contains(id), "{id} missing from {labels:?}");
        }
    }
    // A plot that cannot be written is an error, not a silent success.
    let out = hrwhash(&[
        "diff",
        "--from",
        OLD,
        "--to",
        NEW,
        "--plot",
        "/nonexistent-dir/x.svg",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot draw the plot"));
}

#[test]
fn simulate_plots_one_bar_per_node_and_fleet() {
    let dir = scratch("plot-simulate");
    let svg = dir.join("simulate.svg");
    ok(&[
        "simulate",
        "--nodes",
        "7",
        "--add",
        "3",
        "--remove",
        "2",
        "--keys",
        "5000",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    // Three fleets (7 nodes, +3, -2), each a bar for every one of the 10 nodes, and a swatch.
    let fills = bar_fills(&svg);
    assert_eq!(fills.len(), 3, "{fills:?}");
    assert!(fills.values().all(|&c| c == 10 + 1), "{fills:?}");
    let labels = texts(&svg);
    assert!(
        (0..10).all(|i| labels.contains(&format!("node-{i}"))),
        "{labels:?}"
    );
}

// ---- streaming and progress ----------------------------------------------------------------

/// A plan reading keys from a pipe writes each move before its input ends: the first moves are
/// read back while stdin is still open.
#[test]
fn a_plan_writes_its_moves_before_reading_all_input() {
    let moving: Vec<String> = changes(&generated(200), 1)
        .into_iter()
        .map(|c| c.0)
        .take(3)
        .collect();
    assert_eq!(moving.len(), 3);
    let mut child = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args(["plan", "--from", OLD, "--to", NEW, "--keys-from", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for key in &moving {
        writeln!(stdin, "{key}").unwrap();
    }
    stdin.flush().unwrap();
    let wait = Duration::from_secs(60);
    let header = rx
        .recv_timeout(wait)
        .expect("no header while input is open");
    assert!(header.starts_with("# hrwhash plan"), "{header}");
    for key in &moving {
        let line = rx
            .recv_timeout(wait)
            .expect("a move was held back until the input ended");
        assert!(line.starts_with(&format!("{key}\t")), "{line}");
    }
    // Nothing more until the input ends; then the totals.
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
    drop(stdin);
    let last = rx.recv_timeout(wait).unwrap();
    assert_eq!(
        last,
        "# copy 3 of 3 keys (100.00%) to their new owner before switching"
    );
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

/// Keys from a file are read as they are used: a 20 MB key file takes no more memory than a
/// small one (Linux: peak resident size of the child, from /proc).
#[test]
fn diff_of_a_large_key_file_holds_no_keys_in_memory() {
    let dir = scratch("rss");
    let peak = |keys: usize| -> u64 {
        let file = dir.join(format!("keys-{keys}.txt"));
        let mut text = String::with_capacity(keys * 24);
        for i in 0..keys {
            text.push_str(&format!("some-longer-key-{i:08}\n"));
        }
        std::fs::write(&file, text).unwrap();
        let out = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "{} diff --from {OLD} --to {NEW} --keys-from {} --json >/dev/null & pid=$!; \
                     peak=0; while kill -0 $pid 2>/dev/null; do \
                     v=$(awk '/VmHWM/ {{print $2}}' /proc/$pid/status 2>/dev/null); \
                     [ -n \"$v\" ] && peak=$v; sleep 0.01; done; wait $pid && echo $peak",
                    env!("CARGO_BIN_EXE_hrwhash"),
                    file.display()
                ),
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    if !Path::new("/proc/self/status").exists() {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "needs /proc");
        return;
    }
    let (small, large) = (peak(10_000), peak(800_000));
    // Holding the 800,000 keys would add about 40 MB (bytes plus a Vec per key).
    assert!(
        large < small + 8 * 1024,
        "peak {small} kB for 10^4 keys, {large} kB for 8 x 10^5"
    );
}

#[test]
fn progress_bars_stay_off_output_that_is_not_a_terminal() {
    // Piped stderr: no bar, with or without --quiet.
    for args in [
        vec!["simulate", "--keys", "300000"],
        vec!["diff", "--from", OLD, "--to", NEW, "--keys", "300000"],
        vec![
            "plan",
            "--from",
            OLD,
            "--to",
            NEW,
            "--keys",
            "300000",
            "--summary",
        ],
        vec![
            "diff", "--from", OLD, "--to", NEW, "--keys", "300000", "--quiet",
        ],
    ] {
        let out = hrwhash(&args);
        assert!(out.status.success());
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// On a terminal (a pseudo-terminal made by util-linux `script`) the bar is drawn on stderr,
/// and `--quiet` removes it.
#[test]
fn progress_bars_are_drawn_on_a_terminal_unless_quiet() {
    let script = Path::new("/usr/bin/script");
    if !script.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "needs util-linux script"
        );
        return;
    }
    let dir = scratch("tty");
    let run = |quiet: bool| -> String {
        let out_file = dir.join("out.json");
        let command = format!(
            "{} simulate --keys 200000 --nodes 20 --json {} >{}",
            env!("CARGO_BIN_EXE_hrwhash"),
            if quiet { "--quiet" } else { "" },
            out_file.display()
        );
        let out = Command::new(script)
            .args(["-qec", &command, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The JSON went to the file, untouched by the bar.
        let doc: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
        assert_eq!(doc["keys"], 200_000);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let terminal = run(false);
    assert!(
        terminal.contains("simulate"),
        "no bar on the terminal: {terminal:?}"
    );
    let quiet = run(true);
    assert!(!quiet.contains("simulate"), "--quiet still drew: {quiet:?}");
}

/// Input without keys counts zero keys, as every library does: `diff` and `plan` succeed with
/// complete output whose counts are all 0 (a blank file and an empty stdin alike).
#[test]
fn input_without_keys_counts_zero_keys() {
    let dir = scratch("no-keys");
    let blank = dir.join("blank.txt");
    std::fs::write(&blank, "\n\r\n\n").unwrap();
    let blank = blank.to_str().unwrap();
    for k in ["1", "2"] {
        for command in ["diff", "plan"] {
            let args = [
                command,
                "--from",
                OLD,
                "--to",
                NEW,
                "--keys-from",
                blank,
                "--k",
                k,
                "--json",
            ];
            let out = hrwhash(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
            assert_eq!(doc["keys"], 0, "{args:?}: {doc}");
            let changed = if k == "1" {
                "moved_keys"
            } else {
                "changed_keys"
            };
            assert_eq!(doc[changed], 0, "{args:?}: {doc}");
        }
    }
    let out = hrwhash(&["plan", "--from", OLD, "--to", NEW, "--keys-from", blank]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# hrwhash plan (hrw-v1): key,"), "{text}");
    assert!(
        text.ends_with("# copy 0 of 0 keys (0.00%) to their new owner before switching\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
    let out = hrwhash(&[
        "plan",
        "--from",
        OLD,
        "--to",
        NEW,
        "--keys-from",
        blank,
        "--summary",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["keys"], 0);

    let out = Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args([
            "diff",
            "--from",
            OLD,
            "--to",
            NEW,
            "--keys-from",
            "-",
            "--json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["keys"], 0);
    assert_eq!(doc["moved_keys"], 0);
}

/// At fleet sizes every node is still named: a 50 -> 52 node diff labels each of the 52 bars
/// groups with its id, on rows far enough apart that no two labels overlap.
#[test]
fn plots_name_every_node_of_a_large_fleet() {
    let dir = scratch("plot-fleet");
    let ids = |n: usize| (0..n).map(|i| format!("node-{i}\n")).collect::<String>();
    let from = dir.join("50.txt");
    let to = dir.join("52.txt");
    std::fs::write(&from, ids(50)).unwrap();
    std::fs::write(&to, ids(52)).unwrap();
    let svg = dir.join("fleet.svg");
    ok(&[
        "diff",
        "--from",
        from.to_str().unwrap(),
        "--to",
        to.to_str().unwrap(),
        "--keys",
        "5000",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let fills = bar_fills(&svg);
    assert!(fills.values().all(|&c| c == 52 + 1), "{fills:?}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let mut rows: Vec<(f64, f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| {
            let label = n.text()?.trim().to_string();
            label.starts_with("node-").then(|| {
                let at = |a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
                (at("y"), at("font-size"), label)
            })
        })
        .collect();
    let named: BTreeSet<&str> = rows.iter().map(|r| r.2.as_str()).collect();
    assert_eq!(named.len(), 52, "{named:?}");
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for pair in rows.windows(2) {
        assert!(
            pair[1].0 - pair[0].0 >= pair[0].1,
            "labels {} and {} overlap",
            pair[0].2,
            pair[1].2
        );
    }
}
