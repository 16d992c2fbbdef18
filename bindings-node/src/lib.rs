//! Node bindings for hrwhash, bit for bit like every other hrwhash binding: one module per
//! concept, re-exported here for the modules that share them.
#![deny(clippy::unwrap_used, clippy::expect_used)]
// A test build registers no module with Node (napi leaves out `module_exports` and the class
// registrations), so what only JavaScript calls is unreachable there, and only there.
#![cfg_attr(test, allow(dead_code))]

mod args;
#[rustfmt::skip]
mod error_table;
mod fast;
mod gather;
mod js;
mod live_view;
mod placement;
mod policy;
mod policy_domains;
mod profile;
mod replica_balance;
mod slot_table;
mod v1;
mod view;

pub use placement::Placement;
pub use v1::{draw, key_digest, node_digest, score, weight_to_fixed, ALGORITHM, DEFAULT_SEED};

pub(crate) use args::{
    checked_replicas, core_error, count_arg, count_of, count_value, key_and_count, key_of,
    no_bad_text, read, seed_arg, seed_of, slices,
};
pub(crate) use placement::{optional, parse_membership, NodeForm, Parsed};
