//! A view file, polled (LIVE.md, "File"): publishers replace it by atomic rename
//! ([`crate::publish_file`]), so a read sees the old document or the new one.

use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use hrwhash::Seed;

use crate::source::{stopped_during, Backoff, Feed, Follower, Observer, Options};
use crate::Error;

/// Follows a view file: a full read, then a poll every `interval` (default 1 s) that compares
/// size, modification time and inode, then the bytes.
#[derive(Clone)]
pub struct FileSource {
    path: PathBuf,
    interval: Duration,
    options: Options,
}

/// What tells a replaced file from the one read last, before its bytes are compared.
#[derive(PartialEq, Eq, Clone, Copy)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

fn stamp(path: &PathBuf) -> std::io::Result<Stamp> {
    let m = std::fs::metadata(path)?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    Ok(Stamp {
        len: m.len(),
        modified: m.modified().ok(),
        inode,
    })
}

fn read(path: &PathBuf) -> Result<Vec<u8>, Error> {
    let shown = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| Error::io(&shown, e))?;
    hrwhash::view::read_document(f)
        .map_err(|e| Error::io(&shown, e))?
        .map_err(Error::View)
}

impl std::fmt::Debug for FileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSource")
            .field("path", &self.path)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

impl FileSource {
    /// A source of the view file at `path`, for views of the default seed.
    pub fn new(path: impl Into<PathBuf>) -> FileSource {
        FileSource {
            path: path.into(),
            interval: Duration::from_secs(1),
            options: Options::default(),
        }
    }

    /// The poll interval.
    pub fn interval(mut self, interval: Duration) -> FileSource {
        self.interval = interval;
        self
    }

    crate::source::shared_options!();

    /// Reads the file (an error when it cannot be read or is not a view of the seed), then
    /// polls it on a thread of its own.
    pub fn start(self) -> Result<Follower, Error> {
        let mut last_stamp = stamp(&self.path).ok();
        let mut last_bytes = read(&self.path)?;
        let feed = Feed::first(&last_bytes, &self.options, self.path.display().to_string())?;
        let live = feed.live.clone();
        let (path, interval) = (self.path, self.interval);
        Follower::spawn(live, "file", true, move |stop| {
            let mut backoff = Backoff::new();
            let mut wait = interval;
            while !stopped_during(&stop, wait) {
                wait = interval;
                let now = match stamp(&path) {
                    Ok(s) => s,
                    Err(e) => {
                        feed.fail(Error::io(path.display().to_string(), e));
                        wait = backoff.next_wait().max(interval);
                        continue;
                    }
                };
                if Some(now) == last_stamp {
                    continue;
                }
                match read(&path) {
                    Ok(bytes) => {
                        backoff.reset();
                        last_stamp = Some(now);
                        if bytes != last_bytes {
                            feed.offer(&bytes);
                            last_bytes = bytes;
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
