//! `hrwhash diff` and `hrwhash plan`: which keys change owner between two memberships, and from
//! which node to which, so data can be copied before the switch.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use hrwhash::Placement;
use serde_json::{json, Map, Value};

use crate::error::CliError;
use crate::input::Keys;
use crate::output::{escaped, key_item, put_text};

/// Owners of every key before and after a membership change.
struct Transition<'a> {
    from: &'a Placement,
    to: &'a Placement,
    total: u64,
    moved: u64,
    before: Vec<u64>,
    after: Vec<u64>,
    /// (index in `from`, index in `to`) -> the keys that move that way.
    flows: BTreeMap<(usize, usize), Flow>,
    optimum: f64,
}

#[derive(Default)]
struct Flow {
    count: u64,
    /// Filled only when a plan lists keys.
    keys: Vec<Vec<u8>>,
}

impl<'a> Transition<'a> {
    fn compute(from: &'a Placement, to: &'a Placement, keys: &Keys, list_keys: bool) -> Self {
        // The core decides owners and what counts as moved (nodes matched by id).
        let core = hrwhash::Transition::new(from, to);
        let mut t = Transition {
            from,
            to,
            total: keys.len(),
            moved: 0,
            before: vec![0; from.len()],
            after: vec![0; to.len()],
            flows: BTreeMap::new(),
            optimum: core.optimum(),
        };
        keys.for_each(|key| {
            let r = core.route(key);
            t.before[r.old] += 1;
            t.after[r.new] += 1;
            if r.moved {
                t.moved += 1;
                let flow = t.flows.entry((r.old, r.new)).or_default();
                flow.count += 1;
                if list_keys {
                    flow.keys.push(key.to_vec());
                }
            }
        });
        t
    }

    /// The least a perfect scheme must move: the total variation distance between the intended
    /// shares (weight / total weight) of the two memberships (`hrwhash::Transition::optimum`).
    fn optimum_percent(&self) -> f64 {
        100.0 * self.optimum
    }

    fn moved_percent(&self) -> f64 {
        100.0 * self.moved as f64 / self.total as f64
    }

    fn old_id(&self, i: usize) -> &'a [u8] {
        self.from.node(i).map_or(&[], |n| n.id())
    }

    fn new_id(&self, i: usize) -> &'a [u8] {
        self.to.node(i).map_or(&[], |n| n.id())
    }

    /// A flow as JSON: `from`/`to` ids (or `from_hex`/`to_hex`) and the key count.
    fn flow_json(&self, (a, b): (usize, usize), flow: &Flow) -> Map<String, Value> {
        let mut m = Map::new();
        put_text(&mut m, "from", self.old_id(a));
        put_text(&mut m, "to", self.new_id(b));
        m.insert("count".into(), json!(flow.count));
        m
    }

    /// Every node of either membership with its key count before and after (None: not a member).
    fn node_counts(&self) -> Vec<(&'a [u8], Option<u64>, Option<u64>)> {
        let from_index = index_by_id(self.from);
        let to_index = index_by_id(self.to);
        let mut rows: Vec<(&'a [u8], Option<u64>, Option<u64>)> = self
            .from
            .nodes()
            .map(|n| {
                let after = to_index.get(n.id()).map(|&m| self.after[m]);
                (n.id(), Some(self.before[n.index()]), after)
            })
            .collect();
        rows.extend(
            self.to
                .nodes()
                .filter(|n| !from_index.contains_key(n.id()))
                .map(|n| (n.id(), None, Some(self.after[n.index()]))),
        );
        rows
    }
}

/// Build-order index of every id; ids are unique within a placement.
fn index_by_id(p: &Placement) -> HashMap<&[u8], usize> {
    p.nodes().map(|n| (n.id(), n.index())).collect()
}

fn json_doc(v: &Value, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_default()
    )
}

pub fn diff(
    from: &Placement,
    to: &Placement,
    keys: &Keys,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let t = Transition::compute(from, to, keys, false);
    let rows = t.node_counts();
    if as_json {
        let doc = json!({
            "algorithm": hrwhash::ALGORITHM,
            "keys": t.total,
            "nodes_before": from.len(),
            "nodes_after": to.len(),
            "moved_keys": t.moved,
            "moved_percent": t.moved_percent(),
            "optimum_percent": t.optimum_percent(),
            "flows": t.flows.iter().map(|(&pair, flow)| t.flow_json(pair, flow)).collect::<Vec<_>>(),
            "nodes": rows.iter().map(|(id, before, after)| {
                let mut m = Map::new();
                put_text(&mut m, "id", id);
                m.insert("before".into(), json!(before));
                m.insert("after".into(), json!(after));
                m
            }).collect::<Vec<_>>(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "hrwhash diff ({}): {} keys, {} -> {} nodes",
        hrwhash::ALGORITHM,
        t.total,
        from.len(),
        to.len()
    )?;
    writeln!(
        out,
        "moved: {} keys ({:.2}%), optimum {:.2}%",
        t.moved,
        t.moved_percent(),
        t.optimum_percent()
    )?;
    writeln!(out, "\nflows\n  {:<16} {:<16} {:>10}", "from", "to", "keys")?;
    for (&(a, b), flow) in &t.flows {
        writeln!(
            out,
            "  {:<16} {:<16} {:>10}",
            escaped(t.old_id(a)),
            escaped(t.new_id(b)),
            flow.count
        )?;
    }
    writeln!(
        out,
        "\nnodes\n  {:<16} {:>10} {:>10} {:>10}",
        "node", "before", "after", "change"
    )?;
    let show = |c: Option<u64>| c.map_or_else(|| "-".to_string(), |c| c.to_string());
    for (id, before, after) in &rows {
        let change = after.unwrap_or(0) as i128 - before.unwrap_or(0) as i128;
        writeln!(
            out,
            "  {:<16} {:>10} {:>10} {:>+10}",
            escaped(id),
            show(*before),
            show(*after),
            change
        )?;
    }
    Ok(())
}

pub fn plan(
    from: &Placement,
    to: &Placement,
    keys: &Keys,
    summary: bool,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let t = Transition::compute(from, to, keys, !summary);
    if as_json {
        let doc = json!({
            "algorithm": hrwhash::ALGORITHM,
            "keys": t.total,
            "moved_keys": t.moved,
            "moves": t.flows.iter().map(|(&pair, flow)| {
                let mut m = t.flow_json(pair, flow);
                if !summary {
                    m.insert("keys".into(), flow.keys.iter().map(|k| key_item(k)).collect());
                }
                m
            }).collect::<Vec<_>>(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "# hrwhash plan ({}): copy {} of {} keys ({:.2}%) to their new owner before switching",
        hrwhash::ALGORITHM,
        t.moved,
        t.total,
        t.moved_percent()
    )?;
    for (&(a, b), flow) in &t.flows {
        let noun = if flow.count == 1 { "key" } else { "keys" };
        writeln!(
            out,
            "{} -> {}: {} {noun}",
            escaped(t.old_id(a)),
            escaped(t.new_id(b)),
            flow.count
        )?;
        for key in &flow.keys {
            writeln!(out, "  {}", escaped(key))?;
        }
    }
    Ok(())
}
