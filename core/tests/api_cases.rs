//! Every case of conformance/api-cases.json that Rust can pose, through the public API as a user
//! would write it: the seed first (`Seed::from_slice`), then each node with `Weight::new`, then
//! `Placement::from_nodes`, so the first error in API.md's order is the one a user meets.

use hrwhash::policy::SlotTable;
use hrwhash::v1::key_digest;
use hrwhash::{Error, Node, Placement, Seed, Weight};
use serde_json::Value;

const LANGUAGE: &str = "rust";

fn cases_file() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/api-cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("api-cases.json")).expect("JSON")
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A text or byte-string value as bytes.
fn bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Object(o) if o.len() == 1 && o.contains_key("bytes") => {
            hex(o["bytes"].as_str().expect("bytes hex"))
        }
        Value::Object(o) if o.len() == 1 && o.contains_key("utf16") => {
            let units = hex(o["utf16"].as_str().expect("utf16 hex"));
            let units: Vec<u16> = units
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16(&units)
                .expect("a lone surrogate has no Rust form; the case must say so")
                .into_bytes()
        }
        other => panic!("not a text or byte-string value form for Rust: {other}"),
    }
}

/// A list of texts, literal or `{"range": ...}`.
fn list(v: &Value) -> Vec<Vec<u8>> {
    match v {
        Value::Array(items) => items.iter().map(bytes).collect(),
        Value::Object(o) if o.len() == 1 && o.contains_key("range") => {
            let r = &o["range"];
            let prefix = r["prefix"].as_str().expect("prefix");
            let count = r["count"].as_u64().expect("count");
            (0..count)
                .map(|i| format!("{prefix}{i}").into_bytes())
                .collect()
        }
        other => panic!("not a list value form for Rust: {other}"),
    }
}

fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("binary64"),
        Value::Object(o) if o.len() == 1 && o.contains_key("float") => {
            match o["float"].as_str().expect("float name") {
                "nan" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                other => panic!("unknown float {other}"),
            }
        }
        other => panic!("not a number value form for Rust: {other}"),
    }
}

/// Whether a value holds an `{"int": ...}` above `usize::MAX`.
fn has_int_above_usize(v: &Value) -> bool {
    match v {
        Value::Object(o) if o.len() == 1 && o.contains_key("int") => o["int"]
            .as_str()
            .is_some_and(|s| s.parse::<usize>().is_err()),
        Value::Object(o) => o.values().any(has_int_above_usize),
        Value::Array(a) => a.iter().any(has_int_above_usize),
        _ => false,
    }
}

/// A count: Rust's `k` is a `usize`.
fn count(v: &Value) -> usize {
    match v {
        Value::Number(n) => {
            usize::try_from(n.as_u64().expect("a non-negative integer k")).expect("usize")
        }
        Value::Object(o) if o.len() == 1 && o.contains_key("int") => o["int"]
            .as_str()
            .expect("decimal")
            .parse()
            .expect("a usize k"),
        other => panic!("not a count value form for Rust: {other}"),
    }
}

/// A failure with the position the runner knows it at: `Weight::new` has no node index, so a
/// weight's error is reported where the user built that node.
#[derive(Debug)]
struct Failure {
    error: Error,
    weight_index: Option<usize>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure {
            error,
            weight_index: None,
        }
    }
}

fn weight_at(w: f64, index: usize) -> Result<Weight, Failure> {
    Weight::new(w).map_err(|error| Failure {
        error,
        weight_index: Some(index),
    })
}

fn known_keys(o: &serde_json::Map<String, Value>, allowed: &[&str], what: &str) {
    for k in o.keys() {
        assert!(allowed.contains(&k.as_str()), "unknown {what} key {k:?}");
    }
}

/// `new` the way a Rust user writes it.
fn build(args: &Value) -> Result<Placement, Failure> {
    let args = args.as_object().expect("args");
    known_keys(
        args,
        &["nodes", "weights", "domains", "seed"],
        "new argument",
    );
    let seed = match args.get("seed") {
        None => Seed::DEFAULT,
        Some(v) => Seed::from_slice(&bytes(v))?,
    };
    let ids = list(&args["nodes"]);
    if let Some(w) = args.get("weights") {
        let w = w.as_array().expect("weights list");
        assert_eq!(w.len(), ids.len(), "Rust weights are per node");
    }
    let mut nodes = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let mut node = Node::new(id);
        if let Some(w) = args.get("weights") {
            node = node.with_weight(weight_at(number(&w[i]), i)?);
        }
        if let Some(d) = args.get("domains") {
            let d = d.as_array().expect("domains list");
            assert_eq!(d.len(), ids.len(), "Rust domains are per node");
            if !d[i].is_null() {
                node = node.with_domain(bytes(&d[i]));
            }
        }
        nodes.push(node);
    }
    Ok(Placement::from_nodes(seed, nodes)?)
}

enum Answer {
    Built(Placement),
    List(usize),
    Rows { rows: usize, row_len: usize },
    Fixed(u64),
    Score(u64),
    Done,
}

fn call(case: &Value) -> Result<Answer, Failure> {
    let args = &case["args"];
    let op = case["op"].as_str().expect("op");
    if op == "new" {
        return build(args).map(Answer::Built);
    }
    let on = || build(&case["placement"]).expect("the case's placement is valid");
    let key = || bytes(&args["key"]);
    Ok(match op {
        "owner" => {
            let p = on();
            p.owner(key());
            Answer::Done
        }
        "rank" => Answer::List(on().rank(key(), count(&args["k"])).len()),
        "replicas" => Answer::List(on().replicas(key(), count(&args["k"])).len()),
        "replicas_strict" => Answer::List(on().replicas_strict(key(), count(&args["k"]))?.len()),
        "score" => Answer::Score(on().score(key(), bytes(&args["node"]))?),
        "owners" => {
            let keys = list(&args["keys"]);
            Answer::List(on().owners(&keys).len())
        }
        "rank_many" => {
            let p = on();
            let keys = list(&args["keys"]);
            let k = count(&args["k"]);
            // The caller provides keys x k slots; their number is checked before any allocation.
            let slots = keys.len().checked_mul(k);
            let mut out = vec![0usize; slots.unwrap_or(0)];
            let row_len = p.rank_many_into(&keys, k, &mut out)?;
            Answer::Rows {
                rows: keys.len(),
                row_len,
            }
        }
        "with_node" => {
            let p = on();
            let mut node = Node::new(bytes(&args["node"]));
            if let Some(w) = args.get("weight") {
                node = node.with_weight(weight_at(number(w), p.len())?);
            }
            if let Some(d) = args.get("domain").filter(|d| !d.is_null()) {
                node = node.with_domain(bytes(d));
            }
            Answer::Built(p.with_node(node)?)
        }
        "without_node" => Answer::Built(on().without_node(bytes(&args["node"]))?),
        "with_weight" => {
            let p = on();
            let id = bytes(&args["node"]);
            let index = p.find(&id).map_or(usize::MAX, |n| n.index());
            let w = weight_at(number(&args["weight"]), index)?;
            Answer::Built(p.with_weight(&id, w)?)
        }
        "set_weight" => {
            // The core checks the id, then the number as a weight (SLOT-HISTORY.md 7).
            let mut t = SlotTable::new(&on(), 64)?;
            t.set_weight(bytes(&args["node"]), number(&args["weight"]))?;
            Answer::Done
        }
        "weight_fixed" => Answer::Fixed(Weight::new(number(&args["weight"]))?.to_fixed()),
        "key_digest" => {
            let seed = match args.get("seed") {
                None => Seed::DEFAULT,
                Some(v) => Seed::from_slice(&bytes(v))?,
            };
            key_digest(&seed, &key());
            Answer::Done
        }
        "node_digest" => {
            hrwhash::v1::node_digest(&Seed::DEFAULT, &bytes(&args["node"]));
            Answer::Done
        }
        other => panic!("unknown op {other}"),
    })
}

fn variant(e: &Error) -> &'static str {
    match e {
        Error::EmptyMembership => "EmptyMembership",
        Error::EmptyNodeId { .. } => "EmptyNodeId",
        Error::DuplicateNodeId { .. } => "DuplicateNodeId",
        Error::InvalidWeight { .. } => "InvalidWeight",
        Error::AllWeightsZero => "AllWeightsZero",
        Error::InvalidSeedLength { .. } => "InvalidSeedLength",
        Error::LengthMismatch { .. } => "LengthMismatch",
        Error::UnknownNode => "UnknownNode",
        Error::InvalidText { .. } => "InvalidText",
        Error::InvalidCount => "InvalidCount",
        Error::ResultTooLarge => "ResultTooLarge",
        Error::InvalidReplicaCount { .. } => "InvalidReplicaCount",
        other => panic!("a variant API.md does not name: {other:?}"),
    }
}

fn check_error(name: &str, case: &Value, got: Failure) {
    let want = case["error"].as_str().expect("error variant");
    assert_eq!(variant(&got.error), want, "{name}: {got:?}");
    let detail = |k: &str| case.get(k).map(|v| v.as_u64().expect("detail") as usize);
    match got.error {
        Error::EmptyNodeId { index } => assert_eq!(Some(index), detail("index"), "{name}"),
        Error::DuplicateNodeId { index, first_index } => {
            assert_eq!(Some(index), detail("index"), "{name}");
            assert_eq!(Some(first_index), detail("first_index"), "{name}");
        }
        Error::InvalidWeight { value } => {
            assert_eq!(got.weight_index, detail("index"), "{name}");
            let given = match case["op"].as_str() {
                Some("new") => {
                    number(&case["args"]["weights"][got.weight_index.expect("a node's weight")])
                }
                _ => number(&case["args"]["weight"]),
            };
            assert!(
                value == given || (value.is_nan() && given.is_nan()),
                "{name}: {value}"
            );
        }
        Error::InvalidSeedLength { len } => assert_eq!(Some(len), detail("actual"), "{name}"),
        Error::LengthMismatch { expected, actual } => {
            assert_eq!(Some(expected), detail("expected"), "{name}");
            assert_eq!(Some(actual), detail("actual"), "{name}");
        }
        _ => {
            for k in ["index", "first_index", "expected", "actual"] {
                assert!(case.get(k).is_none(), "{name}: {want} has no {k} in Rust");
            }
        }
    }
}

fn check_result(name: &str, case: &Value, got: Answer) {
    let result = case["result"].as_object().expect("result");
    for (k, want) in result {
        match (k.as_str(), &got) {
            ("ok", _) => assert_eq!(want, &Value::Bool(true), "{name}"),
            ("len", Answer::List(n)) | ("len", Answer::Rows { rows: n, .. }) => {
                assert_eq!(*n as u64, want.as_u64().unwrap(), "{name}")
            }
            ("row_len", Answer::Rows { row_len, .. }) => {
                assert_eq!(*row_len as u64, want.as_u64().unwrap(), "{name}")
            }
            ("selectable", Answer::Built(p)) => {
                assert_eq!(p.selectable_len() as u64, want.as_u64().unwrap(), "{name}")
            }
            ("weights", Answer::Built(p)) => {
                let want: Vec<Weight> = want
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| Weight::new(number(w)).unwrap())
                    .collect();
                let got: Vec<Weight> = p.nodes().map(|n| n.weight()).collect();
                assert_eq!(got, want, "{name}");
            }
            ("owner_of_every_key", Answer::Built(p)) => {
                let want = want.as_str().unwrap().as_bytes();
                for i in 0..64 {
                    assert_eq!(p.owner(i.to_string()).id(), want, "{name}: key {i}");
                }
            }
            ("default_seed", Answer::Built(p)) => {
                assert_eq!(p.seed() == Seed::DEFAULT, want.as_bool().unwrap(), "{name}")
            }
            ("fixed", Answer::Fixed(f)) => {
                assert_eq!(f.to_string(), want.as_str().unwrap(), "{name}")
            }
            ("score", Answer::Score(s)) => {
                assert_eq!(s.to_string(), want.as_str().unwrap(), "{name}")
            }
            (k, _) => panic!("{name}: result key {k:?} does not apply to this answer"),
        }
    }
}

#[test]
fn every_case_rust_can_pose() {
    let file = cases_file();
    assert_eq!(file["version"], "hrwhash-api-v1");
    let languages: Vec<&str> = file["languages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(languages.contains(&LANGUAGE));
    let ops = file["ops"].as_object().unwrap();
    let not_offered: Vec<&str> = file["not_offered"][LANGUAGE]
        .as_array()
        .expect("a not_offered list for rust")
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    let (mut ran, mut not_expressible, mut skipped_ops) = (0, 0, Vec::new());
    for case in file["cases"].as_array().unwrap() {
        let name = case["name"].as_str().expect("name");
        let op = case["op"].as_str().expect("op");
        assert!(ops.contains_key(op), "{name}: unknown op {op}");
        known_keys(
            case.as_object().unwrap(),
            &[
                "name",
                "op",
                "args",
                "placement",
                "error",
                "result",
                "not_expressible",
                "index",
                "first_index",
                "expected",
                "actual",
            ],
            "case",
        );
        if let Some(ne) = case.get("not_expressible") {
            for lang in ne.as_object().unwrap().keys() {
                assert!(
                    languages.contains(&lang.as_str()),
                    "{name}: language {lang}"
                );
            }
            if ne.get(LANGUAGE).is_some() {
                not_expressible += 1;
                continue;
            }
        }
        if not_offered.contains(&op) {
            skipped_ops.push(name);
            continue;
        }
        // The cases are written for 64-bit targets: a count above 2^32 - 1 is no `usize` on a
        // 32-bit one, where a caller cannot pass it.
        if usize::BITS < 64 && has_int_above_usize(&case["args"]) {
            not_expressible += 1;
            continue;
        }
        match (call(case), case.get("error"), case.get("result")) {
            (Err(got), Some(_), None) => check_error(name, case, got),
            (Ok(got), None, Some(_)) => check_result(name, case, got),
            (Ok(_), Some(e), None) => panic!("{name}: succeeded, expected {e}"),
            (Err(got), None, Some(_)) => panic!("{name}: failed with {got:?}"),
            _ => panic!("{name}: a case has exactly one of error and result"),
        }
        ran += 1;
    }
    println!(
        "api-cases.json, rust: {ran} cases ran, {not_expressible} not expressible, {} not offered {:?}",
        skipped_ops.len(),
        skipped_ops
    );
    assert!(ran > 0);
}
