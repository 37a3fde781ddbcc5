//! The engine facade that every front end uses: set up a game, give limits,
//! search, and receive progress through a callback and a final result.
//!
//! It owns the transposition table and the Lazy SMP thread pool. The
//! facade is protocol-neutral: it never prints.

use std::time::{Duration, Instant};

use std::sync::Arc;

use crate::engine::egdb::{Tables, Wdl};
use crate::engine::eval::Evaluation;
use crate::engine::score::{Score, TB_WIN, WIN, WIN_BAND};
use crate::engine::search::{EgdbMode, Info, RootResult, SearchControl, Searcher, Shared, Timer, MAX_DEPTH};
use crate::engine::threads::ThreadPool;
use crate::engine::time::{budget, Limits};
use crate::engine::tt::TranspositionTable;
use crate::rules::game::Game;
use crate::rules::movegen::{legal_moves, Move};

/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
/// Largest transposition table accepted, in MiB.
pub const MAX_HASH_MB: usize = 1 << 16;
/// Most search threads accepted.
pub const MAX_THREADS: usize = 256;

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` only when the side to move has no legal move.
    pub best: Option<Move>,
    /// The reply the engine expects (for pondering).
    pub ponder: Option<Move>,
    /// Score for the side to move (see [`crate::engine::score`] for won scores).
    pub score: Score,
    /// Deepest completed iteration (0 when the move was played at once).
    pub depth: u32,
    /// Nodes searched over all threads.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
}

/// The engine: transposition table and threads.
#[derive(Debug)]
pub struct Engine {
    tt: TranspositionTable,
    /// The size asked for, which the table may have had to fall short of.
    hash_mb: usize,
    threads: ThreadPool,
    eval: Evaluation,
    egdb: Option<Arc<Tables>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(1, DEFAULT_HASH_MB)
    }
}

impl Engine {
    /// An engine with `threads` search threads and a `hash_mb` MiB table.
    pub fn new(threads: usize, hash_mb: usize) -> Engine {
        let hash_mb = hash_mb.clamp(1, MAX_HASH_MB);
        Engine {
            tt: TranspositionTable::new(hash_mb),
            hash_mb,
            threads: ThreadPool::new(threads.clamp(1, MAX_THREADS)),
            eval: Evaluation::default(),
            egdb: None,
        }
    }

    /// The evaluation searches use.
    pub fn evaluation(&self) -> &Evaluation {
        &self.eval
    }

    /// Changes the evaluation (between searches).
    pub fn set_evaluation(&mut self, eval: Evaluation) {
        self.eval = eval;
    }

    /// The endgame tables searches probe, if any.
    pub fn egdb(&self) -> Option<&Tables> {
        self.egdb.as_deref()
    }

    /// Sets (or, with `None`, drops) the endgame tables.
    pub fn set_egdb(&mut self, tables: Option<Arc<Tables>>) {
        self.egdb = tables.filter(|t| t.max_pieces() >= 2);
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Changes the number of search threads (between searches).
    pub fn set_threads(&mut self, n: usize) {
        let n = n.clamp(1, MAX_THREADS);
        if n != self.threads.len() {
            self.threads = ThreadPool::new(n);
        }
    }

    /// Transposition table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// Resizes (and so clears) the transposition table.
    pub fn set_hash_mb(&mut self, mb: usize) {
        let mb = mb.clamp(1, MAX_HASH_MB);
        if mb != self.hash_mb {
            // Free the old table first: two large ones may not fit together.
            self.tt = TranspositionTable::new(1);
            self.tt = TranspositionTable::new(mb);
            self.hash_mb = mb;
        }
    }

    /// Forgets everything learned from earlier searches (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// Searches the game's current position within `limits`, calling
    /// `on_info` with progress from the calling thread. Blocks until the
    /// search ends. `control` is how other threads stop it or signal a ponder
    /// hit, at any time, also before it starts; give every search a fresh one
    /// ([`SearchControl::default`]) so that a late request cannot reach the
    /// next search.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();

        let pos = *game.position();
        let legal = legal_moves(&pos);
        let quick = |best: Option<Move>, score| SearchResult {
            best,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            time: start.elapsed(),
            pv: best.into_iter().collect(),
        };
        if legal.is_empty() {
            return quick(None, -WIN);
        }
        if legal.len() == 1 && !limits.analysis && !limits.ponder {
            return quick(Some(legal.as_slice()[0]), self.eval.evaluate(&pos));
        }
        let men = (pos.men(crate::rules::position::Color::White)
            | pos.men(crate::rules::position::Color::Black))
        .count_ones();
        let budget = budget(limits, men);
        let max_depth = if budget.instant { 1 } else { limits.depth.unwrap_or(MAX_DEPTH).min(MAX_DEPTH) };
        self.tt.new_search();
        let (root_moves, root_wdl) = self.table_root_moves(&pos, &legal);
        if root_moves.len() == 1 && !limits.analysis && !limits.ponder {
            let score = match root_wdl {
                Some(Wdl::Win) => TB_WIN - 1,
                Some(Wdl::Loss) => -(TB_WIN - 1),
                _ => 0,
            };
            return quick(Some(root_moves[0]), score);
        }
        let egdb_mode = match root_wdl {
            Some(Wdl::Win | Wdl::Loss) => EgdbMode::DrawsOnly,
            _ => EgdbMode::Full,
        };
        let shared = Shared {
            tt: &self.tt,
            control,
            nodes: Default::default(),
            node_limit: limits.nodes,
            eval: &self.eval,
            egdb: self.egdb.as_deref(),
            egdb_mode,
            root_moves: &root_moves,
        };
        // A table win or loss at the root is reported in the database band
        // until the search finds the actual distance, except where a 16- or
        // 5-move rule may draw the game first (the tables ignore it).
        let counted = crate::rules::game::EndgameRule::of(&pos).is_some();
        let table_score = |score: Score| match root_wdl {
            Some(Wdl::Win) if score < WIN_BAND && !counted => TB_WIN - 1,
            Some(Wdl::Loss) if score > -WIN_BAND && !counted => -(TB_WIN - 1),
            _ => score,
        };
        let mut report = |info: &Info| {
            let mut info = info.clone();
            info.score = table_score(info.score);
            on_info(&info);
        };
        let on_info: &mut dyn FnMut(&Info) = &mut report;
        let history: Vec<u64> = game.positions().iter().map(|p| p.key()).collect();
        let state = game.state();
        let timer = Timer { start, budget, pondering: limits.ponder };
        let root: RootResult = self.threads.run(
            control,
            |id| {
                let mut s = Searcher::new(&shared, id, pos, &history, state);
                s.iterate(max_depth);
            },
            || {
                let mut s = Searcher::new(&shared, 0, pos, &history, state);
                s.set_main(timer, on_info);
                let r = s.iterate(max_depth);
                // Infinite analysis and pondering answer only when told to.
                if limits.infinite || limits.ponder {
                    while !(control.is_stopped()
                        || (limits.ponder && !limits.infinite && control.is_ponder_hit()))
                    {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                r
            },
        );
        let nodes = shared.nodes.load(std::sync::atomic::Ordering::Relaxed);
        SearchResult {
            best: root.best,
            ponder: root.pv.get(1).copied(),
            score: table_score(root.score),
            depth: root.depth,
            nodes,
            time: start.elapsed(),
            pv: root.pv,
        }
    }

    /// The root moves worth searching and the root's table value: with
    /// tables that cover the position, only the moves that keep its value
    /// (all of them when it is lost). Empty means every legal move.
    fn table_root_moves(
        &self,
        pos: &crate::rules::position::Position,
        legal: &crate::rules::movegen::MoveList,
    ) -> (Vec<Move>, Option<Wdl>) {
        let Some(tables) = self.egdb.as_deref() else {
            return (Vec::new(), None);
        };
        let Some(root) = tables.probe(pos) else {
            return (Vec::new(), None);
        };
        let mut keep = Vec::new();
        for m in legal.iter() {
            match tables.probe(&pos.make(m)).map(Wdl::flip) {
                Some(v) if v == root => keep.push(*m),
                // A move the tables cannot judge (never expected below the
                // table size) is kept rather than lost.
                None => keep.push(*m),
                _ => {}
            }
        }
        if keep.is_empty() {
            keep = legal.iter().copied().collect();
        }
        (keep, Some(root))
    }

    /// [`Engine::search`] with nobody to stop it but its limits.
    pub fn search_quietly(&mut self, game: &Game, limits: &Limits) -> SearchResult {
        self.search(game, limits, &SearchControl::default(), &mut |_| {})
    }
}
