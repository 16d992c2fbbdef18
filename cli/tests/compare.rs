//! `hrwhash simulate --policy ...`: the comparison rows, recomputed from the JSON output.

mod common;
use common::hrwhash;

fn simulate(args: &[&str]) -> std::process::Output {
    hrwhash(&[&["simulate"], args].concat())
}

#[test]
fn bounded_rows_hold_their_factor_and_plain_moves_the_minimum() {
    let out = simulate(&[
        "--nodes",
        "50",
        "--keys",
        "2000",
        "--policy",
        "plain",
        "--policy",
        "bounded:1.1",
        "--policy",
        "bounded:1.5",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["policies"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    assert_eq!(names, ["plain", "bounded:1.1", "bounded:1.5"]);
    // 40 keys per node: the cap is ceil(1.1 * 40) = 44 and ceil(1.5 * 40) = 60.
    assert!(rows[1]["max_over_mean"].as_f64().unwrap() <= 44.0 / 40.0 + 1e-12);
    assert!(rows[2]["max_over_mean"].as_f64().unwrap() <= 60.0 / 40.0 + 1e-12);
    // With so few keys per node, plain HRW is more uneven than the tight bound allows.
    assert!(rows[0]["max_over_mean"].as_f64().unwrap() > 1.1);
    // Plain HRW moves only the keys the new node wins; the leave removes node-0's keys only.
    let plain_join = rows[0]["moved_on_join"].as_u64().unwrap();
    assert!(plain_join > 0 && plain_join < 2000 / 51 * 2);
    for r in rows {
        assert!(r["moved_on_join"].as_u64().unwrap() >= plain_join / 2);
        assert!(r["ns_per_key"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn bad_policies_are_usage_errors() {
    for (policy, variant) in [
        ("bounded:0.9", "InvalidBalanceFactor"),
        ("bounded:NaN", "InvalidBalanceFactor"),
        ("bounded:x", "InvalidBalanceFactor"),
        ("bounded", ""),
        ("nonsense", ""),
    ] {
        let out = simulate(&["--policy", policy]);
        assert_eq!(out.status.code(), Some(2), "{policy}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(policy), "{policy}: {err}");
        if !variant.is_empty() {
            assert!(
                err.contains(&format!("error[{variant}]")),
                "{policy}: {err}"
            );
        }
    }
    let out = simulate(&["--nodes", "1", "--policy", "plain"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The ranked slot-table row builds a fresh table for each fleet; `--slots` applies the join and
/// the leave to the first table instead. slot-table-v1 promises the two are the same table, so
/// the two commands must count the same moves and the same balance.
#[test]
fn slot_table_rows_agree_with_tables_changed_in_place() {
    for spec in ["2048", "2048:50000"] {
        let out = simulate(&[
            "--nodes",
            "40",
            "--keys",
            "3000",
            "--policy",
            &format!("ranked:{spec}"),
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &v["policies"][0];
        assert_eq!(row["policy"], format!("ranked:{spec}"));

        let (slots, ppm) = spec.split_once(':').unwrap_or((spec, ""));
        let mut args = vec![
            "--nodes", "40", "--keys", "3000", "--add", "1", "--remove", "1", "--slots", slots,
            "--mode", "ranked",
        ];
        if !ppm.is_empty() {
            args.extend(["--overload-ppm", ppm]);
        }
        args.push("--json");
        let out = simulate(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let w: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let table = &w["slot_table"];
        assert_eq!(row["moved_on_join"], table["add"]["moved_keys"], "{spec}");
        assert_eq!(
            row["moved_on_leave"], table["remove"]["moved_keys"],
            "{spec}"
        );
        let (a, b) = (
            row["max_over_mean"].as_f64().unwrap(),
            table["max_over_mean_keys"].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-12, "{spec}: {a} vs {b}");
        assert!(row["moved_on_join"].as_u64().unwrap() > 0);
    }
    for (bad, variant) in [
        ("ranked", "hrwhash: error: --policy ranked: unknown policy"),
        (
            "slots:16",
            "hrwhash: error: --policy slots:16: unknown policy",
        ),
        ("ranked:0", "error[InvalidSlotCount]"),
        ("ranked:x", "error[InvalidArgument]"),
        ("ranked:16:-1", "error[InvalidCount]"),
    ] {
        let out = simulate(&["--policy", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(variant), "{bad}: {err}");
    }
}

/// slot-table-v2 depends on the order of changes: the row must apply the join and the leave to
/// the first table. Recomputed here through the library: only the new node gains keys on the
/// join, only node-0's keys move on the leave, and each node holds 51 or 52 of the 2048 slots.
#[test]
fn levelled_rows_apply_the_changes_to_the_first_table() {
    use hrwhash::policy::SlotTable;
    use hrwhash::{Node, Placement};

    let out = simulate(&[
        "--nodes",
        "40",
        "--keys",
        "3000",
        "--policy",
        "levelled:2048",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v["policies"][0];
    assert_eq!(row["policy"], "levelled:2048");

    // The generated keys of `simulate` (cli/README.md): key-0, key-1, ...
    let keys: Vec<String> = (0..3000u64).map(|i| format!("key-{i}")).collect();
    let base = Placement::new((0..40).map(|i| format!("node-{i}"))).unwrap();
    let t = SlotTable::new(&base, 2048).unwrap();
    assert!(t.slot_counts().iter().all(|&c| c == 51 || c == 52));
    let grown = t.with_node(Node::new("node-40")).unwrap();
    let left = t.without_node("node-0").unwrap();
    let mut join = 0u64;
    let mut leave = 0u64;
    for k in &keys {
        let (a, b, c) = (t.owner_index(k), grown.owner_index(k), left.owner_index(k));
        if a != b {
            assert_eq!(b, 40, "{k}: a join moves keys only to the new node");
            join += 1;
        }
        if a == 0 {
            leave += 1;
        } else {
            assert_eq!(c + 1, a, "{k}: a leave moves only the leaver's keys");
        }
    }
    assert_eq!(row["moved_on_join"].as_u64().unwrap(), join);
    assert_eq!(row["moved_on_leave"].as_u64().unwrap(), leave);
    assert!(join > 0 && leave > 0);

    for (bad, variant) in [
        (
            "levelled",
            "hrwhash: error: --policy levelled: unknown policy",
        ),
        ("levelled:0", "error[InvalidSlotCount]"),
        ("levelled:16777217", "error[InvalidSlotCount]"),
        ("levelled:x", "error[InvalidArgument]"),
    ] {
        let out = simulate(&["--policy", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(variant), "{bad}: {err}");
    }
}
