//! `hrwhash view watch`: follow a published view and print, one JSON object per line, every
//! view applied (with a digest of the owners of a set of keys), every refusal and every source
//! error: the follower protocol of the multi-process test (LIVE.md, "Follower protocol"). With
//! `--store`, a memcached holds one copy of every key at its owner; each change copies the moved
//! keys to their new owners while a reader routes every read with the live view (read the old
//! owner during the move), and counts the reads that find nothing.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hrwhash::{LiveView, View};
use hrwhash_live::{EtcdSource, Event, FileSource, Follower, HttpSource, Observer};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::live::{from_live, Place, DURATION};
use crate::error::CliError;
use crate::input::parse_seed;
use crate::output::hex;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    place: Place,
    /// The keys whose owners are digested at every epoch: one per line (a final empty line is
    /// ignored).
    #[arg(long, value_name = "FILE")]
    keys: OsString,
    /// How often a --file or --url source looks for a new document.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = DURATION)]
    poll: Duration,
    /// The secret seed of the views, 32 hex digits (default: the public hrw-v1 seed).
    #[arg(long, value_name = "HEX")]
    seed: Option<String>,
    /// memcached://HOST:PORT: keep one copy of every key at its owner (key `<owner hex>:<line>`),
    /// copy the moved keys on every change, read through the live view's routes and report
    /// `{"event":"store",...}` lines with the reads that found nothing.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
}

/// Unix time in nanoseconds.
fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// SHA-256 of the owners' ids (as hex) of every key, joined by `\n`.
fn owners_digest(view: &View, keys: &[Vec<u8>]) -> String {
    let mut h = Sha256::new();
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            h.update(b"\n");
        }
        h.update(hex(view.placement().owner(key).id()).as_bytes());
    }
    hex(&h.finalize())
}

fn applied_line(view: &View, keys: &[Vec<u8>], t_ns: u128) -> String {
    json!({
        "event": "applied",
        "epoch": view.epoch().to_string(),
        "fingerprint": view.fingerprint().to_hex(),
        "owners": owners_digest(view, keys),
        "t_ns": t_ns as u64,
    })
    .to_string()
}

pub fn read_keys(path: &OsString) -> Result<Vec<Vec<u8>>, CliError> {
    let shown = PathBuf::from(path).display().to_string();
    let bytes = std::fs::read(path).map_err(|e| CliError::Input(format!("{shown}: {e}")))?;
    let mut keys: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if keys.last().is_some_and(Vec::is_empty) {
        keys.pop();
    }
    Ok(keys)
}

/// A line for stdout, or the end of stdin.
enum Message {
    Line(String),
    Eof,
}

pub fn run(a: &Args, _out: &mut dyn Write) -> Result<(), CliError> {
    let seed = parse_seed(a.seed.as_deref())?;
    let keys = Arc::new(read_keys(&a.keys)?);
    let (tx, rx) = channel::<Message>();
    let live_cell: Arc<OnceLock<Arc<LiveView>>> = Arc::new(OnceLock::new());
    let store = match &a.store {
        Some(url) => Some(Arc::new(Store::connect(url)?)),
        None => None,
    };

    // Applied views are reported from the change callback, which has the view that was
    // applied; everything else from the observer. Both run on the source's thread, so the lines
    // keep its order.
    let on_change = {
        let (tx, keys, store, cell) = (tx.clone(), keys.clone(), store.clone(), live_cell.clone());
        move |t: &hrwhash::Transition<hrwhash::View, hrwhash::View>| {
            let t_ns = now_ns();
            let _ = tx.send(Message::Line(applied_line(t.new_placement(), &keys, t_ns)));
            if let Some(store) = &store {
                store.copy_moved(t, &keys);
                // The callback may run before `start` has returned the live view.
                let live = loop {
                    if let Some(l) = cell.get() {
                        break l;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                };
                live.finish_move();
                let _ = tx.send(Message::Line(store.stats_line()));
            }
        }
    };
    let observer: Observer = {
        let tx = tx.clone();
        Arc::new(move |event: &Event<'_>| {
            let t_ns = now_ns() as u64;
            let line = match event {
                Event::Applied { .. } => return,
                Event::Unchanged { epoch } => {
                    json!({"event": "unchanged", "epoch": epoch.to_string(), "t_ns": t_ns})
                }
                Event::Refused { error, epoch } => json!({
                    "event": "refused",
                    "kind": error.kind_name(),
                    "epoch": epoch.map(|e| e.to_string()),
                    "message": error.to_string(),
                    "t_ns": t_ns,
                }),
                Event::SourceError { error } => json!({
                    "event": "source_error",
                    "kind": error.kind_name(),
                    "message": error.to_string(),
                    "t_ns": t_ns,
                }),
            };
            let _ = tx.send(Message::Line(line.to_string()));
        })
    };

    let follower: Follower = match (&a.place.etcd, &a.place.key, &a.place.file, &a.place.url) {
        (Some(etcd), Some(key), _, _) => EtcdSource::new(etcd, key)
            .and_then(|s| s.seed(seed).observer(observer).on_change(on_change).start())
            .map_err(|e| from_live(e, &format!("{etcd} key {key}")))?,
        (_, _, Some(file), _) => FileSource::new(PathBuf::from(file))
            .interval(a.poll)
            .seed(seed)
            .observer(observer)
            .on_change(on_change)
            .start()
            .map_err(|e| from_live(e, &PathBuf::from(file).display().to_string()))?,
        (_, _, _, Some(url)) => HttpSource::new(url)
            .and_then(|s| {
                s.interval(a.poll)
                    .seed(seed)
                    .observer(observer)
                    .on_change(on_change)
                    .start()
            })
            .map_err(|e| from_live(e, url))?,
        _ => {
            return Err(CliError::Usage(
                "view watch follows --etcd URL --key KEY, --file PATH or --url URL".into(),
            ))
        }
    };
    let live = follower.live().clone();
    let _ = live_cell.set(live.clone());

    let stdout = std::io::stdout();
    let print = |line: &str| -> Result<(), CliError> {
        let mut lock = stdout.lock();
        writeln!(lock, "{line}")?;
        lock.flush()?;
        Ok(())
    };
    print(&applied_line(&live.current(), &keys, now_ns()))?;

    let reading = Arc::new(AtomicBool::new(true));
    let reader = match &store {
        Some(store) => {
            store.seed_owners(&live, &keys)?;
            let (store, keys, live, reading) =
                (store.clone(), keys.clone(), live.clone(), reading.clone());
            Some(std::thread::spawn(move || {
                store.read_loop(&live, &keys, &reading)
            }))
        }
        None => None,
    };

    // Runs until stdin closes (or the process is terminated).
    std::thread::spawn(move || {
        let mut sink = [0u8; 4096];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        let _ = tx.send(Message::Eof);
    });
    for message in rx {
        match message {
            Message::Line(line) => print(&line)?,
            Message::Eof => break,
        }
    }
    reading.store(false, Ordering::SeqCst);
    if let (Some(reader), Some(store)) = (reader, &store) {
        let _ = reader.join();
        print(&store.stats_line())?;
    }
    follower.stop();
    Ok(())
}

/// One memcached (text protocol) holding every node's copy of the keys, each under
/// `<owner id hex>:<key line>`.
struct Store {
    address: String,
    copier: std::sync::Mutex<Memcached>,
    reads: AtomicU64,
    lost: AtomicU64,
    /// Reads during a move that the new owner could not have answered: what reading only the
    /// write owner would have lost.
    lost_without_routes: AtomicU64,
    copied: AtomicU64,
}

struct Memcached {
    stream: BufReader<TcpStream>,
}

fn store_error(address: &str, e: impl std::fmt::Display) -> CliError {
    CliError::input("Io", format!("memcached {address}: {e}"))
}

impl Memcached {
    fn connect(address: &str) -> Result<Memcached, CliError> {
        let stream = TcpStream::connect(address).map_err(|e| store_error(address, e))?;
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        Ok(Memcached {
            stream: BufReader::new(stream),
        })
    }

    fn set(&mut self, key: &str, value: &[u8]) -> std::io::Result<()> {
        let s = self.stream.get_mut();
        s.write_all(format!("set {key} 0 0 {}\r\n", value.len()).as_bytes())?;
        s.write_all(value)?;
        s.write_all(b"\r\n")?;
        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        if line.trim_end() != "STORED" {
            return Err(std::io::Error::other(format!(
                "set {key}: {}",
                line.trim_end()
            )));
        }
        Ok(())
    }

    fn get(&mut self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        self.stream
            .get_mut()
            .write_all(format!("get {key}\r\n").as_bytes())?;
        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        let head = line.trim_end();
        if head == "END" {
            return Ok(None);
        }
        let len: usize = head
            .split(' ')
            .nth(3)
            .and_then(|n| n.parse().ok())
            .filter(|_| head.starts_with("VALUE "))
            .ok_or_else(|| std::io::Error::other(format!("get {key}: {head}")))?;
        let mut value = vec![0u8; len + 2];
        self.stream.read_exact(&mut value)?;
        value.truncate(len);
        line.clear();
        self.stream.read_line(&mut line)?;
        Ok(Some(value))
    }
}

fn slot(owner: &[u8], line: usize) -> String {
    format!("{}:{line}", hex(owner))
}

fn value_of(line: usize) -> Vec<u8> {
    format!("v{line}").into_bytes()
}

impl Store {
    fn connect(url: &str) -> Result<Store, CliError> {
        let address = url
            .strip_prefix("memcached://")
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                CliError::Usage(format!("--store: '{url}' is not memcached://HOST:PORT"))
            })?;
        Ok(Store {
            address: address.to_string(),
            copier: std::sync::Mutex::new(Memcached::connect(address)?),
            reads: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            lost_without_routes: AtomicU64::new(0),
            copied: AtomicU64::new(0),
        })
    }

    /// Writes every key to its owner in the live view's current view. The view is taken under
    /// the copier's lock, which a change callback holds while it copies: a change applied
    /// meanwhile is either seen here or copied after.
    fn seed_owners(&self, live: &LiveView, keys: &[Vec<u8>]) -> Result<(), CliError> {
        let mut mc = self.copier.lock().unwrap_or_else(|p| p.into_inner());
        let view = live.current();
        for (i, key) in keys.iter().enumerate() {
            mc.set(&slot(view.placement().owner(key).id(), i), &value_of(i))
                .map_err(|e| store_error(&self.address, e))?;
        }
        Ok(())
    }

    /// Copies each key whose owner changed from its old owner to its new one.
    fn copy_moved(&self, t: &hrwhash::Transition<hrwhash::View, hrwhash::View>, keys: &[Vec<u8>]) {
        let mut mc = self.copier.lock().unwrap_or_else(|p| p.into_inner());
        for (i, key) in keys.iter().enumerate() {
            let old = t.old_placement().placement().owner(key).id().to_vec();
            let new = t.new_placement().placement().owner(key).id().to_vec();
            if old == new {
                continue;
            }
            let copied = match mc.get(&slot(&old, i)) {
                Ok(Some(v)) => mc.set(&slot(&new, i), &v).is_ok(),
                _ => false,
            };
            if copied {
                self.copied.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Reads every key again and again through the live view's routes until `reading` is false.
    fn read_loop(&self, live: &LiveView, keys: &[Vec<u8>], reading: &AtomicBool) {
        let Ok(mut mc) = Memcached::connect(&self.address) else {
            return;
        };
        while reading.load(Ordering::SeqCst) {
            for (i, key) in keys.iter().enumerate() {
                let route = live.route(key);
                let found = mc.get(&slot(&route.read, i)).ok().flatten();
                self.reads.fetch_add(1, Ordering::Relaxed);
                if found.as_deref() != Some(&value_of(i)[..]) {
                    self.lost.fetch_add(1, Ordering::Relaxed);
                }
                if route.moved {
                    let at_write = mc.get(&slot(&route.write, i)).ok().flatten();
                    if at_write.as_deref() != Some(&value_of(i)[..]) {
                        self.lost_without_routes.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
    }

    fn stats_line(&self) -> String {
        let v: Value = json!({
            "event": "store",
            "reads": self.reads.load(Ordering::Relaxed),
            "lost": self.lost.load(Ordering::Relaxed),
            "lost_without_routes": self.lost_without_routes.load(Ordering::Relaxed),
            "copied": self.copied.load(Ordering::Relaxed),
            "t_ns": now_ns() as u64,
        });
        v.to_string()
    }
}
