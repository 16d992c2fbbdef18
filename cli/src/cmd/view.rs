//! `hrwhash view FILE`: check a view document and show its epoch, fingerprints and shares;
//! `hrwhash view --from-nodes FILE --epoch N`: write the view document of a node file.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use clap::ArgGroup;
use hrwhash::View;
use serde_json::{json, Map, Value};

use super::value::COUNT;
use crate::error::CliError;
use crate::input::{parse_seed, Membership};
use crate::output::{put_text, show};
use crate::view::{in_file, load};

#[derive(clap::Args)]
#[command(group(ArgGroup::new("source").required(true).args(["file", "from_nodes"])))]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// The view document (hrwhash-view-v1 JSON, conformance/VIEW.md).
    #[arg(value_name = "FILE")]
    file: Option<OsString>,
    /// Print the view document of this node file instead (the format `diff` and `plan` read),
    /// the document every client can then load.
    #[arg(long, value_name = "NODES", conflicts_with = "json")]
    from_nodes: Option<OsString>,
    /// The epoch of the view written by --from-nodes.
    #[arg(long, value_name = "N", default_value = "0", requires = "from_nodes", allow_hyphen_values = true, value_parser = COUNT)]
    epoch: u64,
    /// The secret seed of the view read or written, 32 hex digits (default: the public hrw-v1
    /// seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// Machine-readable JSON output.
    #[arg(long)]
    json: bool,
}

/// What is done with views as they change: publishing and following them.
#[derive(clap::Subcommand)]
enum Action {
    /// Publish a view, or a ramp's steps one by one, to an etcd key (compare-and-swap) or a file
    /// (atomic rename); the publisher gives the epochs.
    Publish(super::view_publish::Args),
    /// Follow a view at an etcd key, a file or a URL; print each applied view, refusal and
    /// source error as a JSON line, until stdin closes.
    Watch(super::view_watch::Args),
    /// Print the view of a Kubernetes service's EndpointSlices.
    FromEndpointslices(super::view_slices::Args),
}

pub fn run(a: &Args, out: &mut dyn Write) -> Result<(), CliError> {
    match &a.action {
        Some(Action::Publish(p)) => return super::view_publish::run(p, out),
        Some(Action::Watch(w)) => return super::view_watch::run(w, out),
        Some(Action::FromEndpointslices(s)) => return super::view_slices::run(s, out),
        None => {}
    }
    let seed = parse_seed(a.seed.as_deref())?;
    if let Some(nodes) = &a.from_nodes {
        let placement = Membership::from_file(nodes)?.build(seed)?;
        let view = View::new(placement, a.epoch)
            .map_err(|e| in_file(&Path::new(nodes).display().to_string(), &e))?;
        out.write_all(view.to_json().as_bytes())?;
        return Ok(());
    }
    let Some(file) = &a.file else {
        return Err(CliError::Usage("view needs a FILE or --from-nodes".into()));
    };
    let view = load(file, seed)?;
    let p = view.placement();
    let total: f64 = p.node_specs().iter().map(|n| n.weight().to_f64()).sum();
    let share = |w: f64| w / total;
    if a.json {
        let head = json!({
            "format": hrwhash::view::VIEW_FORMAT,
            "algorithm": hrwhash::ALGORITHM,
            "epoch": view.epoch().to_string(),
            "fingerprint": view.fingerprint().to_hex(),
            "seed": if view.has_default_seed() { "default" } else { "secret" },
            "seed_fingerprint": view.seed_fingerprint().to_hex(),
        });
        let Value::Object(head) = head else {
            unreachable!("json! of an object is an object")
        };
        let doc = WithNodes {
            head: &head,
            nodes: p.node_specs(),
            total,
        };
        let mut buffered = std::io::BufWriter::new(&mut *out);
        serde_json::to_writer_pretty(&mut buffered, &doc).map_err(std::io::Error::from)?;
        writeln!(buffered)?;
        buffered.flush()?;
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
        Path::new(file).display(),
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

/// The `--json` document: `head`'s members with `nodes` among them in name order, each node
/// written as it is made, so a large view is not held twice more as a JSON tree and a string.
struct WithNodes<'a> {
    head: &'a Map<String, Value>,
    nodes: &'a [hrwhash::Node],
    total: f64,
}

impl serde::Serialize for WithNodes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let nodes = NodeList(self.nodes, self.total);
        let mut map = s.serialize_map(Some(self.head.len() + 1))?;
        let mut pending = true;
        for (name, value) in self.head {
            if pending && name.as_str() > "nodes" {
                map.serialize_entry("nodes", &nodes)?;
                pending = false;
            }
            map.serialize_entry(name, value)?;
        }
        if pending {
            map.serialize_entry("nodes", &nodes)?;
        }
        map.end()
    }
}

struct NodeList<'a>(&'a [hrwhash::Node], f64);

impl serde::Serialize for NodeList<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|n| {
            let mut o = Map::new();
            put_text(&mut o, "id", n.id());
            o.insert("weight".into(), json!(n.weight().to_f64()));
            o.insert("share".into(), json!(n.weight().to_f64() / self.1));
            if let Some(d) = n.domain() {
                put_text(&mut o, "domain", d);
            }
            Value::Object(o)
        }))
    }
}
