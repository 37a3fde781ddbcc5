//! The command line for people: analysis of a position, showing a
//! position and its moves, perft. A front end beside the Hub one: it drives
//! the rules and the engine facade and prints what they return.

pub mod analyse;
pub mod show;

use crate::engine::egdb::{self, Pieces, Tables};
use crate::rules::position::Position;

/// Which evaluation to use.
#[derive(clap::Args, Debug, Clone)]
pub struct EvalArgs {
    /// `learned` (the strongest learned evaluation), `regions` (12-square
    /// patterns), `windows` (4x4 patterns) or `hand` (the hand-written one).
    #[arg(long, default_value = crate::engine::eval::DEFAULT_EVAL)]
    pub eval: String,
    /// A weights file for the learned evaluation (default: the embedded one).
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
}

impl EvalArgs {
    /// The evaluation the arguments select.
    pub fn evaluation(&self) -> Result<crate::engine::eval::Evaluation, String> {
        crate::engine::eval::Evaluation::from_name(&self.eval, self.weights.as_deref())
    }
}

/// Endgame tables for a search.
#[derive(clap::Args, Debug, Clone)]
pub struct EgdbArgs {
    /// Directory of endgame tables to probe (see `dammer egdb generate`).
    #[arg(long)]
    pub egdb: Option<std::path::PathBuf>,
    /// Most pieces to probe the tables for (default: every complete piece count).
    #[arg(long)]
    pub egdb_pieces: Option<usize>,
}

impl EgdbArgs {
    /// The tables the arguments name, loaded by the engine's one policy
    /// (every complete piece count, or exactly `--egdb-pieces`); `None`
    /// without `--egdb`. A shortfall is said on stderr.
    pub fn tables(&self) -> Result<Option<Tables>, String> {
        let Some(dir) = &self.egdb else {
            return match self.egdb_pieces {
                Some(_) => Err("--egdb-pieces needs --egdb DIR".into()),
                None => Ok(None),
            };
        };
        let pieces = match self.egdb_pieces {
            Some(n) => Pieces::Exactly(n),
            None => Pieces::UpTo(egdb::MAX_PIECES),
        };
        let opened = egdb::open(dir, pieces).map_err(|e| e.to_string())?;
        if let Some(note) = opened.note {
            eprintln!("dammer: {note}");
        }
        Ok(Some(opened.tables))
    }
}

/// A position from FEN or a Hub string, or a message that says why not.
pub fn parse_position(text: &str) -> Result<Position, String> {
    Position::parse(text).map_err(|e| format!("bad position {text:?}: {e}"))
}

/// Threads for a job that uses every core unless told otherwise.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
