//! Dammer: an engine for international draughts (10x10, FMJD rules).
//!
//! The library is built in floors, each importing only the floors below it:
//!
//! - [`base`]: a random number generator, a clock, what the host supplies,
//!   a checksum, a duration formatter.
//! - [`rules`]: board, positions, moves, move generation, the game record
//!   and its draw rules, notation, PDN, openings, perft.
//! - [`engine`]: score scale, evaluation, transposition table, search,
//!   threads, time management, endgame tables, and the [`Engine`] facade.
//! - [`hub`], [`dxp`] and [`cli`]: the front ends, the Hub protocol for
//!   GUIs, DXP for engine tournaments and the command line for people;
//!   `web`, the exports of the browser build (WebAssembly only).
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
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub mod web;
