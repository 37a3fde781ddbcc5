//! The engine: score scale, evaluation, transposition table, search,
//! threads, time management, endgame-table probing and the [`Engine`]
//! facade that owns them. Imports [`crate::rules`] (and [`crate::base`])
//! only, and never prints: progress and results go to callbacks.

pub mod egdb;
pub mod eval;
mod facade;
pub mod score;
pub mod search;
pub mod threads;
pub mod time;
pub mod tt;

pub use facade::{Engine, SearchResult, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
