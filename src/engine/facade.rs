//! The engine facade that every front end uses: set up a game, give limits,
//! start a search with an info callback, stop it, wait for the result.
//!
//! The facade owns the transposition table, the Lazy SMP threads, the
//! evaluation and the endgame tables with their policy (which root moves a
//! table result keeps, how table scores are reported). A search started with
//! [`Engine::start`] runs on a thread of the facade's own, so that a front
//! end keeps reading its input while the engine thinks; the front end never
//! moves the engine between threads. Where the host lends the engine its
//! one thread (a browser's worker), [`Engine::run_on_caller`] makes it run
//! on the caller's thread in slices instead, with the front end's turn
//! between them. The facade is protocol-neutral: it never prints.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::base::clock::Instant;

use crate::engine::book::{Book, BookPolicy};
use crate::engine::control::{Poll, SearchControl};
use crate::engine::egdb::{Tables, Wdl};
use crate::engine::eval::Evaluation;
use crate::engine::options::{DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, MAX_HASH_MB, MAX_THREADS};
use crate::engine::score::{Score, TB_WIN, WIN, WIN_BAND};
use crate::engine::search::{EgdbMode, Info, Line, RootResult, Searcher, Shared, MAX_DEPTH, MAX_PLY};
use crate::engine::threads::ThreadPool;
use crate::engine::time::{Limits, TimeManager};
use crate::engine::tt::TranspositionTable;
use crate::rules::game::{DrawRules, Game};
use crate::rules::movegen::{Move, MoveList};
use crate::rules::position::Position;
use crate::rules::variant::Variant;

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
    /// The move comes from the unfinished iteration `depth + 1` (see [`Info::partial`]).
    pub partial: bool,
    /// Nodes searched over all threads.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// With multi-PV ([`Limits::multipv`] above 1), the best lines with
    /// exact scores, best first; empty otherwise.
    pub lines: Vec<Line>,
}

/// Progress callback of a search started with [`Engine::start`].
pub type OnInfo = Box<dyn FnMut(&Info) + Send>;
/// Result callback of a search started with [`Engine::start`]: called on the
/// search's thread as soon as the result is known, before [`Engine::wait`]
/// returns it.
pub type OnDone = Box<dyn FnOnce(&SearchResult) + Send>;

/// What a search reads: shared by the facade and its running search.
#[derive(Debug)]
struct Core {
    tt: TranspositionTable,
    threads: ThreadPool,
    eval: Evaluation,
    egdb: Option<Arc<Tables>>,
    /// What every clock move costs beyond the engine's thinking.
    move_overhead: Duration,
    book: Option<Arc<Book>>,
    book_policy: BookPolicy,
    /// Draws among book moves: the state of a random sequence, seeded from
    /// the clock so that engine matches do not repeat their openings.
    book_draws: AtomicU64,
}

/// The search started last.
#[derive(Debug)]
enum Running {
    /// On the facade's thread.
    Thread { control: Arc<SearchControl>, handle: JoinHandle<SearchResult> },
    /// On the caller's thread ([`Engine::run_on_caller`]): it has ended.
    Ended(SearchResult),
}

/// The engine: transposition table, threads, evaluation, endgame tables,
/// and at most one running search.
#[derive(Debug)]
pub struct Engine {
    core: Arc<Core>,
    /// The size asked for, which the table may have had to fall short of.
    hash_mb: usize,
    running: Option<Running>,
    /// The draw rules of the last search: the table's scores hold under
    /// them, and are forgotten when they change.
    last_rules: Option<DrawRules>,
    /// Searches run on the caller's thread, with this turn of the front
    /// end's between slices.
    on_caller: Option<Poll>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(1, DEFAULT_HASH_MB)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

/// Stack of the facade's search thread: the search recurses up to
/// `MAX_PLY` plies and quiescence beyond, with move lists on the way.
const SEARCH_STACK: usize = 64 << 20;

impl Engine {
    /// An engine with `threads` search threads and a `hash_mb` MiB table
    /// (both clamped to their ranges, see [`crate::engine::options`]).
    pub fn new(threads: usize, hash_mb: usize) -> Engine {
        let hash_mb = hash_mb.clamp(1, MAX_HASH_MB);
        Engine {
            core: Arc::new(Core {
                tt: TranspositionTable::new(hash_mb),
                threads: ThreadPool::new(threads.clamp(1, MAX_THREADS)),
                eval: Evaluation::default(),
                egdb: None,
                move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
                book: None,
                book_policy: BookPolicy::default(),
                book_draws: AtomicU64::new(clock_seed()),
            }),
            hash_mb,
            running: None,
            last_rules: None,
            on_caller: None,
        }
    }

    /// Makes every search that [`Engine::start`] starts run on the calling
    /// thread, for a host that lends the engine its one thread (a browser's
    /// worker): `start` returns when the search has ended. Every
    /// [`crate::engine::control::SLICE`] the search gives the host a turn
    /// and then calls `poll`, which reads the front end's input and stops
    /// the search or signals the ponder hit through the control it is
    /// given.
    pub fn run_on_caller(&mut self, poll: Poll) {
        self.wait();
        self.on_caller = Some(poll);
    }

    /// The state a search reads, for a change: waits for a running search
    /// first, after which the facade holds the only reference.
    fn core_mut(&mut self) -> &mut Core {
        self.wait();
        Arc::get_mut(&mut self.core).expect("no search holds the engine once it has been waited for")
    }

    /// The evaluation searches use.
    pub fn evaluation(&self) -> &Evaluation {
        &self.core.eval
    }

    /// Changes the evaluation (waits for a running search first).
    pub fn set_evaluation(&mut self, eval: Evaluation) {
        self.core_mut().eval = eval;
    }

    /// The endgame tables searches probe, if any.
    pub fn egdb(&self) -> Option<&Tables> {
        self.core.egdb.as_deref()
    }

    /// Sets (or, with `None`, drops) the endgame tables (waits for a running
    /// search first).
    pub fn set_egdb(&mut self, tables: Option<Arc<Tables>>) {
        self.core_mut().egdb = tables.filter(|t| t.max_pieces() >= 2);
    }

    /// What every move under a clock is taken to cost beyond the engine's
    /// thinking (the GUI's latency); the time manager keeps it back.
    pub fn move_overhead(&self) -> Duration {
        self.core.move_overhead
    }

    /// Changes the move overhead (waits for a running search first).
    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.core_mut().move_overhead = overhead;
    }

    /// The opening book and how it is used, if any.
    pub fn book(&self) -> Option<(&Book, BookPolicy)> {
        self.core.book.as_deref().map(|b| (b, self.core.book_policy))
    }

    /// Sets (or, with `None`, drops) the opening book that searches outside
    /// analysis play from (waits for a running search first).
    pub fn set_book(&mut self, book: Option<Arc<Book>>, policy: BookPolicy) {
        let core = self.core_mut();
        core.book = book;
        core.book_policy = policy;
    }

    /// Seeds the draws among book moves (for a reproducible choice).
    pub fn set_book_seed(&mut self, seed: u64) {
        *self.core_mut().book_draws.get_mut() = seed;
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.core.threads.len()
    }

    /// Changes the number of search threads (waits for a running search first).
    pub fn set_threads(&mut self, n: usize) {
        let n = n.clamp(1, MAX_THREADS);
        let core = self.core_mut();
        if n != core.threads.len() {
            core.threads = ThreadPool::new(n);
        }
    }

    /// Transposition table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.core.tt.size_mb()
    }

    /// Resizes (and so clears) the transposition table (waits for a running
    /// search first).
    pub fn set_hash_mb(&mut self, mb: usize) {
        let mb = mb.clamp(1, MAX_HASH_MB);
        if mb != self.hash_mb {
            let core = self.core_mut();
            // Free the old table first: two large ones may not fit together.
            core.tt = TranspositionTable::new(1);
            core.tt = TranspositionTable::new(mb);
            self.hash_mb = mb;
        }
    }

    /// Clears the table when `game` is searched under other draw rules than
    /// the last search (a draw rule the client turned out not to apply):
    /// its entries scored lines that rule ended as draws.
    fn follow_rules(&mut self, game: &Game) {
        let rules = game.rules_in_play();
        if self.last_rules.is_some_and(|r| r != rules) {
            self.core_mut().tt.clear();
        }
        self.last_rules = Some(rules);
    }

    /// Forgets everything learned from earlier searches (a new game).
    pub fn clear(&mut self) {
        self.core_mut().tt.clear();
    }

    /// Searches the game's current position within `limits` on the calling
    /// thread, calling `on_info` with progress; returns when the limits say
    /// so. For a search that other threads can stop, use [`Engine::start`].
    pub fn search(&mut self, game: &Game, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> SearchResult {
        self.wait();
        self.follow_rules(game);
        self.core.search(game, limits, &SearchControl::default(), on_info)
    }

    /// [`Engine::search`] without progress reports.
    pub fn search_quietly(&mut self, game: &Game, limits: &Limits) -> SearchResult {
        self.search(game, limits, &mut |_| {})
    }

    /// Starts searching the game's current position within `limits` and
    /// returns at once (or, after [`Engine::run_on_caller`], when the search
    /// has ended). Progress goes to `on_info` and the result to `on_done`,
    /// both called from the search's thread. A search still running is
    /// stopped and waited for first. Fails only when the system cannot
    /// start a thread.
    pub fn start(
        &mut self,
        game: &Game,
        limits: &Limits,
        on_info: OnInfo,
        on_done: OnDone,
    ) -> std::io::Result<()> {
        self.stop();
        self.wait();
        self.follow_rules(game);
        if let Some(poll) = self.on_caller {
            let mut on_info = on_info;
            let result = self.core.search(game, limits, &SearchControl::polled(poll), &mut *on_info);
            on_done(&result);
            self.running = Some(Running::Ended(result));
            return Ok(());
        }
        let core = Arc::clone(&self.core);
        let control = Arc::new(SearchControl::default());
        let search_control = Arc::clone(&control);
        let (game, limits) = (game.clone(), limits.clone());
        let handle = std::thread::Builder::new()
            .name("dammer-search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let mut on_info = on_info;
                let result = core.search(&game, &limits, &search_control, &mut *on_info);
                on_done(&result);
                result
            })?;
        self.running = Some(Running::Thread { control, handle });
        Ok(())
    }

    /// Asks the running search, if any, to finish now; it still answers with
    /// a move. Returns at once.
    pub fn stop(&self) {
        if let Some(Running::Thread { control, .. }) = &self.running {
            control.stop();
        }
    }

    /// Tells the running search, if it ponders, that the expected move was
    /// played: its time limits apply from now on.
    pub fn ponder_hit(&self) {
        if let Some(Running::Thread { control, .. }) = &self.running {
            control.ponder_hit();
        }
    }

    /// Whether a search started with [`Engine::start`] is still running.
    pub fn is_searching(&self) -> bool {
        matches!(&self.running, Some(Running::Thread { handle, .. }) if !handle.is_finished())
    }

    /// Waits for the search started with [`Engine::start`] to end and returns
    /// its result; `None` when there was none (or its thread failed).
    pub fn wait(&mut self) -> Option<SearchResult> {
        match self.running.take()? {
            Running::Thread { handle, .. } => handle.join().ok(),
            Running::Ended(result) => Some(result),
        }
    }
}

/// A seed that differs from run to run.
fn clock_seed() -> u64 {
    crate::base::clock::entropy()
}

impl Core {
    /// Searches with the state of the facade; `control` is how other
    /// threads stop the search or signal a ponder hit, at any time, also
    /// before it starts.
    fn search(
        &self,
        game: &Game,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();

        let pos = *game.position();
        let variant = game.variant();
        // A game that went on past a draw by rule (a GUI that applies
        // repetition alone) is searched as the game that goes on: the rule
        // that ran out would otherwise score every line 0.00 at once and
        // leave the first legal move to be played unsearched.
        let draw_rules = game.rules_in_play();
        // The variants have their own evaluation; the tables and the book
        // are the international game's.
        let eval = self.eval.for_variant(variant);
        let normal = variant == Variant::Normal;
        let legal = game.legal_moves();
        let quick = |best: Option<Move>, score| SearchResult {
            best,
            ponder: None,
            score,
            depth: 0,
            partial: false,
            nodes: 0,
            time: start.elapsed(),
            pv: best.into_iter().collect(),
            lines: Vec::new(),
        };
        if legal.is_empty() {
            return quick(None, if variant.no_move_loses() { -WIN } else { WIN });
        }
        if legal.len() == 1 && !limits.analysis && !limits.ponder {
            return quick(Some(legal.as_slice()[0]), eval.evaluate(&pos));
        }
        // The book plays games: a depth or node limit asks for a search
        // of that size, and analysis for a search at all.
        let plays = !(limits.analysis || limits.ponder || limits.infinite);
        if plays && (limits.caps_only || (limits.depth.is_none() && limits.nodes.is_none())) {
            if let Some(book) = self.book.as_deref().filter(|_| normal) {
                let draw = self.book_draws.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
                if let Some(b) = book.choose(&pos, &self.book_policy, draw) {
                    // Reported like a search of depth 0, so that a front end
                    // shows (and a match runner reads) the book's score.
                    let r = quick(Some(b.mv), b.score);
                    on_info(&Info {
                        depth: 0,
                        mean_depth: 0.0,
                        score: b.score,
                        nodes: 0,
                        time: r.time,
                        pv: r.pv.clone(),
                        lines: Vec::new(),
                        partial: false,
                    });
                    return r;
                }
            }
        }
        let time = TimeManager::new(limits, self.move_overhead, start, pos.occupied().count_ones());
        let max_depth = if time.instant() { 1 } else { limits.depth.unwrap_or(MAX_DEPTH).min(MAX_DEPTH) };
        self.tt.new_search();
        let egdb = self.egdb.as_deref().filter(|_| normal);
        let (root_moves, root_wdl) = self.table_root_moves(egdb, &pos, &legal);
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
            eval,
            egdb,
            egdb_mode,
            root_moves: &root_moves,
            multipv: limits.multipv.max(1),
            stop_when_proven: !limits.infinite && !limits.ponder && limits.depth.is_none(),
            handicap: limits.handicap.min(crate::engine::time::MAX_HANDICAP),
            ply_limit: limits.ply.map_or(MAX_PLY - 2, |p| (p as usize).min(MAX_PLY - 2)),
            variant,
            draw_rules,
            root_runs: game.king_runs(),
        };
        // A table win or loss at the root is reported in the database band
        // until the search finds the actual distance, except where a 16- or
        // 5-move rule may draw the game first (the tables ignore it).
        let counted = draw_rules == DrawRules::Fmjd && crate::rules::game::EndgameRule::of(&pos).is_some();
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
        let (main_root, helpers): (RootResult, Vec<RootResult>) = self.threads.run(
            control,
            |id| {
                let mut s = Searcher::new(&shared, id, pos, &history, state);
                s.iterate(max_depth)
            },
            || {
                let mut s = Searcher::new(&shared, 0, pos, &history, state);
                s.set_main(start, time, on_info);
                let r = s.iterate(max_depth);
                s.hold();
                r
            },
        );
        let nodes = shared.nodes.load(std::sync::atomic::Ordering::Relaxed);
        let (root, thread) = crate::engine::threads::vote(main_root, helpers, shared.multipv);
        if thread != 0 {
            // The last line a client saw was the main thread's: show the one played.
            on_info(&Info {
                depth: root.depth,
                mean_depth: root.mean_depth,
                score: root.score,
                nodes,
                time: start.elapsed(),
                pv: root.pv.clone(),
                lines: Vec::new(),
                partial: false,
            });
        }
        SearchResult {
            best: root.best,
            ponder: root.pv.get(1).copied(),
            score: table_score(root.score),
            depth: root.depth,
            partial: root.partial,
            nodes,
            time: start.elapsed(),
            pv: root.pv,
            lines: root.lines,
        }
    }

    /// The root moves worth searching and the root's table value: with
    /// tables that cover the position, only the moves that keep its value
    /// (all of them when it is lost). Empty means every legal move.
    fn table_root_moves(
        &self,
        egdb: Option<&Tables>,
        pos: &Position,
        legal: &MoveList,
    ) -> (Vec<Move>, Option<Wdl>) {
        let Some(tables) = egdb else {
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
}
