//! Publishing with one authority (LIVE.md, "Publishing"): the publisher assigns epochs, the
//! epoch grows only when the fingerprint changes, and two publishers never issue one epoch twice
//! (etcd: a compare-and-swap on the key's revision; a file: one publisher per file, atomic
//! rename).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use hrwhash::{Fault, View};

use crate::etcd::{Etcd, Expect};
use crate::Error;

/// Compare-and-swaps tried before [`Error::Contended`].
pub const MAX_TRIES: u32 = 16;

/// What a publish did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Published {
    /// The view was written at this epoch.
    Written {
        /// The epoch the publisher gave it.
        epoch: u64,
    },
    /// The stored view already had the offered view's fingerprint: nothing was written; its
    /// epoch.
    Unchanged {
        /// The stored epoch.
        epoch: u64,
    },
}

impl Published {
    /// The epoch now stored.
    pub fn epoch(self) -> u64 {
        match self {
            Published::Written { epoch } | Published::Unchanged { epoch } => epoch,
        }
    }
}

/// Where views are published.
#[derive(Clone, Debug)]
pub enum Publisher {
    /// A key of an etcd (v3 JSON gateway).
    Etcd {
        /// The endpoint.
        etcd: Etcd,
        /// The key.
        key: Vec<u8>,
    },
    /// A file, replaced by atomic rename.
    File(PathBuf),
}

/// The epoch of the next write: the offered epoch is only a floor (LIVE.md).
fn next_epoch(stored: Option<&View>, offered: u64) -> Result<u64, Error> {
    match stored {
        None => Ok(offered.max(1)),
        Some(s) => s
            .epoch()
            .checked_add(1)
            .map(|e| e.max(offered))
            .ok_or(Error::View(hrwhash::Error::InvalidView {
                field: "epoch".into(),
                index: None,
                reason: Fault::OutOfRange,
            })),
    }
}

impl Publisher {
    /// A publisher to an etcd key.
    pub fn etcd(endpoint: &str, key: &str) -> Result<Publisher, Error> {
        if key.is_empty() {
            return Err(Error::InvalidArgument {
                message: "the etcd key is empty".into(),
            });
        }
        Ok(Publisher::Etcd {
            etcd: Etcd::new(endpoint)?,
            key: key.as_bytes().to_vec(),
        })
    }

    /// A publisher to a file.
    pub fn file(path: impl Into<PathBuf>) -> Publisher {
        Publisher::File(path.into())
    }

    /// Publishes `view`'s membership (its epoch is a floor, see [`Published`]). A stored document
    /// that is not a view of `view`'s seed is an error (`InvalidJson`, `InvalidView`,
    /// `SeedMismatch`): the publisher does not overwrite what it cannot read.
    pub fn publish(&self, view: &View) -> Result<Published, Error> {
        match self {
            Publisher::Etcd { etcd, key } => publish_etcd_to(etcd, key, view),
            Publisher::File(path) => publish_file(path, view),
        }
    }

    /// Publishes `steps` in order (a ramp), waiting at least `min_interval` between two writes;
    /// `on_step(i, outcome, began)` runs after each, with the time its publish began. Stops at
    /// the first error.
    pub fn publish_steps(
        &self,
        steps: &[View],
        min_interval: Duration,
        mut on_step: impl FnMut(usize, Published, SystemTime),
    ) -> Result<Vec<Published>, Error> {
        let mut done = Vec::with_capacity(steps.len());
        let mut last: Option<Instant> = None;
        for (i, step) in steps.iter().enumerate() {
            if let Some(at) = last {
                let wait = min_interval.saturating_sub(at.elapsed());
                std::thread::sleep(wait);
            }
            // A step's epoch is at least one above the previous write, whatever the step says.
            let floor = done.last().map_or(step.epoch(), |p: &Published| {
                step.epoch().max(p.epoch().saturating_add(1))
            });
            let began = SystemTime::now();
            let outcome = self.publish(&step.with_epoch(floor))?;
            last = Some(Instant::now());
            on_step(i, outcome, began);
            done.push(outcome);
        }
        Ok(done)
    }
}

/// Publishes `view` at `key` of the etcd at `endpoint` (see [`Publisher::publish`]).
pub fn publish_etcd(endpoint: &str, key: &str, view: &View) -> Result<Published, Error> {
    Publisher::etcd(endpoint, key)?.publish(view)
}

fn publish_etcd_to(etcd: &Etcd, key: &[u8], view: &View) -> Result<Published, Error> {
    let seed = view.placement().seed();
    for _ in 0..MAX_TRIES {
        let read = etcd.get(key)?;
        let (stored, expect) = match &read.stored {
            None => (None, Expect::Absent),
            Some(s) => (
                Some(View::from_json_bytes(&s.value, seed)?),
                Expect::ModRevision(s.mod_revision),
            ),
        };
        if let Some(s) = &stored {
            if s.fingerprint() == view.fingerprint() {
                return Ok(Published::Unchanged { epoch: s.epoch() });
            }
        }
        let epoch = next_epoch(stored.as_ref(), view.epoch())?;
        let doc = view.with_epoch(epoch).to_json();
        if etcd.put_if(key, doc.as_bytes(), expect)? {
            return Ok(Published::Written { epoch });
        }
    }
    Err(Error::Contended {
        key: String::from_utf8_lossy(key).into_owned(),
        tries: MAX_TRIES,
    })
}

/// Publishes `view` to the file at `path`: the epoch rule against the file's current view, then a
/// temporary file in the same folder, fsync, rename over `path`, fsync of the folder. One
/// publisher per file (a file has no compare-and-swap).
pub fn publish_file(path: &Path, view: &View) -> Result<Published, Error> {
    let shown = path.display().to_string();
    let stored = match std::fs::File::open(path) {
        Ok(f) => {
            let bytes = hrwhash::view::read_document(f)
                .map_err(|e| Error::io(&shown, e))?
                .map_err(Error::View)?;
            Some(View::from_json_bytes(&bytes, view.placement().seed())?)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&shown, e)),
    };
    if let Some(s) = &stored {
        if s.fingerprint() == view.fingerprint() {
            return Ok(Published::Unchanged { epoch: s.epoch() });
        }
    }
    let epoch = next_epoch(stored.as_ref(), view.epoch())?;
    write_atomically(path, view.with_epoch(epoch).to_json().as_bytes())
        .map_err(|e| Error::io(&shown, e))?;
    Ok(Published::Written { epoch })
}

/// Replaces `path` with `bytes` so that a reader sees the old file or the new one, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is.
        std::fs::File::open(&dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
