//! The engine's quantities and their one validation: every front end (the
//! command line, the Hub protocol) and every tool reads times, depths,
//! node counts, threads, hash size and game counts through these functions,
//! so each has one range and one message.
//!
//! Times saturate: a number of seconds beyond [`MAX_SECONDS`] (a GUI's
//! "untimed" clock of 1e21 seconds, or `inf`) means "forever", never an
//! overflow.

use std::fmt;
use std::time::Duration;

use crate::engine::search::MAX_DEPTH;
// Times belong to the time manager; they are read here.
pub use crate::engine::time::{saturating_duration, MAX_SECONDS};

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
/// Largest transposition table accepted, in MiB (also bounded by the
/// machine's memory, see [`hash_mb`]): 64 GiB, or 1 GiB where addresses
/// have 32 bits (a browser's WebAssembly, 4 GiB at most in all).
pub const MAX_HASH_MB: usize = if cfg!(target_pointer_width = "32") { 1 << 10 } else { 1 << 16 };
/// Most search threads accepted: one where the host lends the engine its
/// one thread (a browser's worker, [`crate::base::host::HOSTED`]).
pub const MAX_THREADS: usize = if crate::base::host::HOSTED { 1 } else { 256 };
/// Deepest perft accepted: perft 20 of the start position is far beyond any
/// machine already, so deeper requests are mistakes, not patience.
pub const MAX_PERFT_DEPTH: u32 = 20;
/// Default time kept back on every move for what the GUI charges beyond
/// the engine's own thinking (GWDGUI charges about 40 ms a move), in ms;
/// the Hub front end keeps back less once the GUI's clocks show it charges less.
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 100;
/// Largest move overhead accepted, in ms.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 10_000;
/// Most games one command schedules.
pub const MAX_GAMES: u64 = 10_000_000;
/// Most games played at once by the match runner.
pub const MAX_CONCURRENCY: u64 = 256;

/// A value outside its range, or no number at all.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    /// Not an integer.
    NotAnInteger {
        /// The quantity.
        name: &'static str,
        /// What was given.
        given: String,
    },
    /// Not a number of seconds.
    NotSeconds {
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
        given: i128,
    },
    /// A time below its least value.
    TooShort {
        /// The quantity.
        name: &'static str,
        /// Whether zero itself is accepted.
        zero_ok: bool,
        /// What was given.
        given: f64,
    },
    /// A table larger than this machine can hold.
    MoreThanMemory {
        /// What was given, MiB.
        given: u64,
        /// The machine's memory, MiB.
        memory: u64,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::NotAnInteger { name, given } => {
                write!(f, "{name} must be an integer, not {given:?}")
            }
            OptionError::NotSeconds { name, given } => {
                write!(f, "{name} must be a number of seconds, not {given:?}")
            }
            OptionError::OutOfRange { name, min, max, given } => {
                write!(f, "{name} must be between {min} and {max}, not {given}")
            }
            OptionError::TooShort { name, zero_ok: true, given } => {
                write!(f, "{name} must be 0 seconds or more, not {given}")
            }
            OptionError::TooShort { name, zero_ok: false, given } => {
                write!(f, "{name} must be more than 0 seconds, not {given}")
            }
            OptionError::MoreThanMemory { given, memory } => write!(
                f,
                "hash {given} MiB is more than half of this machine's memory ({memory} MiB); at most {} MiB",
                memory / 2
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// Reads an integer `name` in `min..=max`.
pub fn integer(name: &'static str, text: &str, min: u64, max: u64) -> Result<u64, OptionError> {
    let given: i128 =
        text.trim().parse().map_err(|_| OptionError::NotAnInteger { name, given: text.to_string() })?;
    if given < i128::from(min) || given > i128::from(max) {
        return Err(OptionError::OutOfRange { name, min, max, given });
    }
    Ok(given as u64)
}

/// Search threads: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, OptionError> {
    integer("threads", text, 1, MAX_THREADS as u64).map(|n| n as usize)
}

/// Transposition table size in MiB: 1 to [`MAX_HASH_MB`], and at most half
/// of the machine's memory (the table is zero-filled, so all of it is
/// really taken, and the rest of the system must live beside it).
pub fn hash_mb(text: &str) -> Result<usize, OptionError> {
    let mb = integer("hash", text, 1, MAX_HASH_MB as u64)?;
    match memory_mb() {
        Some(memory) if mb > (memory / 2).max(1) => Err(OptionError::MoreThanMemory { given: mb, memory }),
        _ => Ok(mb as usize),
    }
}

/// The machine's installed memory in MiB, where the system says.
pub(crate) fn memory_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Search depth in plies: 1 to [`MAX_DEPTH`].
pub fn depth(text: &str) -> Result<u32, OptionError> {
    integer("depth", text, 1, u64::from(MAX_DEPTH)).map(|n| n as u32)
}

/// Most lines of a multi-PV search (more than any position's legal moves
/// in a real game; a position with fewer moves shows them all).
pub const MAX_MULTIPV: usize = 100;

/// Lines of a multi-PV search: 1 to [`MAX_MULTIPV`].
pub fn multipv(text: &str) -> Result<usize, OptionError> {
    integer("multipv", text, 1, MAX_MULTIPV as u64).map(|n| n as usize)
}

/// Perft depth in plies: 0 to [`MAX_PERFT_DEPTH`].
pub fn perft_depth(text: &str) -> Result<u32, OptionError> {
    integer("depth", text, 0, u64::from(MAX_PERFT_DEPTH)).map(|n| n as u32)
}

/// A node budget: at least 1.
pub fn nodes(text: &str) -> Result<u64, OptionError> {
    integer("nodes", text, 1, u64::MAX)
}

/// A weakening for people: 0 (none) to [`crate::engine::time::MAX_HANDICAP`].
pub fn handicap(text: &str) -> Result<u8, OptionError> {
    integer("handicap", text, 0, u64::from(crate::engine::time::MAX_HANDICAP)).map(|n| n as u8)
}

/// A strength level for people: 0 (full strength) to
/// [`crate::engine::strength::MAX_STRENGTH`].
pub fn strength(text: &str) -> Result<u8, OptionError> {
    integer("strength", text, 0, u64::from(crate::engine::strength::MAX_STRENGTH)).map(|n| n as u8)
}

/// The deepest ply a search may reach: 1 to [`MAX_DEPTH`].
pub fn ply(text: &str) -> Result<u32, OptionError> {
    integer("ply", text, 1, u64::from(MAX_DEPTH)).map(|n| n as u32)
}

/// A number of games: 1 to [`MAX_GAMES`].
pub fn games(text: &str) -> Result<u64, OptionError> {
    integer("games", text, 1, MAX_GAMES)
}

/// Games played at once: 1 to [`MAX_CONCURRENCY`].
pub fn concurrency(text: &str) -> Result<usize, OptionError> {
    integer("concurrency", text, 1, MAX_CONCURRENCY).map(|n| n as usize)
}

/// A latency in milliseconds (`75` or `75ms`): 0 to [`MAX_MOVE_OVERHEAD_MS`].
pub fn milliseconds(name: &'static str, text: &str) -> Result<Duration, OptionError> {
    let number = text.trim().strip_suffix("ms").unwrap_or(text);
    integer(name, number, 0, MAX_MOVE_OVERHEAD_MS).map(Duration::from_millis)
}

/// The time charged on every move beyond the engine's thinking, in ms.
pub fn move_overhead(text: &str) -> Result<Duration, OptionError> {
    milliseconds("move-overhead", text)
}

/// Reads a number of seconds (`inf` and anything beyond [`MAX_SECONDS`]
/// saturate to it); NaN and text are refused.
fn number_of_seconds(name: &'static str, text: &str) -> Result<f64, OptionError> {
    match text.trim().parse::<f64>() {
        Ok(x) if !x.is_nan() => Ok(x.clamp(-MAX_SECONDS, MAX_SECONDS)),
        _ => Err(OptionError::NotSeconds { name, given: text.to_string() }),
    }
}

/// A time to think (a move time, a search's time): more than 0 seconds.
pub fn think_time(name: &'static str, text: &str) -> Result<Duration, OptionError> {
    let secs = number_of_seconds(name, text)?;
    if secs <= 0.0 {
        return Err(OptionError::TooShort { name, zero_ok: false, given: secs });
    }
    Ok(saturating_duration(secs))
}

/// A time that may be zero (an increment, a margin): 0 seconds or more.
pub fn seconds(name: &'static str, text: &str) -> Result<f64, OptionError> {
    let secs = number_of_seconds(name, text)?;
    if secs < 0.0 {
        return Err(OptionError::TooShort { name, zero_ok: true, given: secs });
    }
    Ok(secs)
}

/// The time left on a clock, as a GUI reports it: any number of seconds
/// (a clock past zero is negative), saturating at +-[`MAX_SECONDS`].
pub fn clock_seconds(name: &'static str, text: &str) -> Result<f64, OptionError> {
    number_of_seconds(name, text)
}

/// `--time` on the command line.
pub fn time_arg(text: &str) -> Result<Duration, OptionError> {
    think_time("time", text)
}

/// `--movetime` on the command line.
pub fn movetime_arg(text: &str) -> Result<Duration, OptionError> {
    think_time("movetime", text)
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
        assert!(hash_mb("65537").is_err() && hash_mb("1").is_ok());
        assert!(depth("0").is_err() && depth("100").is_ok() && depth("101").is_err());
        assert_eq!(depth("-5").unwrap_err().to_string(), "depth must be between 1 and 100, not -5");
        assert!(perft_depth("0").is_ok() && perft_depth("1000").is_err());
        assert!(nodes("0").is_err() && nodes("18446744073709551615").is_ok());
        assert!(games("0").is_err() && concurrency("257").is_err());
        assert_eq!(move_overhead("75"), Ok(Duration::from_millis(75)));
        assert!(move_overhead("-1").is_err());
        assert_eq!(milliseconds("gui-overhead", "100ms"), Ok(Duration::from_millis(100)));
    }

    #[test]
    fn times_saturate_and_refuse_nonsense() {
        assert_eq!(think_time("t", "1e21"), Ok(Duration::from_secs_f64(MAX_SECONDS)));
        assert_eq!(think_time("t", "inf"), Ok(Duration::from_secs_f64(MAX_SECONDS)));
        assert_eq!(think_time("t", "0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(think_time("t", "-1").unwrap_err().to_string(), "t must be more than 0 seconds, not -1");
        assert!(think_time("t", "0").is_err() && think_time("t", "NaN").is_err());
        assert_eq!(
            think_time("t", "soon").unwrap_err().to_string(),
            "t must be a number of seconds, not \"soon\""
        );
        assert_eq!(seconds("inc", "1e300"), Ok(MAX_SECONDS));
        assert!(seconds("inc", "0").is_ok() && seconds("inc", "-0.5").is_err());
        assert_eq!(clock_seconds("time", "-3"), Ok(-3.0));
        assert_eq!(clock_seconds("time", "-inf"), Ok(-MAX_SECONDS));
        assert_eq!(saturating_duration(f64::INFINITY), Duration::from_secs_f64(MAX_SECONDS));
        assert_eq!(saturating_duration(-1.0), Duration::ZERO);
    }

    #[test]
    fn hash_is_bounded_by_memory() {
        if let Some(memory) = memory_mb() {
            let too_much = (memory / 2 + 1).min(MAX_HASH_MB as u64);
            if too_much > memory / 2 {
                let e = hash_mb(&too_much.to_string()).unwrap_err();
                assert!(e.to_string().contains("machine's memory"), "{e}");
            }
        }
    }
}
