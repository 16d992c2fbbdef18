//! Compatibility profiles on the command line (conformance/PROFILES.md): `place --profile` and
//! `diff --from-profile` / `--to-profile`. Placement and counting are the core's
//! (`hrwhash_compat::ProfilePlacement`, `hrwhash::Transition`); this module reads and prints.

use std::ffi::OsStr;
use std::io::Write;

use hrwhash::{Lookup, Node, Placement, Transition};
use hrwhash_compat::{Profile, ProfilePlacement};
use serde_json::{json, Map, Value};

use crate::error::{from_core, CliError};
use crate::input::{arg_bytes, for_each_stdin_key, KeyEvent, Keys, Membership};
use crate::migrate;
use crate::output::{escaped, json_doc, put_text, text_item};

/// A profile named on the command line.
pub fn parse_profile(name: &str, flag: &str) -> Result<Profile, CliError> {
    Profile::from_name(name).map_err(|e| CliError::usage("UnknownProfile", format!("{flag}: {e}")))
}

/// Builds a profile placement; `at(i)` names where node `i` came from.
pub fn build(
    profile: Profile,
    nodes: Vec<Node>,
    usage: bool,
    at: &dyn Fn(usize) -> String,
) -> Result<ProfilePlacement, CliError> {
    let ids: Vec<Vec<u8>> = nodes.iter().map(|n| n.id().to_vec()).collect();
    ProfilePlacement::new(profile, nodes)
        .map_err(|e| from_core(&e, usage, &|i| format!("'{}'", escaped(&ids[i])), at))
}

/// A profile placement from a node file, with the paths of `--domains` when given (which the
/// core refuses as `NotOffered`, as for a node file's own domains).
pub fn from_file(
    profile: Profile,
    path: &OsStr,
    domains: Option<&str>,
) -> Result<ProfilePlacement, CliError> {
    let (mut nodes, places) = Membership::from_file(path)?.into_nodes();
    if let Some(list) = domains {
        nodes = crate::domains::with_domains(nodes, list)?;
    }
    build(profile, nodes, false, &|i| {
        places
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("node {i}"))
    })
}

/// `place --profile`: the owner of each key, or the first `k` nodes of the incumbent's top-k.
pub fn place(
    placement: &ProfilePlacement,
    k: usize,
    as_json: bool,
    keys: &[Vec<u8>],
    out: &mut dyn Write,
) -> Result<(), CliError> {
    // Ask once, before any output, so a profile without top-k fails with nothing printed.
    if k != 1 {
        placement
            .replicas(b"", k)
            .map_err(|e| CliError::usage("NotOffered", format!("--k {k}: {e}")))?;
    }
    let mut printed = 0u64;
    let mut one = |key: &[u8], out: &mut dyn Write| -> Result<(), CliError> {
        let rank: Vec<usize> = if k == 1 {
            vec![placement.owner(key)]
        } else {
            placement.replicas(key, k).unwrap_or_default()
        };
        let id = |i: usize| placement.node(i).map_or(&[][..], |n| n.id());
        if as_json {
            let mut item = Map::new();
            put_text(&mut item, "key", key);
            put_text(&mut item, "owner", placement.owner_id(key));
            let rank: Vec<Value> = rank.iter().map(|&i| text_item("id", id(i))).collect();
            item.insert("rank".into(), Value::from(rank));
            let sep = if printed == 0 { "[\n  " } else { ",\n  " };
            write!(out, "{sep}{}", Value::Object(item))?;
        } else {
            let rank: Vec<String> = rank.iter().map(|&i| escaped(id(i))).collect();
            writeln!(out, "{}\t{}", escaped(key), rank.join(","))?;
        }
        printed += 1;
        Ok(())
    };
    let result = if keys.is_empty() {
        for_each_stdin_key(|key| one(key, out))
    } else {
        keys.iter().try_for_each(|key| one(key, out))
    };
    if as_json {
        out.write_all(if printed == 0 { b"[]\n" } else { b"\n]\n" })?;
    }
    result
}

/// One side of a `diff` with a profile: placed by hrw-v1 or by an incumbent's profile.
pub enum Side {
    /// Placed by hrw-v1.
    Hrw(Placement),
    /// Placed by an incumbent's profile.
    Profile(ProfilePlacement),
}

impl Side {
    /// `hrw-v1` or the profile's name.
    fn algorithm(&self) -> &'static str {
        match self {
            Side::Hrw(_) => hrwhash::ALGORITHM,
            Side::Profile(p) => p.profile().name(),
        }
    }

    fn into_lookup(self) -> Box<dyn Lookup> {
        match self {
            Side::Hrw(p) => Box::new(p),
            Side::Profile(p) => Box::new(p),
        }
    }
}

/// A diff with a profile compares owners: `--k` other than 1 is `NotOffered`, in the profile's
/// own words when it has no top-k lookup at all.
pub fn owners_only(from: &Side, to: &Side, k: usize) -> Result<(), CliError> {
    if k == 1 {
        return Ok(());
    }
    for side in [from, to] {
        if let Side::Profile(p) = side {
            p.replicas(b"", k)
                .map_err(|e| CliError::usage("NotOffered", format!("--k {k}: {e}")))?;
        }
    }
    Err(CliError::usage(
        "NotOffered",
        format!(
            "--k {k}: a diff between {} and {} compares owners only (--k 1)",
            from.algorithm(),
            to.algorithm()
        ),
    ))
}

/// `diff` where either side is a profile: keys moved, the flows, and keys per node.
pub fn diff(
    from: Side,
    to: Side,
    keys: Keys,
    opts: &crate::migrate::Options,
    plot: Option<&OsStr>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let as_json = opts.json;
    let (from_name, to_name) = (from.algorithm(), to.algorithm());
    let transition = Transition::between(from.into_lookup(), to.into_lookup());
    let mut d = transition.diff();
    let bar = keys.progress("diff", opts.quiet);
    keys.for_each(&bar, |e| {
        if let KeyEvent::Key(key) = e {
            d.add(key);
        }
        Ok(())
    })?;
    let (old, new) = (transition.old_placement(), transition.new_placement());
    if let Some(path) = plot {
        let rows = migrate::load_rows(&transition, &d);
        let caption = format!("keys per node, {from_name} -> {to_name}, {} keys", d.keys());
        crate::plot::node_loads(
            std::path::Path::new(path),
            &caption,
            "keys",
            &["before", "after"],
            &rows,
        )?;
    }
    if as_json {
        let doc = json!({
            "from": from_name,
            "to": to_name,
            "keys": d.keys(),
            "nodes_before": old.len(),
            "nodes_after": new.len(),
            "moved_keys": d.moved(),
            "moved_percent": migrate::percent(d.moved(), d.keys()),
            "flows": migrate::flows_json(&transition, &d),
            "nodes": d.nodes().iter().map(|n| migrate::node_json(&transition, n)).collect::<Vec<_>>(),
        });
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "hrwhash diff ({from_name} -> {to_name}): {} keys, {} -> {} nodes",
        d.keys(),
        old.len(),
        new.len()
    )?;
    writeln!(
        out,
        "moved: {} keys ({:.2}%)",
        d.moved(),
        migrate::percent(d.moved(), d.keys())
    )?;
    migrate::owner_tables(&transition, &d, out)
}

/// The keys of `place`: the arguments as bytes (stdin when there are none).
pub fn key_args(keys: &[std::ffi::OsString]) -> Vec<Vec<u8>> {
    keys.iter().map(|k| arg_bytes(k)).collect()
}
