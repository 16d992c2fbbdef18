//! `hrwhash place`: the owner, or the first k nodes of the ranking, of each key.

use std::io::Write;

use hrwhash::Placement;
use serde_json::json;

use crate::error::CliError;
use crate::input::text;

/// Prints placements as keys arrive, so stdin of any length streams through.
pub struct Printer<'a> {
    placement: &'a Placement,
    k: usize,
    as_json: bool,
    printed: u64,
    out: &'a mut dyn Write,
}

impl<'a> Printer<'a> {
    pub fn new(placement: &'a Placement, k: usize, as_json: bool, out: &'a mut dyn Write) -> Self {
        Printer {
            placement,
            k,
            as_json,
            printed: 0,
            out,
        }
    }

    pub fn key(&mut self, key: &[u8]) -> Result<(), CliError> {
        let rank: Vec<String> = self
            .placement
            .rank(key, self.k)
            .iter()
            .map(|n| text(n.id()))
            .collect();
        if self.as_json {
            let item = json!({ "key": text(key), "owner": rank[0], "rank": rank });
            let sep = if self.printed == 0 { "[\n  " } else { ",\n  " };
            write!(self.out, "{sep}{item}")?;
        } else {
            writeln!(self.out, "{}\t{}", text(key), rank.join(","))?;
        }
        self.printed += 1;
        Ok(())
    }

    pub fn finish(self) -> Result<(), CliError> {
        if self.as_json {
            let close = if self.printed == 0 { "[]\n" } else { "\n]\n" };
            self.out.write_all(close.as_bytes())?;
        }
        Ok(())
    }
}
