//! The command line for people: analysis of a position, showing a
//! position and its moves, perft. A front end beside the Hub one: it drives
//! the rules and the engine facade and prints what they return.

pub mod analyse;
pub mod board;
pub mod show;

use crate::engine::egdb::{self, Pieces, Tables};
use crate::rules::position::Position;

/// A position, given either way every command takes it: as the argument
/// (`dammer show "W:W31-50:B1-20"`) or with `--fen`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PositionArgs {
    /// Position as FEN or Hub string (where a command can do without it:
    /// the initial position).
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
    /// The position as an option instead of the argument.
    #[arg(long, value_name = "POSITION", conflicts_with = "position")]
    pub fen: Option<String>,
}

impl PositionArgs {
    /// The position's text, if one was given.
    pub fn given(&self) -> Option<&str> {
        self.position.as_deref().or(self.fen.as_deref())
    }

    /// The position's text; the initial position when none was given.
    pub fn text(&self) -> &str {
        self.given().unwrap_or(crate::rules::position::START_FEN)
    }
}

/// Which evaluation to use.
#[derive(clap::Args, Debug, Clone)]
pub struct EvalArgs {
    /// `learned` (the strongest learned evaluation), `nn` (the neural
    /// network), `hybrid` (the network plus a region term: --weights names
    /// the term), `regions` (12-square patterns), `windows` (4x4 patterns),
    /// `hand` (the hand-written one) or `pst` (material and the men's rows:
    /// weak on purpose).
    #[arg(long, default_value = crate::engine::eval::DEFAULT_EVAL)]
    pub eval: String,
    /// A weights file for the learned evaluation (default: the embedded one);
    /// a network plays the game its file names (`dammer tune` writes the
    /// game of its data), the embedded networks the others.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
}

impl EvalArgs {
    /// The evaluation the arguments select.
    pub fn evaluation(&self) -> Result<crate::engine::eval::Evaluation, String> {
        let weights = self.weights.as_deref().map(crate::base::paths::resolve);
        crate::engine::eval::Evaluation::from_name(&self.eval, weights.as_deref())
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
        let opened = egdb::open(&crate::base::paths::resolve(dir), pieces).map_err(|e| e.to_string())?;
        for note in &opened.notes {
            eprintln!("dammer: {note}");
        }
        Ok(Some(opened.tables))
    }
}

/// The game a command's `--fen` and `--moves` give: the position, then the
/// moves (Hub or PDN, space-separated) played from it; or a message that
/// says which part is wrong.
pub fn game_from(fen: &str, moves: &str) -> Result<crate::rules::game::Game, String> {
    game_in(fen, moves, crate::rules::variant::Variant::Normal)
}

/// [`game_from`] by the rules of `variant`.
pub fn game_in(
    fen: &str,
    moves: &str,
    variant: crate::rules::variant::Variant,
) -> Result<crate::rules::game::Game, String> {
    let mut game = crate::rules::game::Game::from_text(fen)
        .map_err(|e| format!("bad position {fen:?}: {e}"))?
        .in_variant(variant);
    for text in moves.split_whitespace() {
        game.play_text(text).map_err(|e| e.to_string())?;
    }
    Ok(game)
}

/// A variant's name for clap: Scan's or lidraughts'.
pub fn variant(text: &str) -> Result<crate::rules::variant::Variant, String> {
    crate::rules::variant::Variant::from_name(text).map_err(|e| e.to_string())
}

/// A position from FEN or a Hub string, or a message that says why not.
pub fn parse_position(text: &str) -> Result<Position, String> {
    Position::parse(text).map_err(|e| format!("bad position {text:?}: {e}"))
}

/// Threads for a job that uses every core unless told otherwise.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The engine options of a command that plays games (threads, table
/// size, move overhead, evaluation, endgame tables, opening book), as
/// the Hub front end offers them as parameters.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = crate::engine::options::threads)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = crate::engine::options::DEFAULT_HASH_MB, value_parser = crate::engine::options::hash_mb)]
    pub hash: usize,
    /// Milliseconds each move costs beyond the engine's thinking (network,
    /// the peer's latency); kept back on the clock.
    #[arg(long, default_value = "100", value_parser = crate::engine::options::move_overhead)]
    pub move_overhead: std::time::Duration,
    /// The evaluation.
    #[command(flatten)]
    pub eval: EvalArgs,
    /// The endgame tables.
    #[command(flatten)]
    pub egdb: EgdbArgs,
    /// An opening book file (default: the embedded book).
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Play without an opening book.
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// Play any book move within this many hundredths of a man of the best.
    #[arg(long, default_value_t = crate::engine::book::DEFAULT_MARGIN, value_parser = clap::value_parser!(i32).range(0..=1000))]
    pub book_margin: i32,
}

impl EngineArgs {
    /// An engine set up as the arguments say. A book file that cannot be
    /// read is reported on stderr and the engine plays without a book.
    pub fn engine(&self) -> Result<crate::engine::Engine, String> {
        use crate::engine::book::{Book, BookPolicy};
        let mut engine = crate::engine::Engine::new(self.threads, self.hash);
        engine.set_evaluation(self.eval.evaluation()?);
        engine.set_egdb(self.egdb.tables()?.map(std::sync::Arc::new));
        engine.set_move_overhead(self.move_overhead);
        let book = match (&self.book, self.no_book) {
            (_, true) => None,
            (Some(path), false) => match Book::load(&crate::base::paths::resolve(path)) {
                Ok(b) => Some(b),
                Err(e) => {
                    eprintln!("dammer: book {}: {e}; playing without a book", path.display());
                    None
                }
            },
            (None, false) => Some(Book::embedded()),
        };
        let policy = BookPolicy { margin: self.book_margin, ..BookPolicy::default() };
        engine.set_book(book.map(std::sync::Arc::new), policy);
        Ok(engine)
    }
}
