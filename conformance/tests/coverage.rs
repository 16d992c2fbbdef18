//! The vectors cover what their documents promise (SPEC.md, VIEW.md, POLICIES.md,
//! SLOT-HISTORY.md); `up_to_date.rs` checks that the committed files are what the generators write.

#[test]
fn vectors_cover_what_the_spec_promises() {
    let text = hrwhash_conformance::generate();
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["algorithm"], "hrw-v1");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 2000, "{} cases", cases.len());
    let longest_key = cases
        .iter()
        .map(|c| c["key"].as_str().unwrap().len() / 2)
        .max()
        .unwrap();
    assert!(longest_key >= 65536);
    let largest = cases
        .iter()
        .filter_map(|c| c["node_count"].as_u64())
        .max()
        .unwrap();
    assert!(largest >= 1000);
    assert!(cases.iter().any(|c| c["key"] == ""));
    assert!(cases.iter().any(|c| c.get("seed").is_some()));
    assert!(cases
        .iter()
        .any(|c| c["expected"].get("replicas").is_some()));
    assert!(cases.iter().any(
        |c| c["k"].as_u64().unwrap() as usize > c["expected"]["rank"].as_array().unwrap().len()
    ));
    // Every draw segment is exercised at least once.
    let mut segments = [false; 256];
    for d in v["draw_cases"].as_array().unwrap() {
        let s: u64 = d["score"].as_str().unwrap().parse().unwrap();
        if let Some(v) = s.checked_add(1) {
            segments[((v << v.leading_zeros()) >> 55) as usize & 0xFF] = true;
        }
    }
    assert!(segments.iter().all(|&s| s));
}

#[test]
fn views_cover_what_view_md_promises() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::views::generate()).expect("valid JSON");
    assert_eq!(v["format"], "hrwhash-view-v1");
    let invalid = v["invalid"].as_array().unwrap();
    let reasons: std::collections::BTreeSet<&str> = invalid
        .iter()
        .filter_map(|c| c["reason"].as_str())
        .collect();
    for reason in [
        "missing",
        "wrong_type",
        "unknown",
        "duplicate",
        "conflict",
        "unsupported",
        "invalid",
        "out_of_range",
    ] {
        assert!(
            reasons.contains(reason),
            "no invalid case with reason {reason}"
        );
    }
    let errors: std::collections::BTreeSet<&str> =
        invalid.iter().filter_map(|c| c["error"].as_str()).collect();
    for error in [
        "InvalidJson",
        "InvalidView",
        "EmptyMembership",
        "EmptyNodeId",
        "DuplicateNodeId",
        "AllWeightsZero",
        "SeedMismatch",
    ] {
        assert!(errors.contains(error), "no invalid case with error {error}");
    }
    assert!(invalid.iter().any(|c| c.get("document_hex").is_some()));
    let valid = v["valid"].as_array().unwrap();
    assert!(valid.iter().any(|c| c.get("seed").is_some()));
    assert!(valid
        .iter()
        .any(|c| c["canonical"].as_str().unwrap().contains("\"id_hex\"")));
    let ramps = v["ramps"].as_array().unwrap();
    assert!(ramps.iter().any(|r| r.get("error").is_some()));
    assert!(ramps.iter().any(|r| r["steps"]
        .as_array()
        .is_some_and(|s| s.len() > 3 && s.iter().any(|s| s["removes_drained"] == true))));
}

#[test]
fn edge_vectors_hold_what_they_claim() {
    use hrwhash::v1::{draw, key_digest, node_digest, score, Seed};
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::edge::generate()).expect("valid JSON");
    assert_eq!(v["algorithm"], "hrw-v1");
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let fixed = |n: &serde_json::Value| -> u128 {
        n.get("weight_fixed")
            .map_or(1 << 32, |f| f.as_str().unwrap().parse().unwrap())
    };
    // Each tie family has, for every case, two nodes whose cross products are exactly equal, and
    // (except tie-ids) whose scores differ; each near-tie case has two whose cross products differ
    // by less than one part in 2^53.
    let (mut ties, mut near) = (0, 0);
    for c in v["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let key = hex(c["key"].as_str().unwrap());
        let kd = key_digest(&Seed::DEFAULT, &key);
        let nodes: Vec<(u64, u128, u128)> = c["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let s = score(
                    kd,
                    node_digest(&Seed::DEFAULT, &hex(n["id"].as_str().unwrap())),
                );
                (s, draw(s) as u128, fixed(n))
            })
            .collect();
        let pairs = || {
            nodes
                .iter()
                .enumerate()
                .flat_map(|(i, a)| nodes[i + 1..].iter().map(move |b| (a, b)))
                .filter(|(a, b)| a.2 != 0 && b.2 != 0)
        };
        if name.starts_with("tie-") {
            let equal_scores = name.starts_with("tie-ids");
            assert!(
                pairs().any(|(a, b)| a.1 * b.2 == b.1 * a.2 && (a.0 == b.0) == equal_scores),
                "{name}"
            );
            ties += 1;
        }
        if name.starts_with("near-tie") {
            assert!(
                pairs().any(|(a, b)| {
                    let (x, y) = (a.1 * b.2, b.1 * a.2);
                    x != y && x.abs_diff(y) < x >> 53
                }),
                "{name}"
            );
            near += 1;
        }
    }
    assert!(
        ties >= 60 && near >= 60,
        "{ties} tie cases, {near} near-tie cases"
    );
    let halves = v["weight_cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| {
            w["weight"]
                .as_f64()
                .is_some_and(|w| (w * 4294967296.0).fract() == 0.5)
        })
        .count();
    assert!(halves >= 15, "{halves} half-way weight cases");
}

#[test]
fn replica_balance_vectors_adjust_small_nodes_and_cover_the_cap_and_every_error() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::replica_balance::generate())
            .expect("valid JSON");
    let cases = v["cases"].as_array().unwrap();
    let ceph = cases.iter().find(|c| c["name"] == "ceph-3331").unwrap();
    let adjusted: Vec<f64> = ceph["expected"]["adjusted_fixed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().parse::<f64>().unwrap())
        .collect();
    // Positions 2..3 favour the big nodes beyond their real 3:1.
    assert!(adjusted[0] / adjusted[3] > 4.0, "{adjusted:?}");
    let iterations = |name: &str| {
        cases.iter().find(|c| c["name"] == name).unwrap()["expected"]["iterations"]
            .as_u64()
            .unwrap()
    };
    // k = 1 skips the solver, equal weights converge at once, a node at 1/k runs to the cap.
    assert_eq!(iterations("k1"), 0);
    assert_eq!(iterations("equal"), 1);
    assert_eq!(
        iterations("at-the-limit"),
        u64::from(hrwhash::policy::replica_balance::MAX_ITERATIONS)
    );
    assert!(cases
        .iter()
        .any(|c| c["expected"]["iterations"].as_u64().unwrap() > 20));
    let errors: std::collections::BTreeSet<&str> = v["error_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["error"].as_str().unwrap())
        .collect();
    assert!(errors.contains("InvalidCount") && errors.contains("InfeasibleReplicaWeights"));
}

#[test]
fn bounded_load_vectors_probe_deep_and_cover_every_error() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::bounded_load::generate()).expect("valid JSON");
    let positions: Vec<u64> = v["online"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["expected"]["position"].as_u64().unwrap())
        .collect();
    // First choices, short probes, and probes past the 8- and 64-position stack lists.
    for (lo, hi) in [(0, 0), (1, 7), (8, 63), (64, u64::MAX)] {
        let n = positions.iter().filter(|&&p| p >= lo && p <= hi).count();
        assert!(n >= 3, "{n} cases probe to positions {lo}..={hi}");
    }
    let errors: std::collections::BTreeSet<&str> = v["error_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["error"].as_str().unwrap())
        .collect();
    assert_eq!(
        errors.into_iter().collect::<Vec<_>>(),
        ["InvalidBalanceFactor", "LengthMismatch", "LoadOverflow"]
    );
    // Batches hold their caps: count <= ceil(num * K * w / (den * S)), recomputed here.
    assert!(v["batch"].as_array().unwrap().len() >= 15);
}

#[test]
fn slot_table_v2_vectors_show_the_order_dependence() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::slot_table::levelled::generate())
            .expect("valid JSON");
    let last = |name: &str| {
        let case = v["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap();
        case["changes"].as_array().unwrap().last().unwrap()["expected"]["table"].clone()
    };
    // Same membership at the end, other order, other table: POLICIES.md says so, and the
    // vectors must hold a case that an order-independent implementation fails.
    assert_ne!(last("order-a"), last("order-b"));
}

#[test]
fn bounded_load_boundaries_put_each_owner_at_its_cap_or_one_below() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::bounded_load_boundaries::generate())
            .expect("valid JSON");
    let weights = |c: &serde_json::Value| -> Vec<u128> {
        let n = c["node_count"].as_u64().unwrap() as usize;
        let cycle: Vec<f64> = c.get("weight_cycle").map_or(vec![1.0], |w| {
            w.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        });
        (0..n)
            .map(|i| {
                hrwhash::Weight::new(cycle[i % cycle.len()])
                    .unwrap()
                    .to_fixed() as u128
            })
            .collect()
    };
    let (mut at, mut below) = (0, 0);
    for c in v["online"].as_array().unwrap() {
        let w = weights(c);
        let s: u128 = w.iter().sum();
        let loads: Vec<u128> = c["loads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().parse().unwrap())
            .collect();
        let (num, den) = (
            c["factor"]["num"].as_u64().unwrap() as u128,
            c["factor"]["den"].as_u64().unwrap() as u128,
        );
        let slots = ((loads.iter().sum::<u128>() + 1) * num).div_ceil(den);
        // slots * w < 2^97 here, so u128 holds it.
        let cap = (slots * w[0]).div_ceil(s);
        let name = c["name"].as_str().unwrap();
        assert!(
            loads[0] + 1 == cap || loads[0] == cap,
            "{name}: {} vs {cap}",
            loads[0]
        );
        let to_owner = c["expected"]["position"] == 0;
        assert_eq!(
            to_owner,
            c["expected"]["owner"] == 0,
            "{name}: node 0 owns the key"
        );
        assert_eq!(to_owner, loads[0] < cap, "{name}");
        if to_owner {
            below += 1;
        } else {
            at += 1;
        }
    }
    assert!(at >= 5 && below >= 5, "{at} at the cap, {below} below");
    // Each batch holds a node at exactly its capacity.
    for c in v["batch"].as_array().unwrap() {
        let w = weights(c);
        let s: u128 = w.iter().sum();
        let k = c["key_count"].as_u64().unwrap() as u128;
        let (num, den) = (
            c["factor"]["num"].as_u64().unwrap() as u128,
            c["factor"]["den"].as_u64().unwrap() as u128,
        );
        let counts = c["expected"]["counts"].as_array().unwrap();
        assert!(
            w.iter()
                .zip(counts)
                .any(|(&wi, n)| n.as_u64().unwrap() as u128 == (num * k * wi).div_ceil(den * s)),
            "{}",
            c["name"]
        );
    }
}

#[test]
fn slot_history_vectors_show_the_order_and_cover_every_loader_check() {
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::slot_history::generate()).expect("valid JSON");
    // Same final membership, other order of changes, other table: SLOT-HISTORY.md 1.
    for pair in v["same_membership"].as_array().unwrap() {
        assert_ne!(
            pair["a_table_fingerprint"], pair["b_table_fingerprint"],
            "{}",
            pair["name"]
        );
    }
    // A ranked table depends only on the membership: other orders, one table (SLOT-HISTORY.md 1).
    let ranked = v["order_independent"].as_array().unwrap();
    assert!(ranked.len() >= 3);
    for pair in ranked {
        assert_ne!(pair["a"], pair["b"], "{}", pair["name"]);
        assert!(pair["a"]
            .as_str()
            .unwrap()
            .contains("\"policy\": \"slot-table-v1\""));
    }
    // Spellings that differ only in the order of `initial` share the canonical form and table.
    let eq = v["equivalent"].as_array().unwrap();
    assert_eq!(eq[0]["canonical"], eq[1]["canonical"]);
    let errors: std::collections::BTreeSet<String> = v["invalid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| match c["field"].as_str() {
            Some(f) => format!("{}:{f}:{}", c["error"].as_str().unwrap(), c["reason"]),
            None => c["error"].as_str().unwrap().to_string(),
        })
        .collect();
    for want in [
        "InvalidJson",
        "InvalidSlotCount",
        "SeedMismatch",
        "EmptyMembership",
        "EmptyNodeId",
        "DuplicateNodeId",
        "AllWeightsZero",
        "UnknownNode",
        "InvalidView:changes.op:\"invalid\"",
        "InvalidView:changes.weight:\"missing\"",
        "InvalidView:initial.id:\"missing\"",
        "InvalidView:slots:\"invalid\"",
        "InvalidView:overload_ppm:\"conflict\"",
        "InvalidView:overload_ppm:\"wrong_type\"",
        "InvalidView:overload_ppm:\"invalid\"",
        "InvalidView:overload_ppm:\"out_of_range\"",
    ] {
        assert!(
            errors.contains(want),
            "no invalid case for {want}: {errors:?}"
        );
    }
}

#[test]
fn transitions_cover_what_view_md_6_promises() {
    use hrwhash::{Seed, View};
    let v: serde_json::Value =
        serde_json::from_str(&hrwhash_conformance::transitions::generate()).expect("valid JSON");
    let text = |c: &serde_json::Value, m: &str| c[m].as_str().unwrap().to_string();
    // Expected movement between two seeds, where the order of the binary64 sum shows.
    let movement = v["movement"].as_array().unwrap();
    assert!(movement.len() >= 5);
    for c in movement {
        assert_ne!(c.get("from_seed"), c.get("to_seed"), "{}", c["name"]);
    }
    for (how, cases) in hrwhash_conformance::transitions::wrong_evaluations_caught() {
        assert!(cases >= 1, "no movement case tells {how} from VIEW.md 6.1");
    }
    assert!(movement.iter().any(|c| c["expected_moved"] == 0.0));
    assert!(movement.iter().any(|c| c["expected_moved"] == 1.0));
    // Routes: add and drop in replica order, which is not index order; replica sets spread over
    // domains, which are not the top of the ranking.
    let routes = v["routes"].as_array().unwrap();
    let list = |r: &serde_json::Value, m: &str| -> Vec<u64> {
        r[m].as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap())
            .collect()
    };
    let unsorted = |m: &str| {
        routes
            .iter()
            .flat_map(|c| c["routes"].as_array().unwrap())
            .any(|r| {
                let l = list(r, m);
                l.windows(2).any(|w| w[0] > w[1])
            })
    };
    assert!(unsorted("add") && unsorted("drop"));
    let mut spread = false;
    for c in routes {
        let old = View::from_json_with_seed(&text(c, "from"), Seed::DEFAULT).unwrap();
        let k = c["k"].as_u64().unwrap() as usize;
        for r in c["routes"].as_array().unwrap() {
            let ranked: Vec<u64> = old
                .placement()
                .rank(r["key"].as_str().unwrap(), k)
                .iter()
                .map(|n| n.index() as u64)
                .collect();
            spread |= ranked != list(r, "before");
        }
    }
    assert!(spread, "no route whose replicas differ from the ranking");
    assert!(routes.iter().any(|c| c["k"] == 1));
    assert!(routes.iter().any(|c| {
        let r = &c["routes"][0];
        list(r, "before").len() != list(r, "after").len()
    }));
    // Diffs: rows of ids on one side only, of both kinds of diff.
    let diffs = v["diffs"].as_array().unwrap();
    for k1 in [true, false] {
        let rows: Vec<&serde_json::Value> = diffs
            .iter()
            .filter(|c| (c["k"] == 1) == k1)
            .flat_map(|c| c["nodes"].as_array().unwrap())
            .collect();
        assert!(rows.iter().any(|r| r["old_index"].is_null()));
        assert!(rows.iter().any(|r| r["new_index"].is_null()));
        assert!(rows
            .iter()
            .any(|r| !r["new_index"].is_null() && r["after"] == 0));
    }
    assert!(diffs
        .iter()
        .any(|c| c["k"] != 1 && c["copies_added"] != c["copies_dropped"]));
    let parts = hrwhash_conformance::transitions::PARTS;
    for (language, skipped) in v["not_offered"].as_object().unwrap() {
        if language != "_comment" {
            for part in skipped.as_object().unwrap().keys() {
                assert!(parts.contains(&part.as_str()), "{language}: {part}");
            }
        }
    }
}
