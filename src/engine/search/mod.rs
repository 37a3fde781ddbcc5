//! The search of one thread: iterative deepening, aspiration windows,
//! principal variation search, capture resolution at the horizon, and the
//! FMJD draw rules along the searched line.
//!
//! Every thread runs a [`Searcher`]; they share only what [`Shared`] holds
//! (the transposition table, the stop flag and the node count). The search
//! never prints: the main thread hands progress to a callback.

mod ordering;
mod quiesce;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::base::clock::Instant;

use crate::engine::control::SearchControl;
use crate::engine::egdb::{Tables, Wdl};
use crate::engine::eval::nn::NetCache;
use crate::engine::eval::Evaluation;
use crate::engine::score::{
    from_tt, is_decisive, lost_in, table_win, to_tt, Score, INFINITY, TB_BAND, TB_WIN, WIN, WIN_BAND,
};
use crate::engine::time::{TimeManager, Verdict};
use crate::engine::tt::{Bound, Entry, TranspositionTable};
use crate::rules::frisian::{self, KingRuns};
use crate::rules::game::{draw_by_rule, DrawRules, EndgameRule, PlyState};
use crate::rules::movegen::{generate, generate_killer, is_promotion, Move, MoveList};
use crate::rules::position::Position;
use crate::rules::variant::Variant;
use ordering::{select_next, KILLER_SCORE};
use quiesce::has_any_move;

/// Deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// Deepest iteration.
pub const MAX_DEPTH: u32 = 100;

/// How often (in nodes) a thread publishes its node count and checks limits.
const CHECK_EVERY: u64 = 1024;

/// State shared by all threads of one search.
#[derive(Debug)]
pub(crate) struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// Stop and ponder-hit requests.
    pub control: &'a SearchControl,
    /// Nodes searched by all threads (published every [`CHECK_EVERY`] nodes).
    pub nodes: AtomicU64,
    /// Stop once this many nodes are searched in all.
    pub node_limit: Option<u64>,
    /// The evaluation.
    pub eval: &'a Evaluation,
    /// Endgame tables to probe, if any.
    pub egdb: Option<&'a Tables>,
    /// How the tables' wins and losses are used in the tree.
    pub egdb_mode: EgdbMode,
    /// Root moves to search (all legal moves when empty): the tables keep
    /// only the moves that preserve the root's result.
    pub root_moves: &'a [Move],
    /// Lines the main thread finds at the root, each with its exact score
    /// (1: only the best move's).
    pub multipv: usize,
    /// Stop iterating once a win or loss is proven and deep enough to be
    /// the shortest (not in infinite analysis, pondering or at a set depth).
    pub stop_when_proven: bool,
    /// The weakening asked for (`Limits::handicap`, 0 = none).
    pub handicap: u8,
    /// Positions at this ply or deeper are evaluated as they stand
    /// (`Limits::ply`; at most `MAX_PLY - 2`, the arrays' end).
    pub ply_limit: usize,
    /// The game's rules: how a game ends and which draw rules apply.
    pub variant: Variant,
    /// The draw rules in force (`Game::rules_in_play`): past a draw its
    /// client did not apply, repetition alone.
    pub draw_rules: DrawRules,
    /// Frisian: the sides' king runs at the root (which moves are legal
    /// there depends on them); default otherwise.
    pub root_runs: KingRuns,
}

/// How the search uses table results below the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum EgdbMode {
    /// Draws, wins and losses end the line with a table score.
    #[default]
    Full,
    /// The root itself is a table win or loss and its moves are already
    /// filtered: only draws end a line, so that the search looks for the real
    /// win (or the longest resistance) instead of seeing every line as equal.
    DrawsOnly,
}

/// Progress of the search after an iteration (or during a long one).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Iteration depth.
    pub depth: u32,
    /// Average ply of the leaves searched in this iteration.
    pub mean_depth: f64,
    /// Score for the side to move, hundredths of a man (wins: see [`crate::engine::score`]).
    pub score: Score,
    /// Nodes over all threads.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// With multi-PV, the best lines, best first (the first is `score` and
    /// `pv`); empty otherwise.
    pub lines: Vec<Line>,
    /// The move and score come from iteration `depth + 1`, which the clock
    /// stopped after it had found that move better than the completed
    /// iteration's: the score is what that move had shown so far.
    pub partial: bool,
}

/// One line of a multi-PV search: a root move's exact score and its line.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Score for the side to move at the root.
    pub score: Score,
    /// The line, starting with the root move.
    pub pv: Vec<Move>,
}

impl Info {
    /// Nodes per second so far.
    pub fn nps(&self) -> f64 {
        let secs = self.time.as_secs_f64();
        if secs > 0.0 {
            self.nodes as f64 / secs
        } else {
            0.0
        }
    }
}

/// What the main thread's iterative deepening found.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RootResult {
    /// Best move (none only when there is no legal move).
    pub best: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Principal variation of that iteration.
    pub pv: Vec<Move>,
    /// Mean leaf ply of that iteration.
    pub mean_depth: f64,
    /// With multi-PV, the best lines of that iteration, best first.
    pub lines: Vec<Line>,
    /// The move comes from the unfinished iteration `depth + 1` (see [`Info::partial`]).
    pub partial: bool,
}

/// One search thread.
pub(crate) struct Searcher<'a> {
    shared: &'a Shared<'a>,
    id: usize,
    root: Position,
    /// Keys of the game's positions up to the root, then of the searched line.
    keys: Vec<u64>,
    root_index: usize,
    /// Draw-rule counters of each ply of the searched line (index = ply).
    states: Vec<PlyState>,
    /// Whether the game has moves of its own (Frisian, killer); Frisian's
    /// depend on the king runs of each ply of the line in `runs` (kept
    /// only then).
    own_moves: bool,
    runs: Vec<KingRuns>,
    lists: Vec<MoveList>,
    order: Vec<Vec<i32>>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    pv: Vec<[Move; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
    nodes: u64,
    unpublished: u64,
    leaf_plies: u64,
    leaves: u64,
    stopped: bool,
    root_moves: Vec<Move>,
    root_depth: i32,
    /// The multi-PV lines of the last root search, best first.
    lines: Vec<Line>,
    /// The best the current iteration has shown so far at the root, kept
    /// for when the clock stops it (see [`Searcher::adopt_partial`]).
    claim: Option<Line>,
    /// Scratch list for capture sequences in table probes.
    probe_list: MoveList,
    time: Option<TimeManager>,
    clock_start: Instant,
    last_report: Instant,
    report: Option<&'a mut dyn FnMut(&Info)>,
    best_so_far: RootResult,
    /// What the evaluation keeps between positions (the network's accumulators).
    net_cache: NetCache,
    /// Nodes between two looks at the limits: [`CHECK_EVERY`], or fewer
    /// under a small node limit (a strength level's 50 nodes), so that the
    /// limit is kept to within a few nodes.
    check_every: u64,
}

impl std::fmt::Debug for Searcher<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Searcher(thread {}, {} nodes)", self.id, self.nodes)
    }
}

impl<'a> Searcher<'a> {
    /// A searcher for thread `id` (0 is the main thread) on the position
    /// reached by `history` (keys of the game's positions, the root's last)
    /// with the root's draw-rule counters.
    pub(crate) fn new(
        shared: &'a Shared<'a>,
        id: usize,
        root: Position,
        history: &[u64],
        state: PlyState,
    ) -> Self {
        let mut keys = history.to_vec();
        if keys.last() != Some(&root.key()) {
            keys.push(root.key());
        }
        let root_index = keys.len() - 1;
        keys.resize(root_index + MAX_PLY + 2, 0);
        let now = Instant::now();
        Searcher {
            shared,
            id,
            root,
            keys,
            root_index,
            states: vec![state; MAX_PLY + 2],
            own_moves: shared.variant.own_moves(),
            runs: vec![shared.root_runs; MAX_PLY + 2],
            lists: (0..MAX_PLY + 1).map(|_| MoveList::new()).collect(),
            order: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(64)).collect(),
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 2 * 64 * 64],
            pv: vec![[Move::default(); MAX_PLY]; MAX_PLY],
            pv_len: [0; MAX_PLY],
            nodes: 0,
            unpublished: 0,
            leaf_plies: 0,
            leaves: 0,
            stopped: false,
            root_moves: Vec::new(),
            root_depth: 0,
            lines: Vec::new(),
            claim: None,
            probe_list: MoveList::new(),
            time: None,
            clock_start: now,
            last_report: now,
            report: None,
            best_so_far: RootResult::default(),
            net_cache: NetCache::new(MAX_PLY + 1),
            check_every: shared.node_limit.map_or(CHECK_EVERY, |n| (n / 16).clamp(1, CHECK_EVERY)),
        }
    }

    /// Makes this the main thread of a search that started at `start`: it
    /// keeps time and reports progress.
    pub(crate) fn set_main(&mut self, start: Instant, time: TimeManager, report: &'a mut dyn FnMut(&Info)) {
        self.clock_start = start;
        self.last_report = start;
        self.time = Some(time);
        self.report = Some(report);
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unpublished
    }

    /// Publishes the node count and checks every limit.
    fn check_limits(&mut self) {
        self.shared.nodes.fetch_add(self.unpublished, Ordering::Relaxed);
        self.unpublished = 0;
        if self.id == 0 {
            // A host with one thread (a browser's) gets its turn here.
            self.shared.control.checkpoint();
        }
        if self.shared.control.is_stopped() {
            self.stopped = true;
            return;
        }
        if let Some(limit) = self.shared.node_limit {
            if self.shared.nodes.load(Ordering::Relaxed) >= limit {
                self.shared.control.stop();
                self.stopped = true;
                return;
            }
        }
        let Some(time) = &mut self.time else { return };
        match time.check(self.shared.control) {
            Verdict::Pondering => return,
            Verdict::Stop => {
                self.shared.control.stop();
                self.stopped = true;
                return;
            }
            Verdict::GoOn => {}
        }
        if self.last_report.elapsed() >= Duration::from_secs(1) && self.best_so_far.best.is_some() {
            self.report_best();
        }
    }

    /// Hands the best result so far to the progress callback.
    fn report_best(&mut self) {
        self.last_report = Instant::now();
        let info = self.info(&self.best_so_far);
        if let Some(report) = self.report.as_mut() {
            report(&info);
        }
    }

    fn info(&self, r: &RootResult) -> Info {
        Info {
            depth: r.depth,
            mean_depth: r.mean_depth,
            score: r.score,
            nodes: self.total_nodes(),
            time: self.clock_start.elapsed(),
            pv: r.pv.clone(),
            lines: r.lines.clone(),
            partial: r.partial,
        }
    }

    #[inline]
    fn count_node(&mut self) {
        self.count_leaf_node();
        if self.unpublished >= self.check_every {
            self.check_limits();
        }
    }

    /// Counts a node of capture resolution, whose short lines leave the
    /// limits to the next node of the main search: in a browser, what can
    /// reach the host's pause is instrumented to unwind (binaryen's
    /// Asyncify, web/build.sh), and capture resolution with the evaluation
    /// below it stays out of that.
    #[inline]
    fn count_leaf_node(&mut self) {
        self.nodes += 1;
        self.unpublished += 1;
    }

    /// Iterative deepening up to `max_depth`; returns the last completed
    /// iteration's result. Helpers (`id > 0`) stagger their depths.
    pub(crate) fn iterate(&mut self, max_depth: u32) -> RootResult {
        let mut list = MoveList::new();
        self.generate_at(&self.root, 0, &mut list);
        self.root_moves = list.iter().copied().collect();
        if !self.shared.root_moves.is_empty() {
            self.root_moves.retain(|m| self.shared.root_moves.contains(m));
        }
        if self.root_moves.is_empty() {
            return RootResult { score: -WIN, ..RootResult::default() };
        }
        // Some move is always ready, even if the first iteration is cut short.
        self.best_so_far = RootResult {
            best: Some(self.root_moves[0]),
            pv: vec![self.root_moves[0]],
            ..RootResult::default()
        };
        let mut prev_best: Option<Move> = None;
        let mut prev_score: Option<Score> = None;
        let mut stable_iterations = 0u32;
        let max_depth = max_depth.clamp(1, MAX_DEPTH);
        let mut depth = 1;
        while depth <= max_depth {
            if self.id > 0 && depth > 2 && (depth + self.id as u32).is_multiple_of(3) {
                // Helpers skip some depths so that threads spread over depths.
                depth += 1;
                continue;
            }
            self.root_depth = depth as i32;
            self.leaf_plies = 0;
            self.leaves = 0;
            self.claim = None;
            let score = self.aspiration(depth as i32, self.best_so_far.score);
            if self.stopped && depth > 1 {
                self.adopt_partial();
                break;
            }
            let mut pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
            if pv.is_empty() {
                pv.push(self.root_moves[0]);
            }
            // Helpers too: the vote may play a helper's line.
            self.extend_from_tt(&mut pv, depth as usize);
            let best = pv.first().copied();
            self.best_so_far = RootResult {
                best,
                score,
                depth,
                lines: self.result_lines(score, &pv),
                pv,
                mean_depth: if self.leaves > 0 { self.leaf_plies as f64 / self.leaves as f64 } else { 0.0 },
                partial: false,
            };
            if best == prev_best {
                stable_iterations += 1;
            } else {
                stable_iterations = 0;
            }
            prev_best = best;
            // Drops count once the iterations are deep enough to mean
            // something, and not among won or lost scores.
            let score_drop = match prev_score {
                Some(p) if depth >= 5 && p.abs() < WIN_BAND && score.abs() < WIN_BAND => (p - score).max(0),
                _ => 0,
            };
            // Whether the previous iteration found the same win or loss.
            let repeated =
                prev_score.is_some_and(|p| p == score && (is_decisive(score) || score.abs() >= TB_BAND));
            prev_score = Some(score);
            if self.id == 0 {
                self.report_best();
                if self.stopped {
                    break;
                }
                if self.soft_time_up(stable_iterations, score_drop) {
                    break;
                }
                if self.shared.stop_when_proven && proven_enough(score, repeated, depth) {
                    break;
                }
            }
            depth += 1;
        }
        self.shared.nodes.fetch_add(self.unpublished, Ordering::Relaxed);
        self.unpublished = 0;
        self.best_so_far.clone()
    }

    /// An iteration cut short still tells something when one of its root
    /// moves beat the best score so far at its depth, deeper than the last
    /// completed iteration: a move searched to the end that raised alpha, or
    /// a later move whose null-window search already failed high (its
    /// re-search cut short), or the move that failed high in an earlier
    /// aspiration window of this iteration. The last such claim is played
    /// (the depth reported stays the completed one's). At a fixed move time
    /// the iteration the clock stops takes about a third of the time, which
    /// was otherwise thrown away. Multi-PV keeps its complete lines.
    fn adopt_partial(&mut self) {
        if self.id != 0 || self.multipv() > 1 {
            return;
        }
        let Some(mut claim) = self.claim.take() else { return };
        if claim.pv.first() == self.best_so_far.pv.first() {
            // The completed iteration's move, re-searched: its line stays
            // the one to show, longer than what the cut search left.
            if claim.pv.len() < self.best_so_far.pv.len() {
                claim.pv.clone_from(&self.best_so_far.pv);
            }
        } else {
            self.best_so_far.partial = true;
        }
        self.extend_from_tt(&mut claim.pv, self.root_depth.max(2) as usize);
        self.best_so_far.best = claim.pv.first().copied();
        self.best_so_far.score = claim.score;
        self.best_so_far.pv = claim.pv;
        self.report_best();
    }

    /// Lengthens `pv` (legal from the root) up to `max` moves with the
    /// moves the transposition table holds for the positions after it: a
    /// line cut short by a table hit, or a move whose re-search the clock
    /// stopped, still shows the reply the engine expects (a GUI's ponder
    /// move). It stops at a position seen earlier in the line, a table
    /// entry without a move, or a move that is not legal there.
    fn extend_from_tt(&self, pv: &mut Vec<Move>, max: usize) {
        if pv.len() >= max.min(MAX_PLY) {
            return;
        }
        let mut pos = self.root;
        let mut runs = self.shared.root_runs;
        let mut seen = vec![pos.key()];
        for m in pv.iter() {
            runs = runs.after(&pos, m);
            pos = pos.make(m);
            seen.push(pos.key());
        }
        let mut list = MoveList::new();
        while pv.len() < max.min(MAX_PLY) {
            let Some((from, to)) = self.shared.tt.probe(pos.key()).and_then(|e| e.mv) else { break };
            self.generate_with(&pos, &runs, &mut list);
            let Some(m) = list.iter().find(|m| (m.from, m.to) == (from, to)).copied() else { break };
            runs = runs.after(&pos, &m);
            pos = pos.make(&m);
            if seen.contains(&pos.key()) {
                break;
            }
            seen.push(pos.key());
            pv.push(m);
        }
    }

    /// Infinite analysis and pondering answer only when told to: the main
    /// thread, done searching, waits for that before it returns.
    pub(crate) fn hold(&self) {
        if let Some(time) = &self.time {
            time.hold(self.shared.control);
        }
    }

    /// Whether the main thread should not start another iteration.
    fn soft_time_up(&self, stable_iterations: u32, score_drop: Score) -> bool {
        self.time
            .as_ref()
            .is_some_and(|t| t.iteration_done(self.shared.control, stable_iterations, score_drop))
    }

    /// The lines an iteration reports: with multi-PV asked for, its lines
    /// (the one line when the root has a single move); none otherwise.
    fn result_lines(&self, score: Score, pv: &[Move]) -> Vec<Line> {
        match (self.id, self.shared.multipv, self.multipv()) {
            (0, 2.., 2..) => self.lines.clone(),
            (0, 2.., _) => vec![Line { score, pv: pv.to_vec() }],
            _ => Vec::new(),
        }
    }

    /// Lines the main thread searches at the root (helpers search one).
    fn multipv(&self) -> usize {
        if self.id == 0 {
            self.shared.multipv.clamp(1, self.root_moves.len().max(1))
        } else {
            1
        }
    }

    fn aspiration(&mut self, depth: i32, prev: Score) -> Score {
        if self.multipv() > 1 {
            return self.search_root_multi(depth);
        }
        if depth < 4 || prev.abs() >= WIN_BAND {
            return self.search_root(depth, -INFINITY, INFINITY);
        }
        let mut delta = 15;
        let mut alpha = (prev - delta).max(-INFINITY);
        let mut beta = (prev + delta).min(INFINITY);
        loop {
            let score = self.search_root(depth, alpha, beta);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta *= 2;
            if delta > 400 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    fn search_root(&mut self, depth: i32, mut alpha: Score, beta: Score) -> Score {
        self.pv_len[0] = 0;
        let root = self.root;
        let mut best = -INFINITY;
        let mut best_index = 0;
        for i in 0..self.root_moves.len() {
            let m = self.root_moves[i];
            let child = root.make(&m);
            if depth > 1 {
                self.shared.tt.prefetch(child.key());
            }
            self.push(0, &root, &m, &child);
            let score = if i == 0 {
                -self.child(&child, -beta, -alpha, depth - 1, 1, true)
            } else {
                let mut s = -self.child(&child, -alpha - 1, -alpha, depth - 1, 1, false);
                if s > alpha && s < beta && !self.stopped {
                    // Better than the best so far, which is what counts if
                    // the clock stops the re-search.
                    let before = self.claim.replace(Line { score: s, pv: vec![m] });
                    s = -self.child(&child, -beta, -alpha, depth - 1, 1, true);
                    if s <= alpha && !self.stopped {
                        self.claim = before;
                    }
                }
                s
            };
            if self.stopped && depth > 1 {
                return best.max(alpha);
            }
            if score > best {
                best = score;
                best_index = i;
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, m);
                    self.claim = Some(Line { score, pv: self.pv[0][..self.pv_len[0]].to_vec() });
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        // The best move leads the next iteration.
        let m = self.root_moves.remove(best_index);
        self.root_moves.insert(0, m);
        best
    }

    /// The root search of multi-PV: the first `n` moves (last iteration's
    /// best lines first) get an open window, so their scores are exact;
    /// every later move is tried against the `n`-th best score so far with a
    /// null window and searched again with an open one only if it beats it.
    /// No aspiration: the window must hold `n` exact scores.
    fn search_root_multi(&mut self, depth: i32) -> Score {
        let n = self.multipv();
        let root = self.root;
        // (score, index in root_moves, line) of the moves with exact scores,
        // best first, at most `n`.
        let mut scored: Vec<(Score, usize, Vec<Move>)> = Vec::with_capacity(self.root_moves.len());
        for i in 0..self.root_moves.len() {
            let m = self.root_moves[i];
            let child = root.make(&m);
            self.push(0, &root, &m, &child);
            let score = if i < n {
                -self.child(&child, -INFINITY, INFINITY, depth - 1, 1, true)
            } else {
                // The first `n` moves filled `scored`: its last is the n-th best.
                let threshold = scored[n - 1].0;
                let s = -self.child(&child, -threshold - 1, -threshold, depth - 1, 1, false);
                if s > threshold && !self.stopped {
                    -self.child(&child, -INFINITY, -threshold, depth - 1, 1, true)
                } else {
                    s
                }
            };
            if self.stopped && depth > 1 {
                return self.lines.first().map_or(-INFINITY, |l| l.score);
            }
            if i < n || score > scored[n - 1].0 {
                let mut line = vec![m];
                line.extend_from_slice(&self.pv[1][1..self.pv_len[1].max(1)]);
                scored.push((score, i, line));
                scored.sort_by_key(|e| std::cmp::Reverse(e.0));
                scored.truncate(n);
            }
        }
        // Best lines first, then the rest in their old order.
        let order: Vec<usize> = scored.iter().map(|e| e.1).collect();
        let mut moves: Vec<Move> = order.iter().map(|&i| self.root_moves[i]).collect();
        moves.extend(self.root_moves.iter().enumerate().filter(|(i, _)| !order.contains(i)).map(|(_, m)| *m));
        self.root_moves = moves;
        self.lines = scored.into_iter().map(|(score, _, pv)| Line { score, pv }).collect();
        let first = &self.lines[0];
        for (k, m) in first.pv.iter().enumerate() {
            self.pv[0][k] = *m;
        }
        self.pv_len[0] = first.pv.len();
        first.score
    }

    /// The table score of `pos` if the tables settle it. A table win or loss
    /// is not trusted where a 16- or 5-move endgame rule may end the game
    /// first (the tables ignore those rules; under repetition alone they are
    /// right); a draw always is.
    #[inline]
    fn probe_tables(&mut self, pos: &Position, ply: usize) -> Option<Score> {
        let tables = self.shared.egdb?;
        if pos.occupied().count_ones() as usize > tables.max_pieces() {
            return None;
        }
        let v = tables.probe_with(pos, &mut self.probe_list)?;
        let trusted = self.shared.egdb_mode == EgdbMode::Full
            && (self.shared.draw_rules == DrawRules::Repetition || EndgameRule::of(pos).is_none());
        match v {
            Wdl::Draw => Some(0),
            Wdl::Win if trusted => Some(table_win(ply)),
            // A side without a move (or without pieces) has lost here and
            // now: the exact distance, not the table's band, which would
            // rank this mate below any table win elsewhere.
            Wdl::Loss if trusted => {
                Some(if self.has_move(pos, ply) { -table_win(ply) } else { lost_in(ply) })
            }
            _ => None,
        }
    }

    /// Records the child of ply `ply` (reached by `m`) on the line's stacks.
    #[inline(always)]
    fn push(&mut self, ply: usize, pos: &Position, m: &Move, child: &Position) {
        // Both stacks are allocated for the deepest line: entries past the
        // current ply are stale and never read.
        self.states[ply + 1] = self.states[ply].after(pos, m, child);
        self.keys[self.root_index + ply + 1] = child.key();
        if self.own_moves {
            // The transposition table's keys leave the runs out: an entry
            // may come from the same position with another king barred.
            // Its move is only used if generated here, and its score is
            // off at most by that one king's moves: accepted, as for the
            // draw-rule counters.
            self.runs[ply + 1] = self.runs[ply].after(pos, m);
        }
    }

    /// The legal moves of `pos`, the line's position at `ply`, by the
    /// game's rules.
    #[inline(always)]
    fn generate_at(&self, pos: &Position, ply: usize, list: &mut MoveList) {
        if self.own_moves {
            self.generate_with(pos, &self.runs[ply], list);
        } else {
            generate(pos, list);
        }
    }

    /// The legal moves of `pos` by the game's rules, Frisian's with the
    /// king runs `runs`. Kept out of line: the search's nodes reach it only
    /// in a variant with moves of its own ([`Searcher::generate_at`]).
    #[inline(never)]
    fn generate_with(&self, pos: &Position, runs: &KingRuns, list: &mut MoveList) {
        match self.shared.variant {
            Variant::Frisian => frisian::generate(pos, runs, list),
            Variant::Killer => generate_killer(pos, list),
            _ => generate(pos, list),
        }
    }

    /// Whether the side to move at `ply` has any legal move.
    #[inline]
    fn has_move(&self, pos: &Position, ply: usize) -> bool {
        // Killer's captures end on fewer squares, never on none.
        if self.shared.variant == Variant::Frisian {
            !frisian::legal_moves(pos, &self.runs[ply]).is_empty()
        } else {
            has_any_move(pos)
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// The score of a position at `ply` whose side to move has no legal
    /// move: lost, or in losing draughts won.
    #[inline]
    pub(super) fn no_move(&self, ply: usize) -> Score {
        if self.shared.variant.no_move_loses() {
            lost_in(ply)
        } else {
            -lost_in(ply)
        }
    }

    /// Breakthrough: whether the side that just moved has a king, that is,
    /// crowned a man and won.
    #[inline]
    pub(super) fn crowned_last(&self, pos: &Position) -> bool {
        pos.kings_of(pos.side().opponent()) != 0
    }

    /// Whether the line's position at `ply` is drawn by repetition (a repeat
    /// inside the searched line, or a third occurrence counting the game).
    fn is_repetition(&self, ply: usize) -> bool {
        let reversible = self.states[ply].reversible as usize;
        if reversible < 4 {
            return false;
        }
        let i = self.root_index + ply;
        let key = self.keys[i];
        let mut seen = 0;
        let mut back = 4;
        while back <= reversible && back <= i {
            let j = i - back;
            if self.keys[j] == key {
                if j >= self.root_index {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// The checks every node of the main search starts with: the node count
    /// and stop, the draw rules, mate-distance bounds (narrowing the window)
    /// and the endgame tables. `Some` ends the node with that score.
    #[inline(always)]
    fn enter(&mut self, pos: &Position, alpha: &mut Score, beta: &mut Score, ply: usize) -> Option<Score> {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.stopped {
            return Some(0);
        }
        let variant = self.shared.variant;
        if variant == Variant::Breakthrough && self.crowned_last(pos) {
            return Some(lost_in(ply));
        }
        let state = self.states[ply];
        if draw_by_rule(variant, self.shared.draw_rules, state, 0).is_some() || self.is_repetition(ply) {
            // A side without a legal move has lost (or, in losing draughts,
            // won), whatever the counters say.
            return Some(if self.has_move(pos, ply) { 0 } else { self.no_move(ply) });
        }
        *alpha = (*alpha).max(lost_in(ply));
        // The best is a win at the next ply, or in losing draughts, here.
        *beta = (*beta).min(WIN - ply as Score - Score::from(variant.no_move_loses()));
        if *alpha >= *beta {
            return Some(*alpha);
        }
        self.probe_tables(pos, ply)
    }

    /// Searches a child: a child at the horizon goes through the node checks
    /// straight to quiescence, without the cost of entering `search` (most
    /// children are at the horizon).
    #[inline(always)]
    fn child(
        &mut self,
        pos: &Position,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        pv: bool,
    ) -> Score {
        if depth > 0 {
            return self.search(pos, alpha, beta, depth, ply, pv);
        }
        if let Some(s) = self.enter(pos, &mut alpha, &mut beta, ply) {
            return s;
        }
        self.quiesce(pos, alpha, beta, ply, true)
    }

    /// Whether every move but `tt_move` fails to reach `target` in a
    /// null-window search of `depth` (the singular test); stops at the
    /// first that does, or when the search is stopped.
    fn no_rival(
        &mut self,
        pos: &Position,
        list: &MoveList,
        tt_move: (u8, u8),
        target: Score,
        depth: i32,
        ply: usize,
    ) -> bool {
        for m in list {
            if (m.from, m.to) == tt_move {
                continue;
            }
            let child = pos.make(m);
            self.push(ply, pos, m, &child);
            let s = -self.child(&child, -target, -target + 1, depth, ply + 1, false);
            if self.stopped || s >= target {
                return false;
            }
        }
        true
    }

    fn search(
        &mut self,
        pos: &Position,
        mut alpha: Score,
        mut beta: Score,
        depth: i32,
        ply: usize,
        pv_node: bool,
    ) -> Score {
        if let Some(s) = self.enter(pos, &mut alpha, &mut beta, ply) {
            return s;
        }
        if depth <= 0 || ply >= MAX_PLY - 8 || ply >= self.shared.ply_limit {
            return self.quiesce(pos, alpha, beta, ply, true);
        }
        let tt = self.shared.tt;
        // The first children's buckets are fetched before this node's own
        // probe waits for memory, so that the fetches overlap: the killers'
        // (the first moves when there is no table move) now, the table
        // move's as soon as it is known. A guess that is not a legal move
        // here only fetches a line for nothing.
        let killer = self.killers[ply][0].filter(|_| depth > 1);
        if let Some(k) = killer {
            tt.prefetch(pos.key_after(&k));
            if let Some(k2) = self.killers[ply][1] {
                tt.prefetch(pos.key_after(&k2));
            }
        }
        let entry = tt.probe(pos.key());
        if let Some(e) = entry {
            if !pv_node && e.depth >= depth {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
            if let (Some((from, to)), true) = (e.mv, depth > 1) {
                if killer.is_none_or(|k| (k.from, k.to) != (from, to)) {
                    tt.prefetch(pos.key_after(&Move { from, to, captured: 0 }));
                }
            }
        }
        // ProbCut: a shallow search that clears beta by a margin growing with
        // the depth is trusted to fail high at full depth too. (No null move:
        // zugzwang is everywhere in draughts.)
        if !pv_node && depth >= PROBCUT_MIN_DEPTH && beta.abs() < WIN_BAND {
            let margin = PROBCUT_MARGIN;
            let target = beta + margin;
            let probe_depth = depth - PROBCUT_REDUCTION;
            let s = self.search(pos, target - 1, target, probe_depth, ply, false);
            if self.stopped {
                return 0;
            }
            if s >= target {
                return s - margin;
            }
            self.pv_len[ply] = ply;
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        self.generate_at(pos, ply, &mut list);
        if list.is_empty() {
            self.lists[ply] = list;
            return self.no_move(ply);
        }
        let extension = i32::from(list.len() == 1 && ply < 2 * self.root_depth as usize);
        // Singular extension: at a deep PV node, a table move that every
        // other move fails to come near (at half the depth) is searched a
        // ply deeper, so that a lone good move in a sharp line is not lost
        // at the horizon. PV nodes are few, so the test costs little.
        let mut singular = None;
        if extension == 0 && pv_node && depth >= SINGULAR_MIN_DEPTH && ply < 2 * self.root_depth as usize {
            let candidate = entry
                .filter(|e| e.bound != Bound::Upper && e.depth >= depth - 3)
                .and_then(|e| Some((e.mv?, from_tt(e.score, ply))))
                .filter(|&(_, score)| score.abs() < WIN_BAND);
            if let Some((tt_move, score)) = candidate {
                let target = score - SINGULAR_MARGIN * depth / 8;
                let alone = self.no_rival(pos, &list, tt_move, target, (depth - 1) / 2, ply);
                if self.stopped {
                    self.lists[ply] = list;
                    return 0;
                }
                singular = Some(tt_move).filter(|_| alone);
            }
        }
        let mut order = std::mem::take(&mut self.order[ply]);
        self.score_moves(pos, &list, entry.and_then(|e| e.mv), ply, &mut order);
        let side = pos.side() as usize;
        let alpha_orig = alpha;
        let mut best = -INFINITY;
        let mut best_move: Option<Move> = None;
        let n = list.len();
        let new_depth = depth - 1 + extension;
        // The children's table buckets are fetched ahead: the first child's
        // just before it is searched, and once a node has searched a move
        // without a cutoff (it will likely search them all), each next
        // child's while the current one is searched, so that its probe finds
        // the bucket in the cache (the key comes without making the move).
        // Children at the horizon never probe.
        let fetch = new_depth > 0;
        // Moves before this index are in place and their buckets fetched.
        let mut ready = 0;
        for i in 0..n {
            let fetched = i < ready;
            let m = if fetched { list.as_slice()[i] } else { select_next(&mut list, &mut order, i) };
            let child = pos.make(&m);
            if fetch && !fetched {
                self.shared.tt.prefetch(child.key());
            }
            if fetch && i >= 1 && i + 1 < n {
                let next = select_next(&mut list, &mut order, i + 1);
                self.shared.tt.prefetch(pos.key_after(&next));
                ready = i + 2;
            }
            self.push(ply, pos, &m, &child);
            let score = if i == 0 {
                let more = i32::from(singular == Some((m.from, m.to)));
                -self.child(&child, -beta, -alpha, new_depth + more, ply + 1, pv_node)
            } else {
                let quiet = !m.is_capture() && !is_promotion(pos, &m) && order[i] < KILLER_SCORE;
                let mut r = 0;
                if quiet && depth >= 3 && i >= if pv_node { 3 } else { 2 } {
                    r = 1 + i32::from(!pv_node && i >= 6);
                    r = r.min(new_depth - 1).max(0);
                }
                let mut s = -self.child(&child, -alpha - 1, -alpha, new_depth - r, ply + 1, false);
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.child(&child, -alpha - 1, -alpha, new_depth, ply + 1, false);
                }
                if s > alpha && s < beta && pv_node && !self.stopped {
                    s = -self.child(&child, -beta, -alpha, new_depth, ply + 1, true);
                }
                s
            };
            if self.stopped {
                self.lists[ply] = list;
                self.order[ply] = order;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        self.reward(side, ply, depth, &m, &list.as_slice()[..i]);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        tt.store(
            pos.key(),
            Entry {
                score: to_tt(best, ply),
                depth,
                bound,
                mv: best_move.filter(|_| bound != Bound::Upper).map(|m| (m.from, m.to)),
            },
        );
        self.lists[ply] = list;
        self.order[ply] = order;
        best
    }
}

/// Whether iterating can stop on a proven result: the same win or loss in
/// two iterations in a row, found with plies to spare beyond its distance
/// (a shorter win would have shown up by then).
fn proven_enough(score: Score, repeated: bool, depth: u32) -> bool {
    let a = score.abs();
    // A table win (or loss) at the root is as proven as a counted one: the
    // evaluation never reaches the table band, so every line that matters
    // ends in a table result or a mate. Deeper iterations can only find a
    // mate that passes no table position (a blocked side), which the same
    // margin of plies past the table position gives them time to find.
    let distance = if a >= WIN_BAND {
        WIN - a
    } else if a >= TB_BAND {
        TB_WIN - a
    } else {
        return false;
    };
    repeated && depth as Score >= distance + 4
}

/// ProbCut: nodes at least this deep are probed...
const PROBCUT_MIN_DEPTH: i32 = 5;
/// ...with a search this much shallower...
const PROBCUT_REDUCTION: i32 = 4;
/// ...against beta plus this margin (hundredths of a man).
const PROBCUT_MARGIN: Score = 40;

/// Singular extension: PV nodes at least this deep test their table move...
const SINGULAR_MIN_DEPTH: i32 = 8;
/// ...against the others at the table score less this margin at depth 8
/// (hundredths of a man; proportional to the depth).
const SINGULAR_MARGIN: Score = 16;
