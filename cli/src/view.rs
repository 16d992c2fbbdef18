//! `hrwhash view FILE`: check a view document and show its epoch, fingerprints and shares.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use clap::Args;
use hrwhash::{Seed, View};
use serde_json::{json, Map, Value};

use crate::error::{from_core, CliError};
use crate::input::parse_seed;

#[derive(Args)]
pub struct ViewArgs {
    /// The view document (hrwhash-view-v1 JSON, conformance/VIEW.md).
    #[arg(value_name = "FILE")]
    file: OsString,
    /// The secret seed the view was written for, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
}

/// Whether a membership file is a view: its first character other than whitespace is `{` (a node
/// file is lines of ids or a JSON array). An unreadable file is left to the node-file reader.
pub fn is_view_file(path: &OsString) -> bool {
    std::fs::read(path).is_ok_and(|b| b.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'{'))
}

/// Reads and checks a view file; errors name the file and, for a node, its 0-based index.
pub fn load(path: &OsString, seed: Seed) -> Result<View, CliError> {
    let shown = Path::new(path).display().to_string();
    let bytes = std::fs::read(path).map_err(|e| CliError::Input(format!("{shown}: {e}")))?;
    View::from_json_bytes(&bytes, seed).map_err(|e| in_file(&shown, &e))
}

/// A core error about a view file, in the words of the command line.
pub fn in_file(shown: &str, e: &hrwhash::Error) -> CliError {
    let at = |i: usize| format!("nodes[{i}]");
    if let hrwhash::Error::DuplicateNodeId { index, first_index } = e {
        return CliError::input(
            "DuplicateNodeId",
            format!(
                "{shown}: {}: duplicate node id (already the id of {})",
                at(*index),
                at(*first_index)
            ),
        );
    }
    match from_core(e, false, &|i| format!("of {}", at(i)), &at) {
        CliError::Invalid {
            variant,
            usage,
            message,
        } => CliError::Invalid {
            variant,
            usage,
            message: format!("{shown}: {message}"),
        },
        other => other,
    }
}

/// Text for a terminal: the bytes when they are UTF-8, otherwise `0x` and hex.
pub fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => format!("0x{}", hex(bytes)),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `"name": text` when the bytes are UTF-8, `"name_hex": hex` otherwise.
pub fn text_member(o: &mut Map<String, Value>, name: &str, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => o.insert(name.into(), s.into()),
        Err(_) => o.insert(format!("{name}_hex"), hex(bytes).into()),
    };
}

pub fn run(a: &ViewArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let view = load(&a.file, seed)?;
    let p = view.placement();
    let total: f64 = p.node_specs().iter().map(|n| n.weight().to_f64()).sum();
    let share = |w: f64| w / total;
    if a.json {
        let nodes: Vec<Value> = p
            .node_specs()
            .iter()
            .map(|n| {
                let mut o = Map::new();
                text_member(&mut o, "id", n.id());
                o.insert("weight".into(), json!(n.weight().to_f64()));
                o.insert("share".into(), json!(share(n.weight().to_f64())));
                if let Some(d) = n.domain() {
                    text_member(&mut o, "domain", d);
                }
                Value::Object(o)
            })
            .collect();
        let doc = json!({
            "format": hrwhash::view::VIEW_FORMAT,
            "algorithm": hrwhash::ALGORITHM,
            "epoch": view.epoch().to_string(),
            "fingerprint": view.fingerprint().to_hex(),
            "seed": if view.has_default_seed() { "default" } else { "secret" },
            "seed_fingerprint": view.seed_fingerprint().to_hex(),
            "nodes": nodes,
        });
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )?;
        return Ok(());
    }
    let seed_name = if view.has_default_seed() {
        "default"
    } else {
        "secret"
    };
    writeln!(
        out,
        "{}: valid view ({}, {})",
        Path::new(&a.file).display(),
        hrwhash::view::VIEW_FORMAT,
        hrwhash::ALGORITHM
    )?;
    writeln!(out, "epoch        {}", view.epoch())?;
    writeln!(out, "fingerprint  {}", view.fingerprint())?;
    writeln!(
        out,
        "seed         {seed_name} (fingerprint {})",
        view.seed_fingerprint()
    )?;
    writeln!(
        out,
        "nodes        {} ({} selectable)",
        p.len(),
        p.selectable_len()
    )?;
    writeln!(
        out,
        "\n  {:<16} {:>10} {:>8}  domain",
        "node", "weight", "share"
    )?;
    for n in p.node_specs() {
        writeln!(
            out,
            "  {:<16} {:>10} {:>7.2}%  {}",
            show(n.id()),
            n.weight().to_f64(),
            100.0 * share(n.weight().to_f64()),
            n.domain().map_or_else(|| "-".to_string(), show)
        )?;
    }
    Ok(())
}
