//! Turning flags and files into seeds, memberships and keys, with errors that say where the bad
//! value came from.

use std::ffi::OsStr;
use std::fs;
use std::io::BufRead;

use hrwhash::{Node, Placement, Seed, Weight};

use crate::error::{describe, CliError};

/// Parses `--seed`: 32 hex digits. The length check is the core's, so its message stays the same
/// as in every other binding.
pub fn parse_seed(hex: Option<&str>) -> Result<Seed, CliError> {
    let Some(hex) = hex else {
        return Ok(Seed::DEFAULT);
    };
    let bytes = decode_hex(hex).map_err(|m| CliError::Usage(format!("--seed: {m}")))?;
    Seed::from_slice(&bytes)
        .map_err(|e| CliError::Usage(format!("--seed: {}", describe(&e, &|i| i.to_string()))))
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    if hex.len() % 2 != 0 {
        return Err(format!(
            "'{hex}' has an odd number of hex digits; a seed is 32 hex digits"
        ));
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    hex.as_bytes()
        .chunks(2)
        .map(|pair| match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
            _ => Err(format!("'{hex}' is not hexadecimal")),
        })
        .collect()
}

pub fn seed_hex(seed: Seed) -> String {
    seed.to_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses a comma-separated weight list such as `1,2,3,4`.
pub fn parse_weights(list: &str, flag: &str) -> Result<Vec<Weight>, CliError> {
    list.split(',')
        .enumerate()
        .map(|(i, item)| {
            parse_weight(item.trim())
                .map_err(|m| CliError::Usage(format!("{flag} item {}: {m}", i + 1)))
        })
        .collect()
}

fn parse_weight(text: &str) -> Result<Weight, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    Weight::new(value).map_err(|e| describe(&e, &|i| i.to_string()))
}

/// Nodes and where each came from, so that the core's index-based errors can name a line.
pub struct Membership {
    nodes: Vec<Node>,
    places: Vec<String>,
    from_file: bool,
}

impl Membership {
    /// `--nodes a,b,c` with optional `--weights`.
    pub fn from_args(ids: &str, weights: Option<&str>) -> Result<Membership, CliError> {
        let ids: Vec<&str> = if ids.is_empty() {
            Vec::new()
        } else {
            ids.split(',').collect()
        };
        let weights = match weights {
            None => vec![Weight::ONE; ids.len()],
            Some(list) => {
                let weights = parse_weights(list, "--weights")?;
                if weights.len() != ids.len() {
                    return Err(CliError::Usage(format!(
                        "--weights has {} items but --nodes has {}",
                        weights.len(),
                        ids.len()
                    )));
                }
                weights
            }
        };
        Ok(Membership {
            nodes: ids
                .iter()
                .zip(weights)
                .map(|(id, w)| Node::new(id).with_weight(w))
                .collect(),
            places: (1..=ids.len())
                .map(|i| format!("--nodes item {i}"))
                .collect(),
            from_file: false,
        })
    }

    /// A node file: one `id[,weight[,domain]]` per line; blank lines and `#` comments are skipped.
    pub fn from_file(path: &OsStr) -> Result<Membership, CliError> {
        let name = path.to_string_lossy();
        let text = read_file(path)?;
        let mut membership = Membership {
            nodes: Vec::new(),
            places: Vec::new(),
            from_file: true,
        };
        for (number, line) in lines(&text).enumerate() {
            let place = format!("{name} line {}", number + 1);
            let line = line.trim_ascii();
            if line.is_empty() || line.starts_with(b"#") {
                continue;
            }
            let fields: Vec<&[u8]> = line.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
            let mut node = Node::new(fields[0]);
            if let Some(&weight) = fields.get(1).filter(|w| !w.is_empty()) {
                let weight = std::str::from_utf8(weight)
                    .map_err(|_| "the weight is not text".to_string())
                    .and_then(parse_weight)
                    .map_err(|m| CliError::Input(format!("{place}: {m}")))?;
                node = node.with_weight(weight);
            }
            if let Some(&domain) = fields.get(2).filter(|d| !d.is_empty()) {
                node = node.with_domain(domain);
            }
            if fields.len() > 3 {
                return Err(CliError::Input(format!(
                    "{place}: expected id[,weight[,domain]], found {} fields",
                    fields.len()
                )));
            }
            membership.nodes.push(node);
            membership.places.push(place);
        }
        if membership.nodes.is_empty() {
            return Err(CliError::Input(format!("{name}: no nodes in the file")));
        }
        Ok(membership)
    }

    pub fn build(self, seed: Seed) -> Result<Placement, CliError> {
        let Membership {
            nodes,
            places,
            from_file,
        } = self;
        Placement::from_nodes(seed, nodes).map_err(|e| {
            let message = describe(&e, &|i| {
                places
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("node {i}"))
            });
            if from_file {
                CliError::Input(message)
            } else {
                CliError::Usage(message)
            }
        })
    }
}

fn read_file(path: &OsStr) -> Result<Vec<u8>, CliError> {
    fs::read(path)
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.to_string_lossy())))
}

/// Lines without their `\n` or `\r\n`; no empty last line after a final newline.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.split(|&b| b == b'\n')
        .filter(move |_| !text.is_empty())
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// The keys a diff or plan is computed over: `key-0`, `key-1`... or the lines of a file.
pub enum Keys {
    Generated(u64),
    Listed(Vec<Vec<u8>>),
}

impl Keys {
    pub fn from_args(count: Option<u64>, file: Option<&OsStr>) -> Result<Keys, CliError> {
        match file {
            Some(path) => {
                let text = read_file(path)?;
                let keys: Vec<Vec<u8>> = lines(&text)
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec)
                    .collect();
                if keys.is_empty() {
                    return Err(CliError::Input(format!(
                        "{}: no keys in the file",
                        path.to_string_lossy()
                    )));
                }
                Ok(Keys::Listed(keys))
            }
            None => match count.unwrap_or(crate::DEFAULT_KEYS) {
                0 => Err(CliError::Usage("--keys must be at least 1".to_string())),
                n => Ok(Keys::Generated(n)),
            },
        }
    }

    pub fn len(&self) -> u64 {
        match self {
            Keys::Generated(n) => *n,
            Keys::Listed(keys) => keys.len() as u64,
        }
    }

    /// Calls `f` on every key without holding generated keys in memory.
    pub fn for_each(&self, mut f: impl FnMut(&[u8])) {
        match self {
            Keys::Generated(n) => {
                let mut buf = String::new();
                for i in 0..*n {
                    generated_key(&mut buf, i);
                    f(buf.as_bytes());
                }
            }
            Keys::Listed(keys) => keys.iter().for_each(|k| f(k)),
        }
    }
}

/// Writes `key-<i>` into `buf`, reusing its allocation.
pub fn generated_key(buf: &mut String, i: u64) {
    use std::fmt::Write;
    buf.clear();
    let _ = write!(buf, "key-{i}");
}

/// Reads keys from stdin one line at a time, skipping empty lines, so a stream of any length works.
pub fn for_each_stdin_key(
    mut f: impl FnMut(&[u8]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = stdin
            .read_until(b'\n', &mut line)
            .map_err(|e| CliError::Input(format!("cannot read stdin: {e}")))?;
        if n == 0 {
            return Ok(());
        }
        let key = line.strip_suffix(b"\n").unwrap_or(&line);
        let key = key.strip_suffix(b"\r").unwrap_or(key);
        if !key.is_empty() {
            f(key)?;
        }
    }
}

/// Bytes of a command-line argument; on Unix these are exactly the bytes given.
pub fn arg_bytes(arg: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        arg.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        arg.to_string_lossy().into_owned().into_bytes()
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
