//! A client of etcd's v3 JSON gateway (`POST /v3/kv/range`, `/v3/kv/txn`, `/v3/kv/put`,
//! `/v3/kv/compaction`, streaming `/v3/watch`) over plain HTTP/1.1. Keys and values travel as
//! base64; 64-bit numbers as decimal strings (the gateway's JSON mapping of protobuf).

use std::io::Read;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde_json::{json, Value};

use crate::Error;

/// The largest gateway reply read (etcd itself refuses requests above 1.5 MiB by default, so a
/// stored view is far smaller): a longer one is an `Io` error, not an allocation.
pub const MAX_REPLY_BYTES: u64 = 64 << 20;

/// Seconds a unary call (range, txn, put, compaction) may take, connection included.
const CALL_TIMEOUT_S: u64 = 5;

/// Seconds a watch stream is kept open before the watcher reads the key again and starts a fresh
/// watch: a connection that died without a word (no FIN, no RST) is noticed within this time.
pub const WATCH_RENEW_S: u64 = 300;

/// One etcd endpoint, `http://HOST:PORT`.
#[derive(Clone, Debug)]
pub struct Etcd {
    base: String,
}

/// A key's stored value and revisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The value's bytes.
    pub value: Vec<u8>,
    /// The revision that created the key.
    pub create_revision: i64,
    /// The revision of the last write of the key.
    pub mod_revision: i64,
}

/// A range read: the key's value when present, and the store's revision at the read (a watch
/// from `revision + 1` misses nothing written after it).
#[derive(Clone, Debug)]
pub struct KeyRead {
    /// The value, or `None` when the key is absent.
    pub stored: Option<Stored>,
    /// The store's revision at the time of the read.
    pub revision: i64,
}

/// The condition of a compare-and-swap put.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// The key does not exist (`create_revision == 0`).
    Absent,
    /// The key was last written at this revision (`mod_revision == r`).
    ModRevision(i64),
}

/// One message of a watch stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchMessage {
    /// The watch is in place.
    Created,
    /// Writes of the key, in revision order: `Some(value)` for a put, `None` for a delete.
    Events(Vec<(i64, Option<Vec<u8>>)>),
    /// etcd ended the watch: its start revision was compacted (`compact_revision`), or another
    /// reason. The watcher must read the key again and start a fresh watch.
    Canceled {
        /// The compaction revision, when that is the reason.
        compact_revision: Option<i64>,
        /// etcd's reason, when it gave one.
        reason: String,
    },
}

/// An open watch stream (a long-lived HTTP response read line by line).
pub struct Watch {
    // Read byte by byte through minreq's iterator, which returns each byte as soon as it is
    // buffered (its `Read` waits until the caller's buffer is full: a watch never fills one).
    stream: minreq::ResponseLazy,
    context: String,
}

impl Etcd {
    /// An endpoint, `http://HOST:PORT` (a trailing `/` is ignored). Anything else is
    /// `InvalidArgument`: the gateway is reached over plain HTTP (a remote etcd behind TLS needs a
    /// terminating proxy).
    pub fn new(endpoint: &str) -> Result<Etcd, Error> {
        let base = endpoint.trim_end_matches('/');
        let rest = base
            .strip_prefix("http://")
            .ok_or_else(|| Error::InvalidArgument {
                message: format!("etcd endpoint {endpoint:?} is not an http://HOST:PORT URL"),
            })?;
        if rest.is_empty() || rest.contains('/') || rest.contains(char::is_whitespace) {
            return Err(Error::InvalidArgument {
                message: format!("etcd endpoint {endpoint:?} is not an http://HOST:PORT URL"),
            });
        }
        Ok(Etcd {
            base: base.to_string(),
        })
    }

    /// The endpoint, as given.
    pub fn endpoint(&self) -> &str {
        &self.base
    }

    fn call(&self, path: &str, body: &Value) -> Result<Value, Error> {
        let url = format!("{}{path}", self.base);
        let response = minreq::post(&url)
            .with_header("Content-Type", "application/json")
            .with_body(body.to_string())
            .with_timeout(CALL_TIMEOUT_S)
            .send_lazy()
            .map_err(|e| Error::io(format!("POST {url}"), e))?;
        let status = response.status_code;
        let mut bytes = Vec::new();
        Read::take(response, MAX_REPLY_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(format!("POST {url}"), e))?;
        if bytes.len() as u64 > MAX_REPLY_BYTES {
            return Err(Error::io(
                format!("POST {url}"),
                format!("reply longer than {MAX_REPLY_BYTES} bytes"),
            ));
        }
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            Error::io(
                format!("POST {url}"),
                format!("reply is not JSON ({e}), HTTP {status}"),
            )
        })?;
        if !(200..300).contains(&status) {
            let why = value
                .get("message")
                .or_else(|| value.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("");
            return Err(Error::io(
                format!("POST {url}"),
                format!("HTTP {status} {why}"),
            ));
        }
        Ok(value)
    }

    /// Reads `key`.
    pub fn get(&self, key: &[u8]) -> Result<KeyRead, Error> {
        let reply = self.call("/v3/kv/range", &json!({ "key": BASE64.encode(key) }))?;
        let context = || format!("{}/v3/kv/range", self.base);
        let revision = number(&reply["header"]["revision"])
            .ok_or_else(|| Error::io(context(), "reply has no header.revision"))?;
        let stored = match reply.get("kvs").and_then(Value::as_array) {
            None => None,
            Some(kvs) if kvs.is_empty() => None,
            Some(kvs) => Some(stored(&kvs[0]).ok_or_else(|| {
                Error::io(
                    context(),
                    "reply's kvs[0] is not a key-value of etcd's form",
                )
            })?),
        };
        Ok(KeyRead { stored, revision })
    }

    /// Writes `value` at `key` if `expect` holds; `Ok(false)` when it did not (another writer
    /// came first).
    pub fn put_if(&self, key: &[u8], value: &[u8], expect: Expect) -> Result<bool, Error> {
        let k = BASE64.encode(key);
        let compare = match expect {
            Expect::Absent => {
                json!({"key": k, "target": "CREATE", "result": "EQUAL", "create_revision": "0"})
            }
            Expect::ModRevision(r) => {
                json!({"key": k, "target": "MOD", "result": "EQUAL", "mod_revision": r.to_string()})
            }
        };
        let body = json!({
            "compare": [compare],
            "success": [{"request_put": {"key": k, "value": BASE64.encode(value)}}],
        });
        let reply = self.call("/v3/kv/txn", &body)?;
        // The gateway omits false booleans.
        Ok(reply
            .get("succeeded")
            .and_then(Value::as_bool)
            .unwrap_or(false))
    }

    /// Writes `value` at `key` unconditionally; returns the revision of the write.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<i64, Error> {
        let reply = self.call(
            "/v3/kv/put",
            &json!({"key": BASE64.encode(key), "value": BASE64.encode(value)}),
        )?;
        number(&reply["header"]["revision"])
            .ok_or_else(|| Error::io(format!("{}/v3/kv/put", self.base), "reply has no revision"))
    }

    /// Compacts the store's history up to `revision` (watches from before it are canceled).
    pub fn compact(&self, revision: i64) -> Result<(), Error> {
        self.call(
            "/v3/kv/compaction",
            &json!({"revision": revision.to_string(), "physical": true}),
        )
        .map(drop)
    }

    /// Opens a watch of `key` from `start_revision`. The stream stays open until etcd or the
    /// connection ends it, or `renew_s` seconds have passed (the ordinary value is
    /// [`WATCH_RENEW_S`]).
    pub fn watch(&self, key: &[u8], start_revision: i64, renew_s: u64) -> Result<Watch, Error> {
        let url = format!("{}/v3/watch", self.base);
        let body = json!({"create_request": {
            "key": BASE64.encode(key),
            "start_revision": start_revision.to_string(),
        }});
        let response = minreq::post(&url)
            .with_header("Content-Type", "application/json")
            .with_body(body.to_string())
            .with_timeout(renew_s.max(1))
            .send_lazy()
            .map_err(|e| Error::io(format!("POST {url}"), e))?;
        if !(200..300).contains(&response.status_code) {
            return Err(Error::io(
                format!("POST {url}"),
                format!("HTTP {}", response.status_code),
            ));
        }
        Ok(Watch {
            stream: response,
            context: format!("watch {url}"),
        })
    }
}

impl Watch {
    /// The next message; an `Io` error when the stream ended or broke (the connection was lost:
    /// the watcher reads the key again and starts a fresh watch).
    pub fn next_message(&mut self) -> Result<WatchMessage, Error> {
        let mut line = Vec::new();
        loop {
            line.clear();
            loop {
                match self.stream.next() {
                    None => return Err(Error::io(&self.context, "the stream ended")),
                    Some(Err(e)) => return Err(Error::io(&self.context, e)),
                    Some(Ok((b'\n', _))) => break,
                    Some(Ok((b, _))) => line.push(b),
                }
                if line.len() as u64 > MAX_REPLY_BYTES {
                    return Err(Error::io(
                        &self.context,
                        "message longer than the reply limit",
                    ));
                }
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let value: Value = serde_json::from_slice(&line)
                .map_err(|e| Error::io(&self.context, format!("message is not JSON ({e})")))?;
            if let Some(err) = value.get("error") {
                return Err(Error::io(&self.context, format!("etcd error {err}")));
            }
            let result = value
                .get("result")
                .ok_or_else(|| Error::io(&self.context, "message has no result"))?;
            if result.get("canceled").and_then(Value::as_bool) == Some(true) {
                return Ok(WatchMessage::Canceled {
                    compact_revision: result.get("compact_revision").and_then(number),
                    reason: result
                        .get("cancel_reason")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                });
            }
            if result.get("created").and_then(Value::as_bool) == Some(true) {
                return Ok(WatchMessage::Created);
            }
            let Some(events) = result.get("events").and_then(Value::as_array) else {
                // A progress notification: nothing changed.
                continue;
            };
            let mut out = Vec::with_capacity(events.len());
            for event in events {
                let kv = stored(&event["kv"]).ok_or_else(|| {
                    Error::io(
                        &self.context,
                        "event's kv is not a key-value of etcd's form",
                    )
                })?;
                let delete = event.get("type").and_then(Value::as_str) == Some("DELETE");
                out.push((kv.mod_revision, (!delete).then_some(kv.value)));
            }
            return Ok(WatchMessage::Events(out));
        }
    }
}

/// A gateway int64: a decimal string (or, leniently, a JSON number).
fn number(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

fn stored(kv: &Value) -> Option<Stored> {
    // Protobuf's JSON mapping omits empty values and zero revisions.
    let value = match kv.get("value") {
        None => Vec::new(),
        Some(v) => BASE64.decode(v.as_str()?).ok()?,
    };
    Some(Stored {
        value,
        create_revision: kv.get("create_revision").map_or(Some(0), number)?,
        mod_revision: kv.get("mod_revision").map_or(Some(0), number)?,
    })
}
