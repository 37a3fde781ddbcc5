//! The rules of international draughts (FMJD) and the variants that share
//! its moves ([`variant`]): the board, positions, moves and their
//! generation, the game record with its draw rules, notation, PDN, openings
//! and perft. This floor imports nothing of the crate but [`crate::base`]: a GUI
//! or a tool that only needs the rules needs only this.

pub mod bitboard;
pub mod frisian;
pub mod game;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod openings;
pub mod pdn;
pub mod perft;
pub mod position;
pub mod variant;
