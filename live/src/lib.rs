//! Sources and publishing for hrwhash live views (conformance/LIVE-VIEW.md): followers that keep
//! a [`hrwhash::LiveView`] on the view published in a file ([`FileSource`]), at an etcd key
//! ([`EtcdSource`], etcd's v3 JSON gateway over plain HTTP) or at an HTTP URL ([`HttpSource`],
//! polled with ETags); a publisher that is the one authority on epochs ([`Publisher`]: etcd with
//! a compare-and-swap on the key's revision, or a file replaced by atomic rename; ramps step by
//! step); and Kubernetes EndpointSlices as a view ([`endpoint_slices_to_view`]).
//!
//! The core crate depends on none of this: the live view itself is `hrwhash::LiveView`.
//!
//! ```no_run
//! use hrwhash::{Placement, View};
//! use hrwhash_live::{EtcdSource, Publisher};
//!
//! let publisher = Publisher::etcd("http://127.0.0.1:2379", "/hrwhash/cache")?;
//! publisher.publish(&View::new(Placement::new(["a", "b", "c"])?, 1)?)?;
//!
//! let follower = EtcdSource::new("http://127.0.0.1:2379", "/hrwhash/cache")?.start()?;
//! let owner = follower.live().owner("session:42");
//! # let _ = owner;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod endpoint_slices;
mod error;
pub mod etcd;
mod etcd_source;
mod file;
mod http;
mod publish;
mod source;

pub use endpoint_slices::{endpoint_slices_to_view, SliceOptions, SERVICE_LABEL};
pub use error::Error;
pub use etcd_source::EtcdSource;
pub use file::FileSource;
pub use http::HttpSource;
pub use publish::{publish_etcd, publish_file, write_atomically, Published, Publisher, MAX_TRIES};
pub use source::{log_to_stderr, ChangeCallback, Event, Follower, Observer};
