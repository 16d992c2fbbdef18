//! `hrwhash diff` and `hrwhash plan`: which keys change owner (or, with `--k R`, replica set)
//! between two memberships, and from which node to which, so data can be copied before the
//! switch. `hrwhash::Transition` decides everything; this module reads keys and writes results.
//! Keys are read as they are used and a plan is written as it is found, so neither command holds
//! the keys in memory.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use hrwhash::transition::{Diff, NodeChange, RouteSet};
use hrwhash::{Lookup, Placement, Transition};
use serde_json::{json, Map, Value};

use crate::error::CliError;
use crate::input::{KeyEvent, Keys};
use crate::output::{escaped, flow_json, json_doc, node_keys_json, put_text, text_item};
use crate::plot;

/// What `diff` and `plan` were asked for beyond the memberships and the keys.
pub struct Options {
    /// Replicas per key compared (1: the owner).
    pub k: usize,
    pub json: bool,
    pub quiet: bool,
    /// `diff --plot`: per-node load before and after, as SVG.
    pub plot: Option<OsString>,
    /// `plan --summary`: counts only.
    pub summary: bool,
}

fn id(p: &Placement, i: usize) -> &[u8] {
    p.node(i).map_or(&[], |n| n.id())
}

/// The id of either node of a row, from whichever membership holds it; any two memberships, so
/// that a diff with an incumbent's profile names its nodes as `diff` does.
fn row_id<A: Lookup, B: Lookup>(
    t: &Transition<A, B>,
    old: Option<usize>,
    new: Option<usize>,
) -> &[u8] {
    match (old, new) {
        (Some(i), _) => t.old_placement().node_id(i),
        (None, Some(j)) => t.new_placement().node_id(j),
        (None, None) => &[],
    }
}

pub fn percent(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// `name` and the text, or `<name>_hex` and the hex when the bytes are not UTF-8.
fn text_pair(name: &str, bytes: &[u8]) -> (String, Value) {
    let mut m = Map::new();
    put_text(&mut m, name, bytes);
    m.into_iter().next().unwrap_or_default()
}

/// A JSON object with its members in the given order (serde_json's map sorts them), so that
/// each streamed move starts with its key.
fn ordered(members: &[(String, Value)]) -> String {
    let parts: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}:{v}", Value::from(k.as_str())))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// A node of a diff as JSON: its id and its keys before and after.
pub fn node_json<A: Lookup, B: Lookup>(t: &Transition<A, B>, n: &NodeChange) -> Map<String, Value> {
    node_keys_json(
        row_id(t, n.old_index, n.new_index),
        n.old_index.map(|_| n.before),
        n.new_index.map(|_| n.after),
    )
}

/// A node's replica copies to add and to drop, added to its JSON object.
fn with_copies(mut m: Map<String, Value>, n: &NodeChange) -> Map<String, Value> {
    m.insert("added".into(), json!(n.added));
    m.insert("dropped".into(), json!(n.dropped));
    m
}

/// The flows (from, to, keys) of a diff of owners as JSON.
pub fn flows_json<A: Lookup, B: Lookup>(
    t: &Transition<A, B>,
    d: &Diff<A, B>,
) -> Vec<Map<String, Value>> {
    let (from, to) = (t.old_placement(), t.new_placement());
    d.flows()
        .iter()
        .map(|&(f, t, count)| flow_json(from.node_id(f), to.node_id(t), count))
        .collect()
}

/// Each node of a diff with its keys (or replicas) before and after, the rows of `--plot`.
pub fn load_rows<A: Lookup, B: Lookup>(
    t: &Transition<A, B>,
    d: &Diff<A, B>,
) -> Vec<(Vec<u8>, [u64; 2])> {
    d.nodes()
        .iter()
        .map(|n| {
            (
                row_id(t, n.old_index, n.new_index).to_vec(),
                [n.before, n.after],
            )
        })
        .collect()
}

/// "M of N keys (P%)": the share of the keys that move, as each line of a plan and of its
/// summary states it.
fn share_of_keys(d: &Diff) -> String {
    format!(
        "{} of {} keys ({:.2}%)",
        d.moved(),
        d.keys(),
        percent(d.moved(), d.keys())
    )
}

fn show(c: Option<u64>) -> String {
    c.map_or_else(|| "-".to_string(), |c| c.to_string())
}

/// A node's first three cells in the node tables of `diff`: its id, then its count before and
/// after, "-" where it is not a member.
fn node_cells<A: Lookup, B: Lookup>(t: &Transition<A, B>, n: &NodeChange) -> [String; 3] {
    [
        escaped(row_id(t, n.old_index, n.new_index)),
        show(n.old_index.map(|_| n.before)),
        show(n.new_index.map(|_| n.after)),
    ]
}

/// Counts owners (k = 1) or replica sets over every key.
fn count(t: &Transition, keys: Keys, opts: &Options) -> Result<Counts, CliError> {
    let bar = keys.progress("diff", opts.quiet);
    // In blocks, so that the core digests several keys at once for both memberships.
    let mut d = if opts.k == 1 {
        t.diff()
    } else {
        t.diff_top(opts.k)
    };
    keys.for_each_block(&bar, |keys| {
        d.add_many(keys);
        Ok(())
    })?;
    Ok(if opts.k == 1 {
        Counts::Owners(d)
    } else {
        Counts::Replicas(d)
    })
}

enum Counts {
    Owners(Diff),
    Replicas(Diff),
}

pub fn diff(
    from: &Placement,
    to: &Placement,
    keys: Keys,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let t = Transition::new(from, to);
    let counts = count(&t, keys, opts)?;
    if let Some(path) = &opts.plot {
        let (caption, unit, d) = match &counts {
            Counts::Owners(d) => (format!("keys per node, {} keys", d.keys()), "keys", d),
            Counts::Replicas(d) => (
                format!("replicas per node, {} keys x {} replicas", d.keys(), d.k()),
                "replicas",
                d,
            ),
        };
        let rows = load_rows(&t, d);
        plot::node_loads(Path::new(path), &caption, unit, &["before", "after"], &rows)?;
    }
    match counts {
        Counts::Owners(d) => diff_owners(&t, &d, opts.json, out),
        Counts::Replicas(d) => diff_replicas(&t, &d, opts.json, out),
    }
}

fn diff_owners(
    t: &Transition,
    d: &Diff,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (from, to) = (t.old_placement(), t.new_placement());
    let optimum = 100.0 * t.optimum();
    if as_json {
        let doc = json!({
            "algorithm": hrwhash::ALGORITHM,
            "keys": d.keys(),
            "nodes_before": from.len(),
            "nodes_after": to.len(),
            "moved_keys": d.moved(),
            "moved_percent": percent(d.moved(), d.keys()),
            "optimum_percent": optimum,
            "flows": flows_json(t, d),
            "nodes": d.nodes().iter().map(|n| node_json(t, n)).collect::<Vec<_>>(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "hrwhash diff ({}): {} keys, {} -> {} nodes",
        hrwhash::ALGORITHM,
        d.keys(),
        from.len(),
        to.len()
    )?;
    writeln!(
        out,
        "moved: {} keys ({:.2}%), optimum {:.2}%",
        d.moved(),
        percent(d.moved(), d.keys()),
        optimum
    )?;
    owner_tables(t, d, out)
}

/// The flows (from, to, keys) and the nodes of a diff of owners, as text tables: any two
/// memberships, so that a diff with an incumbent's profile prints them as `diff` does.
pub fn owner_tables<A: Lookup, B: Lookup>(
    t: &Transition<A, B>,
    d: &Diff<A, B>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (from, to) = (t.old_placement(), t.new_placement());
    writeln!(out, "\nflows\n  {:<16} {:<16} {:>10}", "from", "to", "keys")?;
    for (f_from, f_to, f_count) in d.flows() {
        writeln!(
            out,
            "  {:<16} {:<16} {:>10}",
            escaped(from.node_id(f_from)),
            escaped(to.node_id(f_to)),
            f_count
        )?;
    }
    writeln!(
        out,
        "\nnodes\n  {:<16} {:>10} {:>10} {:>10}",
        "node", "before", "after", "change"
    )?;
    for n in d.nodes() {
        let [node, before, after] = node_cells(t, &n);
        writeln!(
            out,
            "  {node:<16} {before:>10} {after:>10} {:>+10}",
            n.after as i128 - n.before as i128
        )?;
    }
    Ok(())
}

fn diff_replicas(
    t: &Transition,
    d: &Diff,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (from, to) = (t.old_placement(), t.new_placement());
    if as_json {
        let doc = json!({
            "algorithm": hrwhash::ALGORITHM,
            "keys": d.keys(),
            "k": d.k(),
            "nodes_before": from.len(),
            "nodes_after": to.len(),
            "changed_keys": d.moved(),
            "changed_percent": percent(d.moved(), d.keys()),
            "copies_added": d.copies_added(),
            "copies_dropped": d.copies_dropped(),
            "nodes": d.nodes().iter().map(|n| {
                with_copies(node_json(t, n), n)
            }).collect::<Vec<_>>(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "hrwhash diff ({}): {} keys, {} -> {} nodes, {} replicas per key",
        hrwhash::ALGORITHM,
        d.keys(),
        from.len(),
        to.len(),
        d.k()
    )?;
    writeln!(
        out,
        "replica set changed: {} keys ({:.2}%); copies to add {}, to drop {}",
        d.moved(),
        percent(d.moved(), d.keys()),
        d.copies_added(),
        d.copies_dropped()
    )?;
    writeln!(
        out,
        "\nreplicas per node\n  {:<16} {:>10} {:>10} {:>10} {:>10}",
        "node", "before", "after", "added", "dropped"
    )?;
    for n in d.nodes() {
        let [node, before, after] = node_cells(t, &n);
        writeln!(
            out,
            "  {node:<16} {before:>10} {after:>10} {:>10} {:>10}",
            n.added, n.dropped
        )?;
    }
    Ok(())
}

pub fn plan(
    from: &Placement,
    to: &Placement,
    keys: Keys,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let t = Transition::new(from, to);
    if opts.summary {
        return plan_summary(&t, count(&t, keys, opts)?, opts.json, out);
    }
    // The first line waits for the first key, so that input without keys prints nothing.
    let header = if opts.json {
        let k = if opts.k == 1 {
            String::new()
        } else {
            format!("\n  \"k\": {},", opts.k)
        };
        format!(
            "{{\n  \"algorithm\": \"{}\",{k}\n  \"moves\": [",
            hrwhash::ALGORITHM
        )
    } else if opts.k == 1 {
        format!(
            "# hrwhash plan ({}): key, node to copy it from, node to copy it to\n",
            hrwhash::ALGORITHM
        )
    } else {
        format!(
            "# hrwhash plan ({}, {} replicas): key, node to copy it from, replicas to add, replicas to drop\n",
            hrwhash::ALGORITHM,
            opts.k
        )
    };
    if opts.k == 1 {
        let mut d = t.diff();
        let listed = plan_moves(keys, opts, header, out, |key| {
            let r = d.route(key);
            if !r.moved {
                return None;
            }
            Some(if opts.json {
                Move::Json(vec![
                    text_pair("key", key),
                    text_pair("from", id(from, r.old_index)),
                    text_pair("to", id(to, r.new_index)),
                ])
            } else {
                Move::Line(format!(
                    "{}\t{}\t{}",
                    escaped(key),
                    escaped(id(from, r.old_index)),
                    escaped(id(to, r.new_index))
                ))
            })
        })?;
        if opts.json {
            writeln!(
                out,
                "{},\n  \"keys\": {},\n  \"moved_keys\": {}\n}}",
                close(listed),
                d.keys(),
                d.moved()
            )?;
        } else {
            writeln!(
                out,
                "# copy {} to their new owner before switching",
                share_of_keys(&d)
            )?;
        }
        return Ok(());
    }
    let ids = |p: &Placement, v: &[usize]| -> String {
        if v.is_empty() {
            return "-".into();
        }
        v.iter()
            .map(|&i| escaped(id(p, i)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut d = t.diff_top(opts.k);
    let listed = plan_moves(keys, opts, header, out, |key| {
        let s: &RouteSet = d.route_top(key);
        if !s.changed() {
            return None;
        }
        // The old first replica holds the key until the switch: the copy source.
        let source = id(from, s.before[0]);
        Some(if opts.json {
            Move::Json(vec![
                text_pair("key", key),
                text_pair("from", source),
                (
                    "add".into(),
                    s.add.iter().map(|&j| text_item("id", id(to, j))).collect(),
                ),
                (
                    "drop".into(),
                    s.drop
                        .iter()
                        .map(|&i| text_item("id", id(from, i)))
                        .collect(),
                ),
            ])
        } else {
            Move::Line(format!(
                "{}\t{}\t{}\t{}",
                escaped(key),
                escaped(source),
                ids(to, &s.add),
                ids(from, &s.drop)
            ))
        })
    })?;
    if opts.json {
        writeln!(
            out,
            "{},\n  \"keys\": {},\n  \"changed_keys\": {},\n  \"copies_added\": {},\n  \"copies_dropped\": {}\n}}",
            close(listed),
            d.keys(),
            d.moved(),
            d.copies_added(),
            d.copies_dropped()
        )?;
    } else {
        writeln!(
            out,
            "# {} change replica set: {} copies to add, {} to drop",
            share_of_keys(&d),
            d.copies_added(),
            d.copies_dropped()
        )?;
    }
    Ok(())
}

/// One key of a plan that moves: its JSON members or its tab-separated line.
enum Move {
    Json(Vec<(String, Value)>),
    Line(String),
}

/// The end of the JSON list of `listed` moves.
fn close(listed: u64) -> &'static str {
    if listed == 0 {
        "]"
    } else {
        "\n  ]"
    }
}

/// Writes the move `each` finds for every key (None: the key stays) after `header`, which waits
/// for the first key; returns how many moves it listed, with the header written either way.
fn plan_moves(
    keys: Keys,
    opts: &Options,
    header: String,
    out: &mut dyn Write,
    mut each: impl FnMut(&[u8]) -> Option<Move>,
) -> Result<u64, CliError> {
    let bar = keys.progress("plan", opts.quiet);
    let mut header = Some(header);
    let mut listed = 0u64;
    let begin = |header: &mut Option<String>, out: &mut dyn Write| -> std::io::Result<()> {
        match header.take() {
            Some(h) => out.write_all(h.as_bytes()),
            None => Ok(()),
        }
    };
    // Written as found; flushed whenever reading on may wait, so a reader of a pipe sees each
    // move while the input is still open.
    let result = keys.for_each(&bar, |e| {
        let key = match e {
            KeyEvent::Key(key) => key,
            KeyEvent::Waiting => return Ok(out.flush()?),
        };
        begin(&mut header, out)?;
        match each(key) {
            None => {}
            Some(Move::Json(m)) => {
                let sep = if listed == 0 { "\n" } else { ",\n" };
                listed += 1;
                write!(out, "{sep}    {}", ordered(&m))?;
            }
            Some(Move::Line(line)) => writeln!(out, "{line}")?,
        }
        Ok(())
    });
    ended(result, &header, listed, opts.json, out)?;
    begin(&mut header, out)?;
    Ok(listed)
}

/// Ends a plan whose keys could not all be read: a JSON document already begun (`header` taken)
/// is closed with the error as its last member, so stdout holds either nothing or one complete
/// document; the error is then returned.
fn ended(
    result: Result<u64, CliError>,
    header: &Option<String>,
    listed: u64,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let e = match result {
        Ok(_) => return Ok(()),
        Err(e @ CliError::Output(_)) => return Err(e),
        Err(e) => e,
    };
    if as_json && header.is_none() {
        writeln!(
            out,
            "{},\n  \"error\": {}\n}}",
            close(listed),
            Value::from(e.to_string())
        )?;
    }
    Err(e)
}

/// `plan --summary`: the counts of a plan without its keys.
fn plan_summary(
    t: &Transition,
    counts: Counts,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (from, to) = (t.old_placement(), t.new_placement());
    let noun = |n: u64| if n == 1 { "key" } else { "keys" };
    match counts {
        Counts::Owners(d) => {
            if as_json {
                let doc = json!({
                    "algorithm": hrwhash::ALGORITHM,
                    "keys": d.keys(),
                    "moved_keys": d.moved(),
                    "flows": flows_json(t, &d),
                });
                return Ok(json_doc(&doc, out)?);
            }
            writeln!(
                out,
                "# hrwhash plan ({}): copy {} to their new owner before switching",
                hrwhash::ALGORITHM,
                share_of_keys(&d)
            )?;
            for (f_from, f_to, f_count) in d.flows() {
                writeln!(
                    out,
                    "{} -> {}: {} {}",
                    escaped(id(from, f_from)),
                    escaped(id(to, f_to)),
                    f_count,
                    noun(f_count)
                )?;
            }
        }
        Counts::Replicas(d) => {
            let nodes = d.nodes();
            if as_json {
                let doc = json!({
                    "algorithm": hrwhash::ALGORITHM,
                    "k": d.k(),
                    "keys": d.keys(),
                    "changed_keys": d.moved(),
                    "copies_added": d.copies_added(),
                    "copies_dropped": d.copies_dropped(),
                    "nodes": nodes.iter().map(|n| {
                        let mut m = Map::new();
                        put_text(&mut m, "id", row_id(t, n.old_index, n.new_index));
                        with_copies(m, n)
                    }).collect::<Vec<_>>(),
                });
                return Ok(json_doc(&doc, out)?);
            }
            writeln!(
                out,
                "# hrwhash plan ({}, {} replicas): {} change replica set",
                hrwhash::ALGORITHM,
                d.k(),
                share_of_keys(&d)
            )?;
            for n in nodes.iter().filter(|n| n.added + n.dropped > 0) {
                writeln!(
                    out,
                    "{}: add {} {}, drop {} {}",
                    escaped(row_id(t, n.old_index, n.new_index)),
                    n.added,
                    noun(n.added),
                    n.dropped,
                    noun(n.dropped)
                )?;
            }
        }
    }
    Ok(())
}
