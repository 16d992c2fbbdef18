//! `hrwhash simulate --policy ...`: the comparison rows, recomputed from the JSON output.

use std::process::Command;

fn simulate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .arg("simulate")
        .args(args)
        .output()
        .expect("hrwhash runs")
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
