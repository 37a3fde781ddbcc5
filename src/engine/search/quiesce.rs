//! Quiescence: captures are resolved beyond the horizon (they are forced,
//! so there is no standing pat while one is pending), a threatened capture
//! gets one more full ply, and a man about to crown is tried like a capture.
//!
//! A handicap (`Limits::handicap`, for people to play against) leaves part
//! of this out, so that the engine misses what a weaker player misses: long
//! shots and combinations beyond its horizon, not the capture in front of
//! it. Handicap 1 resolves captures up to [`SIGHT`]`[1]` plies beyond the
//! iteration's depth and gives no extra ply for a threat; 2 resolves two
//! plies and no crowning; 3 evaluates the horizon as it stands, captures
//! pending or not (the search's own plies still see every capture).

use super::{Searcher, MAX_PLY};
use crate::engine::score::{lost_in, Score, INFINITY};
use crate::rules::frisian;
use crate::rules::movegen::{
    forward_steps, generate_captures, generate_killer_captures, generate_quiet, has_capture, is_promotion,
    opponent_has_capture,
};
use crate::rules::position::Position;
use crate::rules::variant::Variant;

/// Plies beyond the iteration's depth that captures are resolved, by
/// handicap (0: all of them).
const SIGHT: [usize; 4] = [MAX_PLY, 4, 2, 0];

impl Searcher<'_> {
    /// Whether `ply` lies beyond where the handicap resolves captures (never
    /// without a handicap): both quiescences evaluate pending captures there.
    #[inline(always)]
    fn beyond_sight(&self, ply: usize) -> bool {
        let handicap = usize::from(self.shared.handicap);
        handicap > 0 && ply >= self.root_depth.max(0) as usize + SIGHT[handicap]
    }

    /// Searches the moves of `pos` at the horizon (only the crowning ones
    /// when `crowning_only`); returns the best score, or -INFINITY when no
    /// move qualified. A position without any move has lost. `capture` is
    /// whether the side to move must capture, which the caller knows.
    #[inline(always)]
    fn quiesce_moves(
        &mut self,
        pos: &Position,
        (alpha, beta): (Score, Score),
        ply: usize,
        capture: bool,
        crowning_only: bool,
    ) -> Score {
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        if capture {
            generate_captures(pos, &mut list);
        } else {
            generate_quiet(pos, &mut list);
        }
        if list.is_empty() {
            self.lists[ply] = list;
            return self.no_move(ply);
        }
        self.quiesce_list(pos, list, (alpha, beta), ply, crowning_only)
    }

    /// Searches the moves of `list` (taken from `self.lists[ply]`, which
    /// gets it back) at the horizon; the best score, or -INFINITY when no
    /// move qualified.
    #[inline(always)]
    fn quiesce_list(
        &mut self,
        pos: &Position,
        list: crate::rules::movegen::MoveList,
        (mut alpha, beta): (Score, Score),
        ply: usize,
        crowning_only: bool,
    ) -> Score {
        let mut best = -INFINITY;
        for i in 0..list.len() {
            let m = list.as_slice()[i];
            if crowning_only && !is_promotion(pos, &m) {
                continue;
            }
            // Capture resolution reads neither the table nor repetitions,
            // so the children's keys are not needed.
            let child = pos.make_unkeyed(&m);
            if self.own_moves {
                self.runs[ply + 1] = self.runs[ply].after(pos, &m);
            }
            self.count_leaf_node();
            if self.stopped {
                break;
            }
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, false);
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if self.stopped {
            return 0;
        }
        best
    }

    /// Resolves captures at the horizon. A pending capture is always played
    /// out (captures are forced, so there is no standing pat); in a quiet
    /// position the static evaluation stands, except at the first quiescence
    /// ply when the opponent threatens a capture: then one more full ply is
    /// searched.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        alpha: Score,
        beta: Score,
        ply: usize,
        first: bool,
    ) -> Score {
        if self.own_moves {
            return self.quiesce_own_moves(pos, alpha, beta, ply);
        }
        if self.shared.variant == Variant::Breakthrough && self.crowned_last(pos) {
            return lost_in(ply);
        }
        if ply >= self.shared.ply_limit {
            return self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
        }
        let capture = has_capture(pos);
        let handicap = self.shared.handicap;
        if capture && self.beyond_sight(ply) {
            return self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
        }
        let threat = !capture && first && handicap == 0 && opponent_has_capture(pos);
        if !capture && !threat {
            self.leaf_plies += ply as u64;
            self.leaves += 1;
            // The men's steps serve both the stalemate test and the
            // crowning test below.
            let steps = men_steps(pos);
            if steps == 0 && !king_can_step(pos) {
                return self.no_move(ply);
            }
            if let Some(s) = self.probe_tables(pos, ply) {
                return s;
            }
            let stand = self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
            if stand >= beta || steps & pos.side().promotion_row() == 0 || handicap >= 2 {
                return stand;
            }
            // A man about to be crowned is worth a king: try crowning moves
            // beyond the horizon, as captures are.
            return self.quiesce_moves(pos, (stand.max(alpha), beta), ply, false, true).max(stand);
        }
        self.quiesce_moves(pos, (alpha, beta), ply, capture, false)
    }
}

impl Searcher<'_> {
    /// Quiescence for a game with its own moves (Frisian, killer): captures are
    /// played out, a quiet position is evaluated as it stands (or lost
    /// without a move). Plainer than the international one: no threat ply
    /// and no crowning beyond the horizon; a handicap stops resolving
    /// captures where it does there.
    fn quiesce_own_moves(&mut self, pos: &Position, alpha: Score, beta: Score, ply: usize) -> Score {
        if ply >= self.shared.ply_limit {
            return self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        if self.shared.variant == Variant::Killer {
            generate_killer_captures(pos, &mut list);
        } else {
            frisian::generate_captures(pos, &mut list);
        }
        if list.is_empty() {
            self.lists[ply] = list;
            self.leaf_plies += ply as u64;
            self.leaves += 1;
            if !self.has_move(pos, ply) {
                return self.no_move(ply);
            }
            return self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
        }
        if self.beyond_sight(ply) {
            self.lists[ply] = list;
            return self.shared.eval.evaluate_cached(pos, &mut self.net_cache, ply);
        }
        self.quiesce_list(pos, list, (alpha, beta), ply, false)
    }
}

/// Whether the side to move has any legal move.
pub(super) fn has_any_move(pos: &Position) -> bool {
    has_capture(pos) || has_any_quiet_move(pos)
}

/// Whether the side to move has a quiet move (men forward or a king step).
fn has_any_quiet_move(pos: &Position) -> bool {
    men_steps(pos) != 0 || king_can_step(pos)
}

/// The empty squares the side to move's men can step onto.
#[inline(always)]
fn men_steps(pos: &Position) -> crate::rules::bitboard::Bitboard {
    let us = pos.side();
    let [a, b] = forward_steps(pos.men(us), us);
    (a | b) & pos.empty()
}

/// Whether one of the side to move's kings can step onto an empty square.
#[inline(always)]
fn king_can_step(pos: &Position) -> bool {
    use crate::rules::bitboard::{shift, DIRS};
    let kings = pos.kings_of(pos.side());
    let empty = pos.empty();
    DIRS.iter().any(|&d| shift(kings, d) & empty != 0)
}
