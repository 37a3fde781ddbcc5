//! Dammer: an engine for international draughts (10x10, FMJD rules).
//!
//! The library holds everything protocol-neutral: the board ([`bitboard`],
//! [`position`]), the rules ([`movegen`], [`game`]), move notation
//! ([`notation`]) and [`perft`]. The binary only parses the command line and
//! writes results.

#![warn(missing_docs)]

pub mod bench;
pub mod bitboard;
pub mod egdb;
pub mod engine;
pub mod eval;
pub mod game;
pub mod hub;
pub mod interrupt;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod search;
pub mod selfplay;
pub mod threads;
pub mod timeman;
pub mod tournament;
pub mod tt;
pub mod tune;
