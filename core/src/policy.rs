//! Placement policies built on hrw-v1 scores: each one is specified in `conformance/POLICIES.md`
//! under its own name and version, with its own vectors in `conformance/policies/`. The hrw-v1
//! lookups of [`Placement`](crate::Placement) are unchanged by them.

pub mod slot_table;

#[cfg(feature = "json")]
pub use slot_table::SLOT_HISTORY_FORMAT;
pub use slot_table::{
    SlotChange, SlotMode, SlotTable, MAX_CHANGES, RANKED_SLOT_TABLE_POLICY, SLOT_TABLE_POLICY,
};
pub mod domains;

pub use domains::Domains;
pub mod bounded_load;
pub mod replica_balance;

pub use bounded_load::{BalanceFactor, BoundedLoad, BOUNDED_LOAD_POLICY};
pub use replica_balance::{ReplicaBalance, REPLICA_BALANCE_POLICY};
