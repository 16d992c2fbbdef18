//! Turning flags and files into seeds, memberships and keys, with errors that say where the bad
//! value came from.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Read};

use indicatif::ProgressBar;

use hrwhash::{Node, Placement, Seed, Weight};

use crate::error::{from_core, weight_problem, CliError};
use crate::output::escaped;
use crate::progress::{self, Unit};

/// Decodes `--seed` text into bytes; their length is checked later, in the contract's order.
pub fn seed_bytes(hex: Option<&str>) -> Result<Option<Vec<u8>>, CliError> {
    let Some(hex) = hex else {
        return Ok(None);
    };
    if hex.is_empty() {
        return Err(CliError::usage("InvalidArgument", "--seed is empty"));
    }
    decode_hex(hex)
        .map(Some)
        .map_err(|m| CliError::usage("InvalidArgument", format!("--seed: {m}")))
}

/// The seed of `--seed` bytes (default: the public hrw-v1 seed). The length check is the core's.
pub fn seed_from(bytes: Option<&[u8]>) -> Result<Seed, CliError> {
    match bytes {
        None => Ok(Seed::DEFAULT),
        Some(bytes) => Seed::from_slice(bytes)
            .map_err(|e| from_core(&e, true, &|_| String::new(), &|_| String::new())),
    }
}

/// Parses `--seed`: 32 hex digits.
pub fn parse_seed(hex: Option<&str>) -> Result<Seed, CliError> {
    seed_from(seed_bytes(hex)?.as_deref())
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    if !hex.len().is_multiple_of(2) {
        return Err(format!("'{hex}' has an odd number of hex digits"));
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

/// A count flag (`--k`, `--nodes N`, `--keys N`, ...): decimal digits. Anything else is
/// `InvalidCount` when it is a number that is not such a count, else `InvalidArgument`.
pub fn parse_count(text: &str, flag: &str) -> Result<u64, CliError> {
    let invalid =
        |problem: &str| CliError::usage("InvalidCount", format!("{flag} {text} {problem}"));
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if negative && digits.bytes().any(|b| b != b'0') {
            return Err(invalid("is negative"));
        }
        return digits
            .parse::<u64>()
            .map_err(|_| invalid(&format!("is more than {}", u64::MAX)));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_nan() => Err(invalid("is not a number")),
        Ok(v) if v.is_infinite() => Err(invalid("is infinite")),
        Ok(v) if v < 0.0 => Err(invalid("is negative")),
        Ok(v) if v.fract() != 0.0 => Err(invalid("is not a whole number")),
        Ok(_) => Err(invalid("is not written in decimal digits")),
        Err(_) => Err(CliError::usage(
            "InvalidArgument",
            format!("{flag} '{text}' is not a number"),
        )),
    }
}

/// [`parse_count`] for counts that size something in memory.
pub fn parse_usize(text: &str, flag: &str) -> Result<usize, CliError> {
    let n = parse_count(text, flag)?;
    usize::try_from(n).map_err(|_| {
        CliError::usage(
            "InvalidCount",
            format!("{flag} {text} is more than {}", usize::MAX),
        )
    })
}

/// The items of a comma-separated flag value, with ASCII whitespace around each removed (the
/// rule of node files too). An empty or blank value is an empty list.
fn list_items(list: &str) -> Vec<&str> {
    byte_items(list.as_bytes())
        .into_iter()
        .map(|item| std::str::from_utf8(item).unwrap_or_default())
        .collect()
}

/// [`list_items`] of bytes: `--nodes` ids are bytes, like a node file's.
fn byte_items(list: &[u8]) -> Vec<&[u8]> {
    if list.trim_ascii().is_empty() {
        return Vec::new();
    }
    list.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect()
}

/// The number a weight's text stands for; text that is not a number is a wrong type.
fn weight_number(text: &str) -> Result<f64, String> {
    text.parse()
        .map_err(|_| format!("'{text}' is not a number"))
}

/// The weight a decimal stands for. A decimal that is not 0 but became 0 as a binary64 number
/// (`1e-400`) is rejected like one that rounds to 0 at 32 fractional bits: both would drain a node
/// the caller meant to keep.
fn weight_of(text: &str, value: f64) -> Result<Weight, String> {
    let significand = text.split(['e', 'E']).next().unwrap_or("");
    if value == 0.0 && significand.bytes().any(|b| matches!(b, b'1'..=b'9')) {
        return Err(weight_problem(text, value));
    }
    Weight::new(value).map_err(|_| weight_problem(text, value))
}

/// Parses a comma-separated weight list such as `1,2,3,4`, reporting the first item that is not
/// a number, then the first that is not a valid weight, by 0-based index.
pub fn parse_weights(list: &str, flag: &str) -> Result<Vec<Weight>, CliError> {
    let numbers = weight_numbers(list, flag)?;
    validate_weights(&numbers, flag)
}

fn weight_numbers<'a>(list: &'a str, flag: &str) -> Result<Vec<(&'a str, f64)>, CliError> {
    list_items(list)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            weight_number(text)
                .map(|v| (text, v))
                .map_err(|m| CliError::usage("InvalidArgument", format!("{flag} index {i}: {m}")))
        })
        .collect()
}

fn validate_weights(numbers: &[(&str, f64)], flag: &str) -> Result<Vec<Weight>, CliError> {
    numbers
        .iter()
        .enumerate()
        .map(|(i, &(text, v))| {
            weight_of(text, v)
                .map_err(|m| CliError::usage("InvalidWeight", format!("{flag} index {i}: {m}")))
        })
        .collect()
}

/// The placement of `place`: `--nodes a,b,c` with optional `--weights` and `--seed`, checked in
/// the order of conformance/API.md section 4 (types, then lengths, then the seed's length, then
/// weights, then the core's membership checks).
pub fn place_membership(
    ids: &OsStr,
    weights: Option<&str>,
    seed: Option<&str>,
) -> Result<Placement, CliError> {
    let ids = arg_bytes(ids);
    let ids = byte_items(&ids);
    let numbers = weights
        .map(|w| weight_numbers(w, "--weights"))
        .transpose()?;
    let seed = seed_bytes(seed)?;
    check_weight_count(&ids, numbers.as_deref())?;
    let seed = seed_from(seed.as_deref())?;
    let nodes = nodes_with_weights(&ids, numbers)?;
    Placement::from_nodes(seed, nodes).map_err(|e| {
        from_core(&e, true, &|i| format!("'{}'", escaped(ids[i])), &|i| {
            format!("--nodes index {i}")
        })
    })
}

/// The nodes of `--nodes a,b,c` and optional `--weights`, for a placement built elsewhere (a
/// compatibility profile).
pub fn place_nodes(ids: &OsStr, weights: Option<&str>) -> Result<Vec<Node>, CliError> {
    let ids = arg_bytes(ids);
    let ids = byte_items(&ids);
    let numbers = weights
        .map(|w| weight_numbers(w, "--weights"))
        .transpose()?;
    check_weight_count(&ids, numbers.as_deref())?;
    nodes_with_weights(&ids, numbers)
}

fn check_weight_count(ids: &[&[u8]], numbers: Option<&[(&str, f64)]>) -> Result<(), CliError> {
    match numbers {
        Some(numbers) => check_per_node("--weights", numbers.len(), ids.len()),
        None => Ok(()),
    }
}

/// LengthMismatch unless the list of `option` has one item per node of `--nodes`.
pub fn check_per_node(option: &str, items: usize, nodes: usize) -> Result<(), CliError> {
    if items == nodes {
        return Ok(());
    }
    Err(CliError::usage(
        "LengthMismatch",
        format!("{option} has {items} items but --nodes has {nodes}"),
    ))
}

fn nodes_with_weights(
    ids: &[&[u8]],
    numbers: Option<Vec<(&str, f64)>>,
) -> Result<Vec<Node>, CliError> {
    let weights = match numbers {
        Some(numbers) => validate_weights(&numbers, "--weights")?,
        None => vec![Weight::ONE; ids.len()],
    };
    Ok(ids
        .iter()
        .zip(weights)
        .map(|(&id, w)| Node::new(id).with_weight(w))
        .collect())
}

/// Drops a UTF-8 byte order mark, which editors on some systems write at the start of text files
/// and which would otherwise become part of the first id. Keys keep theirs: a key is bytes, used
/// byte for byte, and may begin with U+FEFF.
fn without_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text)
}

/// Nodes and where each came from, so that the core's index-based errors can name a line.
pub struct Membership {
    name: String,
    nodes: Vec<Node>,
    places: Vec<String>,
}

impl Membership {
    /// A node file: one `id[,weight[,domain]]` per line (blank lines and `#` comments skipped), or
    /// a JSON array of ids and `{"id", "weight", "domain"}` objects when its first character other
    /// than whitespace is `[`.
    pub fn from_file(path: &OsStr) -> Result<Membership, CliError> {
        let name = path.to_string_lossy().into_owned();
        let bytes = read_file(path)?;
        let text = without_bom(&bytes);
        let mut membership = if text.trim_ascii_start().starts_with(b"[") {
            json_nodes(&name, text)?
        } else {
            line_nodes(&name, text)?
        };
        if membership.nodes.is_empty() {
            return Err(CliError::input(
                "EmptyMembership",
                format!("{name}: no nodes in the file"),
            ));
        }
        membership.name = name;
        Ok(membership)
    }

    /// The nodes and, for each, where it came from ("nodes.txt line 4").
    pub fn into_nodes(self) -> (Vec<Node>, Vec<String>) {
        (self.nodes, self.places)
    }

    pub fn build(self, seed: Seed) -> Result<Placement, CliError> {
        let Membership {
            name,
            nodes,
            places,
        } = self;
        Placement::from_nodes(seed, nodes.clone()).map_err(|e| {
            let err = from_core(
                &e,
                false,
                &|i| format!("'{}'", escaped(nodes[i].id())),
                &|i| {
                    places
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| format!("node {i}"))
                },
            );
            if e == hrwhash::Error::AllWeightsZero {
                err.at(&name)
            } else {
                err
            }
        })
    }
}

fn line_nodes(name: &str, text: &[u8]) -> Result<Membership, CliError> {
    let mut membership = Membership {
        name: String::new(),
        nodes: Vec::new(),
        places: Vec::new(),
    };
    for (number, line) in lines(text).enumerate() {
        let place = format!("{name} line {}", number + 1);
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let fields: Vec<&[u8]> = line.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
        if fields.len() > 3 {
            return Err(CliError::Input(format!(
                "{place}: expected id[,weight[,domain]], found {} fields",
                fields.len()
            )));
        }
        let mut node = Node::new(fields[0]);
        if let Some(&weight) = fields.get(1).filter(|w| !w.is_empty()) {
            let text = std::str::from_utf8(weight).map_err(|_| {
                CliError::input(
                    "InvalidArgument",
                    format!("{place}: the weight {} is not a number", escaped(weight)),
                )
            })?;
            let value = weight_number(text)
                .map_err(|m| CliError::input("InvalidArgument", format!("{place}: {m}")))?;
            let weight = weight_of(text, value)
                .map_err(|m| CliError::input("InvalidWeight", format!("{place}: {m}")))?;
            node = node.with_weight(weight);
        }
        if let Some(&domain) = fields.get(2).filter(|d| !d.is_empty()) {
            node = node.with_domain(domain);
        }
        membership.nodes.push(node);
        membership.places.push(place);
    }
    Ok(membership)
}

/// A JSON node file: `["a", {"id": "b", "weight": 2, "domain": "rack-1"}, ...]`. Ids and domains
/// that are not UTF-8 are given as `id_hex` / `domain_hex`. Weights are checked from their JSON
/// text with the rules of `--weights`, so `1e-400` is rejected here too.
fn json_nodes(name: &str, text: &[u8]) -> Result<Membership, CliError> {
    use serde_json::value::RawValue;
    use std::collections::BTreeMap;

    let bad = |variant: &'static str, m: String| CliError::input(variant, format!("{name}: {m}"));
    let items: Vec<&RawValue> = serde_json::from_slice(text).map_err(|e| {
        bad(
            "InvalidArgument",
            format!(
                "a node file starting with '[' is a JSON array of nodes, and this one is not \
                 valid ({e}); a line-based file whose first id starts with '[' can begin with a \
                 '#' comment line"
            ),
        )
    })?;
    let mut membership = Membership {
        name: String::new(),
        nodes: Vec::new(),
        places: Vec::new(),
    };
    for (i, item) in items.iter().enumerate() {
        let place = format!("{name} index {i}");
        let bad =
            |variant: &'static str, m: &str| CliError::input(variant, format!("{place}: {m}"));
        let raw = item.get().trim_ascii_start();
        let node = if raw.starts_with('"') {
            let id: String =
                serde_json::from_str(raw).map_err(|e| bad("InvalidArgument", &e.to_string()))?;
            Node::new(id)
        } else if raw.starts_with('{') {
            let Fields(list) =
                serde_json::from_str(raw).map_err(|e| bad("InvalidArgument", &e.to_string()))?;
            let mut fields: BTreeMap<&str, &RawValue> = BTreeMap::new();
            for (k, v) in list {
                if fields.insert(k, v).is_some() {
                    return Err(bad(
                        "InvalidArgument",
                        &format!("field '{k}' is given twice"),
                    ));
                }
            }
            if let Some(unknown) = fields
                .keys()
                .find(|k| !["id", "id_hex", "weight", "domain", "domain_hex"].contains(k))
            {
                return Err(bad(
                    "InvalidArgument",
                    &format!("unknown field '{unknown}' (a node has id or id_hex, weight, domain or domain_hex)"),
                ));
            }
            let id = json_text(&fields, "id")
                .map_err(|m| bad("InvalidArgument", &m))?
                .ok_or_else(|| bad("InvalidArgument", "the node has no id or id_hex"))?;
            let mut node = Node::new(id);
            if let Some(raw) = fields.get("weight") {
                let text = raw.get().trim_ascii();
                // JSON has already checked the syntax; a number starts with a sign or a digit.
                let is_number = text.starts_with(|c: char| c == '-' || c.is_ascii_digit());
                let value: f64 =
                    is_number
                        .then(|| text.parse().ok())
                        .flatten()
                        .ok_or_else(|| {
                            bad(
                                "InvalidArgument",
                                &format!("the weight {text} is not a number"),
                            )
                        })?;
                let weight = weight_of(text, value).map_err(|m| bad("InvalidWeight", &m))?;
                node = node.with_weight(weight);
            }
            if let Some(domain) =
                json_text(&fields, "domain").map_err(|m| bad("InvalidArgument", &m))?
            {
                node = node.with_domain(domain);
            }
            node
        } else {
            return Err(bad(
                "InvalidArgument",
                &format!("{raw} is neither an id string nor a node object"),
            ));
        };
        membership.nodes.push(node);
        membership.places.push(place);
    }
    Ok(membership)
}

/// The fields of a JSON object in their order, a repeated name kept so that it can be rejected
/// (a map would silently keep one of the values).
struct Fields<'a>(Vec<(&'a str, &'a serde_json::value::RawValue)>);

impl<'de> serde::Deserialize<'de> for Fields<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// The bytes of `name` (a JSON string) or `<name>_hex` (hex digits); `null` is absent.
fn json_text(
    fields: &std::collections::BTreeMap<&str, &serde_json::value::RawValue>,
    name: &str,
) -> Result<Option<Vec<u8>>, String> {
    let hex_name = format!("{name}_hex");
    let (text, hexed) = match (fields.get(name), fields.get(hex_name.as_str())) {
        (Some(_), Some(_)) => return Err(format!("gives both {name} and {hex_name}")),
        (Some(raw), None) => (raw.get(), false),
        (None, Some(raw)) => (raw.get(), true),
        (None, None) => return Ok(None),
    };
    let field = if hexed { hex_name.as_str() } else { name };
    let value: Option<String> = serde_json::from_str(text)
        .map_err(|_| format!("{field} {} is not a string", text.trim_ascii()))?;
    let Some(value) = value else {
        return Ok(None);
    };
    if hexed {
        decode_hex(&value)
            .map(Some)
            .map_err(|m| format!("{field}: {m}"))
    } else {
        Ok(Some(value.into_bytes()))
    }
}

/// A node file, at most `hrwhash::view::MAX_DOCUMENT_BYTES` long as a view would be.
fn read_file(path: &OsStr) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let limit = hrwhash::view::MAX_DOCUMENT_BYTES;
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.to_string_lossy())))?;
    if bytes.len() as u64 > limit {
        return Err(CliError::input(
            "ResultTooLarge",
            format!("{}: longer than {limit} bytes", path.to_string_lossy()),
        ));
    }
    Ok(bytes)
}

/// Lines without their `\n` or `\r\n`; no empty last line after a final newline.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.split(|&b| b == b'\n')
        .filter(move |_| !text.is_empty())
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// The keys a diff or plan is computed over: `key-0`, `key-1`... or the lines of a file or of
/// stdin (`-`), read as they are used so that no number of keys is held in memory.
pub enum Keys {
    Generated(u64),
    Lines {
        name: String,
        reader: Box<dyn Read>,
        /// The file's size, for a progress bar in bytes; `None` for stdin or a pipe.
        size: Option<u64>,
    },
}

/// What [`Keys::for_each`] hands its callback.
pub enum KeyEvent<'a> {
    Key(&'a [u8]),
    /// No input is ready yet: reading on may wait, so what was written should be flushed now.
    Waiting,
}

impl Keys {
    /// `--keys N` or `--keys-from FILE` (`-`: stdin). A file is opened now, so that a missing
    /// one is reported before any output.
    pub fn from_args(count: Option<u64>, file: Option<&OsStr>) -> Result<Keys, CliError> {
        match file {
            Some(path) if path == OsStr::new("-") => Ok(Keys::Lines {
                name: "stdin".into(),
                reader: Box::new(std::io::stdin()),
                size: None,
            }),
            Some(path) => {
                let name = path.to_string_lossy().into_owned();
                let file = fs::File::open(path)
                    .map_err(|e| CliError::Input(format!("cannot read {name}: {e}")))?;
                let size = file
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                Ok(Keys::Lines {
                    name,
                    reader: Box::new(file),
                    size,
                })
            }
            None => match count.unwrap_or(crate::cmd::DEFAULT_KEYS) {
                0 => Err(CliError::Usage(
                    "--keys 0 gives no keys to compare".to_string(),
                )),
                n => Ok(Keys::Generated(n)),
            },
        }
    }

    /// A progress bar for going through these keys (hidden unless stderr is a terminal).
    pub fn progress(&self, what: &str, quiet: bool) -> ProgressBar {
        let unit = match self {
            Keys::Generated(n) => Unit::Items(*n, "keys"),
            Keys::Lines { size: Some(n), .. } => Unit::Bytes(*n),
            Keys::Lines { size: None, .. } => Unit::Open("keys"),
        };
        progress::bar(what, unit, quiet)
    }

    /// Calls `f` on every key in order (a file's empty lines skipped, a trailing `\r` dropped),
    /// and with [`KeyEvent::Waiting`] before each read of input that may block. Returns the
    /// number of keys, which is 0 for a file without any, as in every library.
    pub fn for_each(
        self,
        bar: &ProgressBar,
        mut f: impl FnMut(KeyEvent<'_>) -> Result<(), CliError>,
    ) -> Result<u64, CliError> {
        match self {
            Keys::Generated(n) => {
                let mut buf = String::new();
                for i in 0..n {
                    generated_key(&mut buf, i);
                    f(KeyEvent::Key(buf.as_bytes()))?;
                    if i % progress::EVERY == 0 {
                        bar.set_position(i);
                    }
                }
                bar.finish_and_clear();
                Ok(n)
            }
            Keys::Lines { name, reader, size } => {
                let mut reader = BufReader::with_capacity(1 << 16, reader);
                let (mut count, mut read) = (0u64, 0u64);
                let mut line = Vec::new();
                loop {
                    if reader.buffer().is_empty() {
                        f(KeyEvent::Waiting)?;
                    }
                    line.clear();
                    let n = reader
                        .read_until(b'\n', &mut line)
                        .map_err(|e| CliError::Input(format!("cannot read {name}: {e}")))?;
                    if n == 0 {
                        break;
                    }
                    read += n as u64;
                    let key = line.strip_suffix(b"\n").unwrap_or(&line);
                    let key = key.strip_suffix(b"\r").unwrap_or(key);
                    if key.is_empty() {
                        continue;
                    }
                    f(KeyEvent::Key(key))?;
                    if count % progress::EVERY == 0 {
                        bar.set_position(if size.is_some() { read } else { count });
                    }
                    count += 1;
                }
                bar.finish_and_clear();
                Ok(count)
            }
        }
    }
}

/// Keys handed on at once by the block readers: enough for the core's batch calls to pay off,
/// few enough that memory stays bounded (about 4096 lines) on input of any length.
pub const KEY_LINES: usize = 4096;

/// Lines read ahead into one buffer and handed on together, empty lines skipped and a trailing
/// `\n` or `\r\n` dropped. A block is handed on when it is full or when reading on may wait (the
/// reader's buffer is empty), so keys that arrive slowly are not held back.
struct LineBlocks<R> {
    reader: BufReader<R>,
    text: Vec<u8>,
    ends: Vec<(usize, usize)>,
    /// Bytes read so far, for a progress bar in bytes.
    read: u64,
}

impl<R: Read> LineBlocks<R> {
    fn new(reader: R) -> Self {
        LineBlocks {
            reader: BufReader::with_capacity(1 << 16, reader),
            text: Vec::new(),
            ends: Vec::with_capacity(KEY_LINES),
            read: 0,
        }
    }

    /// Calls `f` with each block of keys in order; a read error is returned once the keys read
    /// before it have been handed on.
    fn run(
        mut self,
        name: &str,
        mut f: impl FnMut(&[&[u8]], u64) -> Result<(), CliError>,
    ) -> Result<(), CliError> {
        let mut hand_on = |text: &mut Vec<u8>, ends: &mut Vec<(usize, usize)>, read: u64| {
            if ends.is_empty() {
                return Ok(());
            }
            let keys: Vec<&[u8]> = ends.iter().map(|&(s, e)| &text[s..e]).collect();
            let r = f(&keys, read);
            text.clear();
            ends.clear();
            r
        };
        loop {
            if self.ends.len() == KEY_LINES || self.reader.buffer().is_empty() {
                hand_on(&mut self.text, &mut self.ends, self.read)?;
            }
            let start = self.text.len();
            let n = match self.reader.read_until(b'\n', &mut self.text) {
                Ok(n) => n,
                Err(e) => {
                    self.text.truncate(start);
                    hand_on(&mut self.text, &mut self.ends, self.read)?;
                    return Err(CliError::Input(format!("cannot read {name}: {e}")));
                }
            };
            if n == 0 {
                return hand_on(&mut self.text, &mut self.ends, self.read);
            }
            self.read += n as u64;
            let line = &self.text[start..];
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                self.text.truncate(start);
            } else {
                self.ends.push((start, start + line.len()));
            }
        }
    }
}

impl Keys {
    /// Calls `f` on the keys in order, in blocks of up to [`KEY_LINES`], as [`Keys::for_each`]
    /// reads them (without its [`KeyEvent::Waiting`]: a block is handed on before a read that may
    /// wait). Returns the number of keys.
    pub fn for_each_block(
        self,
        bar: &ProgressBar,
        mut f: impl FnMut(&[&[u8]]) -> Result<(), CliError>,
    ) -> Result<u64, CliError> {
        let mut count = 0u64;
        match self {
            Keys::Generated(n) => {
                let mut text = String::new();
                let mut ends = Vec::with_capacity(KEY_LINES);
                let mut buf = String::new();
                let mut start = 0;
                while start < n {
                    let end = n.min(start + KEY_LINES as u64);
                    text.clear();
                    ends.clear();
                    for i in start..end {
                        generated_key(&mut buf, i);
                        text.push_str(&buf);
                        ends.push(text.len());
                    }
                    let mut from = 0;
                    let keys: Vec<&[u8]> = ends
                        .iter()
                        .map(|&e| {
                            let key = &text.as_bytes()[from..e];
                            from = e;
                            key
                        })
                        .collect();
                    f(&keys)?;
                    bar.set_position(end);
                    start = end;
                }
                count = n;
            }
            Keys::Lines { name, reader, size } => {
                LineBlocks::new(reader).run(&name, |keys, read| {
                    count += keys.len() as u64;
                    bar.set_position(if size.is_some() { read } else { count });
                    f(keys)
                })?;
            }
        }
        bar.finish_and_clear();
        Ok(count)
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

/// Reads keys from stdin in blocks of up to [`KEY_LINES`] (see [`LineBlocks`]), skipping empty
/// lines, so a stream of any length works in bounded memory.
pub fn for_each_stdin_block(
    mut f: impl FnMut(&[&[u8]]) -> Result<(), CliError>,
) -> Result<(), CliError> {
    LineBlocks::new(std::io::stdin()).run("stdin", |keys, _| f(keys))
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
