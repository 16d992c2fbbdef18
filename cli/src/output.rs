//! Writing keys and ids so that no output names a key that does not exist: text output escapes
//! what would break its lines and columns, and JSON writes bytes that are not UTF-8 as hex.

use serde_json::{Map, Value};

/// A key or id in text output: UTF-8 text as it is, except that `\` is written `\\`, tab, newline
/// and carriage return `\t`, `\n` and `\r`, other control characters and every byte that is not
/// part of valid UTF-8 `\xHH`. Distinct byte strings always give distinct text.
pub fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// A key or id for a terminal or a chart: the text when it is UTF-8, otherwise `0x` and hex.
pub fn show(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => format!("0x{}", hex(bytes)),
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Sets `name` to the text when `bytes` are UTF-8, else `<name>_hex` to their hex (the project's
/// lossless-text convention).
pub fn put_text(object: &mut Map<String, Value>, name: &str, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => object.insert(name.to_string(), Value::from(text)),
        Err(_) => object.insert(format!("{name}_hex"), Value::from(hex(bytes))),
    };
}

/// One flow of a diff: `count` keys move from node `from` to node `to`.
pub fn flow_json(from: &[u8], to: &[u8], count: u64) -> Map<String, Value> {
    let mut m = Map::new();
    put_text(&mut m, "from", from);
    put_text(&mut m, "to", to);
    m.insert("count".into(), Value::from(count));
    m
}

/// One node of a diff: the keys it owns before and after (null where it is not a member).
pub fn node_keys_json(id: &[u8], before: Option<u64>, after: Option<u64>) -> Map<String, Value> {
    let mut m = Map::new();
    put_text(&mut m, "id", id);
    m.insert("before".into(), Value::from(before));
    m.insert("after".into(), Value::from(after));
    m
}

/// A key, id or domain as an element of a JSON list: a string when it is UTF-8, else
/// `{"<name>_hex": ...}`.
pub fn text_item(name: &str, bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(text) => Value::from(text),
        Err(_) => {
            let mut object = Map::new();
            put_text(&mut object, name, bytes);
            Value::Object(object)
        }
    }
}

/// A JSON document, pretty-printed, on its own lines.
pub fn json_doc(doc: &Value, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(doc).unwrap_or_default()
    )
}

/// Whether standard output was closed when the process started. The Rust runtime reopens a closed
/// descriptor 1 on /dev/null before `main`, after which every write succeeds and the output would
/// vanish with exit status 0; a constructor that runs before the runtime records the truth.
pub fn stdout_was_closed() -> bool {
    #[cfg(target_os = "linux")]
    {
        closed_at_start::STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(target_os = "linux")]
mod closed_at_start {
    use std::sync::atomic::{AtomicBool, Ordering};

    pub static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" fn record() {
        // SAFETY: F_GETFD only queries the descriptor table; it has no memory arguments.
        let closed = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, Ordering::Relaxed);
    }

    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_is_reversible_on_tricky_bytes() {
        assert_eq!(escaped(b"a\tb\nc\\d\r"), "a\\tb\\nc\\\\d\\r");
        assert_eq!(escaped(b"\xff\xfe ok \x01"), "\\xff\\xfe ok \\x01");
        assert_eq!(escaped("é".as_bytes()), "é");
        // A literal backslash-x in a key cannot be confused with an escaped byte.
        assert_ne!(escaped(b"\\xff"), escaped(b"\xff"));
    }
}
