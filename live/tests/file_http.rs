//! The file and HTTP sources, and file publishing.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hrwhash::{Placement, Seed, View};
use hrwhash_live::{publish_file, Event, FileSource, HttpSource, Observer, Published};

fn fleet(ids: &[&str], epoch: u64) -> View {
    View::new(Placement::new(ids.iter().copied()).unwrap(), epoch).unwrap()
}

fn replace(path: &std::path::Path, text: impl AsRef<[u8]>) {
    let staged = path.with_extension("staged");
    std::fs::write(&staged, text).unwrap();
    std::fs::rename(&staged, path).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    // Under target/tmp, reused by the next run, so nothing piles up in the system's temp dir.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("file_http-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

type Seen = Arc<Mutex<Vec<(String, String)>>>;

fn recorder() -> (Observer, Seen) {
    let seen: Seen = Arc::default();
    let s = seen.clone();
    let observer: Observer = Arc::new(move |e: &Event<'_>| {
        let row = match e {
            Event::Applied { epoch } => ("applied".to_string(), epoch.to_string()),
            Event::Unchanged { epoch } => ("unchanged".to_string(), epoch.to_string()),
            Event::Refused { error, .. } => ("refused".to_string(), error.kind_name().to_string()),
            Event::SourceError { error } => {
                ("source_error".to_string(), error.kind_name().to_string())
            }
        };
        s.lock().unwrap().push(row);
    });
    (observer, seen)
}

fn has(seen: &Seen, event: &str, detail: &str) -> bool {
    seen.lock()
        .unwrap()
        .iter()
        .any(|(e, d)| e == event && d == detail)
}

#[test]
fn file_publishing_follows_the_epoch_rule() {
    let dir = scratch("publish");
    let path = dir.join("view.json");
    assert_eq!(
        publish_file(&path, &fleet(&["a", "b"], 0)).unwrap(),
        Published::Written { epoch: 1 }
    );
    assert_eq!(
        publish_file(&path, &fleet(&["b", "a"], 9)).unwrap(),
        Published::Unchanged { epoch: 1 }
    );
    assert_eq!(
        publish_file(&path, &fleet(&["a", "b", "c"], 0)).unwrap(),
        Published::Written { epoch: 2 }
    );
    assert_eq!(
        publish_file(&path, &fleet(&["a"], 5)).unwrap(),
        Published::Written { epoch: 5 }
    );
    let stored = View::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        (stored.epoch(), stored.fingerprint()),
        (5, fleet(&["a"], 0).fingerprint())
    );
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    // A file that is not a view of the seed is not overwritten.
    std::fs::write(&path, "[1, 2]").unwrap();
    let err = publish_file(&path, &fleet(&["a"], 0)).unwrap_err();
    assert_eq!(err.kind_name(), "InvalidView", "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1, 2]");
    // A folder that does not exist is an Io error.
    let err = publish_file(&dir.join("no/such/view.json"), &fleet(&["a"], 0)).unwrap_err();
    assert_eq!(err.kind_name(), "Io");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_file_source_applies_replacements_and_refuses_forgeries() {
    let dir = scratch("follow");
    let path = dir.join("view.json");
    publish_file(&path, &fleet(&["a", "b", "c"], 3)).unwrap();
    let (observer, seen) = recorder();
    let changes = Arc::new(AtomicUsize::new(0));
    let c = changes.clone();
    let follower = FileSource::new(&path)
        .interval(Duration::from_millis(10))
        .observer(observer)
        .on_change(move |t| {
            assert!(t.old_placement().epoch() < t.new_placement().epoch());
            c.fetch_add(1, Ordering::SeqCst);
        })
        .start()
        .unwrap();
    let live = follower.live().clone();
    assert_eq!(live.epoch(), 3);
    publish_file(&path, &fleet(&["a", "b", "c", "d"], 0)).unwrap();
    // on_change runs after the live view took the view: wait for it, then check it ran once.
    assert!(eventually(
        || live.epoch() == 4 && changes.load(Ordering::SeqCst) >= 1
    ));
    assert_eq!(changes.load(Ordering::SeqCst), 1);
    // Replaced by hand: a lower epoch, then a torn document. Each is renamed into place, so that
    // the 10 ms poll cannot also read an empty file between a plain write's truncation and its
    // bytes, which would be one more refusal than the count below expects.
    replace(&path, fleet(&["x"], 2).to_json());
    assert!(eventually(|| has(&seen, "refused", "StaleView")));
    replace(&path, "{\"format\"");
    assert!(eventually(|| has(&seen, "refused", "InvalidJson")));
    assert_eq!(live.epoch(), 4);
    assert_eq!(
        live.last_error().unwrap().kind(),
        hrwhash::ErrorKind::InvalidJson
    );
    // A file that disappears is a source error; the view stays.
    std::fs::remove_file(&path).unwrap();
    assert!(eventually(|| has(&seen, "source_error", "Io")));
    assert_eq!(live.epoch(), 4);
    // The publisher lost its file too: the epoch it offers is the floor that keeps followers.
    assert_eq!(
        publish_file(&path, &fleet(&["a", "b"], 0)).unwrap().epoch(),
        1
    );
    assert!(eventually(|| has(&seen, "refused", "StaleView")
        && seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(e, _)| e == "refused")
            .count()
            == 3));
    publish_file(&path, &fleet(&["a", "b", "e"], 5)).unwrap();
    // on_change runs after the live view took the view: wait for it, then check it ran once.
    assert!(eventually(
        || live.epoch() == 5 && changes.load(Ordering::SeqCst) >= 2
    ));
    assert_eq!(changes.load(Ordering::SeqCst), 2);
    follower.stop();
    // A secret seed: the source parses with it.
    let secret = Seed::from_bytes(*b"0123456789abcdef");
    let sview = View::new(
        Placement::from_nodes(secret, [hrwhash::Node::new("s")]).unwrap(),
        1,
    )
    .unwrap();
    std::fs::write(&path, sview.to_json()).unwrap();
    assert_eq!(
        FileSource::new(&path).start().unwrap_err().kind_name(),
        "SeedMismatch"
    );
    assert_eq!(
        FileSource::new(&path)
            .seed(secret)
            .start()
            .unwrap()
            .live()
            .epoch(),
        1
    );
    assert_eq!(
        FileSource::new(dir.join("absent"))
            .start()
            .unwrap_err()
            .kind_name(),
        "Io"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-document HTTP server that honours If-None-Match; counts the 304s.
struct Server {
    url: String,
    doc: Arc<Mutex<(String, String)>>,
    not_modified: Arc<AtomicUsize>,
}

fn serve(doc: String) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/view.json", listener.local_addr().unwrap());
    let state = Arc::new(Mutex::new((doc, "\"v1\"".to_string())));
    let not_modified = Arc::new(AtomicUsize::new(0));
    let (s, n) = (state.clone(), not_modified.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut tag = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("if-none-match:") {
                    tag = Some(v.trim().to_string());
                }
            }
            let (body, etag) = s.lock().unwrap().clone();
            let reply = if tag.as_deref() == Some(etag.as_str()) {
                n.fetch_add(1, Ordering::SeqCst);
                format!("HTTP/1.1 304 Not Modified\r\nETag: {etag}\r\nConnection: close\r\n\r\n")
            } else if body.is_empty() {
                "HTTP/1.1 503 Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string()
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\nETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            };
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    Server {
        url,
        doc: state,
        not_modified,
    }
}

#[test]
fn the_http_source_polls_with_etags() {
    let server = serve(fleet(&["a", "b"], 1).to_json());
    let (observer, seen) = recorder();
    let follower = HttpSource::new(&server.url)
        .unwrap()
        .interval(Duration::from_millis(10))
        .observer(observer)
        .start()
        .unwrap();
    let live = follower.live().clone();
    assert_eq!(live.epoch(), 1);
    assert!(eventually(
        || server.not_modified.load(Ordering::SeqCst) >= 3
    ));
    *server.doc.lock().unwrap() = (fleet(&["a", "b", "c"], 2).to_json(), "\"v2\"".into());
    assert!(eventually(|| live.epoch() == 2));
    *server.doc.lock().unwrap() = (fleet(&["z"], 2).to_json(), "\"v3\"".into());
    assert!(eventually(|| has(&seen, "refused", "ViewConflict")));
    *server.doc.lock().unwrap() = (String::new(), "\"v4\"".into());
    assert!(eventually(|| has(&seen, "source_error", "Io")));
    assert_eq!(live.epoch(), 2);
    follower.stop();
    assert_eq!(
        HttpSource::new("https://example.invalid/v")
            .unwrap_err()
            .kind_name(),
        "InvalidArgument"
    );
    assert_eq!(
        HttpSource::new(&server.url)
            .unwrap()
            .start()
            .unwrap_err()
            .kind_name(),
        "Io"
    );
}
