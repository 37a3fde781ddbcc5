//! The engine: score scale, evaluation, transposition table, search,
//! threads, time management, endgame-table probing, the opening book and the [`Engine`]
//! facade that owns them. Imports [`crate::rules`] (and [`crate::base`])
//! only, and never prints: progress and results go to callbacks.

pub mod book;
pub(crate) mod control;
pub mod egdb;
pub mod eval;
mod facade;
pub mod options;
pub mod score;
pub mod search;
pub mod strength;
pub(crate) mod threads;
pub mod time;
pub(crate) mod tt;

pub use facade::{Engine, OnDone, OnInfo, SearchResult};
pub use options::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
pub use search::{Info, Line};
pub use time::{Clock, Limits};
