//! The domains-v1 policy on the command line: `place --policy domains` and `simulate-domains`,
//! which compares the policy with plain hrw-v1 on one generated zone/rack/host fleet.

use std::io::Write;

use hrwhash::policy::Domains;
use hrwhash::{Node, Placement, Seed, Weight};
use serde_json::json;

use crate::error::{from_core, CliError};
use crate::input::{generated_key, parse_usize};
use crate::output::{escaped, json_doc};

/// `--level`: a 0-based index, or one of the names of `--levels`.
pub fn parse_level(text: &str, names: Option<&str>) -> Result<usize, CliError> {
    if let Some(names) = names {
        if let Some(i) = names.split(',').map(str::trim).position(|n| n == text) {
            return Ok(i);
        }
    }
    if text.bytes().all(|b| b.is_ascii_digit()) || text.starts_with('-') {
        return parse_usize(text, "--level");
    }
    Err(CliError::usage(
        "InvalidArgument",
        match names {
            Some(n) => format!("--level {text} is neither a number nor one of --levels {n}"),
            None => format!("--level {text} is not a number (name the levels with --levels)"),
        },
    ))
}

/// The placement of `place` with one domain path per node from `--domains`, read through the
/// policy at `level`.
pub fn place_policy(
    placement: &Placement,
    domains: Option<&str>,
    level: usize,
) -> Result<Domains, CliError> {
    let mut nodes = placement.node_specs().to_vec();
    if let Some(list) = domains {
        nodes = with_domains(nodes, list)?;
    }
    let with_paths = Placement::from_nodes(placement.seed(), nodes.clone()).map_err(|e| {
        from_core(&e, true, &|_| String::new(), &|i| {
            format!("--nodes index {i}")
        })
    })?;
    Domains::new(&with_paths, level).map_err(|e| {
        from_core(
            &e,
            true,
            &|i| format!("'{}'", escaped(nodes[i].id())),
            &|i| format!("--domains index {i}"),
        )
    })
}

/// The nodes with the paths of `--domains`, one per node.
pub fn with_domains(nodes: Vec<Node>, list: &str) -> Result<Vec<Node>, CliError> {
    let paths: Vec<&str> = list.split(',').map(str::trim_ascii).collect();
    crate::input::check_per_node("--domains", paths.len(), nodes.len())?;
    Ok(nodes
        .into_iter()
        .zip(paths)
        .map(|(n, p)| n.with_domain(p))
        .collect())
}

pub struct SimOptions {
    pub zones: usize,
    pub racks: usize,
    pub hosts: usize,
    pub level: usize,
    pub k: usize,
    pub keys: u64,
    pub weights: Vec<Weight>,
    pub seed: Seed,
}

/// Parses `--fleet ZxRxH`.
pub fn parse_fleet(text: &str) -> Result<(usize, usize, usize), CliError> {
    let parts: Vec<&str> = text.split('x').collect();
    let [z, r, h] = parts.as_slice() else {
        return Err(CliError::usage(
            "InvalidArgument",
            format!("--fleet {text} is not ZONESxRACKSxHOSTS (for example 3x10x33)"),
        ));
    };
    let (z, r, h) = (
        parse_usize(z, "--fleet zones")?,
        parse_usize(r, "--fleet racks")?,
        parse_usize(h, "--fleet hosts")?,
    );
    if z == 0 || r == 0 || h == 0 || z.saturating_mul(r).saturating_mul(h) > crate::cmd::MAX_NODES {
        return Err(CliError::usage(
            "InvalidCount",
            format!(
                "--fleet {text}: each count must be at least 1 and the fleet at most {} nodes",
                crate::cmd::MAX_NODES
            ),
        ));
    }
    Ok((z, r, h))
}

fn fleet(o: &SimOptions) -> Vec<Node> {
    let mut out = Vec::new();
    for z in 0..o.zones {
        for r in 0..o.racks {
            for h in 0..o.hosts {
                let i = out.len();
                out.push(
                    Node::new(format!("node-{i}"))
                        .with_weight(o.weights[i % o.weights.len()])
                        .with_domain(format!("zone-{z}/rack-{r}/host-{h}")),
                );
            }
        }
    }
    out
}

/// The path of `node` cut after `level`.
fn prefix(node: &Node, level: usize) -> Vec<u8> {
    let d = node.domain().unwrap_or_default();
    let cut = d
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'/')
        .nth(level)
        .map_or(d.len(), |(i, _)| i);
    d[..cut].to_vec()
}

/// Plain hrw-v1 with each node's spread-level domain as its SPEC.md 6 failure domain.
fn plain(seed: Seed, nodes: &[Node], level: usize) -> Result<Placement, CliError> {
    let nodes: Vec<Node> = nodes
        .iter()
        .map(|n| n.clone().with_domain(prefix(n, level)))
        .collect();
    Placement::from_nodes(seed, nodes).map_err(|e| {
        from_core(&e, true, &|_| String::new(), &|i| {
            format!("--weights index {i}")
        })
    })
}

/// Largest |share / weight share - 1| over `groups` (owner counts per group, and the group's
/// weight share).
fn worst_share(counts: &[u64], weights: &[f64], keys: u64) -> f64 {
    let total: f64 = weights.iter().sum();
    counts
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w > 0.0)
        .map(|(&c, &w)| (c as f64 / keys as f64) / (w / total) - 1.0)
        .fold(0.0, |m: f64, e| m.max(e.abs()))
}

struct Side {
    /// Owner counts per node.
    node_counts: Vec<u64>,
    domain_counts: Vec<u64>,
    spread: u64,
    moved: u64,
    touched: u64,
}

pub fn simulate(o: &SimOptions, out: &mut dyn Write, as_json: bool) -> Result<(), CliError> {
    let nodes = fleet(o);
    let placement = Placement::from_nodes(o.seed, nodes.clone()).map_err(|e| {
        from_core(&e, true, &|_| String::new(), &|i| {
            format!("--weights index {i}")
        })
    })?;
    let policy = Domains::new(&placement, o.level)
        .map_err(|e| from_core(&e, true, &|_| String::new(), &|i| format!("node {i}")))?;
    if o.k == 0 || o.k > placement.selectable_len() {
        return Err(CliError::usage(
            "InvalidReplicaCount",
            format!(
                "--k {} must be from 1 to {} (the nodes of weight above zero)",
                o.k,
                placement.selectable_len()
            ),
        ));
    }
    // The spread-level domain of the middle node is the one removed.
    let removed = prefix(&nodes[nodes.len() / 2], o.level);
    let mut domain_names: Vec<Vec<u8>> = nodes.iter().map(|n| prefix(n, o.level)).collect();
    domain_names.sort();
    domain_names.dedup();
    let domain_of: Vec<usize> = nodes
        .iter()
        .map(|n| domain_names.binary_search(&prefix(n, o.level)).unwrap_or(0))
        .collect();
    let rest: Vec<Node> = nodes
        .iter()
        .filter(|n| prefix(n, o.level) != removed)
        .cloned()
        .collect();
    let rest_index: Vec<Option<usize>> = {
        let mut j = 0;
        nodes
            .iter()
            .map(|n| {
                (prefix(n, o.level) != removed).then(|| {
                    j += 1;
                    j - 1
                })
            })
            .collect()
    };
    let policy_after = Domains::new(
        &Placement::from_nodes(o.seed, rest.clone())
            .map_err(|e| from_core(&e, true, &|_| String::new(), &|i| format!("node {i}")))?,
        o.level,
    )
    .map_err(|e| from_core(&e, true, &|_| String::new(), &|i| format!("node {i}")))?;
    let plain_before = plain(o.seed, &nodes, o.level)?;
    let plain_after = plain(o.seed, &rest, o.level)?;

    let new_side = || Side {
        node_counts: vec![0; nodes.len()],
        domain_counts: vec![0; domain_names.len()],
        spread: 0,
        moved: 0,
        touched: 0,
    };
    let (mut pol, mut hrw) = (new_side(), new_side());
    let mut key = String::new();
    let mut seen = vec![false; domain_names.len()];
    let mut account = |side: &mut Side, before: &[usize], after: &[usize]| {
        side.node_counts[before[0]] += 1;
        side.domain_counts[domain_of[before[0]]] += 1;
        seen.iter_mut().for_each(|s| *s = false);
        let mut distinct = 0;
        for &i in before {
            if !seen[domain_of[i]] {
                seen[domain_of[i]] = true;
                distinct += 1;
            }
        }
        side.spread += (distinct == before.len().min(domain_names.len())) as u64;
        let had = before.iter().any(|&i| rest_index[i].is_none());
        let same = before.len() == after.len()
            && before
                .iter()
                .zip(after)
                .all(|(&b, &a)| rest_index[b] == Some(a));
        side.moved += (!same) as u64;
        side.touched += had as u64;
    };
    let k_after = o.k.min(policy_after.placement().selectable_len());
    for i in 0..o.keys {
        generated_key(&mut key, i);
        let before = policy
            .replica_indices(&key, o.k)
            .map_err(|e| from_core(&e, true, &|_| String::new(), &|_| String::new()))?;
        let after = policy_after
            .replica_indices(&key, k_after)
            .map_err(|e| from_core(&e, true, &|_| String::new(), &|_| String::new()))?;
        account(&mut pol, &before, &after);
        let before: Vec<usize> = plain_before
            .replicas(&key, o.k)
            .iter()
            .map(|n| n.index())
            .collect();
        let after: Vec<usize> = plain_after
            .replicas(&key, o.k)
            .iter()
            .map(|n| n.index())
            .collect();
        account(&mut hrw, &before, &after);
    }
    let node_w: Vec<f64> = nodes.iter().map(|n| n.weight().to_f64()).collect();
    let mut domain_w = vec![0.0; domain_names.len()];
    for (i, w) in node_w.iter().enumerate() {
        domain_w[domain_of[i]] += w;
    }
    let zone_of: Vec<Vec<u8>> = nodes.iter().map(|n| prefix(n, 0)).collect();
    let mut zones: Vec<Vec<u8>> = zone_of.clone();
    zones.sort();
    zones.dedup();
    let mut zone_w = vec![0.0; zones.len()];
    let zone_index: Vec<usize> = zone_of
        .iter()
        .map(|z| zones.binary_search(z).unwrap_or(0))
        .collect();
    for (i, w) in node_w.iter().enumerate() {
        zone_w[zone_index[i]] += w;
    }
    let total_w: f64 = node_w.iter().sum();
    let smallest = domain_w
        .iter()
        .copied()
        .filter(|&w| w > 0.0)
        .fold(f64::MAX, f64::min)
        / total_w;
    let report = |s: &Side| {
        let mut zone_counts = vec![0u64; zones.len()];
        for (i, &c) in s.node_counts.iter().enumerate() {
            zone_counts[zone_index[i]] += c;
        }
        json!({
            "zone_share_error": worst_share(&zone_counts, &zone_w, o.keys),
            "domain_share_error": worst_share(&s.domain_counts, &domain_w, o.keys),
            "spread": s.spread as f64 / o.keys as f64,
            "moved": s.moved,
            "with_a_replica_there": s.touched,
        })
    };
    let doc = json!({
        "fleet": format!("{}x{}x{}", o.zones, o.racks, o.hosts),
        "nodes": nodes.len(),
        "level": o.level,
        "domains": domain_names.len(),
        "k": o.k,
        "keys": o.keys,
        "removed_domain": String::from_utf8_lossy(&removed),
        // One standard deviation of the owner share of the lightest domain, relative to it:
        // share errors of that size are sampling noise, not bias.
        "domain_share_noise": ((1.0 - smallest) / (smallest * o.keys as f64)).sqrt(),
        "domains_v1": report(&pol),
        "hrw_v1_replicas": report(&hrw),
    });
    if as_json {
        json_doc(&doc, out)?;
        return Ok(());
    }
    writeln!(
        out,
        "fleet {} ({} nodes), spread level {} ({} domains), k = {}, {} keys; removing {}",
        doc["fleet"].as_str().unwrap_or(""),
        nodes.len(),
        o.level,
        domain_names.len(),
        o.k,
        o.keys,
        escaped(&removed)
    )?;
    writeln!(
        out,
        "owner share error: largest |share / weight share - 1|; sampling noise for the lightest domain: {:.2}%",
        100.0 * doc["domain_share_noise"].as_f64().unwrap_or(0.0)
    )?;
    writeln!(
        out,
        "{:<16} {:>12} {:>14} {:>15} {:>11} {:>20}",
        "policy",
        "zone share",
        "domain share",
        "k in k domains",
        "keys moved",
        "keys with a replica"
    )?;
    for (name, v) in [
        ("domains-v1", &doc["domains_v1"]),
        ("hrw-v1 replicas", &doc["hrw_v1_replicas"]),
    ] {
        writeln!(
            out,
            "{:<16} {:>11.2}% {:>13.2}% {:>14.2}% {:>11} {:>20}",
            name,
            100.0 * v["zone_share_error"].as_f64().unwrap_or(0.0),
            100.0 * v["domain_share_error"].as_f64().unwrap_or(0.0),
            100.0 * v["spread"].as_f64().unwrap_or(0.0),
            v["moved"].as_u64().unwrap_or(0),
            v["with_a_replica_there"].as_u64().unwrap_or(0),
        )?;
    }
    Ok(())
}
