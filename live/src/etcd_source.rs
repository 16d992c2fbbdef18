//! A view at an etcd key, watched (LIVE.md, "etcd"): a full read, then a watch from the read's
//! revision + 1; after a lost connection or a canceled (compacted) watch, a full read again and
//! a fresh watch from its revision + 1, so no write is ever skipped.

use std::sync::mpsc::Receiver;

use std::sync::Arc;

use hrwhash::Seed;

use std::time::{Duration, Instant};

use crate::etcd::{Etcd, WatchMessage, WATCH_RENEW_S};
use crate::source::{stopped, stopped_during, Backoff, Feed, Follower, Observer, Options};
use crate::Error;

/// Follows the view document at one etcd key.
#[derive(Clone)]
pub struct EtcdSource {
    etcd: Etcd,
    key: Vec<u8>,
    options: Options,
    first_watch_from: Option<i64>,
    renew_s: u64,
}

impl std::fmt::Debug for EtcdSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdSource")
            .field("endpoint", &self.etcd.endpoint())
            .field("key", &String::from_utf8_lossy(&self.key))
            .finish_non_exhaustive()
    }
}

impl EtcdSource {
    /// A source of `key` at the etcd `endpoint` (`http://HOST:PORT`), for views of the default
    /// seed.
    pub fn new(endpoint: &str, key: &str) -> Result<EtcdSource, Error> {
        if key.is_empty() {
            return Err(Error::InvalidArgument {
                message: "the etcd key is empty".into(),
            });
        }
        Ok(EtcdSource {
            etcd: Etcd::new(endpoint)?,
            key: key.as_bytes().to_vec(),
            options: Options::default(),
            first_watch_from: None,
            renew_s: WATCH_RENEW_S,
        })
    }

    crate::source::shared_options!();

    /// Starts the first watch at `revision` instead of after the first read: for tests of the
    /// recovery from a compacted watch.
    #[doc(hidden)]
    pub fn first_watch_from(mut self, revision: i64) -> EtcdSource {
        self.first_watch_from = Some(revision);
        self
    }

    /// Renews the watch (a full read and a fresh watch) every `seconds` instead of every
    /// [`WATCH_RENEW_S`]: for tests of the renewal.
    #[doc(hidden)]
    pub fn watch_renewal(mut self, seconds: u64) -> EtcdSource {
        self.renew_s = seconds.max(1);
        self
    }

    /// Reads the key (an error when etcd cannot be reached, the key is absent or its value is not
    /// a view of the seed), then watches it on a thread of its own.
    pub fn start(self) -> Result<Follower, Error> {
        let name = format!(
            "{} key {}",
            self.etcd.endpoint(),
            String::from_utf8_lossy(&self.key)
        );
        let read = self.etcd.get(&self.key)?;
        let Some(stored) = read.stored else {
            return Err(absent(&self.etcd, &self.key));
        };
        let feed = Feed::first(&stored.value, &self.options, name)?;
        let from = self.first_watch_from.unwrap_or(read.revision + 1);
        let (etcd, key, renew_s) = (self.etcd, self.key, self.renew_s);
        Follower::spawn(feed.live.clone(), "etcd", false, move |stop| {
            follow(&etcd, &key, &feed, from, renew_s, &stop)
        })
    }
}

fn absent(etcd: &Etcd, key: &[u8]) -> Error {
    Error::io(
        format!("{} key {}", etcd.endpoint(), String::from_utf8_lossy(key)),
        "the key is absent",
    )
}

/// Watches from `from` until told to stop, reading the key again whenever the watch ends.
fn follow(etcd: &Etcd, key: &[u8], feed: &Feed, mut from: i64, renew_s: u64, stop: &Receiver<()>) {
    let mut backoff = Backoff::new();
    loop {
        if stopped(stop) {
            return;
        }
        match watch(etcd, key, feed, from, renew_s, stop, &mut backoff) {
            Ended::Stopped => return,
            // etcd ended the watch on purpose, or it reached its renewal: read again at once.
            Ended::Canceled | Ended::Renew => {}
            Ended::Lost => {
                if stopped_during(stop, backoff.next_wait()) {
                    return;
                }
            }
        }
        // The full read: until it succeeds, the live view keeps its view.
        loop {
            match etcd.get(key) {
                Ok(read) => {
                    match read.stored {
                        Some(s) => feed.offer(&s.value),
                        None => feed.fail(absent(etcd, key)),
                    }
                    from = read.revision + 1;
                    break;
                }
                Err(e) => {
                    feed.fail(e);
                    if stopped_during(stop, backoff.next_wait()) {
                        return;
                    }
                }
            }
        }
    }
}

enum Ended {
    Stopped,
    Canceled,
    Renew,
    Lost,
}

fn watch(
    etcd: &Etcd,
    key: &[u8],
    feed: &Feed,
    from: i64,
    renew_s: u64,
    stop: &Receiver<()>,
    backoff: &mut Backoff,
) -> Ended {
    let opened = Instant::now();
    let mut stream = match etcd.watch(key, from, renew_s) {
        Ok(s) => s,
        Err(e) => {
            feed.fail(e);
            return Ended::Lost;
        }
    };
    loop {
        let message = stream.next_message();
        if stopped(stop) {
            return Ended::Stopped;
        }
        match message {
            Ok(WatchMessage::Created) => backoff.reset(),
            Ok(WatchMessage::Events(events)) => {
                for (_, value) in events {
                    match value {
                        Some(v) => feed.offer(&v),
                        None => feed.fail(Error::io(
                            format!("{} key {}", etcd.endpoint(), String::from_utf8_lossy(key)),
                            "the key was deleted",
                        )),
                    }
                }
            }
            Ok(WatchMessage::Canceled {
                compact_revision,
                reason,
            }) => {
                let why = match compact_revision {
                    Some(r) => format!("watch from revision {from} canceled: history compacted at revision {r}; reading the key again"),
                    None => format!("watch canceled ({reason}); reading the key again"),
                };
                feed.fail(Error::io(
                    format!("{} key {}", etcd.endpoint(), String::from_utf8_lossy(key)),
                    why,
                ));
                return Ended::Canceled;
            }
            // The stream's deadline, not a failure.
            Err(_) if opened.elapsed() >= Duration::from_secs(renew_s) => return Ended::Renew,
            Err(e) => {
                feed.fail(e);
                return Ended::Lost;
            }
        }
    }
}
