//! The engine's quantities and their one validation: every front end (the
//! command line, the Hub protocol) and every tool reads threads, hash size
//! and depth through these functions, so each has one range and one message.

use std::fmt;

use crate::engine::search::MAX_DEPTH;

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
/// Largest transposition table accepted, in MiB.
pub const MAX_HASH_MB: usize = 1 << 16;
/// Most search threads accepted.
pub const MAX_THREADS: usize = 256;

/// A value outside its range, or no number at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// Not an integer.
    NotAnInteger {
        /// The quantity.
        name: &'static str,
        /// What was given.
        given: String,
    },
    /// An integer outside `min..=max`.
    OutOfRange {
        /// The quantity.
        name: &'static str,
        /// Smallest value accepted.
        min: u64,
        /// Largest value accepted.
        max: u64,
        /// What was given.
        given: u64,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::NotAnInteger { name, given } => {
                write!(f, "{name} must be an integer, not {given:?}")
            }
            OptionError::OutOfRange { name, min, max, given } => {
                write!(f, "{name} must be between {min} and {max}, not {given}")
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// Reads an integer `name` in `min..=max`.
pub fn integer(name: &'static str, text: &str, min: u64, max: u64) -> Result<u64, OptionError> {
    let given: u64 =
        text.trim().parse().map_err(|_| OptionError::NotAnInteger { name, given: text.to_string() })?;
    if given < min || given > max {
        return Err(OptionError::OutOfRange { name, min, max, given });
    }
    Ok(given)
}

/// Search threads: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, OptionError> {
    integer("threads", text, 1, MAX_THREADS as u64).map(|n| n as usize)
}

/// Transposition table size in MiB: 1 to [`MAX_HASH_MB`].
pub fn hash_mb(text: &str) -> Result<usize, OptionError> {
    integer("hash", text, 1, MAX_HASH_MB as u64).map(|n| n as usize)
}

/// Search depth in plies: 1 to [`MAX_DEPTH`].
pub fn depth(text: &str) -> Result<u32, OptionError> {
    integer("depth", text, 1, u64::from(MAX_DEPTH)).map(|n| n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_range_one_message() {
        assert_eq!(threads("4"), Ok(4));
        assert_eq!(threads(&MAX_THREADS.to_string()), Ok(MAX_THREADS));
        assert_eq!(threads("0").unwrap_err().to_string(), "threads must be between 1 and 256, not 0");
        assert_eq!(threads("257").unwrap_err().to_string(), "threads must be between 1 and 256, not 257");
        assert_eq!(hash_mb("lots").unwrap_err().to_string(), "hash must be an integer, not \"lots\"");
        assert!(hash_mb("65537").is_err() && hash_mb("65536").is_ok());
        assert!(depth("0").is_err() && depth("100").is_ok() && depth("101").is_err());
    }
}
