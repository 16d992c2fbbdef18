//! `hrwhash place`: the owner, or the first k nodes of the ranking, of each key; or its replicas
//! in distinct failure domains (`--strict`).

use std::ffi::OsString;
use std::io::Write;

use hrwhash::policy::Domains;
use hrwhash::Placement;
use serde_json::{Map, Value};

use crate::cmd::Common;
use crate::error::CliError;
use crate::input::{arg_bytes, for_each_stdin_block};
use crate::output::{escaped, put_text, text_item};
use crate::progress::{self, Unit};

/// Places the keys given as arguments or, without any, every stdin line. When reading stdin fails
/// part-way, the JSON array still ends: its last element is `{"error": "<message>"}`.
pub fn run(
    placement: &Placement,
    policy: Option<&Domains>,
    strict: bool,
    k: usize,
    common: &Common,
    keys: &[OsString],
    out: &mut dyn Write,
) -> Result<(), CliError> {
    // A bad --k is reported before any output, not after the first key.
    if let Some(p) = policy {
        p.replica_indices(b"", k).map_err(|e| {
            crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
        })?;
    }
    if strict {
        // Whether the domains suffice depends on the membership alone, not on the key.
        placement.replicas_strict(b"", k).map_err(|e| {
            crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
        })?;
    }
    let bar = progress::bar(
        "place",
        Unit::Open("keys"),
        common.quiet || !keys.is_empty(),
    );
    let mut printer = Printer {
        placement,
        policy,
        strict,
        k,
        as_json: common.json,
        printed: 0,
        out,
        ids: placement
            .node_specs()
            .iter()
            .map(|n| escaped(n.id()))
            .collect(),
        owners: Vec::new(),
        ranks: Vec::new(),
        text: Vec::new(),
    };
    if !keys.is_empty() {
        let keys: Vec<Vec<u8>> = keys.iter().map(|k| arg_bytes(k)).collect();
        let keys: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        printer.block(&keys)?;
        return printer.finish(None);
    }
    let mut seen = 0u64;
    let result = for_each_stdin_block(|keys| {
        bar.set_position(seen);
        seen += keys.len() as u64;
        printer.block(keys)
    });
    bar.finish_and_clear();
    match result {
        Ok(()) => printer.finish(None),
        Err(CliError::Output(e)) => Err(CliError::Output(e)),
        Err(e) => {
            printer.finish(Some(&e))?;
            Err(e)
        }
    }
}

/// Appends a key as text output writes it ([`escaped`]), without building a string for keys that
/// need no escape.
fn push_escaped(text: &mut Vec<u8>, key: &[u8]) {
    if key.iter().all(|&b| (0x20..0x7f).contains(&b) && b != b'\\') {
        text.extend_from_slice(key);
    } else {
        text.extend_from_slice(escaped(key).as_bytes());
    }
}

/// Prints placements as keys arrive, so stdin of any length streams through.
/// A key's line of text output: the key, a tab, then the ids of its nodes, comma-separated.
fn text_line<'i>(
    out: &mut dyn Write,
    key: &[u8],
    ids: impl Iterator<Item = &'i [u8]>,
) -> Result<(), CliError> {
    let ids: Vec<String> = ids.map(escaped).collect();
    writeln!(out, "{}\t{}", escaped(key), ids.join(","))?;
    Ok(())
}

/// A key's JSON item of replicas: its owner, the ids of its replicas and their domains.
fn replicas_item<'i>(
    key: &[u8],
    owner: &[u8],
    ids: impl Iterator<Item = &'i [u8]>,
    domains: Vec<Value>,
) -> Value {
    let mut item = Map::new();
    put_text(&mut item, "key", key);
    put_text(&mut item, "owner", owner);
    let ids: Vec<Value> = ids.map(|id| text_item("id", id)).collect();
    item.insert("replicas".into(), Value::from(ids));
    item.insert("domains".into(), Value::from(domains));
    Value::Object(item)
}

struct Printer<'a> {
    placement: &'a Placement,
    /// With `--policy domains`: the replicas of the domains-v1 policy instead of the ranking.
    policy: Option<&'a Domains>,
    /// With `--strict`: `Placement::replicas_strict` instead of the ranking.
    strict: bool,
    k: usize,
    as_json: bool,
    printed: u64,
    out: &'a mut dyn Write,
    /// Every node id as text output writes it, escaped once.
    ids: Vec<String>,
    /// The owners, and the rankings (`min(k, selectable)` per key) when k > 1, of a block.
    owners: Vec<usize>,
    ranks: Vec<usize>,
    /// A block's text output, written at once.
    text: Vec<u8>,
}

impl Printer<'_> {
    /// Prints the placements of a block of keys in order: by hrw-v1 the whole block is hashed
    /// with the core's batch calls first.
    fn block(&mut self, keys: &[&[u8]]) -> Result<(), CliError> {
        let width = self.k.min(self.placement.selectable_len());
        if self.policy.is_some() || self.strict || width == 0 {
            return keys.iter().try_for_each(|key| self.key(key));
        }
        let p = self.placement;
        self.owners.resize(keys.len(), 0);
        p.owners_into(keys, &mut self.owners).map_err(|e| {
            crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
        })?;
        // The ranking starts with the owner, so k = 1 needs no second pass.
        if width > 1 {
            self.ranks.resize(keys.len() * width, 0);
            p.rank_many_into(keys, width, &mut self.ranks)
                .map_err(|e| {
                    crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
                })?;
        }
        let ranks = &self.ranks;
        let owners = &self.owners;
        let rank = |i: usize| -> &[usize] {
            match width {
                1 => std::slice::from_ref(&owners[i]),
                w => &ranks[i * w..(i + 1) * w],
            }
        };
        if self.as_json {
            for (i, key) in keys.iter().enumerate() {
                let mut item = Map::new();
                put_text(&mut item, "key", key);
                put_text(&mut item, "owner", p.node_specs()[owners[i]].id());
                let rank: Vec<Value> = rank(i)
                    .iter()
                    .map(|&n| text_item("id", p.node_specs()[n].id()))
                    .collect();
                item.insert("rank".into(), Value::from(rank));
                let item = Value::Object(item);
                let sep = if self.printed == 0 { "[\n  " } else { ",\n  " };
                write!(self.text, "{sep}{item}")?;
                self.printed += 1;
            }
        } else {
            for (i, key) in keys.iter().enumerate() {
                push_escaped(&mut self.text, key);
                for (j, &n) in rank(i).iter().enumerate() {
                    self.text.push(if j == 0 { b'\t' } else { b',' });
                    self.text.extend_from_slice(self.ids[n].as_bytes());
                }
                self.text.push(b'\n');
            }
        }
        self.out.write_all(&self.text)?;
        self.text.clear();
        Ok(())
    }

    fn key(&mut self, key: &[u8]) -> Result<(), CliError> {
        if let Some(policy) = self.policy {
            return self.replicas(policy, key);
        }
        if self.strict {
            return self.strict_replicas(key);
        }
        let owner = self.placement.owner(key);
        let rank = self.placement.rank(key, self.k);
        if self.as_json {
            let mut item = Map::new();
            put_text(&mut item, "key", key);
            put_text(&mut item, "owner", owner.id());
            let rank: Vec<Value> = rank.iter().map(|n| text_item("id", n.id())).collect();
            item.insert("rank".into(), Value::from(rank));
            self.element(&Value::Object(item))?;
        } else {
            text_line(self.out, key, rank.iter().map(|n| n.id()))?;
        }
        Ok(())
    }

    fn replicas(&mut self, policy: &Domains, key: &[u8]) -> Result<(), CliError> {
        let replicas = policy.replica_indices(key, self.k).map_err(|e| {
            crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
        })?;
        let id = |i: usize| self.placement.node_specs()[i].id();
        if self.as_json {
            let domains = replicas
                .iter()
                .map(|&i| text_item("domain", policy.domain_of(i).unwrap_or_default()))
                .collect();
            let item = replicas_item(
                key,
                id(replicas[0]),
                replicas.iter().map(|&i| id(i)),
                domains,
            );
            self.element(&item)?;
        } else {
            text_line(self.out, key, replicas.iter().map(|&i| id(i)))?;
        }
        Ok(())
    }

    fn strict_replicas(&mut self, key: &[u8]) -> Result<(), CliError> {
        let replicas = self.placement.replicas_strict(key, self.k).map_err(|e| {
            crate::error::from_core(&e, true, &|_| String::new(), &|_| String::new())
        })?;
        if self.as_json {
            let domains = replicas
                .iter()
                .map(|n| n.domain().map_or(Value::Null, |d| text_item("domain", d)))
                .collect();
            let owner = self.placement.owner(key).id();
            let item = replicas_item(key, owner, replicas.iter().map(|n| n.id()), domains);
            self.element(&item)?;
        } else {
            text_line(self.out, key, replicas.iter().map(|n| n.id()))?;
        }
        Ok(())
    }

    fn element(&mut self, item: &Value) -> Result<(), CliError> {
        let sep = if self.printed == 0 { "[\n  " } else { ",\n  " };
        write!(self.out, "{sep}{item}")?;
        self.printed += 1;
        Ok(())
    }

    fn finish(mut self, error: Option<&CliError>) -> Result<(), CliError> {
        if self.as_json {
            if let Some(e) = error {
                self.element(&serde_json::json!({ "error": e.to_string() }))?;
            }
            let close = if self.printed == 0 { "[]\n" } else { "\n]\n" };
            self.out.write_all(close.as_bytes())?;
        }
        Ok(())
    }
}
