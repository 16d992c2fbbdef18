//! Generator of `conformance/live-view.json`: sequences of updates offered to a live view
//! (LIVE-VIEW.md) with what each one must do. Every input is written out literally, so the file
//! is the same on every run and machine.

use hrwhash::{Error, LiveView, Seed, View};
use serde_json::{json, Map, Value};

use crate::insert_seed;

const COMMENT: &str = "Conformance cases of live views (see LIVE-VIEW.md). Each case builds a \
live view from \"initial\" (a view document, loaded with \"seed\", 32 hex digits; absent: the \
default seed) and runs \"steps\" in order. A step is one of: {\"update\": document, \"seed\"?} — \
load the document with the step's seed (absent: the case's seed, as a source does) and offer the \
view to update; when loading fails, the error is recorded as a source error (report_error) and \
nothing is offered; {\"finish_move\": true} — end the move, \"returns\" says whether one was in \
progress; {\"report_error\": kind} — a source error of that kind. \"expect\" is \"applied\", \
\"unchanged\", or {\"error\": kind name, with the error's details: \"epoch\" and \"current\" for \
StaleView, \"epoch\" for ViewConflict, as decimal strings}. After every step \"state\" gives the \
epoch (decimal string), the view fingerprint (hex), moving, last_error (the kind of the last \
refusal or source error, or null) and, for every key of \"keys\" (UTF-8 text) in order, the \
route [read, write, moved] (node ids as UTF-8 text; owner(key) is write). Moves here end by \
finish_move only: each language tests the move deadline itself.";

/// The keys routed after every step: a few edge cases, then `key-0` to `key-27`.
fn keys() -> Vec<String> {
    let mut keys: Vec<String> = ["", "a", "user:42", "session:ÿ"]
        .iter()
        .map(|k| k.to_string())
        .collect();
    keys.extend((0..28).map(|i| format!("key-{i}")));
    keys
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("ids of the cases are UTF-8")
}

fn secret() -> Seed {
    Seed::from_bytes(*b"live-view secret")
}

fn other_secret() -> Seed {
    Seed::from_bytes(*b"another seed 16b")
}

/// A view document with the default seed. `nodes` is the JSON of the node list's members.
fn doc(epoch: &str, nodes: &str) -> String {
    format!(
        r#"{{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "{epoch}", "seed": "default", "nodes": [{nodes}]}}"#
    )
}

/// A view document of a secret seed, named by its fingerprint.
fn secret_doc(epoch: &str, fingerprint: &str, nodes: &str) -> String {
    format!(
        r#"{{"format": "hrwhash-view-v1", "algorithm": "hrw-v1", "epoch": "{epoch}", "seed": "secret", "seed_fingerprint": "{fingerprint}", "nodes": [{nodes}]}}"#
    )
}

fn ids(list: &[&str]) -> String {
    list.iter()
        .map(|id| format!(r#"{{"id": "{id}"}}"#))
        .collect::<Vec<_>>()
        .join(", ")
}

enum Step {
    Update(String, Option<Seed>),
    Finish,
    Report(&'static str),
}

fn update(document: String) -> Step {
    Step::Update(document, None)
}

struct Case {
    name: &'static str,
    seed: Option<Seed>,
    initial: String,
    steps: Vec<Step>,
}

fn error_value(e: &Error) -> Value {
    let mut o = Map::new();
    o.insert("error".into(), e.kind().name().into());
    match *e {
        Error::StaleView { epoch, current } => {
            o.insert("epoch".into(), epoch.to_string().into());
            o.insert("current".into(), current.to_string().into());
        }
        Error::ViewConflict { epoch } => {
            o.insert("epoch".into(), epoch.to_string().into());
        }
        _ => {}
    }
    Value::Object(o)
}

fn state(live: &LiveView) -> Value {
    let routes: Vec<Value> = keys()
        .iter()
        .map(|k| {
            let r = live.route(k);
            assert_eq!(r.write, live.owner(k));
            json!([text(&r.read), text(&r.write), r.moved])
        })
        .collect();
    json!({
        "epoch": live.epoch().to_string(),
        "fingerprint": live.fingerprint().to_hex(),
        "moving": live.moving(),
        "last_error": live.last_error().map(kind_name),
        "routes": routes,
    })
}

fn run(case: &Case) -> Value {
    let seed = case.seed.unwrap_or(Seed::DEFAULT);
    let initial = View::from_json_bytes(case.initial.as_bytes(), seed)
        .unwrap_or_else(|e| panic!("{}: initial view: {e}", case.name));
    let live = LiveView::new(initial);
    let mut steps = Vec::new();
    for step in &case.steps {
        let mut o = Map::new();
        match step {
            Step::Update(document, step_seed) => {
                o.insert("update".into(), document.clone().into());
                insert_seed(&mut o, *step_seed);
                let outcome = View::from_json_bytes(document.as_bytes(), step_seed.unwrap_or(seed))
                    .inspect_err(|e| live.report_error(e.clone()))
                    .and_then(|view| live.update(view));
                let expect = match outcome {
                    Ok(true) => "applied".into(),
                    Ok(false) => "unchanged".into(),
                    Err(e) => error_value(&e),
                };
                o.insert("expect".into(), expect);
            }
            Step::Finish => {
                o.insert("finish_move".into(), true.into());
                o.insert("returns".into(), live.finish_move().into());
            }
            Step::Report(kind) => {
                o.insert("report_error".into(), (*kind).into());
                live.report_error(Error::Source {
                    kind: kind.to_string(),
                    message: "a source error".to_string(),
                });
            }
        }
        o.insert("state".into(), state(&live));
        steps.push(Value::Object(o));
    }
    let mut o = Map::new();
    o.insert("name".into(), case.name.into());
    insert_seed(&mut o, case.seed);
    o.insert("initial".into(), case.initial.clone().into());
    o.insert("steps".into(), steps.into());
    Value::Object(o)
}

fn cases() -> Vec<Case> {
    let abc = ids(&["a", "b", "c"]);
    let abcd = ids(&["a", "b", "c", "d"]);
    let secret_fp = hrwhash::view::Fingerprint::<8>::of(&secret()).to_hex();
    let other_fp = hrwhash::view::Fingerprint::<8>::of(&other_secret()).to_hex();
    vec![
        Case {
            name: "grow-confirm-finish",
            seed: None,
            initial: doc("1", &abc),
            steps: vec![
                update(doc("2", &abcd)),
                update(doc("2", &abcd)),
                // Node order and the weight 1 written out are not part of the fingerprint.
                update(doc(
                    "2",
                    r#"{"id": "d"}, {"id": "c", "weight": 1}, {"id": "b"}, {"id": "a"}"#,
                )),
                Step::Finish,
                Step::Finish,
            ],
        },
        Case {
            name: "stale",
            seed: None,
            initial: doc("5", &abc),
            steps: vec![
                update(doc("4", &abcd)),
                // The same membership at a lower epoch is stale too.
                update(doc("4", &abc)),
                update(doc("0", &abc)),
                update(doc("6", &abcd)),
                update(doc("5", &abc)),
            ],
        },
        Case {
            name: "conflict",
            seed: None,
            initial: doc("5", &abc),
            steps: vec![
                update(doc("5", &ids(&["a", "b", "d"]))),
                // A weight or a domain is part of the membership as much as an id.
                update(doc(
                    "5",
                    r#"{"id": "a"}, {"id": "b", "weight": 2}, {"id": "c"}"#,
                )),
                update(doc(
                    "5",
                    r#"{"id": "a", "domain": "r1"}, {"id": "b"}, {"id": "c"}"#,
                )),
                update(doc("5", &ids(&["c", "b", "a"]))),
            ],
        },
        Case {
            name: "higher-epoch-same-fingerprint",
            seed: None,
            initial: doc("1", &abc),
            steps: vec![
                update(doc("2", &ids(&["c", "a", "b"]))),
                update(doc("3", &abc)),
                Step::Finish,
            ],
        },
        Case {
            name: "update-during-a-move",
            seed: None,
            initial: doc("1", &abc),
            steps: vec![
                update(doc("2", &abcd)),
                update(doc("3", &ids(&["b", "c", "d", "e"]))),
                // A refusal during a move leaves the move as it is.
                update(doc("2", &abcd)),
                update(doc("3", &abcd)),
                Step::Finish,
                update(doc("4", &abc)),
            ],
        },
        Case {
            name: "weights-and-draining",
            seed: None,
            initial: doc("10", r#"{"id": "a"}, {"id": "b"}, {"id": "c", "domain": "r2"}"#),
            steps: vec![
                update(doc(
                    "11",
                    r#"{"id": "a", "weight": 2}, {"id": "b", "weight": 0}, {"id": "c", "domain": "r2"}"#,
                )),
                Step::Finish,
                update(doc(
                    "12",
                    r#"{"id": "a", "weight": 2}, {"id": "c", "domain": "r2"}"#,
                )),
            ],
        },
        Case {
            name: "seed-mismatch",
            seed: Some(secret()),
            initial: secret_doc("3", &secret_fp, &abc),
            steps: vec![
                // Forged: a fingerprint no seed of this live view has; fails as it loads.
                update(secret_doc("4", "0123456789abcdef", &abcd)),
                // Written for the default seed.
                update(doc("4", &abcd)),
                // Loaded with its own seed, it reaches the live view, which refuses it whatever
                // its epoch: the seed is checked first.
                Step::Update(secret_doc("4", &other_fp, &abcd), Some(other_secret())),
                Step::Update(secret_doc("2", &other_fp, &abcd), Some(other_secret())),
                Step::Update(secret_doc("3", &other_fp, &abc), Some(other_secret())),
                update(secret_doc("4", &secret_fp, &abcd)),
            ],
        },
        Case {
            name: "source-errors",
            seed: None,
            initial: doc("7", &abc),
            steps: vec![
                Step::Report("Io"),
                update(doc("7", &abc)),
                update("{\"format\": ".into()),
                update(doc("8", "")),
                update(
                    r#"{"format": "hrwhash-view-v2", "algorithm": "hrw-v1", "epoch": "8", "seed": "default", "nodes": [{"id": "a"}]}"#
                        .into(),
                ),
                update(doc("8", &abcd)),
                Step::Report("Io"),
                Step::Finish,
            ],
        },
        Case {
            name: "epoch-limits",
            seed: None,
            initial: doc("0", &abc),
            steps: vec![
                update(doc("18446744073709551615", &abcd)),
                update(doc("0", &abcd)),
                update(doc("18446744073709551615", &abc)),
                update(doc("18446744073709551615", &abcd)),
            ],
        },
    ]
}

/// The file's text: one step per line.
pub fn generate() -> String {
    let line = |v: &Value| serde_json::to_string(v).expect("serializable");
    let mut out = String::from("{\n  \"version\": \"hrwhash-live-view-v1\",\n");
    out += &format!("  \"_comment\": {},\n", line(&COMMENT.into()));
    out += &format!("  \"keys\": {},\n  \"cases\": [\n", line(&json!(keys())));
    let cases: Vec<Value> = cases().iter().map(run).collect();
    for (i, case) in cases.iter().enumerate() {
        out += "    {";
        for (name, value) in case.as_object().expect("object") {
            if name != "steps" {
                out += &format!("{}: {}, ", line(&name.as_str().into()), line(value));
            }
        }
        out += "\"steps\": [\n";
        let steps = case["steps"].as_array().expect("steps");
        for (j, step) in steps.iter().enumerate() {
            out += "      ";
            out += &line(step);
            out += if j + 1 < steps.len() { ",\n" } else { "\n" };
        }
        out += if i + 1 < cases.len() {
            "    ]},\n"
        } else {
            "    ]}\n"
        };
    }
    out += "  ]\n}\n";
    out
}

/// The name the cases give a live view's last error: a source's own kind, else the error kind.
fn kind_name(e: Error) -> String {
    match e {
        Error::Source { kind, .. } => kind,
        e => e.kind().name().to_string(),
    }
}
