//! Views: one membership made a shared fact — a format tag, the algorithm, a monotonic epoch, the
//! seed's identity and the nodes — as one JSON document every client loads
//! (`conformance/VIEW.md`, tag `hrwhash-view-v1`).

pub(crate) mod json;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use sha2::{Digest, Sha256};

use crate::error::Fault;
use crate::{Error, Node, Placement, Seed, Weight, ALGORITHM};

use json::{Document, Nodes, RawNode, Scalar};

/// The format tag of a view document.
pub const VIEW_FORMAT: &str = "hrwhash-view-v1";

/// The largest document a file loader reads: 1 GiB (VIEW.md, "Limits"). A longer one fails with
/// [`Error::ResultTooLarge`] once the loader has read past the limit.
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// Reads a JSON document (a view or a slot history) for a file loader: at most
/// [`MAX_DOCUMENT_BYTES`] (more is [`Error::ResultTooLarge`] in the inner result), and no further
/// than the first byte no JSON text may hold anywhere (a control character other than tab, line
/// feed and carriage return). Reading then stops and the bytes up to it are returned: the
/// document's parser rejects them with the `InvalidJson` position it gives the whole input, so
/// `/dev/zero` fails at line 1, column 1 after one read. The outer error is the reader's.
#[cfg(feature = "std")]
pub fn read_document(reader: impl std::io::Read) -> std::io::Result<Result<Vec<u8>, Error>> {
    read_bounded(reader, MAX_DOCUMENT_BYTES)
}

#[cfg(feature = "std")]
fn read_bounded(
    mut reader: impl std::io::Read,
    limit: u64,
) -> std::io::Result<Result<Vec<u8>, Error>> {
    let mut bytes = Vec::new();
    let mut chunk = alloc::vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Ok(bytes)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let read = &chunk[..n];
        if let Some(bad) = read
            .iter()
            .position(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
        {
            bytes.extend_from_slice(&read[..=bad]);
            return Ok(Ok(bytes));
        }
        if (bytes.len() + n) as u64 > limit {
            return Ok(Err(Error::ResultTooLarge));
        }
        bytes.extend_from_slice(read);
    }
}

/// Prefix of the message whose SHA-256 is a seed fingerprint.
const SEED_FINGERPRINT_PREFIX: &[u8] = b"hrwhash-view-v1:seed";

/// A public digest of `N` bytes: the fingerprint of a seed (`N` = 8, [`View::seed_fingerprint`]),
/// of a view (`N` = 16, [`View::fingerprint`]) or of a slot table
/// ([`SlotTable::fingerprint`](crate::policy::SlotTable::fingerprint)). It shows as its lowercase
/// hex digits, as written in documents.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint<const N: usize>(pub(crate) [u8; N]);

impl<const N: usize> Fingerprint<N> {
    /// The bytes.
    pub const fn to_bytes(self) -> [u8; N] {
        self.0
    }

    /// `2 * N` lowercase hex digits, as written in a document.
    pub fn to_hex(self) -> String {
        hex(&self.0)
    }
}

impl Fingerprint<8> {
    /// The seed fingerprint written into views instead of a secret seed, so that loading a view
    /// with another seed fails instead of placing keys elsewhere:
    /// `SHA-256("hrwhash-view-v1:seed" || seed)[0..8]`.
    pub fn of(seed: &Seed) -> Fingerprint<8> {
        let mut h = Sha256::new();
        h.update(SEED_FINGERPRINT_PREFIX);
        h.update(seed.to_bytes());
        let digest = h.finalize();
        let mut out = [0u8; 8];
        out.copy_from_slice(&digest[..8]);
        Fingerprint(out)
    }
}

impl<const N: usize> fmt::Display for Fingerprint<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl<const N: usize> fmt::Debug for Fingerprint<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A membership with its epoch and seed identity. Cloning is cheap (the placement is shared).
///
/// ```
/// use hrwhash::{Placement, View};
///
/// let view = View::new(Placement::weighted([("a", 1.0), ("b", 2.5)])?, 7)?;
/// let text = view.to_json();
/// let loaded = View::from_json(&text)?;
/// assert_eq!(loaded.epoch(), 7);
/// assert_eq!(loaded.fingerprint(), view.fingerprint());
/// assert_eq!(loaded.placement().owner("k").id(), view.placement().owner("k").id());
/// # Ok::<(), hrwhash::Error>(())
/// ```
#[derive(Clone)]
pub struct View {
    placement: Placement,
    epoch: u64,
    seed_fingerprint: Fingerprint<8>,
    fingerprint: Fingerprint<16>,
}

impl fmt::Debug for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("epoch", &self.epoch)
            .field("fingerprint", &self.fingerprint)
            .field("seed_fingerprint", &self.seed_fingerprint)
            .field("nodes", &self.placement.len())
            .finish()
    }
}

impl AsRef<Placement> for View {
    fn as_ref(&self) -> &Placement {
        &self.placement
    }
}

impl View {
    /// A view of `placement` at `epoch`. Fails only when a weight has more than 53 significant
    /// bits (possible only through [`Weight::from_fixed`]): no JSON number could carry it exactly.
    pub fn new(placement: Placement, epoch: u64) -> Result<View, Error> {
        if let Some(index) = placement
            .node_specs()
            .iter()
            .position(|n| !representable(n.weight()))
        {
            return Err(Error::InvalidView {
                field: "weight".into(),
                index: Some(index),
                reason: Fault::NotRepresentable,
            });
        }
        let seed_fingerprint = Fingerprint::<8>::of(&placement.seed());
        let fingerprint = fingerprint(&placement, seed_fingerprint);
        Ok(View {
            placement,
            epoch,
            seed_fingerprint,
            fingerprint,
        })
    }

    /// Loads a view written for the default seed. See [`View::from_json_with_seed`].
    pub fn from_json(text: &str) -> Result<View, Error> {
        View::from_json_bytes(text.as_bytes(), Seed::DEFAULT)
    }

    /// Loads a view, placing keys with `seed`; fails with [`Error::SeedMismatch`] when the view
    /// was written for another seed.
    ///
    /// ```
    /// use hrwhash::{Error, Placement, Seed, View};
    ///
    /// let secret = Seed::from_bytes(*b"0123456789abcdef");
    /// let placement = Placement::from_nodes(secret, [hrwhash::Node::new("a")])?;
    /// let text = View::new(placement, 1)?.to_json();
    /// assert!(!text.contains("0123456789abcdef"));
    /// assert!(View::from_json_with_seed(&text, secret).is_ok());
    /// assert_eq!(View::from_json(&text).unwrap_err(), Error::SeedMismatch);
    /// # Ok::<(), hrwhash::Error>(())
    /// ```
    pub fn from_json_with_seed(text: &str, seed: Seed) -> Result<View, Error> {
        View::from_json_bytes(text.as_bytes(), seed)
    }

    /// Loads a view from bytes (which must be UTF-8 JSON), placing keys with `seed`.
    pub fn from_json_bytes(bytes: &[u8], seed: Seed) -> Result<View, Error> {
        let doc = json::parse(bytes, &parse_node)?;
        let parsed = parse_document(doc)?;
        let placement = Placement::from_nodes(seed, parsed.nodes)?;
        let actual = Fingerprint::<8>::of(&seed);
        let matches = match parsed.seed {
            SeedIdentity::Default => seed == Seed::DEFAULT,
            SeedIdentity::Fingerprint(fp) => fp == actual,
        };
        if !matches {
            return Err(Error::SeedMismatch);
        }
        Ok(View {
            fingerprint: fingerprint(&placement, actual),
            placement,
            epoch: parsed.epoch,
            seed_fingerprint: actual,
        })
    }

    /// The same membership at another epoch.
    pub fn with_epoch(&self, epoch: u64) -> View {
        View {
            epoch,
            ..self.clone()
        }
    }

    /// The membership, ready for lookups.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The digest of the canonical form (epoch excluded).
    pub fn fingerprint(&self) -> Fingerprint<16> {
        self.fingerprint
    }

    /// The fingerprint of the seed.
    pub fn seed_fingerprint(&self) -> Fingerprint<8> {
        self.seed_fingerprint
    }

    /// Whether the view uses the public default seed (written as `"seed": "default"`).
    pub fn has_default_seed(&self) -> bool {
        self.placement.seed() == Seed::DEFAULT
    }

    /// The canonical JSON form (VIEW.md, "Canonical form"): members in a fixed order, nodes in
    /// bytewise id order, weight 1 omitted, every weight as its exact decimal, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut nodes: Vec<&Node> = self.placement.node_specs().iter().collect();
        nodes.sort_unstable_by(|a, b| a.id().cmp(b.id()));
        let mut out = String::with_capacity(128 + nodes.len() * 40);
        out.push_str("{\n  \"format\": \"");
        out.push_str(VIEW_FORMAT);
        out.push_str("\",\n  \"algorithm\": \"");
        out.push_str(ALGORITHM);
        out.push_str("\",\n  \"epoch\": \"");
        out.push_str(&self.epoch.to_string());
        if self.has_default_seed() {
            out.push_str("\",\n  \"seed\": \"default\",\n");
        } else {
            out.push_str("\",\n  \"seed\": \"secret\",\n  \"seed_fingerprint\": \"");
            out.push_str(&self.seed_fingerprint.to_hex());
            out.push_str("\",\n");
        }
        out.push_str("  \"nodes\": [\n");
        for (i, node) in nodes.iter().enumerate() {
            out.push_str("    {");
            write_text(&mut out, "id", node.id());
            if node.weight() != Weight::ONE {
                out.push_str(", \"weight\": ");
                out.push_str(&weight_decimal(node.weight()));
            }
            if let Some(domain) = node.domain() {
                out.push_str(", ");
                write_text(&mut out, "domain", domain);
            }
            out.push_str(if i + 1 == nodes.len() { "}\n" } else { "},\n" });
        }
        out.push_str("  ]\n}\n");
        out
    }
}

/// `"name": "<text>"` when the bytes are UTF-8, `"name_hex": "<hex>"` otherwise.
pub(crate) fn write_text(out: &mut String, name: &str, bytes: &[u8]) {
    out.push('"');
    out.push_str(name);
    match core::str::from_utf8(bytes) {
        Ok(text) => {
            out.push_str("\": ");
            json::write_string(out, text);
        }
        Err(_) => {
            out.push_str("_hex\": \"");
            out.push_str(&hex(bytes));
            out.push('"');
        }
    }
}

pub(crate) use crate::weight::representable;

/// The exact decimal value of `W / 2^32`: the integer part, then, when the fraction is not zero,
/// a point and its digits without trailing zeros (at most 32, since `2^-32 = 5^32 / 10^32`).
pub(crate) fn weight_decimal(w: Weight) -> String {
    let w = w.to_fixed();
    let int = w >> 32;
    let frac = w & 0xFFFF_FFFF;
    let mut s = int.to_string();
    if frac != 0 {
        let digits = alloc::format!("{:032}", frac as u128 * 5u128.pow(32));
        s.push('.');
        s.push_str(digits.trim_end_matches('0'));
    }
    s
}

/// The view fingerprint (VIEW.md, "Fingerprints").
pub(crate) fn fingerprint(placement: &Placement, seed: Fingerprint<8>) -> Fingerprint<16> {
    let mut nodes: Vec<&Node> = placement.node_specs().iter().collect();
    nodes.sort_unstable_by(|a, b| a.id().cmp(b.id()));
    let mut h = Sha256::new();
    let framed = |h: &mut Sha256, bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    framed(&mut h, VIEW_FORMAT.as_bytes());
    framed(&mut h, ALGORITHM.as_bytes());
    h.update(seed.to_bytes());
    h.update((nodes.len() as u64).to_le_bytes());
    for node in nodes {
        framed(&mut h, node.id());
        h.update(node.weight().to_fixed().to_le_bytes());
        match node.domain() {
            None => h.update([0u8]),
            Some(d) => {
                h.update([1u8]);
                framed(&mut h, d);
            }
        }
    }
    let digest = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    Fingerprint(out)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

enum SeedIdentity {
    Default,
    Fingerprint(Fingerprint<8>),
}

struct Parsed {
    epoch: u64,
    seed: SeedIdentity,
    nodes: Vec<Node>,
}

pub(crate) fn fault(field: &str, index: Option<usize>, reason: Fault) -> Error {
    Error::InvalidView {
        field: field.into(),
        index,
        reason,
    }
}

pub(crate) fn required<'a, 'de>(
    value: &'a Option<Scalar<'de>>,
    field: &str,
) -> Result<&'a Scalar<'de>, Error> {
    value
        .as_ref()
        .ok_or_else(|| fault(field, None, Fault::Missing))
}

pub(crate) fn string<'a>(
    value: &'a Scalar<'_>,
    field: &str,
    index: Option<usize>,
) -> Result<&'a str, Error> {
    match value {
        Scalar::Str(s) => Ok(s),
        _ => Err(fault(field, index, Fault::WrongType)),
    }
}

/// A decimal of 1 to 20 digits with no leading zero (except `"0"`), at most 2^64 - 1.
pub(crate) fn parse_epoch(text: &str) -> Result<u64, Error> {
    let b = text.as_bytes();
    let canonical = !b.is_empty()
        && b.len() <= 20
        && b.iter().all(u8::is_ascii_digit)
        && (b[0] != b'0' || b.len() == 1);
    if !canonical {
        return Err(fault("epoch", None, Fault::Invalid));
    }
    text.parse::<u64>()
        .map_err(|_| fault("epoch", None, Fault::OutOfRange))
}

/// Bytes written either as `name` (text) or `name_hex` (hex), never both.
fn text_or_hex(
    text: &Option<Scalar<'_>>,
    hex_value: &Option<Scalar<'_>>,
    name: &str,
    index: usize,
) -> Result<Option<Vec<u8>>, Error> {
    let hex_name = if name == "id" { "id_hex" } else { "domain_hex" };
    match (text, hex_value) {
        (Some(_), Some(_)) => Err(fault(hex_name, Some(index), Fault::Conflict)),
        (Some(t), None) => Ok(Some(string(t, name, Some(index))?.as_bytes().to_vec())),
        (None, Some(h)) => unhex(string(h, hex_name, Some(index))?)
            .map(Some)
            .ok_or_else(|| fault(hex_name, Some(index), Fault::Invalid)),
        (None, None) => Ok(None),
    }
}

/// VIEW.md, "Loading", check 9 for one node.
pub(crate) fn parse_node(raw: RawNode<'_>, index: usize) -> Result<Node, Error> {
    if let Some((name, reason)) = raw.fault {
        return Err(fault(&name, Some(index), reason));
    }
    let [id, id_hex, weight, domain, domain_hex] = &raw.members;
    let id = text_or_hex(id, id_hex, "id", index)?
        .ok_or_else(|| fault("id", Some(index), Fault::Missing))?;
    let mut node = Node::new(id);
    if let Some(w) = weight {
        let Scalar::Number(w) = *w else {
            return Err(fault("weight", Some(index), Fault::WrongType));
        };
        let w = Weight::new(w).map_err(|_| fault("weight", Some(index), Fault::OutOfRange))?;
        node = node.with_weight(w);
    }
    if let Some(d) = text_or_hex(domain, domain_hex, "domain", index)? {
        node = node.with_domain(d);
    }
    Ok(node)
}

/// The `seed` member (VIEW.md, "Loading") and the `seed_fingerprint` it calls for: `None` for
/// the default seed, which has no fingerprint; a secret seed's 8-byte fingerprint.
pub(crate) fn parse_seed(
    seed: &Option<Scalar<'_>>,
    seed_fingerprint: &Option<Scalar<'_>>,
) -> Result<Option<[u8; 8]>, Error> {
    match string(required(seed, "seed")?, "seed", None)? {
        "default" => match seed_fingerprint {
            Some(_) => Err(fault("seed_fingerprint", None, Fault::Conflict)),
            None => Ok(None),
        },
        "secret" => {
            let fp = required(seed_fingerprint, "seed_fingerprint")?;
            let fp = string(fp, "seed_fingerprint", None)?;
            let bytes = unhex(fp)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .ok_or_else(|| fault("seed_fingerprint", None, Fault::Invalid))?;
            Ok(Some(bytes))
        }
        _ => Err(fault("seed", None, Fault::Invalid)),
    }
}

/// Every check of VIEW.md, "Loading", up to the membership checks (which [`Placement`] makes).
fn parse_document(doc: Option<Document<'_, Node>>) -> Result<Parsed, Error> {
    let Some(doc) = doc else {
        return Err(fault("", None, Fault::WrongType));
    };
    if let Some((name, reason)) = doc.fault {
        return Err(fault(&name, None, reason));
    }
    let [format, algorithm, epoch, seed, seed_fingerprint] = &doc.members;
    if string(required(format, "format")?, "format", None)? != VIEW_FORMAT {
        return Err(fault("format", None, Fault::Unsupported));
    }
    if string(required(algorithm, "algorithm")?, "algorithm", None)? != ALGORITHM {
        return Err(fault("algorithm", None, Fault::Unsupported));
    }
    let epoch = parse_epoch(string(required(epoch, "epoch")?, "epoch", None)?)?;
    let seed = match parse_seed(seed, seed_fingerprint)? {
        None => SeedIdentity::Default,
        Some(bytes) => SeedIdentity::Fingerprint(Fingerprint(bytes)),
    };
    let nodes = match doc.nodes {
        None => return Err(fault("nodes", None, Fault::Missing)),
        Some(Nodes::NotArray) => return Err(fault("nodes", None, Fault::WrongType)),
        Some(Nodes::List(nodes)) => nodes?,
    };
    Ok(Parsed { epoch, seed, nodes })
}

#[cfg(test)]
mod tests {
    /// A reader that counts what it hands out.
    #[cfg(feature = "std")]
    struct Counted<R>(R, usize);

    #[cfg(feature = "std")]
    impl<R: std::io::Read> std::io::Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1 += n;
            Ok(n)
        }
    }

    /// An endless stream of zeros (`/dev/zero`) costs one read and fails at line 1, column 1;
    /// a control byte deep in a document gives the error the whole document gives.
    #[cfg(feature = "std")]
    #[test]
    fn documents_are_read_up_to_the_first_byte_no_json_holds() {
        use std::io::Read;
        let mut zeros = Counted(std::io::repeat(0), 0);
        let bytes = super::read_document(&mut zeros).unwrap().unwrap();
        assert_eq!(bytes, [0]);
        assert!(zeros.1 <= 64 * 1024, "read {} bytes", zeros.1);
        assert_eq!(
            View::from_json_bytes(&bytes, Seed::DEFAULT).unwrap_err(),
            Error::InvalidJson { line: 1, column: 1 }
        );
        let text = View::new(Placement::new(["a", "b"]).unwrap(), 3)
            .unwrap()
            .to_json();
        let at = text.find("\"b\"").unwrap() + 1;
        let mut bad = text.clone().into_bytes();
        bad[at] = 1;
        let endless = Counted(bad.as_slice().chain(std::io::repeat(b' ')), 0);
        let read = super::read_document(endless).unwrap().unwrap();
        assert_eq!(read.len(), at + 1);
        assert_eq!(
            View::from_json_bytes(&read, Seed::DEFAULT).unwrap_err(),
            View::from_json_bytes(&bad, Seed::DEFAULT).unwrap_err()
        );
        let whole = super::read_document(text.as_bytes()).unwrap().unwrap();
        assert_eq!(whole, text.as_bytes());
    }

    /// Past the limit the read stops with ResultTooLarge, having read at most one chunk more.
    #[cfg(feature = "std")]
    #[test]
    fn documents_past_the_limit_are_too_large() {
        use std::io::Read;
        let mut spaces = Counted(std::io::repeat(b' '), 0);
        assert_eq!(
            super::read_bounded(&mut spaces, 1000).unwrap(),
            Err(Error::ResultTooLarge)
        );
        assert!(spaces.1 <= 1000 + 64 * 1024);
        let fits = Counted(std::io::repeat(b' ').take(1000), 0);
        assert_eq!(
            super::read_bounded(fits, 1000).unwrap().unwrap().len(),
            1000
        );
        assert_eq!(super::MAX_DOCUMENT_BYTES, 1 << 30);
    }

    use super::*;

    #[test]
    fn weight_decimals_are_exact() {
        let w = |x: f64| weight_decimal(Weight::new(x).unwrap());
        assert_eq!(w(1.0), "1");
        assert_eq!(w(2.5), "2.5");
        assert_eq!(w(0.0), "0");
        assert_eq!(w(0.1), "0.1000000000931322574615478515625");
        assert_eq!(
            weight_decimal(Weight::from_fixed(1)),
            "0.00000000023283064365386962890625"
        );
        for x in [0.1, 1e-9, 3.75, 123456.789, 4294967295.5] {
            let text = w(x);
            let back: f64 = text.parse().unwrap();
            assert_eq!(
                Weight::new(back).unwrap(),
                Weight::new(x).unwrap(),
                "{text}"
            );
        }
    }

    #[test]
    fn representability_is_53_significant_bits() {
        assert!(representable(Weight::from_fixed((1 << 53) - 1)));
        assert!(representable(Weight::from_fixed(u64::MAX - 2047)));
        assert!(!representable(Weight::from_fixed((1 << 53) + 1)));
        let p = Placement::from_nodes(
            Seed::DEFAULT,
            alloc::vec![
                Node::new("a"),
                Node::new("b").with_weight(Weight::from_fixed((1 << 60) + 1))
            ],
        )
        .unwrap();
        assert_eq!(
            View::new(p, 0).unwrap_err(),
            fault("weight", Some(1), Fault::NotRepresentable)
        );
    }

    #[test]
    fn hex_round_trips_and_rejects() {
        assert_eq!(unhex("00ffA0").unwrap(), [0, 255, 160]);
        assert!(unhex("0").is_none());
        assert!(unhex("zz").is_none());
        assert_eq!(hex(&[0, 255, 160]), "00ffa0");
    }

    #[test]
    fn fingerprints_show_as_hex_and_debug_names_their_type() {
        use alloc::format;
        let fp = Fingerprint([0, 1, 2, 3, 0xa4, 0xb5, 0xc6, 0xff]);
        assert_eq!(format!("{fp}"), "00010203a4b5c6ff");
        assert_eq!(format!("{fp:?}"), "Fingerprint(00010203a4b5c6ff)");
        let fp = Fingerprint([0xab; 16]);
        assert_eq!(
            format!("{fp:?}"),
            format!("Fingerprint({})", "ab".repeat(16))
        );
    }

    #[test]
    fn epochs_must_be_canonical_decimals() {
        assert_eq!(parse_epoch("0").unwrap(), 0);
        assert_eq!(parse_epoch("18446744073709551615").unwrap(), u64::MAX);
        for bad in ["", "01", "+1", "-1", " 1", "1.0", "1e3", "0x10"] {
            assert_eq!(
                parse_epoch(bad).unwrap_err(),
                fault("epoch", None, Fault::Invalid),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_epoch("18446744073709551616").unwrap_err(),
            fault("epoch", None, Fault::OutOfRange)
        );
    }
}
