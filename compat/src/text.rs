//! How incumbents that hash text turn bytes into text.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// Python's `repr()` of a `bytes` object (CPython `bytes_repr`): what an f-string makes of a
/// bytes key, and so what pymemcache hashes for one.
pub(crate) fn python_bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote as char);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\x");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out.push(quote as char);
    out
}

/// The text pymemcache formats for an id or key given as bytes: the bytes themselves when they
/// are UTF-8 (a `str`), Python's `repr()` otherwise (a `bytes` object).
pub(crate) fn pymemcache_text(bytes: &[u8]) -> Cow<'_, str> {
    match core::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(python_bytes_repr(bytes)),
    }
}

/// Low byte of each code point of `text`: what pymemcache's pure-Python murmur3 reads.
pub(crate) fn low_bytes(text: &str, out: &mut Vec<u8>) {
    if text.is_ascii() {
        out.extend_from_slice(text.as_bytes());
    } else {
        out.extend(text.chars().map(|c| c as u32 as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_repr_matches_cpython() {
        // Each expected text is what CPython 3 prints for repr() of the bytes.
        assert_eq!(python_bytes_repr(b"abc"), "b'abc'");
        assert_eq!(python_bytes_repr(b""), "b''");
        assert_eq!(python_bytes_repr(b"\xff\x00\x7f"), "b'\\xff\\x00\\x7f'");
        assert_eq!(python_bytes_repr(b"it's"), "b\"it's\"");
        assert_eq!(python_bytes_repr(b"'\""), "b'\\'\"'");
        assert_eq!(python_bytes_repr(b"\\\t\n\r"), "b'\\\\\\t\\n\\r'");
    }

    #[test]
    fn low_bytes_keep_one_byte_per_code_point() {
        let mut v = Vec::new();
        low_bytes("a\u{e9}\u{1f600}", &mut v);
        assert_eq!(v, [b'a', 0xe9, 0x00]);
    }
}
