//! `hrwhash simulate --slots`: the slot-table numbers checked against the library (ranked: fresh
//! builds, which the command's changed table must equal; levelled: the same changes applied to
//! the first table), and its bad inputs.

use hrwhash::policy::{SlotMode, SlotTable};
use hrwhash::{Node, Placement};
use serde_json::Value;

mod common;
use common::hrwhash;

fn fleet(range: std::ops::Range<usize>) -> Placement {
    Placement::new(range.map(|i| format!("node-{i}"))).unwrap()
}

/// The tables `simulate --slots 500` compares for 12 nodes, 2 added and 3 removed.
fn tables(mode: SlotMode) -> [SlotTable; 3] {
    match mode {
        SlotMode::Ranked { overload_ppm } => [
            SlotTable::ranked(&fleet(0..12), 500, overload_ppm).unwrap(),
            SlotTable::ranked(&fleet(0..14), 500, overload_ppm).unwrap(),
            SlotTable::ranked(&fleet(3..12), 500, overload_ppm).unwrap(),
        ],
        SlotMode::Levelled => {
            let base = SlotTable::new(&fleet(0..12), 500).unwrap();
            let mut grown = base.clone();
            grown.add_node(Node::new("node-12")).unwrap();
            grown.add_node(Node::new("node-13")).unwrap();
            let mut shrunk = base.clone();
            for id in ["node-0", "node-1", "node-2"] {
                shrunk.remove_node(id).unwrap();
            }
            // Not what a fresh build gives: the levelled table depends on its changes.
            assert_ne!(
                SlotTable::new(&fleet(3..12), 500).unwrap().assignments(),
                shrunk.assignments()
            );
            [base, grown, shrunk]
        }
    }
}

#[test]
fn simulated_moves_match_the_library() {
    for mode in [
        SlotMode::Levelled,
        SlotMode::Ranked { overload_ppm: None },
        SlotMode::Ranked {
            overload_ppm: Some(50_000),
        },
    ] {
        let overload = mode.overload_ppm();
        let mut args = vec![
            "simulate", "--nodes", "12", "--keys", "3000", "--add", "2", "--remove", "3",
            "--slots", "500", "--json",
        ];
        if mode != SlotMode::Levelled {
            args.extend(["--mode", "ranked"]);
        }
        let ppm = overload.map(|p| p.to_string());
        if let Some(p) = &ppm {
            args.extend(["--overload-ppm", p.as_str()]);
        }
        let out = hrwhash(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let st = &doc["slot_table"];
        let [base, grown, shrunk] = tables(mode);
        let (mut add, mut remove, mut counts) = (0u64, 0u64, [0u64; 12]);
        for i in 0..3000 {
            let key = format!("key-{i}");
            let owner = base.owner_index(&key);
            counts[owner] += 1;
            add += (grown.owner_index(&key) != owner) as u64;
            remove += (3 + shrunk.owner_index(&key) != owner) as u64;
        }
        assert_eq!(st["add"]["moved_keys"], add, "{mode:?}");
        assert_eq!(st["remove"]["moved_keys"], remove, "{mode:?}");
        assert_eq!(st["policy"], mode.policy());
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
        (&["simulate", "--mode", "ranked"][..], "--slots"),
        (
            &["simulate", "--slots", "64", "--mode", "ranks"][..],
            "--mode",
        ),
        // A bound belongs to a ranked table only, in every language.
        (
            &["simulate", "--slots", "64", "--overload-ppm", "5"][..],
            "error[InvalidArgument]",
        ),
        (
            &[
                "simulate",
                "--slots",
                "64",
                "--mode",
                "levelled",
                "--overload-ppm",
                "5",
            ][..],
            "error[InvalidArgument]",
        ),
    ] {
        let out = hrwhash(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
