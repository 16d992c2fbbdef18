//! Generator of `conformance/views.json`: the hrwhash-view-v1 cases (VIEW.md) every
//! implementation must reproduce. Every input is written out literally or built from fixed
//! formulas, so the file is the same on every run and machine.

use hrwhash::ramp::GRID;
use hrwhash::transition::Transition;
use hrwhash::view::Fingerprint;
use hrwhash::{Error, Node, Placement, RampPlan, Seed, View, Weight};
use serde_json::{json, Map, Value};

use crate::{hex, insert_seed, JsonFile};

const COMMENT: &str = "Conformance cases of the hrwhash-view-v1 format (see VIEW.md). A document \
is given as \"document\" (its UTF-8 text) or, when it is not UTF-8, as \"document_hex\"; \"seed\" \
(32 hex digits) is the seed to load it with (absent: the default seed). valid: documents with their \
canonical form, view fingerprint, seed fingerprint, epoch (decimal string) and owners (build-order \
index of the owner of each key; keys are UTF-8 text). equivalent: pairs of documents that load to \
the same fingerprint and canonical form. invalid: documents that must be rejected with \"error\" \
(an error name of SPEC.md 7 or VIEW.md 5) and, for InvalidView, \"field\", \"index\" (0-based \
node position, or null) and \"reason\". movement: fixed-point weights before and after per id \
(decimal strings, 0 for absent) with expected_moved and optimum (VIEW.md 6.1, 6.2; binary64 values \
that must be reproduced exactly). ramps: two documents and max_move, with every step's epoch, grid \
position, moved, removes_drained and its view's weights (id and fixed-point weight in step-view \
order), and the plan's total_moved, direct_moved and optimum; or the error the plan fails with.";

const KEYS: [&str; 6] = ["", "a", "user:42", "session:ÿ", "key-0", "key-99999"];

fn document(out: &mut Map<String, Value>, name: &str, doc: &[u8]) {
    match std::str::from_utf8(doc) {
        Ok(text) => out.insert(name.into(), text.into()),
        Err(_) => out.insert(format!("{name}_hex"), hex(doc).into()),
    };
}

fn load(doc: &[u8], seed: Option<Seed>) -> Result<View, Error> {
    View::from_json_bytes(doc, seed.unwrap_or(Seed::DEFAULT))
}

fn secret() -> Seed {
    Seed::from_bytes(*b"not the default!")
}

fn valid_case(name: &str, doc: &str, seed: Option<Seed>) -> Value {
    let view = load(doc.as_bytes(), seed).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    document(&mut o, "document", doc.as_bytes());
    insert_seed(&mut o, seed);
    let canonical = view.to_json();
    // The canonical form is a fixed point of loading and writing.
    let again = load(canonical.as_bytes(), seed).expect("canonical form loads");
    assert_eq!(again.to_json(), canonical, "{name}");
    assert_eq!(again.fingerprint(), view.fingerprint(), "{name}");
    o.insert("canonical".into(), canonical.into());
    o.insert("fingerprint".into(), view.fingerprint().to_hex().into());
    o.insert(
        "seed_fingerprint".into(),
        view.seed_fingerprint().to_hex().into(),
    );
    o.insert("epoch".into(), view.epoch().to_string().into());
    let owners: Vec<Value> = KEYS
        .iter()
        .map(|k| json!({"key": k, "owner": view.placement().owner_index(k)}))
        .collect();
    o.insert("owners".into(), owners.into());
    Value::Object(o)
}

const HEAD: &str = r#""format": "hrwhash-view-v1", "algorithm": "hrw-v1""#;

fn doc(epoch: &str, nodes: &str) -> String {
    format!(r#"{{{HEAD}, "epoch": "{epoch}", "seed": "default", "nodes": [{nodes}]}}"#)
}

fn generated_nodes(n: usize) -> String {
    (0..n)
        .map(|i| {
            let w = [1.0, 2.0, 0.5, 3.25][i % 4];
            let domain = i % 7;
            if w == 1.0 {
                format!(r#"{{"id": "node-{i}", "domain": "rack-{domain}"}}"#)
            } else {
                format!(r#"{{"id": "node-{i}", "weight": {w}, "domain": "rack-{domain}"}}"#)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn valid_cases() -> Vec<Value> {
    let secret_fp = Fingerprint::<8>::of(&secret()).to_hex();
    let default_fp = Fingerprint::<8>::of(&Seed::DEFAULT).to_hex();
    vec![
        valid_case("three-nodes", &doc("1", r#"{"id": "a"}, {"id": "b"}, {"id": "c"}"#), None),
        valid_case("one-node-epoch-zero", &doc("0", r#"{"id": "only"}"#), None),
        valid_case("largest-epoch", &doc("18446744073709551615", r#"{"id": "x"}, {"id": "y"}"#), None),
        valid_case(
            "weights",
            &doc(
                "7",
                r#"{"id": "w0", "weight": 0}, {"id": "w-tenth", "weight": 0.1},
                   {"id": "w-half", "weight": 0.5}, {"id": "w-two", "weight": 2},
                   {"id": "w-tiny", "weight": 2.3283064365386963e-10},
                   {"id": "w-largest", "weight": 4294967295.9999995},
                   {"id": "w-frac", "weight": 123456.789}"#,
            ),
            None,
        ),
        valid_case(
            "domains",
            &doc(
                "3",
                r#"{"id": "a1", "domain": "rack-a"}, {"id": "a2", "domain": "rack-a"},
                   {"id": "b1", "domain": "rack-b"}, {"id": "e1", "domain": ""},
                   {"id": "n1"}, {"id": "x1", "domain_hex": "ff00"}"#,
            ),
            None,
        ),
        valid_case(
            "binary-ids",
            &doc(
                "4",
                r#"{"id_hex": "ff"}, {"id_hex": "00"}, {"id_hex": "c328"}, {"id": "ascii"},
                   {"id_hex": "ed9fbf"}, {"id_hex": "eda080"}"#,
            ),
            None,
        ),
        valid_case(
            "escaped-text",
            &doc(
                "5",
                r#"{"id": "quote\"back\\slash"}, {"id": "tab\tnl\ncr\rff\fbs\b"},
                   {"id": "ctl\u0001\u001f del\u007f"}, {"id": "caf\u00e9 \u2028 \ud83d\ude00 /"},
                   {"id": "plain é"}"#,
            ),
            None,
        ),
        valid_case(
            "secret-seed",
            &format!(
                r#"{{{HEAD}, "epoch": "12", "seed": "secret", "seed_fingerprint": "{secret_fp}", "nodes": [{{"id": "a"}}, {{"id": "b", "weight": 3}}]}}"#
            ),
            Some(secret()),
        ),
        valid_case(
            "secret-spelling-of-default",
            &format!(
                r#"{{{HEAD}, "epoch": "2", "seed": "secret", "seed_fingerprint": "{}", "nodes": [{{"id": "a"}}]}}"#,
                default_fp.to_uppercase()
            ),
            None,
        ),
        valid_case(
            "shuffled-members-and-whitespace",
            "\r\n\t {\"nodes\":[{\"weight\":2e0,\"id\":\"b\"} ,{\"domain\":\"r\",\"weight\":1.0,\"id\":\"a\"}],\n\"seed\":\"default\",\"epoch\":\"9\",\"algorithm\":\"hrw-v1\",\"format\":\"hrwhash-view-v1\"}\n\n",
            None,
        ),
        valid_case("generated-200", &doc("1000", &generated_nodes(200)), None),
    ]
}

fn equivalent_cases() -> Vec<Value> {
    let pairs: [(&str, String, String); 7] = [
        (
            "node-order",
            doc("1", r#"{"id": "a"}, {"id": "b", "weight": 2}, {"id": "c"}"#),
            doc("1", r#"{"id": "c"}, {"id": "a"}, {"id": "b", "weight": 2}"#),
        ),
        (
            "omitted-weight-is-one",
            doc("1", r#"{"id": "a"}, {"id": "b"}"#),
            doc(
                "1",
                r#"{"id": "a", "weight": 1.0}, {"id": "b", "weight": 1e0}"#,
            ),
        ),
        (
            "epoch-is-not-fingerprinted",
            doc("1", r#"{"id": "a"}, {"id": "b"}"#),
            doc("99", r#"{"id": "a"}, {"id": "b"}"#),
        ),
        (
            "weight-spellings",
            doc(
                "1",
                r#"{"id": "a", "weight": 0.1}, {"id": "b", "weight": 0}"#,
            ),
            doc(
                "1",
                r#"{"id": "a", "weight": 0.1000000000931322574615478515625}, {"id": "b", "weight": -0}"#,
            ),
        ),
        (
            "hex-for-text",
            doc("1", r#"{"id": "a", "domain": "r1"}, {"id": "\u00e9"}"#),
            doc(
                "1",
                r#"{"id_hex": "61", "domain_hex": "7231"}, {"id_hex": "C3A9"}"#,
            ),
        ),
        (
            "escapes",
            doc("1", r#"{"id": "a/b"}, {"id": "é"}"#),
            doc("1", r#"{"id": "a\/b"}, {"id": "\u00E9"}"#),
        ),
        (
            "weight-rounding",
            doc("1", r#"{"id": "a", "weight": 1.00000000001}, {"id": "b"}"#),
            doc("1", r#"{"id": "a"}, {"id": "b"}"#),
        ),
    ];
    pairs
        .iter()
        .map(|(name, a, b)| {
            let (va, vb) = (
                load(a.as_bytes(), None).unwrap(),
                load(b.as_bytes(), None).unwrap(),
            );
            assert_eq!(va.fingerprint(), vb.fingerprint(), "{name}");
            assert_eq!(
                va.with_epoch(0).to_json(),
                vb.with_epoch(0).to_json(),
                "{name}"
            );
            json!({"name": name, "a": a, "b": b, "fingerprint": va.fingerprint().to_hex()})
        })
        .collect()
}

fn invalid_case(name: &str, doc: &[u8], seed: Option<Seed>) -> Value {
    let err = match load(doc, seed) {
        Ok(_) => panic!("{name} must be rejected"),
        Err(e) => e,
    };
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    document(&mut o, "document", doc);
    insert_seed(&mut o, seed);
    let variant = format!("{err:?}");
    let variant = variant
        .split([' ', '{', '('])
        .next()
        .unwrap_or_default()
        .to_string();
    o.insert("error".into(), variant.into());
    match err {
        Error::InvalidView {
            field,
            index,
            reason,
        } => {
            o.insert("field".into(), field.into());
            o.insert("index".into(), json!(index));
            o.insert("reason".into(), reason.name().into());
        }
        Error::EmptyNodeId { index } => {
            o.insert("index".into(), json!(index));
        }
        Error::DuplicateNodeId { index, first_index } => {
            o.insert("index".into(), json!(index));
            o.insert("first_index".into(), json!(first_index));
        }
        _ => {}
    }
    Value::Object(o)
}

fn invalid_cases() -> Vec<Value> {
    let a = r#"{"id": "a"}"#;
    let with = |member: &str| {
        format!(r#"{{{HEAD}, "epoch": "1", "seed": "default", {member}, "nodes": [{a}]}}"#)
    };
    let without = |drop: &str| {
        let members = [
            ("format", r#""format": "hrwhash-view-v1""#.to_string()),
            ("algorithm", r#""algorithm": "hrw-v1""#.to_string()),
            ("epoch", r#""epoch": "1""#.to_string()),
            ("seed", r#""seed": "default""#.to_string()),
            ("nodes", format!(r#""nodes": [{a}]"#)),
        ];
        let kept: Vec<String> = members
            .iter()
            .filter(|(n, _)| *n != drop)
            .map(|(_, m)| m.clone())
            .collect();
        format!("{{{}}}", kept.join(", "))
    };
    let top = |format: &str, algorithm: &str, epoch: &str, seed: &str| {
        format!(
            r#"{{"format": {format}, "algorithm": {algorithm}, "epoch": {epoch}, "seed": {seed}, "nodes": [{a}]}}"#
        )
    };
    let s = |x: &str| format!("\"{x}\"");
    let good = doc("1", a);
    let mut invalid_utf8 = good.clone().into_bytes();
    invalid_utf8[good.find("\"a\"").unwrap_or(0) + 1] = 0xff;
    let cases: Vec<(String, Vec<u8>, Option<Seed>)> = vec![
        ("not-json".into(), b"nodes: a, b".to_vec(), None),
        ("empty-text".into(), b"".to_vec(), None),
        ("trailing-garbage".into(), format!("{good} x").into_bytes(), None),
        ("two-documents".into(), format!("{good}{good}").into_bytes(), None),
        ("truncated".into(), good.as_bytes()[..good.len() - 2].to_vec(), None),
        ("invalid-utf8".into(), invalid_utf8, None),
        ("lone-surrogate".into(), doc("1", r#"{"id": "\ud800"}"#).into_bytes(), None),
        ("number-beyond-binary64".into(), doc("1", r#"{"id": "a", "weight": 1e400}"#).into_bytes(), None),
        // Malformed JSON is malformed wherever it is, even in a member that is then unknown.
        ("number-beyond-binary64-in-unknown-member".into(), with(r#""x": [1e400]"#).into_bytes(), None),
        ("lone-surrogate-in-unknown-member".into(), with(r#""x": {"\udc00": 1}"#).into_bytes(), None),
        ("nan-literal".into(), doc("1", r#"{"id": "a", "weight": NaN}"#).into_bytes(), None),
        ("raw-control-character".into(), doc("1", "{\"id\": \"a\u{1}\"}").into_bytes(), None),
        ("trailing-comma".into(), doc("1", r#"{"id": "a"},"#).into_bytes(), None),
        // The document object and 127 arrays: 128 levels, one more than the limit.
        ("nesting-128-levels".into(), with(&format!(r#""x": {}1{}"#, "[".repeat(127), "]".repeat(127))).into_bytes(), None),
        // 127 levels parse, and then the member is unknown.
        ("nesting-127-levels".into(), with(&format!(r#""x": {}1{}"#, "[".repeat(126), "]".repeat(126))).into_bytes(), None),
        ("array-document".into(), format!("[{good}]").into_bytes(), None),
        ("string-document".into(), b"\"hrwhash-view-v1\"".to_vec(), None),
        ("unknown-member".into(), with(r#""comment": "hi""#).into_bytes(), None),
        ("unknown-before-missing".into(), format!(r#"{{"zzz": 1, {HEAD}}}"#).into_bytes(), None),
        ("duplicate-member".into(), with(r#""epoch": "2""#).into_bytes(), None),
        ("duplicate-same-value".into(), with(r#""format": "hrwhash-view-v1""#).into_bytes(), None),
        ("missing-format".into(), without("format").into_bytes(), None),
        ("missing-algorithm".into(), without("algorithm").into_bytes(), None),
        ("missing-epoch".into(), without("epoch").into_bytes(), None),
        ("missing-seed".into(), without("seed").into_bytes(), None),
        ("missing-nodes".into(), without("nodes").into_bytes(), None),
        ("other-format".into(), top(&s("hrwhash-view-v2"), &s("hrw-v1"), &s("1"), &s("default")).into_bytes(), None),
        ("format-not-string".into(), top("1", &s("hrw-v1"), &s("1"), &s("default")).into_bytes(), None),
        ("other-algorithm".into(), top(&s("hrwhash-view-v1"), &s("hrw-v2"), &s("1"), &s("default")).into_bytes(), None),
        ("algorithm-case".into(), top(&s("hrwhash-view-v1"), &s("HRW-V1"), &s("1"), &s("default")).into_bytes(), None),
        ("format-checked-before-algorithm".into(), top(&s("v0"), &s("v0"), &s("1"), &s("default")).into_bytes(), None),
        ("epoch-number".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), "1", &s("default")).into_bytes(), None),
        ("epoch-leading-zero".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("01"), &s("default")).into_bytes(), None),
        ("epoch-negative".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("-1"), &s("default")).into_bytes(), None),
        ("epoch-empty".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s(""), &s("default")).into_bytes(), None),
        ("epoch-space".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s(" 1"), &s("default")).into_bytes(), None),
        ("epoch-overflow".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("18446744073709551616"), &s("default")).into_bytes(), None),
        ("epoch-21-digits".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("100000000000000000000"), &s("default")).into_bytes(), None),
        ("seed-unknown".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("1"), &s("public")).into_bytes(), None),
        ("seed-not-string".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("1"), "null").into_bytes(), None),
        ("seed-hex-instead-of-fingerprint".into(), top(&s("hrwhash-view-v1"), &s("hrw-v1"), &s("1"), &s("687277686173682d76312d736565642e")).into_bytes(), None),
        ("default-with-fingerprint".into(), with(r#""seed_fingerprint": "0011223344556677""#).into_bytes(), None),
        ("secret-without-fingerprint".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "nodes": [{a}]}}"#).into_bytes(), None),
        ("secret-fingerprint-short".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "seed_fingerprint": "00112233", "nodes": [{a}]}}"#).into_bytes(), None),
        ("secret-fingerprint-not-hex".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "seed_fingerprint": "zz112233445566zz", "nodes": [{a}]}}"#).into_bytes(), None),
        ("secret-fingerprint-number".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "seed_fingerprint": 12, "nodes": [{a}]}}"#).into_bytes(), None),
        ("nodes-object".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "default", "nodes": {a}}}"#).into_bytes(), None),
        ("nodes-empty".into(), doc("1", "").into_bytes(), None),
        ("node-not-object".into(), doc("1", r#"{"id": "a"}, "b""#).into_bytes(), None),
        ("node-unknown-member".into(), doc("1", r#"{"id": "a"}, {"id": "b", "zone": "z"}"#).into_bytes(), None),
        ("node-duplicate-member".into(), doc("1", r#"{"id": "a", "weight": 1, "weight": 2}"#).into_bytes(), None),
        ("node-missing-id".into(), doc("1", r#"{"id": "a"}, {"weight": 2}"#).into_bytes(), None),
        ("node-id-and-id-hex".into(), doc("1", r#"{"id": "a", "id_hex": "61"}"#).into_bytes(), None),
        ("node-id-number".into(), doc("1", r#"{"id": "a"}, {"id": 7}"#).into_bytes(), None),
        ("node-id-null".into(), doc("1", r#"{"id": null}"#).into_bytes(), None),
        ("node-id-hex-odd".into(), doc("1", r#"{"id_hex": "616"}"#).into_bytes(), None),
        ("node-id-hex-not-hex".into(), doc("1", r#"{"id_hex": "6g"}"#).into_bytes(), None),
        ("node-id-hex-number".into(), doc("1", r#"{"id_hex": 61}"#).into_bytes(), None),
        ("weight-string".into(), doc("1", r#"{"id": "a", "weight": "2"}"#).into_bytes(), None),
        ("weight-bool".into(), doc("1", r#"{"id": "a", "weight": true}"#).into_bytes(), None),
        ("weight-null".into(), doc("1", r#"{"id": "a", "weight": null}"#).into_bytes(), None),
        ("weight-negative".into(), doc("1", r#"{"id": "a"}, {"id": "b", "weight": -1}"#).into_bytes(), None),
        ("weight-2-pow-32".into(), doc("1", r#"{"id": "a", "weight": 4294967296}"#).into_bytes(), None),
        ("weight-huge-integer".into(), doc("1", r#"{"id": "a", "weight": 100000000000000000000000}"#).into_bytes(), None),
        ("weight-too-small".into(), doc("1", r#"{"id": "a", "weight": 1e-10}"#).into_bytes(), None),
        ("weight-subnormal".into(), doc("1", r#"{"id": "a", "weight": 5e-324}"#).into_bytes(), None),
        ("domain-and-domain-hex".into(), doc("1", r#"{"id": "a", "domain": "r", "domain_hex": "72"}"#).into_bytes(), None),
        ("domain-number".into(), doc("1", r#"{"id": "a", "domain": 1}"#).into_bytes(), None),
        ("domain-null".into(), doc("1", r#"{"id": "a", "domain": null}"#).into_bytes(), None),
        ("domain-hex-bad".into(), doc("1", r#"{"id": "a", "domain_hex": "xyz"}"#).into_bytes(), None),
        ("node-checked-before-later-nodes".into(), doc("1", r#"{"id": 1}, {"id": "b", "weight": -1}"#).into_bytes(), None),
        ("bad-weight-before-empty-id".into(), doc("1", r#"{"id": ""}, {"id": "b", "weight": -1}"#).into_bytes(), None),
        ("empty-id".into(), doc("1", r#"{"id": "a"}, {"id": ""}"#).into_bytes(), None),
        ("empty-id-hex".into(), doc("1", r#"{"id_hex": ""}"#).into_bytes(), None),
        ("duplicate-id".into(), doc("1", r#"{"id": "a"}, {"id": "b"}, {"id": "a"}"#).into_bytes(), None),
        ("duplicate-id-spelled-differently".into(), doc("1", r#"{"id": "a"}, {"id_hex": "61"}"#).into_bytes(), None),
        ("empty-id-before-duplicate".into(), doc("1", r#"{"id": "a"}, {"id": "a"}, {"id": ""}"#).into_bytes(), None),
        ("all-weights-zero".into(), doc("1", r#"{"id": "a", "weight": 0}, {"id": "b", "weight": 0.0}"#).into_bytes(), None),
        ("default-view-secret-seed".into(), good.clone().into_bytes(), Some(secret())),
        ("secret-view-default-seed".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "seed_fingerprint": "{}", "nodes": [{a}]}}"#, Fingerprint::<8>::of(&secret()).to_hex()).into_bytes(), None),
        ("secret-view-other-secret".into(), format!(r#"{{{HEAD}, "epoch": "1", "seed": "secret", "seed_fingerprint": "{}", "nodes": [{a}]}}"#, Fingerprint::<8>::of(&secret()).to_hex()).into_bytes(), Some(Seed::from_bytes([0; 16]))),
        ("membership-checked-before-seed".into(), doc("1", r#"{"id": "a"}, {"id": "a"}"#).into_bytes(), Some(secret())),
    ];
    cases
        .into_iter()
        .map(|(name, d, seed)| invalid_case(&name, &d, seed))
        .collect()
}

fn w(x: f64) -> u64 {
    Weight::new(x).unwrap().to_fixed()
}

/// An id with its fixed-point weight before and after (0: absent).
type Track = (&'static str, u64, u64);

fn movement_cases() -> Vec<Value> {
    let cases: [(&str, Vec<Track>); 7] = [
        (
            "add-one-of-six",
            (0..6)
                .map(|i| {
                    (
                        ["a", "b", "c", "d", "e", "f"][i],
                        if i < 5 { w(1.0) } else { 0 },
                        w(1.0),
                    )
                })
                .collect(),
        ),
        (
            "remove-one",
            vec![
                ("a", w(1.0), w(1.0)),
                ("b", w(1.0), 0),
                ("c", w(1.0), w(1.0)),
            ],
        ),
        (
            "drain-and-join",
            vec![
                ("a", w(1.0), w(1.0)),
                ("b", w(1.0), 0),
                ("c", w(1.0), w(1.0)),
                ("d", 0, w(2.0)),
            ],
        ),
        (
            "reweigh",
            vec![
                ("a", w(1.0), w(2.0)),
                ("b", w(2.0), w(2.0)),
                ("c", w(3.0), w(1.0)),
                ("d", w(0.5), 0),
                ("e", w(4.0), w(4.0)),
                ("f", 0, w(1.5)),
            ],
        ),
        (
            "scale-all",
            vec![
                ("a", w(1.0), w(3.0)),
                ("b", w(2.0), w(6.0)),
                ("c", w(0.25), w(0.75)),
            ],
        ),
        (
            "unchanged-with-drained",
            vec![("a", w(1.0), w(1.0)), ("z", 0, 0), ("b", w(1.0), w(1.0))],
        ),
        (
            "extreme-weights",
            vec![
                ("a", 1, (1 << 53) - 1),
                ("b", u64::MAX - 2047, 1),
                ("c", w(1.0), w(1.0)),
            ],
        ),
    ];
    cases
        .iter()
        .map(|(name, nodes)| {
            let build = |side: usize| {
                let list: Vec<Node> = nodes
                    .iter()
                    .filter(|n| side == 0 || n.2 != 0 || n.1 == 0)
                    .filter(|n| side == 1 || n.1 != 0 || n.2 == 0)
                    .map(|n| Node::new(n.0).with_weight(Weight::from_fixed(if side == 0 { n.1 } else { n.2 })))
                    .collect();
                Placement::from_nodes(Seed::DEFAULT, list).unwrap()
            };
            let t = Transition::new(&build(0), &build(1));
            json!({
                "name": name,
                "nodes": nodes.iter().map(|n| json!({"id": n.0, "old": n.1.to_string(), "new": n.2.to_string()})).collect::<Vec<_>>(),
                "expected_moved": t.expected_moved(),
                "optimum": t.optimum(),
            })
        })
        .collect()
}

fn ramp_case(name: &str, from: &str, to: &str, max_move: f64) -> Value {
    let (a, b) = (
        load(from.as_bytes(), None).unwrap(),
        load(to.as_bytes(), None).unwrap(),
    );
    let mut o = Map::new();
    o.insert("name".into(), name.into());
    o.insert("from".into(), from.into());
    o.insert("to".into(), to.into());
    o.insert("max_move".into(), json!(max_move));
    match RampPlan::new(&a, &b, max_move) {
        Err(e) => {
            let variant = format!("{e:?}");
            o.insert(
                "error".into(),
                variant.split([' ', '{']).next().unwrap_or_default().into(),
            );
            // A step epoch past 2^64 - 1 has the details of the invalid documents.
            if let Error::InvalidView {
                field,
                index,
                reason,
            } = &e
            {
                o.insert("field".into(), field.as_str().into());
                o.insert("index".into(), json!(index));
                o.insert("reason".into(), reason.name().into());
            }
        }
        Ok(plan) => {
            let steps: Vec<Value> = plan
                .steps()
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let view = plan.view(i).unwrap();
                    assert_eq!(view.epoch(), s.epoch);
                    let weights: Vec<Value> = plan
                        .weights(i)
                        .unwrap()
                        .iter()
                        .map(|(id, w)| {
                            let mut o = Map::new();
                            document(&mut o, "id", id);
                            o.insert("weight".into(), w.to_fixed().to_string().into());
                            Value::Object(o)
                        })
                        .collect();
                    json!({
                        "epoch": s.epoch.to_string(),
                        "position": s.position,
                        "moved": s.moved,
                        "removes_drained": s.removes_drained,
                        "weights": weights,
                    })
                })
                .collect();
            if let Some(i) = plan.steps().len().checked_sub(1) {
                assert_eq!(plan.view(i).unwrap().fingerprint(), b.fingerprint());
            }
            o.insert("grid".into(), json!(GRID));
            o.insert("steps".into(), steps.into());
            o.insert("total_moved".into(), json!(plan.total_moved()));
            o.insert("direct_moved".into(), json!(plan.direct_moved()));
            o.insert("optimum".into(), json!(plan.optimum()));
        }
    }
    Value::Object(o)
}

fn ramp_cases() -> Vec<Value> {
    let four = doc(
        "10",
        r#"{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}"#,
    );
    let five = doc(
        "11",
        r#"{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}, {"id": "e"}"#,
    );
    let three = doc("3", r#"{"id": "a"}, {"id": "b"}, {"id": "c"}"#);
    let swap = doc("4", r#"{"id": "a"}, {"id": "c"}, {"id": "d", "weight": 2}"#);
    let weighted = doc(
        "20",
        r#"{"id": "a", "weight": 1}, {"id": "b", "weight": 2}, {"id": "c", "weight": 3}"#,
    );
    let reweighed = doc(
        "21",
        r#"{"id": "a", "weight": 3}, {"id": "b", "weight": 2}, {"id": "c", "weight": 1}, {"id": "z", "weight": 0}"#,
    );
    vec![
        ramp_case("join-5-percent", &four, &five, 0.05),
        ramp_case("join-in-one-step", &four, &five, 0.25),
        ramp_case("drain-and-join", &three, &swap, 0.1),
        ramp_case("reverse-weights", &weighted, &reweighed, 0.07),
        ramp_case("leave-in-one-step", &five, &four, 1.0),
        ramp_case(
            "no-change",
            &four,
            &doc(
                "12",
                r#"{"id": "d"}, {"id": "c"}, {"id": "b"}, {"id": "a"}"#,
            ),
            0.05,
        ),
        ramp_case("limit-too-small", &four, &five, 1e-9),
        ramp_case("limit-zero", &four, &five, 0.0),
        // The step's epoch would be 2^64 (VIEW.md 7).
        ramp_case(
            "step-epoch-past-2^64-1",
            &doc(
                "18446744073709551615",
                r#"{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}"#,
            ),
            &five,
            1.0,
        ),
    ]
}

/// The whole views file, byte for byte.
pub fn generate() -> String {
    JsonFile::new()
        .string("format", "hrwhash-view-v1")
        .string("_comment", COMMENT)
        .string(
            "default_seed_fingerprint",
            &Fingerprint::<8>::of(&Seed::DEFAULT).to_hex(),
        )
        .section("valid", &valid_cases())
        .section("equivalent", &equivalent_cases())
        .section("invalid", &invalid_cases())
        .section("movement", &movement_cases())
        .section("ramps", &ramp_cases())
        .finish()
}
