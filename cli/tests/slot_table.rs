//! `hrwhash simulate --slots`: the slot-table numbers checked against fresh builds through the
//! library (the command applies changes to a built table instead), and its bad inputs.

use std::process::Command;

use hrwhash::policy::SlotTable;
use hrwhash::Placement;
use serde_json::Value;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hrwhash"))
        .args(args)
        .output()
        .expect("the hrwhash binary starts")
}

fn fleet(range: std::ops::Range<usize>) -> Placement {
    Placement::new(range.map(|i| format!("node-{i}"))).unwrap()
}

#[test]
fn simulated_moves_match_fresh_tables() {
    for overload in [None, Some(50_000u32)] {
        let mut args = vec![
            "simulate", "--nodes", "12", "--keys", "3000", "--add", "2", "--remove", "3",
            "--slots", "500", "--json",
        ];
        let ppm = overload.map(|p| p.to_string());
        if let Some(p) = &ppm {
            args.extend(["--overload-ppm", p.as_str()]);
        }
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let st = &doc["slot_table"];
        let base = SlotTable::new(&fleet(0..12), 500, overload).unwrap();
        let grown = SlotTable::new(&fleet(0..14), 500, overload).unwrap();
        let shrunk = SlotTable::new(&fleet(3..12), 500, overload).unwrap();
        let (mut add, mut remove, mut counts) = (0u64, 0u64, [0u64; 12]);
        for i in 0..3000 {
            let key = format!("key-{i}");
            let owner = base.owner_index(&key);
            counts[owner] += 1;
            add += (grown.owner_index(&key) != owner) as u64;
            remove += (3 + shrunk.owner_index(&key) != owner) as u64;
        }
        assert_eq!(st["add"]["moved_keys"], add, "{overload:?}");
        assert_eq!(st["remove"]["moved_keys"], remove, "{overload:?}");
        let max = *counts.iter().max().unwrap() as f64 / 250.0;
        assert!((st["max_over_mean_keys"].as_f64().unwrap() - max).abs() < 1e-12);
        assert_eq!(st["slots"], 500);
        assert_eq!(st["overload_ppm"], serde_json::json!(overload));
        assert_eq!(
            st["max_slots_per_node"],
            base.slot_counts().into_iter().max().unwrap()
        );
    }
}

#[test]
fn bad_slot_flags_are_usage_errors() {
    for (args, needle) in [
        (&["simulate", "--slots", "0"][..], "InvalidSlotCount"),
        (&["simulate", "--slots", "16777217"][..], "InvalidSlotCount"),
        (&["simulate", "--slots", "-1"][..], "--slots"),
        (
            &["simulate", "--slots", "64", "--overload-ppm", "4294967296"][..],
            "InvalidCount",
        ),
        (&["simulate", "--overload-ppm", "5"][..], "--slots"),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
