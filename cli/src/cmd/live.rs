//! What `view publish`, `view watch` and `view from-endpointslices` share: where a view is
//! published or followed, durations, and the live crate's errors in the words of the tool.

use std::ffi::OsString;
use std::time::Duration;

use clap::{ArgGroup, Args};

use super::value::Typed;
use crate::error::{from_core, CliError};

/// `--interval`, `--poll`: `500ms`, `2s`, `1.5s`, `1m`, or a number of seconds.
pub const DURATION: Typed<Duration> = Typed(parse_duration);

pub fn parse_duration(text: &str, flag: &str) -> Result<Duration, CliError> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n * scale)
        .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 86_400.0 * 365.0);
    seconds.map(Duration::from_secs_f64).ok_or_else(|| {
        CliError::Usage(format!(
            "{flag}: '{text}' is not a duration (500ms, 2s, 1m; at most a year)"
        ))
    })
}

/// Where a view lives: an etcd key or a file (and, for followers, an HTTP URL).
#[derive(Args)]
#[command(group(ArgGroup::new("place").required(true).args(["etcd", "file", "url"])))]
pub struct Place {
    /// etcd's client URL, http://HOST:PORT (its v3 JSON gateway); needs --key.
    #[arg(long, value_name = "URL", requires = "key")]
    pub etcd: Option<String>,
    /// The etcd key holding the view document.
    #[arg(long, value_name = "KEY", requires = "etcd")]
    pub key: Option<String>,
    /// A view file, replaced by atomic rename.
    #[arg(long, value_name = "PATH")]
    pub file: Option<OsString>,
    /// An http:// URL serving the view document (followers only; polled with ETags).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

/// An error of the live crate, in the words of the tool; `what` says where the document was.
pub fn from_live(e: hrwhash_live::Error, what: &str) -> CliError {
    match e {
        hrwhash_live::Error::View(core) => {
            from_core(&core, false, &|i| format!("of nodes[{i}]"), &|i| {
                format!("nodes[{i}]")
            })
            .at(what)
        }
        hrwhash_live::Error::InvalidArgument { message } => {
            CliError::usage("InvalidArgument", message)
        }
        other => CliError::input("Io", other.to_string()),
    }
}
