//! A view served at an HTTP URL, polled with `If-None-Match` (LIVE.md, "HTTP URL"): a server that
//! sends an `ETag` answers `304 Not Modified` while the document is unchanged.

use std::time::Duration;

use std::sync::Arc;

use hrwhash::Seed;

use crate::source::{stopped_during, Backoff, Feed, Follower, Observer, Options};
use crate::Error;

/// Seconds one poll may take, connection included.
const POLL_TIMEOUT_S: u64 = 5;

/// Follows a view document at an `http://` URL: a full read, then a poll every `interval`
/// (default 1 s).
#[derive(Clone)]
pub struct HttpSource {
    url: String,
    interval: Duration,
    options: Options,
}

enum Fetched {
    Document {
        bytes: Vec<u8>,
        etag: Option<String>,
    },
    NotModified,
}

fn fetch(url: &str, etag: Option<&str>) -> Result<Fetched, Error> {
    let mut request = minreq::get(url).with_timeout(POLL_TIMEOUT_S);
    if let Some(tag) = etag {
        request = request.with_header("If-None-Match", tag);
    }
    let context = || format!("GET {url}");
    let response = request.send_lazy().map_err(|e| Error::io(context(), e))?;
    match response.status_code {
        304 => Ok(Fetched::NotModified),
        200 => {
            let etag = response.headers.get("etag").cloned();
            let bytes = hrwhash::view::read_document(response)
                .map_err(|e| Error::io(context(), e))?
                .map_err(Error::View)?;
            Ok(Fetched::Document { bytes, etag })
        }
        s => Err(Error::io(
            context(),
            format!("HTTP {s} {}", response.reason_phrase),
        )),
    }
}

impl std::fmt::Debug for HttpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSource")
            .field("url", &self.url)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

impl HttpSource {
    /// A source of the view document at `url` (`http://` only), for views of the default seed.
    pub fn new(url: &str) -> Result<HttpSource, Error> {
        if !url.starts_with("http://") {
            return Err(Error::InvalidArgument {
                message: format!("{url:?} is not an http:// URL"),
            });
        }
        Ok(HttpSource {
            url: url.to_string(),
            interval: Duration::from_secs(1),
            options: Options::default(),
        })
    }

    /// The poll interval.
    pub fn interval(mut self, interval: Duration) -> HttpSource {
        self.interval = interval;
        self
    }

    crate::source::shared_options!();

    /// Fetches the document (an error when it cannot be fetched or is not a view of the seed),
    /// then polls on a thread of its own.
    pub fn start(self) -> Result<Follower, Error> {
        let Fetched::Document { bytes, mut etag } = fetch(&self.url, None)? else {
            return Err(Error::io(
                format!("GET {}", self.url),
                "HTTP 304 to a request without If-None-Match",
            ));
        };
        let feed = Feed::first(&bytes, &self.options, self.url.clone())?;
        let mut last = bytes;
        let (url, interval) = (self.url, self.interval);
        Follower::spawn(feed.live.clone(), "http", true, move |stop| {
            let mut backoff = Backoff::new();
            let mut wait = interval;
            while !stopped_during(&stop, wait) {
                wait = interval;
                match fetch(&url, etag.as_deref()) {
                    Ok(Fetched::NotModified) => backoff.reset(),
                    Ok(Fetched::Document { bytes, etag: tag }) => {
                        backoff.reset();
                        etag = tag;
                        if bytes != last {
                            feed.offer(&bytes);
                            last = bytes;
                        }
                    }
                    Err(e) => {
                        feed.fail(e);
                        wait = backoff.next_wait().max(interval);
                    }
                }
            }
        })
    }
}
