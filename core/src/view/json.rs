//! The JSON tree a view is read from. `serde_json` does the parsing; this tree differs from
//! `serde_json::Value` only in keeping every member of an object in document order, repeats
//! included, so that a repeated member is an error instead of silently replacing the first.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::Error;

pub(super) enum Json {
    /// `null`, `true` or `false`: no member of a view has these types.
    Literal,
    /// Every number as the binary64 nearest to it (serde_json's `float_roundtrip` parsing).
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

pub(super) fn parse(bytes: &[u8]) -> Result<Json, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::InvalidJson {
        line: e.line(),
        column: e.column(),
    })
}

/// Appends `text` as a JSON string: `"` and `\` escaped with a backslash, U+0008, U+0009, U+000A,
/// U+000C and U+000D as `\b \t \n \f \r`, the other characters below U+0020 as `\u00xx`
/// (lowercase hex), everything else as itself.
pub(super) fn write_string(out: &mut String, text: &str) {
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

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Literal)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Json, E> {
        Ok(Json::Literal)
    }
    // Integer casts to f64 round to nearest, ties to even: the same binary64 as parsing the digits.
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            members.push((k, v));
        }
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_members_are_kept() {
        let Json::Object(m) = parse(br#"{"a": 1, "a": [true, null, "x"]}"#).ok().unwrap() else {
            panic!("an object");
        };
        assert_eq!(m.len(), 2);
        assert!(matches!(&m[1].1, Json::Array(v) if v.len() == 3));
    }

    #[test]
    fn syntax_errors_have_a_position() {
        for (text, line, column) in [
            ("{\"a\": 1} x", 1, 10),
            ("{\n  \"a\": }", 2, 8),
            ("[1e400]", 1, 6),
            ("\"\\ud800\"", 1, 8),
        ] {
            match parse(text.as_bytes()) {
                Err(Error::InvalidJson { line: l, column: c }) => {
                    assert_eq!((l, c), (line, column), "{text}")
                }
                _ => panic!("{text} must fail"),
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
