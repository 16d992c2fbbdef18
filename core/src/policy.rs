//! Placement policies built on hrw-v1 scores: each one is specified in `conformance/POLICIES.md`
//! under its own name and version, with its own vectors in `conformance/policies/`. The hrw-v1
//! lookups of [`Placement`](crate::Placement) are unchanged by them.

pub mod slot_table;

pub use slot_table::SlotTable;
pub mod levelled_slots;

pub use levelled_slots::{LevelledSlotTable, LEVELLED_SLOTS_POLICY};
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod slot_history;

#[cfg(feature = "json")]
pub use slot_history::{SlotChange, SlotHistory, TableFingerprint, SLOT_HISTORY_FORMAT};
pub mod domains;

pub use domains::{DomainFault, Domains};
pub mod bounded_load;
pub mod replica_balance;

pub use bounded_load::{BalanceFactor, BoundedLoad, BOUNDED_LOAD};
pub use replica_balance::{ReplicaBalance, REPLICA_BALANCE_POLICY};
