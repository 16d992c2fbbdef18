use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn every_generated_file_matches_the_error_table() {
    let stale: Vec<&str> = hrwhash_errors::generate_all(root())
        .expect("the table and every output are readable")
        .into_iter()
        .filter(|(_, current, fresh)| current != fresh)
        .map(|(path, _, _)| path)
        .collect();
    assert!(
        stale.is_empty(),
        "{stale:?} differ from what conformance/errors.json generates. Regenerate with: make errors"
    );
}

#[test]
fn the_table_refuses_a_reused_or_misplaced_status() {
    let raw = std::fs::read_to_string(root().join(hrwhash_errors::TABLE_PATH)).unwrap();
    let table = hrwhash_errors::Table::parse(&raw).expect("the committed table is valid");
    let ok = &table.kinds[0];
    assert_eq!((ok.name.as_str(), ok.status), ("Ok", 0));
    // The entry of status 3 given status 2: a number used twice.
    let reused = raw.replace("\"status\": 3,", "\"status\": 2,");
    let err = hrwhash_errors::Table::parse(&reused)
        .err()
        .expect("a reused number is refused");
    assert!(err.contains("never reuse"), "{err}");
    // Status 31 outside its group's range.
    let outside = raw.replace("\"status\": 31,", "\"status\": 40,");
    let err = hrwhash_errors::Table::parse(&outside)
        .err()
        .expect("a misplaced number is refused");
    assert!(err.contains("outside group"), "{err}");
}

#[test]
fn the_go_template_declares_every_code_go_has_today() {
    let raw = std::fs::read_to_string(root().join(hrwhash_errors::TABLE_PATH)).unwrap();
    let go = hrwhash_errors::render_go(&hrwhash_errors::Table::parse(&raw).unwrap());
    for line in [
        "\tCodeNullParameter            Code = 1\n",
        "\tCodeEmptyNodeID              Code = 3\n",
        "\tCodeInvalidJSON              Code = 17\n",
        "\tCodeInfeasibleReplicaWeights Code = 23\n",
        "\tErrEmptyNodeID              = &Error{Code: CodeEmptyNodeID}\n",
        "\tCodeEmptyNodeID:              \"EmptyNodeId\",\n",
    ] {
        assert!(go.contains(line), "{line:?} not in\n{go}");
    }
}
