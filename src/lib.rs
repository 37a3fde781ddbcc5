//! Dammer: an engine for international draughts (10x10, FMJD rules).
//!
//! The library is built in floors, each importing only the floors below it:
//!
//! - [`base`]: a random number generator, a checksum, a duration formatter.
//! - [`rules`]: board, positions, moves, move generation, the game record
//!   and its draw rules, notation, PDN, openings, perft.
//! - [`engine`]: score scale, evaluation, transposition table, search,
//!   threads, time management, endgame tables, and the [`Engine`] facade.
//! - [`hub`], [`dxp`] and [`cli`]: the front ends, the Hub protocol for
//!   GUIs, DXP for engine tournaments and the command line for people.
//! - [`tools`]: match runner, self-play, tuner, table generator, bench.
//!
//! The binary only parses the command line and dispatches to these.

#![warn(missing_docs)]

pub mod base;
pub mod cli;
pub mod dxp;
pub mod engine;
pub mod hub;
pub mod rules;
pub mod tools;
