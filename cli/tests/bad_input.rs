//! Inputs that used to crash, wrap around, drain a node, break the output format or name keys that
//! do not exist, each checked against the `hrwhash` library or an answer derived by hand.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Output, Stdio};

use hrwhash::{Node, Placement, Weight};
use serde_json::{json, Value};

mod common;
use common::{command, hrwhash, json, scratch};

/// Exit status and the one stderr line of a failing command, which printed nothing on stdout.
fn failure(args: &[&str]) -> (i32, String) {
    let out = hrwhash(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.stdout.is_empty(), "{args:?} printed a result");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    (
        out.status.code().expect("exited"),
        stderr.trim_end().to_string(),
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

// ---- counts --------------------------------------------------------------------------------

#[test]
fn simulate_add_near_the_largest_count_does_not_wrap_around() {
    // In release builds this printed "5 -> 2 nodes" and exited 0; debug builds panicked.
    let (code, line) = failure(&["simulate", "--nodes", "5", "--add", "18446744073709551613"]);
    assert_eq!(code, 2);
    assert_eq!(
        line,
        "hrwhash: error[ResultTooLarge]: --nodes 5 plus --add 18446744073709551613 is more than \
         the 100000 nodes a simulation holds"
    );
    let (code, line) = failure(&["simulate", "--add", "18446744073709551616"]);
    assert_eq!(code, 2);
    assert!(line.starts_with("hrwhash: error[InvalidCount]: --add 18446744073709551616 is more"));
    let (code, line) = failure(&["simulate", "--remove", "-1"]);
    assert_eq!(
        (code, line.as_str()),
        (2, "hrwhash: error[InvalidCount]: --remove -1 is negative")
    );
}

// ---- membership size ------------------------------------------------------------------------

/// 100,000 nodes with one key: a search of the other membership per node made this take about 40 s
/// in a release build; an index by id makes it a fraction of a second.
#[test]
fn diff_and_plan_of_100000_nodes() {
    let dir = scratch("large");
    let n = 100_000;
    let ids: Vec<String> = (0..n).map(|i| format!("node-{i}")).collect();
    // The new membership loses node-0 and gains node-new.
    let from = write(&dir, "from.txt", (ids.join("\n") + "\n").as_bytes());
    let to_ids: Vec<&str> = ids[1..]
        .iter()
        .map(String::as_str)
        .chain(["node-new"])
        .collect();
    let to = write(&dir, "to.txt", (to_ids.join("\n") + "\n").as_bytes());
    let keys = write(&dir, "keys.txt", b"the key\n");

    let started = std::time::Instant::now();
    let doc = json(&[
        "diff",
        "--from",
        &from,
        "--to",
        &to,
        "--keys-from",
        &keys,
        "--json",
    ]);
    eprintln!("diff of {n} nodes: {:?}", started.elapsed());
    let old = Placement::new(&ids).unwrap();
    let new = Placement::new(&to_ids).unwrap();
    let (a, b) = (old.owner("the key").id(), new.owner("the key").id());
    assert_eq!(doc["moved_keys"], json!(u64::from(a != b)));
    assert_eq!(doc["nodes"].as_array().unwrap().len(), n + 1);
    let row = |id: &str| {
        doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(row("node-0")["after"], Value::Null);
    assert_eq!(row("node-new")["before"], Value::Null);
    let owner = String::from_utf8(b.to_vec()).unwrap();
    assert_eq!(row(&owner)["after"], json!(1));

    let started = std::time::Instant::now();
    let plan = json(&[
        "plan",
        "--from",
        &from,
        "--to",
        &to,
        "--keys-from",
        &keys,
        "--json",
    ]);
    eprintln!("plan of {n} nodes: {:?}", started.elapsed());
    assert_eq!(plan["moved_keys"], doc["moved_keys"]);
}

// ---- node files -----------------------------------------------------------------------------

fn moved(from: &str, to: &str) -> u64 {
    let doc = json(&[
        "diff", "--from", from, "--to", to, "--keys", "2000", "--json",
    ]);
    doc["moved_keys"].as_u64().unwrap()
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_id() {
    let dir = scratch("bom");
    let plain = write(&dir, "plain.txt", b"a\nb\nc\n");
    let bom = write(&dir, "bom.txt", b"\xef\xbb\xbfa\nb\nc\n");
    // With the mark kept, the first id was "\u{feff}a" and about 2/3 of the keys moved.
    assert_eq!(moved(&plain, &bom), 0);
    let doc = json(&[
        "diff", "--from", &bom, "--to", &plain, "--keys", "1", "--json",
    ]);
    let ids: Vec<&Value> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&json!("a"), &json!("b"), &json!("c")]);
}

#[test]
fn json_node_files_are_read_as_json() {
    let dir = scratch("json");
    let lines = write(&dir, "nodes.txt", b"a\nb,2,rack-1\n\xff,0.5\n");
    let array = write(
        &dir,
        "nodes.json",
        br#"["a", {"id": "b", "weight": 2, "domain": "rack-1"}, {"id_hex": "ff", "weight": 0.5}]"#,
    );
    // The same membership in both forms; read as lines, the array was the nodes `[`, `"a"`, `]`.
    assert_eq!(moved(&lines, &array), 0);
    let doc = json(&[
        "diff", "--from", &array, "--to", &lines, "--keys", "1", "--json",
    ]);
    let rows = doc["nodes"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!((&rows[0]["id"], &rows[1]["id"]), (&json!("a"), &json!("b")));
    assert_eq!(rows[2]["id_hex"], "ff");
    assert!(rows[2].get("id").is_none());

    let cases: &[(&[u8], &str)] = &[
        (
            br#"["a", {"id": "b", "domains": "x"}]"#,
            "error[InvalidArgument]: {f} index 1: unknown field 'domains'",
        ),
        (
            br#"["a", {"id": "b", "weight": 1e-400}]"#,
            "error[InvalidWeight]: {f} index 1: weight 1e-400 is not 0",
        ),
        (
            br#"["a", {"id": "b", "weight": "2"}]"#,
            "error[InvalidArgument]: {f} index 1: the weight \"2\" is not a number",
        ),
        (
            br#"["a", {"id": "b", "id": "c"}]"#,
            "error[InvalidArgument]: {f} index 1: field 'id' is given twice",
        ),
        (
            br#"["a", 5]"#,
            "error[InvalidArgument]: {f} index 1: 5 is neither",
        ),
        (
            br#"["a", {"weight": 1}]"#,
            "error[InvalidArgument]: {f} index 1: the node has no id or id_hex",
        ),
        (
            br#"["a", "a"]"#,
            "error[DuplicateNodeId]: {f} index 1: node id 'a' is already the id at {f} index 0",
        ),
        (
            br#"["a", ""]"#,
            "error[EmptyNodeId]: {f} index 1: node id is empty",
        ),
        (b"[]", "error[EmptyMembership]: {f}: no nodes in the file"),
        (
            b"[\"a\",\n\"b\"",
            "error[InvalidArgument]: {f}: a node file starting with '[' is a JSON array",
        ),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = write(&dir, &format!("bad-{i}.json"), text);
        let (code, line) = failure(&["diff", "--from", &file, "--to", &lines]);
        assert_eq!(code, 1, "{line}");
        let expected = format!("hrwhash: {}", expected.replace("{f}", &file));
        assert!(
            line.starts_with(&expected),
            "{line}\nshould start with\n{expected}"
        );
    }
}

#[test]
fn node_ids_and_weights_on_the_command_line_are_trimmed_alike() {
    let spaced = json(&[
        "place",
        "--nodes",
        "a, b ,c",
        "--weights",
        "1, 2 ,3",
        "--k",
        "3",
        "--json",
        "x",
        "y",
    ]);
    let plain = json(&[
        "place",
        "--nodes",
        "a,b,c",
        "--weights",
        "1,2,3",
        "--k",
        "3",
        "--json",
        "x",
        "y",
    ]);
    assert_eq!(spaced, plain);
    for item in spaced.as_array().unwrap() {
        let mut rank: Vec<&str> = item["rank"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        rank.sort();
        assert_eq!(rank, ["a", "b", "c"]);
    }
}

#[test]
fn weights_that_would_drain_a_node_are_rejected() {
    for (weight, problem) in [
        // Parsed to 0 in binary64: it silently drained the node.
        (
            "1e-400",
            "weight 1e-400 is not 0 but is too small to be represented as a binary64 number",
        ),
        ("5e-324", "weight 5e-324 is not above 2^-33"),
        ("1e-12", "weight 1e-12 is not above 2^-33"),
        // Exactly 2^-33 rounds to 0 (half to even); the message said ">= 2^-33", which it is.
        (
            "1.1641532182693481e-10",
            "weight 1.1641532182693481e-10 is not above 2^-33",
        ),
    ] {
        let (code, line) = failure(&[
            "place",
            "--nodes",
            "a,b",
            "--weights",
            &format!("1,{weight}"),
            "k",
        ]);
        assert_eq!(code, 2);
        let expected = format!("hrwhash: error[InvalidWeight]: --weights index 1: {problem}");
        assert!(line.starts_with(&expected), "{line}");
        // The message must not state a rule the value meets.
        for rule in [">= 0", "finite", "< 4294967296", ">= 2^-33"] {
            assert!(!line.contains(rule), "{line}");
        }
        let dir = scratch("weights");
        let file = write(&dir, "nodes.txt", format!("a\nb,{weight}\n").as_bytes());
        let (code, line) = failure(&["diff", "--from", &file, "--to", &file]);
        assert_eq!(code, 1);
        assert!(
            line.contains(&format!("nodes.txt line 2: {problem}")),
            "{line}"
        );
    }
    let (code, line) = failure(&["place", "--nodes", "a,b", "--weights", "1,-1e-400", "k"]);
    assert_eq!(
        (code, line.as_str()),
        (
            2,
            "hrwhash: error[InvalidWeight]: --weights index 1: weight -1e-400 is negative"
        )
    );
    // -0 is 0: a drained node.
    let doc = json(&[
        "place",
        "--nodes",
        "a,b",
        "--weights",
        "-0,1",
        "--k",
        "2",
        "--json",
        "k",
    ]);
    assert_eq!(doc[0]["rank"], json!(["b"]));
    // The next binary64 above 2^-33 is the smallest weight that is kept.
    let doc = json(&[
        "place",
        "--nodes",
        "a,b",
        "--weights",
        "1,1.1641532182693484e-10",
        "--k",
        "2",
        "--json",
        "k",
    ]);
    assert_eq!(doc[0]["rank"].as_array().unwrap().len(), 2);
}

// ---- output ---------------------------------------------------------------------------------

/// Keys with a tab, a newline, a backslash or bytes that are not UTF-8 as command-line arguments.
fn tricky_keys() -> Vec<&'static [u8]> {
    vec![
        b"tab\there",
        b"new\nline",
        b"back\\slash",
        b"\xff\xfe",
        b"plain",
    ]
}

#[test]
fn text_output_escapes_what_would_break_lines_and_columns() {
    use std::os::unix::ffi::OsStrExt;
    let library = Placement::new(["a", "b", "c"]).unwrap();
    let mut cmd = command();
    cmd.args(["place", "--nodes", "a,b,c"]);
    for key in tricky_keys() {
        cmd.arg(std::ffi::OsStr::from_bytes(key));
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let shown = [
        "tab\\there",
        "new\\nline",
        "back\\\\slash",
        "\\xff\\xfe",
        "plain",
    ];
    assert_eq!(lines.len(), shown.len(), "{text}");
    for ((line, shown), key) in lines.iter().zip(shown).zip(tricky_keys()) {
        let owner = std::str::from_utf8(library.owner(key).id()).unwrap();
        assert_eq!(*line, format!("{shown}\t{owner}"));
    }
}

#[test]
fn json_output_names_only_keys_that_exist() {
    use std::os::unix::ffi::OsStrExt;
    let library = Placement::new(["a", "b", "c"]).unwrap();
    let mut cmd = command();
    cmd.args(["place", "--nodes", "a,b,c", "--json"]);
    for key in tricky_keys() {
        cmd.arg(std::ffi::OsStr::from_bytes(key));
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (item, key) in doc.as_array().unwrap().iter().zip(tricky_keys()) {
        match std::str::from_utf8(key) {
            Ok(text) => assert_eq!(item["key"], text),
            Err(_) => {
                assert_eq!(item["key_hex"], "fffe");
                assert!(item.get("key").is_none());
            }
        }
        assert_eq!(
            item["owner"].as_str().unwrap().as_bytes(),
            library.owner(key).id()
        );
    }

    // A plan over keys that are not UTF-8 lists those very keys (it used to list U+FFFD).
    let dir = scratch("plan-bytes");
    let from = write(&dir, "from.txt", b"a\nb\n");
    let to = write(&dir, "to.txt", b"a\nb\nc\nd\ne\nf\n");
    let keys: Vec<Vec<u8>> = (0u8..=255)
        .map(|b| vec![b'k', b, 0xff])
        .filter(|k| k[1] != b'\n' && k[1] != b'\r')
        .collect();
    let mut file = Vec::new();
    for k in &keys {
        file.extend_from_slice(k);
        file.push(b'\n');
    }
    let keys_file = write(&dir, "keys.txt", &file);
    let (old, new) = (
        Placement::new(["a", "b"]).unwrap(),
        Placement::new(["a", "b", "c", "d", "e", "f"]).unwrap(),
    );
    let mut expected: Vec<(Vec<u8>, Vec<u8>)> = keys
        .iter()
        .filter(|k| old.owner(k).id() != new.owner(k).id())
        .map(|k| (k.clone(), new.owner(k).id().to_vec()))
        .collect();
    assert!(!expected.is_empty());
    let plan = json(&[
        "plan",
        "--from",
        &from,
        "--to",
        &to,
        "--keys-from",
        &keys_file,
        "--json",
    ]);
    let mut planned = Vec::new();
    for m in plan["moves"].as_array().unwrap() {
        assert!(m.get("key").is_none(), "these keys are not UTF-8");
        let hex = m["key_hex"].as_str().expect("these keys are not UTF-8");
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        planned.push((bytes, m["to"].as_str().unwrap().as_bytes().to_vec()));
    }
    planned.sort();
    expected.sort();
    assert_eq!(planned, expected);

    // The text plan lists the same keys, escaped.
    let out = hrwhash(&[
        "plan",
        "--from",
        &from,
        "--to",
        &to,
        "--keys-from",
        &keys_file,
    ]);
    let text = String::from_utf8(out.stdout).expect("text output is UTF-8");
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(listed.len(), expected.len());
    assert!(
        listed
            .iter()
            .all(|k| k.starts_with('k') && k.ends_with("\\xff")),
        "{listed:?}"
    );
}

#[test]
fn ids_that_are_not_utf8_are_written_as_hex() {
    let dir = scratch("ids");
    let from = write(&dir, "from.txt", b"\xffa\nb\n");
    let to = write(&dir, "to.txt", b"b\nc\n");
    let doc = json(&[
        "diff", "--from", &from, "--to", &to, "--keys", "500", "--json",
    ]);
    let rows = doc["nodes"].as_array().unwrap();
    assert_eq!(rows[0]["id_hex"], "ff61");
    for flow in doc["flows"].as_array().unwrap() {
        assert!(
            flow.get("from").is_some() || flow["from_hex"] == "ff61",
            "{flow}"
        );
    }
    assert!(doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["from_hex"] == "ff61"));
}

// ---- stdin that fails part-way --------------------------------------------------------------

/// A socket in non-blocking mode as stdin: the keys written before the start are read, then the
/// next read fails (EAGAIN) while the other end is still open, a read error in mid-stream.
fn place_with_failing_stdin(json: bool) -> Output {
    let (ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    (&ours).write_all(b"k1\nk2\n").unwrap();
    let mut args = vec!["place", "--nodes", "a,b,c"];
    if json {
        args.push("--json");
    }
    let out = command()
        .args(&args)
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .output()
        .unwrap();
    drop(ours);
    out
}

/// `plan --keys-from -` on a stdin that yields two keys and then fails to read.
fn plan_with_failing_stdin(extra: &[&str]) -> Output {
    let (ours, theirs) = UnixStream::pair().unwrap();
    theirs.set_nonblocking(true).unwrap();
    // Both keys change owner between the two memberships.
    (&ours).write_all(b"user:1\nuser:9\n").unwrap();
    let mut args = vec![
        "plan",
        "--from",
        "testdata/nodes-old.txt",
        "--to",
        "testdata/nodes-new.txt",
        "--keys-from",
        "-",
    ];
    args.extend_from_slice(extra);
    let out = command()
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .output()
        .unwrap();
    drop(ours);
    out
}

/// A plan whose keys stop part-way still leaves one complete JSON document on stdout: the moves
/// found so far, and the error as its last member; the status says it failed.
#[test]
fn a_plan_read_error_mid_stream_leaves_a_complete_json_document() {
    for k in ["1", "2"] {
        let out = plan_with_failing_stdin(&["--json", "--k", k]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.starts_with("hrwhash: error: cannot read stdin: "),
            "{stderr}"
        );
        let doc: Value = serde_json::from_slice(&out.stdout).expect("the document is closed");
        let moves = doc["moves"].as_array().unwrap();
        let keys: Vec<&str> = moves.iter().map(|m| m["key"].as_str().unwrap()).collect();
        assert_eq!(keys, ["user:1", "user:9"], "--k {k}: {doc}");
        let error = doc["error"].as_str().unwrap();
        assert!(stderr.contains(error), "{error} vs {stderr}");
        assert!(
            doc.get("keys").is_none(),
            "no totals for keys not all read: {doc}"
        );
    }
    // In text, the moves found stay printed and no totals line claims the plan is whole.
    let out = plan_with_failing_stdin(&[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(!text.contains("# copy"), "{text}");
}

#[test]
fn a_read_error_mid_stream_leaves_valid_json_and_a_failing_status() {
    let library = Placement::new(["a", "b", "c"]).unwrap();
    let out = place_with_failing_stdin(true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("hrwhash: error: cannot read stdin: "),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("the array is closed");
    let items = doc.as_array().unwrap();
    assert_eq!(items.len(), 3, "{doc}");
    for (item, key) in items.iter().zip(["k1", "k2"]) {
        assert_eq!(item["key"], key);
        assert_eq!(
            item["owner"].as_str().unwrap().as_bytes(),
            library.owner(key).id()
        );
    }
    let error = items[2]["error"].as_str().unwrap();
    assert!(stderr.contains(error), "{error} vs {stderr}");

    let out = place_with_failing_stdin(false);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);

    // A stdin that fails at once still gives a JSON document.
    let out = command()
        .args(["place", "--nodes", "a,b", "--json"])
        .stdin(std::fs::File::open(std::env::temp_dir()).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc[0]["error"]
        .as_str()
        .unwrap()
        .starts_with("cannot read stdin"));
}

#[test]
fn weights_given_with_nodes_and_files_agree_with_the_library() {
    // A check that the JSON file path weighs nodes like the library does.
    let dir = scratch("weights-agree");
    let file = write(
        &dir,
        "nodes.json",
        br#"[{"id": "a", "weight": 3}, {"id": "b", "weight": 0}, "c"]"#,
    );
    let other = write(&dir, "other.txt", b"a\nc\n");
    let doc = json(&[
        "diff", "--from", &file, "--to", &other, "--keys", "3000", "--json",
    ]);
    let library = Placement::from_nodes(
        hrwhash::Seed::DEFAULT,
        vec![
            Node::new("a").with_weight(Weight::new(3.0).unwrap()),
            Node::new("b").with_weight(Weight::ZERO),
            Node::new("c"),
        ],
    )
    .unwrap();
    let mut a = 0;
    for i in 0..3000 {
        a += u64::from(library.owner(format!("key-{i}")).id() == b"a");
    }
    assert_eq!(doc["nodes"][0]["before"], json!(a));
    assert_eq!(doc["nodes"][1]["before"], json!(0));
}

/// A flag that selects a mode says so: `simulate --policy` runs its own join and leave, so the
/// flags of the plain simulation are refused with it rather than ignored, and only `diff`
/// compares profiles.
#[test]
fn flags_of_another_mode_are_refused() {
    for extra in [
        &["--weights", "1,2"][..],
        &["--add", "2"][..],
        &["--remove", "2"][..],
        &["--plot", "/tmp/x.svg"][..],
        &["--slots", "64"][..],
    ] {
        let mut args = vec![
            "simulate", "--nodes", "4", "--keys", "100", "--policy", "plain",
        ];
        args.extend_from_slice(extra);
        let out = hrwhash(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(stderr.contains("cannot be used with"), "{args:?}: {stderr}");
    }
    for extra in [&["--domains", "r1,r2"][..], &["--levels", "zone,rack"][..]] {
        let mut args = vec!["place", "--nodes", "a,b", "k"];
        args.extend_from_slice(extra);
        let (status, stderr) = failure(&args);
        assert_eq!(status, 2, "{args:?}");
        assert!(stderr.contains("read by --policy domains"), "{stderr}");
    }
    let out = hrwhash(&[
        "plan",
        "--from-profile",
        "go-redis-ring-v9",
        "--nodes",
        "testdata/nodes-old.txt",
        "--to",
        "testdata/nodes-new.txt",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("unexpected argument '--from-profile'"),
        "{stderr}"
    );
}

/// `--nodes` ids are bytes, like the ids of a node file and like `place`'s keys: an id that is
/// not UTF-8 owns its keys as in the library, and is written as hex in JSON, never mangled.
#[cfg(unix)]
#[test]
fn node_ids_that_are_not_utf8_are_used_byte_for_byte() {
    use std::os::unix::ffi::OsStrExt;

    let ids: [&[u8]; 3] = [b"cache-\xff", b"cache-b", b"\xfe"];
    let library = Placement::new(ids).unwrap();
    let keys: Vec<String> = (0..40).map(|i| format!("user:{i}")).collect();
    let out = command()
        .arg("place")
        .arg("--nodes")
        .arg(std::ffi::OsStr::from_bytes(b"cache-\xff,cache-b,\xfe"))
        .args(["--k", "3", "--json"])
        .args(&keys)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = |v: &Value| -> Vec<u8> {
        match v.as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => {
                let hex = v["id_hex"].as_str().unwrap();
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect()
            }
        }
    };
    let mut owners = std::collections::BTreeSet::new();
    for (item, key) in doc.as_array().unwrap().iter().zip(&keys) {
        let rank: Vec<Vec<u8>> = item["rank"].as_array().unwrap().iter().map(id).collect();
        let want: Vec<Vec<u8>> = library
            .rank(key, 3)
            .iter()
            .map(|n| n.id().to_vec())
            .collect();
        assert_eq!(rank, want, "{key}");
        owners.insert(rank[0].clone());
    }
    assert_eq!(owners.len(), 3, "every id owns some of 40 keys");
}
