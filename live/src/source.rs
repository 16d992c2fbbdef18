//! What every source does with what it reads (LIVE.md, "Sources"): parse each document as a
//! view of the live view's seed and offer it to the live view; record and report parse errors,
//! refusals and source errors, never apply them; retry a lost server with capped backoff.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hrwhash::{LiveView, Seed, View};

use crate::Error;

/// What a source did with one document, or what went wrong between it and the document; given
/// to the source's observer (the default writes refusals and source errors to stderr).
#[derive(Debug)]
pub enum Event<'a> {
    /// The live view applied a view of this epoch (its change callbacks have run).
    Applied {
        /// The new epoch.
        epoch: u64,
    },
    /// The document read is the live view's current view: a confirmation.
    Unchanged {
        /// The current epoch.
        epoch: u64,
    },
    /// The document was refused: it is not a view of the live view's seed (`InvalidJson`,
    /// `InvalidView`, `SeedMismatch`; `epoch` is then `None`) or the live view refused it
    /// (`StaleView`, `ViewConflict`, with the offered epoch). Never applied.
    Refused {
        /// Why.
        error: &'a Error,
        /// The offered view's epoch, when the document was a view.
        epoch: Option<u64>,
    },
    /// The server, file or connection failed; the live view keeps its view and the source
    /// retries.
    SourceError {
        /// What failed.
        error: &'a Error,
    },
}

/// A source's observer of events. Runs on the source's thread.
pub type Observer = Arc<dyn Fn(&Event<'_>) + Send + Sync>;

/// The default observer: refusals and source errors, one line each on stderr.
pub fn log_to_stderr(name: String) -> Observer {
    Arc::new(move |event: &Event<'_>| match event {
        Event::Refused { error, epoch } => eprintln!(
            "hrwhash-live: {name}: refused a document (epoch {}): error[{}]: {error}",
            epoch.map_or_else(|| "-".to_string(), |e| e.to_string()),
            error.kind_name()
        ),
        Event::SourceError { error } => eprintln!(
            "hrwhash-live: {name}: source error[{}]: {error}; keeping the last view",
            error.kind_name()
        ),
        Event::Applied { .. } | Event::Unchanged { .. } => {}
    })
}

/// A change callback given to a source before it starts, so that it sees every applied update.
pub type ChangeCallback =
    Arc<dyn Fn(&hrwhash::Transition<hrwhash::View, hrwhash::View>) + Send + Sync>;

/// The builder methods every source shares (`seed`, `observer`, `on_change`), over its `options`.
macro_rules! shared_options {
    () => {
        /// The seed the views are written for (a secret seed; default: the public one).
        pub fn seed(mut self, seed: Seed) -> Self {
            self.options.seed = seed;
            self
        }

        /// The observer of every event (default: refusals and source errors logged to stderr).
        pub fn observer(mut self, observer: Observer) -> Self {
            self.options.observer = Some(observer);
            self
        }

        /// Registers a change callback on the live view before the source starts, so that it runs
        /// for every applied update (see `hrwhash::LiveView::on_change`).
        pub fn on_change(
            mut self,
            callback: impl Fn(&hrwhash::Transition<hrwhash::View, hrwhash::View>)
                + Send
                + Sync
                + 'static,
        ) -> Self {
            self.options.on_change.push(Arc::new(callback));
            self
        }
    };
}
pub(crate) use shared_options;

/// What every source is configured with.
#[derive(Clone)]
pub(crate) struct Options {
    pub seed: Seed,
    pub observer: Option<Observer>,
    pub on_change: Vec<ChangeCallback>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: Seed::DEFAULT,
            observer: None,
            on_change: Vec::new(),
        }
    }
}

/// Parses and offers documents to a live view, and reports.
#[derive(Clone)]
pub(crate) struct Feed {
    pub live: Arc<LiveView>,
    pub seed: Seed,
    pub observer: Observer,
}

impl Feed {
    /// The first view of a follower: a document that is not a view of `seed` is an error.
    pub fn first(bytes: &[u8], options: &Options, name: String) -> Result<Feed, Error> {
        let view = View::from_json_bytes(bytes, options.seed)?;
        let live = LiveView::new(view);
        for callback in &options.on_change {
            let callback = callback.clone();
            live.on_change(move |t| callback(t));
        }
        Ok(Feed {
            live: Arc::new(live),
            seed: options.seed,
            observer: options
                .observer
                .clone()
                .unwrap_or_else(|| log_to_stderr(name)),
        })
    }

    pub fn offer(&self, bytes: &[u8]) {
        let view = match View::from_json_bytes(bytes, self.seed) {
            Ok(v) => v,
            Err(e) => {
                self.live.report_error(e.clone());
                (self.observer)(&Event::Refused {
                    error: &Error::View(e),
                    epoch: None,
                });
                return;
            }
        };
        let epoch = view.epoch();
        match self.live.update(view) {
            Ok(true) => (self.observer)(&Event::Applied { epoch }),
            Ok(false) => (self.observer)(&Event::Unchanged { epoch }),
            Err(e) => (self.observer)(&Event::Refused {
                error: &Error::View(e),
                epoch: Some(epoch),
            }),
        }
    }

    pub fn fail(&self, error: Error) {
        // A document the core refused keeps its typed error (with its details); the rest is the
        // source's own failure.
        self.live.report_error(match error.core() {
            Some(e) => e.clone(),
            None => hrwhash::Error::Source {
                kind: error.kind_name().to_string(),
                message: error.to_string(),
            },
        });
        (self.observer)(&Event::SourceError { error: &error });
    }
}

/// Capped exponential backoff: 100 ms doubling to 5 s (LIVE.md).
pub(crate) struct Backoff(Duration);

impl Backoff {
    pub const FIRST: Duration = Duration::from_millis(100);
    pub const CAP: Duration = Duration::from_secs(5);

    pub fn new() -> Backoff {
        Backoff(Self::FIRST)
    }

    pub fn reset(&mut self) {
        self.0 = Self::FIRST;
    }

    /// The wait before the next try; the one after is twice as long, up to the cap.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.0;
        self.0 = (self.0 * 2).min(Self::CAP);
        wait
    }
}

/// A running source: its live view, and the thread that feeds it.
pub struct Follower {
    live: Arc<LiveView>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    joins_on_stop: bool,
}

impl Follower {
    pub(crate) fn spawn(
        live: Arc<LiveView>,
        name: &str,
        joins_on_stop: bool,
        body: impl FnOnce(Receiver<()>) + Send + 'static,
    ) -> Result<Follower, Error> {
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(format!("hrwhash-live {name}"))
            .spawn(move || body(rx))
            .map_err(|e| Error::io("starting the source's thread", e))?;
        Ok(Follower {
            live,
            stop: Some(tx),
            thread: Some(thread),
            joins_on_stop,
        })
    }

    /// The live view the source feeds.
    pub fn live(&self) -> &Arc<LiveView> {
        &self.live
    }

    /// Stops feeding the live view (which stays usable with its last view). A file or HTTP
    /// source's thread is joined; an etcd source's thread, which may be blocked reading its
    /// watch, applies nothing more and ends at the watch's next message, when the connection
    /// ends, or at the latest after [`crate::etcd::WATCH_RENEW_S`] seconds.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            if self.joins_on_stop {
                let _ = t.join();
            }
        }
    }
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("live", &self.live)
            .field("running", &self.stop.is_some())
            .finish()
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Waits `wait`, or less when told to stop; true when told to stop.
pub(crate) fn stopped_during(stop: &Receiver<()>, wait: Duration) -> bool {
    !matches!(stop.recv_timeout(wait), Err(RecvTimeoutError::Timeout))
}

/// True once told to stop (without waiting).
pub(crate) fn stopped(stop: &Receiver<()>) -> bool {
    !matches!(stop.try_recv(), Err(std::sync::mpsc::TryRecvError::Empty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_100_ms_to_a_5_s_cap_and_resets() {
        let mut b = Backoff::new();
        let waits: Vec<u128> = (0..9).map(|_| b.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
        b.reset();
        assert_eq!(b.next_wait(), Duration::from_millis(100));
    }
}
