//! The generators of hrwhash's conformance vectors: one module per vectors file, and [`FILES`],
//! the registry that the `generate` bin, `make check-generated` and the up-to-date test iterate.
//!
//! Inputs come from fixed formulas and fixed pseudo-random streams, so every file is the same on
//! every run and machine. Adding a vectors file is one module and one entry in [`FILES`].

pub mod bounded_load;
pub mod bounded_load_boundaries;
pub mod cli;
pub mod domains;
pub mod edge;
pub mod live_view;
pub mod replica_balance;
pub mod slot_history;
pub mod slot_table;
pub mod transitions;
pub mod vectors;
pub mod views;

use std::fmt::Display;

use hrwhash::Seed;
use serde_json::Value;

pub use vectors::generate;

/// One generated vectors file.
pub struct VectorsFile {
    /// What the `generate` bin calls it: the file name without `.json`.
    pub name: &'static str,
    /// Path from the `conformance/` folder.
    pub path: &'static str,
    /// Why a difference is not simply regenerated, printed when the file is stale.
    pub frozen: &'static str,
    /// The whole file, byte for byte.
    pub generate: fn() -> String,
}

/// Every generated vectors file.
pub const FILES: &[VectorsFile] = &[
    VectorsFile {
        name: "vectors",
        path: "vectors.json",
        frozen: "hrw-v1 outputs are frozen: if this change is intended it needs a new algorithm version.",
        generate: vectors::generate,
    },
    VectorsFile {
        name: "vectors-edge",
        path: "vectors-edge.json",
        frozen: "Cases may be added, but hrw-v1 outputs are frozen: an existing case must never change.",
        generate: edge::generate,
    },
    VectorsFile {
        name: "views",
        path: "views.json",
        frozen: "hrwhash-view-v1 outputs are fixed: an intended change needs a new view format tag (VIEW.md).",
        generate: views::generate,
    },
    VectorsFile {
        name: "transitions",
        path: "transitions.json",
        frozen: "The cases follow VIEW.md 6: a change of outcome is a change of hrwhash-view-v1's transitions, which needs a new view format tag; cases may be added.",
        generate: transitions::generate,
    },
    VectorsFile {
        name: "live-view",
        path: "live-view.json",
        frozen: "The cases follow LIVE-VIEW.md: a change of outcome is a change of the live view's rules.",
        generate: live_view::generate,
    },
    VectorsFile {
        name: "slot-table",
        path: "policies/slot-table.json",
        frozen: "slot-table-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: slot_table::ranked::generate,
    },
    VectorsFile {
        name: "slot-table-v2",
        path: "policies/slot-table-v2.json",
        frozen: "slot-table-v2 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: slot_table::levelled::generate,
    },
    VectorsFile {
        name: "slot-history-v1",
        path: "policies/slot-history-v1.json",
        frozen: "hrwhash-slot-history-v1 outputs are fixed: an intended change needs a new format tag (SLOT-HISTORY.md).",
        generate: slot_history::generate,
    },
    VectorsFile {
        name: "domains",
        path: "policies/domains.json",
        frozen: "domains-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: domains::generate,
    },
    VectorsFile {
        name: "bounded-load",
        path: "policies/bounded-load.json",
        frozen: "bounded-load-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: bounded_load::generate,
    },
    VectorsFile {
        name: "bounded-load-boundaries",
        path: "policies/bounded-load-boundaries.json",
        frozen: "bounded-load-v1 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: bounded_load_boundaries::generate,
    },
    VectorsFile {
        name: "replica-balance-v2",
        path: "policies/replica-balance-v2.json",
        frozen: "replica-balance-v2 outputs are fixed: an intended change needs a new policy version (POLICIES.md).",
        generate: replica_balance::generate,
    },
];

impl VectorsFile {
    /// Where the file is, whatever the working folder of the caller.
    pub fn full_path(&self) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(self.path)
    }

    /// The command that rewrites the file.
    pub fn regenerate_command(&self) -> String {
        format!(
            "cargo run -p hrwhash-conformance --bin generate -- {}",
            self.name
        )
    }
}

/// Deterministic input stream (SplitMix64).
pub(crate) struct Stream(pub(crate) u64);

impl Stream {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub(crate) fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A case's `"seed"` member, 32 hex digits, when it has a seed of its own: every file leaves the
/// member out for the default seed of SPEC.md.
pub(crate) fn insert_seed(o: &mut serde_json::Map<String, Value>, seed: Option<Seed>) {
    if let Some(seed) = seed {
        o.insert("seed".into(), hex(&seed.to_bytes()).into());
    }
}

pub(crate) fn u64s(v: u64) -> Value {
    Value::String(v.to_string())
}

/// The per-node expectations of a small hrw-v1 case: each node's digest and score for the key.
pub(crate) fn per_node(expected: &mut serde_json::Map<String, Value>, digests: &[u64], kd: u64) {
    expected.insert(
        "node_digests".into(),
        digests.iter().map(|&d| u64s(d)).collect(),
    );
    expected.insert(
        "scores".into(),
        digests
            .iter()
            .map(|&d| u64s(hrwhash::v1::score(kd, d)))
            .collect(),
    );
}

/// The layout every vectors file shares: one top-level field a line, then sections of one JSON
/// value a line, so that a diff of a regenerated file shows the cases that changed.
pub(crate) struct JsonFile(Vec<String>);

impl JsonFile {
    pub(crate) fn new() -> JsonFile {
        JsonFile(Vec::new())
    }

    /// A field written as `value` displays itself (a number, or JSON text).
    pub(crate) fn raw(mut self, name: &str, value: impl Display) -> JsonFile {
        self.0.push(format!("  \"{name}\": {value}"));
        self
    }

    pub(crate) fn string(self, name: &str, value: &str) -> JsonFile {
        self.raw(name, Value::String(value.into()))
    }

    /// The default seed of SPEC.md, in hex.
    pub(crate) fn default_seed(self) -> JsonFile {
        self.string("default_seed", &hex(&Seed::DEFAULT.to_bytes()))
    }

    pub(crate) fn section(mut self, name: &str, items: &[Value]) -> JsonFile {
        let mut s = format!("  \"{name}\": [\n");
        for (i, item) in items.iter().enumerate() {
            let sep = if i + 1 == items.len() { "" } else { "," };
            s.push_str(&format!("    {item}{sep}\n"));
        }
        s.push_str("  ]");
        self.0.push(s);
        self
    }

    pub(crate) fn finish(self) -> String {
        format!("{{\n{}\n}}\n", self.0.join(",\n"))
    }
}
