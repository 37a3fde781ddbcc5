//! Small pieces every floor may use: one random number generator, one
//! checksum, one duration formatter. Imports nothing of the crate.

pub mod checksum;
pub mod duration;
pub mod rng;
