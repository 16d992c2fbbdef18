//! Every case of conformance/vectors.json, through the public API. Run with and without the `std`
//! feature, this checks the SIMD kernels and the portable scalar kernel against the same file.

use hrwhash::v1::{draw, key_digest, node_digest, score};
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::Value;

/// vectors.json, or (same format) vectors-edge.json.
fn vectors_in(file: &str) -> Value {
    let path = format!("{}/../conformance/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect(file)).expect("JSON")
}

fn vectors() -> Value {
    vectors_in("vectors.json")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn u64_of(v: &Value) -> u64 {
    v.as_str()
        .expect("64-bit values are strings")
        .parse()
        .expect("u64")
}

fn weight_of(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "NaN" => f64::NAN,
        Value::String(s) if s == "Infinity" => f64::INFINITY,
        Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
        other => other.as_f64().expect("number"),
    }
}

fn nodes_of(case: &Value) -> Result<Vec<Node>, Error> {
    if let Some(list) = case["nodes"].as_array() {
        return list
            .iter()
            .map(|n| {
                let mut node = Node::new(hex(n["id"].as_str().expect("id")));
                if let Some(w) = n.get("weight") {
                    node = node.with_weight(Weight::new(weight_of(w))?);
                }
                if let Some(d) = n["domain"].as_str() {
                    node = node.with_domain(hex(d));
                }
                Ok(node)
            })
            .collect();
    }
    let prefix = hex(case["node_prefix"].as_str().expect("prefix"));
    let count = case["node_count"].as_u64().expect("count") as usize;
    let cycle: Option<Vec<f64>> = case["weight_cycle"]
        .as_array()
        .map(|c| c.iter().map(weight_of).collect());
    (0..count)
        .map(|i| {
            let mut id = prefix.clone();
            id.extend_from_slice(i.to_string().as_bytes());
            let node = Node::new(id);
            match &cycle {
                Some(c) => Ok(node.with_weight(Weight::new(c[i % c.len()])?)),
                None => Ok(node),
            }
        })
        .collect()
}

fn seed_of(case: &Value, default: &Value) -> Result<Seed, Error> {
    Seed::from_slice(&hex(case
        .get("seed")
        .unwrap_or(default)
        .as_str()
        .expect("seed")))
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|i| i.as_u64().expect("index") as usize)
        .collect()
}

#[test]
fn every_case() {
    let cases = every_case_in(&vectors(), None);
    assert!(cases >= 2000);
}

/// Every kernel this CPU has, through the crate's internal hook, in this one process.
#[test]
fn every_case_under_every_kernel() {
    let kernels = hrwhash::__kernel::available();
    println!("kernels run: {kernels:?}");
    assert!(kernels.contains(&"scalar"));
    for kernel in kernels {
        every_case_in(&vectors(), Some(kernel));
        every_case_in(&vectors_in("vectors-edge.json"), Some(kernel));
    }
}

/// The kernel `HRWHASH_KERNEL=forced` must give on this CPU: that one if the CPU has it, else the
/// first one below it (avx512, avx2, scalar) that it has.
fn expected_kernel(forced: &str) -> &'static str {
    let order = ["avx512", "avx2", "scalar"];
    let available = hrwhash::__kernel::available();
    let from = order
        .iter()
        .position(|k| *k == forced)
        .expect("a kernel name");
    order[from..]
        .iter()
        .find_map(|k| available.iter().find(|a| *a == k).copied())
        .expect("scalar is always available")
}

/// `HRWHASH_KERNEL` itself: this test binary again, once per kernel name, running only
/// [`every_case_as_the_process_chose`] with the variable set.
#[test]
fn every_case_under_hrwhash_kernel() {
    let exe = std::env::current_exe().expect("test binary");
    for forced in ["scalar", "avx2", "avx512"] {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "every_case_as_the_process_chose", "--nocapture"])
            .env("HRWHASH_KERNEL", forced)
            .output()
            .expect("run the test binary");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "HRWHASH_KERNEL={forced}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = format!(
            "HRWHASH_KERNEL={forced}: kernel {}",
            expected_kernel(forced)
        );
        assert!(stdout.contains(&said), "expected {said:?} in {stdout}");
        assert!(stdout.contains("1 passed"), "{stdout}");
        println!("{said}");
    }
}

/// Every case with the placements this process builds by default: with `HRWHASH_KERNEL` set
/// (see [`every_case_under_hrwhash_kernel`]) they use that kernel, which is checked first.
#[test]
fn every_case_as_the_process_chose() {
    let chosen = hrwhash::__kernel::chosen();
    if let Ok(forced) = std::env::var("HRWHASH_KERNEL") {
        assert_eq!(chosen, expected_kernel(&forced), "HRWHASH_KERNEL={forced}");
        println!("HRWHASH_KERNEL={forced}: kernel {chosen}");
    }
    let p = Placement::new(["a", "b"]).unwrap();
    assert_eq!(hrwhash::__kernel::of(&p), chosen);
    assert!(every_case_in(&vectors(), None) >= 2000);
}

#[test]
fn every_edge_case() {
    let v = vectors_in("vectors-edge.json");
    assert!(every_case_in(&v, None) > 0);
    every_draw_weight_and_error_case_in(&v);
}

/// Runs every entry of "cases", with the kernel named (`None`: the process's); returns how many
/// there were.
fn every_case_in(v: &Value, kernel: Option<&str>) -> usize {
    assert_eq!(v["algorithm"], hrwhash::ALGORITHM);
    let default = &v["default_seed"];
    assert_eq!(hex(default.as_str().unwrap()), Seed::DEFAULT.to_bytes());
    let cases = v["cases"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let seed = seed_of(case, default).unwrap();
        let p = Placement::from_nodes(seed, nodes_of(case).unwrap()).unwrap();
        let p = match kernel {
            Some(k) => hrwhash::__kernel::with(&p, k).expect("an available kernel"),
            None => p,
        };
        let key = hex(case["key"].as_str().unwrap());
        let k = case["k"].as_u64().unwrap() as usize;
        let e = &case["expected"];
        assert_eq!(key_digest(&seed, &key), u64_of(&e["key_digest"]), "{name}");
        assert_eq!(
            p.owner_index(&key),
            e["owner"].as_u64().unwrap() as usize,
            "{name}"
        );
        let rank: Vec<usize> = p.rank(&key, k).iter().map(|n| n.index()).collect();
        assert_eq!(rank, indices(&e["rank"]), "{name}");
        let full: Vec<usize> = p.ranking(&key).map(|n| n.index()).collect();
        assert_eq!(&full[..rank.len()], &rank[..], "{name}");
        if let Some(replicas) = e.get("replicas") {
            let got: Vec<usize> = p.replicas(&key, k).iter().map(|n| n.index()).collect();
            assert_eq!(got, indices(replicas), "{name}");
        }
        if let Some(digests) = e["node_digests"].as_array() {
            for (i, (d, s)) in digests
                .iter()
                .zip(e["scores"].as_array().unwrap())
                .enumerate()
            {
                let nd = node_digest(&seed, p.node(i).unwrap().id());
                assert_eq!(nd, u64_of(d), "{name} node {i}");
                assert_eq!(
                    score(key_digest(&seed, &key), nd),
                    u64_of(s),
                    "{name} node {i}"
                );
                let id = p.node(i).unwrap().id();
                assert_eq!(p.score(&key, id), Ok(u64_of(s)), "{name} node {i}");
            }
        }
    }
    cases.len()
}

#[test]
fn every_draw_weight_and_error_case() {
    every_draw_weight_and_error_case_in(&vectors());
}

fn every_draw_weight_and_error_case_in(v: &Value) {
    for c in v["draw_cases"].as_array().unwrap() {
        assert_eq!(draw(u64_of(&c["score"])), u64_of(&c["draw"]), "{c}");
    }
    for c in v["weight_cases"].as_array().unwrap() {
        let got = Weight::new(weight_of(&c["weight"]));
        match c.get("fixed") {
            Some(fixed) => assert_eq!(got.unwrap().to_fixed(), u64_of(fixed), "{c}"),
            None => assert!(matches!(got, Err(Error::InvalidWeight { .. })), "{c}"),
        }
    }
    for c in v["error_cases"].as_array().unwrap() {
        let got = seed_of(c, &v["default_seed"])
            .and_then(|seed| Placement::from_nodes(seed, nodes_of(c)?))
            .unwrap_err();
        let name = format!("{got:?}");
        let expected = c["error"].as_str().unwrap();
        assert!(
            name.starts_with(expected),
            "{}: expected {expected}, got {name}",
            c["name"]
        );
    }
}
