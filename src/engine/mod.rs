//! The engine: score scale, evaluation, transposition table, search,
//! threads, time management, endgame-table probing, the opening book and the [`Engine`]
//! facade that owns them. Imports [`crate::rules`] (and [`crate::base`])
//! only, and never prints: progress and results go to callbacks.

pub mod book;
pub mod control;
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

pub use control::{Poll, SearchControl};
pub use facade::{Engine, OnDone, OnInfo, SearchResult};

/// The build's version: the crate's, with the embedded international
/// network as build metadata (`0.1.0+n7.1a2b3c4d`: its name, then the first
/// 32 bits of its checksum; `build.rs`). What `dammer --version` and the
/// Hub `id` line say.
pub const VERSION: &str = env!("DAMMER_VERSION");
/// The embedded international network: its name and checksum (`n7.1a2b3c4d`).
pub const NETWORK: &str = env!("DAMMER_NETWORK");
pub use options::{DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
pub use search::{Info, Line};
pub use time::{Clock, Limits};

#[cfg(test)]
mod tests {
    /// `build.rs` names the network the binary embeds, not another file.
    #[test]
    fn the_version_names_the_embedded_network() {
        let (_, sum) = super::NETWORK.rsplit_once('.').unwrap();
        let expected = crate::base::checksum::fnv1a(crate::engine::eval::nn::EMBEDDED) >> 32;
        assert_eq!(sum, format!("{expected:08x}"));
        assert!(super::VERSION.ends_with(super::NETWORK));
        assert!(super::VERSION.starts_with(env!("CARGO_PKG_VERSION")));
    }
}
