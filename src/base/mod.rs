//! Small pieces every floor may use: one random number generator, one
//! clock (the host's in a browser), what the host supplies (a browser's
//! worker, or the system), one checksum, one duration formatter, one
//! bounded line reader, where a named file is looked for. Imports nothing
//! of the crate.

pub mod checksum;
pub mod clock;
pub mod duration;
pub mod host;
pub mod lines;
pub mod paths;
pub mod rng;
