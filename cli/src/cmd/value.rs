//! Typed values of flags. A value that does not parse is still the contract error it always was
//! (`error[InvalidCount]: --k -1 is negative`): clap keeps the tool's error as the source of its
//! own, and `main` reports it like every other error.

use std::ffi::OsStr;
use std::fmt;

use clap::builder::TypedValueParser;

use crate::error::CliError;

/// A flag value that its parser rejected, carried through clap.
#[derive(Debug)]
pub struct Rejected(pub CliError);

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Rejected {}

/// A value parser from a function of the text and the flag's name (`--k`), so that its errors
/// name the flag.
#[derive(Clone)]
pub struct Typed<T>(pub fn(&str, &str) -> Result<T, CliError>);

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Typed<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg
            .and_then(clap::Arg::get_long)
            .map_or_else(String::new, |l| format!("--{l}"));
        let parse = self.0;
        let with_flag = move |text: &str| parse(text, &flag).map_err(Rejected);
        with_flag.parse_ref(cmd, arg, value)
    }
}

/// A count (`--keys`, `--add`, ...): decimal digits.
pub const COUNT: Typed<u64> = Typed(crate::input::parse_count);
/// A count that sizes something in memory (`--k`, `--nodes N`, ...).
pub const SIZE: Typed<usize> = Typed(crate::input::parse_usize);
/// `--max-move`: a percentage or a fraction.
pub const MOVE_LIMIT: Typed<f64> = Typed(parse_limit);
/// `--overload-ppm`: parts per million, at most `u32::MAX`.
pub const PPM: Typed<u32> = Typed(parse_ppm);

/// `5%` -> 0.05, `0.05` -> 0.05; the range is the core's to check, as in every language.
pub fn parse_limit(text: &str, flag: &str) -> Result<f64, CliError> {
    let bad = || {
        CliError::Usage(format!(
            "{flag}: '{text}' is not a percentage or a fraction"
        ))
    };
    match text.trim().strip_suffix('%') {
        Some(p) => p
            .trim()
            .parse::<f64>()
            .map(|p| p / 100.0)
            .map_err(|_| bad()),
        None => text.trim().parse::<f64>().map_err(|_| bad()),
    }
}

pub fn parse_ppm(text: &str, flag: &str) -> Result<u32, CliError> {
    let p = crate::input::parse_count(text, flag)?;
    u32::try_from(p).map_err(|_| {
        CliError::usage(
            "InvalidCount",
            format!("{flag} {p} is above the largest bound, 4294967295"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_as_percentages_or_fractions() {
        assert_eq!(parse_limit("5%", "--max-move").unwrap(), 0.05);
        assert_eq!(parse_limit(" 12.5 % ", "--max-move").unwrap(), 0.125);
        assert_eq!(parse_limit("0.05", "--max-move").unwrap(), 0.05);
        assert_eq!(parse_limit("-1", "--max-move").unwrap(), -1.0);
        assert!(parse_limit("five", "--max-move").is_err());
        assert!(parse_limit("%", "--max-move").is_err());
    }
}
