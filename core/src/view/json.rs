//! Reading a view document with `serde_json` in one pass, without building a JSON tree: nodes
//! become [`Node`]s as they are parsed and strings without escapes are borrowed from the input.
//!
//! Nothing is rejected while parsing except malformed JSON: every fault of the document is
//! recorded (the first one of each kind, in document order) so that [`super::parse_document`] can
//! report them in the order VIEW.md, "Loading", prescribes.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::Fault;
use crate::Error;

/// The scalar visits of a visitor that reads one JSON type and answers every other with `$none`.
macro_rules! other_types_are {
    ($none:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}
pub(crate) use other_types_are;

/// The rest of a visitor that reads an object (a node, a document, a history, one of its changes)
/// and answers `None` for any other JSON value: an array is still parsed to its end, so that a
/// syntax error inside it is the one reported; every other type is taken as it is.
macro_rules! not_an_object_is_none {
    () => {
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            $crate::view::json::drain_seq(seq).map(|()| None)
        }
        $crate::view::json::other_types_are!(None);
    };
}
pub(crate) use not_an_object_is_none;

/// A member value where the format expects a string or a number.
pub(crate) enum Scalar<'de> {
    Str(Cow<'de, str>),
    /// Every number as the binary64 nearest to it (serde_json's `float_roundtrip` parsing).
    Number(f64),
    /// `null`, `true`, `false`, an array or an object: no scalar member has these types.
    Other,
}

/// A member's name or value fault, the first one in document order.
pub(crate) type MemberFault<'de> = Option<(Cow<'de, str>, Fault)>;

/// The members of one node, after its first unknown or repeated member if any.
#[derive(Default)]
pub(crate) struct RawNode<'de> {
    pub(crate) fault: MemberFault<'de>,
    /// `id`, `id_hex`, `weight`, `domain`, `domain_hex`.
    pub(crate) members: [Option<Scalar<'de>>; 5],
}

pub(super) const NODE_MEMBERS: [&str; 5] = ["id", "id_hex", "weight", "domain", "domain_hex"];
pub(super) const TOP_MEMBERS: [&str; 6] = [
    "format",
    "algorithm",
    "epoch",
    "seed",
    "seed_fingerprint",
    "nodes",
];

/// What `"nodes"` held.
pub(super) enum Nodes<T> {
    NotArray,
    /// The converted nodes, or the first node's error (later nodes are then only parsed).
    List(Result<Vec<T>, Error>),
}

pub(super) struct Document<'de, T> {
    pub(super) fault: MemberFault<'de>,
    /// `format` .. `seed_fingerprint`, in the order of [`TOP_MEMBERS`].
    pub(super) members: [Option<Scalar<'de>>; 5],
    pub(super) nodes: Option<Nodes<T>>,
}

/// `None` when the document is not an object.
pub(super) fn parse<'de, T>(
    bytes: &'de [u8],
    node: &dyn Fn(RawNode<'de>, usize) -> Result<T, Error>,
) -> Result<Option<Document<'de, T>>, Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let doc = de
        .deserialize_any(DocumentVisitor { node })
        .and_then(|doc| de.end().map(|()| doc));
    doc.map_err(|e| syntax_error(bytes, &e))
}

/// `InvalidJson` at the position VIEW.md (section 5, check 1) gives for a serde_json error: where
/// parsing stopped, 1-based, never column 0. serde_json counts the bytes it consumed on the line:
/// when the text ends too early that is its last byte, and VIEW.md's position is just past it;
/// when the byte it stopped at (and consumed) is a line feed, serde_json names column 0 of the
/// next line, and VIEW.md names the line feed itself, the last byte of its line.
pub(crate) fn syntax_error(bytes: &[u8], e: &serde_json::Error) -> Error {
    let (line, column) = (e.line(), e.column());
    if e.classify() == serde_json::error::Category::Eof {
        return Error::InvalidJson {
            line,
            column: column + 1,
        };
    }
    if column == 0 && line > 1 {
        // The line feed that ends line `line - 1`: its column is that line's length with it.
        let mut feeds = bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(i, _)| i);
        let before = if line > 2 { feeds.nth(line - 3) } else { None };
        if let Some(feed) = feeds.next() {
            let start = before.map_or(0, |b| b + 1);
            return Error::InvalidJson {
                line: line - 1,
                column: feed - start + 1,
            };
        }
    }
    Error::InvalidJson {
        line,
        column: column.max(1),
    }
}

/// Appends `text` as a JSON string: `"` and `\` escaped with a backslash, U+0008, U+0009, U+000A,
/// U+000C and U+000D as `\b \t \n \f \r`, the other characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else as itself.
pub(crate) fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                const DIGITS: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(DIGITS[(c as usize) >> 4] as char);
                out.push(DIGITS[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---- visitors ---------------------------------------------------------------------------

/// A value that is only parsed. Unlike `serde::de::IgnoredAny` it goes through
/// `deserialize_any`, so numbers beyond binary64 and lone surrogates are errors wherever they are,
/// as VIEW.md requires.
pub(crate) struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Skip, A::Error> {
        drain_seq(seq).map(|()| Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Skip, A::Error> {
        drain_map(map).map(|()| Skip)
    }
}

pub(crate) fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Skip>()?.is_some() {}
    Ok(())
}

pub(crate) fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Skip, Skip>()?.is_some() {}
    Ok(())
}

/// A string, borrowed from the input when it has no escapes.
pub(crate) struct Text;

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

pub(crate) struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    // Integer casts to f64 round to nearest, ties to even: the binary64 nearest to the digits.
    fn visit_u64<E>(self, v: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Number(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v.into())))
    }
    fn visit_string<E>(self, v: String) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar<'de>, A::Error> {
        drain_seq(seq).map(|()| Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar<'de>, A::Error> {
        drain_map(map).map(|()| Scalar::Other)
    }
}

impl<'de> DeserializeSeed<'de> for ScalarVisitor {
    type Value = Scalar<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

/// Reads the members of an object into `slots` by name, recording the first unknown or repeated
/// member and only parsing the values after it. A known member beyond `slots` is read by
/// `other`, which is told its position in `names`.
pub(crate) fn members<'de, A: MapAccess<'de>, const N: usize>(
    map: &mut A,
    names: &[&str; N],
    slots: &mut [Option<Scalar<'de>>],
    fault: &mut MemberFault<'de>,
    mut other: impl FnMut(&mut A, usize) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    let mut seen = [false; N];
    while let Some(name) = map.next_key_seed(Text)? {
        let slot = names.iter().position(|n| *n == name);
        let problem = match slot {
            None => Some(Fault::Unknown),
            Some(i) if seen[i] => Some(Fault::Duplicate),
            Some(_) => None,
        };
        match (slot, problem) {
            (Some(i), None) => {
                seen[i] = true;
                // A member beyond `slots` (the node list) is read by `other`.
                if i < slots.len() {
                    slots[i] = Some(map.next_value_seed(ScalarVisitor)?);
                } else {
                    other(map, i)?;
                }
            }
            (_, problem) => {
                if fault.is_none() {
                    *fault = Some((name, problem.unwrap_or(Fault::Unknown)));
                }
                map.next_value::<Skip>()?;
            }
        }
    }
    Ok(())
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    /// `None`: not an object.
    type Value = Option<RawNode<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut node = RawNode::default();
        members(
            &mut map,
            &NODE_MEMBERS,
            &mut node.members,
            &mut node.fault,
            |map, _| map.next_value::<Skip>().map(|_| ()),
        )?;
        Ok(Some(node))
    }
    not_an_object_is_none!();
}

impl<'de> DeserializeSeed<'de> for NodeVisitor {
    type Value = Option<RawNode<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

struct NodesVisitor<'f, 'de, T> {
    node: &'f dyn Fn(RawNode<'de>, usize) -> Result<T, Error>,
}

impl<'de, T> Visitor<'de> for NodesVisitor<'_, 'de, T> {
    type Value = Nodes<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Nodes<T>, A::Error> {
        let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut index = 0;
        while let Some(raw) = seq.next_element_seed(NodeVisitor)? {
            let converted = match raw {
                None => Err(super::fault("nodes", Some(index), Fault::WrongType)),
                Some(raw) => (self.node)(raw, index),
            };
            match converted {
                Ok(n) => list.push(n),
                Err(e) => {
                    drain_seq(seq)?;
                    return Ok(Nodes::List(Err(e)));
                }
            }
            index += 1;
        }
        Ok(Nodes::List(Ok(list)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Nodes<T>, A::Error> {
        drain_map(map).map(|()| Nodes::NotArray)
    }
    other_types_are!(Nodes::NotArray);
}

impl<'de, T> DeserializeSeed<'de> for NodesVisitor<'_, 'de, T> {
    type Value = Nodes<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Nodes<T>, D::Error> {
        d.deserialize_any(self)
    }
}

struct DocumentVisitor<'f, 'de, T> {
    node: &'f dyn Fn(RawNode<'de>, usize) -> Result<T, Error>,
}

impl<'de, T> Visitor<'de> for DocumentVisitor<'_, 'de, T> {
    /// `None`: not an object.
    type Value = Option<Document<'de, T>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a view document")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut doc = Document {
            fault: None,
            members: Default::default(),
            nodes: None,
        };
        let node = self.node;
        let mut nodes = None;
        members(
            &mut map,
            &TOP_MEMBERS,
            &mut doc.members,
            &mut doc.fault,
            |map, _| {
                nodes = Some(map.next_value_seed(NodesVisitor { node })?);
                Ok(())
            },
        )?;
        doc.nodes = nodes;
        Ok(Some(doc))
    }
    not_an_object_is_none!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Result<Option<Vec<String>>, Error> {
        let node = |raw: RawNode<'_>, _| match &raw.members[0] {
            Some(Scalar::Str(s)) => Ok(String::from(s.as_ref())),
            _ => Err(Error::EmptyMembership),
        };
        Ok(parse(text.as_bytes(), &node)?.map(|d| match d.nodes {
            Some(Nodes::List(Ok(v))) => v,
            _ => Vec::new(),
        }))
    }

    #[test]
    fn nodes_are_read_in_order() {
        let got = ids(r#"{"nodes": [{"id": "a"}, {"id": "b\u0041"}], "x": [1, {"y": 2}]}"#);
        assert_eq!(got.unwrap().unwrap(), ["a", "bA"]);
        assert!(ids("[1, 2]").unwrap().is_none());
    }

    #[test]
    fn syntax_errors_have_a_position() {
        for (text, line, column) in [
            ("{\"a\": 1} x", 1, 10),
            ("{\n  \"a\": }", 2, 8),
            ("[1e400]", 1, 6),
            ("\"\\ud800\"", 1, 8),
            // The end of the text: just past its last byte, on the last line.
            ("", 1, 1),
            ("   ", 1, 4),
            ("{\"a\": 1", 1, 8),
            ("{\"a\": 1,\n", 2, 1),
            // A line feed where parsing stopped is the last byte of its line, never column 0.
            ("{\"a\": \"x\ny\"}", 1, 9),
            ("{\n\"a\": tru\n}", 2, 9),
            ("[1e\n]", 1, 4),
            ("\n\n[\"\\\n\"]", 3, 4),
            // VIEW.md 5 check 1, inside the text: the first byte no JSON text continues with ...
            ("{\"a\":x}", 1, 6),
            ("[1,]", 1, 4),
            ("trux", 1, 4),
            ("01", 1, 2),
            ("[\n1\n,\n]", 4, 1),
            ("\"a\u{1}\"", 1, 3),
            ("\"\\x\"", 1, 3),
            // ... a \\u escape: its fourth character, which is read before the four are checked;
            ("\"\\u12x4\"", 1, 7),
            ("\"\\uxyzw\"", 1, 7),
            // a lone surrogate: the byte after a high one that no \\u follows (the byte after
            // its backslash), the last byte of an escape that is not its low half, of a low one;
            ("\"\\ud800x\"", 1, 8),
            ("\"\\ud800\\n\"", 1, 9),
            ("\"\\ud800\\u0041\"", 1, 13),
            ("\"\\udc00\"", 1, 7),
            // a number beyond binary64: its last byte, or the exponent digit past 2^31 - 1;
            ("[-1e400]", 1, 7),
            ("[1e4000000000000000000000]", 1, 13),
            // nesting past 127 levels: the bracket that opens level 128.
            (&["{\"nodes\":", &"[".repeat(127), "]"].concat(), 1, 136),
        ] {
            match ids(text) {
                Err(Error::InvalidJson { line: l, column: c }) => {
                    assert_eq!((l, c), (line, column), "{text}")
                }
                _ => panic!("{text} must fail"),
            }
        }
        // Invalid UTF-8: the first byte of the ill-formed sequence.
        for (bytes, column) in [
            (&b"\"ab\xff\""[..], 4),
            (b"\"\xc3\x28\"", 2),
            (b"\"\xf0\x9f\x98x\"", 2),
            (b"\"abc\xed\xa0\x80\"", 5),
            (b"\x80", 1),
        ] {
            match crate::View::from_json_bytes(bytes, crate::Seed::DEFAULT) {
                Err(Error::InvalidJson { line: 1, column: c }) => {
                    assert_eq!(c, column, "{bytes:?}")
                }
                other => panic!("{bytes:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let all: String = (0u32..0x80)
            .filter_map(char::from_u32)
            .chain(['é', '\u{2028}'])
            .collect();
        let mut ours = String::new();
        write_string(&mut ours, &all);
        assert_eq!(ours, serde_json::to_string(&all).unwrap());
    }
}
