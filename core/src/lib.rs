//! Rendezvous (highest-random-weight) hashing with one frozen, versioned algorithm: **hrw-v1**.
//!
//! Every node gets a 64-bit score for every key; the key belongs to the node with the highest
//! score, and the nodes in score order are its replicas. Adding a node moves only the keys the new
//! node wins; removing one moves only that node's keys. Weighted nodes use the logarithmic method
//! (rank by `-ln(u) / w`) computed in integer arithmetic, so every platform and every language
//! binding returns bit-identical answers. The algorithm is specified byte for byte in
//! `conformance/SPEC.md`.
//!
//! Features: `std` (default) adds run-time SIMD dispatch (AVX2 or AVX-512; the environment
//! variable `HRWHASH_KERNEL=scalar|avx2|avx512` forces one, falling back to the next one down
//! that the CPU has) and `std::error::Error`; `json`
//! (default) adds [`View`] documents, [`RampPlan`] and the documents of [`policy::SlotTable`],
//! with a JSON parser and SHA-256; both together add [`LiveView`], the view a client follows as
//! its publisher issues new epochs. With neither, a placement and the policies compile SipHash
//! alone. The compatibility profiles are the crate `hrwhash-compat`.
//!
//! ```
//! use hrwhash::{Node, Placement, Seed, Weight};
//!
//! let placement = Placement::new(["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"])?;
//! let owner = placement.owner("session:1234");
//! println!("owner: {}", String::from_utf8_lossy(owner.id()));
//!
//! // Weights, a secret seed and failure domains.
//! let placement = Placement::from_nodes(
//!     Seed::from_bytes(*b"0123456789abcdef"),
//!     [
//!         Node::new("a1").with_weight(Weight::new(2.0)?).with_domain("rack-a"),
//!         Node::new("a2").with_domain("rack-a"),
//!         Node::new("b1").with_domain("rack-b"),
//!     ],
//! )?;
//! let replicas = placement.replicas("object-7", 2);
//! assert_ne!(replicas[0].domain(), replicas[1].domain());
//! # Ok::<(), hrwhash::Error>(())
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

extern crate alloc;

mod error;
#[rustfmt::skip]
mod error_kind;
mod kernel;
#[cfg(all(feature = "std", feature = "json"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "std", feature = "json"))))]
pub mod live_view;
mod lookup;
mod placement;
pub mod policy;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod ramp;
pub mod transition;
mod util;
pub mod v1;
#[cfg(feature = "json")]
#[cfg_attr(docsrs, doc(cfg(feature = "json")))]
pub mod view;
mod weight;

pub use error::{Error, Fault};
pub use error_kind::ErrorKind;
#[cfg(all(feature = "std", feature = "json"))]
pub use live_view::{LiveRoute, LiveSnapshot, LiveView};
pub use lookup::Lookup;
#[doc(hidden)]
pub use placement::__kernel;
pub use placement::{Node, NodeRef, Placement};
#[cfg(feature = "json")]
pub use ramp::RampPlan;
pub use transition::Transition;
pub use v1::{Seed, ALGORITHM};
#[cfg(feature = "json")]
pub use view::View;
pub use weight::Weight;

// The README's Rust snippets compile and run as doctests (some load views).
#[cfg(all(doctest, feature = "json"))]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
