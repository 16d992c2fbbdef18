//! `hrwhash slot-table FILE [KEY...]`: load a slot table from its document
//! (conformance/SLOT-HISTORY.md), replay it, and print its table fingerprint, final view and the
//! owner of each key.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use hrwhash::policy::{SlotMode, SlotTable, SLOT_HISTORY_FORMAT};
use serde_json::{json, Map, Value};

use crate::error::{variant_name, CliError};
use crate::input::{arg_bytes, parse_seed};
use crate::output::{escaped, json_doc, put_text};

#[derive(clap::Args)]
pub struct Args {
    /// The slot table's document (hrwhash-slot-history-v1 JSON, conformance/SLOT-HISTORY.md).
    #[arg(value_name = "FILE")]
    file: OsString,
    /// Keys whose slot and owner to print, used byte for byte (as `place` takes them).
    #[arg(value_name = "KEY")]
    keys: Vec<OsString>,
    /// The secret seed the document was written for, 32 hex digits (default: the public seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Print the canonical form of the document instead (what a writer publishes).
    #[arg(long, conflicts_with = "json")]
    canonical: bool,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
}

/// The mode's name, as `--mode` spells it.
pub fn mode_name(mode: SlotMode) -> &'static str {
    match mode {
        SlotMode::Levelled => "levelled",
        SlotMode::Ranked { .. } => "ranked",
    }
}

/// Reads, checks and replays a slot table's document; errors name the file.
pub fn load(path: &OsString, seed: hrwhash::Seed) -> Result<SlotTable, CliError> {
    let shown = Path::new(path).display().to_string();
    let invalid = |e: &hrwhash::Error| CliError::Invalid {
        variant: variant_name(e),
        usage: false,
        message: format!("{shown}: {e}"),
    };
    let bytes = crate::view::read_document(path, &shown, invalid)?;
    SlotTable::from_json_bytes(&bytes, seed).map_err(|e| invalid(&e))
}

pub fn run(a: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let keys: Vec<Vec<u8>> = a.keys.iter().map(|k| arg_bytes(k)).collect();
    let table = load(&a.file, seed)?;
    if a.canonical {
        write!(out, "{}", table.to_json())?;
        return Ok(());
    }
    let mode = table.mode();
    let view = table.view();
    if a.json {
        let keys: Vec<Value> = keys
            .iter()
            .map(|k| {
                let mut o = Map::new();
                put_text(&mut o, "key", k);
                o.insert("slot".into(), table.slot(k).into());
                put_text(&mut o, "owner", table.owner(k).id());
                Value::Object(o)
            })
            .collect();
        let doc = json!({
            "format": SLOT_HISTORY_FORMAT,
            "policy": mode.policy(),
            "mode": mode_name(mode),
            "overload_ppm": table.overload_ppm(),
            "epoch": table.epoch().to_string(),
            "slots": table.slots(),
            "initial_nodes": table.initial().len(),
            "changes": table.changes().len(),
            "nodes": table.placement().len(),
            "table_fingerprint": table.fingerprint().to_hex(),
            "view_fingerprint": view.fingerprint().to_hex(),
            "seed_fingerprint": view.seed_fingerprint().to_hex(),
            "keys": keys,
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: valid slot table ({SLOT_HISTORY_FORMAT}, {})",
        Path::new(&a.file).display(),
        mode.policy()
    )?;
    let bound = match table.overload_ppm() {
        Some(p) => format!(", overload bound {p} ppm"),
        None if matches!(mode, SlotMode::Ranked { .. }) => ", unbounded".to_string(),
        None => String::new(),
    };
    writeln!(out, "mode               {}{bound}", mode_name(mode))?;
    writeln!(out, "epoch              {}", table.epoch())?;
    writeln!(out, "slots              {}", table.slots())?;
    writeln!(
        out,
        "changes            {} (from {} nodes to {})",
        table.changes().len(),
        table.initial().len(),
        table.placement().len()
    )?;
    writeln!(out, "table fingerprint  {}", table.fingerprint())?;
    writeln!(out, "view fingerprint   {}", view.fingerprint())?;
    if !keys.is_empty() {
        writeln!(out, "\n  {:<24} {:>8}  owner", "key", "slot")?;
        for k in &keys {
            writeln!(
                out,
                "  {:<24} {:>8}  {}",
                escaped(k),
                table.slot(k),
                escaped(table.owner(k).id())
            )?;
        }
    }
    Ok(())
}
